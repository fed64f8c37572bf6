package transcript

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// member is what a test compares of one member or element.
type member struct {
	Key, Raw, Str string
	Index         int
	Type          gjson.Type
}

// walk lists the members (or elements) of doc, and of every object and array
// in it, with eachMember and eachElement.
func walk(v value) []member {
	var out []member
	add := func(key string, f value) bool {
		r := f.result()
		out = append(out, member{key, r.Raw, r.Str, r.Index, r.Type})
		if f.isObject() || f.isArray() {
			out = append(out, walk(f)...)
		}
		return true
	}
	if v.isObject() {
		eachMember(v, add)
	} else {
		eachElement(v, func(f value) bool { return add("", f) })
	}
	return out
}

// walkGJSON is walk done with gjson's ForEach.
func walkGJSON(r gjson.Result) []member {
	var out []member
	r.ForEach(func(k, f gjson.Result) bool {
		out = append(out, member{k.Str, f.Raw, f.Str, f.Index, f.Type})
		if f.IsObject() || f.IsArray() {
			out = append(out, walkGJSON(f)...)
		}
		return true
	})
	return out
}

var memberCases = []string{
	`{}`,
	`[]`,
	` { "a" : 1 , "b":[ 1, "x" ,{"c":null}] ,"d":{} } `,
	`{"k\"ey":"v\\\"al\\","e\u0073c":"\ud83d\ude00 \ud83d x \ude00 \u00e9\n","n":-1.5e3,"t":true,"f":false}`,
	`{"a":"}]\"{[","b":[[],[{}],"]"],"c":"\\\\"}`,
	`[1,"two",{"three":3},[4],true,null]`,
	`{"dup":1,"dup":"2","dup":{"x":[]}}`,
	"{\"ws\"\t:\r\n[ 1 ,\n 2 ]\t}",
	recorded["result"],
	recorded["blocks"],
}

func TestMembersAgreeWithGJSON(t *testing.T) {
	for _, doc := range memberCases {
		t.Run(doc, func(t *testing.T) {
			checkMembers(t, doc)
		})
	}
}

// checkMembers holds eachMember and eachElement to gjson's ForEach on a
// valid object or array doc.
func checkMembers(t *testing.T, doc string) {
	t.Helper()
	trimmed := strings.TrimSpace(doc)
	start := strings.Index(doc, trimmed)
	want := walkGJSON(gjson.Parse(doc))
	got := walk(value{raw: trimmed, index: start})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("doc %q, walked without a tape (-want +got):\n%s", doc, diff)
	}
	if got := walk(onTape(t, doc)); !cmp.Equal(want, got) {
		t.Errorf("doc %q, walked on its tape (-want +got):\n%s", doc, cmp.Diff(want, got))
	}
}

// onTape is valid JSON doc as Parse walks it: on its tape.
func onTape(t *testing.T, doc string) value {
	t.Helper()
	ln := &line{s: doc}
	if r := ln.Scan(doc); r != jsonscan.ScanOK {
		t.Fatalf("Scan(%q) = %d, want ScanOK", doc, r)
	}
	r := ln.Root()
	return value{raw: doc[r.Start:r.End], index: int(r.Start), t: ln}
}

// stringChars is the characters of the JSON string raw, counted without a
// tape (gjson) and on one (Scan's count); the two must agree.
func stringChars(t *testing.T, raw string) int {
	t.Helper()
	n := value{raw: raw}.chars()
	if on := onTape(t, raw).chars(); on != n {
		t.Fatalf("%s: %d characters on a tape, %d without", raw, on, n)
	}
	return n
}

func TestStringChars(t *testing.T) {
	tests := []string{
		`""`, `"abc"`, `"héllo ✓"`, `"a\nb\t\"c\"\\"`, `"\u00e9\u0041"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`,
		`"x\\u0041"`, `"\/"`,
	}
	for _, raw := range tests {
		t.Run(raw, func(t *testing.T) {
			want := utf8.RuneCountInString(gjson.Parse(raw).Str)
			if got := stringChars(t, raw); got != want {
				t.Errorf("stringChars(%s) = %d, want %d", raw, got, want)
			}
		})
	}
}

// FuzzMembers: on any valid JSON object or array, eachMember and eachElement
// see what gjson's ForEach sees, and stringChars counts every string as
// gjson unescapes it.
func FuzzMembers(f *testing.F) {
	for _, doc := range memberCases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !gjson.Valid(doc) || !utf8.ValidString(doc) {
			return
		}
		trimmed := strings.TrimSpace(doc)
		if trimmed[0] != '{' && trimmed[0] != '[' {
			if trimmed[0] == '"' {
				if want, got := utf8.RuneCountInString(gjson.Parse(trimmed).Str), stringChars(t, trimmed); got != want {
					t.Fatalf("stringChars(%s) = %d, want %d", trimmed, got, want)
				}
			}
			return
		}
		checkMembers(t, doc)
		for _, m := range walk(onTape(t, trimmed)) {
			if m.Type == gjson.String {
				if got, want := stringChars(t, m.Raw), utf8.RuneCountInString(m.Str); got != want {
					t.Fatalf("stringChars(%s) = %d, want %d", m.Raw, got, want)
				}
			}
		}
	})
}

// FuzzParseReference: Parse gives the answer parseReference, the gjson
// ForEach parser it replaced, gives: the same error, or the same entry.
func FuzzParseReference(f *testing.F) {
	for _, l := range recorded {
		f.Add([]byte(l))
	}
	for _, l := range bytes.Split(benchTranscript(64<<10), []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[1]}]}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"\ud83d\ude00\n"},{"type":"text","text":"\"x\""}]}}`))
	f.Add([]byte(` {"type":"x","sessionId":"s"} `))
	f.Fuzz(func(t *testing.T, line []byte) {
		want, wantErr := parseReference(line)
		got, gotErr := Parse(line)
		if diff := cmp.Diff(errString(wantErr), errString(gotErr)); diff != "" {
			t.Fatalf("errors (-reference +Parse):\n%s", diff)
		}
		if wantErr != nil {
			return
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(sameResult), cmp.AllowUnexported(Block{}), cmp.Comparer(sameValue)); diff != "" {
			t.Fatalf("(-reference +Parse):\n%s", diff)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func sameResult(a, b gjson.Result) bool {
	return a.Type == b.Type && a.Raw == b.Raw && a.Str == b.Str && a.Index == b.Index && a.Num == b.Num
}

func sameValue(a, b value) bool { return sameResult(a.result(), b.result()) }
