package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one line, so that reading a transcript needs memory in
// proportion to its longest entry, never to the file. Real entries are far
// smaller: Claude Code cuts Bash output at 30,000 characters and persists the
// rest to a file of its own, so the largest lines are images and long file
// reads of a few megabytes.
const MaxLineBytes = 64 << 20

// readBufferSize is the read buffer: most lines fit it and are handed out
// without a copy.
const readBufferSize = 64 << 10

// ErrLineTooLong is returned (wrapped in a LineError) for a line over
// MaxLineBytes. The reader skips the rest of that line and can go on.
var ErrLineTooLong = fmt.Errorf("line longer than %d MiB", MaxLineBytes>>20)

// LineError is an error about one line of a transcript.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Reader reads a transcript line by line.
type Reader struct {
	br     *bufio.Reader
	line   int
	offset int64 // where the line last returned starts
	next   int64 // where the next line starts
	long   []byte
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readBufferSize)}
}

// Next returns the next line without its line ending. The bytes are valid
// until the next call. At the end it returns io.EOF; a final line without a
// newline is returned like any other. A line over MaxLineBytes is skipped and
// reported as a *LineError wrapping ErrLineTooLong; reading may go on.
func (r *Reader) Next() ([]byte, error) {
	r.line++
	r.offset = r.next
	r.long = r.long[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.next += int64(len(chunk))
		if len(r.long)+len(trimEOL(chunk)) > MaxLineBytes {
			if err == nil || err == io.EOF {
				r.long = r.long[:0]
				return nil, &LineError{Line: r.line, Err: ErrLineTooLong}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, r.skipLong()
			}
		}
		switch {
		case err == nil && len(r.long) == 0:
			return trimEOL(chunk), nil
		case err == nil:
			return trimEOL(append(r.long, chunk...)), nil
		case errors.Is(err, bufio.ErrBufferFull):
			r.long = append(r.long, chunk...)
		case err == io.EOF:
			if len(r.long)+len(chunk) == 0 {
				r.line--
				return nil, io.EOF
			}
			return trimEOL(append(r.long, chunk...)), nil
		default:
			return nil, err
		}
	}
}

// skipLong discards the rest of an over-long line.
func (r *Reader) skipLong() error {
	r.long = r.long[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.next += int64(len(chunk))
		if err == nil || err == io.EOF {
			return &LineError{Line: r.line, Err: ErrLineTooLong}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// Line is the 1-based number of the line Next last returned.
func (r *Reader) Line() int { return r.line }

// Offset is the byte offset where the line Next last returned starts.
func (r *Reader) Offset() int64 { return r.offset }

// trimEOL drops the newline only: a "\r" before it is JSON whitespace and is
// kept, so that a line copied through stays byte-identical.
func trimEOL(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

// Scan reads every line of r and calls fn for each, in order, with the
// entry Parse made of it (its strings are views of the line: fn clones what
// it keeps) or the error (a *LineError) the line gave: a
// reader that counts bad lines goes on, one that refuses them returns the
// error. When fn returns an error Scan stops and returns it; an error
// reading r is returned too. Memory stays bounded by the longest line.
func Scan(r io.Reader, fn func(line int, e *Entry, err error) error) error {
	rd := NewReader(r)
	var ln line
	for {
		raw, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var e *Entry
		var le *LineError
		switch {
		case err == nil:
			if e, err = ln.parse(raw); err != nil {
				err = &LineError{Line: rd.Line(), Err: err}
			}
		case !errors.As(err, &le):
			return err
		}
		if err := fn(rd.Line(), e, err); err != nil {
			return err
		}
	}
}
