package prunesession

import (
	"slices"
	"strings"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Pass two's edits as splices. sjson finds each value it sets with gjson,
// which scans the line byte by byte from its start: an edit of a line with a
// long tool result is a pass over the result for message.content.N.content,
// another for toolUseResult, another for its stdout: measured on the
// bench's transcript, three fifths of pass two. The functions here find the
// same values with jsonscan's walks (IndexByte over long strings, nothing
// decoded), the top-level members in one walk, and a line's edits are made
// in one copy of it: pass two of the bench's 200 MB transcript went from
// 184 ms to 86 ms (BenchmarkRewrite on one CPU, 21 ms to 12 ms).
//
// They find what gjson finds for the simple paths pass two uses (the first
// member of a name, its key unescaped; an element by index) and only that:
// a path that is missing or goes through a value of another type, where
// sjson would add members or pad arrays, is reported not found, and the
// caller leaves the line to sjson.

// span is where a value stands in a line: line[start:end]. The zero span
// is a value not found (a value is never empty).
type span struct{ start, end int }

func (v span) found() bool { return v.end > v.start }

// walkMembers calls fn with the key (as written) of each member of the
// object at line[obj] and where its value starts, until fn returns false;
// it returns false when line[obj] is not an object. It computes no value's
// end but to step over it: descending into a value, a path does not scan
// it twice.
func walkMembers(line string, obj int, fn func(key string, at int) bool) bool {
	if obj < 0 || obj >= len(line) || line[obj] != '{' {
		return false
	}
	for i := jsonscan.SkipSpace(line, obj+1); i < len(line) && line[i] == '"'; {
		kend := jsonscan.StringEnd(line, i)
		at := jsonscan.SkipSpace(line, jsonscan.SkipSpace(line, kend)+1) // past the colon
		if !fn(line[i:kend], at) {
			return true
		}
		// Only a comma goes on: on a line that is not JSON, the walk
		// stops instead of going round.
		if i = jsonscan.SkipSpace(line, jsonscan.ValueEnd(line, at)); i >= len(line) || line[i] != ',' {
			break
		}
		i = jsonscan.SkipSpace(line, i+1)
	}
	return true
}

// keyIs reports whether key, as written, is name once unescaped: gjson
// matches the path's key against the member's key unescaped.
func keyIs(key, name string) bool {
	if len(key) == len(name)+2 && key[1:len(key)-1] == name {
		return true
	}
	return len(key) >= 2 && strings.IndexByte(key, '\\') >= 0 && jsonscan.Key(key) == name
}

// memberAt returns where the value of the first member named key of the
// object at line[obj] starts, as gjson finds it for a path of one key.
func memberAt(line string, obj int, key string) (int, bool) {
	at, found := 0, false
	walkMembers(line, obj, func(k string, i int) bool {
		if keyIs(k, key) {
			at, found = i, true
		}
		return !found
	})
	return at, found && at < len(line)
}

// members sets vals[i] to the value of the first member named keys[i] of
// the object at line[obj], all in one walk that stops once each is found;
// a key "" is not looked for, and a value not found keeps the zero span.
// It returns false when line[obj] is not an object.
func members(line string, obj int, keys []string, vals []span) bool {
	left := 0
	for _, k := range keys {
		if k != "" {
			left++
		}
	}
	return walkMembers(line, obj, func(k string, at int) bool {
		for i, name := range keys {
			if name != "" && !vals[i].found() && keyIs(k, name) {
				vals[i] = span{at, jsonscan.ValueEnd(line, at)}
				left--
				break
			}
		}
		return left > 0
	})
}

// elementAt returns where element n of the array at line[arr] starts.
func elementAt(line string, arr, n int) (int, bool) {
	if arr < 0 || arr >= len(line) || line[arr] != '[' || n < 0 {
		return 0, false
	}
	i := jsonscan.SkipSpace(line, arr+1)
	for k := 0; i < len(line) && line[i] != ']'; k++ {
		if k == n {
			return i, true
		}
		if i = jsonscan.SkipSpace(line, jsonscan.ValueEnd(line, i)); i >= len(line) || line[i] != ',' {
			break
		}
		i = jsonscan.SkipSpace(line, i+1)
	}
	return 0, false
}

// elements returns the spans of the elements of the array at line[arr];
// ok is false when it is not an array.
func elements(line string, arr int) (els []span, ok bool) {
	if arr < 0 || arr >= len(line) || line[arr] != '[' {
		return nil, false
	}
	jsonscan.EachElement(line[arr:], func(v string, at int) bool {
		els = append(els, span{arr + at, arr + at + len(v)})
		return true
	})
	return els, true
}

// blocksAt returns where the array of the message's content starts, msg
// being where the message starts.
func blocksAt(line string, msg int) (int, bool) {
	at, ok := memberAt(line, msg, "content")
	if !ok || line[at] != '[' {
		return 0, false
	}
	return at, true
}

// blockContent returns the value at <message>.content.<block>.content, msg
// being where the message starts.
func blockContent(line string, msg, block int) (span, bool) {
	arr, ok := blocksAt(line, msg)
	if !ok {
		return span{}, false
	}
	b, ok := elementAt(line, arr, block)
	if !ok {
		return span{}, false
	}
	var v [1]span
	members(line, b, []string{"content"}, v[:])
	return v[0], v[0].found()
}

// removal is what sjson.DeleteBytes takes out of the line for each of
// message.content.<i>, i in remove, deleted from the highest index to the
// lowest as apply does; ok is false when an index is missing or repeated.
//
// sjson deletes an element with the comma before it, and the first element
// with the comma after it (and the space before that comma). The deletions
// of higher elements come first, so what follows the first element when it
// goes is the comma before the lowest element that stays: everything up to
// that comma goes with it.
func removal(line string, msg int, remove []int) (_ []span, ok bool) {
	arr, ok := blocksAt(line, msg)
	if !ok {
		return nil, false
	}
	els, _ := elements(line, arr)
	gone := make([]bool, len(els))
	for _, i := range remove {
		if i < 0 || i >= len(els) || gone[i] {
			return nil, false
		}
		gone[i] = true
	}
	var spans []span
	from := 1 // elements below it go in the first element's span
	if len(els) > 0 && gone[0] {
		if stays := slices.Index(gone, false); stays < 0 {
			spans = append(spans, els[0])
		} else {
			spans = append(spans, span{els[0].start, commaBefore(line, els[stays-1], els[stays]) + 1})
			from = stays + 1
		}
	}
	for i := from; i < len(els); i++ {
		if gone[i] {
			spans = append(spans, span{commaBefore(line, els[i-1], els[i]), els[i].end})
		}
	}
	return spans, true
}

// commaBefore is the index of the comma between two elements.
func commaBefore(line string, prev, el span) int {
	return prev.end + strings.IndexByte(line[prev.end:el.start], ',')
}

// splice replaces line[start:end] with text.
type splice struct {
	span
	text string
	// body, when above 0, says that text is the new body of replacement
	// body-1 of the line's edit: known only once the splices are found to
	// fit, since making it may write a spill file.
	body int
}

// ordered sorts the splices of a line and reports whether they can be made
// in one copy: false when two overlap or start at the same place, where the
// edits would depend on their order (a fallback to sjson keeps it).
func ordered(ss []splice) bool {
	slices.SortFunc(ss, func(a, b splice) int { return a.start - b.start })
	for i := 1; i < len(ss); i++ {
		if ss[i].start <= ss[i-1].start || ss[i].start < ss[i-1].end {
			return false
		}
	}
	return true
}

// spliceLine appends line with its ordered splices made to dst.
func spliceLine(dst []byte, line string, ss []splice) []byte {
	at := 0
	for _, s := range ss {
		dst = append(dst, line[at:s.start]...)
		dst = append(dst, s.text...)
		at = s.end
	}
	return append(dst, line[at:]...)
}
