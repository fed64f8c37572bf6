package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowerhooks/flower/internal/prunesession"
	"github.com/flowerhooks/flower/pkg/transcript"
)

// Spills stay private: however a repository sets itself up, flower writes
// no tool output where an agent's `git add -A` would commit it. Each case is
// set up as a hostile repository would, in a real git repository with its
// own .gitignore, and judged by `git add -A -n`.

// secret is in every tool output of these tests: no file git would add may
// hold it.
const secret = "AWS_SECRET_ACCESS_KEY=flower-test-secret-0123456789"

// gitRepo makes a git repository holding files (path: content) and a
// .gitignore of its own, all committed, and returns its folder.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed:", err)
	}
	dir := t.TempDir()
	files[".gitignore"] = "node_modules/\n*.log\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "hostile")
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// committable fails the test when `git add -A -n` would add a file that
// holds the secret, and returns what it would add.
func committable(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(git(t, dir, "add", "-A", "-n")), "\n") {
		name, ok := strings.CutPrefix(line, "add '")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "'")
		files = append(files, name)
		if b, _ := os.ReadFile(filepath.Join(dir, name)); bytes.Contains(b, []byte(secret)) {
			t.Errorf("git add -A would commit tool output: %s", name)
		}
	}
	return files
}

// userConfig writes the user file (in a fresh XDG_CONFIG_HOME) and points
// HOME and CLAUDE_PROJECT_DIR at fresh folders and the project.
func userConfig(t *testing.T, project, content string) {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("FLOWER_WORKBENCH", "")
	t.Setenv("CLAUDE_PROJECT_DIR", project)
	if content != "" {
		os.MkdirAll(filepath.Join(cfg, "flower"), 0o700)
		os.WriteFile(filepath.Join(cfg, "flower", "config.json"), []byte(content), 0o600)
	}
}

// spillSecret runs spill-guard on a Bash result of 10,000 characters that
// holds the secret, and returns where the spill file went ("" for none).
func spillSecret(t *testing.T, project, id string) string {
	t.Helper()
	out, _ := json.Marshal(map[string]any{"stdout": secret + "\n" + strings.Repeat("x", 10000), "stderr": "", "interrupted": false})
	code, upd, stderr := runSpill(t, []byte(`{"session_id":"s1","cwd":"`+project+`","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"env"},"tool_use_id":"`+id+`","tool_response":`+string(out)+`}`))
	if code != 0 || upd == nil {
		return ""
	}
	if stderr != "" {
		t.Logf("stderr: %s", stderr)
	}
	m := pointerPath.FindSubmatch(upd)
	if m == nil {
		t.Fatalf("no pointer in %.300s", upd)
	}
	return string(m[1])
}

func TestSpillsStayPrivate(t *testing.T) {
	trust := func(project string) string {
		return `{"trusted-projects": ["` + project + `"]}`
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		user  func(project string) string
		want  string // where the spill must go, relative to the project
	}{
		{"an untrusted project names the project folder as workbench",
			map[string]string{".claude/flower.json": `{"workbench": "."}`}, nil, ".flower/spill"},
		{"an untrusted project names a tracked folder with its own .gitignore",
			map[string]string{".claude/flower.json": `{"workbench": "docs"}`, "docs/.gitignore": "*.tmp\n", "docs/a.md": "a"}, nil, ".flower/spill"},
		{"a trusted project names the project folder as workbench",
			map[string]string{".claude/flower.json": `{"workbench": "."}`}, trust, "spill"},
		{"a trusted project names a tracked folder with its own .gitignore",
			map[string]string{".claude/flower.json": `{"workbench": "docs"}`, "docs/.gitignore": "*.tmp\n", "docs/a.md": "a"}, trust, "docs/spill"},
		{"a committed .flower/.gitignore that omits spill/",
			map[string]string{".flower/.gitignore": "/INDEX.md\n/.state/\n", ".flower/scripts/build.sh": "# Build it\nmake\n"}, nil, ".flower/spill"},
		{"a committed .flower/ with no .gitignore",
			map[string]string{".flower/scripts/build.sh": "# Build it\nmake\n"}, nil, ".flower/spill"},
		{"a committed spill/ folder with a file in it",
			map[string]string{".flower/spill/README": "spills here\n"}, nil, ".flower/spill"},
		{"the user names a tracked folder as workbench",
			map[string]string{"docs/a.md": "a"}, func(string) string { return `{"workbench": "docs"}` }, "docs/spill"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := gitRepo(t, tc.files)
			user := ""
			if tc.user != nil {
				user = tc.user(project)
			}
			userConfig(t, project, user)
			path := spillSecret(t, project, "toolu_1")
			if path == "" {
				t.Fatal("nothing was spilled")
			}
			if rel, _ := filepath.Rel(project, filepath.Dir(path)); rel != tc.want {
				t.Errorf("spilled to %s, want %s", rel, tc.want)
			}
			if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(secret)) {
				t.Errorf("the spill file lacks the output")
			}
			committable(t, project)
		})
	}
}

