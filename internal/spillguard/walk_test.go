package spillguard

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/tests/cputime"
)

var walkSeeds = []string{
	`{"stdout":"abc","stderr":"","interrupted":false}`,
	`{"type":"text","file":{"filePath":"/a","content":"x\ny","numLines":2}}`,
	`{"query":"q","results":["text",{"tool_use_id":"t","content":[{"title":"a","url":"u"}]}],"durationSeconds":1}`,
	`"an MCP string"`,
	`[{"type":"text","text":"block"}]`,
	`{"a":{"b":{"c":"deep"}},"a":"dup"}`,
	`{"a":{"b":"x","\u0062":"y"}}`,
	`{"\u0061":"escaped key","k\"q":"quote in key",":x":"colon","a.b":"dot","":"empty key","#":"hash"}`,
	`{ "sp" : "spaces" , "n" : null , "t" : true , "num" : -1.5e3 , "arr" : [ "x" , { "y" : "z" } ] }`,
	`{"esc":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800\udc00x\ud800\u0041\udc00\udc00\ud800\ud800\udc00"}`,
	`{"multi":"é😀日本"}`,
	`{}`,
	`{"o":{}}`,
}

func TestLongFields(t *testing.T) {
	got := longFields(`{"a":"1","b":{"c":"2","d":[ "no", {"x":"no"} ],"e":{"f":"3"}},"g":5,"h":"4", "i" : { } }`, 0)
	var paths []string
	for _, f := range got {
		paths = append(paths, strings.Join(f.keys, "/")+"="+f.raw)
	}
	want := []string{`a="1"`, `b/c="2"`, `b/e/f="3"`, `h="4"`}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRepeatedKey: a key given twice in any object of tool_response is
// refused (gjson would replace the first, Claude Code show the last).
func TestRepeatedKey(t *testing.T) {
	for doc, wantErr := range map[string]string{
		`{"a":"1","a":"2"}`:                `payload field "tool_response" has the key "a" twice`,
		`{"a":{"b":{"c":1,"\u0063":2}}}`:   `payload field "tool_response.a.b" has the key "c" twice`,
		`{"a":{"b":1},"c":{"b":2}}`:        ``, // the same key in two objects
		`{"a":[{"b":1,"b":2}]}`:            `payload field "tool_response.a.0" has the key "b" twice`,
		`{"a":{"x":1},"b":{"x":1,"y":{}}}`: ``,
	} {
		stdin := `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t","cwd":"/","tool_response":` + doc + `}`
		var stdout, stderr strings.Builder
		Main([]string{"--workbench", t.TempDir()}, strings.NewReader(stdin), &stdout, &stderr)
		if wantErr != "" {
			wantErr = "spill-guard: " + wantErr + "\n"
		}
		if diff := cmp.Diff(wantErr, stderr.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", doc, diff)
		}
	}
}

// TestDeepNesting: a walk that found each value's end and then went into
// it read a value once per level above it, and copied the path to each
// level: 10,000 nested objects took 1.5 s and 0.8 GB, 30,000 took 13.5 s
// and 7.1 GB (issue 20). One pass takes milliseconds and a few MB.
func TestDeepNesting(t *testing.T) {
	for _, depth := range []int{10_000, 30_000} {
		doc := strings.Repeat(`{"a":"x","b":`, depth) + `"` + strings.Repeat("y", 50) + `"` + strings.Repeat("}", depth)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var fields []field
		elapsed := cputime.Of(func() { fields = longFields(doc, 10) })
		runtime.ReadMemStats(&after)
		if len(fields) != 1 || len(fields[0].keys) != depth {
			t.Fatalf("depth %d: %d fields", depth, len(fields))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("depth %d: allocated %d MB, want a few", depth, alloc>>20)
		}
		if elapsed > time.Second {
			t.Errorf("depth %d: took %v, want milliseconds", depth, elapsed)
		}
	}
}

// FuzzWalk checks the walk against the libraries: the fields it finds are
// the strings gjson finds at the same escaped paths and offsets, decoded as
// gjson and encoding/json decode them, and a token replaced at its offset
// gives what sjson.SetRaw gives at its path.
func FuzzWalk(f *testing.F) {
	for _, s := range walkSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !gjson.Valid(doc) || !utf8.ValidString(doc) {
			// Other people's transcripts reach Estimate: nothing panics.
			for _, fl := range longFields(doc, 0) {
				text(fl.raw)
			}
			return
		}
		doc = strings.TrimSpace(doc)
		for _, fl := range longFields(doc, 0) {
			if doc[fl.at:fl.at+len(fl.raw)] != fl.raw {
				t.Fatalf("offset %d does not hold %q", fl.at, fl.raw)
			}
			var want string
			if err := json.Unmarshal([]byte(fl.raw), &want); err != nil {
				t.Fatalf("token %q: %v", fl.raw, err)
			}
			if got := text(fl.raw); got != want || want != gjson.Parse(fl.raw).Str {
				t.Fatalf("writeText(%q) = %q, encoding/json %q, gjson %q", fl.raw, got, want, gjson.Parse(fl.raw).Str)
			}
			for _, th := range []int{1, 3, 10} {
				if got, w := overText(fl.raw, th), utf8.RuneCountInString(want) > th; got != w {
					t.Fatalf("overText(%q, %d) = %v, want %v", fl.raw, th, got, w)
				}
			}
			// gjson and sjson find the first of two keys, the walk each.
			if len(fl.keys) == 0 || repeats(doc) {
				continue
			}
			path := sjsonPath(fl.keys)
			if g := gjson.Get(doc, path); g.Raw != fl.raw || g.Index != fl.at {
				// Some keys cannot be spelled as a path at all (gjson reads
				// "" . "" . "" as something else).
				if !strings.Contains(path, "..") && !strings.HasSuffix(path, ".") {
					t.Fatalf("gjson at %q: %q at %d, the walk: %q at %d", path, g.Raw, g.Index, fl.raw, fl.at)
				}
				continue
			}
			want2, err := sjson.SetRaw(doc, path, `"R"`)
			if err != nil {
				t.Fatalf("sjson at %q: %v", path, err)
			}
			if got := doc[:fl.at] + `"R"` + doc[fl.at+len(fl.raw):]; got != want2 {
				t.Fatalf("replaced at %q:\n got %s\nwant %s", path, got, want2)
			}
		}
	})
}

// repeats reports whether an object of doc holds a key twice.
func repeats(doc string) bool { return jsoncheck.Check(doc, len(doc)) != nil }

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

// text is what writeText writes of raw.
func text(raw string) string {
	var sb strings.Builder
	writeText(&sb, raw)
	return sb.String()
}

// TestWriteTextEscapes: every kind of escape, alone and in pairs, around
// the buffer's size, decodes as encoding/json decodes it.
func TestWriteTextEscapes(t *testing.T) {
	escapes := []string{`\n`, `\"`, `\\`, `\/`, `\t`, `\b`, `\f`, `\r`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\ud800\udc00`, `é`}
	for _, pad := range []int{0, 1, 65535, 65536} {
		for _, e1 := range escapes {
			for _, e2 := range escapes {
				body := strings.Repeat("a", pad) + e1 + "b" + e2 + "tail"
				var want string
				if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
					t.Fatal(err)
				}
				if got := text(`"` + body + `"`); got != want {
					t.Fatalf("writeText(%.40q…) = %.40q…, want %.40q…", body[pad:], got[pad:], want[pad:])
				}
			}
		}
	}
}
