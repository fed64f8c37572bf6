package prunesession

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// TestLocate: member, element and blockContent find the bytes gjson.Get
// finds for the same path, and nothing where the path goes through a value
// of another type.
func TestLocate(t *testing.T) {
	tests := []struct {
		name, doc, path string
		found           bool
	}{
		{"top-level key", `{"a":1,"toolUseResult":"x"}`, "toolUseResult", true},
		{"first of two", `{"toolUseResult":"x","toolUseResult":"y"}`, "toolUseResult", true},
		{"escaped key", `{"tool\u0055seResult":{"stdout":"o"}}`, "toolUseResult.stdout", true},
		{"spaces", " { \"message\" : { \"content\" : [ 1 , { \"content\" : \"b\" } ] } } ", "message.content.1.content", true},
		{"nested names are not top-level", `{"data":{"parentUuid":"a"}}`, "parentUuid", false},
		{"missing key", `{"message":{"content":[{"type":"text"}]}}`, "message.content.0.content", false},
		{"index past the end", `{"message":{"content":[{"content":"a"}]}}`, "message.content.1.content", false},
		{"content not an array", `{"message":{"content":"hi"}}`, "message.content.0.content", false},
		{"block not an object", `{"message":{"content":[["content"]]}}`, "message.content.0.content", false},
		{"message not an object", `{"message":[{"content":[]}]}`, "message.content.0.content", false},
		{"long strings stepped over", `{"message":{"content":[{"content":"` + longText + `"},{"content":"x\"y"}]}}`, "message.content.1.content", true},
		{"numbers and literals", `{"message":{"content":[1.5e3,true,null,{"content":-2}]}}`, "message.content.3.content", true},
		{"an array line", `[{"message":1}]`, "message", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := locate(tt.doc, tt.path)
			if ok != tt.found {
				t.Fatalf("locate(%q) found %v, want %v", tt.path, ok, tt.found)
			}
			want := gjson.Get(tt.doc, tt.path)
			if !ok {
				return
			}
			if diff := cmp.Diff(want.Raw, tt.doc[got.start:got.end]); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			if want.Index != got.start {
				t.Errorf("at %d, want %d", got.start, want.Index)
			}
		})
	}
}

var longText = fmt.Sprintf("%0100d", 7) + `\" \\` + fmt.Sprintf("%0100d", 9)

// locate follows a path of keys and indexes with memberAt and elementAt,
// and finds the last key with members: the functions splice.go has, in the
// shape gjson takes its paths.
func locate(doc, path string) (span, bool) {
	at := jsonscan.SkipSpace(doc, 0)
	parts := strings.Split(path, ".")
	for i, part := range parts {
		n, err := strconv.Atoi(part)
		var ok bool
		switch {
		case err == nil && at < len(doc) && doc[at] == '[':
			at, ok = elementAt(doc, at, n)
		case i == len(parts)-1:
			var v [2]span
			if !members(doc, at, []string{"", part}, v[:]) || !v[1].found() {
				return span{}, false
			}
			return v[1], true
		default:
			at, ok = memberAt(doc, at, part)
		}
		if !ok {
			return span{}, false
		}
	}
	return span{at, jsonscan.ValueEnd(doc, at)}, true
}