// TestSpillsRefusedWhereTheyWouldShow: a spill folder whose .gitignore the
// repository committed with another rule is not spilled into: the output
// comes back whole (exit 1, one line), and nothing is written.
func TestSpillsRefusedWhereTheyWouldShow(t *testing.T) {
	project := gitRepo(t, map[string]string{".flower/spill/.gitignore": "!*\n"})
	userConfig(t, project, "")
	if path := spillSecret(t, project, "toolu_1"); path != "" {
		t.Fatalf("spilled to %s under a negating rule", path)
	}
	committable(t, project)
	if entries, _ := os.ReadDir(filepath.Join(project, ".flower", "spill")); len(entries) != 1 {
		t.Errorf("the spill folder holds %d entries, want its committed rule alone", len(entries))
	}
}

// pruneProject writes a session of project, started there, under a fresh
// CLAUDE_CONFIG_DIR in the folder Claude Code gives it, with two long Bash
// results that hold the secret, and returns the transcript's path.
func pruneProject(t *testing.T, project, folder string) string {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	if folder == "" {
		dir, err := transcript.ProjectDir(project)
		if err != nil {
			t.Fatal(err)
		}
		folder = filepath.Base(dir)
	}
	dir := filepath.Join(cfg, "projects", folder)
	os.MkdirAll(dir, 0o700)
	cwd, _ := json.Marshal(project)
	body, _ := json.Marshal(secret + "\n" + strings.Repeat("y", 3000))
	head := `"sessionId":"` + oldID + `","cwd":` + string(cwd) + `,"isSidechain":false`
	lines := []string{`{"type":"user","uuid":"u1","parentUuid":null,` + head + `,"message":{"role":"user","content":"go"}}`}
	parent := "u1"
	for _, id := range []string{"1", "2"} {
		lines = append(lines,
			`{"type":"assistant","uuid":"a`+id+`","parentUuid":"`+parent+`",`+head+`,"message":{"id":"m`+id+`","role":"assistant","content":[{"type":"tool_use","id":"toolu_`+id+`","name":"Bash","input":{"command":"env"}}]}}`,
			`{"type":"user","uuid":"r`+id+`","parentUuid":"a`+id+`",`+head+`,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_`+id+`","content":`+string(body)+`}]}}`)
		parent = "r" + id
	}
	path := filepath.Join(dir, oldID+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func prune(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := prunesession.Main(args, nil, &stdout, &stderr)
	return code, stderr.String()
}

// TestTrimStaysPrivate: where prune-session --trim writes is the user's
// choice: an untrusted project file turns no trim on and names no folder, a
// crafted transcript cannot choose the folder, and the folder trims go to
// ignores itself.
func TestTrimStaysPrivate(t *testing.T) {
	t.Run("an untrusted project file turns trim on into the project folder", func(t *testing.T) {
		project := gitRepo(t, map[string]string{".claude/flower.json": `{"prune-session": {"trim": true, "trim-keep": 0, "trim-min": 100, "spill-dir": "."}}`})
		userConfig(t, project, "")
		os.Chmod(project, 0o755)
		src := pruneProject(t, project, "")
		if code, stderr := prune(t, "--session-id", newID, src); code != 0 || !strings.Contains(stderr, "trimmed   off") {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
		if fi, _ := os.Stat(project); fi.Mode().Perm() != 0o755 {
			t.Errorf("the project folder's mode became %v", fi.Mode().Perm())
		}
		if files := committable(t, project); len(files) != 0 {
			t.Errorf("new files in the project: %v", files)
		}
	})
	t.Run("--trim spills into the session's own workbench", func(t *testing.T) {
		project := gitRepo(t, map[string]string{".flower/.gitignore": "/INDEX.md\n"})
		userConfig(t, project, "")
		src := pruneProject(t, project, "")
		code, stderr := prune(t, "--session-id", newID, "--trim", "--trim-keep", "0", "--trim-min", "100", src)
		if code != 0 || !strings.Contains(stderr, "trimmed") {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
		spills, _ := filepath.Glob(filepath.Join(project, ".flower", "spill", "prune-*.txt"))
		if len(spills) != 2 {
			t.Errorf("spill files %v, want two in the session's workbench", spills)
		}
		committable(t, project)
	})
	t.Run("a crafted transcript's cwd chooses no folder", func(t *testing.T) {
		victim := gitRepo(t, map[string]string{".claude/flower.json": `{"prune-session": `})
		userConfig(t, victim, "")
		src := pruneProject(t, victim, "-elsewhere-entirely")
		code, stderr := prune(t, "--session-id", newID, "--trim", "--trim-keep", "0", "--trim-min", "100", src)
		if code != 1 || !strings.Contains(stderr, "pass --spill-dir") {
			t.Errorf("exit %d, stderr %q; want 1 asking for --spill-dir", code, stderr)
		}
		if strings.Contains(stderr, "flower.json") {
			t.Errorf("the configuration of the folder the transcript names was read: %s", stderr)
		}
		if files := committable(t, victim); len(files) != 0 {
			t.Errorf("new files in the folder the transcript names: %v", files)
		}
	})
	t.Run("a spill-dir of the project folder itself is refused", func(t *testing.T) {
		project := gitRepo(t, map[string]string{})
		userConfig(t, project, "")
		src := pruneProject(t, project, "")
		code, stderr := prune(t, "--session-id", newID, "--trim", "--trim-keep", "0", "--trim-min", "100", "--spill-dir", project, src)
		if code != 1 || !strings.Contains(stderr, "spill folder "+project+": ") {
			t.Errorf("exit %d, stderr %q; want 1, refused", code, stderr)
		}
		if files := committable(t, project); len(files) != 0 {
			t.Errorf("new files in the project: %v", files)
		}
	})
}
