// Package suppress drops findings a user has accepted: inline, with an
// x_aoplint_ignore member in an extension object of the message (or an
// "aoplint:ignore" line in an aop-output report), and by configuration (path, rule
// and JSON Pointer). A suppression that drops nothing is itself reported
// (GEN-IGNORE-001), like golangci-lint's nolintlint.
//
// Only the repository suppresses: a transcript/1 record (what aopconform wrote
// of an implementation under test) holds no directive, whatever its message
// says, and "aoplint:ignore" lines count only in a file that is an aop-output
// report, never in a JSON-lines file's log lines.
package suppress

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Member is the name of an inline suppression inside an extension object.
const Member = "x_aoplint_ignore"

// TextMarker starts an inline suppression line in an aop-output report.
const TextMarker = "aoplint:ignore"

// Unused is the rule under which unused suppressions are reported.
var Unused = &lint.Rule{
	ID: "GEN-IGNORE-001", Title: "unused suppression", Severity: lint.Warning,
	Spec: "docs/configuration.md §Suppressing one finding",
	Doc: "A suppression (an x_aoplint_ignore member, an aoplint:ignore line, or an ignore entry of .aoplint.yaml) " +
		"no longer matches any finding, or names no rule. The finding it was written for is fixed or moved: " +
		"remove the suppression, so that it cannot hide a new finding later.",
	Bad:  `{"aop_version":"2.0.2-C","message_type":"TASK", ..., "extensions":{"x_aoplint_ignore":["AOP2-LIMIT-001"]}}   (a task within its limits)`,
	Good: `{"aop_version":"2.0.2-C","message_type":"TASK", ...}`,
}

func init() { lint.Register(Unused) }

// Directive is one inline suppression: the rules it names, and which findings it
// covers (those on the lines of its message at or below its pointer).
type Directive struct {
	Line, Column int
	Rules        []string
	// FromLine and ToLine bound the lines of the message it belongs to.
	FromLine, ToLine int
	// Pointer is the object holding the extension object; "" for the whole
	// message (message-level findings included).
	Pointer string
}

func (d *Directive) covers(diag *lint.Diagnostic) bool {
	if diag.Line < d.FromLine || diag.Line > d.ToLine {
		return false
	}
	if d.Pointer == "" {
		return true
	}
	return diag.Pointer == d.Pointer || strings.HasPrefix(diag.Pointer, d.Pointer+"/")
}

// ReadFile reads the inline suppressions of a file. A file without the member
// name or the marker costs one read and a byte search.
func ReadFile(path string) ([]*Directive, error) {
	var out []*Directive
	err := EachFile(path, func(d *Directive) { out = append(out, d) })
	return out, err
}

// EachFile is ReadFile that hands each directive to fn as it is read, holding
// none: a file of many directives costs what its longest message does.
func EachFile(path string, fn func(*Directive)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Each(f, fn)
}

// MaxWhole is the largest file read as one message (the linter's bound on a
// message); larger ones are read line by line (JSON lines).
const MaxWhole = lint.MaxMessage

// Read reads the inline suppressions of an input.
func Read(r io.Reader) ([]*Directive, error) {
	var out []*Directive
	err := Each(r, func(d *Directive) { out = append(out, d) })
	return out, err
}

// Each is Read that hands each directive to fn as it is read.
func Each(r io.Reader, fn func(*Directive)) error {
	br := bufio.NewReaderSize(r, 64*1024)
	if first, _ := br.Peek(64 * 1024); jsonLinesHead(first) {
		// Read as one message it would fail (trailing data) and be read line by
		// line: read it line by line now, without holding up to 16 MiB first.
		return readBlocks(br, linesBlock, lint.MaxMessage, fn)
	}
	head, err := io.ReadAll(io.LimitReader(br, MaxWhole+1))
	if err != nil {
		return err
	}
	if len(head) <= MaxWhole {
		data := head
		if !bytes.Contains(data, []byte(Member)) && !bytes.Contains(data, []byte(TextMarker)) {
			return nil
		}
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
		if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
			if root, _, err := jsonread.Parse(data); err == nil {
				for _, d := range fromJSON(root, lint.NewLineIndex(data, 1, 1), 1, 1<<31-1) {
					fn(d)
				}
				return nil
			}
		}
		if len(trimmed) > 0 && trimmed[0] != '{' && textReport(data) {
			for _, d := range fromText(data) { // a text report ("[AOP:START] ...")
				fn(d)
			}
			return nil
		}
	}
	return readBlocks(io.MultiReader(bytes.NewReader(head), br), linesBlock, lint.MaxMessage, fn)
}

