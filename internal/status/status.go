// Package status is flower-status, a Claude Code statusLine command: one
// line saying how full the main thread's context is and what flower kept out
// of this session so far (tool output spilled to files, main thread and
// subagents, hands-on work delegated, denials), read from the session's own
// transcripts. It prints a segment, so a status line of the user's own can
// print it beside its own. A session is read once: what was counted is kept
// under $XDG_STATE_HOME/flower/status with how far each transcript was read,
// and each refresh reads only what was appended since.
package status

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/atomicfile"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/transcript"
)

const name = "flower-status"

const usage = `Usage: flower-status < statusline.json

A Claude Code statusLine command: prints one line saying how full the main
thread's context is and what flower kept out of this session (tool output
spilled to files, for the main thread and subagents; delegations; denials).
Wire it as {"statusLine": {"type": "command", "command": "flower-status"}}, or
print its line beside your own status line's (README, "See what flower saves").`

// Main runs flower-status and returns its exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	c := hook.NewCLI(name, usage, stdin, stdout, stderr)
	defer c.Recover(&code)
	if code, done := c.Parse(args); done {
		return code
	}
	if c.Flags.NArg() > 0 {
		return c.Fail(fmt.Errorf("unexpected argument %q: the status line's JSON comes on stdin", c.Flags.Arg(0)))
	}
	if hook.IsTerminal(stdin) {
		return c.Fail(errors.New("stdin is a terminal: this is a Claude Code statusLine command, it reads the status line's JSON on stdin; see --help"))
	}
	in, err := io.ReadAll(io.LimitReader(stdin, maxInput+1))
	if err == nil && len(in) > maxInput {
		err = fmt.Errorf("stdin is over %d bytes: not a status line's JSON", maxInput)
	}
	if err == nil {
		err = jsoncheck.Check(string(in), 64)
	}
	if err != nil {
		return c.Fail(fmt.Errorf("reading stdin: %v", err))
	}
	dir := hook.StateDir()
	if dir != "" {
		dir = filepath.Join(dir, "status")
	}
	s, err := Read(gjson.GetBytes(in, "transcript_path").String(), dir)
	if err != nil {
		return c.Fail(err)
	}
	if _, err := io.WriteString(stdout, s.Line(gjson.GetBytes(in, "context_window"))+"\n"); err != nil {
		return c.Fail(err)
	}
	return hook.ExitOK
}

// maxInput bounds the status line's JSON, a few KB.
const maxInput = 1 << 20

// Session is what was counted of one session, main thread and subagents.
type Session struct {
	// Read is how far each transcript was read (its size when last read):
	// only whole lines are counted, and a transcript that shrank is read
	// anew with the rest.
	Read map[string]int64 `json:"read"`

	Spills        [2]int   `json:"spills"`         // spill pointers seen: main thread, subagents
	SpilledChars  [2]int64 `json:"spilled_chars"`  // characters those files hold
	ShownChars    [2]int64 `json:"shown_chars"`    // characters of the results that pointed to them
	Delegations   int      `json:"delegations"`    // Agent and Task calls of the main thread
	Denials       int      `json:"denials"`        // the main thread's calls delegate-guard denied
	ContextTokens int64    `json:"context_tokens"` // the main thread's last request
	Model         string   `json:"model"`          // the main thread's last model
}

// Read counts what is new in the session of the main transcript path and
// its subagents' transcripts, from the state kept in dir ("" to keep none).
func Read(path, dir string) (*Session, error) {
	if path == "" {
		return nil, errors.New("the status line's JSON names no transcript_path")
	}
	id := transcript.SessionID(path)
	state := ""
	if dir != "" {
		state = filepath.Join(dir, stateName(id))
	}
	s := load(state)
	subs, _ := transcript.Subagents(path)
	files := append([]string{path}, subs...)
	changed, err := s.readAll(files)
	if errors.Is(err, errShrank) {
		s = &Session{Read: map[string]int64{}}
		changed, err = s.readAll(files)
	}
	if err != nil {
		return nil, err
	}
	if changed {
		s.save(state)
	}
	return s, nil
}

// readAll counts what is new in files, the main transcript first (which
// must be readable), and reports whether anything was.
func (s *Session) readAll(files []string) (changed bool, err error) {
	for i, f := range files {
		size, err := s.readFrom(f, i > 0)
		switch {
		case errors.Is(err, errShrank), err != nil && i == 0:
			return false, err
		case err != nil:
			continue // a subagent's transcript being written
		}
		changed = changed || size != s.Read[f]
		s.Read[f] = size
	}
	return changed, nil
}

// errShrank says a transcript is shorter than what was read of it: it was
// rewritten, and the counts start anew.
var errShrank = errors.New("the transcript shrank")

// readFrom counts the whole lines of the transcript at path past what was
// read of it, and returns how far it was read.
func (s *Session) readFrom(path string, subagent bool) (int64, error) {
	f, err := transcript.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // a session before its first message
	}
	if err != nil {
		return s.Read[path], err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return s.Read[path], err
	}
	from := s.Read[path]
	if from < 0 || fi.Size() < from { // a state file gone bad counts anew
		return from, errShrank
	}
	end, err := wholeLines(f, from, fi.Size())
	if err != nil {
		return from, err
	}
	r := transcript.NewReader(io.NewSectionReader(f, from, end-from))
	for {
		line, err := r.Next()
		if err == io.EOF {
			return end, nil
		}
		if err == nil {
			s.count(line, subagent)
		} else if !errors.Is(err, transcript.ErrLineTooLong) {
			return from, err
		}
	}
}

