package hook

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/pkg/jsonkind"
	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// wholeCheck is the payload check as it was before validation was split
// (jsonscan.Split) and its bodies checked in the background: UTF-8 of the
// whole payload, then gjson.Valid of it, then the fields' types, read with
// gjson. It is the oracle FuzzParseAsWhole holds ParsePayload to.
func wholeCheck(raw []byte) error {
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) == 0:
		return errors.New("empty stdin: expected a hook payload (a JSON object)")
	case !utf8.Valid(raw):
		return errors.New("stdin is not valid UTF-8")
	case !gjson.ValidBytes(raw):
		return fmt.Errorf("stdin is not valid JSON (%d bytes)", len(raw))
	case trimmed[0] != '{':
		return errors.New("stdin is not a JSON object")
	}
	top := map[string]gjson.Result{}
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		if _, dup := top[k.Str]; !dup {
			top[k.Str] = v
		}
		return true
	})
	for _, f := range stringFields {
		if v := top[f]; v.Exists() && v.Type != gjson.String && v.Type != gjson.Null {
			return fmt.Errorf("payload field %q is %s, want a string", f, jsonkind.Of(v))
		}
	}
	if top["hook_event_name"].Type != gjson.String {
		return errors.New(`payload has no "hook_event_name"`)
	}
	if v := top["tool_input"]; v.Exists() && !v.IsObject() {
		return fmt.Errorf(`payload field "tool_input" is %s, want an object`, jsonkind.Of(v))
	}
	return nil
}

// FuzzParseAsWhole: ParsePayload and ReadPayloadLazily's two steps give
// every input the error the whole check gives, word for word, also with a
// long string (checked apart from the rest) before or after the input's own
// members. (Bodies from backgroundBodies up, checked in the background, are
// TestLazyValidation's: at that size the fuzzer makes a few runs a second.)
func FuzzParseAsWhole(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":7}`, `[]`, ``, " \n", `{"hook_event_name":"x","agent_id":null}`,
		"{\"hook_event_name\":\"\xff\"}", `{"hook_event_name":"x","tool_input":"s"}`,
		`{"hook_event_name":"x","cwd":1,`, `{"hook_event_name":"x","cwd":"\x"}`, "{\"hook_event_name\":\"x\",\"a\":\"\x01\"}",
		`"x"`, `{"hook_event_name":"x"}]`, `{"hook_event_name":"x","s":"\u12"}`, `{"hook_event_name":"x","s":"\`,
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, raw []byte, where uint8) {
		checkAsWhole(t, raw)
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(raw), []byte("{"))
		if !ok {
			return
		}
		// A long member whose body is the input itself, escaped or not,
		// so that a bad byte can sit in a long body as well as around it.
		body := strings.Repeat(`line\n`, jsonscan.LongString/6+1)
		if where&2 != 0 {
			body += string(raw)
		}
		long := `"_long":"` + body + `"`
		r := bytes.TrimSpace(rest)
		switch {
		case where&1 == 0 && (len(r) == 0 || r[0] == '}'):
			checkAsWhole(t, append([]byte("{"+long), rest...))
		case where&1 == 0:
			checkAsWhole(t, append([]byte("{"+long+","), rest...))
		default: // after the input's members: in place of its closing brace
			if i := bytes.LastIndexByte(raw, '}'); i > 0 {
				checkAsWhole(t, append(append(append([]byte{}, raw[:i]...), []byte(","+long)...), raw[i:]...))
			}
		}
	})
}

func checkAsWhole(t *testing.T, raw []byte) {
	t.Helper()
	want := errText(wholeCheck(raw))
	_, err := ParsePayload(raw)
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Fatalf("ParsePayload(%.200q) error (-whole +got):\n%s", raw, diff)
	}
	p, wait, err := parse(raw)
	if err == nil {
		err = wait()
		if p == nil {
			t.Fatalf("parse(%.200q) gave no payload and no error", raw)
		}
	}
	if diff := cmp.Diff(want, errText(err)); diff != "" {
		t.Fatalf("parse(%.200q) then wait: error (-whole +got):\n%s", raw, diff)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
