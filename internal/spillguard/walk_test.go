package spillguard

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

var walkSeeds = []string{
	`{"stdout":"abc","stderr":"","interrupted":false}`,
	`{"type":"text","file":{"filePath":"/a","content":"x\ny","numLines":2}}`,
	`{"query":"q","results":["text",{"tool_use_id":"t","content":[{"title":"a","url":"u"}]}],"durationSeconds":1}`,
	`"an MCP string"`,
	`[{"type":"text","text":"block"}]`,
	`{"a":{"b":{"c":"deep"}},"a":"dup"}`,
	`{"\u0061":"escaped key","k\"q":"quote in key",":x":"colon","a.b":"dot","":"empty key","#":"hash"}`,
	`{ "sp" : "spaces" , "n" : null , "t" : true , "num" : -1.5e3 , "arr" : [ "x" , { "y" : "z" } ] }`,
	`{"esc":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800\udc00x\ud800\u0041\udc00"}`,
	`{"multi":"é😀日本"}`,
	`{}`,
	`{"o":{}}`,
}

func TestStringFields(t *testing.T) {
	got := stringFields(`{"a":"1","b":{"c":"2","d":[ "no" ],"e":{"f":"3"}},"g":5,"a":"dup","h":"4"}`, span{})
	var paths []string
	for _, f := range got {
		paths = append(paths, strings.Join(f.keys, "/")+"="+f.raw)
	}
	want := []string{`a="1"`, `b/c="2"`, `b/e/f="3"`, `h="4"`}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// FuzzWalk checks the hand-written scanner against the libraries: the
// fields it finds are the strings gjson finds at the same escaped paths,
// decoded as encoding/json decodes them, counted right, and splicing at
// their offsets gives what sjson.SetRaw gives at those paths.
func FuzzWalk(f *testing.F) {
	for _, s := range walkSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !gjson.Valid(doc) || !utf8.ValidString(doc) {
			return
		}
		doc = strings.TrimSpace(doc)
		_, _, ends := jsonscan.Split(doc, 4)
		fields := stringFields(doc, span{0, ends})
		if diff := cmp.Diff(stringFields(doc, span{}), fields, cmp.AllowUnexported(field{})); diff != "" {
			t.Fatalf("the walk with the ends of long strings differs (-without +with):\n%s", diff)
		}
		for _, fl := range fields {
			if doc[fl.off:fl.off+len(fl.raw)] != fl.raw {
				t.Fatalf("offset %d does not hold %q", fl.off, fl.raw)
			}
			var want string
			if err := json.Unmarshal([]byte(fl.raw), &want); err != nil {
				t.Fatalf("token %q: %v", fl.raw, err)
			}
			var sb strings.Builder
			if err := writeDecoded(&sb, fl.body()); err != nil {
				t.Fatal(err)
			}
			if sb.String() != want {
				t.Fatalf("writeDecoded(%q) = %q, want %q", fl.raw, sb.String(), want)
			}
			for _, limit := range []int{1, 2, 3, 7} {
				// Small chunks: every limit falls inside some escape or
				// character, and no chunk may split a character.
				var joined []byte
				for body := fl.body(); len(body) > 0; {
					chunk, used := decodeSome(nil, body, limit)
					if used == 0 || !utf8.Valid(chunk) {
						t.Fatalf("decodeSome(%q, %d) = %q, used %d", body, limit, chunk, used)
					}
					joined = append(joined, chunk...)
					body = body[used:]
				}
				if string(joined) != want {
					t.Fatalf("decoding %q in chunks of %d gave %q, want %q", fl.raw, limit, joined, want)
				}
			}
			if n := jsonscan.Chars(fl.body()); n != utf8.RuneCountInString(want) {
				t.Fatalf("jsonscan.Chars(%q) = %d, want %d", fl.raw, n, utf8.RuneCountInString(want))
			}
			for _, th := range []int{1, 3, 10} {
				if got, w := over(fl.body(), th), utf8.RuneCountInString(want) > th; got != w {
					t.Fatalf("over(%q, %d) = %v, want %v", fl.raw, th, got, w)
				}
			}
			if len(fl.keys) == 0 {
				continue
			}
			path := sjsonPath(fl.keys)
			if g := gjson.Get(doc, path); g.Raw != fl.raw || g.Index != fl.off {
				// Some keys cannot be spelled as a path at all (gjson reads
				// "" . "" . "" as something else): the splice needs no path.
				if !strings.Contains(path, "..") && !strings.HasSuffix(path, ".") {
					t.Fatalf("gjson at %q: %q at %d, the walk: %q at %d", path, g.Raw, g.Index, fl.raw, fl.off)
				}
				continue
			}
			want2, err := sjson.SetRaw(doc, path, `"R"`)
			if err != nil {
				t.Fatalf("sjson at %q: %v", path, err)
			}
			got := string(splice(doc, []spillable{{field: fl}}, []string{`"R"`}))
			if got != want2 {
				t.Fatalf("splice at %q:\n got %s\nwant %s", path, got, want2)
			}
		}
	})
}

