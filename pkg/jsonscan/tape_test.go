package jsonscan

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// wantScan is what Scan must say of s: the UTF-8 verdict first, then
// gjson's.
func wantScan(s string) ScanResult {
	switch {
	case !utf8.ValidString(s):
		return ScanNotUTF8
	case !gjson.Valid(s):
		return ScanNotJSON
	}
	return ScanOK
}

// refTape builds the tape of valid JSON s with the walks (ValueEnd,
// StringEnd, Chars): what Scan must give, found another way.
func refTape(s string) []Val {
	var out []Val
	var value func(i, depth int)
	value = func(i, depth int) {
		idx := len(out)
		end := ValueEnd(s, i)
		if depth <= MaxDepth {
			out = append(out, Val{Start: int32(i), End: int32(end)})
			if s[i] == '"' {
				out[idx].Chars = int32(Chars(s[i+1 : end-1]))
			}
		}
		if s[i] == '{' || s[i] == '[' {
			for j := SkipSpace(s, i+1); s[j] != s[i]+2; {
				if s[i] == '{' {
					value(j, depth+1) // the key
					j = SkipSpace(s, SkipSpace(s, StringEnd(s, j))+1)
				}
				value(j, depth+1)
				if j = SkipSpace(s, ValueEnd(s, j)); s[j] == ',' {
					j = SkipSpace(s, j+1)
				}
			}
		}
		if depth <= MaxDepth {
			out[idx].Next = int32(len(out))
		}
	}
	value(SkipSpace(s, 0), 0)
	return out
}

// checkScan scans s and compares the verdict and the tape with the
// references.
func checkScan(t *testing.T, s string) {
	t.Helper()
	var tp Tape
	got, want := tp.Scan(s), wantScan(s)
	if got == ScanTooBig {
		return // checked apart: TestScanTooBig
	}
	if got != want {
		t.Fatalf("Scan(%.200q) = %d, want %d", s, got, want)
	}
	if got != ScanOK {
		return
	}
	if diff := cmp.Diff(refTape(s), tp.Vals); diff != "" {
		t.Fatalf("Scan(%.200q): tape (-want +got):\n%s", s, diff)
	}
}

func TestScan(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 100)
	cases := append([]string{
		``, ` `, `0`, `-`, `-0`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `-1.5e3`, `1x`, `tru`, `true`, `truex`,
		`nul`, `null `, `false`, `fals`, `[1 2]`, `[,]`, `{,}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[[[[[[[[[]]]]]]]]]`,
		`[[[[[[[[["deep",{"k":"v"}]]]]]]]]]`, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":"h"},"i":[1]}}}}}}`,
		` { "a" : [ 1 , "x" , { } , [ ] ] } `, "\t\r\n[]\n", `"\ud83d\ude00\ud83d"`, `"\ud83d\u0041"`,
		`"\udc00\ud800"`, `"é😀\u00e9"`, "\"\xff\"", "\"a\xc3\"", "[1,\"\xed\xa0\x80\"]", "\xef\xbb\xbf{}",
		"{\"a\":1}\xff", "[\x80]", `"` + long + `\"` + long + `"`, `["` + long + "\x01\"]", `"` + long,
	}, validCases...)
	for _, c := range validCases {
		cases = append(cases, strings.ReplaceAll(c, `"b`, `"`+long+`b`), strings.ReplaceAll(c, `\`, long+`\`))
	}
	for _, c := range cases {
		checkScan(t, c)
	}
}

// TestScanEveryOffset puts each escape, control byte and multi-byte
// character at every offset of a string's first words, where Scan moves
// from its eight-byte test to a single byte.
func TestScanEveryOffset(t *testing.T) {
	pieces := []string{`\n`, `\"`, `\\`, `\u00e9`, `\uD83D\uDE00`, `\uD83D`, `\x`, `\u12`, "\x1f", "\x7f", `\`, "é", "😀", "\xc3", "\xed\xa0\x80", `"`}
	for _, p := range pieces {
		for off := 0; off < 20; off++ {
			checkScan(t, `{"k":"`+strings.Repeat("a", off)+p+`tail","n":1}`)
			checkScan(t, `["`+strings.Repeat("a", off)+p+`"]`)
		}
	}
}

func TestScanTooBig(t *testing.T) {
	var tp Tape
	many := "[" + strings.Repeat("1,", MaxVals) + "1]"
	if got := tp.Scan(many); got != ScanTooBig {
		t.Errorf("Scan of %d values = %d, want ScanTooBig", MaxVals+2, got)
	}
	// Values past MaxDepth are not kept, so do not count.
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("1,", MaxVals) + "1" + strings.Repeat("]", MaxDepth+1)
	if got := tp.Scan(deep); got != ScanOK {
		t.Errorf("Scan of %d values below MaxDepth = %d, want ScanOK", MaxVals+1, got)
	}
	if got, want := len(tp.Vals), MaxDepth+1; got != want {
		t.Errorf("Scan of %d values below MaxDepth kept %d, want %d", MaxVals+1, got, want)
	}
	// A depth of a million costs a bit a level, and is no error.
	nested := strings.Repeat("[", 1e6) + strings.Repeat("]", 1e6)
	if got := tp.Scan(nested); got != ScanOK {
		t.Errorf("Scan of a million nested arrays = %d, want ScanOK", got)
	}
}

// FuzzScan: Scan agrees with utf8.Valid and gjson.Valid, and its tape with
// the walks.
func FuzzScan(f *testing.F) {
	for _, c := range validCases {
		f.Add(c)
	}
	f.Add(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"a\nb"}]}]}}`)
	f.Fuzz(func(t *testing.T, s string) { checkScan(t, s) })
}

// BenchmarkScan compares Scan with Valid on the documents of BenchmarkValid
// and on a transcript line.
func BenchmarkScan(b *testing.B) {
	body := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 40)
	line := `{"parentUuid":"00000001-0000-4000-8000-000000000000","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"` +
		body + `","is_error":false}]},"toolUseResult":{"stdout":"` + body + `","stderr":"","interrupted":false},"uuid":"00000002-0000-4000-8000-000000000000","timestamp":"2026-11-30T02:44:58.423Z","cwd":"/home/u/ws","sessionId":"0b0b0b0b-1111-4111-8111-111111111111","version":"2.1.328"}`
	var tp Tape
	b.Run("line/Scan", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if tp.Scan(line) != ScanOK {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("line/Valid", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if !Valid(line) || !utf8.ValidString(line) {
				b.Fatal("invalid")
			}
		}
	})
}
