package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/flowerhooks/flower/pkg/extra"
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
	return readFile(path, 0)
}

// readProject reads ProjectFile under the project folder dir. The file
// comes with the repository: neither .claude nor flower.json may be a
// symlink (a link to /dev/zero, or to a file of the user's, is refused, not
// followed), it is opened without blocking (a FIFO answers at once), and it
// must be a regular file under the cap. A missing file is (nil, nil).
func readProject(dir string) ([]byte, error) {
	claude := filepath.Join(dir, filepath.Dir(ProjectFile))
	fi, err := os.Lstat(claude)
	switch {
	case missing(err):
		return nil, nil
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symlink: flower does not follow a symlink in a project", claude)
	case !fi.IsDir():
		return nil, nil // no folder, so no file in it
	}
	data, err := readFile(filepath.Join(dir, ProjectFile), syscall.O_NOFOLLOW)
	if errors.Is(err, syscall.ELOOP) {
		return nil, errors.New("a symlink: flower does not follow a symlink in a project")
	}
	return data, err
}

// readFile reads the regular file at path, of at most MaxFileBytes, with
// plain system calls: os.OpenFile would register the descriptor with Go's
// poller, whose start-up on a hook's first open cost 20 to 30 µs of the
// 30 to 40 µs a read took in a fresh process (measured on this bench
// machine, docs/BENCHMARKS.md's hooks run about 3 ms). flags are added to
// O_RDONLY|O_NONBLOCK|O_CLOEXEC. A missing file is (nil, nil).
func readFile(path string, flags int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|flags, 0)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFDIR:
		return nil, errors.New("a folder, not a regular file")
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return nil, errors.New("not a regular file")
	case st.Size > MaxFileBytes:
		return nil, fmt.Errorf("%d bytes, past the %d a configuration file may have", st.Size, MaxFileBytes)
	}
	b := make([]byte, st.Size+1) // one more, to see a file that grew
	n := 0
	for n < len(b) {
		k, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
		n += k
	}
	if n == len(b) {
		return nil, errors.New("it grew while it was read")
	}
	return b[:n], nil
}

// missing reports whether err says there is no file at a path: none by
// that name, or a file where a folder on the way should be.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// Check reads the configuration file at path as a hook would (without
// blocking, a regular file under the cap) and says why it cannot be used,
// or nil; it returns the file's glance entries, for the glance table to
// judge (ephemeral.NewGlances). It checks the file alone, over the
// defaults: a head not below the threshold is found within the file, not
// against another file.
func Check(path string) ([]extra.Entry, error) {
	data, err := readUser(path)
	switch {
	case err != nil:
		return nil, &FileError{Path: path, Msg: "cannot be read: " + err.Error()}
	case data == nil:
		return nil, &FileError{Path: path, Msg: "no such file"}
	}
	l, err := parse(data, path, "file")
	if err != nil {
		return nil, err
	}
	c := &Config{}
	if err := c.merge(l, nil); err != nil {
		return nil, &FileError{Path: path, Msg: err.Error()}
	}
	return c.Extras(), nil
}
