package spillguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"

	"github.com/flowerhooks/flower/pkg/ephemeral"
	"github.com/flowerhooks/flower/pkg/hook"
	"github.com/flowerhooks/flower/pkg/spill"
)

// readsSpill reports whether the call read a spill file back: a Read whose
// file_path lies in the spill folder, or a Bash glance whose words name a
// file there. Spilling that would answer the pointer's "use Read" with
// another pointer, a loop the model can only escape a few lines at a time.
func readsSpill(p *hook.Payload, tool, dir string) bool {
	switch tool {
	case "Read":
		path, ok, err := p.ToolInputString("file_path")
		return err == nil && ok && path != "" && spill.Holds(dir, inCwd(p.Cwd(), path))
	case "Bash":
		cmd, ok, err := p.ToolInputString("command")
		return err == nil && ok && ephemeral.IsEphemeral(cmd) && namesSpillFile(cmd, p.Cwd(), dir)
	}
	return false
}

// namesSpillFile reports whether a word of cmd, taken literally and relative
// to cwd, names a file in the spill folder dir. Words whose value is only
// known when the command runs (expansions, substitutions) do not count: a
// glance can still be spilled, which costs a pointer, never a loop.
func namesSpillFile(cmd, cwd, dir string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok || found {
			return !found
		}
		if v, ok := literal(w); ok && v != "" && spill.Holds(dir, inCwd(cwd, v)) {
			found = true
		}
		return false
	})
	return found
}

// literal is the value of w after quote removal, when it has no expansion.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(x.Value, `\*?[`) {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok || strings.Contains(lit.Value, `\`) {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func inCwd(cwd, path string) string {
	if filepath.IsAbs(path) || cwd == "" {
		return path
	}
	return filepath.Join(cwd, path)
}

// openRegular opens path for reading and checks it is a regular file. The
// open does not block, so a FIFO planted at the path cannot hang the hook.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, fi, nil
}
