package decisionlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Read calls fn with each entry of the log at path, oldest first: the
// rotated file (path.1), then the log. A line that is not an entry is
// counted in bad and skipped. A missing file is no error.
func Read(path string, fn func(Entry)) (bad int, err error) {
	for _, p := range []string{path + ".1", path} {
		n, err := readFile(p, fn)
		bad += n
		if err != nil {
			return bad, err
		}
	}
	return bad, nil
}

func readFile(path string, fn func(Entry)) (bad int, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, maxLine), maxLine*4)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Hook == "" {
			bad++
			continue
		}
		fn(e)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return bad + 1, nil // a line no hook wrote: the rest is not read
	}
	return bad, sc.Err()
}
