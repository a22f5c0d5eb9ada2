package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform/report"
)

// TestOneCauseBlocks measures issue 28's goal "one planted fault, one failure":
// over every mockagent fault of every protocol (the runs of playCatalogue, which
// TestFaultMatrix judges too) it counts the FAILURES blocks
// of the text report (report.Blocks of report.Failures, the text report's own
// grouping). Over every 5th fault of the sorted catalogue (indices 0, 5, 10, …)
// at least 90 % show exactly one block and none more than two (issue 28).
func TestOneCauseBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the fault catalogue")
	}
	t.Parallel()
	type job struct {
		name   string // protocol/fault
		blocks []report.Block
		err    error
	}
	var jobs []*job
	for _, j := range playCatalogue(t) {
		if j.hostile {
			continue
		}
		b := &job{name: j.protocol + "/" + j.name, err: j.err}
		if j.rep != nil {
			b.blocks = report.Blocks(report.Failures(j.rep))
		}
		jobs = append(jobs, b)
	}
	if len(jobs) == 0 {
		t.Fatal("no fault played")
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].name < jobs[j].name })
	var one, two, more, sampled int
	var table strings.Builder
	for i, j := range jobs {
		if j.err != nil {
			t.Fatalf("%s: %v", j.name, j.err)
		}
		mark := " "
		if i%5 == 0 {
			mark = "*"
			sampled++
			switch n := len(j.blocks); {
			case n == 1:
				one++
			case n == 2:
				two++
			default:
				more++
			}
		}
		var checks []string
		for _, b := range j.blocks {
			checks = append(checks, b.Check)
		}
		fmt.Fprintf(&table, "%s %-45s %d  %s\n", mark, j.name, len(j.blocks), strings.Join(checks, " "))
	}
	t.Logf("FAILURES blocks per fault (* every 5th):\n%s", table.String())
	t.Logf("every 5th fault: %d sampled, %d with one block, %d with two, %d with none or more than two", sampled, one, two, more)
	if float64(one) < 0.9*float64(sampled) || more > 0 {
		t.Errorf("every 5th fault: %d of %d with one FAILURES block (want at least 90%%), %d with more than two (want none): a fault reads as more than one failure", one, sampled, more)
	}
}
