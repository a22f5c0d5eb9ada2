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

// Containers are, per protocol, the members whose object value the protocol leaves
// open to extension keys, where an x_aoplint_ignore member is legal:
//   - aop2 §3: "Any core object MAY have an extensions object" with x_ keys;
//   - aos: MCP's _meta (params and results) and the spec's metadata records
//     (Record<string, any> on agents, messages, parts, sessions, ...);
//   - aof: the run artifacts' metadata object (run.json);
//   - aop-output: the details file's metadata object;
//   - orchmsg: a payload's metadata object (the ask-user answer): only the
//     payload's own (containerAt), not a metadata member at the top level or
//     deeper, which no orchmsg message defines.
var Containers = map[string][]string{
	"aop2":       {"extensions"},
	"aos":        {"_meta", "metadata"},
	"aof":        {"metadata"},
	"aop-output": {"metadata"},
	"orchmsg":    {"metadata"},
}

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

// containerAt limits, per protocol, the objects (by JSON Pointer) whose
// container members hold directives; a protocol not named here has them
// anywhere.
var containerAt = map[string]func(ptr string) bool{
	"orchmsg": func(ptr string) bool { return ptr == "/payload" },
}

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
	used    map[string]bool // the rules that dropped a finding (nil: none yet)
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// MaxWhole is the largest file read as one message (the linter's bound on a
// message); larger ones are read line by line (JSON lines).
const MaxWhole = lint.MaxMessage

// Read reads the inline suppressions of an input.
func Read(r io.Reader) ([]*Directive, error) {
	br := bufio.NewReaderSize(r, 64*1024)
	if first, _ := br.Peek(64 * 1024); jsonLinesHead(first) {
		// Read as one message it would fail (trailing data) and be read line by
		// line: read it line by line now, without holding up to 16 MiB first.
		return readLines(br)
	}
	head, err := io.ReadAll(io.LimitReader(br, MaxWhole+1))
	if err != nil {
		return nil, err
	}
	if len(head) <= MaxWhole {
		data := head
		if !bytes.Contains(data, []byte(Member)) && !bytes.Contains(data, []byte(TextMarker)) {
			return nil, nil
		}
		trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
		if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
			if root, _, err := jsonread.Parse(data); err == nil {
				return fromJSON(root, lint.NewLineIndex(data, 1, 1), 1, 1<<31-1), nil
			}
		}
		if len(trimmed) > 0 && trimmed[0] != '{' && aopOutputReport(data) {
			return fromText(data), nil // a text report ("[AOP:START] ...")
		}
	}
	return readLines(io.MultiReader(bytes.NewReader(head), br))
}

// aopOutputReport reports whether data is an aop-output report, as the linter
// reads it (the protocol's DetectText claims it): the only text whose
// "aoplint:ignore" lines are directives. A log line of a JSON-lines file is not.
func aopOutputReport(data []byte) bool {
	for _, p := range lint.Protocols() {
		if p.ID == "aop-output" && p.DetectText != nil {
			_, _, c := p.DetectText(data)
			return c > 0
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

// readLines reads JSON lines: a directive covers the findings of its own line.
// It searches whole blocks for the member name and counts newlines only where it
// must, instead of splitting every line: a transcript with findings is read a
// second time here, so this pass costs about what a newline scan does.
func readLines(r io.Reader) ([]*Directive, error) { return readBlocks(r, linesBlock, lint.MaxMessage) }

// readBlocks is readLines with blocks of size bytes (they grow for longer lines)
// and lines of at most maxLine bytes: a longer one is skipped as the linter skips
// it (longer than maxLine+1 bytes with its newline), and never held whole: the
// buffer grows to maxLine+2 bytes at most.
func readBlocks(r io.Reader, size, maxLine int) ([]*Directive, error) {
	var out []*Directive
	buf := make([]byte, min(size, maxLine+2))
	n, lineNo := 0, 0 // buf[:n] holds unread bytes; lineNo counts the lines before them
	skipping := false // the unread bytes continue a line too long to lint
	member := []byte(Member)
	for {
		m, err := io.ReadFull(r, buf[n:])
		n += m
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return out, err
		}
		if skipping {
			i := bytes.IndexByte(buf[:n], '\n')
			if i < 0 {
				if n = 0; eof {
					return out, nil
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
				out = append(out, Line(block[start:stop], lineNo)...)
			}
			done = stop
		}
		lineNo += bytes.Count(block[done:], nl)
		if eof {
			return out, nil
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
	proto := protocolOf(root)
	containers := map[string]bool{}
	for _, c := range Containers[proto] {
		containers[c] = true
	}
	at := containerAt[proto]
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

// protocolOf is the protocol whose detector is surest of root ("" when none is).
func protocolOf(root *jsonread.Node) string {
	best, id := 0, ""
	for _, p := range lint.Protocols() {
		if p.Detect == nil {
			continue
		}
		if _, _, c := p.Detect(root, ""); c > best {
			best, id = c, p.ID
		}
	}
	return id
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
// GEN-IGNORE-001 findings past that are only counted (over), never made, so
// that a line naming a million unknown rules costs what max findings do.
// path is the file's path as reported.
func ApplyInline(path string, ds []lint.Diagnostic, dirs []*Directive, max int) (out []lint.Diagnostic, over int) {
	if len(dirs) == 0 {
		return ds, 0
	}
	out = ds[:0]
	for _, d := range ds {
		if suppressed(&d, dirs) {
			continue
		}
		out = append(out, d)
	}
	report := func(line, col int, format string, args ...any) {
		if len(out) >= max {
			over++
			return
		}
		out = append(out, unused(path, line, col, format, args...))
	}
	for _, dir := range dirs {
		if len(dir.Rules) == 0 {
			report(dir.Line, dir.Column, "%s names no rule: give rule IDs, such as [\"AOP2-LIMIT-001\"]", Member)
			continue
		}
		for _, r := range dir.Rules {
			switch {
			case lint.LookupRule(r) == nil:
				report(dir.Line, dir.Column, "suppression of %s: no such rule (aoplint rules lists them)", r)
			case !dir.used[canonical(r)]:
				report(dir.Line, dir.Column, "suppression of %s matches no finding: remove it", canonical(r))
			}
		}
	}
	return out, over
}

func suppressed(d *lint.Diagnostic, dirs []*Directive) bool {
	hit := false
	for _, dir := range dirs {
		if !dir.covers(d) {
			continue
		}
		for _, r := range dir.Rules {
			if strings.EqualFold(r, d.Rule) {
				if dir.used == nil {
					dir.used = map[string]bool{}
				}
				dir.used[d.Rule] = true
				hit = true
			}
		}
	}
	return hit
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
