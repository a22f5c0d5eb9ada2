// Package linter drives aoplint's rules over inputs: single messages, JSON-lines
// streams and transcripts (streamed, in memory bounded by the open state), text
// reports, and protocol data directories.
package linter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/generic"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
)

// MaxMessage bounds one message (a line of a stream, or a whole single-message
// file): lint.MaxMessage. Larger ones are reported (GEN-SIZE-001) and skipped,
// never held in memory.
const MaxMessage = lint.MaxMessage

// Options configure a run.
type Options struct {
	lint.Options
	// Protocol forces a protocol ("" detects one per message).
	Protocol string
	// Workers lint the lines of a stream in parallel (0: one per CPU).
	Workers int
	// Marker, when set, makes a stream keep a copy of each line that holds it
	// (FileResult.Marked): the inline suppressions' member is found while the
	// lines are linted, instead of by reading a large file a second time. Only
	// a line whose parse read an object key equal to Marker, or that did not
	// parse as JSON, is searched.
	Marker string
}

// FileResult is what aoplint found in one input.
type FileResult struct {
	Path        string            `json:"path"`
	Protocol    string            `json:"protocol"`
	Kind        string            `json:"kind,omitempty"`
	Messages    int               `json:"messages"`
	Diagnostics []lint.Diagnostic `json:"diagnostics"`
	// NotKept counts, by severity, the diagnostics found past MaxDiagnostics: they
	// count towards the exit code and the summary but are not printed.
	NotKept *SeverityCounts `json:"not_kept,omitempty"`
	// Elapsed is the wall time the input took, for JUnit's time attributes; the
	// command sets it (0 when nobody measured).
	Elapsed time.Duration `json:"-"`
	// Marked holds the lines that contain Options.Marker (those that may hold it
	// as an object key: see Options.Marker), in order, when the input was read as
	// a stream from its first line to its end; nil when it was not, or when line
	// 1 had a BOM, a line was too long to keep or the marked lines passed
	// MaxMarked bytes.
	Marked *MarkedLines `json:"-"`
}

// MarkedLines are the lines of a stream that contain Options.Marker.
type MarkedLines struct {
	Lines []MarkedLine
}

// MarkedLine is one line of a stream as linted (without its "\n" and one "\r"
// before it), and its number (the first line is 1; blank lines count).
type MarkedLine struct {
	Line int
	Text []byte
}

// MaxMarked bounds the bytes of the lines a stream keeps for Options.Marker.
const MaxMarked = 16 << 20

// marks collects a stream's lines that contain a marker, in the ordered stage
// (apply): a line whose parse read no object key equal to the marker
// (unitOut.noMarker) is not searched.
type marks struct {
	marker []byte
	lines  []MarkedLine
	size   int
	lost   bool // a line was too long to keep, or the lines passed MaxMarked bytes
}

func (m *marks) see(line []byte, n int) {
	if m == nil || m.lost || !bytes.Contains(line, m.marker) {
		return
	}
	if m.size += len(line); m.size > MaxMarked {
		m.lost, m.lines = true, nil
		return
	}
	m.lines = append(m.lines, MarkedLine{Line: n, Text: bytes.Clone(line)})
}

// SeverityCounts counts diagnostics by severity.
type SeverityCounts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

// Add counts one diagnostic of severity s.
func (c *SeverityCounts) Add(s lint.Severity) {
	switch s {
	case lint.Error:
		c.Errors++
	case lint.Warning:
		c.Warnings++
	default:
		c.Infos++
	}
}

// Total is the number of diagnostics counted.
func (c *SeverityCounts) Total() int { return c.Errors + c.Warnings + c.Infos }

// Counts returns the number of errors, warnings and infos, kept or not.
func (r *FileResult) Counts() (errs, warns, infos int) {
	if r.NotKept != nil {
		errs, warns, infos = r.NotKept.Errors, r.NotKept.Warnings, r.NotKept.Infos
	}
	for _, d := range r.Diagnostics {
		switch d.Severity {
		case lint.Error:
			errs++
		case lint.Warning:
			warns++
		default:
			infos++
		}
	}
	return
}

// DirLinter lints a directory as a whole (an AOF data directory).
type DirLinter struct {
	Name  string
	Match func(dir string) bool
	Lint  func(dir string, opts Options) ([]FileResult, error)
}

