package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one line, and so a reader's memory: real lines are of
// a few megabytes at most (images, long file reads).
const MaxLineBytes = 64 << 20

// readBufferSize: most lines fit and are handed out without a copy.
const readBufferSize = 64 << 10

// ErrLineTooLong is a LineError's for a line over MaxLineBytes, which the
// reader skips.
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
	br   *bufio.Reader
	line int
	long []byte // a line longer than the buffer, gathered
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readBufferSize)}
}

// Next returns the next line without its newline, valid until the next
// call, or io.EOF. A line over MaxLineBytes is skipped and reported as a
// *LineError wrapping ErrLineTooLong; reading may go on.
func (r *Reader) Next() ([]byte, error) {
	r.line++
	r.long = r.long[:0]
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		ends := err == nil || err == io.EOF
		if !ends && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
		switch {
		case tooLong:
		case len(r.long)+len(trimEOL(chunk)) > MaxLineBytes:
			tooLong, r.long = true, r.long[:0]
		case ends && len(r.long) == 0:
			if len(chunk) == 0 {
				r.line--
				return nil, io.EOF
			}
			return trimEOL(chunk), nil
		default:
			r.long = append(r.long, chunk...)
		}
		if ends && tooLong {
			return nil, &LineError{Line: r.line, Err: ErrLineTooLong}
		}
		if ends {
			return trimEOL(r.long), nil
		}
	}
}

// Line is the 1-based number of the line Next last returned.
func (r *Reader) Line() int { return r.line }

// trimEOL drops the newline only: a "\r" is kept, so a copy is identical.
func trimEOL(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

// Scan calls fn for every line of r, in order, with the entry Parse made of
// it (views of the line) or its *LineError. It stops at fn's error, or at
// an error reading r, and returns it.
func Scan(r io.Reader, fn func(line int, e *Entry, err error) error) error {
	rd := NewReader(r)
	for {
		raw, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		var e *Entry
		var le *LineError
		switch {
		case err == nil:
			if e, err = Parse(raw); err != nil {
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
