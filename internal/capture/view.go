package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	Threshold int  // characters shown whole; past them, a pointer and the head
	Head      int  // characters of the head
	Tail      int  // characters of the tail in a failed call's view
	Whole     bool // the call reads a spill file back: a pointer would loop
}

// Claude Code 2.1.328 keeps 30,000 characters of a Bash result and previews
// 2,000 of a longer one: with Options.Whole, the view shows as much.
const (
	bashResultMax = 30000
	bashPreview   = 2000
)

// Marked is a Bash result that starts with a marker, with what its view
// needs of the payload.
type Marked struct {
	Path    string // the capture file the marker names
	before  string // Claude Code's line before the marker ("Exit code 1")
	rest    string // what follows the marker line
	failed  bool   // PostToolUseFailure
	session string // session_id, which the file's name must carry
	resp    string // tool_response as written, whose stdout the view replaces
	running bool   // the call moved to the background and goes on writing the file
}

// Detect finds the marker in a Bash call's result: first in stdout of resp
// (tool_response as written) on PostToolUse, after Claude Code's "Exit code
// N" line in failure on PostToolUseFailure. A resp without the marker's
// words (JSON writes them as they are) is not parsed.
func Detect(event, tool, resp, failure, session string) (m Marked, ok bool) {
	var text gjson.Result
	switch {
	case tool != "Bash":
		return m, false
	case event == "PostToolUse" && strings.Contains(resp, markerStart):
		text = gjson.Get(resp, "stdout")
		m.resp, m.running = resp, gjson.Get(resp, "backgroundTaskId").String() != ""
	case event == "PostToolUseFailure":
		text = gjson.Result{Type: gjson.String, Str: failure}
		m.failed = true
	}
	if text.Type != gjson.String {
		return m, false
	}
	m.Path, m.before, m.rest, ok = Find(text.Str)
	m.session = session
	return m, ok && (m.failed || m.before == "")
}

// Show prints the view of the capture file m names: for a success,
// tool_response with stdout replaced, for a failure an additionalContext.
// The file must be a capture file of m's session directly in the spill
// folder dir, which must exist (a marker never makes a workbench). A file
// shown whole after its call ended is removed; old ones are pruned.
func Show(m Marked, dir string, o Options, print func(*hook.Output) error) error {
	_, err := os.Lstat(dir)
	var d *spill.Folder
	if err == nil {
		d, err = spill.Open(dir)
	}
	if err != nil {
		return fmt.Errorf("cannot use the spill folder for the captured output %s: %v", m.Path, err)
	}
	defer d.Close()
	f, size, name, err := openCapture(d, m)
	if err != nil {
		return err
	}
	out, whole, err := view(f, size, m, o)
	f.Close()
	if err != nil {
		return fmt.Errorf("reading the captured output %s: %v", m.Path, err)
	}
	prune(d, time.Now())
	if err := print(out); err != nil {
		return fmt.Errorf("writing the view of the captured output: %v", err)
	}
	// Only once the view is printed may the file go (a failed call's view
	// says so: the marker in its result still names it).
	if whole && !m.running {
		d.Root().Remove(name)
	}
	return nil
}

// openCapture opens the capture file m names, directly in the folder
// (symlinks resolved) and named for m's session; it returns its size and
// its name in the folder.
func openCapture(d *spill.Folder, m Marked) (*os.File, int64, string, error) {
	rel, ok := workbench.Within(d.Path, m.Path)
	why := ""
	if s, isCapture := nameSession(rel); !ok || rel != filepath.Base(rel) {
		why = "not directly in the spill folder " + d.Path
	} else if !isCapture || m.session == "" || s != m.session {
		why = "not a capture file's name for session " + m.session
	}
	if why != "" {
		return nil, 0, "", fmt.Errorf("a marker line names %s: not a capture file of this session (%s); the result is left as it came", m.Path, why)
	}
	f, fi, err := d.OpenFile(rel)
	if err != nil {
		return nil, 0, "", fmt.Errorf("cannot read the captured output: %v", err)
	}
	// The script creates it with the shell's umask; output is the owner's alone.
	if fi.Mode().Perm() != workbench.FilePerm {
		f.Chmod(workbench.FilePerm)
	}
	return f, fi.Size(), rel, nil
}

