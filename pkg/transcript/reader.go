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
	br   *bufio.Reader
	line int
	long []byte // a line longer than the buffer, gathered
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, readBufferSize)}
}

// Next returns the next line without its newline. The bytes are valid until
// the next call. At the end it returns io.EOF; a final line without a
// newline is returned like any other. A line over MaxLineBytes is skipped and
// reported as a *LineError wrapping ErrLineTooLong; reading may go on.
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

// trimEOL drops the newline only: a "\r" before it is JSON whitespace and is
// kept, so that a line copied through stays byte-identical.
func trimEOL(b []byte) []byte { return bytes.TrimSuffix(b, []byte("\n")) }

// Scan reads every line of r and calls fn for each, in order, with the
// entry Parse made of it (its strings are views of the line: fn clones what
// it keeps) or the error (a *LineError) the line gave: a reader that counts
// bad lines goes on, one that refuses them returns the error. When fn
// returns an error Scan stops and returns it; an error reading r is
// returned too. Memory stays bounded by the longest line.
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
