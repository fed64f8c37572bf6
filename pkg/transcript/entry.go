package transcript

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsoncheck"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// Entry is what flower reads from one transcript line. Its strings and
// gjson results are views of Raw (with Scan, valid until fn returns): a
// reader clones what it keeps.
type Entry struct {
	Raw     []byte
	Type    string // user, assistant, system, attachment, progress, last-prompt, …
	Subtype string // of system entries: compact_boundary, api_error, local_command, …

	UUID              string
	ParentUUID        string // "" for a root
	LogicalParentUUID string // set on compaction boundaries
	LeafUUID          string // set on last-prompt and summary entries
	SessionID         string
	Cwd               string

	IsSidechain bool // a subagent's entry, in its own transcript or (CLI 1.0) inline
	IsAPIError  bool // a synthetic assistant entry standing for a failed API call
	IsMeta      bool

	// ToolDenialKind is set on the tool_result entry of a call that did not
	// run: "permission-rule", "interrupted", "user-rejected", "cancelled", …
	ToolDenialKind string
	DenialSource   string // permissionDecision.source: "hook" or "config"
	// ToolUseID and ParentToolUseID tie progress and hook entries to a call.
	ToolUseID       string
	ParentToolUseID string

	Message       *Message     // nil when the line has no message
	ToolUseResult gjson.Result // the tool's structured output, beside a tool_result
}

// Message is an entry's message.
type Message struct {
	ID string // shared by every entry of one API response
	// StringContent: message.content is a string (a typed prompt), and
	// Blocks one text block with Index -1.
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

	ToolUseID string       // tool_result: the call answered
	IsError   bool         // tool_result: is_error
	content   gjson.Result // tool_result: a string or an array of blocks

	// Chars is the block's body in runes: a text block's text, a tool_use's
	// input JSON, a tool_result's text; other blocks count 0.
	Chars int
}

// Content is a tool_result's content: a string or an array of blocks.
func (b Block) Content() gjson.Result { return b.content }

// ContentRaw is a tool_result's content as it stands in the line, JSON
// escapes and all ("" when there is none).
func (b Block) ContentRaw() string { return b.content.Raw }

// Usage is message.usage of an assistant entry.
type Usage struct {
	InputTokens              int64
	OutputTokens             int64
	CacheReadInputTokens     int64
	CacheCreationInputTokens int64
}

// ContextTokens is the size of the context the response was computed on:
// with prompt caching, most of it is in the two cache fields.
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

// MaxDepth bounds how deep a line nests (the check's stack grows with it);
// Claude Code's JSON.stringify gives up long before.
const MaxDepth = 100_000

// Parse reads one transcript line: a JSON object in valid UTF-8, nested at
// most MaxDepth deep, with no key twice (gjson and sjson take the first,
// Claude Code the last) and a string "type"; the fields flower reads must
// have the types Claude Code writes. Other fields are not checked.
func Parse(raw []byte) (*Entry, error) {
	// A view, not a copy: the entry's strings are views of the line.
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	if err := jsoncheck.Check(s, MaxDepth); err != nil {
		var ce *jsoncheck.Error
		switch {
		case errors.As(err, &ce) && ce.Repeated:
			return nil, fmt.Errorf("field %q appears twice", strings.TrimPrefix(ce.Path+"."+ce.Key, "."))
		case !utf8.Valid(raw):
			return nil, errors.New("not valid UTF-8")
		}
		return nil, errors.New("not valid JSON")
	}
	root := gjson.Parse(s)
	if !root.IsObject() {
		return nil, fmt.Errorf("%s, want a JSON object", jsonkind.Of(root))
	}
	root.Index = len(s) - len(root.Raw) // Parse leaves it 0 past leading spaces
	e := &Entry{Raw: raw}
	var err error
	str := func(dst *string, key string, v gjson.Result) {
		*dst, err = wantString(key, v)
	}
	boolean := func(dst *bool, key string, v gjson.Result) {
		*dst, err = wantBool(key, v)
	}
	hasType := false
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			hasType = true
			if v.Type != gjson.String {
				err = fmt.Errorf(`field "type" is %s, want a string`, jsonkind.Of(v))
			}
			e.Type = v.Str
		case "subtype":
			e.Subtype = v.Str // not checked: an unknown entry may use the name for anything
		case "uuid":
			str(&e.UUID, k.Str, v)
		case "parentUuid":
			str(&e.ParentUUID, k.Str, v)
		case "logicalParentUuid":
			str(&e.LogicalParentUUID, k.Str, v)
		case "leafUuid":
			str(&e.LeafUUID, k.Str, v)
		case "sessionId":
			str(&e.SessionID, k.Str, v)
		case "cwd":
			str(&e.Cwd, k.Str, v)
		case "toolDenialKind":
			str(&e.ToolDenialKind, k.Str, v)
		case "toolUseID":
			str(&e.ToolUseID, k.Str, v)
		case "parentToolUseID":
			str(&e.ParentToolUseID, k.Str, v)
		case "isSidechain":
			boolean(&e.IsSidechain, k.Str, v)
		case "isApiErrorMessage":
			boolean(&e.IsAPIError, k.Str, v)
		case "isMeta":
			boolean(&e.IsMeta, k.Str, v)
		case "permissionDecision":
			if v.IsObject() {
				str(&e.DenialSource, "permissionDecision.source", v.Get("source"))
			}
		case "toolUseResult":
			e.ToolUseResult = v
		case "message":
			if v.Type != gjson.Null {
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

func parseMessage(v gjson.Result) (*Message, error) {
	if !v.IsObject() {
		return nil, fmt.Errorf(`field "message" is %s, want an object`, jsonkind.Of(v))
	}
	m := &Message{}
	var err error
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "id":
			m.ID, err = wantString("message.id", f)
		case "usage":
			if f.Type != gjson.Null {
				m.Usage, err = parseUsage(f)
			}
		case "content":
			err = m.parseContent(f)
		}
		return err == nil
	})
	return m, err
}

