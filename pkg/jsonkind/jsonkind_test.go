package jsonkind

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestOf(t *testing.T) {
	doc := `{"o":{},"a":[],"n":1.5,"t":true,"f":false,"s":"x","z":null}`
	for path, want := range map[string]string{
		"o": "an object", "a": "an array", "n": "a number", "t": "a boolean",
		"f": "a boolean", "s": "a string", "z": "null", "missing": "missing",
	} {
		if got := Of(gjson.Get(doc, path)); got != want {
			t.Errorf("Of(%s) = %q, want %q", path, got, want)
		}
	}
}
