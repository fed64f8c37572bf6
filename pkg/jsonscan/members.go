package jsonscan

import (
	"strings"

	"github.com/tidwall/gjson"
)

// EachMember calls fn with each member of the JSON object obj, in order,
// until fn returns false: the key as written (a string token, quotes and
// escapes included), the value as written, and where the value starts in
// obj. obj must be valid JSON; if it is not an object, fn is never called.
//
// It finds ends with ValueEnd and decodes nothing: gjson's ForEach scans a
// member byte by byte and unescapes every string it passes, which for a
// payload carrying a 50 MB tool result is 50 MB scanned and copied for a
// member nobody asked for.
func EachMember(obj string, fn func(key, value string, at int) bool) {
	Ends(nil).EachMember(obj, 0, fn)
}

// EachMember is EachMember for obj, the part of the document that starts
// at its index base.
func (e Ends) EachMember(obj string, base int, fn func(key, value string, at int) bool) {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	for i = SkipSpace(obj, i+1); i < len(obj) && obj[i] == '"'; {
		kend := e.StringEnd(obj, base, i) // keys are strings too, long ones in e
		key := obj[i:kend]
		i = SkipSpace(obj, SkipSpace(obj, kend)+1) // past the colon
		vend := e.ValueEnd(obj, base, i)
		if !fn(key, obj[i:vend], i) {
			return
		}
		if i = SkipSpace(obj, vend); i < len(obj) && obj[i] == ',' {
			i = SkipSpace(obj, i+1)
		}
	}
}

// EachElement calls fn with each element of the JSON array arr, in order,
// until fn returns false: the element as written and where it starts in
// arr. If arr is not an array, fn is never called. It finds ends as
// EachMember does; on text that is not JSON it stops where a comma should
// be and is not, instead of going round.
func EachElement(arr string, fn func(value string, at int) bool) {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	for i = SkipSpace(arr, i+1); i < len(arr) && arr[i] != ']'; {
		end := ValueEnd(arr, i)
		if !fn(arr[i:end], i) {
			return
		}
		if i = SkipSpace(arr, end); i >= len(arr) || arr[i] != ',' {
			return
		}
		i = SkipSpace(arr, i+1)
	}
}

// Key is a key as EachMember gives it (a string token), unescaped. A key
// without a backslash, as nearly all are, is not copied.
func Key(key string) string {
	if inner := key[1 : len(key)-1]; strings.IndexByte(inner, '\\') < 0 {
		return inner
	}
	return gjson.Parse(key).Str
}

// Result is the gjson.Result of a value as written (as EachMember gives
// it), found at index at of its document: what gjson's ForEach gives for a
// member. An object or array is not read until asked for, and a string
// without escapes is not copied.
func Result(value string, at int) gjson.Result {
	var r gjson.Result
	if value[0] == '"' && strings.IndexByte(value, '\\') < 0 {
		r = gjson.Result{Type: gjson.String, Raw: value, Str: value[1 : len(value)-1]}
	} else {
		r = gjson.Parse(value)
	}
	r.Index = at
	return r
}
