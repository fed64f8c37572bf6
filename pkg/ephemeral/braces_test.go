package ephemeral

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

// TestBraceArgs holds the words a brace expands to against bash's: each
// want is what bash 5.2 passed for the word (printf '[%s]' WORD).
func TestBraceArgs(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{`{"-R",/}`, `[-R][/]`},
		{`a{b,c{d,e}}f`, `[abf][acdf][acef]`},
		{`{01..10..3}`, `[01][04][07][10]`},
		{`{-01..3}`, `[-01][000][001][002][003]`},
		{`{a..e..2}`, `[a][c][e]`},
		{`{5..1..2}`, `[5][3][1]`},
		{`x{,}y`, `[xy][xy]`},
		{`{a,b}{1,2}`, `[a1][a2][b1][b2]`},
		{`{'a,b',c}`, `[a,b][c]`},
		{`{a\,b,c}`, `[a,b][c]`},
		{`{{a,b}}`, `[{a}][{b}]`},
		{`{-3..3..0}`, `[-3][-2][-1][0][1][2][3]`},
		{`{1..-1}`, `[1][0][-1]`},
		{`{1..99999999999999999999}`, `[{1..99999999999999999999}]`},
	} {
		t.Run(tc.word, func(t *testing.T) {
			f, err := parse("echo " + tc.word)
			if err != nil {
				t.Fatal(err)
			}
			c := classifier{r: resolver{src: "echo " + tc.word}}
			args, why := c.braceArgs(f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1], tc.word)
			if why != "" {
				t.Fatalf("braceArgs: %s", why)
			}
			var got strings.Builder
			for _, a := range args {
				got.WriteString("[" + a.value + "]")
			}
			if diff := cmp.Diff(tc.want, got.String()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
