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

// newSessionID is a random (version 4) UUID, the form Claude Code gives
// session ids.
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

// copySessionDir copies the session folder src (subagent transcripts and
// whatever else Claude Code keeps there) to dst, rewriting the session id in
// every .jsonl file, which must parse as the main transcript does, and puts
// in it a transcript.ForkMarker naming oldID (in place of the marker of src,
// when src is a fork itself). The subagent transcripts beside go to its
// subagents/ folder. The copy is built in a temporary folder beside
// dst and renamed into place, so dst appears whole or not at all. With dst
// "" nothing is written: the files are only checked (a dry run). A missing
// src gives a dst holding the marker alone.
func copySessionDir(ctx context.Context, src, dst string, beside []string, oldID, newID string, sync bool) error {
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		src = ""
	}
	tmp := ""
	if dst != "" {
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s already exists", dst)
		}
		var err error
		if tmp, err = os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*"); err != nil {
			return err
		}
	}
	// Each copied folder gets its source folder's permission bits: the
	// fork is as private (or as shared) as the session it came from, which
	// a fixed mode would widen or narrow. They are set once the folders
	// are filled, deepest first, so that a source folder without write
	// permission can still be copied; until then a folder is the owner's
	// alone (0o700, as MkdirTemp makes the top one). Files are written
	// 0o600 as the fork's transcript is: transcripts are private.
	type dirPerm struct {
		path string
		perm fs.FileMode
	}
	var perms []dirPerm
	var err error
	if src != "" {
		err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			to := filepath.Join(tmp, rel)
			switch {
			case d.IsDir():
				if tmp == "" {
					return nil
				}
				info, err := d.Info()
				if err != nil {
					return err
				}
				perms = append(perms, dirPerm{to, info.Mode().Perm()})
				if rel == "." {
					return nil
				}
				return os.Mkdir(to, ownerOnly)
			case !d.Type().IsRegular():
				return nil // sockets, links: nothing a resume reads
			case rel == transcript.ForkMarker:
				return nil // the origin of src, not of this fork
			}
			return copyFile(ctx, path, to, tmp == "", sync, strings.HasSuffix(path, ".jsonl"), oldID, newID)
		})
	}
	for _, sub := range beside {
		if err != nil {
			break
		}
		to := filepath.Join(tmp, "subagents", filepath.Base(sub))
		if _, serr := os.Stat(filepath.Dir(to)); tmp != "" && errors.Is(serr, fs.ErrNotExist) {
			if err = os.Mkdir(filepath.Dir(to), ownerOnly); err != nil {
				break
			}
			perms = append(perms, dirPerm{filepath.Dir(to), ownerOnly})
		}
		err = copyFile(ctx, sub, to, tmp == "", sync, true, oldID, newID)
	}
	if err == nil && tmp != "" {
		err = writeNew(sync)(filepath.Join(tmp, transcript.ForkMarker), 0o600, func(w io.Writer) error {
			_, err := w.Write(transcript.ForkMarkerJSON(oldID))
			return err
		})
	}
	for i := len(perms) - 1; i >= 0 && err == nil; i-- {
		if sync {
			err = syncDir(perms[i].path) // its entries: the copied files' names
		}
		if err == nil {
			err = os.Chmod(perms[i].path, perms[i].perm)
		}
	}
	if err == nil && sync && tmp != "" && len(perms) == 0 {
		err = syncDir(tmp) // no session folder to copy: the marker alone
	}
	if err == nil && tmp != "" {
		err = os.Rename(tmp, dst)
	}
	if err != nil && tmp != "" {
		// Folders already given a read-only mode would keep RemoveAll
		// from emptying them.
		removeTree(tmp)
	}
	return err
}

// writeNew is how the fork's files are created: atomically, and fsynced
// only with --sync (see the package doc).
func writeNew(sync bool) func(string, fs.FileMode, func(io.Writer) error) error {
	return func(path string, perm fs.FileMode, fill func(io.Writer) error) error {
		return atomicfile.WriteNew(path, perm, sync, fill)
	}
}

// ownerOnly is the mode of a copied folder while it is filled.
const ownerOnly fs.FileMode = 0o700

// copyFile copies one file of the session folder; a transcript is checked
// line by line and gets the new session id.
func copyFile(ctx context.Context, src, dst string, dry, sync, isTranscript bool, oldID, newID string) error {
	in, closeIn, err := openInterruptible(ctx, src)
	if err != nil {
		return err
	}
	defer closeIn()
	var out io.Writer = io.Discard
	var f *os.File
	if !dry {
		if f, err = os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	if !isTranscript {
		if _, err := io.Copy(out, in); err != nil {
			return err
		}
	} else if err := copyTranscript(in, out, oldID, newID); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if f != nil {
		if sync {
			if err := f.Sync(); err != nil {
				return err
			}
		}
		return f.Close()
	}
	return nil
}

// copyTranscript copies a subagent transcript line by line, checking that
// each parses and giving it the fork's session id. It ends in a newline
// when the original does.
func copyTranscript(in io.Reader, out io.Writer, oldID, newID string) error {
	w := bufio.NewWriterSize(out, writeBufferSize)
	var read digest
	var line []byte
	err := transcript.Scan(io.TeeReader(in, &read), func(n int, e *transcript.Entry, err error) error {
		if err != nil {
			return err
		}
		if line, err = setSessionID(append(line[:0], e.Raw...), oldID, newID); err != nil {
			return err
		}
		if n > 1 {
			w.WriteByte('\n')
		}
		_, err = w.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	if read.n > 0 && read.last == '\n' {
		w.WriteByte('\n')
	}
	return w.Flush()
}
