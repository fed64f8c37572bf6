package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
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
	spans   []span
	entries []*Entry // Scan: the parsed lines
	// slots hold the entries, reused from batch to batch: see parse.
	slots []slot
	errs  []error
	out   []byte // Transform: the lines' output
	err   error  // Transform: the first error of the batch
	tail  error  // what ended reading after the last line, if anything
	done  chan struct{}
}

// pipeline is the batches of one Scan or Transform: a goroutine reads them
// (readBatches), workers fill them, and the caller takes them in order.
type pipeline struct {
	work  chan *batch // to the workers
	order chan *batch // to the caller, in the order of the lines
	stop  chan struct{}
	// Batches come back once the caller is done with them, so their
	// buffers are reused instead of becoming a file's worth of garbage.
	free    chan *batch
	maxLine int // MaxLineBytes but in tests
}

func newPipeline(workers int) *pipeline {
	return &pipeline{
		work:  make(chan *batch, workers),
		order: make(chan *batch, 2*workers),
		stop:  make(chan struct{}),
		free:  make(chan *batch, 3*workers+1),
		// A line's length is checked as bytes come in, so a line over
		// the limit is dropped as soon as it is known to be one.
		maxLine: MaxLineBytes,
	}
}

// recycle hands a batch the caller is done with back to the reader.
func (p *pipeline) recycle(b *batch) {
	select {
	case p.free <- b:
	default:
	}
}

// readChunk is the least room a read into a batch's buffer is given: the
// size of Reader's buffer.
const readChunk = readBufferSize

// maxEmptyReads is how many reads in a row may return nothing before
// readBatches gives up, as bufio does.
const maxEmptyReads = 100

// span is one line of a batch: where it is in the buffer, or its error.
type span struct {
	start, end int
	err        error
}

