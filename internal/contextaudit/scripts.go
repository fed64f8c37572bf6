package contextaudit

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/workbench"
)

// runners run the file named in their arguments: a simple command whose
// command word is one of these (or the script itself) runs a script it
// names. Other commands naming a script (cat, chmod, git add, sed -i) only
// look at or change the file, so they are not runs.
var runners = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"python": true, "python2": true, "python3": true, "node": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "Rscript": true, "tsx": true, "uv": true,
	"source": true, ".": true, "exec": true, "env": true, "time": true, "timeout": true, "nice": true, "nohup": true,
}

// bashScripts reads a Bash command line for what it does to workbench
// scripts: a simple command that runs a script (see runners) is one run of
// it; an output redirection into scripts/ is one write. cd inside the line
// moves the folder later relative paths are read from. Words that are not
// plain text (expansions, substitutions) name nothing. A line that does not
// parse does nothing, nor one past the parser's limits (a transcript is
// someone else's data: a command nested deep enough overflows the parser's
// stack).
func (s *session) bashScripts(cmd, cwd string) effect {
	var eff effect
	f := parseScripted(cmd)
	if f == nil {
		return eff
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
				if n.Word != nil {
					eff.writes = append(eff.writes, s.scriptNames(cwd, n.Word.Lit())...)
				}
			}
		case *syntax.CallExpr:
			words := make([]string, len(n.Args))
			for i, w := range n.Args {
				words[i] = w.Lit()
			}
			if len(words) == 0 || words[0] == "" {
				return true
			}
			if words[0] == "cd" && len(words) == 2 && words[1] != "" {
				cwd = join(cwd, words[1])
				return true
			}
			// A command word without a slash is looked up in PATH, never in
			// the folder, as the shell does.
			if names := s.scriptNames(cwd, words[0]); len(names) > 0 && strings.ContainsRune(words[0], '/') {
				eff.runs = append(eff.runs, names...)
				return true
			}
			if runners[filepath.Base(words[0])] || strings.HasPrefix(filepath.Base(words[0]), "python") {
				seen := map[string]bool{}
				for _, w := range words[1:] {
					for _, name := range s.scriptNames(cwd, w) {
						if !seen[name] {
							seen[name] = true
							eff.runs = append(eff.runs, name)
						}
					}
				}
			}
		}
		return true
	})
	return eff
}

// parseScripted parses a Bash command that may name a workbench script, nil
// for one that cannot (the common case, without a parse), one that does not
// parse, or one past the parser's limits: a transcript is someone else's
// data, and a command nested deep enough overflows the parser's stack, a
// crash that exits 2. Every reader of a command for scripts parses it here.
func parseScripted(cmd string) *syntax.File {
	if !strings.Contains(cmd, workbench.ScriptsDir) || ephemeral.TooBigToParse(cmd) != "" {
		return nil
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	return f
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
	// Clone: rel may share bytes with path, which points into the line the
	// reader will reuse, and names outlive the line.
	return []string{strings.Clone(filepath.ToSlash(rel))}
}

// join reads path from dir: as it is when absolute, else under dir.
func join(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}
