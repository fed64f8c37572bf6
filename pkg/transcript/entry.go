package transcript

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Entry is what flower reads from one transcript line. Raw is the line as
// Parse was given it, and the string fields and gjson results are views of
// it, not copies: they are valid as long as Raw's bytes are (with Scan,
// until fn returns). A reader clones what it keeps (strings.Clone).
type Entry struct {
	Raw     []byte
	Type    string // user, assistant, system, attachment, progress, last-prompt, …
	Subtype string // of system entries: compact_boundary, api_error, local_command, …

	UUID              string
	ParentUUID        string // "" for a root
	LogicalParentUUID string // set on compaction boundaries
	LeafUUID          string // set on last-prompt and summary entries
	SessionID         string
	AgentID           string // set in subagent transcripts
	Cwd               string
	Timestamp         string

	// IsSidechain is true for every entry of a subagent: in its own
	// transcript, or (CLI 1.0.x) inline in the main one.
	IsSidechain bool
	IsAPIError  bool // a synthetic assistant entry standing for a failed API call
	IsMeta      bool
	// IsCompactSummary marks the user entry holding a compaction's summary,
	// right after its compact_boundary.
	IsCompactSummary bool

	// ToolDenialKind is set on the tool_result entry of a call that did not
	// run: "permission-rule" for hook and settings denials, "interrupted",
	// "user-rejected", "cancelled", …
	ToolDenialKind string
	// DenialSource is permissionDecision.source: "hook" or "config".
	DenialSource string
	// ToolUseID and ParentToolUseID tie progress and hook entries to a call.
	ToolUseID       string
	ParentToolUseID string

	Message       *Message     // nil when the line has no message
	ToolUseResult gjson.Result // the tool's structured output, beside a tool_result
}

// Message is an entry's message.
type Message struct {
	ID    string // shared by every entry of one API response
	Role  string
	Model string // "<synthetic>" on API-error entries
	// StringContent is true when message.content is a string (a typed user
	// prompt); Blocks then holds one text block with Index -1.
	StringContent bool
	Blocks        []Block
	Usage         Usage
}

// Block is one content block of a message.
type Block struct {
	Index int    // position in message.content, -1 for a string content
	Type  string // text, tool_use, tool_result, thinking, image, …

	ID    string       // tool_use: the call's id
	Name  string       // tool_use: the tool
	Input gjson.Result // tool_use: the input object

	ToolUseID string // tool_result: the call answered
	IsError   bool   // tool_result: is_error
	content   value  // tool_result: a string or an array of blocks

	// Chars is the block's body in characters (runes): the text of a text
	// block, the input JSON of a tool_use, the text of a tool_result's
	// content. Other blocks (thinking, images) count 0.
	Chars int
}

// Content is a tool_result's content as gjson reads it: a string or an array
// of blocks. It is read on demand, a string unescaped at each call: few
// readers need the text of every body.
func (b Block) Content() gjson.Result { return b.content.result() }

// ContentRaw is a tool_result's content as it stands in the line, JSON
// escapes and all ("" when there is none).
func (b Block) ContentRaw() string { return b.content.raw }

// Usage is message.usage of an assistant entry.
type Usage struct {
	InputTokens              int64
	OutputTokens             int64
	CacheReadInputTokens     int64
	CacheCreationInputTokens int64
}

// ContextTokens is the size of the context the response was computed on.
// input_tokens alone undercounts badly once prompt caching is on: the cached
// part is reported in the two cache fields.
func (u Usage) ContextTokens() int64 {
	return u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
}

// Chars is the sum of the message's block bodies, 0 without a message.
func (e *Entry) Chars() int {
	if e.Message == nil {
		return 0
	}
	n := 0
	for _, b := range e.Message.Blocks {
		n += b.Chars
	}
	return n
}

// ToolUses returns the tool_use blocks of the entry.
func (e *Entry) ToolUses() []Block { return e.blocks("tool_use") }

// ToolResults returns the tool_result blocks of the entry.
func (e *Entry) ToolResults() []Block { return e.blocks("tool_result") }

