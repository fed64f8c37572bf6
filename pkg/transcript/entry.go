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

// Entry is what flower reads from one transcript line. Raw is the line
// itself, not copied. The string fields are copies and can be kept; the gjson
// results (Block.Input, Block.Content(), ToolUseResult) point into Raw and are
// valid only while Raw's bytes are (with a Reader: until its next call).
type Entry struct {
	Raw  []byte
	Type string // user, assistant, system, attachment, progress, last-prompt, …

	UUID              string
	ParentUUID        string // "" for a root
	LogicalParentUUID string // set on compaction boundaries
	LeafUUID          string // set on last-prompt and summary entries
	SessionID         string
	// SessionIDIndex is where the sessionId value (its opening quote)
	// starts in Raw, -1 when the entry has none: a rewrite of the id can
	// go straight there.
	SessionIDIndex int
	AgentID        string // set in subagent transcripts
	Cwd            string
	Timestamp      string

	IsSidechain bool // true for every entry of a subagent transcript
	IsAPIError  bool // a synthetic assistant entry standing for a failed API call
	IsMeta      bool

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
// of blocks. It is read on demand, a string unescaped at each call: Parse
// leaves it alone because unescaping every body cost a third of the parse,
// and few readers need the text.
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
func Parse(raw []byte) (*Entry, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("not valid UTF-8")
	}
	// Parsing a view of raw instead of a copy halves the cost of reading a
	// transcript: a copy of every line is 200 MB of garbage for a 200 MB
	// file. The view is safe because nothing writes to raw while the Entry
	// is in use: Raw and the gjson results are documented as valid only as
	// long as raw's bytes are, and the copied string fields are cloned.
	line := value{raw: unsafe.String(unsafe.SliceData(raw), len(raw))}
	// jsonscan.Valid accepts what gjson.Valid does, checking long string
	// bodies eight bytes a step: measured, gjson's validstring was 12% of
	// prune-session's CPU on the bench's 200 MB transcript.
	if !jsonscan.Valid(line.raw) {
		return nil, errors.New("not valid JSON")
	}
	line.raw = line.raw[jsonscan.SkipSpace(line.raw, 0):]
	line.index = len(raw) - len(line.raw)
	line.raw = strings.TrimRight(line.raw, " \t\r\n")
	if !line.isObject() {
		return nil, fmt.Errorf("%s, want a JSON object", jsonkind.Of(line.result()))
	}
	e := &Entry{Raw: raw, SessionIDIndex: -1}
	var err error
	str := func(dst *string, key string, v value) {
		if err == nil {
			*dst, err = wantString(key, v.result())
			*dst = strings.Clone(*dst)
		}
	}
	boolean := func(dst *bool, key string, v value) {
		if err == nil {
			*dst, err = wantBool(key, v.result())
		}
	}
	var hasType bool
	eachMember(line, func(k string, v value) bool {
		switch k {
		case "type":
			hasType = true
			if !v.isString() {
				err = fmt.Errorf(`field "type" is %s, want a string`, jsonkind.Of(v.result()))
			}
			str(&e.Type, k, v)
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
			e.SessionIDIndex = v.index
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
		case "permissionDecision":
			if v.isObject() && err == nil {
				e.DenialSource, err = wantString("permissionDecision.source", gjson.Get(v.raw, "source"))
				e.DenialSource = strings.Clone(e.DenialSource)
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
	eachMember(v, func(k string, f value) bool {
		switch k {
		case "id":
			m.ID, err = wantString("message.id", f.result())
			m.ID = strings.Clone(m.ID)
		case "role":
			m.Role, err = wantString("message.role", f.result())
			m.Role = strings.Clone(m.Role)
		case "model":
			m.Model, err = wantString("message.model", f.result())
			m.Model = strings.Clone(m.Model)
		case "usage":
			if !f.isNull() {
				m.Usage, err = parseUsage(f)
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
		m.Blocks = []Block{{Index: -1, Type: "text", Chars: stringChars(v.raw)}}
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
	// of every line, and formatting it each time cost more than the parse.
	at := func(field string) string { return fmt.Sprintf("message.content.%d%s", i, field) }
	if !v.isObject() {
		return Block{}, fmt.Errorf("field %q is %s, want an object", at(""), jsonkind.Of(v.result()))
	}
	b := Block{Index: i}
	var typ, text, id, name, input, toolUseID, isError, content value
	eachMember(v, func(k string, f value) bool {
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
	if !typ.isString() {
		return Block{}, fmt.Errorf("field %q is %s, want a string", at(".type"), jsonkind.Of(gjson.Get(v.raw, "type")))
	}
	b.Type = strings.Clone(typ.result().Str)
	b.Input, b.content = input.result(), content
	var err error
	switch b.Type {
	case "text":
		if text.isString() {
			b.Chars = stringChars(text.raw)
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
		b.ID, b.Name = strings.Clone(b.ID), strings.Clone(b.Name)
		if b.Input.Exists() && !b.Input.IsObject() {
			return b, fmt.Errorf("field %q is %s, want an object", at(".input"), jsonkind.Of(b.Input))
		}
		b.Chars = utf8.RuneCountInString(b.Input.Raw)
	case "tool_result":
		if b.ToolUseID, err = wantString("", toolUseID.result()); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".tool_use_id"), jsonkind.Of(toolUseID.result()))
		}
		b.ToolUseID = strings.Clone(b.ToolUseID)
		if b.IsError, err = wantBool("", isError.result()); err != nil {
			return b, fmt.Errorf("field %q is %s, want a boolean", at(".is_error"), jsonkind.Of(isError.result()))
		}
		if content.isString() {
			b.Chars = stringChars(content.raw)
		} else if b.Chars, err = contentChars(content.result()); err != nil {
			return b, fmt.Errorf("field %q %v", at(".content"), err)
		}
	}
	return b, err
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

func parseUsage(v value) (Usage, error) {
	if !v.isObject() {
		return Usage{}, fmt.Errorf(`field "message.usage" is %s, want an object`, jsonkind.Of(v.result()))
	}
	keys := [...]string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}
	var vals [len(keys)]value
	eachMember(v, func(k string, f value) bool {
		for i, key := range keys {
			if k == key && !vals[i].exists() { // the first one, as gjson's Get takes
				vals[i] = f
			}
		}
		return true
	})
	var u Usage
	for i, dst := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.CacheReadInputTokens, &u.CacheCreationInputTokens} {
		switch f := vals[i].result(); f.Type {
		case gjson.Number:
			*dst = f.Int()
		case gjson.Null:
		default:
			if f.Exists() {
				return u, fmt.Errorf("field %q is %s, want a number", "message.usage."+keys[i], jsonkind.Of(f))
			}
		}
	}
	return u, nil
}

func wantString(key string, v gjson.Result) (string, error) {
	switch v.Type {
	case gjson.String:
		return v.Str, nil
	case gjson.Null:
		return "", nil
	}
	return "", fmt.Errorf("field %q is %s, want a string", key, jsonkind.Of(v))
}

func wantBool(key string, v gjson.Result) (bool, error) {
	switch v.Type {
	case gjson.True:
		return true, nil
	case gjson.False, gjson.Null:
		return false, nil
	}
	return false, fmt.Errorf("field %q is %s, want a boolean", key, jsonkind.Of(v))
}
