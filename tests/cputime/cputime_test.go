package cputime

import (
	"testing"
	"time"
)

// TestOf: a busy loop is counted, a sleep is not.
func TestOf(t *testing.T) {
	busy := Of(func() {
		for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		}
	})
	idle := Of(func() { time.Sleep(200 * time.Millisecond) })
	if busy <= 0 || idle >= busy {
		t.Errorf("busy loop %v, sleep %v: want the loop counted and the sleep not", busy, idle)
	}
}
