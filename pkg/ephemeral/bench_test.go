package ephemeral

import (
	"syscall"
	"testing"
	"time"
)

// typical are commands as a coordinator writes them: the mix the ≥ 200,000
// commands per second target of the issue is about.
var typical = []string{
	"git status",
	"git status -s && echo \"--- LOG ---\" && git log --oneline -10",
	"ls -la",
	"cat README.md",
	"git diff --stat",
	"grep -rn TODO . | head -20",
	"rm -rf build",
	"find . -name '*.go' | wc -l",
}

// BenchmarkClassify reports commands per second on one core (run it with
// -cpu 1); the target is at least 200,000. Besides the wall-clock rate it
// reports the rate per second of CPU the process used, which stays
// meaningful on a machine shared with other work.
func BenchmarkClassify(b *testing.B) {
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	n := 0
	for b.Loop() {
		Classify(typical[n%len(typical)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "cmds/s")
	if used := cpuTime(b) - cpu0; used > 0 {
		b.ReportMetric(float64(n)/used.Seconds(), "cmds/cpu-s")
	}
}

// BenchmarkClassifyCompound classifies one compound glance as a
// coordinator writes it, reporting the CPU time per command as well.
func BenchmarkClassifyCompound(b *testing.B) {
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		Classify("git status -s && ls -la | head")
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
