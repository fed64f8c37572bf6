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
	e := new(Entry)
	if err := parse(e, nil, raw, true); err != nil {
		return nil, err
	}
	return e, nil
}

// parse is Parse into e, which it overwrites. A message is read into m
// when m is not nil, reusing the array of its blocks: Scan parses every
// line of a batch into the entries of the batch before, and allocating
// an entry, a message and a block array for each line was, with the GC
// it called for, a fifth of prune-session's first pass.
//
// With own false the string fields stay views of raw (ScanViews).
func parse(e *Entry, m *Message, raw []byte, own bool) error {
	// Parsing a view of raw instead of a copy halves the cost of reading a
	// transcript: a copy of every line is 200 MB of garbage for a 200 MB
	// file. The view is safe because nothing writes to raw while the Entry
	// is in use: Raw and the gjson results are documented as valid only as
	// long as raw's bytes are, and own copies the string fields (but for
	// ScanViews, whose callers copy what they keep).
	s := unsafe.String(unsafe.SliceData(raw), len(raw))
	ln := lines.Get().(*line)
	defer func() {
		ln.s = "" // the pool keeps the tape, not the line's buffer
		lines.Put(ln)
	}()
	var root value
	switch ln.Scan(s) {
	case jsonscan.ScanNotUTF8:
		return errors.New("not valid UTF-8")
	case jsonscan.ScanNotJSON:
		return errors.New("not valid JSON")
	case jsonscan.ScanOK:
		ln.s = s
		r := ln.Root()
		root = value{raw: s[r.Start:r.End], index: int(r.Start), t: ln}
	default: // too many values for a tape: checked and walked without one
		if !utf8.Valid(raw) {
			return errors.New("not valid UTF-8")
		}
		if !jsonscan.Valid(s) {
			return errors.New("not valid JSON")
		}
		root.raw = s[jsonscan.SkipSpace(s, 0):]
		root.index = len(s) - len(root.raw)
		root.raw = strings.TrimRight(root.raw, " \t\r\n")
	}
	if !root.isObject() {
		return fmt.Errorf("%s, want a JSON object", jsonkind.Of(root.result()))
	}
	*e = Entry{Raw: raw, SessionIDIndex: -1}
	var err error
	// The strings are views of raw until own copies them.
	str := func(dst *string, key string, v value) {
		if err == nil {
			*dst, err = wantString(key, v)
		}
	}
	boolean := func(dst *bool, key string, v value) {
		if err == nil {
			*dst, err = wantBool(key, v)
		}
	}
	var hasType bool
	eachMember(root, func(k string, v value) bool {
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
				e.DenialSource, err = wantStringResult("permissionDecision.source", gjson.Get(v.raw, "source"))
			}
		case "toolUseResult":
			e.ToolUseResult = v.result()
		case "message":
			if err == nil && !v.isNull() {
				if m == nil {
					m = new(Message)
				}
				e.Message, err = m, parseMessage(m, v)
			}
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if !hasType {
		return errors.New(`no "type" field`)
	}
	if own {
		e.own(ln)
	}
	return nil
}

// parseMessage reads v into m, which it overwrites.
func parseMessage(m *Message, v value) error {
	if !v.isObject() {
		return fmt.Errorf(`field "message" is %s, want an object`, jsonkind.Of(v.result()))
	}
	*m = Message{Blocks: m.Blocks[:0]}
	var err error
	eachMember(v, func(k string, f value) bool {
		switch k {
		case "id":
			m.ID, err = wantString("message.id", f)
		case "role":
			m.Role, err = wantString("message.role", f)
		case "model":
			m.Model, err = wantString("message.model", f)
		case "usage":
			if !f.isNull() {
				m.Usage, err = parseUsage(f)
			}
		case "content":
			err = parseContent(m, f)
		}
		return err == nil
	})
	return err
}

func parseContent(m *Message, v value) error {
	switch {
	case v.isNull():
		return nil
	case v.isString():
		m.StringContent = true
		m.Blocks = append(m.Blocks[:0], Block{Index: -1, Type: "text", Chars: v.chars()})
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
	b.Type = typ.result().Str
	b.Input, b.content = input.result(), content.detached()
	var err error
	switch b.Type {
	case "text":
		if text.isString() {
			b.Chars = text.chars()
		} else {
			_, err = wantString(at(".text"), text)
		}
	case "tool_use":
		if b.ID, err = wantString("", id); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".id"), jsonkind.Of(id.result()))
		}
		if b.Name, err = wantString("", name); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".name"), jsonkind.Of(name.result()))
		}
		if b.Input.Exists() && !b.Input.IsObject() {
			return b, fmt.Errorf("field %q is %s, want an object", at(".input"), jsonkind.Of(b.Input))
		}
		b.Chars = utf8.RuneCountInString(b.Input.Raw)
	case "tool_result":
		if b.ToolUseID, err = wantString("", toolUseID); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".tool_use_id"), jsonkind.Of(toolUseID.result()))
		}
		if b.IsError, err = wantBool("", isError); err != nil {
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
		if n, ok := vals[i].smallInt(); ok {
			*dst = n
			continue
		}
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

// own copies the entry's strings, views of its line until then, so that
// they can be kept once the line is gone: into ln's arena, where a copy of
// each cost an allocation each, a dozen a line. Values that repeat become
// shared instead: the few every line takes (types, roles) are constants,
// and those of a session (its id, its cwd, the model) are the copy ln made
// for an earlier line.
func (e *Entry) own(ln *line) {
	e.SessionID = ln.shared(0, e.SessionID)
	e.Cwd = ln.shared(1, e.Cwd)
	e.AgentID = ln.shared(2, e.AgentID)
	for _, f := range [...]*string{&e.UUID, &e.ParentUUID, &e.LogicalParentUUID, &e.LeafUUID, &e.Timestamp,
		&e.ToolUseID, &e.ParentToolUseID, &e.Type, &e.ToolDenialKind, &e.DenialSource} {
		*f = ln.copy(*f)
	}
	if m := e.Message; m != nil {
		m.Model = ln.shared(3, m.Model)
		m.ID, m.Role = ln.copy(m.ID), ln.copy(m.Role)
		for i := range m.Blocks {
			b := &m.Blocks[i]
			b.ID, b.ToolUseID, b.Type, b.Name = ln.copy(b.ID), ln.copy(b.ToolUseID), ln.copy(b.Type), ln.copy(b.Name)
		}
	}
}

// constant returns the constant equal to s, for the values a field takes
// on most lines.
func constant(s string) (string, bool) {
	switch s {
	case "user":
		return "user", true
	case "assistant":
		return "assistant", true
	case "text":
		return "text", true
	case "tool_use":
		return "tool_use", true
	case "tool_result":
		return "tool_result", true
	case "Bash":
		return "Bash", true
	case "permission-rule":
		return "permission-rule", true
	case "hook":
		return "hook", true
	}
	return "", false
}

// wantString is v's string, "" for a null or missing v. A string without
// escapes is read where it stands: most are, and a gjson.Result for each
// was a tenth of reading a line.
func wantString(key string, v value) (string, error) {
	if v.isString() {
		if body := v.raw[1 : len(v.raw)-1]; strings.IndexByte(body, '\\') < 0 {
			return body, nil
		}
	}
	return wantStringResult(key, v.result())
}

func wantStringResult(key string, v gjson.Result) (string, error) {
	switch v.Type {
	case gjson.String:
		return v.Str, nil
	case gjson.Null:
		return "", nil
	}
	return "", fmt.Errorf("field %q is %s, want a string", key, jsonkind.Of(v))
}

// wantBool is v's boolean, false for a null or missing v.
func wantBool(key string, v value) (bool, error) {
	switch v.raw {
	case "true":
		return true, nil
	case "false", "null", "": // "": missing
		return false, nil
	}
	// v.raw is the value's token alone: nothing else is a boolean or null.
	return false, fmt.Errorf("field %q is %s, want a boolean", key, jsonkind.Of(v.result()))
}
