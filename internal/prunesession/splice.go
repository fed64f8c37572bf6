package prunesession

import (
	"slices"
	"strings"

	"github.com/flowerhooks/flower/pkg/jsonscan"
)

// Pass two's edits as splices. sjson finds each value it sets with gjson,
// which scans the line byte by byte from its start: an edit of a line with a
// long tool result is a pass over the result for message.content.N.content,
// another for toolUseResult, another for its stdout. Measured on the bench's
// transcript, three fifths of pass two. The functions here find the same
// values with jsonscan's walks (IndexByte over long strings, nothing
// decoded), and a line's edits are made in one copy of it.
//
// They find what gjson finds for the simple paths pass two uses (the first
// member of a name, its key unescaped; an element by index) and only that:
// a path that is missing or goes through a value of another type, where
// sjson would add members or pad arrays, is reported not found, and the
// caller leaves the line to sjson.

// span is where a value stands in a line: line[start:end].
type span struct{ start, end int }

// topLevel is the span of the object a line holds.
func topLevel(line string) span { return span{jsonscan.SkipSpace(line, 0), len(line)} }

// member returns the value of the first member named key of the object at
// obj, as gjson does for a path of one key.
func member(line string, obj span, key string) (span, bool) {
	if obj.start >= obj.end || line[obj.start] != '{' {
		return span{}, false
	}
	var v span
	found := false
	jsonscan.EachMember(line[obj.start:obj.end], func(k, value string, at int) bool {
		plain := len(k) == len(key)+2 && k[1:len(k)-1] == key
		if plain || strings.IndexByte(k, '\\') >= 0 && jsonscan.Key(k) == key {
			v, found = span{obj.start + at, obj.start + at + len(value)}, true
			return false
		}
		return true
	})
	return v, found
}

// elements appends the spans of the elements of the array at arr to dst;
// ok is false when arr is not an array.
func elements(line string, arr span, dst []span) ([]span, bool) {
	if arr.start >= arr.end || line[arr.start] != '[' {
		return dst, false
	}
	i := jsonscan.SkipSpace(line, arr.start+1)
	for i < arr.end && line[i] != ']' {
		end := jsonscan.ValueEnd(line, i)
		dst = append(dst, span{i, end})
		if i = jsonscan.SkipSpace(line, end); i < arr.end && line[i] == ',' {
			i = jsonscan.SkipSpace(line, i+1)
		}
	}
	return dst, true
}

// element returns element n of the array at arr.
func element(line string, arr span, n int) (span, bool) {
	if arr.start >= arr.end || line[arr.start] != '[' || n < 0 {
		return span{}, false
	}
	i := jsonscan.SkipSpace(line, arr.start+1)
	for k := 0; i < arr.end && line[i] != ']'; k++ {
		end := jsonscan.ValueEnd(line, i)
		if k == n {
			return span{i, end}, true
		}
		if i = jsonscan.SkipSpace(line, end); i < arr.end && line[i] == ',' {
			i = jsonscan.SkipSpace(line, i+1)
		}
	}
	return span{}, false
}

// blocks returns the array at message.content.
func blocks(line string) (span, bool) {
	msg, ok := member(line, topLevel(line), "message")
	if !ok {
		return span{}, false
	}
	content, ok := member(line, msg, "content")
	if !ok || line[content.start] != '[' {
		return span{}, false
	}
	return content, true
}

// blockContent returns the value at message.content.<block>.content.
func blockContent(line string, block int) (span, bool) {
	arr, ok := blocks(line)
	if !ok {
		return span{}, false
	}
	b, ok := element(line, arr, block)
	if !ok {
		return span{}, false
	}
	return member(line, b, "content")
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
func removal(line string, remove []int) (_ []span, ok bool) {
	arr, ok := blocks(line)
	if !ok {
		return nil, false
	}
	els, _ := elements(line, arr, nil)
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
			spans = append(spans, span{els[0].start, commaBefore(line, els[stays]) + 1})
			from = stays + 1
		}
	}
	for i := from; i < len(els); i++ {
		if gone[i] {
			spans = append(spans, span{commaBefore(line, els[i]), els[i].end})
		}
	}
	return spans, true
}

// commaBefore is the index of the comma before an element that is not the
// first of its array.
func commaBefore(line string, el span) int {
	i := el.start - 1
	for line[i] != ',' {
		i--
	}
	return i
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
