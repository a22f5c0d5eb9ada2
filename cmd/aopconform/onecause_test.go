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
// TestFaultMatrix judges too) it counts the FAILURES blocks of the text report
// (report.Blocks of report.Failures, the text report's own grouping) and logs
// the table and the figures (issue 28 asks for at least 90 % of the faults with
// one block and none with more than two).
//
// It asserts on every fault: one block, unless the fault is one of
// moreThanOne, which may show at most the blocks listed there (two at most). A
// fault that reads as one more failure than it did fails the test, and so does
// a catalogue with fewer than 90 % of its faults showing one block.
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
	var one, two, more int
	var table strings.Builder
	for _, j := range jobs {
		if j.err != nil {
			t.Fatalf("%s: %v", j.name, j.err)
		}
		n := len(j.blocks)
		switch {
		case n == 1:
			one++
		case n == 2:
			two++
		default:
			more++
		}
		var checks []string
		for _, b := range j.blocks {
			checks = append(checks, b.Check)
		}
		fmt.Fprintf(&table, "%-45s %d  %s\n", j.name, n, strings.Join(checks, " "))
		max, listed := moreThanOne[j.name]
		if !listed {
			max = 1
		}
		switch {
		case n == 0:
			t.Errorf("%s: no FAILURES block", j.name)
		case n > max:
			t.Errorf("%s: %d FAILURES blocks (%s), want at most %d: a fault reads as more than one failure", j.name, n, strings.Join(checks, " "), max)
		case listed && n < max:
			t.Logf("%s: %d FAILURES blocks, moreThanOne allows %d: lower it", j.name, n, max)
		}
	}
	t.Logf("FAILURES blocks per fault:\n%s", table.String())
	if 10*one < 9*len(jobs) {
		t.Errorf("%d of %d faults (%.0f%%) show one FAILURES block; issue 28 asks for at least 90%%", one, len(jobs), 100*float64(one)/float64(len(jobs)))
	}
	for name, max := range moreThanOne {
		if max > 2 {
			t.Errorf("moreThanOne allows %s %d FAILURES blocks; issue 28 allows at most two", name, max)
		}
	}
	t.Logf("all %d faults: %d (%.0f%%) with one block, %d with two, %d with none or more than two (issue 28: at least 90%% with one, none with more than two)",
		len(jobs), one, 100*float64(one)/float64(len(jobs)), two, more)
}

// moreThanOne: the faults that still show more than one FAILURES block, and how
// many they may show (measured 2026-12-07). Some break two rules at once (the
// ignore-shutdown faults ignore SIGTERM besides notify:shutdown or EOF; stdout-garbage
// prints a JSON object without a type and log lines); unguarded-execution runs
// tools unasked, which aos-guardian-error judges as requests never made. None
// may show more than two (issue 28).
var moreThanOne = map[string]int{
	"aop2/ignore-shutdown":    2,
	"aos/unguarded-execution": 2,
	"orchmsg/ignore-shutdown": 2,
	"orchmsg/stdout-garbage":  2,
}
