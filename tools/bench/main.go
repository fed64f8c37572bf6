// Command bench measures every flower command as a whole process, the way
// Claude Code runs it, against a floor measured in the same run, and writes
// docs/BENCHMARKS.md. Run it with make bench.
//
// Each case is started Runs times. Every round runs the case, its baseline
// (when it has one other than the floor) and the floor, in an order that
// rotates from round to round, so that load on the machine hits all of them
// alike. Whatever a run writes is removed after it, untimed, the same way
// for the case and its baseline: a cp baseline always copies to a path that
// does not exist yet, as the hook always creates a new file. The table gives
// medians of wall time and of CPU time (user+sys), the median of the
// round-by-round ratios, and peak resident memory.
//
// Flags: -out FILE (default stdout), -runs N (override every case),
// -run REGEXP (only matching cases), -gobench=false to skip Go benchmarks,
// -alt DIR to also time the binaries in DIR (another build of the same
// commands) in the same rounds, for measuring what one change buys, and
// -alt-name NAME to say in the report what that build is.
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
	"runtime/debug"
	"slices"
	"strconv"
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
	// Baseline, when set, is what the case is compared with besides the
	// floor (for example copying the payload to a file).
	Baseline     func(dir, stdin string) *exec.Cmd
	BaselineName string
	// After, when set, runs after each run of the tool, untimed: for
	// example to remove a file the tool wrote and may not write twice.
	After func(dir string) error
	// BaselineAfter, when set, runs after each run of the baseline,
	// untimed, and removes what it wrote (removeCopy): a baseline must
	// write a new file each time, as the tool does.
	BaselineAfter func(dir string) error
	// MaxRatio, when set, is the target: the case's CPU time at most this
	// many times the baseline's (the floor's when there is no baseline),
	// as a median of round-by-round ratios.
	MaxRatio float64
	// MaxCPU, when set, is a target in CPU time: the median run at most
	// this long.
	MaxCPU time.Duration
	// MaxRSS, when set, is a memory target: peak RSS at most this many
	// bytes.
	MaxRSS int64
	// MaxRSSPerStdinByte, when set, is a memory target: peak RSS at most
	// this many times the size of stdin.
	MaxRSSPerStdinByte float64
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
	alt := flag.String("alt", "", "a folder of other builds of the commands, timed in the same rounds")
	altName := flag.String("alt-name", "another build", "what -alt's builds are, for the report")
	flag.Parse()
	if err := run(*out, *runs, *only, *alt, *altName, *gobench); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// arm is one command timed in every round of a case.
type arm struct {
	name  string
	cmd   func() *exec.Cmd
	after func() error
	hook  bool   // exit 1 is a hook's "could not", allowed
	stdin string // its own stdin file, else the case's
	wall  []time.Duration
	cpu   []time.Duration
	rss   int64
	// rssOwn: rss was measured by ownRSS, not taken from the timed runs.
	rssOwn bool
}

// result is a case's figures: its own, its baseline's (nil when that is
// the floor), the floor's and, with -alt, the other build's.
type result struct {
	c                 Case
	tool, base, floor *arm
	alt               *arm
	stdinSize         int64
}

func run(out string, runs int, only, alt, altName string, gobench bool) error {
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
		r, err := measure(c, bin, alt, filepath.Join(tmp, "case"))
		if err != nil {
			return fmt.Errorf("%s: %v", c.Name, err)
		}
		fmt.Fprintf(os.Stderr, "bench:   %s\n", r.summary())
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
	if alt == "" {
		altName = ""
	}
	report := render(results, goBench, altName)
	if out == "" {
		_, err := os.Stdout.WriteString(report)
		return err
	}
	return os.WriteFile(out, []byte(report), 0o644)
}

func measure(c Case, bin, alt, dir string) (result, error) {
	defer os.RemoveAll(dir)
	stdin, args, err := setUp(c, dir)
	if err != nil {
		return result{}, err
	}
	// Setup's garbage would count in the children's peak RSS (vfork, see
	// render): give it back first.
	debug.FreeOSMemory()
	r := result{c: c}
	if stdin != "" {
		if fi, err := os.Stat(stdin); err == nil {
			r.stdinSize = fi.Size()
		}
	}
	r.tool = &arm{name: c.Tool, hook: true, after: step(c.After, dir),
		cmd: func() *exec.Cmd { return exec.Command(filepath.Join(bin, c.Tool), args...) }}
	r.floor = &arm{name: "floor", after: step(nil, dir),
		cmd: func() *exec.Cmd { return exec.Command(filepath.Join(bin, "floor")) }}
	arms := []*arm{r.tool, r.floor}
	if c.Baseline != nil {
		r.base = &arm{name: c.BaselineName, after: step(c.BaselineAfter, dir),
			cmd: func() *exec.Cmd { return c.Baseline(dir, stdin) }}
		arms = append(arms, r.base)
	}
	if alt != "" {
		// A folder of its own, set up alike: what one build leaves there
		// (an INDEX.md, a scan record) must not be the other's to redo.
		altDir := dir + ".alt"
		defer os.RemoveAll(altDir)
		altStdin, altArgs, err := setUp(c, altDir)
		if err != nil {
			return result{}, err
		}
		r.alt = &arm{name: "alt " + c.Tool, hook: true, after: step(c.After, altDir), stdin: altStdin,
			cmd: func() *exec.Cmd { return exec.Command(filepath.Join(alt, c.Tool), altArgs...) }}
		arms = append(arms, r.alt)
	}
	// Warm the page cache and check every command works before timing.
	for range 3 {
		for _, a := range arms {
			if _, err := a.once(stdin, false); err != nil {
				return result{}, err
			}
		}
	}
	for i := range c.Runs {
		// A rotating order: no arm always runs right after another.
		for k := range arms {
			if _, err := arms[(i+k)%len(arms)].once(stdin, true); err != nil {
				return result{}, err
			}
		}
	}
	return r, r.tool.ownRSS(stdin)
}

