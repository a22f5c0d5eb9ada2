// Package safetext makes text that an input or an implementation under test
// wrote safe to show in a human format (a terminal, a text or Markdown file, an
// HTML page, a CI annotation): every character that could drive a terminal or
// hide what is shown is escaped the way Go quotes it (\x1b, \a, \x00, \x7f,
// \u009b, \u202e, \xff for a byte that is not UTF-8), and the rest is kept.
//
// Escaped are the characters unicode.IsPrint rejects: C0 controls (NUL, BEL,
// ESC, CR, ...), DEL, C1 controls (U+0080-U+009F, CSI among them), format
// characters (the bidirectional overrides and isolates, zero-width ones, the
// byte-order mark), line and paragraph separators and spaces other than ASCII
// space; and bytes that are not UTF-8. Every human formatter of aoplint
// (lint/output) and aopconform (conform/report) uses this package, and nothing
// else, for that; the machine formats (JSON, SARIF, JUnit XML) escape by their
// own grammar.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r is escaped: a character that is not printable, or
// utf8.RuneError (which stands for a byte that is not UTF-8 when decoded).
func Unsafe(r rune) bool { return r == utf8.RuneError || !unicode.IsPrint(r) }

// Line returns s for one line: every unsafe character escaped, newlines and
// tabs included ("\n", "\t"), so that s cannot end the line, forge another or
// reach the terminal.
func Line(s string) string { return escape(s, false) }

// Block returns s for a block of lines: as Line, but newlines and tabs are
// kept (the block's own structure); a carriage return is escaped, as it could
// overwrite a line.
func Block(s string) string { return escape(s, true) }

// Path returns p as it is when every character is safe, else Go-quoted whole:
// a file name with a newline or an escape in it is shown quoted, not cut.
func Path(p string) string {
	if clean(p, false) {
		return p
	}
	return strconv.Quote(p)
}

// clean reports whether s has nothing to escape (keepLines: but \n and \t).
func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			continue
		case keepLines && (c == '\n' || c == '\t'):
			continue
		case c < 0x80:
			return false
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if Unsafe(r) {
			return false
		}
		i += n - 1
	}
	return true
}

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !Unsafe(r) || keepLines && (r == '\n' || r == '\t') {
			b.WriteString(s[i : i+n])
		} else {
			q := strconv.Quote(s[i : i+n])
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}
