package jsonscan

import (
	"slices"
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

// FuzzEachMember: on any valid JSON object, EachMember yields what gjson's
// ForEach yields, key for key and value for value.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}] ,"d\"e":"f\\"} `, `{"a":{"b":"c"},"a":null}`, `[1]`, `"s"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !gjson.Valid(s) {
			return
		}
		type member struct{ key, value string }
		var want, got []member
		gjson.Parse(s).ForEach(func(k, v gjson.Result) bool {
			want = append(want, member{k.Raw, v.Raw})
			return true
		})
		if !gjson.Parse(s).IsObject() {
			want = nil
		}
		EachMember(s, func(key, value string, at int) bool {
			if s[at:at+len(value)] != value {
				t.Fatalf("value %q is not at %d of %q", value, at, s)
			}
			got = append(got, member{key, value})
			return true
		})
		if len(want) != len(got) {
			t.Fatalf("EachMember(%q) gave %q, ForEach %q", s, got, want)
		}
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("EachMember(%q) gave %q, ForEach %q", s, got, want)
			}
		}
	})
}

// FuzzEachElement: on any valid JSON array, EachElement yields what gjson's
// ForEach yields; on anything else it returns without looping.
func FuzzEachElement(f *testing.F) {
	for _, s := range []string{`[]`, ` [ 1 , "]" ,{"a":[2]}, [ ] ,null] `, `["\"",true]`, `{"a":1}`, `[1 2]`, `[1,`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		EachElement(s, func(value string, at int) bool {
			if s[at:at+len(value)] != value {
				t.Fatalf("element %q is not at %d of %q", value, at, s)
			}
			got = append(got, value)
			return true
		})
		if !gjson.Valid(s) {
			return
		}
		var want []string
		if r := gjson.Parse(s); r.IsArray() {
			r.ForEach(func(_, v gjson.Result) bool {
				want = append(want, v.Raw)
				return true
			})
		}
		if !slices.Equal(want, got) {
			t.Fatalf("EachElement(%q) gave %q, ForEach %q", s, got, want)
		}
	})
}
