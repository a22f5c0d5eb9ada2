package clikit

import (
	"bufio"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Table is a plain listing: a header and rows, columns two spaces apart. When the
// table would be wider than Width, the widest of the Wrap columns (free text, such
// as a title or a spec reference) narrows, again and again, and its cells wrap at
// word boundaries onto continuation lines.
type Table struct {
	Header []string
	Rows   [][]string
	// Wrap lists the indexes of the columns that may wrap; none means the last.
	Wrap []int
}

const gap = "  "

// minWrap is the narrowest the wrapped column gets, even if the line then overflows.
const minWrap = 12

// Render prints the table to w.
func (t *Table) Render(w io.Writer) error {
	n := len(t.Header)
	wraps := map[int]bool{}
	for _, i := range t.Wrap {
		if i >= 0 && i < n {
			wraps[i] = true
		}
	}
	if len(wraps) == 0 {
		wraps[n-1] = true
	}
	widths := make([]int, n)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i := 0; i < n && i < len(row); i++ {
			if cw := runewidth.StringWidth(row[i]); cw > widths[i] {
				widths[i] = cw
			}
		}
	}
	total := len(gap) * (n - 1)
	for _, cw := range widths {
		total += cw
	}
	for total > Width {
		widest := -1
		for i := range wraps {
			if widths[i] > minWrap && (widest < 0 || widths[i] > widths[widest] || widths[i] == widths[widest] && i > widest) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	bw := bufio.NewWriter(w)
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		cells := make([][]string, n)
		lines := 1
		for i := 0; i < n; i++ {
			v := ""
			if i < len(row) {
				v = row[i]
			}
			if wraps[i] {
				cells[i] = wrapText(v, widths[i])
			} else {
				cells[i] = []string{v}
			}
			lines = max(lines, len(cells[i]))
		}
		for l := 0; l < lines; l++ {
			var b strings.Builder
			for i := 0; i < n; i++ {
				v := ""
				if l < len(cells[i]) {
					v = cells[i][l]
				}
				if i > 0 {
					b.WriteString(gap)
				}
				b.WriteString(v)
				if i < n-1 {
					b.WriteString(strings.Repeat(" ", widths[i]-runewidth.StringWidth(v)))
				}
			}
			bw.WriteString(strings.TrimRight(b.String(), " "))
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// wrapText breaks s into lines of at most width columns at spaces; a word longer
// than width is cut.
func wrapText(s string, width int) []string {
	if runewidth.StringWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	var cur string
	for _, word := range strings.Fields(s) {
		for runewidth.StringWidth(word) > width {
			if cur != "" {
				lines = append(lines, cur)
				cur = ""
			}
			head := runewidth.Truncate(word, width, "")
			lines = append(lines, head)
			word = word[len(head):]
		}
		switch {
		case cur == "":
			cur = word
		case runewidth.StringWidth(cur)+1+runewidth.StringWidth(word) <= width:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
