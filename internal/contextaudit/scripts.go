package contextaudit

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// runners run the file named in their arguments; other commands naming a
// script (cat, chmod, git add, sed -i) only look at or change it.
var runners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"python": true, "python2": true, "python3": true, "node": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "Rscript": true, "tsx": true, "uv": true,
	"source": true, ".": true, "exec": true, "env": true, "time": true, "timeout": true, "nice": true, "nohup": true,
}

// bashScripts reads a Bash command line for what it does to workbench
// scripts: a simple command that runs a script (see runners) is one run of
// it; an output redirection into scripts/ is one write, and a here-document
// so written is the script's text (its plain parts). cd inside the line
// moves the folder later relative paths are read from. Words that are not
// plain text (expansions, substitutions) name nothing.
func (s *session) bashScripts(c call, cmd, cwd string) (call, string) {
	// A command nested deep enough overflows the parser's stack: a crash
	// that exits 2, on someone else's data.
	if !strings.Contains(cmd, workbench.ScriptsDir) || ephemeral.TooBigToParse(cmd) != "" {
		return c, ""
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return c, ""
	}
	var text strings.Builder
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			var into []string
			var doc strings.Builder
			for _, rd := range n.Redirs {
				if isOutput(rd.Op) && rd.Word != nil {
					into = append(into, s.scriptNames(cwd, rd.Word.Lit())...)
				}
				if (rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc) && rd.Hdoc != nil {
					for _, p := range rd.Hdoc.Parts {
						if l, ok := p.(*syntax.Lit); ok {
							doc.WriteString(l.Value)
						}
					}
				}
			}
			if len(into) > 0 && doc.Len() > 0 {
				c.texts = append(c.texts, into...)
				text.WriteString(doc.String())
			}
		case *syntax.Redirect:
			if isOutput(n.Op) && n.Word != nil {
				c.writes = append(c.writes, s.scriptNames(cwd, n.Word.Lit())...)
			}
		case *syntax.CallExpr:
			words := make([]string, len(n.Args))
			for i, w := range n.Args {
				words[i] = w.Lit()
			}
			switch {
			case len(words) == 0 || words[0] == "":
			case words[0] == "cd" && len(words) == 2 && words[1] != "":
				cwd = join(cwd, words[1])
			case strings.ContainsRune(words[0], '/') && len(s.scriptNames(cwd, words[0])) > 0:
				// A command word without a slash is looked up in PATH,
				// never in the folder, as the shell does.
				c.runs = append(c.runs, s.scriptNames(cwd, words[0])...)
			case runners[filepath.Base(words[0])] || strings.HasPrefix(filepath.Base(words[0]), "python"):
				var runs []string
				for _, w := range words[1:] {
					runs = append(runs, s.scriptNames(cwd, w)...)
				}
				slices.Sort(runs)
				c.runs = append(c.runs, slices.Compact(runs)...)
			}
		}
		return true
	})
	return c, text.String()
}

func isOutput(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
		return true
	}
	return false
}

// scriptNames returns the script path names, relative to scripts/ of the
// workbench ("count.sh", "lib/x.py"), or nothing when path lies elsewhere.
// A relative path is read from cwd. Symlinks are not resolved: the files
// may be long gone when a transcript is audited.
func (s *session) scriptNames(cwd, path string) []string {
	if path == "" || s.root == "" {
		return nil
	}
	rel, err := filepath.Rel(filepath.Join(s.root, workbench.ScriptsDir), join(cwd, path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	// A copy: rel may share bytes with path, a view of the line.
	return []string{strings.Clone(filepath.ToSlash(rel))}
}

// join reads path from dir: as it is when absolute, else under dir.
func join(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}

// fileName is a word that names a file: a name with an extension, maybe
// with the folders before it.
var fileName = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.-]*\.[A-Za-z0-9]+`)

// pyImport is a Python import of a module, which names module.py.
var pyImport = regexp.MustCompile(`(?m)^\s*(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// maxNames bounds the file names kept per script: a script that names more
// is a data file, and what it names is not reuse.
const maxNames = 1000

// namesIn is the file names a script's text names: by a file name, or as
// a Python module.
func namesIn(text string) []string {
	var names []string
	for _, m := range fileName.FindAllString(text, maxNames) {
		names = append(names, path.Base(m))
	}
	for _, m := range pyImport.FindAllStringSubmatch(text, maxNames) {
		names = append(names, m[1]+".py")
	}
	return names
}

// script is what a session did to one workbench script.
type script struct {
	writes, runs int64
	names        map[string]bool // the file names its text names
}

// ran records what a call that ran did to the scripts.
func (r *Report) ran(c call) {
	use := func(name string) *script {
		sc := r.scripts[name]
		if sc == nil {
			sc = &script{}
			r.scripts[name] = sc
		}
		return sc
	}
	for _, name := range c.writes {
		use(name).writes++
	}
	for _, name := range c.runs {
		use(name).runs++
	}
	for _, name := range c.texts {
		sc := use(name)
		if sc.names == nil {
			sc.names = map[string]bool{}
		}
		for _, n := range c.names {
			if len(sc.names) < maxNames {
				sc.names[n] = true
			}
		}
	}
}

// scriptFigures derives the scripts' figures. A script is reused by
// another when the other's text names it (by its file name, or as a Python
// module), the design's "audit-fake-ai-server.py was reused by 7 scripts".
func (r *Report) scriptFigures() {
	r.Scripts = Report{}.Scripts
	sc := &r.Scripts
	names := make([]string, 0, len(r.scripts))
	for name, u := range r.scripts {
		names = append(names, name)
		sc.Writes += u.writes
		sc.Runs += u.runs
		if u.writes > 0 {
			sc.Written++
			if u.runs == 0 {
				sc.WrittenNotRun++
			}
		}
		if u.runs > 1 {
			sc.RunMoreThanOnce++
		}
	}
	slices.Sort(names)
	for _, name := range names {
		var by int64
		for other, u := range r.scripts {
			if other != name && u.names[path.Base(name)] {
				by++
			}
		}
		if by == 0 {
			continue
		}
		sc.ReusedByScripts++
		if sc.MostReused == nil || by > sc.MostReused.By {
			sc.MostReused = &ScriptReuse{Name: name, By: by}
		}
	}
}
