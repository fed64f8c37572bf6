package flowersettings

import (
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
	"github.com/flowerhooks/flower/pkg/jsonkind"
)

// The capture layer is wired by a value in the settings "env" beside its
// hook entry: BASH_ENV names the capture script (package capture), which
// bash then reads before every Bash call of Claude Code. A BASH_ENV of the
// user's own is never lost: it moves to FLOWER_BASH_ENV, which the script
// reads after itself and hands back to the shells a command starts, and it
// moves back to BASH_ENV when the layer goes.
const (
	envKey     = "env"
	bashEnv    = "BASH_ENV"
	chainedEnv = "FLOWER_BASH_ENV"
)

// envEvent is the Event of the Changes that edit "env".
const envEvent = "env"

// envString reports the string at env.<key>; ok is false when it is
// missing. Validate has checked its type.
func envString(doc []byte, key string) (value gjson.Result, ok bool) {
	v := gjson.GetBytes(doc, envKey+"."+gjson.Escape(key))
	return v, v.Exists()
}

// validateEnv checks the part of "env" the capture layer edits: an object,
// with string values at BASH_ENV and FLOWER_BASH_ENV.
func validateEnv(doc []byte) error {
	env := gjson.GetBytes(doc, envKey)
	if !env.Exists() {
		return nil
	}
	if !env.IsObject() {
		return fmt.Errorf(`"env" is %s, want an object; nothing was changed`, jsonkind.Of(env))
	}
	for _, key := range []string{bashEnv, chainedEnv} {
		if v := env.Get(gjson.Escape(key)); v.Exists() && v.Type != gjson.String {
			return fmt.Errorf(`"env.%s" is %s, want a string; nothing was changed`, key, jsonkind.Of(v))
		}
	}
	return nil
}

// captureWired reports whether doc's BASH_ENV names a capture script, of
// any install.
func captureWired(doc []byte) bool {
	v, ok := envString(doc, bashEnv)
	return ok && capture.IsScriptPath(v.String())
}

// wireEnv returns doc with BASH_ENV naming the capture script of the
// install in dir, the user's own BASH_ENV moved to FLOWER_BASH_ENV, and
// what it changed. A capture script of another install is replaced, as a
// hook of another install is moved.
func wireEnv(doc []byte, dir string) ([]byte, []Change, error) {
	script := capture.ScriptPath(dir)
	entry := Entry{Layer: LayerCapture, Event: envEvent}
	cur, has := envString(doc, bashEnv)
	chained, hasChained := envString(doc, chainedEnv)
	switch {
	case has && cur.String() == script:
		return doc, nil, nil
	case has && capture.IsScriptPath(cur.String()):
		out := replaceValue(doc, envKey+"."+bashEnv, marshal(script))
		return out, []Change{{Kind: Move, Entry: entry, Command: bashEnv + "=" + cur.String(), To: script}}, nil
	case has && hasChained:
		return nil, nil, fmt.Errorf(`"env" holds %s=%s and %s=%s: the first is not flower's capture script and would be lost; `+
			`remove %s, or move %s's value there yourself; nothing was changed`,
			bashEnv, cur.Raw, chainedEnv, chained.Raw, chainedEnv, bashEnv)
	case has:
		// The user's value moves as it is written (escapes and all), so
		// that taking the layer out gives back the same bytes.
		out := replaceValue(doc, envKey+"."+bashEnv, marshal(script))
		c, _ := locate(out, envKey)
		out = appendChild(out, c, chainedEnv, []byte(cur.Raw))
		return out, []Change{{Kind: Move, Entry: entry, Command: bashEnv + "=" + cur.String(), To: script,
			Why: "your " + bashEnv + " moves to " + chainedEnv + ", which the capture script reads after itself"}}, nil
	}
	out := doc
	if c, ok := locate(doc, envKey); ok {
		out = appendChild(out, c, bashEnv, marshal(script))
	} else {
		c, _ := locate(doc, "")
		out = appendChild(out, c, envKey, append(append([]byte(`{`+string(marshal(bashEnv))+`:`), marshal(script)...), '}'))
	}
	return out, []Change{{Kind: Add, Entry: entry, Command: bashEnv + "=" + script}}, nil
}

// unwireEnv returns doc without the capture script in BASH_ENV, and what it
// changed: the user's value comes back from FLOWER_BASH_ENV, else BASH_ENV
// goes, and with it an "env" left empty. With dir set, only the script of
// that install is taken out (an uninstall); else any capture script (the
// layer is not wanted).
func unwireEnv(doc []byte, dir string) ([]byte, []Change) {
	cur, has := envString(doc, bashEnv)
	if !has || !capture.IsScriptPath(cur.String()) || dir != "" && cur.String() != capture.ScriptPath(dir) {
		return doc, nil
	}
	entry := Entry{Layer: LayerCapture, Event: envEvent}
	change := Change{Kind: Remove, Entry: entry, Command: bashEnv + "=" + cur.String()}
	if chained, ok := envString(doc, chainedEnv); ok {
		out := removeMember(doc, envKey, chainedEnv)
		out = replaceValue(out, envKey+"."+bashEnv, []byte(chained.Raw))
		change.Why = "your " + bashEnv + " comes back from " + chainedEnv + ": " + chained.String()
		return out, []Change{change}
	}
	out := removeMember(doc, envKey, bashEnv)
	if len(gjson.GetBytes(out, envKey).Map()) == 0 {
		out = removeMember(out, "", envKey)
	}
	return out, []Change{change}
}

// errCaptureNeedsSpill is the --layers error for capture without layer 3:
// spill-guard on PostToolUse is what shows the model a successful call's
// captured output; without it the model would see only the marker.
var errCaptureNeedsSpill = errors.New("the capture layer needs layer 3: spill-guard shows the model what it captured (use --layers 1,2,3,capture)")

// envString is an "env" change as printed, one line.
func (c Change) envString() string {
	var s string
	switch c.Kind {
	case Add:
		s = "+ env " + c.Command
	case Move:
		s = "~ env " + c.Command + " -> " + c.To
	default:
		s = "- env " + c.Command
	}
	if c.Why != "" {
		return s + " (layer " + c.Entry.Layer + "; " + c.Why + ")"
	}
	return s + " (layer " + c.Entry.Layer + ")"
}