// textReport reports whether data is a text message whose "aoplint:ignore"
// lines are directives, as the linter reads it: the DetectText of a protocol
// with TextDirectives (aop-output's reports) claims it. A log line of a
// JSON-lines file is not.
func textReport(data []byte) bool {
	for _, p := range lint.Protocols() {
		if p.TextDirectives && p.DetectText != nil {
			if _, _, c := p.DetectText(data); c > 0 {
				return true
			}
		}
	}
	return false
}

// jsonLinesHead reports whether an input starting with head is JSON lines that
// Read would not take as one message: an object on its first line, followed by
// more than blanks.
func jsonLinesHead(head []byte) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF")), " \t\r\n")
	nl := bytes.IndexByte(h, '\n')
	if len(h) == 0 || h[0] != '{' || nl < 0 || len(bytes.TrimSpace(h[nl:])) == 0 {
		return false
	}
	_, _, err := jsonread.Parse(h[:nl])
	return err == nil
}

// readBlocks reads JSON lines, in blocks of size bytes (they grow for longer
// lines), and hands fn the directives of each line: a directive covers the
// findings of its own line. It searches whole blocks for the member name and
// counts newlines only where it must, instead of splitting every line: a
// transcript with findings is read a second time here, so this pass costs
// about what a newline scan does. A line longer than maxLine bytes (maxLine+1
// with its newline) is skipped as the linter skips it, and never held whole:
// the buffer grows to maxLine+2 bytes at most.
func readBlocks(r io.Reader, size, maxLine int, fn func(*Directive)) error {
	buf := make([]byte, min(size, maxLine+2))
	n, lineNo := 0, 0 // buf[:n] holds unread bytes; lineNo counts the lines before them
	skipping := false // the unread bytes continue a line too long to lint
	member := []byte(Member)
	for {
		m, err := io.ReadFull(r, buf[n:])
		n += m
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		if skipping {
			i := bytes.IndexByte(buf[:n], '\n')
			if i < 0 {
				if n = 0; eof {
					return nil
				}
				continue
			}
			lineNo++
			n, skipping = copy(buf, buf[i+1:n]), false
		}
		// Whole lines: up to the last newline, or everything at the end of input.
		end := bytes.LastIndexByte(buf[:n], '\n') + 1
		if eof {
			end = n
		}
		block, done := buf[:end], 0 // block[:done] is counted into lineNo
		for {
			i := bytes.Index(block[done:], member)
			if i < 0 {
				break
			}
			i += done
			start := bytes.LastIndexByte(block[:i], '\n') + 1
			stop := len(block)
			if j := bytes.IndexByte(block[i:], '\n'); j >= 0 {
				stop = i + j + 1
			}
			lineNo += bytes.Count(block[done:start], nl) + 1
			if stop-start <= maxLine+1 {
				for _, d := range Line(block[start:stop], lineNo) {
					fn(d)
				}
			}
			done = stop
		}
		lineNo += bytes.Count(block[done:], nl)
		if eof {
			return nil
		}
		// Keep the partial last line; a line longer than the buffer grows it, up
		// to a line too long to lint, whose bytes are dropped as they come.
		n = copy(buf, buf[end:n])
		if n == len(buf) {
			if len(buf) >= maxLine+2 {
				n, skipping = 0, true
				continue
			}
			buf = append(buf, make([]byte, min(len(buf), maxLine+2-len(buf)))...)
		}
	}
}

// Line returns the directives of line number n of a JSON-lines input (the line
// as read, with or without its terminator): they cover the findings of that line.
func Line(line []byte, n int) []*Directive {
	body := bytes.TrimRight(line, "\r\n")
	root, _, err := jsonread.Parse(body)
	if err != nil {
		return nil
	}
	return fromJSON(root, lint.NewLineIndex(body, n, 1), n, n)
}

// linesBlock is the size of the blocks readLines searches.
const linesBlock = 1 << 20

var nl = []byte{'\n'}

