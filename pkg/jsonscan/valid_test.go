package jsonscan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var validCases = []string{
	`{}`, `[]`, `""`, `"a"`, `{"a":"b"}`, `{"a":"b\"c"}`, `{"a":"\\"}`, `{"a":"\\\""}`,
	`{"a":"\u00e9\ud83d\ude00"}`, `["x","y",{"z":["w"]}]`, `{"a":1,"b":[true,null,-1.5e3]}`,
	`{"a":"b"`, `{"a":"b}`, `{"a":"b\"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`,
	`{"a":"tab	here"}`, "{\"a\":\"nl\nhere\"}", `{"a":"b",}`, `{"a" "b"}`, `{"a":"b""c"}`,
	`"\`, `"\\`, `"abc\"`, `{"a":"b"}x`, ` {"a" : "b" } `, `{"a":"` + "\x7f\x80\xff" + `"}`,
	`{"a":"b"}{"c":"d"}`, `[""]`, `["",""]`, `[1,]`, `{"":""}`,
}

// validAt is Valid with the strings of long bytes or more cut out.
func validAt(s string, long int) bool {
	ok := true
	skeleton, _ := cutLong(s, long, nil, func(q, end int) bool {
		ok = ok && ValidStringBody(s[q+1:end-1])
		return true
	})
	if skeleton == nil {
		return gjson.Valid(s)
	}
	return ok && gjson.ValidBytes(skeleton)
}

// TestValidAgreesWithGjson checks every case at every long-string cut, so
// each string in it is checked apart in some run and with gjson in another.
func TestValidAgreesWithGjson(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 100)
	cases := append([]string{}, validCases...)
	for _, c := range validCases {
		// The same documents with their strings made long.
		cases = append(cases, strings.ReplaceAll(c, `"b`, `"`+long+`b`), strings.ReplaceAll(c, `\`, long+`\`))
	}
	for _, c := range cases {
		want := gjson.Valid(c)
		for _, cut := range []int{0, 1, 2, 3, 8, 100, LongString} {
			if got := validAt(c, cut); got != want {
				t.Errorf("validAt(%.80q, %d) = %v, gjson.Valid says %v", c, cut, got, want)
			}
		}
		if got := Valid(c); got != want {
			t.Errorf("Valid(%.80q) = %v, gjson.Valid says %v", c, got, want)
		}
	}
}

func TestValidStringBody(t *testing.T) {
	for _, tc := range []struct {
		body string
		want bool
	}{
		{"", true},
		{"plain ascii text longer than a word", true},
		{`escapes \" \\ \/ \b \f \n \r \t \u0041 \uABCD done`, true},
		{"é and 😀 raw", true},
		{"\x7f is allowed", true},
		{"a raw\nnewline", false},
		{"a raw tab\t", false},
		{"\x00", false},
		{"ends in a lone backslash \\", false},
		{`bad escape \x`, false},
		{`short \u12`, false},
		{`not hex \u12g4 here`, false},
		{strings.Repeat("12345678", 9) + "\x1f", false},
		{strings.Repeat(`1\n`, 50), true},
	} {
		if got := ValidStringBody(tc.body); got != tc.want {
			t.Errorf("ValidStringBody(%q) = %v, want %v", tc.body, got, tc.want)
		}
		// As a whole document, gjson must say the same.
		if got := gjson.Valid(`"` + tc.body + `"`); got != tc.want {
			t.Errorf("gjson.Valid of %q = %v, want %v", tc.body, got, tc.want)
		}
	}
}

// FuzzValid: Valid accepts exactly what gjson.Valid accepts, whatever the
// cut between long and short strings.
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add(c, uint8(0))
		f.Add(c, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		want := gjson.Valid(s)
		if got := validAt(s, int(cut)); got != want {
			t.Fatalf("validAt(%q, %d) = %v, gjson.Valid says %v", s, cut, got, want)
		}
	})
}

