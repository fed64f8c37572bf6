package prunesession

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// newSessionID is a random (version 4) UUID, as Claude Code's session ids.
func newSessionID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

var uuidShape = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// ownerOnly is the mode of a copied folder while it is filled.
const ownerOnly fs.FileMode = 0o700

// copySessionDir copies the session folder src to dst, with the
// transcripts beside it in subagents/, giving every .jsonl file (checked as
// the main transcript is) the fork's session id, and a transcript.ForkMarker
// naming oldID in place of src's. It is built in a temporary folder and
// renamed, so dst appears whole or not at all. With dst "" nothing is
// written (a dry run).
func copySessionDir(ctx context.Context, src, dst string, beside []string, oldID, newID string, sync bool) error {
	dry, tmp := dst == "", ""
	if !dry {
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s already exists", dst)
		}
		var err error
		if tmp, err = os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*"); err != nil {
			return err
		}
	}
	// Each copied folder gets its source's permission bits once filled,
	// deepest first (a folder without write permission can be copied);
	// until then it is the owner's alone.
	type folder struct {
		path string
		perm fs.FileMode
	}
	var folders []folder
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(tmp, rel)
		switch {
		case err != nil && path == src && errors.Is(err, fs.ErrNotExist):
			return nil // no session folder
		case err != nil:
			return err
		case d.IsDir() && dry:
			return nil
		case d.IsDir():
			info, err := d.Info()
			if err != nil {
				return err
			}
			folders = append(folders, folder{to, info.Mode().Perm()})
			if rel == "." {
				return nil
			}
			return os.Mkdir(to, ownerOnly)
		case !d.Type().IsRegular():
			return nil // sockets, links: nothing a resume reads
		case rel == transcript.ForkMarker:
			return nil // the origin of src, not of this fork
		}
		return copyFile(ctx, path, to, dry, sync, strings.HasSuffix(path, ".jsonl"), oldID, newID)
	})
	if len(folders) == 0 && !dry {
		folders = append(folders, folder{tmp, ownerOnly}) // no session folder
	}
	for _, sub := range beside {
		if err != nil {
			break
		}
		to := filepath.Join(tmp, "subagents", filepath.Base(sub))
		if _, serr := os.Stat(filepath.Dir(to)); !dry && errors.Is(serr, fs.ErrNotExist) {
			if err = os.Mkdir(filepath.Dir(to), ownerOnly); err != nil {
				break
			}
			folders = append(folders, folder{filepath.Dir(to), ownerOnly})
		}
		err = copyFile(ctx, sub, to, dry, sync, true, oldID, newID)
	}
	if dry {
		return err
	}
	if err == nil {
		err = atomicfile.WriteNew(filepath.Join(tmp, transcript.ForkMarker), 0o600, sync, func(w io.Writer) error {
			_, err := w.Write(transcript.ForkMarkerJSON(oldID))
			return err
		})
	}
	for i := len(folders) - 1; i >= 0 && err == nil; i-- {
		if sync {
			err = syncDir(folders[i].path) // its entries: the copied files' names
		}
		if err == nil {
			err = os.Chmod(folders[i].path, folders[i].perm)
		}
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		removeTree(tmp)
	}
	return err
}

// copyFile copies one file of the session folder, a transcript through
// copyTranscript; a dry run only reads it.
func copyFile(ctx context.Context, src, dst string, dry, sync, isTranscript bool, oldID, newID string) error {
	in, closeIn, err := openInterruptible(ctx, src)
	if err != nil {
		return err
	}
	defer closeIn()
	var f *os.File
	w := io.Discard
	if !dry {
		if f, err = os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if !isTranscript {
		_, err = io.Copy(w, in)
	} else if err = copyTranscript(in, w, oldID, newID); err != nil {
		err = fmt.Errorf("%s: %w", src, err)
	}
	if err != nil || dry {
		return err
	}
	if sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyTranscript copies a subagent transcript, checking that each line
// parses and giving it the fork's session id.
func copyTranscript(in io.Reader, out io.Writer, oldID, newID string) error {
	w := bufio.NewWriterSize(out, 64<<10)
	var read tally
	var line []byte
	err := transcript.Scan(io.TeeReader(in, &read), func(n int, e *transcript.Entry, err error) error {
		if err != nil {
			return err
		}
		if n > 1 {
			w.WriteByte('\n')
		}
		line = setSessionID(line[:0], e.Raw, oldID, newID)
		_, err = w.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	if read.last == '\n' {
		w.WriteByte('\n')
	}
	return w.Flush()
}
