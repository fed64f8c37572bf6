package tests

import (
	"bytes"
	"flag"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flowerhooks/flower/tests/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected sections of the golden files")

// mainFunc is the signature of every command's Main.
type mainFunc func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// runGolden runs every testdata/<dir>/*.txtar case against main.
//
// A case has these sections, all optional but exit:
//
//	args        one argument per line
//	stdin.json  (or stdin) the standard input
//	env         KEY=VALUE lines; such a case does not run in parallel
//	files/P     written to $WORK/P before the run
//	exit        the expected exit code
//	stdout      the expected standard output
//	stderr      the expected standard error
//	want/P      the expected content of $WORK/P after the run
//
// $WORK in args, stdin, env and files stands for the case's temporary
// folder; in what the command prints and writes, that folder is replaced by
// $WORK before comparing. FLOWER_WORKBENCH and CLAUDE_PROJECT_DIR are cleared,
// so the machine's environment never leaks in.
func runGolden(t *testing.T, dir string, main mainFunc) {
	t.Setenv("FLOWER_WORKBENCH", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no golden cases in testdata/%s", dir)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) { runCase(t, path, main) })
	}
}

func runCase(t *testing.T, path string, main mainFunc) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := txtar.Parse(data)
	work := t.TempDir()
	expand := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("$WORK"), []byte(work)) }
	fold := func(b []byte) string { return strings.ReplaceAll(string(b), work, "$WORK") }

	if env, ok := a.Get("env"); ok {
		for _, line := range strings.Split(strings.TrimSpace(string(expand(env))), "\n") {
			k, v, _ := strings.Cut(line, "=")
			t.Setenv(k, v)
		}
	} else {
		t.Parallel()
	}
	for _, f := range a.Files {
		if rel, ok := strings.CutPrefix(f.Name, "files/"); ok {
			p := filepath.Join(work, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, expand(f.Data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var args []string
	if raw, ok := a.Get("args"); ok && len(raw) > 0 {
		args = strings.Split(strings.TrimSuffix(string(expand(raw)), "\n"), "\n")
	}
	stdin, ok := a.Get("stdin.json")
	if !ok {
		stdin, _ = a.Get("stdin")
	}

	var stdout, stderr bytes.Buffer
	code := main(args, bytes.NewReader(expand(stdin)), &stdout, &stderr)
	if code == 2 {
		t.Errorf("exit 2: Claude Code reads it as a blocking error, no command may return it")
	}

	got := map[string]string{
		"exit":   strconv.Itoa(code) + "\n",
		"stdout": fold(stdout.Bytes()),
		"stderr": fold(stderr.Bytes()),
	}
	for _, f := range a.Files {
		if rel, ok := strings.CutPrefix(f.Name, "want/"); ok {
			b, err := os.ReadFile(filepath.Join(work, rel))
			if err != nil {
				b = []byte("<" + err.Error() + ">")
			}
			got[f.Name] = fold(b)
		}
	}
	if *update {
		for name, v := range got {
			a.Set(name, []byte(v))
		}
		if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		want, _ := a.Get(name)
		if diff := cmp.Diff(string(want), withNewline(got[name])); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
		}
	}
}

// withNewline mirrors txtar.Format, which ends every non-empty section in a newline.
func withNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
