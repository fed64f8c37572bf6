package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// claudeRel is where `make e2e-deps` installs the pinned CLI, from the repo root.
const claudeRel = ".cache/claude-code/node_modules/@anthropic-ai/claude-code/bin/claude.exe"

// Set once by TestMain, read-only afterwards.
var (
	repoRoot  string // the module root
	claudeBin string // the real CLI; "" when not installed
	binDir    string // the freshly built ./cmd/... binaries
	// missing says why the suite cannot run ("" when it can).
	missing string
)

func TestMain(m *testing.M) {
	code, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	if code >= 0 {
		os.Exit(code)
	}
	code = m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// setup finds the repo and the CLI and builds the commands. It returns -1 to
// go on with the tests.
func setup() (int, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return 0, fmt.Errorf("go env GOMOD: %v", err)
	}
	repoRoot = filepath.Dir(strings.TrimSpace(string(out)))

	claudeBin = findClaude()
	if claudeBin == "" {
		missing = "the Claude Code CLI is not installed: run `make e2e-deps` (or set FLOWER_CLAUDE to its binary)"
		if p := os.Getenv("FLOWER_CLAUDE"); p != "" {
			missing = "FLOWER_CLAUDE names " + strconv.Quote(p) + ", which is not a file: run `make e2e-deps`, or point it at a claude binary"
		}
		return -1, nil
	}
	binDir, err = os.MkdirTemp("", "flower-e2e-bin-")
	if err != nil {
		return 0, err
	}
	if err := buildAll(); err != nil {
		return 0, err
	}
	return -1, nil
}

// buildErrs holds, per command of ./cmd, why it did not build. Bin reports
// it, so a command that does not build fails the scenarios that use it, not
// the whole suite.
var buildErrs = map[string]string{}

// buildAll builds ./cmd/... into binDir: static binaries, as `make build` and
// install.sh build them. When the whole build fails it builds each command
// alone to learn which ones fail.
func buildAll() error {
	if _, err := goBuild("./cmd/..."); err == nil {
		return nil
	}
	dirs, err := filepath.Glob(filepath.Join(repoRoot, "cmd", "*"))
	if err != nil {
		return err
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		if out, err := goBuild("./cmd/" + name); err != nil {
			buildErrs[name] = fmt.Sprintf("%v\n%s", err, out)
		}
	}
	return nil
}

func goBuild(pkg string) ([]byte, error) {
	build := exec.Command("go", "build", "-trimpath", "-o", binDir+string(filepath.Separator), pkg)
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	return build.CombinedOutput()
}

// findClaude is $FLOWER_CLAUDE when set, else the repo's cache install, when
// the file exists. A $FLOWER_CLAUDE that does not exist is a missing CLI,
// not a reason to test another version. (The Makefile exports FLOWER_CLAUDE,
// the pinned CLI's path, whether or not it is installed.)
func findClaude() string {
	p := os.Getenv("FLOWER_CLAUDE")
	if p == "" {
		p = filepath.Join(repoRoot, claudeRel)
	}
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p
	}
	return ""
}

// required says whether a missing CLI fails the suite instead of skipping it.
func required() bool {
	return os.Getenv("FLOWER_E2E_REQUIRED") == "1" || os.Getenv("CI") == "true"
}

// needClaude fails or skips t when the CLI is missing.
func needClaude(t testing.TB) {
	t.Helper()
	if missing == "" {
		return
	}
	if required() {
		t.Fatal(missing)
	}
	t.Skip(missing)
}
