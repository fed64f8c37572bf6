// Package decisionlog records what flower's hooks decide, one JSON line a
// decision (Entry), when the configuration switches the log on, and reads
// the log back for flower-config --log.
//
// Hooks run in parallel (the hooks of one event, and of parallel tool
// calls), so a line is appended with one write to a file opened with
// O_APPEND, which the kernel does not interleave with another's, and kept
// under maxLine. The log is bounded: past its size it is renamed to
// <file>.1 (one old file kept, replacing the last), under an flock so that
// two hooks never rotate it twice. A hook that still holds the old file
// writes its line there: nothing is lost, the old file goes a line over.
//
// It never holds tool output: a line has the hook's verdict and reason
// (maxReason characters, which may quote a word of the command), sizes,
// and the start of the call's input only (maxInput characters of a Bash
// command, which may hold a secret typed into it; a file path).
// The folder is made 0700 and the file 0600.
package decisionlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/hook"
)

// Entry is one decision of a hook.
type Entry struct {
	Time    string `json:"time"` // RFC 3339 with milliseconds, UTC
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"` // the project folder
	Hook    string `json:"hook"`
	Event   string `json:"event"`
	Tool    string `json:"tool,omitempty"`
	Agent   string `json:"agent,omitempty"` // the subagent's id; none on the main thread
	// Verdict is what the hook did: deny, pass, spill, index, update,
	// off (its layer is switched off).
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Input is the start of the call's input: a Bash command's first
	// maxInput characters, or the path a tool names.
	Input string `json:"input,omitempty"`
	Sizes Sizes  `json:"sizes"`
}

// Sizes are the sizes a decision was made on, in bytes unless named
// otherwise; zero ones are left out.
type Sizes struct {
	Payload int   `json:"payload"`           // the hook payload
	Input   int   `json:"input,omitempty"`   // the whole Bash command
	Result  int   `json:"result,omitempty"`  // tool_response as it came
	Spilled int64 `json:"spilled,omitempty"` // characters moved to spill files
	Files   int   `json:"files,omitempty"`   // spill files written
	Shown   int   `json:"shown,omitempty"`   // characters the hook gave the model
}

// Bounds on a line. A command can hold a secret typed into it (a token
// in a curl header), so only its start is kept: enough to tell one call
// from another, and the whole line stays far under maxLine, within which
// an O_APPEND write is one write whatever the file system.
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

// Recorder appends the decisions of one hook call. A nil Recorder (the log
// switched off) records nothing.
type Recorder struct {
	s     Settings
	base  Entry
	input string
	cli   *hook.CLI
}

// New returns the recorder of the hook call cli is running on payload p,
// or nil when the log is off.
func New(s Settings, cli *hook.CLI, p *hook.Payload) *Recorder {
	if s.File == "" {
		return nil
	}
	r := &Recorder{s: s, cli: cli, base: Entry{Session: p.SessionID(), Project: s.Project, Hook: cli.Name,
		Event: p.Event(), Tool: p.ToolName(), Agent: p.Get("agent_id").String()}}
	r.base.Sizes.Payload = len(p.Raw)
	in, _ := p.ToolInput()
	for _, field := range []string{"command", "file_path", "notebook_path", "url", "pattern"} {
		if v, ok := in[field]; ok {
			r.input = gjson.Parse(v).String()
			break
		}
	}
	return r
}

// Record appends one decision. A failure to write says so in one stderr
// line and changes nothing else: the log never stops a hook.
func (r *Recorder) Record(verdict, reason string, sizes Sizes) {
	if r == nil {
		return
	}
	e := r.base
	e.Time = time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	e.Verdict, e.Reason = verdict, cut(reason, maxReason)
	e.Input = cut(r.input, maxInput)
	sizes.Payload = e.Sizes.Payload
	if r.base.Tool == "Bash" {
		sizes.Input = len(r.input)
	}
	e.Sizes = sizes
	line, err := json.Marshal(e)
	if err == nil && len(line) >= maxLine {
		// Escaped characters take up to 6 bytes each: cut every field
		// to a length whose worst case fits.
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
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// Append writes line, one whole line, at the end of the log at path,
// rotating the log first when line would take it past maxBytes.
func Append(path string, line []byte, maxBytes int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, fi, err := open(path)
	if err != nil {
		return err
	}
	if fi.Size() > 0 && fi.Size()+int64(len(line)) > maxBytes {
		rotated, err := rotate(f, fi, path, int64(len(line)), maxBytes)
		if err != nil {
			f.Close()
			return err
		}
		if rotated {
			f.Close()
			if f, _, err = open(path); err != nil {
				return err
			}
		}
	}
	defer f.Close()
	n, err := f.Write(line)
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	return err
}

// open opens the log for appending, creating it 0600; it must be a
// regular file (O_NONBLOCK: a FIFO put there answers at once).
func open(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
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

// rotate renames the log at path to path.1 when f, open on it, is still
// the file there and still too full for one more line of n bytes. The
// flock on f makes the check and the rename one step among hooks that
// found the log full at once: the second finds the file renamed and opens
// the new one.
func rotate(f *os.File, fi os.FileInfo, path string, n, maxBytes int64) (bool, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	cur, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && !os.SameFile(cur, fi) {
		return true, nil // rotated by another hook: open the new log
	}
	if err != nil {
		return false, err
	}
	if now, err := f.Stat(); err != nil || now.Size()+n <= maxBytes {
		return false, err
	}
	return true, os.Rename(path, path+".1")
}