// ownRSS runs a once more under GNU time, which starts it with fork, not
// vfork, and takes its peak RSS from there: a vfork child's ru_maxrss counts
// this bench's resident set too (Linux carries the parent's peak over at
// exec), tens of MiB once the large cases have run. Without /usr/bin/time
// the vfork figure stays, and render says so.
func (a *arm) ownRSS(stdin string) error {
	if _, err := os.Stat(gnuTime); err != nil {
		return nil
	}
	out, err := os.CreateTemp("", "bench-rss")
	if err != nil {
		return err
	}
	out.Close()
	defer os.Remove(out.Name())
	plain := a.cmd
	a.cmd = func() *exec.Cmd {
		c := plain()
		t := exec.Command(gnuTime, append([]string{"-f", "%M", "-o", out.Name(), c.Path}, c.Args[1:]...)...)
		t.Dir, t.Env = c.Dir, c.Env
		return t
	}
	defer func() { a.cmd = plain }()
	if _, err := a.once(stdin, false); err != nil {
		return err
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		return err
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return fmt.Errorf("%s -f %%M printed %q", gnuTime, b)
	}
	a.rss, a.rssOwn = kb*1024, true
	return nil
}

// gnuTime measures a command's own peak RSS (ownRSS).
const gnuTime = "/usr/bin/time"

// setUp makes dir afresh and runs the case's Setup there. It returns the
// stdin file Setup made and the case's arguments with $DIR as dir.
func setUp(c Case, dir string) (stdin string, args []string, err error) {
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	if c.Setup != nil {
		if stdin, err = c.Setup(dir); err != nil {
			return "", nil, fmt.Errorf("setup: %v", err)
		}
	}
	args = make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strings.ReplaceAll(a, "$DIR", dir)
	}
	return stdin, args, nil
}

// step is f, a case's step after a run, on dir; nothing when f is nil.
func step(f func(string) error, dir string) func() error {
	if f == nil {
		return func() error { return nil }
	}
	return func() error { return f(dir) }
}

