package indexguard

import (
	"strings"
	"testing"
)

// TestSafeSession: the ids kept as file names are those the regexp
// ^[A-Za-z0-9_-]{1,128}$ matched; any other is hashed into one.
func TestSafeSession(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"06407937-5c1b-4a5e-9d3e-4e1f7b2c9a10", true},
		{"a", true},
		{"A_z-09", true},
		{strings.Repeat("x", maxSessionName), true},
		{strings.Repeat("x", maxSessionName+1), false},
		{"", false},
		{"../../etc", false},
		{"a/b", false},
		{"a.b", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	} {
		if got := safeSession(tc.id); got != tc.want {
			t.Errorf("safeSession(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
