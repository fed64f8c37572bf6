package hook

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/tidwall/sjson"
)

// Output builds the one JSON object a hook prints: hookSpecificOutput with the
// firing event's name (Claude Code discards the whole output when they differ)
// and the fields set on it.
type Output struct {
	buf []byte
	err error
}

// NewOutput starts an output for event.
func NewOutput(event string) *Output {
	o := &Output{buf: []byte(`{}`)}
	return o.Set("hookEventName", event)
}

// Set sets hookSpecificOutput.<field> to v, encoded with encoding/json.
func (o *Output) Set(field string, v any) *Output {
	raw, err := json.Marshal(v)
	if err != nil {
		o.err = err
		return o
	}
	return o.SetRaw(field, raw)
}

// SetRaw sets hookSpecificOutput.<field> to raw, which must be valid JSON.
func (o *Output) SetRaw(field string, raw []byte) *Output {
	if o.err != nil {
		return o
	}
	o.buf, o.err = sjson.SetRawBytes(o.buf, "hookSpecificOutput."+field, raw)
	return o
}

// WriteTo writes the object and a newline.
func (o *Output) WriteTo(w io.Writer) (int64, error) {
	if o.err != nil {
		return 0, fmt.Errorf("building output: %v", o.err)
	}
	n, err := w.Write(append(o.buf, '\n'))
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
