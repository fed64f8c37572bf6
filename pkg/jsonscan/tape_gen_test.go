package jsonscan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// genJSON writes a random valid JSON value nested up to ten levels, past
// MaxDepth, with the escapes, characters and whitespace Scan treats apart.
func genJSON(r *rand.Rand, depth int, b *strings.Builder) {
	ws := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r"}[r.IntN(4)])
		}
	}
	str := func() {
		b.WriteByte('"')
		for k := r.IntN(30); k > 0; k-- {
			b.WriteString([]string{"a", "bcdefgh", `\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, "é", "😀", "\x7f", "/", `\/`}[r.IntN(13)])
		}
		b.WriteByte('"')
	}
	ws()
	switch k := r.IntN(8); {
	case depth > 9 || k < 2:
		str()
	case k == 2:
		b.WriteString([]string{"0", "-1.5e3", "12", "true", "false", "null", "1E+2", "0.25"}[r.IntN(8)])
	case k < 5:
		b.WriteByte('{')
		for n := r.IntN(4); n > 0; n-- {
			ws()
			str()
			ws()
			b.WriteByte(':')
			genJSON(r, depth+1, b)
			if n > 1 {
				b.WriteByte(',')
			}
		}
		ws()
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		for n := r.IntN(4); n > 0; n-- {
			genJSON(r, depth+1, b)
			if n > 1 {
				b.WriteByte(',')
			}
		}
		ws()
		b.WriteByte(']')
	}
	ws()
}

// TestScanGenerated: random documents, half of them with one byte changed,
// added or removed, agree with the references; the fuzz target finds less
// on its own since valid documents are rare among random bytes.
func TestScanGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var sb strings.Builder
		genJSON(r, 0, &sb)
		s := []byte(sb.String())
		if i := r.IntN(len(s)); r.IntN(2) == 0 {
			switch r.IntN(3) {
			case 0:
				s[i] = byte(r.IntN(256))
			case 1:
				s = append(s[:i], s[i+1:]...)
			default:
				s = append(s[:i], append([]byte{"{}[],:\"\\"[r.IntN(8)]}, s[i:]...)...)
			}
		}
		checkScan(t, string(s))
	}
}
