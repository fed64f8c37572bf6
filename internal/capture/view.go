package capture

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// Options are spill-guard's: what layer three shows of any result.
type Options struct {
	Threshold int // characters shown whole; past them, a pointer and the head
	Head      int // characters of the head
	Tail      int // characters of the tail in a failed call's view
	// Whole shows the output whole up to Claude Code's own limit for a Bash
	// result: the call reads a spill file back, and a pointer would send
	// the model round in a loop (see spillguard.readsSpill).
	Whole bool
}

// Claude Code 2.1.328 keeps at most 30,000 characters of a Bash result and
// shows the model a 2,000-character preview of a longer one. A call that
// reads a spill file back (Options.Whole) is shown as much, and past it a
// pointer and as long a head.
const (
	bashResultMax = 30000
	bashPreview   = 2000
)

// Marked is a Bash result that starts with a marker.
type Marked struct {
	Path   string // the capture file the marker names
	before string // Claude Code's line before the marker ("Exit code 1")
	rest   string // what follows the marker line
	event  string
}

// Detect finds the marker in a Bash call's PostToolUse stdout (on its first
// line) or PostToolUseFailure error (after Claude Code's "Exit code N"
// line). ok is false for anything else, which is not the capture layer's.
func Detect(p *hook.Payload) (m Marked, ok bool) {
	if p.ToolName() != "Bash" {
		return m, false
	}
	m.event = p.Event()
	var text gjson.Result
	switch m.event {
	case "PostToolUse":
		text = p.Get("tool_response.stdout")
	case "PostToolUseFailure":
		text = p.Get("error")
	default:
		return m, false
	}
	// Only a short text can be a marker: everything else of the call went
	// to the file.
	if text.Type != gjson.String || !strings.Contains(text.Raw[:min(len(text.Raw), 4096)], markerStart) {
		return m, false
	}
	m.Path, m.before, m.rest, ok = Find(text.Str)
	if ok && m.event == "PostToolUse" && m.before != "" {
		return Marked{}, false
	}
	return m, ok
}

// View reads the capture file m names, which must be a capture file of the
// payload's session directly in the spill folder dir, and returns the
// output that shows it: for PostToolUse, tool_response with stdout
// replaced by the view; for PostToolUseFailure, an additionalContext. A
// file shown whole after a call that has ended is removed, and old capture
// files are pruned (see Prune).
//
// A marker that names no capture file of this session there is reported
// with an error saying so: spill-guard then prints nothing, and the model
// gets the result as it came.
func View(p *hook.Payload, m Marked, dir string, o Options) (out *hook.Output, shown func(), err error) {
	d, err := openFolder(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot use the spill folder for the captured output %s: %v", m.Path, err)
	}
	defer d.Close()
	f, name, err := d.open(m.Path, p.SessionID())
	if errors.Is(err, errNotOurs) {
		return nil, nil, fmt.Errorf("a marker line names %v; the result is left as it came", err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the captured output: %v", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	// A call moved to the background (its timeout) goes on writing the
	// file; so may a job the command left behind, but that one Claude Code
	// does not wait for either, and what it writes later is lost without
	// capture too.
	running := p.Get("tool_response.backgroundTaskId").String() != ""

	removable := false
	if m.event == "PostToolUse" {
		threshold, head := o.Threshold, o.Head
		if o.Whole {
			threshold, head = bashResultMax, bashPreview
		}
		img, isImage, err := readImage(f, fi.Size())
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("reading the captured output %s: %v", m.Path, err)
		}
		var c output
		if !isImage {
			c, err = readOutput(f, fi.Size(), threshold, head, 0)
		}
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("reading the captured output %s: %v", m.Path, err)
		}
		var updated []byte
		if isImage {
			updated, err = replaceStdout(p, img)
			if err == nil {
				updated, err = sjson.SetBytes(updated, "isImage", true)
			}
		} else {
			updated, err = replaceStdout(p, successText(c, m, running))
		}
		if err != nil {
			return nil, nil, err
		}
		out = hook.NewOutput("PostToolUse").SetRaw("updatedToolOutput", updated)
		removable = (isImage || c.isWhole) && !running
	} else {
		c, err := readOutput(f, fi.Size(), o.Threshold, o.Head, o.Tail)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("reading the captured output %s: %v", m.Path, err)
		}
		out = hook.NewOutput("PostToolUseFailure").Set("additionalContext", failureText(c, m))
	}
	d.prune(time.Now())
	// The model holds all of a file shown whole, and the view no longer
	// names it: it goes once the view is printed (until then, the file is
	// all there is of the output). A failed call's file stays: the marker
	// in its result names it.
	shown = func() {}
	if removable {
		shown = func() {
			if d, err := openFolder(dir); err == nil {
				d.remove(name)
				d.Close()
			}
		}
	}
	return out, shown, nil
}

// replaceStdout returns tool_response with stdout set to text, every other
// field as it came (Claude Code drops a replacement that does not match the
// Bash output schema).
func replaceStdout(p *hook.Payload, text string) ([]byte, error) {
	resp := p.Get("tool_response")
	if !resp.IsObject() {
		return nil, errors.New("tool_response of Bash is not an object")
	}
	return sjson.SetRawBytes([]byte(resp.Raw), "stdout", gjson.AppendJSONString(nil, text))
}

// successText is what the model is shown in place of a successful call's
// marker: what layer three shows of any result.
func successText(c output, m Marked, running bool) string {
	var text string
	if c.isWhole {
		text = c.whole
		if running && text != "" {
			text += "\n" + runningNote(m.Path)
		} else if running {
			text = runningNote(m.Path)
		}
	} else {
		f := spill.File{Path: m.Path, Chars: c.chars, Lines: c.lines, Head: c.head, Note: countNote(c)}
		if running {
			f.Note = strings.TrimSpace(f.Note + " " + runningNote(m.Path))
		}
		text = f.Text()
	}
	if m.rest != "" {
		text += "\n" + m.rest
	}
	return text
}

func runningNote(path string) string {
	return "The command goes on in the background, and the rest of its output goes to " + path +
		" (the task's own output file holds only the line naming it)."
}

// countNote says when the counts cover only the start of a file past
// countCap.
func countNote(c output) string {
	if c.counted {
		return ""
	}
	return fmt.Sprintf("The counts are of its first %d MiB; it holds %d bytes.", countCap>>20, c.size)
}

// failureText is the additionalContext for a failed call: what failed, and
// the whole output, or its head, the pointer and its tail. Claude Code sends
// it as a system message, so the output, the repository's text, is fenced
// as data (workbench.Fence).
func failureText(c output, m Marked) string {
	var b strings.Builder
	b.WriteString("The command failed")
	if m.before != "" {
		b.WriteString(" (" + m.before + ")")
	}
	b.WriteString(". ")
	switch {
	case c.isWhole && c.whole == "":
		b.WriteString("It printed nothing.")
	case c.isWhole:
		b.WriteString("Its whole output follows.\n")
		b.WriteString(workbench.Fence(c.whole))
	default:
		note := fmt.Sprintf("Its first %d and last %d characters follow.", charCount(c.head), charCount(c.tail))
		if n := countNote(c); n != "" {
			note = n + " " + note
		}
		b.WriteString(spill.File{Path: m.Path, Chars: c.chars, Lines: c.lines, Note: note}.Pointer())
		head := c.head
		if !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		b.WriteString("\n" + workbench.Fence(head+"[…]\n"+c.tail))
	}
	if m.rest != "" {
		b.WriteString("\n" + m.rest)
	}
	return b.String()
}

func charCount(s string) int { return len([]rune(s)) }