// sjsonPath escapes keys into a gjson/sjson path. gjson.Escape leaves ':'
// alone, but sjson reads a leading ':' as "force an object key".
func sjsonPath(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = gjson.Escape(k)
		if strings.HasPrefix(parts[i], ":") {
			parts[i] = `\` + parts[i]
		}
	}
	return strings.Join(parts, ".")
}

func TestDecodeChunks(t *testing.T) {
	// Runs longer than a chunk, with multi-byte characters at every offset
	// around the chunk boundary, must decode and count as a whole.
	for pad := 0; pad < 4; pad++ {
		s := strings.Repeat("a", decodeChunk-pad) + strings.Repeat("😀é\\n", 10)
		raw, _ := json.Marshal(s)
		body := string(raw[1 : len(raw)-1])
		var sb strings.Builder
		writeDecoded(&sb, body)
		if sb.String() != s {
			t.Errorf("pad %d: decoded text differs", pad)
		}
		if n := jsonscan.Chars(body); n != utf8.RuneCountInString(s) {
			t.Errorf("pad %d: %d chars, want %d", pad, n, utf8.RuneCountInString(s))
		}
	}
}

// TestWriteDecodedAllocatesOnce: the buffer is sized so that decodeSome
// never grows it. Growing clears the new tail, touching every page of a
// buffer that a short body would barely use.
func TestWriteDecodedAllocatesOnce(t *testing.T) {
	for _, n := range []int{10, 10 << 10, 3 * decodeChunk} {
		raw, _ := json.Marshal(strings.Repeat("line é😀\n", n/12+1))
		body := string(raw[1 : len(raw)-1])
		if allocs := testing.AllocsPerRun(5, func() { writeDecoded(io.Discard, body) }); allocs != 1 {
			t.Errorf("%d bytes: %v allocations, want 1", len(body), allocs)
		}
	}
}

// TestDecodeEscapeAtEveryOffset: decodeSome takes eight bytes a step, with
// shortcuts for a word holding one escape; put every kind of escape at
// every offset of the first two words, alone and in pairs, and compare with
// encoding/json.
func TestDecodeEscapeAtEveryOffset(t *testing.T) {
	escapes := []string{`\n`, `\"`, `\\`, `\/`, `\t`, `\b`, `\f`, `\r`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `é`}
	for _, e1 := range escapes {
		for _, e2 := range escapes {
			for off := 0; off < 18; off++ {
				for gap := 0; gap < 10; gap += 3 {
					body := strings.Repeat("a", off) + e1 + strings.Repeat("b", gap) + e2 + "tail of the body"
					var want string
					if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
						t.Fatal(err)
					}
					var sb strings.Builder
					if err := writeDecoded(&sb, body); err != nil {
						t.Fatal(err)
					}
					if sb.String() != want {
						t.Fatalf("writeDecoded(%q) = %q, want %q", body, sb.String(), want)
					}
				}
			}
		}
	}
}