var (
	dirMu      sync.Mutex
	dirLinters []*DirLinter
)

// RegisterDirLinter adds a directory linter.
func RegisterDirLinter(d *DirLinter) {
	dirMu.Lock()
	defer dirMu.Unlock()
	dirLinters = append(dirLinters, d)
}

// DirLinterFor returns the directory linter that claims dir, or nil.
func DirLinterFor(dir string) *DirLinter {
	dirMu.Lock()
	defer dirMu.Unlock()
	for _, d := range dirLinters {
		if d.Match(dir) {
			return d
		}
	}
	return nil
}

// LintFile lints one file on disk: a single message, a JSON-lines stream (read as a
// stream) or a text report.
func LintFile(path string, opts Options) (FileResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileResult{Path: path}, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return FileResult{Path: path}, fmt.Errorf("%s is a directory", path)
	}
	if opts.BaseDir == "" {
		opts.BaseDir = filepath.Dir(path)
	}
	return LintReader(path, f, opts)
}

// LintReader lints whatever r holds (a file's contents or standard input).
func LintReader(name string, r io.Reader, opts Options) (FileResult, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	head, err := br.Peek(64 * 1024)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return FileResult{Path: name}, err
	}
	// A stream, or a first line too long to see the end of: read line by line, so
	// that a 100 MB line costs at most MaxMessage and the lines after it are linted.
	if isStream(head) || (len(head) == 64*1024 && bytes.IndexByte(head, '\n') < 0) {
		return LintStream(name, br, opts)
	}
	data, tooBig, err := readBounded(br, MaxMessage)
	if err != nil {
		return FileResult{Path: name}, err
	}
	if tooBig {
		s := newStream(name, opts)
		s.report(generic.Size, 1, 1, "", "the input is larger than %d MiB and is not a single message aoplint can lint; for many messages use one per line (JSON lines)", MaxMessage>>20)
		return s.result(), nil
	}
	return LintBytes(name, data, opts), nil
}

// isStream reports whether the input is a JSON-lines stream: a complete JSON value
// on its first line followed by more lines, or (an agent's banner or a broken line
// before its messages) lines that no text protocol claims and that are not one
// JSON value, followed by a line holding a complete JSON value from its first
// column. A leading byte-order mark is skipped.
func isStream(head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, bom), " \t\r\n")
	if len(head) == 0 {
		return false
	}
	if head[0] != '{' && head[0] != '[' && !bytes.HasPrefix(head, aofPrefix) {
		return textThenJSON(head)
	}
	nl := bytes.IndexByte(head, '\n')
	if nl < 0 {
		return false
	}
	if !jsonLine(head[:nl]) {
		// A broken first message, or the first line of one pretty-printed value
		// (a lone "{" or "["): a stream only if whole JSON lines follow and the
		// input is no one value.
		if first := bytes.TrimSpace(head[:nl]); len(first) == 1 || !textThenJSON(head[nl+1:]) {
			return false
		}
		_, _, err := jsonread.Parse(head)
		return err != nil
	}
	return len(bytes.TrimSpace(head[nl:])) > 0
}

var bom = []byte("\xEF\xBB\xBF")

// jsonLine reports whether line (an `AOF/1 ` prefix allowed) is one JSON object
// or array.
func jsonLine(line []byte) bool {
	line = bytes.TrimPrefix(bytes.TrimRight(line, " \t\r"), aofPrefix)
	if len(line) == 0 || (line[0] != '{' && line[0] != '[') {
		return false
	}
	_, _, err := jsonread.Parse(line)
	return err == nil
}

// textThenJSON: head opens with text; it is a stream when a whole line of JSON
// follows within the first lines and no text protocol (aop-output) claims it.
func textThenJSON(head []byte) bool {
	rest := head
	for i := 0; i < maxEarly && len(rest) > 0; i++ {
		nl := bytes.IndexByte(rest, '\n')
		line := rest
		if nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = nil
		}
		if jsonLine(line) {
			for _, p := range lint.Protocols() {
				if p.DetectText != nil {
					if _, _, c := p.DetectText(head); c > 0 {
						return false
					}
				}
			}
			return true
		}
	}
	return false
}

func readBounded(r io.Reader, max int) ([]byte, bool, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > max {
		_, err := io.Copy(io.Discard, r)
		return nil, true, err
	}
	return data, false, nil
}

