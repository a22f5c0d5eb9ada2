package main

import (
	"bufio"
	"io"
	"strings"
	"unicode"
)

// writeTable prints a boxed table (header centred, cells left-aligned, one space
// of padding), the layout of `aoplint rules` and `aoplint protocols`. It is
// aoplint's own so that the lint path links no table library and pays for none
// of its initialisation.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = cellWidth(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if n := cellWidth(c); n > widths[i] {
				widths[i] = n
			}
		}
	}
	bw := bufio.NewWriter(w)
	rule := func(left, mid, right string) {
		bw.WriteString(left)
		for i, n := range widths {
			if i > 0 {
				bw.WriteString(mid)
			}
			bw.WriteString(strings.Repeat("─", n+2))
		}
		bw.WriteString(right + "\n")
	}
	line := func(cells []string, centre bool) {
		bw.WriteString("│")
		for i, n := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			pad := n - cellWidth(c)
			left := 0
			if centre {
				left = pad / 2
			}
			bw.WriteString(" " + strings.Repeat(" ", left) + c + strings.Repeat(" ", pad-left) + " │")
		}
		bw.WriteString("\n")
	}
	rule("┌", "┬", "┐")
	up := make([]string, len(header))
	for i, h := range header {
		up[i] = strings.ToUpper(h)
	}
	line(up, true)
	rule("├", "┼", "┤")
	for _, r := range rows {
		line(r, false)
	}
	rule("└", "┴", "┘")
	return bw.Flush()
}

// cellWidth is the width of s in terminal columns: East Asian wide and fullwidth
// runes take two.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x1100:
			n++
		case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || (r >= 0xFF01 && r <= 0xFF60) || (r >= 0x1F300 && r <= 0x1FAFF):
			n += 2
		default:
			n++
		}
	}
	return n
}
