package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/report"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/mockagent"
)

// TestOneCauseBlocks measures issue 28's goal "one planted fault, one failure":
// it plays every mockagent fault of every protocol and counts the FAILURES blocks
// of the text report (report.Blocks of report.Failures, the text report's own
// grouping). Over every 5th fault of the sorted catalogue (indices 0, 5, 10, …)
// at least 90 % show exactly one block and none more than two (issue 28).
func TestOneCauseBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the fault catalogue")
	}
	t.Parallel()
	all, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	type job struct {
		name   string // protocol/fault
		blocks []report.Block
		err    error
	}
	var jobs []*job
	for _, p := range protocolsUnderTest(t) {
		ag, _ := mockagent.Lookup(p)
		for _, f := range ag.Faults {
			jobs = append(jobs, &job{name: p + "/" + f.Name})
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].name < jobs[j].name })
	t.Run("play", func(t *testing.T) {
		for _, j := range jobs {
			t.Run(j.name, func(t *testing.T) {
				t.Parallel()
				p, fault, _ := strings.Cut(j.name, "/")
				var rep *conform.Report
				if realProcessFaults[j.name] {
					_, _, rep, j.err = runConform(t.TempDir(), "--protocol", p, "--parallel", realParallel, "--", "mockagent", "--protocol", p, "--fault", fault)
				} else {
					ag, _ := mockagent.Lookup(p)
					rep, j.err = playInProcess(t, p, ag, fault, all)
				}
				if rep != nil {
					j.blocks = report.Blocks(report.Failures(rep))
				}
			})
		}
	})
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
