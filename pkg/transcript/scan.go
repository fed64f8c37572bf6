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

// batch is a run of consecutive lines handled by one worker.
type batch struct {
	first   int // line number of lines[0]
	buf     []byte
	lines   [][]byte
	entries []*Entry // Scan: the parsed lines
	errs    []error
	out     []byte // Transform: the lines' output
	err     error  // Transform: the first error of the batch
	tail    error  // what ended reading after the last line, if anything
	done    chan struct{}
}

// pipeline is the batches of one Scan or Transform: a goroutine reads them
// (readBatches), workers fill them, and the caller takes them in order.
type pipeline struct {
	work  chan *batch // to the workers
	order chan *batch // to the caller, in the order of the lines
	stop  chan struct{}
	// Batches come back once the caller is done with them, so their
	// buffers are reused instead of becoming a file's worth of garbage.
	free chan *batch
}

func newPipeline(workers int) *pipeline {
	return &pipeline{
		work:  make(chan *batch, workers),
		order: make(chan *batch, 2*workers),
		stop:  make(chan struct{}),
		free:  make(chan *batch, 3*workers+1),
	}
}

// recycle hands a batch the caller is done with back to the reader.
func (p *pipeline) recycle(b *batch) {
	select {
	case p.free <- b:
	default:
	}
}

// readBatches reads r into batches and sends each to order and work until r
// ends, reading fails or stop is closed; then it closes both.
func (p *pipeline) readBatches(r io.Reader) {
	defer close(p.order)
	defer close(p.work)
	rd := NewReader(r)
	for {
		var b *batch
		select {
		case b = <-p.free:
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
				// A bad line stays in its place, so the caller sees lines
				// in order.
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
		case p.order <- b:
		case <-p.stop:
			return
		}
		select {
		case p.work <- b:
		case <-p.stop:
			return
		}
		if b.tail != nil {
			return
		}
	}
}

// Scan reads every line of r, parses it on all CPUs, and calls fn for each
// line in order, with the entry or the error (a *LineError) that line gave.
// A line fn is called with lives until fn returns; e.Raw and the gjson
// results in e must not be kept. When fn returns an error Scan stops and
// returns it; reading errors other than a bad line are returned too. Memory
// stays bounded by a few batches in flight, whatever the file's size.
func Scan(r io.Reader, fn func(line int, e *Entry, err error) error) error {
	workers := runtime.GOMAXPROCS(0)
	p := newPipeline(workers)
	defer close(p.stop)
	go p.readBatches(r)
	for range workers {
		go func() {
			for b := range p.work {
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
	for b := range p.order {
		<-b.done
		for i := range b.lines {
			if err := fn(b.first+i, b.entries[i], b.errs[i]); err != nil {
				return err
			}
		}
		if b.tail != nil {
			return b.tail
		}
		p.recycle(b)
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

// LineFunc appends what line n (raw, without its newline) becomes to out
// and returns out. An error stops Transform.
type LineFunc func(n int, raw, out []byte) ([]byte, error)

// Transform reads every line of r, turns each into output with a LineFunc
// on each of workers goroutines, and writes the outputs to w in the order of
// the lines. Each worker calls newWorker once and uses the LineFunc it
// returns for all its lines, so that state kept in it (a scratch buffer, a
// count) needs no lock. Transform returns the number of lines read, and the
// first error in the order of the lines: a LineFunc's, a bad line's (a
// *LineError), a read's or a write's. Memory stays bounded by a few batches
// in flight, as with Scan.
func Transform(r io.Reader, w io.Writer, workers int, newWorker func() LineFunc) (int, error) {
	workers = max(workers, 1)
	p := newPipeline(workers)
	defer close(p.stop)
	go p.readBatches(r)
	for range workers {
		fn := newWorker()
		go func() {
			for b := range p.work {
				b.out, b.err = b.out[:0], nil
				for i, l := range b.lines {
					if b.err = b.errs[i]; b.err != nil {
						break
					}
					if b.out, b.err = safeTransform(fn, b.first+i, l, b.out); b.err != nil {
						break
					}
				}
				close(b.done)
			}
		}()
	}
	lines := 0
	for b := range p.order {
		<-b.done
		if b.err != nil {
			return lines, b.err
		}
		lines = b.first + len(b.lines) - 1
		if _, err := w.Write(b.out); err != nil {
			return lines, err
		}
		if b.tail != nil {
			return lines, b.tail
		}
		p.recycle(b)
	}
	return lines, nil
}

// safeTransform is fn on a worker goroutine, where a panic would end the
// process instead of reaching the command's recover.
func safeTransform(fn LineFunc, n int, raw, out []byte) (_ []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &LineError{Line: n, Err: fmt.Errorf("internal error: %v", r)}
		}
	}()
	return fn(n, raw, out)
}