// LintBytes lints data holding one message (JSON, `AOF/1 `-prefixed JSON, or a
// text report). A JSON-lines stream is linted as a stream.
func LintBytes(name string, data []byte, opts Options) FileResult {
	if isStream(data) {
		res, _ := LintStream(name, bytes.NewReader(data), opts)
		return res
	}
	s := newStream(name, opts)
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")))) == 0 {
		s.report(generic.Empty, 1, 1, "", "the input is empty: no message to lint")
		return s.result()
	}
	s.apply(build(name, &s.opts, true, 0, data, 1, 1))
	s.finish()
	return s.result()
}

// LintStream lints a JSON-lines stream or transcript line by line. Lines are parsed
// and checked by single-message rules on Options.Workers goroutines; the sequence
// rules then see the messages in input order. Memory is bounded by the lines in
// flight and the sequence rules' open state, whatever the stream's length.
func LintStream(name string, r io.Reader, opts Options) (FileResult, error) {
	s := newStream(name, opts)
	if opts.Marker != "" {
		s.marks = &marks{marker: []byte(opts.Marker)}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var err error
	if workers == 1 {
		err = s.serial(r)
	} else {
		err = s.parallel(r, workers)
	}
	if err != nil {
		return s.result(), err
	}
	if s.messages == 0 && len(s.diags) == 0 {
		s.report(generic.Empty, 1, 1, "", "the input is empty: no message to lint")
	}
	s.finish()
	res := s.result()
	if s.marks != nil && !s.marks.lost {
		res.Marked = &MarkedLines{Lines: s.marks.lines}
	}
	return res, nil
}

// lineReader yields the non-blank lines of a stream with their numbers.
type lineReader struct {
	br     *bufio.Reader
	lineNo int
	buf    []byte
	s      *stream
	// mu, when set, guards the stream while the reader reports a line it
	// skipped: the ordered stage adds to the stream concurrently.
	mu *sync.Mutex
}

// next returns the next non-blank line (valid until the following call), or io.EOF.
func (lr *lineReader) next() ([]byte, int, error) {
	for {
		lr.lineNo++
		// Most lines fit in the reader's buffer: returned from it, not copied
		// (valid until the next read, as lr.buf's contents would be).
		frag, err := lr.br.ReadSlice('\n')
		var line []byte
		tooLong := false
		switch err {
		case nil:
			line = bytes.TrimSuffix(frag[:len(frag)-1], []byte("\r"))
		case bufio.ErrBufferFull:
			line, tooLong, err = readLine(lr.br, append(lr.buf[:0], frag...), MaxMessage)
			lr.buf = line[:0]
		default: // the last line, without "\n", or a read error
			line = bytes.TrimSuffix(frag, []byte("\r"))
		}
		if tooLong {
			if lr.s.marks != nil {
				lr.s.marks.lost = true // its bytes are not kept: the caller reads them again
			}
			if lr.mu != nil {
				lr.mu.Lock()
			}
			lr.s.report(generic.Size, lr.lineNo, 1, "", "line %d is longer than %d MiB; it was skipped", lr.lineNo, MaxMessage>>20)
			if lr.mu != nil {
				lr.mu.Unlock()
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if lr.lineNo == 1 && bytes.HasPrefix(line, bom) {
				line = line[len(bom):]
				if lr.s.marks != nil {
					lr.s.marks.lost = true // the line is kept without its BOM, read by the caller with it
				}
			}
			return line, lr.lineNo, nil
		}
		if err != nil {
			return nil, lr.lineNo, err
		}
	}
}

func (s *stream) serial(r io.Reader) error {
	lr := &lineReader{br: bufio.NewReaderSize(r, 256*1024), s: s}
	// One memory for every line's tree and message: a line is done with when
	// apply returns.
	mem := newUnitMem()
	b := newMemBuilder(mem, s.path, &s.opts, false)
	// One buffer for every line (mem.add): the line's bytes are done with when
	// apply returns, like its tree (what the stream keeps past the line it
	// copies: stream.own, heldRecord; so do the rules, lint.Message).
	for i := 0; ; i++ {
		line, n, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		mem.reset()
		// A copy, not the reader's buffer: the reader's next read would
		// overwrite it while nothing could poison it.
		own := mem.add(line)
		s.apply(b.build(i, own, n, 1))
		poisonLine(own)
	}
}

// batch is a run of consecutive lines one worker reads and builds (parallel).
type batch struct {
	seq   int // its number in the order of reading
	first int // index of the first unit
	size  int // bytes of its lines, the weight it holds of the in-flight budget
	// ends are where the lines end in mem's block (the reader appends them
	// there; each unit's tree points into its line).
	ends []int
	nums []int
	outs []unitOut
	mem  *unitMem // the lines, trees and messages of outs, reset when the batch is read into again
}

// A batch closes at batchLines lines or batchBytes bytes, whichever comes first.
// Measured on a 100k-message transcript, two workers against one (ab.py, medians
// of 30 interleaved rounds): 1.07× the CPU for 1.77× the wall-clock throughput
// with three batches of 96 lines, 1.07× for 1.78× with three of 128 and 1.06× for
// 1.78× with four of 128; workers that waited for the batch before their own to
// be applied (two batches of 128) 1.09× for 1.67×, and the pipeline this
// replaced (a reader, the workers and an ordered goroutine) 1.24× for 1.42× in
// a run of 20. Smaller batches cost hand-overs (three of 64: 1.19× for 1.57×).
// Peak RSS on the 1.53M-message transcript of make bench with GOMEMLIMIT=off:
// 57.4 MiB with three of 96, 58–59 with three of 128, 58–60 with four of 128
// (the batches' trees are about 8 KiB a line).
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

// byteBudget is a counting semaphore over bytes.
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

// acquire waits until n bytes fit (or nothing else is held) and takes them.
func (b *byteBudget) acquire(n int) {
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.max {
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// parallel lints with workers goroutines. Each one takes a free batch, reads
// lines into it under the read lock (batchReader.read), builds its units alone
// (parse, schema, single-message rules) and hands it to the ordered stage
// (order.submit): the sequence rules and the stream's state see the batches in
// input order. No worker waits for another: the one that hands over the batch
// the ordered stage needs next applies it and every batch after it already
// handed over, while the others read and build. workers+1 batches exist,
// each with its own memory, reused once applied: a worker that finishes its
// batch before the one before it is applied reads the next into the spare
// batch, and waits only when none is free.
//
// It replaced a pipeline of a reader, the workers and an ordered goroutine
// passing batches over channels, which cost more CPU than one worker and lost
// most of its gain when the machine had one core to spare (measured in
// .ci/bench/notes.md).
func (s *stream) parallel(r io.Reader, workers int) error {
	// mu guards the stream: held to apply a batch, and by the reader to report
	// a line it skipped (an over-long line).
	var mu sync.Mutex
	t := &batchReader{
		lr:     &lineReader{br: bufio.NewReaderSize(r, 256*1024), s: s, mu: &mu},
		budget: newByteBudget(inflightBytes),
	}
	free := make(chan *batch, workers+1)
	for range cap(free) {
		free <- &batch{mem: newUnitMem()}
	}
	o := &order{ready: make([]*batch, cap(free)), apply: func(b *batch) {
		mu.Lock()
		start := 0
		for i := range b.outs {
			s.apply(b.outs[i])
			b.outs[i] = unitOut{}
			poisonLine(b.mem.block[start:b.ends[i]])
			start = b.ends[i]
		}
		mu.Unlock()
		if testHookApplied != nil {
			testHookApplied(b.size, len(b.nums))
		}
		t.budget.release(b.size)
		free <- b
	}}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bld := newBuilder(nil, s.path, &s.opts, false)
			for {
				b := <-free
				if !t.read(b) {
					free <- b
					return
				}
				bld.use(b.mem)
				b.outs = b.mem.units(len(b.ends))
				start := 0
				for i, end := range b.ends {
					b.outs[i] = bld.build(b.first+i, b.mem.block[start:end:end], b.nums[i], 1)
					start = end
				}
				o.submit(b)
			}
		}()
	}
	wg.Wait()
	return t.err
}

// order is the ordered stage of parallel: it applies the batches in their
// order of reading, on the goroutine of whichever worker hands over the batch
// it needs next.
type order struct {
	mu   sync.Mutex
	next int // the number of the batch to apply next
	// ready holds the batches handed over and not applied, batch n at
	// n % len(ready): as many slots as batches, so the batches not applied,
	// numbered from next on, never share one.
	ready    []*batch
	applying bool // a worker is applying batches
	apply    func(*batch)
}

// submit hands b over; if b is the batch due and no worker is applying, the
// caller applies it and every batch due after it that was handed over.
func (o *order) submit(b *batch) {
	o.mu.Lock()
	o.ready[b.seq%len(o.ready)] = b
	if o.applying {
		o.mu.Unlock()
		return
	}
	o.applying = true
	for {
		slot := &o.ready[o.next%len(o.ready)]
		nb := *slot
		if nb == nil || nb.seq != o.next {
			o.applying = false
			o.mu.Unlock()
			return
		}
		*slot = nil
		o.next++
		o.mu.Unlock()
		o.apply(nb)
		o.mu.Lock()
	}
}

// batchReader is the reading side of parallel: the line reader, taken by one
// worker at a time, and the numbering of the batches read.
type batchReader struct {
	mu     sync.Mutex
	lr     *lineReader
	budget *byteBudget
	index  int // the index of the next line's unit
	seq    int // the number of the next batch
	// held is a line read that did not fit in the batch before; it stays
	// valid (nothing is read before the next read takes it), numbered heldNum.
	held    []byte
	heldNum int
	done    bool  // the reader is at its end (or failed: err)
	err     error // a read error; the lines before it are linted
}

// read fills b with the next batch (resetting b.mem first: the batch it held
// was applied); false when no line is left.
func (t *batchReader) read(b *batch) bool {
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
		t.budget.acquire(len(line))
		b.size += len(line)
		b.mem.add(line)
		b.ends = append(b.ends, len(b.mem.block))
		b.nums = append(b.nums, n)
		if len(b.ends) == batchLines || b.size >= batchBytes {
			break
		}
	}
	if len(b.ends) == 0 {
		return false
	}
	t.index += len(b.ends)
	b.seq = t.seq
	t.seq++
	return true
}

// readLine reads one line into buf (without "\n" or "\r\n"), dropping the line if it
// is longer than max.
func readLine(br *bufio.Reader, buf []byte, max int) ([]byte, bool, error) {
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(frag) > max+1 {
				tooLong = true
				buf = buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		if err == nil && len(buf) == 0 && !tooLong {
			return buf, false, nil
		}
		if err != nil && err != io.EOF {
			return buf, tooLong, err
		}
		return buf, tooLong, err
	}
}

// ruleSet is the rules that apply to one protocol and kind, split by how they run.
type ruleSet struct {
	single, schema []*lint.Rule
	// protocol and kind are the set's, owned (the key it is cached by).
	protocol, kind string
}

// sets caches the rules of each protocol and kind (read on every message).
var sets sync.Map // [2]string{protocol, kind} → *ruleSet

func rulesFor(protocol, kind string) *ruleSet {
	key := [2]string{protocol, kind}
	if rs, ok := sets.Load(key); ok {
		return rs.(*ruleSet)
	}
	rs := &ruleSet{}
	for _, r := range lint.Rules() {
		if r.Protocol == "" || !r.AppliesTo(protocol, kind) {
			continue
		}
		switch {
		case r.NewChecker != nil:
			// sequence rules: seqRulesFor
		case r.Schema:
			rs.schema = append(rs.schema, r)
		case r.Run != nil:
			rs.single = append(rs.single, r)
		}
	}
	// The key is kept: copies, not strings of a line the driver reuses.
	rs.protocol, rs.kind = keptProtocol(protocol), strings.Clone(kind)
	actual, _ := sets.LoadOrStore([2]string{rs.protocol, rs.kind}, rs)
	return actual.(*ruleSet)
}

// SchemaRun is the Run of a protocol's schema rule: it validates the message against
// the schema its protocol names for the message's kind.
func SchemaRun(p *lint.Pass) {
	m := p.Msg
	if m.Root == nil {
		return
	}
	proto := lint.LookupProtocol(m.Protocol)
	if proto == nil || proto.Schema == nil {
		return
	}
	file := proto.Schema(m.Kind)
	if file == "" {
		return
	}
	errs, err := schema.Validate(file, m.Root)
	if err != nil {
		p.Reportf("", "internal error: schema %s: %v", file, err)
		return
	}
	for _, e := range errs {
		p.Reportf(e.Pointer, "%s", e.Message)
	}
}
