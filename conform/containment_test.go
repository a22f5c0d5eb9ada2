package conform

import (
	"strings"
	"testing"
)

func TestContainmentOf(t *testing.T) {
	text := func(s string) *string { return &s }
	runs := []ScenarioRun{{Records: []Record{
		{From: "harness", Event: EventContainment, Detail: Details(KeyMode.Is("landlock-abi-7"),
			KeyMeasures.Is([]string{"enforced no TCP bind", "missing signal scoping: Landlock ABI 6 needed, kernel has 5"}))},
		{From: "agent", Stream: "stderr", Text: text("mkdir: cannot create directory '/tmp/forge-workspaces': Permission denied")},
		{From: "orchestrator", Stream: "stderr", Text: text("EACCES: open '/home/u/.config/x'\x1b[2J")},
		{From: "agent", Stream: "stderr", Text: text("all fine")},
	}}, {Records: []Record{
		{From: "harness", Event: EventContainment, Detail: Details(KeyMode.Is("landlock-abi-7"), KeyMeasures.Is([]string{"enforced no TCP bind"}))},
	}}}
	c := ContainmentOf(runs)
	if c == nil || c.Mode != "landlock-abi-7" {
		t.Fatalf("containment %+v", c)
	}
	if len(c.Enforced) != 1 || c.Enforced[0] != "no TCP bind" || len(c.Missing) != 1 {
		t.Errorf("measures: enforced %q missing %q", c.Enforced, c.Missing)
	}
	if len(c.Refusals) != 2 {
		t.Fatalf("refusals %q", c.Refusals)
	}
	for _, r := range c.Refusals {
		if strings.ContainsRune(r, 0x1b) {
			t.Errorf("control character kept in %q", r)
		}
	}
	if ContainmentOf([]ScenarioRun{{}}) != nil {
		t.Error("containment without any event")
	}
}

// A judged scenario keeps the records a report reads: the first KeptRecords, and
// past them the containment events and refusal lines; the count stays whole.
func TestTrimRecords(t *testing.T) {
	text := func(s string) *string { return &s }
	var run ScenarioRun
	for i := 0; i < KeptRecords+500; i++ {
		run.Records = append(run.Records, Record{Seq: i + 1, From: "agent", Stream: "stdout", Text: text("x")})
	}
	run.Records = append(run.Records,
		Record{From: "agent", Stream: "stderr", Text: text("open /x: permission denied")},
		Record{From: "harness", Event: EventContainment, Detail: Details(KeyMode.Is("landlock-abi-7"))})
	total := len(run.Records)
	before := ContainmentOf([]ScenarioRun{run})
	TrimRecords(&run)
	if run.RecordCount != total || len(run.Records) != KeptRecords+2 {
		t.Fatalf("kept %d of %d (count %d), want %d", len(run.Records), total, run.RecordCount, KeptRecords+2)
	}
	after := ContainmentOf([]ScenarioRun{run})
	if after == nil || after.Mode != before.Mode || len(after.Refusals) != len(before.Refusals) || len(after.Refusals) != 1 {
		t.Errorf("containment changed by the trim: %+v -> %+v", before, after)
	}
	small := ScenarioRun{Records: run.Records[:3]}
	TrimRecords(&small)
	if small.RecordCount != 3 || len(small.Records) != 3 {
		t.Errorf("a short transcript was trimmed: %d %d", small.RecordCount, len(small.Records))
	}
}

// TestErrorLines: what a report quotes of an implementation that never spoke:
// its stderr's error lines, once however many scenarios print them (each with
// its own scratch directory), refusals and the harness's records left out.
func TestErrorLines(t *testing.T) {
	text := func(s string) *string { return &s }
	run := func(scratch string) ScenarioRun {
		return ScenarioRun{Records: []Record{
			{From: ActorHarness, Stream: "stderr", Text: text("harness: error of its own")},
			{From: ActorOrchestrator, Stream: "stderr", Text: text("starting up")},
			{From: ActorOrchestrator, Stream: "stderr", Text: text("Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'tsx' imported from /tmp/aopconform-run1a2b-" + scratch + "-77/")},
			{From: ActorOrchestrator, Stream: "stderr", Text: text("Error: EACCES: permission denied, mkdir '/tmp/x'")},
		}}
	}
	got := ErrorLines([]ScenarioRun{run("orch-a"), run("orch-b")}, 3)
	if len(got) != 1 || !strings.Contains(got[0], "ERR_MODULE_NOT_FOUND") || !strings.Contains(got[0], "orch-a") {
		t.Errorf("ErrorLines = %q", got)
	}
}
