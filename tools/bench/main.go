// Command bench measures every flower command as a whole process, the way
// Claude Code runs it, against a floor measured in the same run, and writes
// docs/BENCHMARKS.md. Run it with make bench.
//
// Each case is started Runs times, interleaved with its baseline so that
// load on the machine hits both alike; the table gives the medians, their
// ratio, and the peak resident memory of the case's process.
//
// Flags: -out FILE (default stdout), -runs N (override every case),
// -run REGEXP (only matching cases), -gobench=false to skip Go benchmarks.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Case is one benchmarked command. Cases register themselves from the
// cases_*.go files, one file per layer.
type Case struct {
	Name   string   // the row's label
	Tool   string   // the binary, built from ./cmd/<Tool>
	Args   []string // $DIR is replaced by the case's folder
	Target string   // the target the issue states, or why there is none
	Runs   int      // default defaultRuns
	// Setup prepares the case's folder and returns the file to use as stdin
	// ("" for none).
	Setup func(dir string) (stdin string, err error)
	// Baseline, when set, replaces the floor: the command the case is
	// compared with (for example copying the payload to a file).
	Baseline     func(dir, stdin string) *exec.Cmd
	BaselineName string
	// After, when set, runs after each run of the tool, untimed: for
	// example to remove a file the tool wrote and may not write twice.
	After func(dir string) error
}

var cases []Case

// defaultRuns is how often a case runs unless it says otherwise. A hook's
// run costs about 10 ms; in the benchmarks' VM the ratio of a median of 101
// runs moved by up to a tenth between two runs of the bench, and more runs
// leave a passing burst of load less weight in the median.
const defaultRuns = 201

func register(c Case) { cases = append(cases, c) }

func main() {
	out := flag.String("out", "", "write the report to this file (default stdout)")
	runs := flag.Int("runs", 0, "runs per case (default: each case's own)")
	only := flag.String("run", "", "only cases whose name matches this regexp")
	gobench := flag.Bool("gobench", true, "also run the Go benchmarks of ./pkg/...")
	flag.Parse()
	if err := run(*out, *runs, *only, *gobench); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type result struct {
	c                Case
	median, baseline time.Duration
	maxRSS, baseRSS  int64
	baselineName     string
}

func run(out string, runs int, only string, gobench bool) error {
	re, err := regexp.Compile(only)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "flower-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin+"/", "./cmd/...", "./tools/bench/floor")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building: %v", err)
	}
	var results []result
	for _, c := range cases {
		if !re.MatchString(c.Name) {
			continue
		}
		if runs > 0 {
			c.Runs = runs
		}
		if c.Runs == 0 {
			c.Runs = defaultRuns
		}
		fmt.Fprintf(os.Stderr, "bench: %s (%d runs)\n", c.Name, c.Runs)
		r, err := measure(c, bin, filepath.Join(tmp, "case"))
		if err != nil {
			return fmt.Errorf("%s: %v", c.Name, err)
		}
		results = append(results, r)
	}
	var goBench string
	if gobench {
		// One CPU: the targets are per core (issue 2: Classify on one core).
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-benchmem", "-cpu", "1", "./pkg/...")
		b, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("go test -bench: %v\n%s", err, b)
		}
		goBench = string(b)
	}
	report := render(results, goBench)
	if out == "" {
		_, err := os.Stdout.WriteString(report)
		return err
	}
	return os.WriteFile(out, []byte(report), 0o644)
}

