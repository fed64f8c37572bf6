package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzChars: Chars never panics, whatever the body, and on a valid one
// counts what encoding/json decodes.
func FuzzChars(f *testing.F) {
	for _, s := range []string{"", "abc", `a\nb`, `\u00e9`, `\ud83d\ude00x`, `\ud800\u0041\udc00`, `\ud83d`, "é😀",
		`ends in \`, `short \u12`, `\u12g4 bad hex`, `\\\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		n := Chars(body) // must not panic
		doc := `"` + body + `"`
		if StringEnd(doc, 0) != len(doc) || !ValidStringBody(body) || !utf8.ValidString(body) {
			return
		}
		var s string
		if err := json.Unmarshal([]byte(doc), &s); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if want := utf8.RuneCountInString(s); n != want {
			t.Fatalf("Chars(%q) = %d, encoding/json decodes %d characters", body, n, want)
		}
	})
}
