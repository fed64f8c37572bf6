package jsoncheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" for valid, else a part of the message
		path string
	}{
		{`{}`, "", ""},
		{` [1, -0.5e+3, "a\u00e9\n", true, false, null, {"a": {}}] `, "", ""},
		{`{"a":1,"a":2}`, `the key "a" is given twice`, ""},
		{`{"a":1,"\u0061":2}`, `the key "a" is given twice`, ""},
		{`{"x":[{"b":1},{"c":{"d":1,"d":2}}]}`, `the key "d"`, "x.1.c"},
		{`{"":1,"":2}`, `the key "" is given twice`, ""},
		{`{"a":1}{}`, "text after", ""},
		{`01`, "text after", ""},
		{`[1,]`, "invalid character", ""},
		{`{"a" 1}`, "expected ':'", ""},
		{`"\x"`, "bad escape", ""},
		{`"\u12"`, `bad \u`, ""},
		{"\"a\x01\"", "control character", ""},
		{"\"\xff\"", "UTF-8", ""},
		{`[[[1]]]`, "nested deeper than 2", ""},
		{``, "unexpected end", ""},
		{`[`, "unexpected end", ""},
		{`tru`, "invalid character", ""},
		{`1.`, "bad number", ""},
		{`-`, "invalid character", ""},
	} {
		err := Check(tc.in, 2+strings.Count(tc.in, "{"))
		if strings.HasPrefix(tc.in, "[[[") {
			err = Check(tc.in, 2)
		}
		var e *Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.in, err)
		case tc.want != "" && (!errors.As(err, &e) || !strings.Contains(e.Msg, tc.want)):
			t.Errorf("Check(%q) = %v, want %q", tc.in, err, tc.want)
		case e != nil && e.Repeated && e.Path != tc.path:
			t.Errorf("Check(%q) path %q, want %q", tc.in, e.Path, tc.path)
		}
	}
}

// TestDeep: a million brackets are refused without running the stack out.
func TestDeep(t *testing.T) {
	s := strings.Repeat("[", 1e6) + strings.Repeat("]", 1e6)
	if err := Check(s, 100_000); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("err = %v", err)
	}
	if err := Check(s, 2e6); err != nil {
		t.Errorf("err = %v", err)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":"c"}],"d":null}`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`,
		`[1e5,-0.1,true]`, `"\ud800"`, "\"\xff\"", `{"a":{"b":1,"b":2}}`, ` 1 `, `[01]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check(s, 64)
		members, merr := Members(s, 64)
		if fmt.Sprint(err) != fmt.Sprint(merr) {
			t.Fatalf("Check(%q) = %v, Members %v", s, err, merr)
		}
		if merr == nil {
			if diff := cmp.Diff(gjsonMembers(s), members); diff != "" {
				t.Fatalf("Members(%q) (-gjson +got):\n%s", s, diff)
			}
		}
		valid := json.Valid([]byte(s)) && utf8.ValidString(s) && depth(s) <= 64
		if err == nil && !gjson.Valid(s) {
			t.Fatalf("Check(%q) = nil, but gjson.Valid refuses it", s)
		}
		if valid {
			if rep := repeats(s); rep != (err != nil) {
				t.Fatalf("Check(%q) = %v; a key given twice: %v", s, err, rep)
			}
			return
		}
		if err == nil {
			t.Fatalf("Check(%q) = nil, want an error", s)
		}
	})
}

// depth is how deep arrays and objects nest in s, valid JSON.
func depth(s string) int {
	d, most := 0, 0
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		tok, err := dec.Token()
		if err != nil {
			return most
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			d++
			most = max(most, d)
		case json.Delim('}'), json.Delim(']'):
			d--
		}
	}
}

// repeats reports whether an object of s, valid JSON, holds a key twice.
func repeats(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	var walk func() bool
	walk = func() bool {
		tok, _ := dec.Token()
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				if seen[k.(string)] {
					return true
				}
				seen[k.(string)] = true
				if walk() {
					return true
				}
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			dec.Token()
		}
		return false
	}
	return walk()
}

// gjsonMembers is what gjson says the members of s are; nil when s is not
// an object.
func gjsonMembers(s string) map[string]string {
	v := gjson.Parse(s)
	if !v.IsObject() {
		return nil
	}
	out := map[string]string{}
	v.ForEach(func(k, v gjson.Result) bool {
		out[k.Str] = v.Raw
		return true
	})
	return out
}

// TestMembers: the top-level members come out as written, and a string's
// quote, backslash or control character is found wherever it falls in
// the eight-byte steps.
func TestMembers(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b":{"c":[1,{"d":2}]} ,"\u0065":"x", "f":[] , "g":{}}  `, `[{"a":1}]`, `"s"`, `1`,
	} {
		got, err := Members(s, 8)
		if err != nil {
			t.Fatalf("Members(%q): %v", s, err)
		}
		if diff := cmp.Diff(gjsonMembers(s), got); diff != "" {
			t.Errorf("Members(%q) (-gjson +got):\n%s", s, diff)
		}
	}
	for n := range 20 {
		pad := strings.Repeat("é", n/2) + strings.Repeat("a", n%2)
		for _, special := range []string{`\"`, `\\`, `\u00e9`, "\x01", "\x1f", `"`} {
			s := `{"k":"` + pad + special + pad + `","z":1}`
			want := json.Valid([]byte(s))
			if got := Check(s, 8) == nil; got != want {
				t.Errorf("Check(%q) valid %v, want %v", s, got, want)
			}
		}
	}
}

// TestManyKeys: past manyKeys an object's keys go into a map, and the
// objects inside it, before and after, keep their own keys apart.
func TestManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"in":{"a":1,"b":{"a":2}}`)
	for i := range 20 {
		fmt.Fprintf(&b, `,"k%d":{"a":%d,"x":[{"a":1}]}`, i, i)
	}
	obj := b.String()
	if err := Check(obj+`}`, 8); err != nil {
		t.Errorf("20 keys, each with the same inner keys: %v", err)
	}
	for _, dup := range []string{`"in"`, `"k3"`, `"k19"`} {
		var e *Error
		if err := Check(obj+`,`+dup+`:0}`, 8); !errors.As(err, &e) || !e.Repeated || e.Path != "" {
			t.Errorf("%s given again: %v", dup, err)
		}
	}
	if err := Check(`{"o":`+obj+`,"p":{"k5":1,"k5":2}}}`, 8); err == nil || !strings.Contains(err.Error(), `"k5"`) {
		t.Errorf("a repeated key in an object after one of many keys: %v", err)
	}
}
