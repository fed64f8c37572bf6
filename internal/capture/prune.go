package capture

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// MaxAge is how long a capture file is kept after it was last written. A
// file with a pointer in a transcript is read back, if at all, within the
// session or on a resume soon after; a week covers both. A command's
// background job that still writes a file keeps its time fresh, so it is
// never pruned from under the job.
const MaxAge = 7 * 24 * time.Hour

// pruneEvery spaces prunes: the spill folder is listed at most once an
// hour, not on every Bash call.
const pruneEvery = time.Hour

// pruneStamp is the file in the spill folder whose time says when it was
// last pruned. Hidden, like the workbench's other bookkeeping.
const pruneStamp = ".capture-pruned"

// prune removes the capture files in the folder not written for MaxAge,
// at most once every pruneEvery. Only regular files with a capture file's
// name go, through the folder's handle; spill-guard's own spill files and
// anything else stay. Errors are ignored: pruning is housekeeping, and the
// next call tries again.
func (d *folder) prune(now time.Time) {
	// Stamped first, so that parallel calls do not all list the folder.
	// A stamp that is not a regular file (a folder or a link the
	// repository committed) is removed, not written through, and made anew.
	fi, err := d.root.Lstat(pruneStamp)
	if err == nil && !fi.Mode().IsRegular() {
		if d.root.RemoveAll(pruneStamp) != nil {
			return
		}
		err = fs.ErrNotExist
	}
	switch {
	case err == nil && now.Sub(fi.ModTime()) < pruneEvery:
		return
	case err == nil:
		if d.root.Chtimes(pruneStamp, now, now) != nil {
			return
		}
	case errors.Is(err, fs.ErrNotExist):
		f, err := d.root.OpenFile(pruneStamp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return
		}
		f.Close()
	default:
		return
	}
	entries, err := fs.ReadDir(d.root.FS(), ".")
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsName(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < MaxAge {
			continue
		}
		d.root.Remove(e.Name())
	}
}

// Prune prunes the capture files of the spill folder dir as View does,
// at once. For tests and tools; a missing folder is no error.
func Prune(dir string, now time.Time) error {
	d, err := openFolder(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer d.Close()
	d.root.Remove(pruneStamp)
	d.prune(now)
	return nil
}
