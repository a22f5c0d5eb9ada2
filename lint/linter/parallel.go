package linter

import (
	"bufio"
	"io"
	"sync"
	"sync/atomic"
)

// parallel lints with workers goroutines. Each one reads batches of lines
// (batchReader.read, one worker at a time), builds them (parse, schema,
// single-message rules) and applies them itself: the ordered stage (the
// sequence rules, the stream's state) sees the batches in input order, each
// applied by the worker that built it, when it is due (the batch before it
// applied). A worker applies the units of the batch due as it builds them, one
// at a time, and then builds the next line in the memory of the one it
// applied, as the serial loop does; the batches it read while another's was
// due wait, built, until theirs is due. A worker waits only when none of its
// batches is free (or no line is left) and none is due, or for room in the
// in-flight budget.
//
// Each batch's trees are read by the core that wrote them: the design this
// replaced handed a built batch to whichever worker was applying, and on this
// project's 2-vCPU machine, in the periods when data moving between its two
// cores is slow, two workers then took 1.5 times the CPU of one (1.2 times
// this way); see the measurements in .ci/bench/notes.md.
//
// With cores set, the stream starts with one worker and adds one, up to
// workers, each time a worker reads a batch while cores has a free one; an
// added worker gives its core back when it is done.
func (s *stream) parallel(r io.Reader, workers int, cores *Cores) error {
	p := &pipeline{s: s, budget: newByteBudget(inflightBytes), max: workers, cores: cores}
	p.reader = &batchReader{lr: &lineReader{br: bufio.NewReaderSize(r, 256*1024), s: s, mu: &p.mu}, budget: p.budget}
	n := workers
	if cores != nil {
		n = 1
	}
	p.started.Store(int64(n))
	for range n {
		p.start(false)
	}
	p.wg.Wait()
	return p.reader.err
}

// start starts a worker; extra says it holds a core of p.cores.
func (p *pipeline) start(extra bool) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if extra {
			defer p.cores.Give()
		}
		w := &worker{p: p, bld: newBuilder(nil, p.s.path, &p.s.opts, false)}
		for range batchesPerWorker(p.max) {
			w.free = append(w.free, &batch{mem: newUnitMem()})
		}
		w.run()
	}()
}

// grow starts one more worker if the stream has fewer than p.max and p.cores
// has a free core.
func (p *pipeline) grow() {
	n := p.started.Load()
	if n >= int64(p.max) || !p.cores.tryExtra() {
		return
	}
	if !p.started.CompareAndSwap(n, n+1) {
		p.cores.Give() // another worker grew the stream first
		return
	}
	if testHookGrew != nil {
		testHookGrew()
	}
	p.start(true)
}

// testHookGrew, when set by a test, sees each worker a stream adds.
var testHookGrew func()

// batchesPerWorker is how many batches a worker has: one it builds, and room
// for those it reads while another worker's batch is due. Two workers with two
// each waited for a free batch now and then (the t100k transcript's median wall
// time 0.22 s against 0.21 with three). With more workers the ordered stage,
// about a third of the work, is the bottleneck, so two each should keep them
// busy (not measured: this machine has two cores) while the batches in flight,
// each up to 256 KiB of lines and their trees (about 8 KiB a line), stay two
// per worker.
func batchesPerWorker(workers int) int {
	if workers <= 2 {
		return 3
	}
	return 2
}

// pipeline is what parallel's workers share.
type pipeline struct {
	s *stream
	// mu guards the stream: held to apply units, and by the reader to report
	// a line it skipped (an over-long line).
	mu     sync.Mutex
	reader *batchReader
	budget *byteBudget
	// next is the number of the batch due in the ordered stage. It changes
	// only when a batch is through, just before the batch's bytes are
	// returned to the budget: the budget's waiters wake to both.
	next atomic.Int64
	// max is the most workers the stream has; started how many it started;
	// cores, when set, lends it those past the first (grow).
	max     int
	started atomic.Int64
	cores   *Cores
	wg      sync.WaitGroup
}

