package jsonscan

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestValueEnd(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct{ name, value, after string }{
		{"string", `"abc"`, `,1`},
		{"escaped quote", `"a\"b"`, `}`},
		{"escaped backslash before quote", `"a\\"`, `,`},
		{"three backslashes", `"a\\\"b"`, `]`},
		{"long string with escapes", `"` + long + `\"` + long + `\\"`, `,`},
		{"object", `{"a":{"b":"}"},"c":[1,"]"]}`, `,`},
		{"array", `[1,[2,[3]],"x"]`, ` `},
		{"number", `-1.5e3`, `,`},
		{"literal", `true`, `}`},
		{"null at end", `null`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.value + tc.after
			if got, want := ValueEnd(s, 0), len(tc.value); got != want {
				t.Errorf("ValueEnd(%q) = %d, want %d", s, got, want)
			}
		})
	}
}

func TestSkipSpace(t *testing.T) {
	if got := SkipSpace(" \t\r\n x", 0); got != 5 {
		t.Errorf("SkipSpace = %d, want 5", got)
	}
	if got := SkipSpace("  ", 0); got != 2 {
		t.Errorf("SkipSpace of all space = %d, want 2", got)
	}
}

// FuzzValueEnd holds ValueEnd to gjson: on valid JSON, the first value ends
// where gjson says its raw text ends; on any input it never panics.
func FuzzValueEnd(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `{"a":[1,"]"]}`, `[1,2]`, `12`, `"` + strings.Repeat(`\\`, 40) + `"`, `"\u00e9"`, `{"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i := SkipSpace(s, 0)
		end := ValueEnd(s, i)
		if end < i || end > len(s) {
			t.Fatalf("ValueEnd(%q, %d) = %d, out of range", s, i, end)
		}
		if !gjson.Valid(s) {
			return
		}
		// gjson keeps whitespace after a top-level value in its Raw.
		if want := strings.TrimRight(gjson.Parse(s).Raw, " \t\r\n"); s[i:end] != want {
			t.Fatalf("ValueEnd(%q) gives %q, gjson %q", s, s[i:end], want)
		}
	})
}
