package taskfile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Frontmatter is a task file's YAML frontmatter (tasks/<status>/<taskId>.md),
// read as the subset of YAML task files use: block mappings and sequences by
// indentation, flow sequences and empty flow mappings, quoted and plain scalars,
// literal and folded block scalars, comments. Values are string, int64, float64,
// bool, nil, []any or map[string]any. Anchors, tags and multi-document streams are
// not read. The parser never panics and is bounded in depth.
type Frontmatter struct {
	Values   map[string]any
	Lines    map[string]int // the line (in the file) of each top-level key and of "metadata.<key>"
	BodyLine int            // first line of the Markdown body
}

// FrontmatterError is a problem at a line of the file.
type FrontmatterError struct {
	Line int
	Msg  string
}

func (e *FrontmatterError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

const maxFrontmatterDepth = 32

type fmLine struct {
	n      int // line number in the file
	indent int
	text   string // without indentation
}

// ParseFrontmatter reads the frontmatter of a task file.
func ParseFrontmatter(data []byte) (*Frontmatter, error) {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.TrimPrefix(s, "\uFEFF")
	all := strings.Split(s, "\n")
	if len(all) == 0 || strings.TrimRight(all[0], " \t") != "---" {
		return nil, &FrontmatterError{1, "a task file starts with a \"---\" line opening its YAML frontmatter"}
	}
	end := -1
	for i := 1; i < len(all); i++ {
		if t := strings.TrimRight(all[i], " \t"); t == "---" || t == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, &FrontmatterError{1, "the frontmatter has no closing \"---\" line"}
	}
	var lines []fmLine
	for i := 1; i < end; i++ {
		raw := all[i]
		if strings.Contains(raw, "\t") && strings.TrimLeft(raw, " ") != strings.TrimLeft(raw, " \t") {
			return nil, &FrontmatterError{i + 1, "YAML indentation uses spaces, not tabs"}
		}
		text := strings.TrimLeft(raw, " ")
		lines = append(lines, fmLine{n: i + 1, indent: len(raw) - len(text), text: strings.TrimRight(text, " \t")})
	}
	fm := &Frontmatter{Lines: map[string]int{}, BodyLine: end + 2}
	p := &fmParser{lines: lines, fm: fm}
	p.skip()
	if p.i >= len(p.lines) {
		fm.Values = map[string]any{}
		return fm, nil
	}
	if p.lines[p.i].indent != 0 {
		return nil, &FrontmatterError{p.lines[p.i].n, "the frontmatter's top-level keys start at column 1"}
	}
	v, err := p.block(0, 0, "")
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.lines) {
		return nil, &FrontmatterError{p.lines[p.i].n, fmt.Sprintf("unexpected %q", cut(p.lines[p.i].text))}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &FrontmatterError{lines[0].n, "the frontmatter is a mapping of keys (id: ..., status: ...), not a list"}
	}
	fm.Values = m
	return fm, nil
}

type fmParser struct {
	lines []fmLine
	i     int
	fm    *Frontmatter
}

// skip passes blank and comment lines.
func (p *fmParser) skip() {
	for p.i < len(p.lines) {
		t := p.lines[p.i].text
		if t != "" && !strings.HasPrefix(t, "#") {
			return
		}
		p.i++
	}
}

