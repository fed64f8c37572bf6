package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ProjectFile is the project file, under the project folder: beside
// Claude Code's own .claude/settings.json, where a user looks for a
// project's settings, and as easy for a repository to commit as any other
// name (the trust rule, not the name, is what keeps it in its place).
const ProjectFile = ".claude/flower.json"

// UserFile is the user file: $XDG_CONFIG_HOME/flower/config.json, else
// ~/.config/flower/config.json; "" when neither is known.
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) { // the XDG spec: a relative value is ignored
		home := homeDir()
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "flower", "config.json")
}

// homeDir is $HOME, or "" when it is not set.
func homeDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return home
}

// readUser reads the user file at path. It is the user's own, so a
// symlink is followed (dotfile managers link config files into a store);
// what it leads to must still be a regular file, read without blocking and
// up to the cap. A missing file is (nil, nil).
func readUser(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f)
}

// readProject reads ProjectFile under the project folder dir. The file
// comes with the repository: it is opened through a handle on dir
// (os.Root), so no symlink in it or in .claude leads outside the project
// (a link to /dev/zero or to a file of the user's is refused), without
// blocking (a FIFO answers at once), and must be a regular file under the
// cap. A missing file is (nil, nil).
func readProject(dir string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(ProjectFile, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f)
}

// missing reports whether err says there is no file at a path: none by
// that name, or a file where a folder on the way should be.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// readCapped reads f, which must be a regular file of at most MaxFileBytes.
func readCapped(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case fi.IsDir():
		return nil, errors.New("a folder, not a regular file")
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	case fi.Size() > MaxFileBytes:
		return nil, fmt.Errorf("%d bytes, past the %d a configuration file may have", fi.Size(), MaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("past the %d bytes a configuration file may have", MaxFileBytes)
	}
	return b, nil
}

// Check reads the configuration file at path as a hook would (without
// blocking, a regular file under the cap) and says why it cannot be used,
// or nil. It checks the file alone, over the defaults: a head not below
// the threshold is found within the file, not against another file.
func Check(path string) error {
	data, err := readUser(path)
	switch {
	case err != nil:
		return &FileError{Path: path, Msg: "cannot be read: " + err.Error()}
	case data == nil:
		return &FileError{Path: path, Msg: "no such file"}
	}
	l, err := parse(data, path, "file")
	if err != nil {
		return err
	}
	if err := (&Config{}).merge(l, nil); err != nil {
		return &FileError{Path: path, Msg: err.Error()}
	}
	return nil
}