// once runs the arm's command with stdin from a file, then its after step,
// and when keep is set records its wall time, CPU time and peak RSS. A
// hook's exit code must be 0 or 1; anything else is an error.
func (a *arm) once(stdin string, keep bool) (time.Duration, error) {
	if a.stdin != "" {
		stdin = a.stdin
	}
	cmd := a.cmd()
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			return 0, err
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
		return 0, fmt.Errorf("%s: %v", a.name, err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 && (!a.hook || code != 1) {
		return 0, fmt.Errorf("%s exited %d: %s", cmd.Path, code, stderr.String())
	}
	if err := a.after(); err != nil {
		return 0, fmt.Errorf("after %s: %v", a.name, err)
	}
	if !keep {
		return d, nil
	}
	a.wall = append(a.wall, d)
	a.cpu = append(a.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		a.rss = max(a.rss, ru.Maxrss*1024) // Linux reports kilobytes
	}
	return d, nil
}

// removeCopy is a BaselineAfter for baselines that write $DIR/copy.
func removeCopy(dir string) error { return os.Remove(filepath.Join(dir, "copy")) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// ratio is the median of a's round-by-round ratios to b: on a machine whose
// speed drifts, each round's pair saw the same load.
func ratio(a, b *arm) float64 { return medianRatio(a.wall, b.wall) }

// cpuRatio is ratio of CPU times: on a busy machine, wall time counts the
// waits for a core, CPU time does not.
func cpuRatio(a, b *arm) float64 { return medianRatio(a.cpu, b.cpu) }

func medianRatio(a, b []time.Duration) float64 {
	rs := make([]float64, len(a))
	for i := range a {
		rs[i] = float64(a[i]) / float64(b[i])
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

// against is what the case's target compares with: its baseline, else the
// floor.
func (r result) against() *arm {
	if r.base != nil {
		return r.base
	}
	return r.floor
}

// met says whether the case meets the targets it states in numbers.
func (r result) met() string {
	var miss []string
	if r.c.MaxRatio > 0 && cpuRatio(r.tool, r.against()) > r.c.MaxRatio || r.c.MaxCPU > 0 && median(r.tool.cpu) > r.c.MaxCPU {
		miss = append(miss, "time")
	}
	if r.c.MaxRSS > 0 && r.tool.rss > r.c.MaxRSS {
		miss = append(miss, "memory")
	}
	if r.c.MaxRSSPerStdinByte > 0 && float64(r.tool.rss) > r.c.MaxRSSPerStdinByte*float64(r.stdinSize) {
		miss = append(miss, "memory")
	}
	switch {
	case r.c.MaxRatio == 0 && r.c.MaxRSSPerStdinByte == 0 && r.c.MaxCPU == 0 && r.c.MaxRSS == 0:
		return ""
	case len(miss) > 0:
		return "**missed: " + strings.Join(miss, ", ") + "**"
	}
	return "met"
}

func (r result) summary() string {
	s := fmt.Sprintf("%s (cpu %s), %.2fx %s (cpu %.2fx)", ms(median(r.tool.wall)), ms(median(r.tool.cpu)), ratio(r.tool, r.against()), r.against().name, cpuRatio(r.tool, r.against()))
	if r.alt != nil {
		s += fmt.Sprintf("; alt %s (cpu %s): %.2fx this build (cpu %.2fx); alt cpu %.2fx %s", ms(median(r.alt.wall)), ms(median(r.alt.cpu)), ratio(r.alt, r.tool), cpuRatio(r.alt, r.tool), cpuRatio(r.alt, r.against()), r.against().name)
	}
	return s
}

func render(results []result, goBench, alt string) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	b.WriteString("Generated by `make bench` (tools/bench); do not edit by hand. Each command runs as a whole\n")
	b.WriteString("process fed through a pipe, as Claude Code feeds it. Every round runs the case, its baseline\n")
	b.WriteString("(when it has one) and the floor, in an order that rotates from round to round; whatever a\n")
	b.WriteString("run writes is removed after it, outside the timed run, for the case and the baseline alike\n")
	b.WriteString("(a `cp` baseline always copies to a new file, as the hook always creates one). Times are\n")
	b.WriteString("medians; *cpu* is user+sys time; a ratio is the median of the round-by-round ratios. The\n")
	b.WriteString("floor is a minimal static Go program that reads stdin and exits (tools/bench/floor): no\n")
	b.WriteString("hook can cost less than starting a process like it.\n")
	if len(results) > 0 && results[0].tool.rssOwn {
		b.WriteString("Peak RSS is the command's own, from one more run under GNU time (`/usr/bin/time -f %M`),\n")
		b.WriteString("which starts it with fork: a run started by Go, with vfork, would count this bench's own\n")
		b.WriteString("resident set into its peak. It includes the 1-2 MiB of time's copy of itself.\n\n")
	} else {
		b.WriteString("Peak RSS is the child's ru_maxrss from the timed runs (no /usr/bin/time here). Go starts\n")
		b.WriteString("children with vfork, and Linux counts this bench's resident set into a vfork child's peak,\n")
		b.WriteString("so a figure is at least the bench's own: a memory target may read as missed that is met.\n\n")
	}
	fmt.Fprintf(&b, "Measured %s on %s, %d cores, %s.\n\n", time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version())
	b.WriteString("Targets (issue 25) are in CPU time: a ratio is the case's CPU time over the floor's (or the\n")
	b.WriteString("baseline's) in the same rounds, median of the round-by-round ratios.\n\n")
	b.WriteString("| case | runs | wall | cpu | floor cpu | cpu × floor | baseline | baseline cpu | cpu × baseline | peak RSS | target | |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|\n")
	for _, r := range results {
		baseName, baseCPU, baseRatio := "", "", ""
		if r.base != nil {
			baseName, baseCPU = r.base.name, ms(median(r.base.cpu))
			baseRatio = fmt.Sprintf("%.2fx", cpuRatio(r.tool, r.base))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %.2fx | %s | %s | %s | %s | %s | %s |\n",
			r.c.Name, r.c.Runs, ms(median(r.tool.wall)), ms(median(r.tool.cpu)),
			ms(median(r.floor.cpu)), cpuRatio(r.tool, r.floor),
			baseName, baseCPU, baseRatio, mib(r.tool.rss), r.c.Target, r.met())
	}
	if alt != "" {
		fmt.Fprintf(&b, "\nThe same rounds also ran %s of each command (`-alt`):\n\n", alt)
		b.WriteString("| case | this build cpu | other build cpu | other / this (cpu) |\n|---|---:|---:|---:|\n")
		for _, r := range results {
			fmt.Fprintf(&b, "| %s | %s | %s | %.2fx |\n", r.c.Name, ms(median(r.tool.cpu)),
				ms(median(r.alt.cpu)), cpuRatio(r.alt, r.tool))
		}
	}
	b.WriteString(reproduce)
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