func (m *Message) parseContent(v gjson.Result) error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String:
		m.StringContent = true
		m.Blocks = []Block{{Index: -1, Type: "text", Chars: utf8.RuneCountInString(v.Str)}}
		return nil
	case !v.IsArray():
		return fmt.Errorf(`field "message.content" is %s, want a string or an array`, jsonkind.Of(v))
	}
	var err error
	v.ForEach(func(_, b gjson.Result) bool {
		var blk Block
		blk, err = parseBlock(len(m.Blocks), b)
		m.Blocks = append(m.Blocks, blk)
		return err == nil
	})
	return err
}

func parseBlock(i int, v gjson.Result) (Block, error) {
	// The field's name is built only for an error: this runs for every block.
	wrong := func(field, want string, f gjson.Result) error {
		return fmt.Errorf("field %q is %s, want %s", fmt.Sprintf("message.content.%d%s", i, field), jsonkind.Of(f), want)
	}
	if !v.IsObject() {
		return Block{}, wrong("", "an object", v)
	}
	b := Block{Index: i}
	var typ, text, id, name, toolUseID, isError gjson.Result
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = f
		case "text":
			text = f
		case "id":
			id = f
		case "name":
			name = f
		case "input":
			b.Input = f
		case "tool_use_id":
			toolUseID = f
		case "is_error":
			isError = f
		case "content":
			b.content = f
		}
		return true
	})
	if typ.Type != gjson.String {
		return b, wrong(".type", "a string", typ)
	}
	b.Type = typ.Str
	var err error
	switch b.Type {
	case "text":
		if text.Type != gjson.String {
			return b, wrong(".text", "a string", text)
		}
		b.Chars = utf8.RuneCountInString(text.Str)
	case "tool_use":
		if b.ID, err = wantString("", id); err != nil {
			return b, wrong(".id", "a string", id)
		}
		if b.Name, err = wantString("", name); err != nil {
			return b, wrong(".name", "a string", name)
		}
		if b.Input.Exists() && !b.Input.IsObject() {
			return b, wrong(".input", "an object", b.Input)
		}
		b.Chars = utf8.RuneCountInString(b.Input.Raw)
	case "tool_result":
		if b.ToolUseID, err = wantString("", toolUseID); err != nil {
			return b, wrong(".tool_use_id", "a string", toolUseID)
		}
		if b.IsError, err = wantBool("", isError); err != nil {
			return b, wrong(".is_error", "a boolean", isError)
		}
		if b.Chars, err = contentChars(b.content); err != nil {
			return b, fmt.Errorf("field %q %v", fmt.Sprintf("message.content.%d.content", i), err)
		}
	}
	return b, nil
}

// contentChars counts the text of a tool_result's content: a string, or the
// text blocks of an array (images and documents count 0).
func contentChars(v gjson.Result) (int, error) {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return 0, nil
	case v.Type == gjson.String:
		return utf8.RuneCountInString(v.Str), nil
	case !v.IsArray():
		return 0, fmt.Errorf("is %s, want a string or an array", jsonkind.Of(v))
	}
	n := 0
	var err error
	v.ForEach(func(_, b gjson.Result) bool {
		if !b.IsObject() {
			err = fmt.Errorf("holds %s, want objects", jsonkind.Of(b))
			return false
		}
		if b.Get("type").Str == "text" {
			t := b.Get("text")
			if t.Type != gjson.String {
				err = fmt.Errorf("holds a text block whose text is %s, want a string", jsonkind.Of(t))
				return false
			}
			n += utf8.RuneCountInString(t.Str)
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
	for _, f := range []struct {
		dst *int64
		key string
	}{
		{&u.InputTokens, "input_tokens"},
		{&u.OutputTokens, "output_tokens"},
		{&u.CacheReadInputTokens, "cache_read_input_tokens"},
		{&u.CacheCreationInputTokens, "cache_creation_input_tokens"},
	} {
		switch n := v.Get(f.key); n.Type {
		case gjson.Number:
			*f.dst = n.Int()
		case gjson.Null:
		default:
			return u, fmt.Errorf("field %q is %s, want a number", "message.usage."+f.key, jsonkind.Of(n))
		}
	}
	return u, nil
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
