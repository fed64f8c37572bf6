package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// numbered is lines lines, each its number and enough filler that the
// transcript spans many batches.
func numbered(lines int) string {
	var b strings.Builder
	for n := 1; n <= lines; n++ {
		fmt.Fprintf(&b, "%d %s\n", n, strings.Repeat("x", n%5000))
	}
	return b.String()
}

// TestTransform: the outputs come in the order of the lines on any number
// of workers, each worker's state is its own, and the error returned is the
// first in the order of the lines, whichever worker met it first.
func TestTransform(t *testing.T) {
	const lines = 2000 // about 5 MB: twenty batches
	in := numbered(lines)
	upper := func() LineFunc {
		return func(n int, raw, out []byte) ([]byte, error) {
			if !bytes.HasPrefix(raw, fmt.Appendf(nil, "%d ", n)) {
				return out, fmt.Errorf("line %d is %.10q", n, raw)
			}
			if n%3 == 0 {
				return out, nil // dropped
			}
			out = append(out, bytes.ToUpper(raw)...)
			return append(out, '\n'), nil
		}
	}
	var want strings.Builder
	for n, l := range strings.SplitAfter(in, "\n") {
		if l != "" && (n+1)%3 != 0 {
			want.WriteString(strings.ToUpper(l))
		}
	}
	for _, workers := range []int{0, 1, 2, 7} {
		t.Run(fmt.Sprintf("%d workers", workers), func(t *testing.T) {
			var out bytes.Buffer
			n, err := Transform(strings.NewReader(in), &out, workers, upper)
			if err != nil {
				t.Fatal(err)
			}
			if n != lines {
				t.Errorf("read %d lines, want %d", n, lines)
			}
			if out.String() != want.String() {
				t.Errorf("the output differs from the lines transformed in order")
			}
		})
	}

	errAt := func(bad ...int) func() LineFunc {
		return func() LineFunc {
			return func(n int, raw, out []byte) ([]byte, error) {
				for _, b := range bad {
					if n == b {
						if b%2 == 0 {
							panic("boom")
						}
						return out, fmt.Errorf("bad %d", n)
					}
				}
				return append(out, raw...), nil
			}
		}
	}
	tests := []struct {
		name string
		bad  []int
		want string
	}{
		{"one error", []int{1501}, "bad 1501"},
		{"the first of two, the later in an earlier batch", []int{1999, 1001}, "bad 1001"},
		{"a panic", []int{1500}, "line 1500: internal error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Transform(strings.NewReader(in), &bytes.Buffer{}, 2, errAt(tt.bad...))
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	t.Run("write error", func(t *testing.T) {
		_, err := Transform(strings.NewReader(in), failingWriter{}, 2, errAt())
		if !errors.Is(err, errFailing) {
			t.Errorf("got %v, want %v", err, errFailing)
		}
	})
}

var errFailing = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errFailing }

// cut is what a pipeline's reader makes of in: each line, or its error.
func cut(t *testing.T, r io.Reader, maxLine int) []string {
	t.Helper()
	p := newPipeline(1)
	p.maxLine = maxLine
	defer close(p.stop)
	go p.readBatches(r)
	var got []string
	for b := range p.order {
		<-p.work
		for i, l := range b.lines {
			if b.errs[i] != nil {
				got = append(got, fmt.Sprintf("%d error: %v", b.first+i, b.errs[i]))
			} else {
				got = append(got, fmt.Sprintf("%d %q", b.first+i, l))
			}
		}
		if b.tail != nil {
			got = append(got, fmt.Sprintf("tail: %v", b.tail))
		}
	}
	return got
}

// read is what a Reader makes of in, in cut's form.
func read(r io.Reader) []string {
	rd := NewReader(r)
	var got []string
	for {
		l, err := rd.Next()
		switch {
		case errors.Is(err, io.EOF):
			return got
		case err != nil:
			var le *LineError
			if !errors.As(err, &le) {
				return append(got, fmt.Sprintf("tail: %v", err))
			}
			got = append(got, fmt.Sprintf("%d error: %v", rd.Line(), err))
		default:
			got = append(got, fmt.Sprintf("%d %q", rd.Line(), l))
		}
	}
}

// TestReadBatches: the batches hold the lines a Reader reads, whatever the
// sizes of the reads, lines longer than a batch included.
func TestReadBatches(t *testing.T) {
	long := strings.Repeat("y", batchBytes+readChunk+3)
	inputs := map[string]string{
		"empty":                  "",
		"one line":               "a\n",
		"no final newline":       "a\nb",
		"empty lines":            "\n\na\n\n",
		"carriage returns":       "a\r\nb\r\n\r",
		"many batches":           numbered(1500),
		"a line longer than one": "a\n" + long + "\nb\n" + long,
		"only a long line":       long,
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"halves":   func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for name, in := range inputs {
		for rname, r := range readers {
			if rname == "one byte" && len(in) > 1<<20 {
				continue // slow, and halves covers the boundaries
			}
			t.Run(name+"/"+rname, func(t *testing.T) {
				want := read(strings.NewReader(in))
				if diff := cmp.Diff(want, cut(t, r(in), MaxLineBytes)); diff != "" {
					t.Errorf("(-Reader +batches):\n%s", diff)
				}
			})
		}
	}
}

// TestReadBatchesLimits: a line over the limit is reported in its place and
// skipped, and a read error ends the batches after the whole lines before
// it.
func TestReadBatchesLimits(t *testing.T) {
	tests := []struct {
		name string
		r    io.Reader
		want []string
	}{
		{"over the limit", strings.NewReader("abc\nabcdefgh\nab\nabcdefghij"), []string{
			`1 "abc"`, "2 error: line 2: line longer than 64 MiB", `3 "ab"`, "4 error: line 4: line longer than 64 MiB"}},
		{"over the limit, read a byte at a time", iotest.OneByteReader(strings.NewReader("abcdefgh\nab\n")), []string{
			"1 error: line 1: line longer than 64 MiB", `2 "ab"`}},
		{"at the limit", strings.NewReader("abcde\n"), []string{`1 "abcde"`}},
		{"read error", io.MultiReader(strings.NewReader("a\nb\nhalf"), iotest.ErrReader(errFailing)), []string{
			`1 "a"`, `2 "b"`, "tail: disk full"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cut(t, tt.r, 5)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTransformStopsWorkers: once Transform has returned, no LineFunc runs.
// prune-session's LineFunc writes spill files; one still running after
// Transform gave up would write them after the command said it wrote
// nothing, or be killed halfway when the process exits.
func TestTransformStopsWorkers(t *testing.T) {
	in := numbered(2000)
	fails := map[string]func(n int) (error, io.Writer){
		"a line fails": func(n int) (error, io.Writer) {
			if n == 300 {
				return errFailing, &bytes.Buffer{}
			}
			return nil, &bytes.Buffer{}
		},
		"the writer fails": func(int) (error, io.Writer) { return nil, failingWriter{} },
	}
	for name, fail := range fails {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%d workers", name, workers), func(t *testing.T) {
				var returned atomic.Bool
				var late atomic.Int64 // LineFunc calls begun after Transform returned
				_, w := fail(0)
				_, err := Transform(strings.NewReader(in), w, workers, func() LineFunc {
					return func(n int, raw, out []byte) ([]byte, error) {
						if returned.Load() {
							late.Add(1)
						}
						if err, _ := fail(n); err != nil {
							return out, err
						}
						// Slow enough that the batches after the failing
						// one are still being worked on when it fails.
						if n%10 == 0 {
							time.Sleep(100 * time.Microsecond)
						}
						return append(out, raw...), nil
					}
				})
				returned.Store(true)
				if !errors.Is(err, errFailing) {
					t.Fatalf("got %v, want %v", err, errFailing)
				}
				time.Sleep(50 * time.Millisecond) // time for a worker left running to show itself
				if n := late.Load(); n != 0 {
					t.Errorf("the LineFunc ran %d times after Transform returned", n)
				}
			})
		}
	}
}

// TestScanReusesEntries: Scan parses each line into an entry used before
// for another line. Lines of every shape in turn (with and without a
// message, more blocks then fewer, a string content, a bad line) must come
// out as Parse gives them fresh, with strings that stay as they were once
// the entry is reused. ScanViews gives the same entries, whose strings
// need only last the callback.
func TestScanReusesEntries(t *testing.T) {
	for _, views := range []bool{false, true} {
		t.Run(map[bool]string{false: "Scan", true: "ScanViews"}[views], func(t *testing.T) { testScanReuses(t, views) })
	}
}

func testScanReuses(t *testing.T, views bool) {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(recorded)) {
		lines = append(lines, recorded[k])
	}
	lines = append(lines,
		`{"type":"user","message":{"role":"user","content":"typed"},"sessionId":"s2","cwd":"/other"}`,
		`not json`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"tool_use","id":"t2","name":"Read","input":{}}]}}`,
		`{"type":"progress","toolUseID":"t1"}`,
	)
	var doc []byte
	for range 800 { // many batches' worth, so that slots are reused
		for _, l := range lines {
			doc = append(append(doc, l...), '\n')
		}
	}
	type kept struct {
		line int
		e    *Entry // a deep copy of the strings, taken in fn
	}
	var got []kept
	err := scan(bytes.NewReader(doc), !views, func(n int, e *Entry, err error) error {
		if n%5 != 0 {
			return nil // cmp is slow: a fifth of the lines, every shape in turn
		}
		want, wantErr := Parse([]byte(lines[(n-1)%len(lines)]))
		if diff := cmp.Diff(errString(wantErr), errString(errors.Unwrap(err))); diff != "" {
			t.Fatalf("line %d: errors (-Parse +Scan):\n%s", n, diff)
		}
		if err != nil {
			return nil
		}
		want.Raw = e.Raw
		if diff := cmp.Diff(want, e, cmp.Comparer(sameResult), cmp.AllowUnexported(Block{}), cmp.Comparer(sameValue)); diff != "" {
			t.Fatalf("line %d (-Parse +Scan):\n%s", n, diff)
		}
		if n%97 == 0 && !views {
			c := *e // the strings alone: they must outlive the entry
			c.Raw, c.Message, c.ToolUseResult = nil, nil, gjson.Result{}
			got = append(got, kept{n, &c})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range got {
		want, _ := Parse([]byte(lines[(k.line-1)%len(lines)]))
		want.Raw, want.Message, want.ToolUseResult = nil, nil, gjson.Result{}
		if diff := cmp.Diff(want, k.e, cmp.Comparer(sameResult)); diff != "" {
			t.Errorf("line %d, strings kept past the callback (-Parse +kept):\n%s", k.line, diff)
		}
	}
}