func (e *Entry) blocks(typ string) []Block {
	if e.Message == nil {
		return nil
	}
	var out []Block
	for _, b := range e.Message.Blocks {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}

// IsConversation reports whether the entry takes part in the parentUuid tree.
func (e *Entry) IsConversation() bool { return e.UUID != "" }

// Parse reads one transcript line. The line must be a JSON object in valid
// UTF-8 with a string "type"; the fields flower reads must have the types
// Claude Code writes, or Parse says which one does not. Fields it does not
// read are not checked: unknown entry types pass as long as they are JSON.
// A field written twice counts as gjson's ForEach sees it: the last one;
// but a field prune-session edits by its path (message, its content and a
// block's, parentUuid, logicalParentUuid, leafUuid, toolUseResult,
// sessionId, session_id) is refused if written twice: gjson and sjson take the first where Claude
// Code's JSON.parse takes the last, so an edit would miss what Claude Code
// reads. Claude Code never writes a key twice.
func Parse(raw []byte) (*Entry, error) { return new(line).parse(raw) }

// parse is Parse on ln, whose tape it reuses: Scan parses every line of a
// transcript on one; a tape grown anew for each line made context-audit
// and prune-session 1.1 to 1.4 times as slow (docs/BENCHMARKS.md).
func (ln *line) parse(raw []byte) (*Entry, error) {
	// A view, not a copy: a copy of every line (every line of a 50 MB
	// transcript is 50 MB of garbage) made context-audit and prune-session
	// 1.15 to 1.33 times as slow (docs/BENCHMARKS.md).
	ln.s = unsafe.String(unsafe.SliceData(raw), len(raw))
	var root value
	switch ln.Scan(ln.s) {
	case jsonscan.ScanNotUTF8:
		return nil, errors.New("not valid UTF-8")
	case jsonscan.ScanNotJSON:
		return nil, errors.New("not valid JSON")
	case jsonscan.ScanOK:
		r := ln.Root()
		root = value{raw: ln.s[r.Start:r.End], index: int(r.Start), t: ln}
	default: // too many values for a tape: checked and walked without one
		if !utf8.Valid(raw) {
			return nil, errors.New("not valid UTF-8")
		}
		if !gjson.Valid(ln.s) {
			return nil, errors.New("not valid JSON")
		}
		trimmed := strings.TrimLeft(ln.s, " \t\r\n")
		root = value{raw: strings.TrimRight(trimmed, " \t\r\n"), index: len(ln.s) - len(trimmed)}
	}
	if !root.isObject() {
		return nil, fmt.Errorf("%s, want a JSON object", jsonkind.Of(root.result()))
	}
	e := &Entry{Raw: raw}
	var err error
	str := func(dst *string, key string, v value) {
		if err == nil {
			*dst, err = wantString(key, v.result())
		}
	}
	boolean := func(dst *bool, key string, v value) {
		if err == nil {
			*dst, err = wantBool(key, v.result())
		}
	}
	var hasType bool
	var once onceFields
	eachMember(root, func(k string, v value) bool {
		if once.twice(k, editedFields[:]) {
			err = fmt.Errorf("field %q appears twice", k)
			return false
		}
		switch k {
		case "type":
			hasType = true
			if !v.isString() {
				err = fmt.Errorf(`field "type" is %s, want a string`, jsonkind.Of(v.result()))
			}
			str(&e.Type, k, v)
		case "subtype":
			// Not checked: an unknown entry may use the name for anything.
			if v.isString() {
				e.Subtype = v.result().Str
			}
		case "uuid":
			str(&e.UUID, k, v)
		case "parentUuid":
			str(&e.ParentUUID, k, v)
		case "logicalParentUuid":
			str(&e.LogicalParentUUID, k, v)
		case "leafUuid":
			str(&e.LeafUUID, k, v)
		case "sessionId":
			str(&e.SessionID, k, v)
		case "agentId":
			str(&e.AgentID, k, v)
		case "cwd":
			str(&e.Cwd, k, v)
		case "timestamp":
			str(&e.Timestamp, k, v)
		case "toolDenialKind":
			str(&e.ToolDenialKind, k, v)
		case "toolUseID":
			str(&e.ToolUseID, k, v)
		case "parentToolUseID":
			str(&e.ParentToolUseID, k, v)
		case "isSidechain":
			boolean(&e.IsSidechain, k, v)
		case "isApiErrorMessage":
			boolean(&e.IsAPIError, k, v)
		case "isMeta":
			boolean(&e.IsMeta, k, v)
		case "isCompactSummary":
			e.IsCompactSummary = v.raw == "true" // not checked either
		case "permissionDecision":
			if v.isObject() && err == nil {
				e.DenialSource, err = wantString("permissionDecision.source", v.result().Get("source"))
			}
		case "toolUseResult":
			e.ToolUseResult = v.result()
		case "message":
			if err == nil && !v.isNull() {
				e.Message, err = parseMessage(v)
			}
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if !hasType {
		return nil, errors.New(`no "type" field`)
	}
	return e, nil
}

func parseMessage(v value) (*Message, error) {
	if !v.isObject() {
		return nil, fmt.Errorf(`field "message" is %s, want an object`, jsonkind.Of(v.result()))
	}
	m := &Message{}
	var err error
	var once onceFields
	eachMember(v, func(k string, f value) bool {
		if once.twice(k, editedContent[:]) {
			err = fmt.Errorf("field %q appears twice", "message."+k)
			return false
		}
		switch k {
		case "id":
			m.ID, err = wantString("message.id", f.result())
		case "role":
			m.Role, err = wantString("message.role", f.result())
		case "model":
			m.Model, err = wantString("message.model", f.result())
		case "usage":
			if !f.isNull() {
				m.Usage, err = parseUsage(f.result())
			}
		case "content":
			err = parseContent(m, f)
		}
		return err == nil
	})
	return m, err
}

func parseContent(m *Message, v value) error {
	switch {
	case v.isNull():
		return nil
	case v.isString():
		m.StringContent = true
		m.Blocks = []Block{{Index: -1, Type: "text", Chars: v.chars()}}
		return nil
	case !v.isArray():
		return fmt.Errorf(`field "message.content" is %s, want a string or an array`, jsonkind.Of(v.result()))
	}
	var err error
	i := 0
	eachElement(v, func(b value) bool {
		var blk Block
		blk, err = parseBlock(i, b)
		m.Blocks = append(m.Blocks, blk)
		i++
		return err == nil
	})
	return err
}

func parseBlock(i int, v value) (Block, error) {
	// The field path is built only for an error: this runs for every block
	// of every line.
	at := func(field string) string { return fmt.Sprintf("message.content.%d%s", i, field) }
	if !v.isObject() {
		return Block{}, fmt.Errorf("field %q is %s, want an object", at(""), jsonkind.Of(v.result()))
	}
	b := Block{Index: i}
	var typ, text, id, name, input, toolUseID, isError, content value
	var once onceFields
	twice := false
	eachMember(v, func(k string, f value) bool {
		if once.twice(k, editedContent[:]) {
			twice = true
			return false
		}
		switch k {
		case "type":
			typ = f
		case "text":
			text = f
		case "id":
			id = f
		case "name":
			name = f
		case "input":
			input = f
		case "tool_use_id":
			toolUseID = f
		case "is_error":
			isError = f
		case "content":
			content = f
		}
		return true
	})
	if twice {
		return Block{}, fmt.Errorf("field %q appears twice", at(".content"))
	}
	if !typ.isString() {
		return Block{}, fmt.Errorf("field %q is %s, want a string", at(".type"), jsonkind.Of(v.result().Get("type")))
	}
	b.Type = typ.result().Str
	b.Input = input.result()
	b.content = value{raw: content.raw, index: content.index} // kept: without the tape, which the next line reuses
	var err error
	switch b.Type {
	case "text":
		if text.isString() {
			b.Chars = text.chars()
		} else {
			_, err = wantString(at(".text"), text.result())
		}
	case "tool_use":
		if b.ID, err = wantString("", id.result()); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".id"), jsonkind.Of(id.result()))
		}
		if b.Name, err = wantString("", name.result()); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".name"), jsonkind.Of(name.result()))
		}
		if b.Input.Exists() && !b.Input.IsObject() {
			return b, fmt.Errorf("field %q is %s, want an object", at(".input"), jsonkind.Of(b.Input))
		}
		b.Chars = utf8.RuneCountInString(b.Input.Raw)
	case "tool_result":
		if b.ToolUseID, err = wantString("", toolUseID.result()); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".tool_use_id"), jsonkind.Of(toolUseID.result()))
		}
		if b.IsError, err = wantBool("", isError.result()); err != nil {
			return b, fmt.Errorf("field %q is %s, want a boolean", at(".is_error"), jsonkind.Of(isError.result()))
		}
		if b.Chars, err = contentChars(content); err != nil {
			return b, fmt.Errorf("field %q %v", at(".content"), err)
		}
	}
	return b, err
}

