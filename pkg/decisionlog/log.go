// Package decisionlog appends what flower's hooks decide to the decision log,
// one JSON line a decision, and reads it back for flower-config --log. The
// README's "The decision log" says what a line holds and how the log rotates.
package decisionlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/flowerhooks/flower/pkg/hook"
)

// Entry is one decision of a hook.
type Entry struct {
	Time    string `json:"time"` // RFC 3339 with milliseconds, UTC
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Hook    string `json:"hook"`
	Event   string `json:"event"`
	Tool    string `json:"tool,omitempty"`
	Agent   string `json:"agent,omitempty"` // none on the main thread
	Verdict string `json:"verdict"`         // deny, pass, spill, index, update, capture, off
	Reason  string `json:"reason"`
	Input   string `json:"input,omitempty"` // the start of the command, or the path a tool names
	Sizes   Sizes  `json:"sizes"`
}

// Sizes are the sizes a decision was made on, in bytes unless named otherwise.
type Sizes struct {
	Payload int   `json:"payload"`
	Input   int   `json:"input,omitempty"`   // the whole Bash command
	Result  int   `json:"result,omitempty"`  // tool_response as it came
	Spilled int64 `json:"spilled,omitempty"` // characters moved to spill files
	Files   int   `json:"files,omitempty"`   // spill files written
	Shown   int   `json:"shown,omitempty"`   // characters the hook gave the model
}

// A command can hold a secret typed into it, so only its start is kept.
// Within maxLine an O_APPEND write is one write on any file system, so
// parallel hooks never interleave their lines.
const (
	maxInput  = 100
	maxReason = 300
	maxLine   = 4096
)

// Settings say where the log is; the zero Settings is the log switched off.
type Settings struct {
	File     string
	MaxBytes int64
	Project  string
}

// Recorder appends the decisions of one hook call; a nil one records nothing.
type Recorder struct {
	s     Settings
	base  Entry
	input string
	cli   *hook.CLI
}

// New returns the recorder of the hook call cli runs on p, nil when the log is off.
func New(s Settings, cli *hook.CLI, p *hook.Payload) *Recorder {
	if s.File == "" {
		return nil
	}
	r := &Recorder{s: s, cli: cli, base: Entry{Session: p.SessionID(), Project: s.Project, Hook: cli.Name,
		Event: p.Event(), Tool: p.ToolName(), Agent: p.Get("agent_id").String(), Sizes: Sizes{Payload: len(p.Raw)}}}
	for _, field := range []string{"command", "file_path", "notebook_path", "url", "pattern"} {
		if v := p.Get("tool_input." + field); v.Exists() {
			r.input = v.String()
			break
		}
	}
	return r
}

// Record appends one decision; a failure says so in one stderr line and
// never stops the hook.
func (r *Recorder) Record(verdict, reason string, sizes Sizes) {
	if r == nil {
		return
	}
	e := r.base
	e.Time = time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	e.Verdict, e.Reason, e.Input = verdict, cut(reason, maxReason), cut(r.input, maxInput)
	sizes.Payload = e.Sizes.Payload
	if e.Tool == "Bash" {
		sizes.Input = len(r.input)
	}
	e.Sizes = sizes
	line, err := json.Marshal(e)
	if err == nil && len(line) >= maxLine {
		// An escaped character takes up to 6 bytes: cut every field to a
		// length whose worst case fits.
		for _, f := range []*string{&e.Session, &e.Project, &e.Hook, &e.Event, &e.Tool, &e.Agent, &e.Verdict, &e.Reason, &e.Input} {
			*f = cut(*f, 60)
		}
		line, err = json.Marshal(e)
	}
	if err == nil {
		err = Append(r.s.File, append(line, '\n'), r.s.MaxBytes)
	}
	if err != nil {
		fmt.Fprintf(r.cli.Stderr, "%s: warning: decision log: %v\n", r.cli.Name, err)
	}
}

// cut keeps the first n characters of s, marking a cut with "…".
func cut(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// Append writes line at the end of the log at path, first moving a log it
// would take past maxBytes to path.1. A line may quote a secret: the folder
// is made 0700, the file 0600.
func Append(path string, line []byte, maxBytes int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, fi, err := open(path, appending)
	if err == nil && fi.Size() > 0 && fi.Size()+int64(len(line)) > maxBytes {
		err = rotate(f, fi, path)
		f.Close()
		if err == nil {
			f, _, err = open(path, appending)
		}
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(line)
	return err
}

const appending = os.O_WRONLY | os.O_APPEND | os.O_CREATE

// open opens the log with flag; it must be a regular file (O_NONBLOCK: a
// FIFO put there answers at once).
func open(path string, flag int) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// rotate renames the full log f, open at path, to path.1. Hooks that found
// it full at once take its flock in turn: the first renames it, the others
// find it renamed. One that opened it before the rename writes its line
// there: nothing is lost, and the old file goes a line over.
func rotate(f *os.File, fi os.FileInfo, path string) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if cur, err := os.Lstat(path); err != nil || !os.SameFile(cur, fi) {
		return nil // rotated by another hook
	}
	return os.Rename(path, path+".1")
}

// Read calls fn with each entry of the log at path, oldest first (path.1,
// then path), and counts the lines that are not entries; a missing file is
// no error.
func Read(path string, fn func(Entry)) (bad int, err error) {
	for _, p := range []string{path + ".1", path} {
		f, _, err := open(p, os.O_RDONLY)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return bad, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, maxLine), maxLine*4)
		for sc.Scan() {
			var e Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Hook == "" {
				bad++
			} else {
				fn(e)
			}
		}
		if errors.Is(sc.Err(), bufio.ErrTooLong) {
			bad++ // a line no hook wrote: the rest is not read
		} else if sc.Err() != nil {
			return bad, sc.Err()
		}
	}
	return bad, nil
}
