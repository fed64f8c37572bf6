package hook

import (
	"encoding/json"
	"io"
)

// Output builds the one JSON object a hook prints: hookSpecificOutput with
// the firing event's name (Claude Code discards the whole output when they
// differ) and the fields set on it, in the order they were set.
type Output struct {
	buf []byte // the object so far, without its two closing braces
	msg string // systemMessage: shown to the person, not to the model
}

// NewOutput starts an output for event.
func NewOutput(event string) *Output {
	o := &Output{buf: []byte(`{"hookSpecificOutput":{`)}
	return o.Set("hookEventName", event)
}

// Set sets the field to the string v. Each field is set once.
func (o *Output) Set(field, v string) *Output {
	raw, _ := json.Marshal(v) // a string always encodes
	return o.SetRaw(field, raw)
}

// SetRaw sets the field to raw, which must be valid JSON.
func (o *Output) SetRaw(field string, raw []byte) *Output {
	if o.buf[len(o.buf)-1] != '{' {
		o.buf = append(o.buf, ',')
	}
	key, _ := json.Marshal(field)
	o.buf = append(append(append(o.buf, key...), ':'), raw...)
	return o
}

// SystemMessage adds a line to the output's systemMessage, which Claude
// Code shows the person and not the model.
func (o *Output) SystemMessage(line string) *Output {
	if o.msg != "" {
		line = o.msg + "\n" + line
	}
	o.msg = line
	return o
}

// WriteTo writes the object and a newline.
func (o *Output) WriteTo(w io.Writer) (int64, error) {
	out := o.buf
	if o.msg != "" {
		msg, _ := json.Marshal(o.msg)
		out = append(append(append([]byte(`{"systemMessage":`), msg...), ','), o.buf[1:]...)
	}
	n, err := w.Write(append(out, "}}\n"...))
	return int64(n), err
}

// Decision is a PreToolUse output with permissionDecision decision
// (allow, deny, ask or defer) and its reason.
func Decision(decision, reason string) *Output {
	o := NewOutput("PreToolUse").Set("permissionDecision", decision)
	if reason != "" {
		o.Set("permissionDecisionReason", reason)
	}
	return o
}