// worker is one goroutine of parallel, with its batches.
type worker struct {
	p    *pipeline
	bld  *builder
	free []*batch // batches to read into
	// pending are the batches read and not yet through the ordered stage, in
	// input order.
	pending []*batch
	// ended says the reader told this worker that no line is left.
	ended bool
}

// batch is a run of consecutive lines one worker reads, builds and applies.
type batch struct {
	seq   int // its number in the order of reading
	first int // index of the first unit
	size  int // bytes of its lines, the weight it holds of the in-flight budget
	// ends are where the lines end in mem's block (the reader appends them
	// there; each unit's tree points into its line).
	ends []int
	nums []int
	outs []unitOut
	// built and applied count the units built and applied (the owner's alone).
	built, applied int
	mem            *unitMem // the lines, trees and messages of outs, reset when the batch is read into again
}

// A batch closes at batchLines lines or batchBytes bytes, whichever comes first.
// The batch size was measured for the design before this one, where a built
// batch went to whichever worker applied (ab.py on a 100k-message transcript,
// medians of 30 interleaved rounds, two workers against one): 1.07× the CPU for
// 1.77× the wall-clock throughput with 96 lines, 1.07× for 1.78× with 128;
// smaller batches cost hand-overs (64: 1.19× for 1.57×).
const (
	batchLines = 96
	batchBytes = 256 << 10
)

// inflightBytes bounds the bytes of the lines read but not yet through the
// ordered stage (their trees and results die with them). One line larger than the
// budget is still let through, alone: memory stays bounded by the budget plus one
// message (MaxMessage), whatever the lines' sizes. A variable for the tests.
var inflightBytes = 16 << 20

// testHookApplied, when set by a test, sees every batch leave the ordered stage
// (one batch at a time, in input order).
var testHookApplied func(bytes, lines int)

func (w *worker) run() {
	for {
		w.applyDue()
		if len(w.free) > 0 && !w.ended {
			b := w.free[len(w.free)-1]
			ok, need := w.p.reader.read(b)
			switch {
			case ok:
				w.free = w.free[:len(w.free)-1]
				w.pending = append(w.pending, b)
				if w.p.cores != nil {
					w.p.grow()
				}
				w.build(b)
				continue
			case need > 0:
				// The next line does not fit in the budget: wait for the
				// bytes, applying this worker's batch if it falls due (the
				// bytes held may be its own).
				w.p.budget.waitFor(need, w.due)
				continue
			}
			w.ended = true
		}
		if len(w.pending) == 0 && w.ended {
			return
		}
		// Every batch of this worker is read (or the input ended) and the
		// batch due is another's.
		w.p.budget.waitFor(-1, w.due)
	}
}

// due says whether this worker's oldest pending batch is due.
func (w *worker) due() bool {
	return len(w.pending) > 0 && int64(w.pending[0].seq) == w.p.next.Load()
}

// build builds b's units, applying each one at once while b is due.
func (w *worker) build(b *batch) {
	w.bld.use(b.mem)
	b.outs = b.mem.units(len(b.ends))
	b.built, b.applied = 0, 0
	start := 0
	for i, end := range b.ends {
		if i > 0 && b.applied == i {
			// Every unit built so far is applied, done with: the next
			// line's tree and message reuse their memory, still in this
			// core's cache.
			b.mem.resetUnits()
		}
		b.outs[i] = w.bld.build(b.first+i, b.mem.block[start:end:end], b.nums[i], 1)
		start = end
		b.built = i + 1
		w.applyDue()
	}
}