func isSeqItem(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// block reads a mapping or a sequence whose entries start at indent.
func (p *fmParser) block(indent, depth int, path string) (any, error) {
	if depth > maxFrontmatterDepth {
		return nil, &FrontmatterError{p.lines[p.i].n, "the frontmatter nests too deep"}
	}
	if isSeqItem(p.lines[p.i].text) {
		return p.seq(indent, depth)
	}
	return p.mapping(indent, depth, path)
}

func (p *fmParser) mapping(indent, depth int, path string) (any, error) {
	out := map[string]any{}
	for {
		p.skip()
		if p.i >= len(p.lines) {
			return out, nil
		}
		l := p.lines[p.i]
		if l.indent < indent {
			return out, nil
		}
		if l.indent > indent {
			return nil, &FrontmatterError{l.n, fmt.Sprintf("unexpected indentation before %q", cut(l.text))}
		}
		if isSeqItem(l.text) {
			return nil, &FrontmatterError{l.n, fmt.Sprintf("a list item %q where a key: value was expected", cut(l.text))}
		}
		key, rest, err := splitKey(l)
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, &FrontmatterError{l.n, fmt.Sprintf("key %q appears twice", key)}
		}
		full := key
		if path != "" {
			full = path + "." + key
		}
		if depth <= 1 {
			p.fm.Lines[full] = l.n
		}
		p.i++
		v, err := p.value(l, rest, indent, depth, full)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
}

// value reads the value after "key:" (rest), which may continue on the next lines.
func (p *fmParser) value(l fmLine, rest string, indent, depth int, path string) (any, error) {
	switch {
	case rest == "" || strings.HasPrefix(rest, "#"):
		p.skip()
		if p.i < len(p.lines) {
			nl := p.lines[p.i]
			if nl.indent > indent || (nl.indent == indent && isSeqItem(nl.text) && path != "") {
				return p.block(nl.indent, depth+1, path)
			}
		}
		return nil, nil
	case rest == "|" || rest == ">" || rest == "|-" || rest == ">-" || rest == "|+" || rest == ">+":
		return p.blockScalar(indent, rest), nil
	}
	return scalar(rest, l.n)
}

func (p *fmParser) blockScalar(indent int, style string) string {
	var parts []string
	for p.i < len(p.lines) {
		l := p.lines[p.i]
		if l.text != "" && l.indent <= indent {
			break
		}
		parts = append(parts, l.text)
		p.i++
	}
	sep := "\n"
	if strings.HasPrefix(style, ">") {
		sep = " "
	}
	return strings.TrimRight(strings.Join(parts, sep), "\n ")
}

func (p *fmParser) seq(indent, depth int) (any, error) {
	var out []any
	for {
		p.skip()
		if p.i >= len(p.lines) {
			return out, nil
		}
		l := p.lines[p.i]
		if l.indent < indent || (l.indent == indent && !isSeqItem(l.text)) {
			return out, nil
		}
		if l.indent > indent {
			return nil, &FrontmatterError{l.n, fmt.Sprintf("unexpected indentation before %q", cut(l.text))}
		}
		item := strings.TrimSpace(strings.TrimPrefix(l.text, "-"))
		p.i++
		if item == "" {
			p.skip()
			if p.i < len(p.lines) && p.lines[p.i].indent > indent {
				v, err := p.block(p.lines[p.i].indent, depth+1, "")
				if err != nil {
					return nil, err
				}
				out = append(out, v)
				continue
			}
			out = append(out, nil)
			continue
		}
		if k, rest, err := splitKey(fmLine{n: l.n, text: item}); err == nil && !strings.HasPrefix(item, "\"") && !strings.HasPrefix(item, "'") && !strings.HasPrefix(item, "[") && !strings.HasPrefix(item, "{") {
			// "- key: value" opens a mapping whose other keys sit under the key
			inner := indent + (len(l.text) - len(strings.TrimLeft(strings.TrimPrefix(l.text, "-"), " ")))
			m := map[string]any{}
			v, err := p.value(fmLine{n: l.n, indent: inner, text: item}, rest, inner, depth+1, "")
			if err != nil {
				return nil, err
			}
			m[k] = v
			more, err := p.mapping(inner, depth+1, "")
			if err != nil {
				return nil, err
			}
			for mk, mv := range more.(map[string]any) {
				if _, dup := m[mk]; dup {
					return nil, &FrontmatterError{l.n, fmt.Sprintf("key %q appears twice", mk)}
				}
				m[mk] = mv
			}
			out = append(out, m)
			continue
		}
		v, err := scalar(item, l.n)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// splitKey splits "key: rest".
func splitKey(l fmLine) (string, string, error) {
	t := l.text
	var key string
	if strings.HasPrefix(t, "\"") || strings.HasPrefix(t, "'") {
		q := t[0]
		j := strings.IndexByte(t[1:], q)
		if j < 0 {
			return "", "", &FrontmatterError{l.n, fmt.Sprintf("unterminated quoted key in %q", cut(t))}
		}
		key, t = t[1:1+j], t[2+j:]
		if !strings.HasPrefix(t, ":") {
			return "", "", &FrontmatterError{l.n, fmt.Sprintf("%q is not key: value", cut(l.text))}
		}
		return key, strings.TrimSpace(t[1:]), nil
	}
	for j := 0; j < len(t); j++ {
		if t[j] == ':' && (j+1 == len(t) || t[j+1] == ' ') {
			key = strings.TrimSpace(t[:j])
			if key == "" {
				break
			}
			return key, strings.TrimSpace(t[j+1:]), nil
		}
	}
	return "", "", &FrontmatterError{l.n, fmt.Sprintf("%q is not key: value", cut(l.text))}
}

// scalar reads a flow value: quoted string, flow sequence, {} or a plain scalar.
func scalar(s string, line int) (any, error) {
	switch {
	case strings.HasPrefix(s, "\""):
		end := closingQuote(s)
		if end < 0 {
			return nil, &FrontmatterError{line, fmt.Sprintf("unterminated string %s", cut(s))}
		}
		var out string
		if err := json.Unmarshal([]byte(s[:end+1]), &out); err != nil {
			return nil, &FrontmatterError{line, fmt.Sprintf("bad double-quoted string %s", cut(s))}
		}
		if rest := strings.TrimSpace(s[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, &FrontmatterError{line, fmt.Sprintf("text after a quoted string: %s", cut(rest))}
		}
		return out, nil
	case strings.HasPrefix(s, "'"):
		var b strings.Builder
		for j := 1; j < len(s); j++ {
			if s[j] == '\'' {
				if j+1 < len(s) && s[j+1] == '\'' {
					b.WriteByte('\'')
					j++
					continue
				}
				if rest := strings.TrimSpace(s[j+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
					return nil, &FrontmatterError{line, fmt.Sprintf("text after a quoted string: %s", cut(rest))}
				}
				return b.String(), nil
			}
			b.WriteByte(s[j])
		}
		return nil, &FrontmatterError{line, fmt.Sprintf("unterminated string %s", cut(s))}
	case strings.HasPrefix(s, "["):
		end := strings.LastIndexByte(s, ']')
		if end < 0 {
			return nil, &FrontmatterError{line, fmt.Sprintf("unterminated list %s", cut(s))}
		}
		inner := strings.TrimSpace(s[1:end])
		out := []any{}
		if inner == "" {
			return out, nil
		}
		if strings.ContainsAny(inner, "[]{}") {
			return nil, &FrontmatterError{line, "nested flow collections are not supported in task frontmatter"}
		}
		for _, part := range splitFlow(inner) {
			v, err := scalar(strings.TrimSpace(part), line)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case strings.HasPrefix(s, "{"):
		if strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")) == "" && strings.HasSuffix(s, "}") {
			return map[string]any{}, nil
		}
		return nil, &FrontmatterError{line, "flow mappings ({a: b}) are not supported in task frontmatter; use one key per line"}
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	switch s {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	case "null", "Null", "NULL", "~", "":
		return nil, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") && strings.ToLower(s) != "inf" && strings.ToLower(s) != "nan" {
		return f, nil
	}
	return s, nil
}

// closingQuote finds the closing double quote of s (s[0] == '"').
func closingQuote(s string) int {
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

// splitFlow splits a flow sequence's inside at commas outside quotes.
func splitFlow(s string) []string {
	var parts []string
	start, inD, inS := 0, false, false
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\' && inD:
			j++
		case c == '"' && !inS:
			inD = !inD
		case c == '\'' && !inD:
			inS = !inS
		case c == ',' && !inD && !inS:
			parts = append(parts, s[start:j])
			start = j + 1
		}
	}
	return append(parts, s[start:])
}

func cut(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