// contentChars counts the text of a tool_result's content: a string, or the
// text blocks of an array (images and documents count 0).
func contentChars(v value) (int, error) {
	switch {
	case v.isNull():
		return 0, nil
	case v.isString():
		return v.chars(), nil
	case !v.isArray():
		return 0, fmt.Errorf("is %s, want a string or an array", jsonkind.Of(v.result()))
	}
	n := 0
	var err error
	eachElement(v, func(b value) bool {
		if !b.isObject() {
			err = fmt.Errorf("holds %s, want objects", jsonkind.Of(b.result()))
			return false
		}
		// The first "type" and "text", as gjson's Get takes them.
		var typ, text value
		eachMember(b, func(k string, f value) bool {
			switch {
			case k == "type" && !typ.exists():
				typ = f
			case k == "text" && !text.exists():
				text = f
			}
			return true
		})
		if typ.isString() && typ.result().Str == "text" {
			if !text.isString() {
				err = fmt.Errorf("holds a text block whose text is %s, want a string", jsonkind.Of(text.result()))
				return false
			}
			n += text.chars()
		}
		return true
	})
	return n, err
}

func parseUsage(v gjson.Result) (Usage, error) {
	if !v.IsObject() {
		return Usage{}, fmt.Errorf(`field "message.usage" is %s, want an object`, jsonkind.Of(v))
	}
	var u Usage
	var err error
	num := func(dst *int64, key string) {
		if err != nil {
			return
		}
		switch f := v.Get(key); f.Type {
		case gjson.Number:
			*dst = f.Int()
		case gjson.Null:
		default:
			err = fmt.Errorf("field %q is %s, want a number", "message.usage."+key, jsonkind.Of(f))
		}
	}
	num(&u.InputTokens, "input_tokens")
	num(&u.OutputTokens, "output_tokens")
	num(&u.CacheReadInputTokens, "cache_read_input_tokens")
	num(&u.CacheCreationInputTokens, "cache_creation_input_tokens")
	return u, err
}

