// Package jsonkind names the kind of a JSON value for error messages, so that
// every command words a wrong-typed field the same way ("is an object, want a
// string").
package jsonkind

import "github.com/tidwall/gjson"

// Of returns "missing", "null", "a boolean", "a number", "a string",
// "an array" or "an object".
func Of(v gjson.Result) string {
	switch {
	case !v.Exists():
		return "missing"
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True, v.Type == gjson.False:
		return "a boolean"
	case v.Type == gjson.String:
		return "a string"
	}
	return "null"
}