// applyDue applies the units built of this worker's batches while they are
// due, and hands the ordered stage on past each batch it completes.
func (w *worker) applyDue() {
	p := w.p
	for w.due() {
		b := w.pending[0]
		if b.applied < b.built {
			p.mu.Lock()
			start := 0
			if b.applied > 0 {
				start = b.ends[b.applied-1]
			}
			for ; b.applied < b.built; b.applied++ {
				i := b.applied
				p.s.apply(b.outs[i])
				b.outs[i] = unitOut{}
				poisonLine(b.mem.block[start:b.ends[i]])
				start = b.ends[i]
			}
			p.mu.Unlock()
		}
		if b.applied < len(b.ends) {
			return // the caller builds the rest
		}
		w.pending = append(w.pending[:0], w.pending[1:]...)
		w.free = append(w.free, b)
		if testHookApplied != nil {
			testHookApplied(b.size, len(b.nums))
		}
		p.next.Store(int64(b.seq) + 1)
		p.budget.release(b.size)
	}
}

// byteBudget is a counting semaphore over bytes. Its waiters also wake when
// the batch due changes (pipeline.next), which happens just before a release.
type byteBudget struct {
	mu        sync.Mutex
	cond      sync.Cond
	used, max int
}

func newByteBudget(max int) *byteBudget {
	b := &byteBudget{max: max}
	b.cond.L = &b.mu
	return b
}

// fits says whether n more bytes fit (or nothing is held).
func (b *byteBudget) fits(n int) bool { return b.used == 0 || b.used+n <= b.max }

// take takes n bytes if they fit.
func (b *byteBudget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.fits(n) {
		return false
	}
	b.used += n
	return true
}

// waitFor waits until n bytes would fit (never, for n < 0) or until stop
// says to stop waiting.
func (b *byteBudget) waitFor(n int, stop func() bool) {
	b.mu.Lock()
	for !(n >= 0 && b.fits(n)) && !stop() {
		b.cond.Wait()
	}
	b.mu.Unlock()
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// batchReader is the reading side of parallel: the line reader, taken by one
// worker at a time, and the numbering of the batches read.
type batchReader struct {
	mu     sync.Mutex
	lr     *lineReader
	budget *byteBudget
	index  int // the index of the next line's unit
	seq    int // the number of the next batch
	// held is a line read that did not fit in the batch before, or in the
	// budget; it stays valid (nothing is read before the next read takes
	// it), numbered heldNum.
	held    []byte
	heldNum int
	done    bool  // the reader is at its end (or failed: err)
	err     error // a read error; the lines before it are linted
}

// read fills b with the next batch (resetting b.mem first: the batch it held
// was applied) and says true; else it says false and, when the next line does
// not fit in the in-flight budget, the bytes it needs (0: no line is left).
func (t *batchReader) read(b *batch) (ok bool, need int) {
	b.mem.reset() // outside the lock: the batch is the caller's
	t.mu.Lock()
	defer t.mu.Unlock()
	b.ends, b.nums, b.size, b.first = b.ends[:0], b.nums[:0], 0, t.index
	for !t.done {
		line, n := t.held, t.heldNum
		t.held = nil
		if line == nil {
			var err error
			line, n, err = t.lr.next()
			if err != nil {
				if err != io.EOF {
					t.err = err
				}
				t.done = true
				break
			}
		}
		// A line that does not fit beside the batch's lines starts the next
		// batch. Its bytes are taken from the budget before they are copied.
		if b.size > 0 && b.size+len(line) > min(batchBytes, inflightBytes) {
			t.held, t.heldNum = line, n
			break
		}
		if !t.budget.take(len(line)) {
			t.held, t.heldNum = line, n
			if b.size == 0 {
				return false, len(line)
			}
			break
		}
		b.size += len(line)
		b.mem.add(line)
		b.ends = append(b.ends, len(b.mem.block))
		b.nums = append(b.nums, n)
		if len(b.ends) == batchLines || b.size >= batchBytes {
			break
		}
	}
	if len(b.ends) == 0 {
		return false, 0
	}
	t.index += len(b.ends)
	b.seq = t.seq
	t.seq++
	return true, 0
}
