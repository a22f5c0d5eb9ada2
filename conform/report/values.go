package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/aopkit/aopkit/conform"
)

// kind is what an expected or actual value is, which decides how two of them are
// compared: structured values line by line, short values of the same kind character
// by character, anything else (two sentences) not at all: they are shown side by
// side, labelled.
type kind int

const (
	kindEmpty kind = iota
	kindNumber
	kindToken      // one short word: an ID, a state, a key
	kindText       // a sentence
	kindStructured // JSON object or array, or several lines
)

// maxCharDiff bounds the values compared character by character.
const maxCharDiff = 64

// classify returns the kind of a value and its display form (JSON pretty-printed).
func classify(s string) (kind, string) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return kindEmpty, ""
	case (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)):
		var b bytes.Buffer
		if json.Indent(&b, []byte(t), "", "  ") == nil {
			return kindStructured, b.String()
		}
		return kindStructured, t
	case strings.Contains(t, "\n"):
		return kindStructured, t
	}
	var n json.Number
	if json.Unmarshal([]byte(t), &n) == nil {
		return kindNumber, t
	}
	if len(t) <= maxCharDiff && strings.IndexFunc(t, unicode.IsSpace) < 0 {
		return kindToken, t
	}
	return kindText, t
}

// diffMode is how expected and actual are compared.
type diffMode int

const (
	diffNone diffMode = iota
	diffLines
	diffChars
)

// compare returns the display forms of expected and actual and how to diff them.
func compare(expected, actual string) (exp, act string, mode diffMode) {
	ke, exp := classify(expected)
	ka, act := classify(actual)
	switch {
	case ke == kindStructured && ka == kindStructured:
		return exp, act, diffLines
	case ke == ka && (ke == kindNumber || ke == kindToken) && exp != act:
		return exp, act, diffChars
	}
	return exp, act, diffNone
}

// lineDiff is expected vs actual line by line (go-diff, line mode); each line is
// marked ' ', '-' (only expected) or '+' (only actual).
type diffLine struct {
	Op   byte
	Text string
}

func lineDiff(expected, actual string) []diffLine {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToChars(ensureNL(expected), ensureNL(actual))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(a, b, false), lines)
	var out []diffLine
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				out = append(out, diffLine{op, strings.TrimSuffix(l, "\n")})
			}
		}
	}
	return out
}

// unifiedDiff renders lineDiff as "- " / "+ " / "  " lines.
func unifiedDiff(expected, actual string) string {
	var b strings.Builder
	for _, l := range lineDiff(expected, actual) {
		b.WriteByte(l.Op)
		b.WriteByte(' ')
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

func ensureNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// charDiff compares two short values character by character.
func charDiff(expected, actual string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	return dmp.DiffCleanupSemantic(dmp.DiffMain(expected, actual, false))
}

// EventText writes a harness event as a readable row: the event name, then its
// details as "key: value" in key order (strings bare, numbers as written, anything
// else as compact JSON). Never Go map syntax.
func EventText(event conform.Event, detail conform.Detail) string {
	if detail.IsZero() {
		return string(event)
	}
	keys := detail.Names()
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + valueText(detail.Value(k))
	}
	return string(event) + " — " + strings.Join(parts, ", ")
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprint(x)
	case int, int64, int32, bool:
		return fmt.Sprint(x)
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// recordText is one transcript record on one line: the event row, the message as
// compact JSON, or the text; prefixed with a non-stdout stream.
func recordText(rec conform.Record) string {
	var s string
	switch {
	case rec.Event != "":
		s = EventText(rec.Event, rec.Detail)
	case rec.Msg != nil:
		var b bytes.Buffer
		if json.Compact(&b, rec.Msg) == nil {
			s = b.String()
		} else {
			s = string(rec.Msg)
		}
	case rec.Text != nil:
		s = *rec.Text
	}
	if rec.Stream != "" && rec.Stream != "stdout" {
		s = "(" + rec.Stream + ") " + s
	}
	return s
}

// wrap breaks s into lines of at most width runes at spaces, the first line after
// first, the others after indent (a word longer than a line is cut).
func wrap(s string, width int, first, indent string) string {
	var b strings.Builder
	line := first
	lineLen := len([]rune(first))
	fresh := true
	for _, w := range strings.Fields(s) {
		wl := len([]rune(w))
		if !fresh && lineLen+1+wl > width {
			b.WriteString(line + "\n")
			line, lineLen, fresh = indent, len([]rune(indent)), true
		}
		for lineLen+wl > width && fresh && wl > 0 {
			room := width - lineLen
			if room < 1 {
				room = 1
			}
			r := []rune(w)
			b.WriteString(line + string(r[:room]) + "\n")
			w = string(r[room:])
			wl = len(r) - room
			line, lineLen = indent, len([]rune(indent))
		}
		if !fresh {
			line += " "
			lineLen++
		}
		line += w
		lineLen += wl
		fresh = false
	}
	b.WriteString(line)
	return b.String()
}

// clipLine puts s on one line of at most n runes.
func clipLine(s string, n int) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
	if r := []rune(s); len(r) > n {
		if n < 1 {
			return ""
		}
		return string(r[:n-1]) + "…"
	}
	return s
}