// TestRemoval: the blocks removal takes out are the bytes sjson.DeleteBytes
// takes out, deleting the highest index first, whatever the spacing.
func TestRemoval(t *testing.T) {
	const four = `{"message":{"content":[{"a":0},{"a":1},{"a":2},{"a":3}]},"x":1}`
	const spaced = "{\"message\":{\"content\":[ {\"a\":0} ,\n\t{\"a\":1} , {\"a\":2}\r\n]}}"
	tests := []struct {
		name, line string
		remove     []int
		want       string // "" when removal refuses
	}{
		{"first", four, []int{0}, `{"message":{"content":[{"a":1},{"a":2},{"a":3}]},"x":1}`},
		{"middle", four, []int{2}, `{"message":{"content":[{"a":0},{"a":1},{"a":3}]},"x":1}`},
		{"last", four, []int{3}, `{"message":{"content":[{"a":0},{"a":1},{"a":2}]},"x":1}`},
		{"first two", four, []int{1, 0}, `{"message":{"content":[{"a":2},{"a":3}]},"x":1}`},
		{"first and third", four, []int{0, 2}, `{"message":{"content":[{"a":1},{"a":3}]},"x":1}`},
		{"all but the last", four, []int{2, 0, 1}, `{"message":{"content":[{"a":3}]},"x":1}`},
		{"all", four, []int{0, 1, 2, 3}, `{"message":{"content":[]},"x":1}`},
		{"spaced first", spaced, []int{0}, "{\"message\":{\"content\":[ \n\t{\"a\":1} , {\"a\":2}\r\n]}}"},
		{"spaced middle", spaced, []int{1}, "{\"message\":{\"content\":[ {\"a\":0}  , {\"a\":2}\r\n]}}"},
		{"spaced last", spaced, []int{2}, "{\"message\":{\"content\":[ {\"a\":0} ,\n\t{\"a\":1} \r\n]}}"},
		{"spaced first two", spaced, []int{0, 1}, "{\"message\":{\"content\":[  {\"a\":2}\r\n]}}"},
		{"spaced all", spaced, []int{0, 1, 2}, "{\"message\":{\"content\":[   \r\n]}}"},
		{"repeated", four, []int{1, 1}, ""},
		{"missing", four, []int{4}, ""},
		{"no blocks", `{"message":{"content":"hi"}}`, []int{0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gone, ok := removal(tt.line, messageAt(tt.line), tt.remove)
			if ok != (tt.want != "") {
				t.Fatalf("removal ok = %v, want %v", ok, tt.want != "")
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, deleteBlocks(tt.line, tt.remove)); diff != "" {
				t.Fatalf("the case's want is not sjson's (-want +sjson):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, string(spliceLine(nil, tt.line, removalSplices(gone)))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// messageAt is where the line's message starts, -1 if nowhere.
func messageAt(line string) int {
	if at, ok := memberAt(line, jsonscan.SkipSpace(line, 0), "message"); ok {
		return at
	}
	return -1
}

// deleteBlocks is apply's removal: sjson.DeleteBytes from the highest index
// to the lowest.
func deleteBlocks(line string, remove []int) string {
	out := []byte(line)
	remove = slices.Clone(remove)
	slices.Sort(remove)
	for i := len(remove) - 1; i >= 0; i-- {
		out, _ = sjson.DeleteBytes(out, fmt.Sprintf("message.content.%d", remove[i]))
	}
	return string(out)
}

func removalSplices(gone []span) []splice {
	var ss []splice
	for _, g := range gone {
		ss = append(ss, splice{span: g})
	}
	if !ordered(ss) {
		panic("removal's spans overlap")
	}
	return ss
}

const (
	spliceOldID = "11111111-1111-4111-8111-111111111111"
	spliceNewID = "22222222-2222-4222-8222-222222222222"
)

// lineCase is one line and what pass two is to do to it.
type lineCase struct {
	line    string
	edit    *lineEdit
	refs    uint8             // the relinkFields bits pass one set
	dropped map[string]string // dropped uuid -> its parent
	newID   string            // spliceNewID if ""
}

// both makes the case's line with spliced and with line (apply, relink and
// setSessionID through sjson), each on a rewriter of its own, and returns
// the two, the delta each counted, and whether spliced made it.
func (c lineCase) both(t testing.TB) (want, got string, wantDelta, gotDelta int64, ok bool) {
	t.Helper()
	slow, fast := c.rewriter(), c.rewriter()
	w, slowErr := slow.line(1, []byte(c.line))
	g, ok, err := fast.spliced(1, []byte(c.line), []byte("previous line\n"))
	if err != nil {
		t.Fatalf("spliced: %v", err)
	}
	if slowErr != nil {
		// sjson refuses (a line that is an array): spliced leaves the
		// line to it, for the same error.
		if ok {
			t.Fatalf("line failed (%v) where spliced did not", slowErr)
		}
		return "", "", 0, 0, false
	}
	if !ok {
		return string(w), "", slow.delta, fast.delta, false
	}
	return "previous line\n" + string(w), string(g), slow.delta, fast.delta, true
}

// rewriter is a lineRewriter of a one-line plan for the case, on a dry run.
func (c lineCase) rewriter() *lineRewriter {
	newID := c.newID
	if newID == "" {
		newID = spliceNewID
	}
	flags := c.refs
	edits := map[int]*lineEdit{}
	if c.edit != nil {
		edits[1] = c.edit
		flags |= lineEdited
	}
	dropped := c.dropped
	if dropped == nil {
		dropped = map[string]string{}
	}
	p := &plan{lines: 1, flags: []uint8{flags}, sid: []int32{sidOf(c.line)}, length: []int32{int32(len(c.line))},
		edits: edits, dropped: dropped, spillDir: "/spill"}
	return &lineRewriter{rewriter: &rewriter{p: p, oldID: spliceOldID, newID: newID}}
}

// sidOf is where pass one finds the line's sessionId to overwrite in place
// (sessionIDAt): the first top-level one, when it is the old id as written.
func sidOf(line string) int32 {
	v := gjson.Get(line, "sessionId")
	if v.Raw != strconv.Quote(spliceOldID) {
		return -1
	}
	return int32(v.Index)
}

// TestSpliced: spliced makes what line makes through sjson, byte for byte,
// and leaves to it what it cannot.
func TestSpliced(t *testing.T) {
	const sid = `"sessionId":"` + spliceOldID + `"`
	const newSid = `"sessionId":"` + spliceNewID + `"`
	result := func(tur string) string {
		return `{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"long output"}]},"uuid":"c",` + tur + sid + `}`
	}
	note := replacement{block: 0, text: `[expired <&> "é"]`, oldChars: 11, single: true}
	const noteJSON = `"[expired \u003c\u0026\u003e \"é\"]"`
	tests := []struct {
		name string
		c    lineCase
		want string // "" when spliced leaves the line to sjson
	}{
		{"string toolUseResult", lineCase{line: result(`"toolUseResult":"Error: x",`), edit: &lineEdit{replace: []replacement{note}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":` + noteJSON + `}]},"uuid":"c","toolUseResult":` + noteJSON + `,` + newSid + `}`},
		{"Bash output", lineCase{line: result(`"toolUseResult":{"stdout":"long output","stderr":"warn","interrupted":false},`), edit: &lineEdit{replace: []replacement{note}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":` + noteJSON + `}]},"uuid":"c","toolUseResult":{"stdout":` + noteJSON + `,"stderr":"","interrupted":false},` + newSid + `}`},
		{"Bash output without stderr", lineCase{line: result(`"toolUseResult":{"stdout":"long output" },`), edit: &lineEdit{replace: []replacement{note}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":` + noteJSON + `}]},"uuid":"c","toolUseResult":{"stdout":` + noteJSON + ` ,"stderr":""},` + newSid + `}`},
		{"another tool's object", lineCase{line: result(`"toolUseResult":{"file":{"content":"x"}},`), edit: &lineEdit{replace: []replacement{note}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":` + noteJSON + `}]},"uuid":"c","toolUseResult":{"file":{"content":"x"}},` + newSid + `}`},
		{"stdout not a string", lineCase{line: result(`"toolUseResult":{"stdout":null},`), edit: &lineEdit{replace: []replacement{note}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":` + noteJSON + `}]},"uuid":"c","toolUseResult":{"stdout":null},` + newSid + `}`},
		{"not the only result", lineCase{line: result(`"toolUseResult":"Error: x",`), edit: &lineEdit{replace: []replacement{{block: 0, text: "n", oldChars: 11}}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"n"}]},"uuid":"c","toolUseResult":"Error: x",` + newSid + `}`},
		{"trimmed on a dry run", lineCase{line: result(""), edit: &lineEdit{replace: []replacement{{block: 0, trim: "prune-t1", oldChars: 11}}}},
			`{"parentUuid":"p","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"[Spilled to a file to keep it out of context: 11 characters, 1 line, in full at /spill/prune-t1.txt. Use Read on that file with offset/limit to see the rest. The first 11 characters follow.]\nlong output"}]},"uuid":"c",` + newSid + `}`},
		{"block without content", lineCase{line: `{"message":{"content":[{"type":"tool_result"}]},` + sid + `}`, edit: &lineEdit{replace: []replacement{note}}}, ""},
		{"the same block twice", lineCase{line: result(""), edit: &lineEdit{replace: []replacement{note, note}}}, ""},
		{"a replaced block removed", lineCase{line: `{"message":{"content":[{"content":"a"},{"content":"b"}]},` + sid + `}`, edit: &lineEdit{replace: []replacement{{block: 1, text: "n"}}, remove: []int{1}}}, ""},
		{"blocks removed", lineCase{line: `{"message":{"content":[{"type":"text","text":"hi"}, {"type":"tool_use","id":"t"} ,{"type":"tool_use","id":"u"}]},` + sid + `}`, edit: &lineEdit{remove: []int{1}}},
			`{"message":{"content":[{"type":"text","text":"hi"} ,{"type":"tool_use","id":"u"}]},` + newSid + `}`},
		{"relinked", lineCase{line: `{"parentUuid":"b","logicalParentUuid":"c","x":{"leafUuid":"b"},"leafUuid":"b",` + sid + `}`, refs: 7, dropped: map[string]string{"b": "a", "c": ""}},
			`{"parentUuid":"a","logicalParentUuid":null,"x":{"leafUuid":"b"},"leafUuid":"a",` + newSid + `}`},
		{"relinked, escaped", lineCase{line: `{"parentUuid":"\u0062",` + sid + `}`, refs: 1, dropped: map[string]string{"b": "a<"}},
			`{"parentUuid":"a\u003c",` + newSid + `}`},
		{"only the bits pass one set", lineCase{line: `{"parentUuid":"b","leafUuid":"b",` + sid + `}`, refs: 1, dropped: map[string]string{"b": "a"}},
			`{"parentUuid":"a","leafUuid":"b",` + newSid + `}`},
		{"kept parent", lineCase{line: `{"parentUuid":"k",` + sid + `}`, refs: 1, dropped: map[string]string{"b": "a"}},
			`{"parentUuid":"k",` + newSid + `}`},
		{"parent not a string", lineCase{line: `{"parentUuid":null,` + sid + `}`, refs: 1, dropped: map[string]string{"b": "a"}},
			`{"parentUuid":null,` + newSid + `}`},
		{"other session id", lineCase{line: `{"parentUuid":"b","sessionId":"other"}`, refs: 1, dropped: map[string]string{"b": "a"}},
			`{"parentUuid":"a","sessionId":"` + spliceNewID + `"}`},
		{"escaped session id", lineCase{line: `{"parentUuid":"b","sessionId":"11111111-1111-4111-8111-11111111111\u0031"}`, refs: 1, dropped: map[string]string{"b": "a"}},
			`{"parentUuid":"a","sessionId":"` + spliceNewID + `"}`},
		{"short new id", lineCase{line: `{"parentUuid":"b",` + sid + `}`, refs: 1, dropped: map[string]string{"b": "a"}, newID: "n<"},
			`{"parentUuid":"a","sessionId":"n\u003c"}`},
		{"no session id", lineCase{line: `{"parentUuid":"b","x":[1,{"sessionId":"s"}]}`, refs: 1, dropped: map[string]string{"b": "a"}},
			`{"parentUuid":"a","x":[1,{"sessionId":"s"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got, wantDelta, gotDelta, ok := tt.c.both(t)
			if ok != (tt.want != "") {
				t.Fatalf("spliced ok = %v, want %v", ok, tt.want != "")
			}
			if !ok {
				if gotDelta != 0 {
					t.Errorf("spliced refused but counted %d characters", gotDelta)
				}
				return
			}
			if diff := cmp.Diff("previous line\n"+tt.want, want); diff != "" {
				t.Fatalf("the case's want is not sjson's (-want +sjson):\n%s", diff)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if wantDelta != gotDelta {
				t.Errorf("delta %d, want %d", gotDelta, wantDelta)
			}
		})
	}
}

// FuzzSplice: on any valid JSON line, what spliced makes is what line makes
// through sjson and gjson, for replacements, removals, relinks and the
// session id; and what member and element find is what gjson.Get finds.
func FuzzSplice(f *testing.F) {
	for _, s := range []string{
		`{"parentUuid":"b","type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"out"}]},"uuid":"c","toolUseResult":{"stdout":"out","stderr":""},"sessionId":"` + spliceOldID + `"}`,
		`{"parentUuid":"b","message":{"content":[{"type":"tool_use","id":"t"},{"type":"tool_use","id":"u"},{"type":"text","text":"x"}]},"sessionId":"s"}`,
		`{"message":{"content":[ {"content":[{"type":"text","text":"a"}]} ,` + "\n" + `{"content":"b"} ]},"toolUseResult":"Error","leafUuid":"b"}`,
		`{"parentUuid":"\u0062","logicalParentUuid":"b","toolUseResult":{"stdout":"x" },"message":{"content":[{"content":"` + longText + `"}]}}`,
		`{"message":{"content":{"0":{"content":"x"}}},"message":{"content":[{"content":"y"}]}}`,
		` {"mess\u0061ge" : {"content":[1, true ,null, "s", {"content" : -1.5e3}]} , "sessionId":"` + spliceOldID + `" } `,
		// Not JSON: a line changed between the passes.
		`{"message":{"content":[{"content":"x"`,
		`{"message":{"content":[} {"content":"x"}]},"parentUuid":"b`,
		`{"toolUseResult":{"stdout":"x" "stderr"},"message":{"content":[{"content":"\`,
	} {
		f.Add(s, uint8(0x01), uint8(7), true)
		f.Add(s, uint8(0x30), uint8(1), false)
		f.Add(s, uint8(0x12), uint8(2), true)
	}
	f.Fuzz(func(t *testing.T, line string, blocks, refs uint8, single bool) {
		c := lineCase{line: line, refs: refs & refBits, dropped: map[string]string{}}
		// Bits 0-3 replace blocks 0-3 (a note, or on odd bits a trim),
		// bits 4-7 remove them.
		e := &lineEdit{}
		for b := range 4 {
			if blocks&(1<<b) != 0 {
				r := replacement{block: b, text: `<n> "é"`, single: single, oldChars: b}
				if b%2 == 1 {
					r = replacement{block: b, trim: "prune-x", single: single}
				}
				e.replace = append(e.replace, r)
			}
			if blocks&(1<<(b+4)) != 0 {
				e.remove = append(e.remove, b)
			}
		}
		if len(e.replace)+len(e.remove) > 0 {
			c.edit = e
		}
		// Every uuid the line points at is dropped, the first to a root.
		parent := ""
		for _, fld := range relinkFields {
			if v := gjson.Get(line, fld); v.Type == gjson.String {
				c.dropped[v.Str] = parent
				parent = "p<" + v.Str
			}
		}
		if !gjson.Valid(line) {
			// A line that changed between the passes to one that is not
			// JSON (with the same length and session id) gives garbage,
			// as sjson does, but no panic and no endless loop.
			lr := c.rewriter()
			lr.relinks(1, []byte(line))
			lr.spliced(1, []byte(line), nil)
			return
		}
		for _, path := range []string{"message", "message.content", "message.content.1", "message.content.0.content", "toolUseResult.stdout", "parentUuid", "sessionId"} {
			if v, ok := locate(line, path); ok {
				want := gjson.Get(line, path)
				if want.Index != v.start || want.Raw != line[v.start:v.end] {
					t.Fatalf("locate(%q) = %q at %d, gjson %q at %d", path, line[v.start:v.end], v.start, want.Raw, want.Index)
				}
			}
		}
		want, got, wantDelta, gotDelta, ok := c.both(t)
		if !ok {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-sjson +spliced):\n%s", diff)
		}
		if wantDelta != gotDelta {
			t.Errorf("delta %d, want %d", gotDelta, wantDelta)
		}
		if blocks&0xf0 != 0 && c.edit != nil && len(e.replace) == 0 {
			if gone, ok := removal(line, messageAt(line), e.remove); ok {
				if diff := cmp.Diff(deleteBlocks(line, e.remove), string(spliceLine(nil, line, removalSplices(gone)))); diff != "" {
					t.Fatalf("removal (-sjson +spliced):\n%s", diff)
				}
			}
		}
	})
}
