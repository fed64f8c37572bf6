package flowersettings

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/flowerhooks/flower/internal/capture"
)

// The capture layer's value in the settings "env": BASH_ENV names the
// capture script, which bash then reads before every Bash call of Claude
// Code. A BASH_ENV of the user's own moves to FLOWER_BASH_ENV, which the
// script reads after itself, and moves back when the layer goes.
const (
	bashEnv    = "BASH_ENV"
	chainedEnv = "FLOWER_BASH_ENV"
)

// envEntry is the Entry of the Changes to "env".
var envEntry = Entry{Layer: LayerCapture, Event: "env"}

// captureWired reports whether doc's BASH_ENV names a capture script, of
// any install.
func captureWired(doc []byte) bool {
	return capture.IsScriptPath(gjson.GetBytes(doc, "env."+bashEnv).String())
}

// wireEnv returns doc with BASH_ENV naming the capture script of the install
// in dir, and what it changed. A capture script of another install is
// replaced, as a hook of another install is moved.
func wireEnv(doc []byte, dir string) ([]byte, []Change, error) {
	if dir == "" {
		return nil, nil, errors.New("the capture layer needs --bin: BASH_ENV must name the capture script by its absolute path")
	}
	script := capture.ScriptPath(dir)
	cur := gjson.GetBytes(doc, "env."+bashEnv)
	chained := gjson.GetBytes(doc, "env."+chainedEnv)
	move := Change{Kind: Move, Entry: envEntry, Command: bashEnv + "=" + cur.Str, To: script}
	add := []Change{{Kind: Add, Entry: envEntry, Command: bashEnv + "=" + script}}
	switch {
	case cur.Str == script:
		return doc, nil, nil
	case capture.IsScriptPath(cur.Str):
		return setValue(doc, "env."+bashEnv, script), []Change{move}, nil
	case cur.Exists() && chained.Exists():
		return nil, nil, fmt.Errorf(`"env" holds %s=%s and %s=%s: the first is not flower's capture script and would be lost; `+
			`remove %s, or move %s's value there yourself; nothing was changed`,
			bashEnv, cur.Raw, chainedEnv, chained.Raw, chainedEnv, bashEnv)
	case cur.Exists():
		// The user's value moves as it is written, escapes and all, so that
		// taking the layer out gives back the same bytes.
		move.Why = "your " + bashEnv + " moves to " + chainedEnv + ", which the capture script reads after itself"
		out := insert(setValue(doc, "env."+bashEnv, script), "env", chainedEnv, json.RawMessage(cur.Raw))
		return out, []Change{move}, nil
	case gjson.GetBytes(doc, "env").Exists():
		return insert(doc, "env", bashEnv, script), add, nil
	}
	return insert(doc, "", "env", map[string]string{bashEnv: script}), add, nil
}

// unwireEnv returns doc without the capture script in BASH_ENV, and what it
// changed: the user's value comes back from FLOWER_BASH_ENV, else BASH_ENV
// goes, and with it an "env" left empty. With dir set, only the script of
// that install is taken out (an uninstall); else any (the layer is not
// wanted).
func unwireEnv(doc []byte, dir string) ([]byte, []Change) {
	cur := gjson.GetBytes(doc, "env."+bashEnv).Str
	if !capture.IsScriptPath(cur) || dir != "" && cur != capture.ScriptPath(dir) {
		return doc, nil
	}
	change := Change{Kind: Remove, Entry: envEntry, Command: bashEnv + "=" + cur}
	if chained := gjson.GetBytes(doc, "env."+chainedEnv); chained.Exists() {
		change.Why = "your " + bashEnv + " comes back from " + chainedEnv + ": " + chained.Str
		out, _ := remove(doc, "env", chainedEnv)
		return setValue(out, "env."+bashEnv, json.RawMessage(chained.Raw)), []Change{change}
	}
	out, empty := remove(doc, "env", bashEnv)
	if empty {
		out, _ = remove(out, "", "env")
	}
	return out, []Change{change}
}
