package transcript

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// parseReference is Parse as it was before it walked lines itself (commit
// cd6512d), gjson ForEach all the way down: FuzzParseReference holds Parse to
// its answers. What Parse itself reads with gjson (parseUsage, wantString,
// wantBool) it shares.
//
// It reads one transcript line. The line must be a JSON object in valid
// UTF-8 with a string "type"; the fields flower reads must have the types
// Claude Code writes, or Parse says which one does not. Fields it does not
// read are not checked: unknown entry types pass as long as they are JSON.
func parseReference(raw []byte) (*Entry, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("not valid UTF-8")
	}
	if !gjson.ValidBytes(raw) {
		return nil, errors.New("not valid JSON")
	}
	// Parsing a view of raw instead of a copy halves the cost of reading a
	// transcript: a copy of every line is 200 MB of garbage for a 200 MB file.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(raw), len(raw)))
	if !root.IsObject() {
		return nil, fmt.Errorf("%s, want a JSON object", jsonkind.Of(root))
	}
	e := &Entry{Raw: raw}
	var err error
	str := func(dst *string, key string, v gjson.Result) {
		if err == nil {
			*dst, err = wantString(key, v)
			*dst = strings.Clone(*dst)
		}
	}
	boolean := func(dst *bool, key string, v gjson.Result) {
		if err == nil {
			*dst, err = wantBool(key, v)
		}
	}
	var hasType bool
	var once onceFields
	root.ForEach(func(k, v gjson.Result) bool {
		if once.twice(k.Str, editedFields[:]) {
			err = fmt.Errorf("field %q appears twice", k.Str)
			return false
		}
		switch k.Str {
		case "type":
			hasType = true
			if v.Type != gjson.String {
				err = fmt.Errorf(`field "type" is %s, want a string`, jsonkind.Of(v))
			}
			str(&e.Type, k.Str, v)
		case "subtype":
			if v.Type == gjson.String {
				e.Subtype = strings.Clone(v.Str)
			}
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
		case "agentId":
			str(&e.AgentID, k.Str, v)
		case "cwd":
			str(&e.Cwd, k.Str, v)
		case "timestamp":
			str(&e.Timestamp, k.Str, v)
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
		case "isCompactSummary":
			e.IsCompactSummary = v.Type == gjson.True
		case "permissionDecision":
			if v.IsObject() {
				str(&e.DenialSource, "permissionDecision.source", v.Get("source"))
			}
		case "toolUseResult":
			e.ToolUseResult = v
		case "message":
			if err == nil && v.Type != gjson.Null {
				e.Message, err = parseMessageRef(v)
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

func parseMessageRef(v gjson.Result) (*Message, error) {
	if !v.IsObject() {
		return nil, fmt.Errorf(`field "message" is %s, want an object`, jsonkind.Of(v))
	}
	m := &Message{}
	var err error
	var once onceFields
	v.ForEach(func(k, f gjson.Result) bool {
		if once.twice(k.Str, editedContent[:]) {
			err = fmt.Errorf("field %q appears twice", "message."+k.Str)
			return false
		}
		switch k.Str {
		case "id":
			m.ID, err = wantString("message.id", f)
			m.ID = strings.Clone(m.ID)
		case "role":
			m.Role, err = wantString("message.role", f)
			m.Role = strings.Clone(m.Role)
		case "model":
			m.Model, err = wantString("message.model", f)
			m.Model = strings.Clone(m.Model)
		case "usage":
			if f.Type != gjson.Null {
				m.Usage, err = parseUsage(f)
			}
		case "content":
			err = parseContentRef(m, f)
		}
		return err == nil
	})
	return m, err
}

func parseContentRef(m *Message, v gjson.Result) error {
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
	i := 0
	v.ForEach(func(_, b gjson.Result) bool {
		var blk Block
		blk, err = parseBlockRef(i, b)
		m.Blocks = append(m.Blocks, blk)
		i++
		return err == nil
	})
	return err
}

func parseBlockRef(i int, v gjson.Result) (Block, error) {
	// The field path is built only for an error: this runs for every block
	// of every line, and formatting it each time cost more than the parse.
	at := func(field string) string { return fmt.Sprintf("message.content.%d%s", i, field) }
	if !v.IsObject() {
		return Block{}, fmt.Errorf("field %q is %s, want an object", at(""), jsonkind.Of(v))
	}
	b := Block{Index: i}
	var text, id, name, toolUseID, isError gjson.Result
	var hasType bool
	var once onceFields
	twice := false
	v.ForEach(func(k, f gjson.Result) bool {
		if once.twice(k.Str, editedContent[:]) {
			twice = true
			return false
		}
		switch k.Str {
		case "type":
			hasType = f.Type == gjson.String
			b.Type = f.Str
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
			b.content = value{raw: f.Raw, index: f.Index}
		}
		return true
	})
	if twice {
		return Block{}, fmt.Errorf("field %q appears twice", at(".content"))
	}
	if !hasType {
		return Block{}, fmt.Errorf("field %q is %s, want a string", at(".type"), jsonkind.Of(v.Get("type")))
	}
	b.Type = strings.Clone(b.Type)
	var err error
	switch b.Type {
	case "text":
		if _, err = wantString(at(".text"), text); err == nil {
			b.Chars = utf8.RuneCountInString(text.Str)
		}
	case "tool_use":
		if b.ID, err = wantString("", id); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".id"), jsonkind.Of(id))
		}
		if b.Name, err = wantString("", name); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".name"), jsonkind.Of(name))
		}
		b.ID, b.Name = strings.Clone(b.ID), strings.Clone(b.Name)
		if b.Input.Exists() && !b.Input.IsObject() {
			return b, fmt.Errorf("field %q is %s, want an object", at(".input"), jsonkind.Of(b.Input))
		}
		b.Chars = utf8.RuneCountInString(b.Input.Raw)
	case "tool_result":
		if b.ToolUseID, err = wantString("", toolUseID); err != nil {
			return b, fmt.Errorf("field %q is %s, want a string", at(".tool_use_id"), jsonkind.Of(toolUseID))
		}
		b.ToolUseID = strings.Clone(b.ToolUseID)
		if b.IsError, err = wantBool("", isError); err != nil {
			return b, fmt.Errorf("field %q is %s, want a boolean", at(".is_error"), jsonkind.Of(isError))
		}
		if b.Chars, err = contentCharsRef(b.content.result()); err != nil {
			return b, fmt.Errorf("field %q %v", at(".content"), err)
		}
	}
	return b, err
}

// contentCharsRef is contentChars as it was written on gjson.
func contentCharsRef(v gjson.Result) (int, error) {
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
