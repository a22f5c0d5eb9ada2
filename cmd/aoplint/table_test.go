package main

import (
	"bytes"
	"testing"

	"github.com/olekukonko/tablewriter"
)

// writeTable prints what tablewriter printed before it (aoplint rules and
// protocols keep their layout): odd and even paddings, empty cells, § and →.
func TestWriteTableMatchesTablewriter(t *testing.T) {
	header := []string{"rule", "Kind", "spec"}
	rows := [][]string{
		{"AOF-COMP-001", "", "aof-1 §Completion → Report"},
		{"X", "a much longer kind cell", ""},
		{"", "b", "≥ 3 — done"},
	}
	var want, got bytes.Buffer
	tw := tablewriter.NewWriter(&want)
	tw.Header(header[0], header[1], header[2])
	for _, r := range rows {
		if err := tw.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Render(); err != nil {
		t.Fatal(err)
	}
	if err := writeTable(&got, header, rows); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want.String())
	}
}