// view is the output that shows the capture file f, and whether it holds
// the whole output.
func view(f *os.File, size int64, m Marked, o Options) (*hook.Output, bool, error) {
	if m.failed {
		c, err := readOutput(f, size, o.Threshold, o.Head, o.Tail)
		if err != nil {
			return nil, false, err
		}
		// No hook replaces a failed result: the view goes to the model and
		// the person beside it.
		text := failureText(c, m)
		return hook.NewOutput("PostToolUseFailure").Set("additionalContext", text).SystemMessage(text), c.isWhole, nil
	}
	img, isImage, err := readImage(f, size)
	if err != nil {
		return nil, false, err
	}
	var c output
	var resp string
	if isImage {
		resp, err = sjson.SetRaw(m.resp, "stdout", string(gjson.AppendJSONString(nil, img)))
		if err == nil {
			resp, err = sjson.Set(resp, "isImage", true)
		}
	} else {
		threshold, head := o.Threshold, o.Head
		if o.Whole {
			threshold, head = bashResultMax, bashPreview
		}
		if c, err = readOutput(f, size, threshold, head, 0); err != nil {
			return nil, false, err
		}
		resp, err = sjson.SetRaw(m.resp, "stdout", string(gjson.AppendJSONString(nil, successText(c, m))))
	}
	if err != nil {
		return nil, false, err
	}
	return hook.NewOutput("PostToolUse").SetRaw("updatedToolOutput", []byte(resp)), isImage || c.isWhole, nil
}

// successText is what a successful call's marker gives way to.
func successText(c output, m Marked) string {
	text := c.whole
	switch {
	case !c.isWhole:
		f := c.file
		f.Path, f.Note = m.Path, countNote(c)
		if m.running {
			f.Note = strings.TrimSpace(f.Note + " " + runningNote(m.Path))
		}
		text = f.Text()
	case m.running && text != "":
		text += "\n" + runningNote(m.Path)
	case m.running:
		text = runningNote(m.Path)
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

// countNote says when the counts cover only the start of the file.
func countNote(c output) string {
	if c.counted {
		return ""
	}
	return fmt.Sprintf("The counts are of its first %d MiB; it holds %d bytes.", countCap>>20, c.size)
}

// failureText is a failed call's additionalContext: what failed, then the
// whole output or the pointer, head and tail, fenced as data (Claude Code
// sends it as a system message).
func failureText(c output, m Marked) string {
	var b strings.Builder
	b.WriteString("The command failed")
	if m.before != "" {
		b.WriteString(" (" + m.before + ")")
	}
	b.WriteString(". ")
	removed := ""
	if !m.running {
		removed = " (its file is removed)"
	}
	switch {
	case c.isWhole && c.whole == "":
		b.WriteString("It printed nothing" + removed + ".")
	case c.isWhole:
		b.WriteString("Its whole output follows" + removed + ".\n" + workbench.Fence(c.whole))
	default:
		f := spill.File{Path: m.Path, Chars: c.file.Chars, Lines: c.file.Lines}
		f.Note = strings.TrimSpace(countNote(c) + fmt.Sprintf(" Its first %d and last %d characters follow.",
			len([]rune(c.file.Head)), len([]rune(c.tail))))
		head := c.file.Head
		if !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		b.WriteString(f.Pointer() + "\n" + workbench.Fence(head+"[…]\n"+c.tail))
	}
	if m.rest != "" {
		b.WriteString("\n" + m.rest)
	}
	return b.String()
}

// MaxAge is how long a capture file is kept after its last write: it is
// read back, if at all, within the session or a resume soon after.
const MaxAge = 7 * 24 * time.Hour

// The spill folder is listed at most once every pruneEvery; pruneStamp's
// time says when.
const (
	pruneEvery = time.Hour
	pruneStamp = ".capture-pruned"
)

// prune removes the regular files with a capture file's name not written
// for MaxAge. Errors are ignored: the next call tries again.
func prune(d *spill.Folder, now time.Time) {
	r := d.Root()
	// Stamped first, so parallel calls do not all list the folder; a stamp
	// the repository committed as a folder or link is replaced, not followed.
	fi, err := r.Lstat(pruneStamp)
	if err == nil && !fi.Mode().IsRegular() {
		if r.RemoveAll(pruneStamp) != nil {
			return
		}
		err = fs.ErrNotExist
	}
	switch {
	case err == nil && now.Sub(fi.ModTime()) < pruneEvery:
		return
	case err == nil:
		err = r.Chtimes(pruneStamp, now, now)
	case errors.Is(err, fs.ErrNotExist):
		var f *os.File
		if f, err = r.OpenFile(pruneStamp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, workbench.FilePerm); err == nil {
			f.Close()
		}
	}
	if err != nil {
		return
	}
	entries, _ := fs.ReadDir(r.FS(), ".")
	for _, e := range entries {
		if _, ok := nameSession(e.Name()); !ok || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) >= MaxAge {
			r.Remove(e.Name())
		}
	}
}