// fromJSON finds the directives of one message. A transcript record has none:
// aopconform wrote it of what an implementation under test sent or the harness
// did, and nothing an implementation writes may hide a finding of its own
// (aoplint on aopconform's --out agrees with aopconform's verdict).
func fromJSON(root *jsonread.Node, pos *lint.LineIndex, from, to int) []*Directive {
	if root.Kind == jsonread.Object && root.Get("aopkit") != nil {
		return nil // a transcript/1 record (or one of a later version)
	}
	// The members the message's protocol leaves open to extension keys
	// (lint.Protocol.Extensions), where an x_aoplint_ignore member is legal.
	containers := map[string]bool{}
	var at func(string) bool
	if p := protocolOf(root); p != nil {
		for _, c := range p.Extensions {
			containers[c] = true
		}
		at = p.ExtensionsAt
	}
	var out []*Directive
	var walk func(n *jsonread.Node, ptr string)
	walk = func(n *jsonread.Node, ptr string) {
		switch n.Kind {
		case jsonread.Object:
			for _, m := range n.Members {
				if containers[m.Key] && m.Value.Kind == jsonread.Object && (at == nil || at(ptr)) {
					for _, em := range m.Value.Members {
						if em.Key == Member {
							l, c := pos.Position(em.KeyOffset)
							out = append(out, &Directive{Line: l, Column: c, Rules: ruleList(em.Value), FromLine: from, ToLine: to, Pointer: ptr})
						}
					}
				}
				walk(m.Value, ptr+"/"+escape(m.Key))
			}
		case jsonread.Array:
			for i, it := range n.Items {
				walk(it, fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
	walk(root, "")
	return out
}

// protocolOf is the protocol whose detector is surest of root (nil when none is).
func protocolOf(root *jsonread.Node) *lint.Protocol {
	best := 0
	var proto *lint.Protocol
	for _, p := range lint.Protocols() {
		if p.Detect == nil {
			continue
		}
		if _, _, c := p.Detect(root, ""); c > best {
			best, proto = c, p
		}
	}
	return proto
}

func ruleList(v *jsonread.Node) []string {
	switch v.Kind {
	case jsonread.String:
		return splitRules(v.Str)
	case jsonread.Array:
		var out []string
		for _, it := range v.Items {
			if it.Kind == jsonread.String {
				out = append(out, splitRules(it.Str)...)
			}
		}
		return out
	}
	return nil
}

func splitRules(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// fromText finds "aoplint:ignore RULE[,RULE] [-- reason]" lines in an aop-output
// report; each covers the whole report.
func fromText(data []byte) []*Directive {
	var out []*Directive
	for i, line := range bytes.Split(data, []byte("\n")) {
		t := strings.TrimSpace(string(line))
		rest, ok := strings.CutPrefix(t, TextMarker)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "--")
		col := bytes.Index(line, []byte(TextMarker)) + 1
		out = append(out, &Directive{Line: i + 1, Column: col, Rules: splitRules(rest), FromLine: 1, ToLine: 1<<31 - 1})
	}
	return out
}

func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// ApplyInline drops the findings the directives cover and returns the kept ones,
// followed by a GEN-IGNORE-001 finding for each rule a directive names that
// dropped nothing, while the result holds fewer than max findings: the
// GEN-IGNORE-001 findings past that are only counted (over), never made.
// path is the file's path as reported.
func ApplyInline(path string, ds []lint.Diagnostic, dirs []*Directive, max int) (out []lint.Diagnostic, over int) {
	a := NewApplier(path, ds, max)
	for _, d := range dirs {
		a.Add(d)
	}
	return a.Result()
}

// Applier applies directives to one file's findings as they are read (Add),
// holding none of them: its cost is the findings' (indexed by line, and by
// JSON Pointer prefix, with their rule) and at most max unused-suppression
// findings, whatever the number of directives or of the rules they name.
type Applier struct {
	path    string
	ds      []lint.Diagnostic
	dropped []bool
	max     int
	byLine  map[lineRule][]int // the findings of a line, by rule
	byPtr   map[ptrRule][]int  // the findings at a pointer or below it, by rule
	// whole caches what a directive covering more than one line (a single
	// message's, a text report's) found for its pointer and rule.
	whole  map[wholeRule]bool
	unused []lint.Diagnostic
	over   int
}

type lineRule struct {
	line int
	rule string
}

type ptrRule struct{ ptr, rule string }

type wholeRule struct {
	from, to int
	ptrRule
}

// NewApplier prepares the findings ds of the file path (ApplyInline).
func NewApplier(path string, ds []lint.Diagnostic, max int) *Applier {
	return &Applier{path: path, ds: ds, max: max}
}

func (a *Applier) index() {
	if a.dropped != nil {
		return
	}
	a.dropped = make([]bool, len(a.ds))
	a.byLine, a.byPtr, a.whole = map[lineRule][]int{}, map[ptrRule][]int{}, map[wholeRule]bool{}
	for i, d := range a.ds {
		rule := strings.ToUpper(d.Rule)
		a.byLine[lineRule{d.Line, rule}] = append(a.byLine[lineRule{d.Line, rule}], i)
		// Every prefix of the pointer, "" included (covers decides exactly).
		p := d.Pointer
		for {
			a.byPtr[ptrRule{p, rule}] = append(a.byPtr[ptrRule{p, rule}], i)
			if p == "" {
				break
			}
			p = p[:max(strings.LastIndexByte(p, '/'), 0)]
		}
	}
}

// Add applies one directive: it drops the findings it covers of the rules it
// names, and reports (GEN-IGNORE-001) each rule that drops none.
func (a *Applier) Add(dir *Directive) {
	a.index()
	if len(dir.Rules) == 0 {
		a.report(dir.Line, dir.Column, "%s names no rule: give rule IDs, such as [\"AOP2-LIMIT-001\"]", Member)
		return
	}
	for _, r := range dir.Rules {
		if !a.apply(dir, strings.ToUpper(r)) {
			if a.full() {
				a.over++ // nothing to say of it: counted
				continue
			}
			if lint.LookupRule(r) == nil {
				a.report(dir.Line, dir.Column, "suppression of %s: no such rule (aoplint rules lists them)", r)
			} else {
				a.report(dir.Line, dir.Column, "suppression of %s matches no finding: remove it", canonical(r))
			}
		}
	}
}

// apply drops the findings of rule that dir covers; it reports whether there
// was one.
func (a *Applier) apply(dir *Directive, rule string) bool {
	drop := func(cand []int) bool {
		hit := false
		for _, i := range cand {
			if dir.covers(&a.ds[i]) {
				a.dropped[i], hit = true, true
			}
		}
		return hit
	}
	if dir.FromLine == dir.ToLine {
		return drop(a.byLine[lineRule{dir.FromLine, rule}])
	}
	k := wholeRule{dir.FromLine, dir.ToLine, ptrRule{dir.Pointer, rule}}
	hit, done := a.whole[k]
	if !done {
		hit = drop(a.byPtr[k.ptrRule])
		a.whole[k] = hit
	}
	return hit
}

// report keeps an unused-suppression finding while fewer than max findings
// could be kept with it, and counts it otherwise.
func (a *Applier) report(line, col int, format string, args ...any) {
	if a.full() {
		a.over++
		return
	}
	a.unused = append(a.unused, unused(a.path, line, col, format, args...))
}

// full reports whether no more findings can be kept (the findings before
// suppression count: the cap is never passed).
func (a *Applier) full() bool { return len(a.ds)+len(a.unused) >= a.max }

// Result returns the findings kept, then the unused suppressions, at most max
// in all, and how many unused suppressions were counted past that.
func (a *Applier) Result() (out []lint.Diagnostic, over int) {
	out = a.ds[:0]
	for i, d := range a.ds {
		if a.dropped == nil || !a.dropped[i] {
			out = append(out, d)
		}
	}
	over = a.over
	if room := a.max - len(out); len(a.unused) > room {
		room = max(room, 0)
		over += len(a.unused) - room
		a.unused = a.unused[:room]
	}
	return append(out, a.unused...), over
}

func canonical(id string) string {
	if r := lint.LookupRule(id); r != nil {
		return r.ID
	}
	return id
}

func unused(path string, line, col int, format string, args ...any) lint.Diagnostic {
	return lint.Diagnostic{Path: path, Rule: Unused.ID, Severity: Unused.Severity, Spec: Unused.Spec, Line: line, Column: col, Message: fmt.Sprintf(format, args...)}
}