// wholeLines returns where the whole lines of f between from and size end:
// a line still being written waits for the next refresh. It reads back from
// the end a block at a time, so memory stays bounded however much is new.
func wholeLines(f *os.File, from, size int64) (int64, error) {
	var b [64 << 10]byte
	for end := size; end > from; end -= int64(len(b)) {
		start := max(from, end-int64(len(b)))
		n, err := f.ReadAt(b[:end-start], start)
		if err != nil && err != io.EOF {
			return from, err
		}
		if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
	}
	return from, nil
}

// count counts one transcript line.
func (s *Session) count(line []byte, subagent bool) {
	e, err := transcript.Parse(line)
	if err != nil || e.Message == nil {
		return
	}
	side := 0
	if subagent || e.IsSidechain {
		side = 1
	}
	switch e.Type {
	case "assistant":
		if side == 0 {
			if u := e.Message.Usage.ContextTokens(); u > 0 {
				s.ContextTokens = u
			}
			if m := gjson.GetBytes(line, "message.model").String(); m != "" && m != "<synthetic>" {
				s.Model = m
			}
			for _, b := range e.ToolUses() {
				if b.Name == "Agent" || b.Name == "Task" {
					s.Delegations++
				}
			}
		}
	case "user":
		for _, b := range e.ToolResults() {
			text := resultText(b.Content())
			if side == 0 && e.ToolDenialKind == "permission-rule" && strings.Contains(text, delegateWords) {
				s.Denials++
			}
			if ps := spill.ParsePointers(text); len(ps) > 0 {
				s.Spills[side] += len(ps)
				s.ShownChars[side] += int64(len([]rune(text)))
				for _, p := range ps {
					s.SpilledChars[side] += p.Chars
				}
			}
		}
	}
}

// delegateWords are in every denial of delegate-guard's (Reason).
const delegateWords = "runs in subagents only"

// resultText is a tool_result's content as text: the string, or its text
// blocks.
func resultText(c gjson.Result) string {
	if !c.IsArray() {
		return c.String()
	}
	var b strings.Builder
	c.ForEach(func(_, v gjson.Result) bool {
		b.WriteString(v.Get("text").String())
		return true
	})
	return b.String()
}

// Line is the status line segment. window is the status line's
// context_window, when Claude Code sent one.
func (s *Session) Line(window gjson.Result) string {
	var parts []string
	size := window.Get("context_window_size").Int()
	used := window.Get("used_percentage")
	switch {
	case used.Type == gjson.Number && size > 0:
		parts = append(parts, fmt.Sprintf("main %.0f%% of %s", used.Float(), short(size)))
	case s.ContextTokens > 0:
		if size == 0 || s.ContextTokens > size {
			size = windowOf(s.Model, s.ContextTokens)
		}
		parts = append(parts, fmt.Sprintf("main %.0f%% of %s", 100*float64(s.ContextTokens)/float64(size), short(size)))
	}
	kept := s.SpilledChars[0] + s.SpilledChars[1] - s.ShownChars[0] - s.ShownChars[1]
	if n := s.Spills[0] + s.Spills[1]; n > 0 && kept > 0 {
		parts = append(parts, fmt.Sprintf("kept out %s chars in %d spill(s) (main %d, subagents %d)", short(kept), n, s.Spills[0], s.Spills[1]))
	}
	if s.Delegations > 0 {
		parts = append(parts, plural(s.Delegations, "delegation"))
	}
	if s.Denials > 0 {
		parts = append(parts, plural(s.Denials, "denial"))
	}
	if len(parts) == 0 {
		return "flower: nothing kept out yet"
	}
	return "flower: " + strings.Join(parts, " · ")
}

// windowOf is the context window of model: a million tokens for the models
// that run with one ("[1m]"), or for a session already past 200,000.
func windowOf(model string, tokens int64) int64 {
	if strings.Contains(model, "[1m]") || tokens > 200_000 {
		return 1_000_000
	}
	return 200_000
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// short writes n as 950, 48.2k, 200k or 1.2M.
func short(n int64) string {
	num, unit := float64(n), ""
	switch {
	case n >= 1_000_000:
		num, unit = num/1e6, "M"
	case n >= 1000:
		num, unit = num/1e3, "k"
	}
	return strings.TrimSuffix(strconv.FormatFloat(num, 'f', 1, 64), ".0") + unit
}

// stateName is the state file of session id: the id when it is a plain
// name, else its hash, so that no id leads outside the folder.
func stateName(id string) string {
	plain := id != "" && len(id) <= 128 && strings.IndexFunc(id, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
	}) < 0
	if !plain {
		sum := sha256.Sum256([]byte(id))
		id = "h-" + hex.EncodeToString(sum[:16])
	}
	return id + ".json"
}

// maxState bounds a state file: a few paths and counts.
const maxState = 1 << 20

// load reads the state at path; a missing or unreadable one starts anew.
func load(path string) *Session {
	s := &Session{Read: map[string]int64{}}
	f, err := transcript.Open(path)
	if err != nil {
		return s
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxState))
	if err != nil || json.Unmarshal(b, s) != nil || s.Read == nil {
		return &Session{Read: map[string]int64{}}
	}
	return s
}

// stateMaxAge is how long a session's state outlives its last refresh.
const stateMaxAge = 30 * 24 * time.Hour

// save writes the state at path; a failure only means the next refresh
// reads the session again. A new state file prunes those of sessions idle
// for stateMaxAge.
func (s *Session) save(path string) {
	if path == "" {
		return
	}
	b, err := json.Marshal(s)
	if err != nil {
		return
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		prune(dir, time.Now())
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer r.Close()
	atomicfile.Replace(r, filepath.Base(path), 0o600, false, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func prune(dir string, now time.Time) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".json") && now.Sub(info.ModTime()) > stateMaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
