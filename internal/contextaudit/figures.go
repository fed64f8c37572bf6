package contextaudit

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// Options are what the flags set for an audit.
type Options struct {
	Workbench string // the workbench root; "" for <the session's first cwd>/.flower
	Window    int64  // the model's context window, in tokens
	WhatIf    *WhatIfOptions
	// Glances is the glance table delegate-guard used in the session's
	// project: the built-in one (nil) with the extras of its configuration.
	Glances *ephemeral.Glances
}

// DefaultWindow is the context window assumed, in tokens: what Claude Code
// gives its models unless a 1M variant is chosen ([1m]), where --window
// 1000000 says so.
const DefaultWindow = 200_000

// compactReserve is how far below the window auto-compaction starts: the
// design's "window − 33k" (context-economics, "What problem it solves").
const compactReserve = 33_000

// compactThreshold is the context at which the main thread is compacted.
func compactThreshold(window int64) int64 { return max(window-compactReserve, 0) }

// Window is the main thread's context against the model's window (the
// design's "18.6% of a 1M window … about 440 turns").
type Window struct {
	Size             int64    `json:"size"`              // tokens, --window
	Share            *float64 `json:"share"`             // context.last / size
	CompactThreshold int64    `json:"compact_threshold"` // size − 33,000
	// TurnsLeft is how many more turns the main thread takes to reach
	// the threshold at its growth per turn, and CompactTurn the turn it
	// reaches it at (turns + turns_left); both null when it does not
	// grow. 0 and the last turn when it is there already.
	TurnsLeft   *int64 `json:"turns_left"`
	CompactTurn *int64 `json:"compact_turn"`
}

// ScriptReuse is a script and how many other scripts name it.
type ScriptReuse struct {
	Name string `json:"name"`
	By   int64  `json:"by"`
}

// figures gathers, as a session is read, the figures this file adds to the
// report (what denials cost, briefs that restate, scripts other scripts
// name, the window) and feeds the what-if.
type figures struct {
	s *session
	o Options
	// calls holds each tool call's characters until its result is read,
	// to price a denial: the dead call and the denial together.
	calls map[string]int64
	// written holds, until its result shows it ran, the names a call
	// writes into scripts and the file names its text names; names then
	// holds them per script.
	written map[string]scriptText
	names   map[string]map[string]bool
	restate *restater
	whatIf  *whatIf
}

type scriptText struct{ scripts, names []string }

func newFigures(s *session, o Options) *figures {
	f := &figures{s: s, o: o, calls: map[string]int64{}, written: map[string]scriptText{}, names: map[string]map[string]bool{}}
	if o.WhatIf != nil {
		f.whatIf = newWhatIf(s, *o.WhatIf)
	}
	return f
}

// entry reads one line of th's transcript.
func (f *figures) entry(th *thread, e *transcript.Entry) {
	main := th.main && !e.IsSidechain
	if main && f.whatIf != nil {
		f.whatIf.entry(e)
	}
	if e.Message == nil || (e.Type != "user" && e.Type != "assistant") {
		return
	}
	r := f.s.r
	for _, b := range e.ToolUses() {
		f.calls[strings.Clone(b.ID)] = int64(b.Chars)
		if main && briefTools[b.Name] {
			n := f.restater().restates(b.Input.Get("prompt").Str)
			if n > 0 {
				r.Briefs.Restating++
				r.Briefs.RestatingChars += n
			}
		}
		if t := f.scriptText(b, e.Cwd); len(t.scripts) > 0 {
			f.written[strings.Clone(b.ID)] = t
		}
	}
	for _, b := range e.ToolResults() {
		call, ok := f.calls[b.ToolUseID]
		delete(f.calls, b.ToolUseID)
		if e.ToolDenialKind == "permission-rule" && ok {
			cost := call + int64(b.Chars)
			r.Denials.Chars += cost
			if main {
				r.Denials.MainChars += cost
			}
		}
		if t, ok := f.written[b.ToolUseID]; ok {
			delete(f.written, b.ToolUseID)
			if e.ToolDenialKind == "" {
				f.wrote(t)
			}
		}
	}
}

func (f *figures) restater() *restater {
	if f.restate == nil {
		f.restate = newRestater(f.s.root)
	}
	return f.restate
}