// BenchmarkValid: a hook payload whose tool result is 1 MB of numbered
// lines, the output of seq (an escaped newline every seven bytes), as
// spill-guard's benchmark sends it; and one of prose, lines of 80
// characters, like a file read or a build log.
func BenchmarkValid(b *testing.B) {
	var seq, prose strings.Builder
	for i := 100000; seq.Len() < 1<<20; i++ {
		seq.WriteString(strconv.Itoa(i) + `\n`)
	}
	for prose.Len() < 1<<20 {
		prose.WriteString(strings.Repeat("the quick brown fox jumps over the lazy dog ", 2)[:80] + `\n`)
	}
	for _, text := range []struct{ name, body string }{{"seq", seq.String()}, {"prose", prose.String()}} {
		doc := `{"hook_event_name":"PostToolUse","tool_response":{"stdout":"` + text.body + `","stderr":""}}`
		for _, v := range []struct {
			name  string
			valid func(string) bool
		}{{"Valid", Valid}, {"gjson", gjson.Valid}} {
			b.Run(text.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					if !v.valid(doc) {
						b.Fatal("invalid")
					}
				}
			})
		}
	}
}

func TestEqualBytes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want uint64
	}{
		{`abcdefgh`, 0}, {`\bcdefgh`, 0x80}, {`abc\efgh`, 0x80 << 24}, {`abcdefg\`, 0x80 << 56},
		{`a\\\\\\\`, 0x8080808080808000}, {"\x00\x01\\\xff\x80\x5b\x5d\x5c", 0x80<<56 | 0x80<<16},
	} {
		if got := EqualBytes(Word(tc.s, 0), '\\'); got != tc.want {
			t.Errorf("EqualBytes(%q, '\\\\') = %#x, want %#x", tc.s, got, tc.want)
		}
	}
}

// TestValidStringBodyEveryOffset: ValidStringBody takes eight bytes a step,
// with a shortcut for a word holding one escape; put valid and invalid
// escapes and control bytes at every offset of the first words, alone and
// in pairs, and compare with gjson.
func TestValidStringBodyEveryOffset(t *testing.T) {
	pieces := []string{`\n`, `\"`, `\\`, `\/`, `\u00e9`, `\uD83D\uDE00`, `\x`, `\u12`, `\u12g4`, "\x1f", `\`, `\\\`, "é"}
	for _, p1 := range pieces {
		for _, p2 := range pieces {
			for off := 0; off < 18; off++ {
				for gap := 0; gap < 10; gap += 3 {
					body := strings.Repeat("a", off) + p1 + strings.Repeat("b", gap) + p2 + "tail"
					doc := `"` + body + `"`
					if StringEnd(doc, 0) != len(doc) {
						continue // an unescaped quote: not a body, by StringEnd
					}
					if want, got := gjson.Valid(doc), ValidStringBody(body); got != want {
						t.Fatalf("ValidStringBody(%q) = %v, gjson says %v", body, got, want)
					}
				}
			}
		}
	}
}

// TestValidNesting: a document nested deeper than MaxNesting is refused,
// with long strings in it or not, and one nested as deep is not; gjson's
// recursion on 8 million levels overran Go's stack (a fatal error).
func TestValidNesting(t *testing.T) {
	long := `"` + strings.Repeat("x", LongString) + `"`
	for _, tc := range []struct {
		name  string
		depth int
		inner string
		want  bool
	}{
		{"at the limit", MaxNesting, "1", true},
		{"past it", MaxNesting + 1, "1", false},
		{"past it, with a long string", MaxNesting + 1, long, false},
		{"past it, objects", MaxNesting + 1, "", false},
	} {
		open, close := strings.Repeat("[", tc.depth), strings.Repeat("]", tc.depth)
		if tc.inner == "" {
			open, close = strings.Repeat(`{"a":`, tc.depth-1)+"{", "}"+strings.Repeat("}", tc.depth-1)
		}
		if got := Valid(open + tc.inner + close); got != tc.want {
			t.Errorf("%s: Valid = %v, want %v", tc.name, got, tc.want)
		}
	}
	// Brackets in strings do not nest.
	if s := `["` + strings.Repeat("[", MaxNesting+1) + `"]`; !Valid(s) {
		t.Error("brackets inside a string counted as nesting")
	}
}
