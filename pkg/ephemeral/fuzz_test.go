package ephemeral

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzClassify: Classify never panics, gives the same answer twice, and
// its verdict holds together (a glance is made of glances only, and the
// expiry side agrees). Seeded from the table test.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases() {
		f.Add(tc.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v := Classify(cmd)
		if diff := cmp.Diff(v, Classify(cmd)); diff != "" {
			t.Fatalf("Classify(%q) differs between two calls (-first +second):\n%s", cmd, diff)
		}
		if IsEphemeral(cmd) != v.Glance {
			t.Fatalf("IsEphemeral(%q) != Classify().Glance", cmd)
		}
		if v.Reason == "" {
			t.Fatalf("Classify(%q) has no reason", cmd)
		}
		checkInvariants(t, cmd, v)
	})
}