// fileName is a word that names a file: a name with an extension, maybe
// with the folders before it.
var fileName = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.-]*\.[A-Za-z0-9]+`)

// pyImport is a Python import of a module, which names module.py.
var pyImport = regexp.MustCompile(`(?m)^\s*(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// maxNames bounds the file names kept per script: a script that names more
// is a data file, and what it names is not reuse.
const maxNames = 1000

// scriptText is what a call writes into workbench scripts: the scripts and
// the file names its text names. Write, Edit, MultiEdit and NotebookEdit
// give their text; a Bash redirection into a script, its here-document.
func (f *figures) scriptText(b transcript.Block, cwd string) scriptText {
	var t scriptText
	var text string
	switch b.Name {
	case "Write":
		t.scripts = f.s.scriptNames(cwd, b.Input.Get("file_path").Str)
		text = b.Input.Get("content").Str
	case "Edit":
		t.scripts = f.s.scriptNames(cwd, b.Input.Get("file_path").Str)
		text = b.Input.Get("new_string").Str
	case "MultiEdit":
		t.scripts = f.s.scriptNames(cwd, b.Input.Get("file_path").Str)
		for _, ed := range b.Input.Get("edits").Array() {
			text += ed.Get("new_string").Str + "\n"
		}
	case "NotebookEdit":
		t.scripts = f.s.scriptNames(cwd, b.Input.Get("notebook_path").Str)
		text = b.Input.Get("new_source").Str
	case "Bash":
		t.scripts, text = f.hereDocs(b.Input.Get("command").Str, cwd)
	}
	if len(t.scripts) == 0 {
		return t
	}
	for _, m := range fileName.FindAllString(text, maxNames) {
		t.names = append(t.names, path.Base(m))
	}
	for _, m := range pyImport.FindAllStringSubmatch(text, maxNames) {
		t.names = append(t.names, m[1]+".py")
	}
	return t
}

// hereDocs reads a Bash command for here-documents written into scripts
// (cat > .flower/scripts/x.sh <<'EOF' …): the scripts, and the text of the
// here-documents. Bodies with expansions count by their plain parts.
func (f *figures) hereDocs(cmd, cwd string) (scripts []string, text string) {
	if !strings.Contains(cmd, "<<") {
		return nil, ""
	}
	file := parseScripted(cmd)
	if file == nil {
		return nil, ""
	}
	var body strings.Builder
	syntax.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		var into []string
		var docs []string
		for _, rd := range st.Redirs {
			switch rd.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
				if rd.Word != nil {
					into = append(into, f.s.scriptNames(cwd, rd.Word.Lit())...)
				}
			case syntax.Hdoc, syntax.DashHdoc:
				if rd.Hdoc != nil {
					for _, p := range rd.Hdoc.Parts {
						if l, ok := p.(*syntax.Lit); ok {
							docs = append(docs, l.Value)
						}
					}
				}
			}
		}
		if len(into) > 0 && len(docs) > 0 {
			scripts = append(scripts, into...)
			body.WriteString(strings.Join(docs, ""))
		}
		return true
	})
	return scripts, body.String()
}

// wrote records what a call that ran wrote into scripts.
func (f *figures) wrote(t scriptText) {
	for _, sc := range t.scripts {
		set := f.names[sc]
		if set == nil {
			set = map[string]bool{}
			f.names[sc] = set
		}
		for _, n := range t.names {
			if len(set) < maxNames {
				set[n] = true
			}
		}
	}
}

// finish derives the figures that need the whole session.
func (f *figures) finish() {
	r := f.s.r
	// A script is reused by another when the other's text names it (by
	// its file name, or as a Python module), the design's
	// "audit-fake-ai-server.py was reused by 7 scripts".
	scripts := make([]string, 0, len(f.names))
	for sc := range f.s.scripts {
		scripts = append(scripts, sc)
	}
	slices.Sort(scripts)
	for _, sc := range scripts {
		var by int64
		for other, set := range f.names {
			if other != sc && set[path.Base(sc)] {
				by++
			}
		}
		if by == 0 {
			continue
		}
		r.Scripts.ReusedByScripts++
		if r.Scripts.MostReused == nil || by > r.Scripts.MostReused.By {
			r.Scripts.MostReused = &ScriptReuse{Name: sc, By: by}
		}
	}
	r.Window = windowOf(r, f.o.Window)
	if f.whatIf != nil {
		r.WhatIf = f.whatIf.finish()
	}
}

// windowOf places the main thread's last context in a window of size
// tokens, and extrapolates its growth to the compaction threshold.
func windowOf(r *Report, size int64) Window {
	w := Window{Size: size, CompactThreshold: compactThreshold(size)}
	if size <= 0 || r.Context.Last == 0 {
		return w // no usage in the transcript: nothing to place
	}
	w.Share = ratio(r.Context.Last, size)
	left := turnsTo(r.Context.Last, w.CompactThreshold, r.Context.GrowthPerTurn)
	if left != nil {
		turn := r.Main.Turns + *left
		w.TurnsLeft, w.CompactTurn = left, &turn
	}
	return w
}

// turnsTo is how many turns growing by growth a turn take from context
// to threshold: 0 when it is there, nil when it does not grow.
func turnsTo(context, threshold int64, growth *float64) *int64 {
	var n int64
	switch {
	case context >= threshold:
	case growth == nil || *growth <= 0:
		return nil
	default:
		n = int64(math.Ceil(float64(threshold-context) / *growth))
	}
	return &n
}

// lineFunc prints one labelled line of the table.
type lineFunc func(name, format string, a ...any)

func denialCost(line lineFunc, r *Report) {
	n := r.Denials.Hook + r.Denials.Rule
	if n == 0 {
		return
	}
	line("denial cost", "%s characters, %s a denial; %s on the main thread",
		thousands(r.Denials.Chars), thousands(int64(math.Round(float64(r.Denials.Chars)/float64(n)))), thousands(r.Denials.MainChars))
}

func scriptReuse(line lineFunc, r *Report) {
	m := r.Scripts.MostReused
	if m == nil {
		return
	}
	line("script reuse", "%s named by other scripts; most: %s, by %s", plural(r.Scripts.ReusedByScripts, "script"), m.Name, thousands(m.By))
}

func restating(line lineFunc, r *Report) {
	if r.Briefs.Count == 0 {
		return
	}
	line("restating", "%s of %s, %s of %s characters: sentences that say what the subagent is told anyway",
		thousands(r.Briefs.Restating), plural(r.Briefs.Count, "brief"), thousands(r.Briefs.RestatingChars), thousands(r.Briefs.Chars))
}

func window(line lineFunc, r *Report) {
	w := r.Window
	if w.Share == nil {
		return
	}
	reach := "not growing: no compaction in sight"
	switch {
	case w.TurnsLeft != nil && *w.TurnsLeft == 0:
		reach = "at the compaction threshold"
	case w.TurnsLeft != nil:
		reach = fmt.Sprintf("compaction in about %s turns, at turn %s", thousands(*w.TurnsLeft), thousands(*w.CompactTurn))
	}
	line("window", "%s of %s tokens (compaction at %s); %s", percent(w.Share), thousands(w.Size), thousands(w.CompactThreshold), reach)
}

// plural is "1 brief", "2 briefs".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}