// readBatches reads r into batches and sends each to order and work until r
// ends, reading fails or stop is closed; then it closes both.
//
// It reads straight into the batches' buffers and cuts the lines there, as
// Reader cuts them (the newline dropped, a last line without one kept, a
// line over maxLine reported and skipped). Reading lines with a Reader and
// copying them into the batch cost a copy of the whole file: measured, 4% of
// prune-session's CPU, which reads its transcript twice.
func (p *pipeline) readBatches(r io.Reader) {
	defer close(p.order)
	defer close(p.work)
	var (
		carry    []byte // the start of the line the last batch ended in
		line     int    // lines cut so far
		skipping bool   // dropping the rest of a line over maxLine
		eof      bool
		rerr     error
		empty    int // reads in a row that returned nothing
	)
	for !eof && rerr == nil {
		var b *batch
		select {
		case b = <-p.free:
		default:
			b = &batch{buf: make([]byte, 0, batchBytes+readChunk)}
		}
		b.buf, b.lines, b.errs, b.spans, b.tail = append(b.buf[:0], carry...), b.lines[:0], b.errs[:0], b.spans[:0], nil
		b.first, b.done = line+1, make(chan struct{})
		start, scan := 0, 0 // where the current line starts; where its newline may be
		for {
			for {
				i := bytes.IndexByte(b.buf[scan:], '\n')
				if i < 0 {
					break
				}
				end := scan + i
				if skipping {
					skipping = false
				} else {
					line++
					b.spans = append(b.spans, p.lineSpan(line, start, end))
				}
				start, scan = end+1, end+1
			}
			scan = len(b.buf)
			if !skipping && len(b.buf)-start > p.maxLine {
				line++
				b.spans = append(b.spans, span{err: &LineError{Line: line, Err: ErrLineTooLong}})
				skipping = true
			}
			if skipping {
				// The line is dropped as it is read: it needs no memory.
				b.buf, scan = b.buf[:start], start
			}
			if start >= batchBytes || eof || rerr != nil {
				break
			}
			b.buf = slices.Grow(b.buf, readChunk)
			n, err := r.Read(b.buf[len(b.buf):cap(b.buf)])
			b.buf = b.buf[:len(b.buf)+n]
			switch {
			case errors.Is(err, io.EOF):
				eof = true
			case err != nil:
				rerr = err
			case n == 0:
				if empty++; empty == maxEmptyReads {
					rerr = io.ErrNoProgress
				}
			default:
				empty = 0
			}
		}
		carry = carry[:0]
		if start < len(b.buf) {
			switch {
			case rerr != nil: // the line read when reading failed is lost, as with Reader
			case eof && !skipping:
				line++
				b.spans = append(b.spans, p.lineSpan(line, start, len(b.buf)))
			case !eof:
				carry = append(carry, b.buf[start:]...)
			}
		}
		b.tail = rerr
		for _, sp := range b.spans {
			var l []byte
			if sp.err == nil {
				l = b.buf[sp.start:sp.end:sp.end]
			}
			b.lines = append(b.lines, l)
			b.errs = append(b.errs, sp.err)
		}
		if len(b.lines) == 0 && b.tail == nil {
			return
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
	}
}

// lineSpan is line n, from start to end of the buffer, or its error when it
// is over maxLine.
func (p *pipeline) lineSpan(n, start, end int) span {
	if end-start > p.maxLine {
		return span{err: &LineError{Line: n, Err: ErrLineTooLong}}
	}
	return span{start: start, end: end}
}

// Scan reads every line of r, parses it on all CPUs, and calls fn for each
// line in order, with the entry or the error (a *LineError) that line gave.
// A line fn is called with lives until fn returns, and so does e, which
// Scan reuses for a later line: e's string fields can be kept, but not e,
// its message or blocks, e.Raw or the gjson results in e. When fn returns
// an error Scan stops and returns it; reading errors other than a bad line
// are returned too. Memory stays bounded by a few batches in flight,
// whatever the file's size.
func Scan(r io.Reader, fn func(line int, e *Entry, err error) error) error {
	return scan(r, true, fn)
}

// ScanViews is Scan with e's string fields left as views of the line, so
// that they too live only until fn returns: fn copies what it keeps. It
// saves copying every line's strings (uuids, timestamps, ids), which a
// caller that keeps few of them, such as prune-session's plan, pays for
// for nothing: measured, a seventh of reading a line.
func ScanViews(r io.Reader, fn func(line int, e *Entry, err error) error) error {
	return scan(r, false, fn)
}

func scan(r io.Reader, own bool, fn func(line int, e *Entry, err error) error) error {
	workers := runtime.GOMAXPROCS(0)
	p := newPipeline(workers)
	defer close(p.stop)
	go p.readBatches(r)
	for range workers {
		go func() {
			for b := range p.work {
				b.entries = append(b.entries[:0], make([]*Entry, len(b.lines))...)
				if len(b.slots) < len(b.lines) {
					b.slots = append(b.slots, make([]slot, len(b.lines)-len(b.slots))...)
				}
				for i, l := range b.lines {
					if b.errs[i] == nil {
						b.entries[i], b.errs[i] = safeParse(b.first+i, &b.slots[i], l, own)
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

// slot is where Scan parses a line: an entry and its message.
type slot struct {
	e Entry
	m Message
}

// safeParse is Parse into s on a worker goroutine, where a panic would end
// the process instead of reaching the command's recover.
func safeParse(line int, s *slot, raw []byte, own bool) (e *Entry, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, &LineError{Line: line, Err: fmt.Errorf("internal error: %v", r)}
		}
	}()
	if err = parse(&s.e, &s.m, raw, own); err != nil {
		return nil, &LineError{Line: line, Err: err}
	}
	return &s.e, nil
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
// *LineError), a read's or a write's. No LineFunc runs once Transform has
// returned: one may have effects (prune-session's writes spill files), and
// after an error those must stop with it. Memory stays bounded by a few
// batches in flight, as with Scan.
func Transform(r io.Reader, w io.Writer, workers int, newWorker func() LineFunc) (int, error) {
	workers = max(workers, 1)
	p := newPipeline(workers)
	var wg sync.WaitGroup
	defer func() {
		close(p.stop)
		wg.Wait()
	}()
	go p.readBatches(r)
	for range workers {
		fn := newWorker()
		wg.Go(func() {
			for {
				var b *batch
				select {
				case b = <-p.work:
				case <-p.stop:
					return
				}
				if b == nil {
					return // work closed: every line is done
				}
				b.out, b.err = b.out[:0], nil
				for i, l := range b.lines {
					if p.stopped() {
						// Transform is returning: the batch is not wanted.
						return
					}
					if b.err = b.errs[i]; b.err != nil {
						break
					}
					if b.out, b.err = safeTransform(fn, b.first+i, l, b.out); b.err != nil {
						break
					}
				}
				close(b.done)
			}
		})
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

// stopped reports whether the caller has stopped taking batches.
func (p *pipeline) stopped() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
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
