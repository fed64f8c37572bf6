// Package decisionlog appends what flower's hooks decide to the decision
// log, one JSON line a decision, when the configuration switches it on, and
// reads the log back for flower-config --log. What a line holds, its bounds
// and the log's rotation are described under "The decision log" in the
// README.
package decisionlog

import (
	"encoding/json"
	"errors"
	"fmt"
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

// Bounds on a line. A command can hold a secret typed into it (a token in a
// curl header), so only its start is kept: enough to tell one call from
// another. Within maxLine an O_APPEND write is one write whatever the file
// system, so parallel hooks never interleave their lines.
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
		Event: p.Event(), Tool: p.ToolName(), Agent: p.Get("agent_id").String(), Sizes: Sizes{Payload: len(p.Raw)}}}
	for _, field := range []string{"command", "file_path", "notebook_path", "url", "pattern"} {
		if v := p.Get("tool_input." + field); v.Exists() {
			r.input = v.String()
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

// Append writes line, one whole line, at the end of the log at path,
// rotating the log first when line would take it past maxBytes. The folder
// is made 0700 and the file 0600: a line may quote a secret.
func Append(path string, line []byte, maxBytes int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, fi, err := open(path)
	if err != nil {
		return err
	}
	if fi.Size() > 0 && fi.Size()+int64(len(line)) > maxBytes {
		rotated, err := rotate(f, fi, path)
		if err != nil || rotated {
			f.Close()
			if err != nil {
				return err
			}
			if f, _, err = open(path); err != nil {
				return err
			}
		}
	}
	defer f.Close()
	_, err = f.Write(line)
	return err
}

// open opens the log for appending, creating it 0600; it must be a regular
// file (O_NONBLOCK: a FIFO put there answers at once).
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

// rotate renames the full log at path, open as f, to path.1 (replacing the
// older one), and reports whether the log at path is now another file. Hooks
// that found the log full at once take the flock on it in turn: the first
// renames it, the others find it renamed and open the new one. A hook that
// opened the old file before the rename writes its line there: nothing is
// lost, and the old file goes a line over.
func rotate(f *os.File, fi os.FileInfo, path string) (bool, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, err
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	cur, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && !os.SameFile(cur, fi):
		return true, nil // rotated by another hook
	case err != nil:
		return false, err
	}
	return true, os.Rename(path, path+".1")
}