func measure(c Case, bin, dir string) (result, error) {
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	stdin := ""
	if c.Setup != nil {
		var err error
		if stdin, err = c.Setup(dir); err != nil {
			return result{}, fmt.Errorf("setup: %v", err)
		}
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strings.ReplaceAll(a, "$DIR", dir)
	}
	tool := func() *exec.Cmd { return exec.Command(filepath.Join(bin, c.Tool), args...) }
	base := func() *exec.Cmd { return exec.Command(filepath.Join(bin, "floor")) }
	baseName := "floor"
	if c.Baseline != nil {
		base = func() *exec.Cmd { return c.Baseline(dir, stdin) }
		baseName = c.BaselineName
	}
	after := func() error {
		if c.After == nil {
			return nil
		}
		return c.After(dir)
	}
	// Warm the page cache and check the command works before timing it.
	for range 3 {
		if _, _, err := once(tool(), stdin, true); err != nil {
			return result{}, err
		}
		if err := after(); err != nil {
			return result{}, fmt.Errorf("after: %v", err)
		}
		if _, _, err := once(base(), stdin, false); err != nil {
			return result{}, fmt.Errorf("baseline: %v", err)
		}
	}
	var ts, bs []time.Duration
	var rss, brss int64
	for range c.Runs {
		d, m, err := once(tool(), stdin, true)
		if err != nil {
			return result{}, err
		}
		ts, rss = append(ts, d), max(rss, m)
		if err := after(); err != nil {
			return result{}, fmt.Errorf("after: %v", err)
		}
		d, m, err = once(base(), stdin, false)
		if err != nil {
			return result{}, fmt.Errorf("baseline: %v", err)
		}
		bs, brss = append(bs, d), max(brss, m)
	}
	return result{c: c, median: median(ts), baseline: median(bs), maxRSS: rss, baseRSS: brss, baselineName: baseName}, nil
}

// once runs cmd with stdin from a file and returns its wall time and peak RSS
// in bytes. A hook's exit code must be 0 or 1; anything else is an error.
func once(cmd *exec.Cmd, stdin string, isHook bool) (time.Duration, int64, error) {
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		// Through a pipe, as Claude Code hands a hook its payload: given
		// the file itself, a command could size its buffer from fstat and
		// map pages in ways a real hook never can.
		cmd.Stdin = struct{ io.Reader }{f}
	}
	var stderr bytes.Buffer
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if cmd.ProcessState == nil {
		return 0, 0, err
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 && (!isHook || code != 1) {
		return 0, 0, fmt.Errorf("%s exited %d: %s", cmd.Path, code, stderr.String())
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // Linux reports kilobytes
	}
	return d, rss, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func render(results []result, goBench string) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Generated by `make bench` (tools/bench); do not edit by hand. Each command runs as a whole\n")
	b.WriteString("process on a typical payload fed through a pipe, as Claude Code feeds it, interleaved with\n")
	b.WriteString("its baseline in the same run; figures are\n")
	b.WriteString("medians. The floor is a minimal static Go program that reads stdin and exits\n")
	b.WriteString("(tools/bench/floor): no hook can cost less than starting a process like it.\n")
	b.WriteString("Peak RSS is the child's ru_maxrss. Go starts children with vfork, and Linux counts the\n")
	b.WriteString("parent's resident set (this bench process, a few MiB) into a vfork child's peak, so\n")
	b.WriteString("figures of a few MiB are a floor rather than the command's own; the large cases are\n")
	b.WriteString("far above it.\n\n")
	fmt.Fprintf(&b, "Measured %s on %s, %d cores, %s.\n\n", time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version())
	b.WriteString("| case | runs | median | baseline | baseline median | ratio | peak RSS | baseline RSS | target |\n")
	b.WriteString("|---|---:|---:|---|---:|---:|---:|---:|---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %.2fx | %s | %s | %s |\n",
			r.c.Name, r.c.Runs, ms(r.median), r.baselineName, ms(r.baseline),
			float64(r.median)/float64(r.baseline), mib(r.maxRSS), mib(r.baseRSS), r.c.Target)
	}
	if goBench != "" {
		b.WriteString("\n## Go benchmarks\n\n`go test -run '^$' -bench . -benchmem -cpu 1 ./pkg/...`:\n\n```\n")
		b.WriteString(goBench)
		b.WriteString("```\n")
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
