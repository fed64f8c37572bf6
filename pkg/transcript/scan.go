package transcript

import (
	"errors"
	"fmt"
	"io"
	"runtime"
)

// batchBytes is how much of the transcript one parsing job holds: big enough
// that handing jobs between goroutines costs little next to parsing them,
// small enough that the jobs in flight stay a few megabytes.
const batchBytes = 256 << 10

// batch is a run of consecutive lines parsed by one worker.
type batch struct {
	first   int // line number of lines[0]
	buf     []byte
	lines   [][]byte
	entries []*Entry
	errs    []error
	tail    error // what ended reading after the last line, if anything
	done    chan struct{}
}

// Scan reads every line of r, parses it on all CPUs, and calls fn for each
// line in order, with the entry or the error (a *LineError) that line gave.
// A line fn is called with lives until fn returns; e.Raw and the gjson
// results in e must not be kept. When fn returns an error Scan stops and
// returns it; reading errors other than a bad line are returned too. Memory
// stays bounded by a few batches in flight, whatever the file's size.
func Scan(r io.Reader, fn func(line int, e *Entry, err error) error) error {
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers)
	stop := make(chan struct{})
	defer close(stop)
	// Batches come back once fn is done with them, so their buffers are
	// reused instead of becoming a file's worth of garbage.
	free := make(chan *batch, 3*workers+1)

	go func() {
		defer close(order)
		defer close(work)
		rd := NewReader(r)
		for {
			var b *batch
			select {
			case b = <-free:
				b.buf, b.lines, b.errs, b.tail = b.buf[:0], b.lines[:0], b.errs[:0], nil
			default:
				b = &batch{}
			}
			b.first, b.done = rd.Line()+1, make(chan struct{})
			for len(b.buf) < batchBytes {
				raw, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var le *LineError
				if errors.As(err, &le) {
					// A bad line stays in its place, so fn sees lines in order.
					b.lines = append(b.lines, nil)
					b.errs = append(b.errs, err)
					continue
				}
				if err != nil {
					b.tail = err
					break
				}
				start := len(b.buf)
				b.buf = append(b.buf, raw...)
				b.lines = append(b.lines, b.buf[start:len(b.buf):len(b.buf)])
				b.errs = append(b.errs, nil)
			}
			if len(b.lines) == 0 && b.tail == nil {
				return
			}
			// Lines were sliced from buf while it grew: point them at its
			// final backing array.
			off := 0
			for i, l := range b.lines {
				if b.errs[i] == nil {
					b.lines[i] = b.buf[off : off+len(l) : off+len(l)]
					off += len(l)
				}
			}
			select {
			case order <- b:
			case <-stop:
				return
			}
			select {
			case work <- b:
			case <-stop:
				return
			}
			if b.tail != nil {
				return
			}
		}
	}()
	for range workers {
		go func() {
			for b := range work {
				b.entries = append(b.entries[:0], make([]*Entry, len(b.lines))...)
				for i, l := range b.lines {
					if b.errs[i] == nil {
						b.entries[i], b.errs[i] = safeParse(b.first+i, l)
					}
				}
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		for i := range b.lines {
			if err := fn(b.first+i, b.entries[i], b.errs[i]); err != nil {
				return err
			}
		}
		if b.tail != nil {
			return b.tail
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// safeParse is Parse on a worker goroutine, where a panic would end the
// process instead of reaching the command's recover.
func safeParse(line int, raw []byte) (e *Entry, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, &LineError{Line: line, Err: fmt.Errorf("internal error: %v", r)}
		}
	}()
	if e, err = Parse(raw); err != nil {
		return nil, &LineError{Line: line, Err: err}
	}
	return e, nil
}
