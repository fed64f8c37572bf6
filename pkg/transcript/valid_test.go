package transcript

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// validCases are lines validJSON must judge as gjson.Valid and
// utf8.ValidString together do. Strings are long enough in places to cross
// validString's eight-byte words with the interesting byte at every offset.
var validCases = []struct {
	name string
	doc  string
	want bool
}{
	{"object", `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, true},
	{"spaces around", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", true},
	{"scalar string", `"plain"`, true},
	{"scalar number", `-0.5e+10`, true},
	{"empty containers", `[{},[],""]`, true},
	{"long string", `{"k":"` + strings.Repeat("abcdefgh", 20) + `"}`, true},
	{"escapes", `"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 \uDEAD"`, true},
	{"escaped quote at word end", `["1234567\"","12345678\\"]`, true},
	{"non-ASCII", `{"✓":"héllo wörld ✓ 𝄞 ok"}`, true},
	{"DEL is allowed", "\"\x7f\"", true},

	{"empty", ``, false},
	{"only space", " \n", false},
	{"trailing garbage", `{"a":1}x`, false},
	{"two values", `{} {}`, false},
	{"trailing comma object", `{"a":1,}`, false},
	{"trailing comma array", `[1,]`, false},
	{"missing colon", `{"a" 1}`, false},
	{"unquoted key", `{a:1}`, false},
	{"unclosed object", `{"a":1`, false},
	{"unclosed array", `[1,2`, false},
	{"unclosed string", `"abcdefghijklmnop`, false},
	{"bad escape", `"\x"`, false},
	{"short unicode escape", `"\u12"`, false},
	{"bad hex", `"\u12g4"`, false},
	{"backslash at end", `"\`, false},
	{"control char", "\"abc\tdef\"", false},
	{"control char in a word", "\"abcdefgh\x01ijklmnop\"", false},
	{"newline in string", "\"a\nb\"", false},
	{"leading zero", `01`, false},
	{"lone minus", `-`, false},
	{"plus sign", `+1`, false},
	{"dot without digits", `1.`, false},
	{"exponent without digits", `1e+`, false},
	{"leading dot", `.5`, false},
	{"truncated true", `tru`, false},
	{"wrong literal", `nul1`, false},
	{"capital literal", `True`, false},
	{"invalid UTF-8 in string", "\"abc\xffdef\"", false},
	{"invalid UTF-8 in a word", "\"abcdefg\xc3(hijklmnop\"", false},
	{"surrogate bytes", "\"\xed\xa0\x80\"", false},
	{"overlong", "\"\xc0\xaf\"", false},
	{"truncated rune at end", "\"\xe2\x9c", false},
	{"non-ASCII outside strings", "{\"a\":1}\u00a0", false},
	{"NUL", "\"\x00\"", false},
}

func TestValidJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if reference := gjson.Valid(tc.doc) && utf8.ValidString(tc.doc); reference != tc.want {
				t.Fatalf("case is wrong: gjson.Valid && utf8.ValidString = %v", reference)
			}
			if got := validJSON(tc.doc); got != tc.want {
				t.Errorf("validJSON(%q) = %v, want %v", tc.doc, got, tc.want)
			}
		})
	}
}

// maxStdNesting is how deep encoding/json lets arrays and objects nest
// (encoding/json/scanner.go, maxNestingDepth); gjson and validJSON set no
// limit, so deeper documents are where the two may disagree.
const maxStdNesting = 10000

// FuzzValidJSON: validJSON accepts exactly what gjson.Valid and
// utf8.ValidString accept together, and what encoding/json.Valid accepts in
// valid UTF-8 (encoding/json does not check UTF-8).
func FuzzValidJSON(f *testing.F) {
	for _, tc := range validCases {
		f.Add(tc.doc)
	}
	for _, doc := range memberCases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got := validJSON(doc)
		if want := gjson.Valid(doc) && utf8.ValidString(doc); got != want {
			t.Fatalf("validJSON(%q) = %v, gjson.Valid && utf8.ValidString = %v", doc, got, want)
		}
		if strings.Count(doc, "[")+strings.Count(doc, "{") >= maxStdNesting {
			return
		}
		if want := json.Valid([]byte(doc)) && utf8.ValidString(doc); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid && utf8.ValidString = %v", doc, got, want)
		}
	})
}
