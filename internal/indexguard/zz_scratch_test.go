package indexguard

import (
	"bytes"
	"os"
	"testing"
)

func BenchmarkPrompt40(b *testing.B) {
	p, _ := os.ReadFile("/tmp/hooks-helper/wb40/p.json")
	for b.Loop() {
		var out bytes.Buffer
		if Main([]string{"--workbench", "/tmp/hooks-helper/wb40/wb"}, bytes.NewReader(p), &out, &out) != 0 {
			b.Fatal(out.String())
		}
	}
}
