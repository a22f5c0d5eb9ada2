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
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/generic"
	"github.com/aopkit/aopkit/lint/jsonread"
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
	// Cores, when set, is shared by the inputs of a run linted at once: a
	// stream starts with one worker and adds more, up to Workers, only while
	// Cores has free ones (see Cores).
	Cores *Cores
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

// NotKeptNote is the finding that says how many diagnostics of an input were
// found past MaxDiagnostics and not kept (c counts them).
func NotKeptNote(path string, c SeverityCounts) lint.Diagnostic {
	return lint.Diagnostic{Path: path, Rule: generic.Size.ID, Severity: lint.Info, Spec: generic.Size.Spec,
		Message: fmt.Sprintf("%d more diagnostics were found and not kept (limit %d per input): %d errors, %d warnings, %d infos; they count towards the summary and the exit code",
			c.Total(), MaxDiagnostics, c.Errors, c.Warnings, c.Infos)}
}

// AddNotKept counts c more diagnostics of r as found and not kept, and says so
// in r's note (NotKeptNote), which replaces the one r had: for what is found
// after the linter (unused suppressions, stale baseline entries), which goes
// through the same cap.
func (r *FileResult) AddNotKept(c SeverityCounts) {
	if c.Total() == 0 {
		return
	}
	r.dropNote()
	sum := c
	if r.NotKept != nil {
		sum = SeverityCounts{Errors: sum.Errors + r.NotKept.Errors, Warnings: sum.Warnings + r.NotKept.Warnings, Infos: sum.Infos + r.NotKept.Infos}
	}
	r.NotKept = &sum
	r.Diagnostics = append(r.Diagnostics, NotKeptNote(r.Path, sum))
}

// dropNote removes r's not-kept note from its diagnostics; it reports whether
// r had one there.
func (r *FileResult) dropNote() bool {
	if r.NotKept == nil {
		return false
	}
	note := NotKeptNote(r.Path, *r.NotKept)
	for i, d := range r.Diagnostics {
		if d.Rule == note.Rule && d.Line == 0 && d.Message == note.Message {
			r.Diagnostics = append(r.Diagnostics[:i:i], r.Diagnostics[i+1:]...)
			return true
		}
	}
	return false
}

// Bound keeps at most MaxDiagnostics of r's diagnostics (the not-kept note
// aside), those first in order (lint.SortDiagnostics), and counts the others
// as not kept (AddNotKept).
func (r *FileResult) Bound() {
	if len(r.Diagnostics) <= MaxDiagnostics {
		return
	}
	if r.dropNote() && len(r.Diagnostics) == MaxDiagnostics {
		r.Diagnostics = append(r.Diagnostics, NotKeptNote(r.Path, *r.NotKept))
		return
	}
	lint.SortDiagnostics(r.Diagnostics)
	var c SeverityCounts
	for _, d := range r.Diagnostics[MaxDiagnostics:] {
		c.Add(d.Severity)
	}
	r.Diagnostics = slices.Clip(r.Diagnostics[:MaxDiagnostics])
	r.AddNotKept(c)
}

// DirLinter lints a directory as a whole (an AOF data directory): the driver's
// side of a protocol's MatchDir and LintDir.
type DirLinter struct {
	Name  string
	Match func(dir string) bool
	Lint  func(dir string, opts Options) ([]FileResult, error)
}

// DirLinterFor returns the directory linter of the protocol that claims dir
// (lint.Protocol.MatchDir), or nil.
func DirLinterFor(dir string) *DirLinter {
	for _, p := range lint.Protocols() {
		if p.MatchDir == nil || p.LintDir == nil || !p.MatchDir(dir) {
			continue
		}
		return &DirLinter{Name: p.ID, Match: p.MatchDir, Lint: func(dir string, opts Options) ([]FileResult, error) {
			reports, err := p.LintDir(dir, FileLinter(opts))
			out := make([]FileResult, len(reports))
			for i, r := range reports {
				out[i] = FileResult{Path: r.Path, Protocol: r.Protocol, Kind: r.Kind, Messages: r.Messages, Diagnostics: r.Diagnostics}
			}
			return out, err
		}}
	}
	return nil
}

// FileLinter is LintFile with opts as a lint.FileLinter, for the protocols'
// hooks: a protocol it names replaces opts.Protocol.
func FileLinter(opts Options) lint.FileLinter {
	return func(path, protocol string) (lint.FileReport, error) {
		o := opts
		if protocol != "" {
			o.Protocol = protocol
		}
		r, err := LintFile(path, o)
		return lint.FileReport{Path: r.Path, Protocol: r.Protocol, Kind: r.Kind, Messages: r.Messages, Diagnostics: r.Diagnostics}, err
	}
}

// lintNamed is lint.Options.LintFile: a file a message names, linted on its
// own with the default options.
func lintNamed(path, protocol string) (lint.FileReport, error) {
	return FileLinter(Options{})(path, protocol)
}

// withHooks gives the protocols' rules what the driver lends them.
func withHooks(opts Options) Options {
	if opts.LintFile == nil {
		opts.LintFile = lintNamed
	}
	return opts
}

// LintFile lints one file on disk: a single message, a JSON-lines stream (read as a
// stream) or a text report. Only a regular file is read: a FIFO, a device or a
// directory is refused (a *safefile.Error) before anything blocks on it. Its size
// is not capped: a stream is read line by line, each line bounded.
func LintFile(path string, opts Options) (FileResult, error) {
	f, err := safefile.Open(path, 0)
	if err != nil {
		return FileResult{Path: path}, err
	}
	defer f.Close()
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
	opts = withHooks(opts)
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
	opts = withHooks(opts)
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
		err = s.parallel(r, workers, opts.Cores)
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
	// skipped or marks the kept lines lost: the ordered stage reads and adds
	// to the stream concurrently.
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
			lr.lock()
			if lr.s.marks != nil {
				lr.s.marks.lost = true // its bytes are not kept: the caller reads them again
			}
			lr.s.report(generic.Size, lr.lineNo, 1, "", "line %d is longer than %d MiB; it was skipped", lr.lineNo, MaxMessage>>20)
			lr.unlock()
		} else if len(bytes.TrimSpace(line)) > 0 {
			if lr.lineNo == 1 && bytes.HasPrefix(line, bom) {
				line = line[len(bom):]
				if lr.s.marks != nil {
					lr.lock()
					lr.s.marks.lost = true // the line is kept without its BOM, read by the caller with it
					lr.unlock()
				}
			}
			return line, lr.lineNo, nil
		}
		if err != nil {
			return nil, lr.lineNo, err
		}
	}
}

// lock and unlock take and give back mu, if set, around a change to the stream.
func (lr *lineReader) lock() {
	if lr.mu != nil {
		lr.mu.Lock()
	}
}

func (lr *lineReader) unlock() {
	if lr.mu != nil {
		lr.mu.Unlock()
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