// wantString is v's string, "" for a null or missing v.
func wantString(key string, v gjson.Result) (string, error) {
	switch v.Type {
	case gjson.String:
		return v.Str, nil
	case gjson.Null:
		return "", nil
	}
	return "", fmt.Errorf("field %q is %s, want a string", key, jsonkind.Of(v))
}

// wantBool is v's boolean, false for a null or missing v.
func wantBool(key string, v gjson.Result) (bool, error) {
	switch v.Type {
	case gjson.True:
		return true, nil
	case gjson.False, gjson.Null:
		return false, nil
	}
	return false, fmt.Errorf("field %q is %s, want a boolean", key, jsonkind.Of(v))
}

// The fields prune-session edits by their path, which must not appear twice
// (see Parse): on an entry, and on a message or a content block.
var (
	editedFields  = [...]string{"message", "parentUuid", "logicalParentUuid", "leafUuid", "toolUseResult", "sessionId", "session_id"}
	editedContent = [...]string{"content"}
)

// onceFields notes which of such fields an object has shown.
type onceFields uint8

// twice reports whether k is one of keys and was seen before.
func (o *onceFields) twice(k string, keys []string) bool {
	for i, key := range keys {
		if k == key {
			bit := onceFields(1) << i
			dup := *o&bit != 0
			*o |= bit
			return dup
		}
	}
	return false
}
