// Package aopoutput is the reference engine of the Agent Output Protocol 1.0.0
// (specs/aop-output-1.0.0.md): the parent orchestrator that gives an agent its
// task, collects the report it prints between [AOP:START] and [AOP:END], loads the
// details file the report names (from inside the scratch directory only) and takes
// the report into its context. Drive is what aopconform runs against a real agent
// and what this package's tests run against mockagent on virtual time; the
// report's structure and limits come from lint/spec/aopoutput.
package aopoutput

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/harness"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// Key names a line of a report by its marker ("AOP:START"); the collected report
// block is "AOP:REPORT".
func Key(r *conform.Record) string {
	if r.Text == nil {
		return ""
	}
	if name, _, ok := spec.ParseMarker(*r.Text); ok {
		return "AOP:" + name
	}
	return ""
}

// LingerAfterEnd is how long (× --timeout-scale) the parent lets an agent run
// after its [AOP:END] line before it stops it. The binding asks an agent to exit
// after [AOP:END] but sets no time: a correct agent's exit can take a second or
// two on a loaded machine (a race-detector build sleeps 1 s at exit), so the
// parent stops only an agent that is plainly lingering.
const LingerAfterEnd = 5 * time.Second

// Drive plays the parent orchestrator through the harness: it sends the task line
// and closes stdin, records the report block as one transcript record, stops an
// agent that lingers after its [AOP:END] (LingerAfterEnd after it), and after the
// agent exits loads the details file the report names (fact "aopoutput.details")
// and takes the report (event "report-taken", fact "aopoutput.taken"; a report
// that is missing is taken too, with the status unknown).
func Drive(h *harness.H) error {
	if err := faults.Check("aop-output", h.EngineFault()); err != nil {
		return harness.Error{Err: err}
	}
	line := h.Expand(h.Scenario().Task)
	tk, err := spec.DecodeTaskLine(line)
	if err != nil {
		return harness.Errorf("scenario %s: the task must be {\"task\":...,\"task_type\":...}: %v", h.Scenario().ID, err)
	}
	a, err := h.Launch(line)
	if err != nil {
		return err
	}
	a.Send(line)
	a.CloseInput()
	c := &collector{a: a}
	var stdout []string // every stdout line, in order: the output the parent reads
	if err := a.Run(harness.Handler{
		Key: Key,
		// The report block is one transcript record (docs/transcript-format.md),
		// so aoplint sees the whole report.
		Collect: func(r conform.Record, final bool) []conform.Record {
			if !final && r.Key == "AOP:END" && h.EngineFault() != FaultWaitForAgentExit {
				// The report is over: the agent owes its exit. One that lingers
				// is stopped once LingerAfterEnd has passed.
				a.TerminateAt(time.Now().Add(h.Scale(LingerAfterEnd)))
			}
			return c.collect(r, final)
		},
		OnLine: func(_ *harness.Agent, r conform.Record) {
			if r.Stream == "stdout" {
				stdout = append(stdout, harness.TextOf(&r))
			}
		},
		Monitor: func(a *harness.Agent, now time.Time) time.Time {
			due := a.TerminateDue()
			if !due.IsZero() && !now.Before(due) {
				a.Terminate("the agent did not exit after [AOP:END]")
				return time.Time{}
			}
			return due
		},
	}); err != nil {
		return err
	}
	rep := spec.Parse([]byte(strings.Join(stdout, "\n")))
	large := false
	if m := rep.First("DETAILS_FILE"); m != nil {
		d := LoadDetails(h, a.N(), m.Value)
		large = len(d.Content) > LargeDetails
		harness.SetFact(h, conform.FactAOPOutputDetails, d)
	}
	tk2 := Take(rep, tk.TaskType, h.EngineFault())
	if large && h.EngineFault() == FaultRejectLargeDetails {
		tk2.Report, tk2.Status = ReportIncomplete, StatusUnknown // the engine fault
	}
	harness.SetFact(h, conform.FactAOPOutputTaken, tk2)
	h.Event(a.N(), conform.EventReportTaken, conform.Details(conform.KeyReport.Is(tk2.Report), conform.KeyStatus.Is(tk2.Status), conform.KeySummaryChars.Is(tk2.Chars),
		conform.KeyLimit.Is(tk2.Limit), conform.KeyKeptChars.Is(utf8.RuneCountInString(tk2.Summary)), conform.KeyCut.Is(tk2.Cut)))
	return nil
}

// metricsWholeValue is the engine fault FaultMetricsWholeValue's reading of
// METRICS: each pair's value is all that follows its first colon, where the
// spec's parser keeps only the text up to the second one.
func metricsWholeValue(v string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(part, ":")
		if k, val = spec.TrimJS(k), spec.TrimJS(val); ok && k != "" && val != "" {
			out[k] = val
		}
	}
	return out
}

// collector holds the lines of a report back, from [AOP:START] to [AOP:END], and
// records them as one record (harness.Handler.Collect).
type collector struct {
	a     *harness.Agent
	block []conform.Record
}

func (c *collector) collect(r conform.Record, final bool) []conform.Record {
	if final {
		// A report the harness stopped mid-way is flushed as cut off.
		return c.flush(c.a.Attempt().Stopped())
	}
	if r.Stream != "stdout" {
		return []conform.Record{r}
	}
	if r.Msg != nil {
		t := string(r.Msg)
		r.Text, r.Msg = &t, nil
	}
	switch {
	case r.Key == "AOP:START":
		out := c.flush(false)
		c.block = append(c.block, r)
		return out
	case len(c.block) > 0:
		c.block = append(c.block, r)
		if r.Key == "AOP:END" {
			return c.flush(false)
		}
		return nil
	}
	return []conform.Record{r}
}

func (c *collector) flush(cutOff bool) []conform.Record {
	if len(c.block) == 0 {
		return nil
	}
	lines := make([]string, len(c.block))
	for i := range c.block {
		lines[i] = harness.TextOf(&c.block[i])
	}
	text := strings.Join(lines, "\n")
	r := c.block[0]
	r.Text, r.Msg, r.Key, r.Detail = &text, nil, "AOP:REPORT", conform.Detail{}
	if len(c.block) > 1 {
		r.Detail.Add(conform.KeyLines.Is(len(c.block)))
	}
	if cutOff {
		r.Detail.Add(conform.KeyCutOff.Is(true))
	}
	c.block = nil
	return []conform.Record{r}
}

// How a parent classifies the agent's output (Taken.Report).
const (
	// ReportComplete: every marker the Validation Checklist requires is there.
	ReportComplete = "complete"
	// ReportIncomplete: some [AOP:...] marker, but a required one is missing (a
	// report cut short by a crash, or one without [AOP:START]).
	ReportIncomplete = "incomplete"
	// ReportMissing: no [AOP:...] marker at all ("Bad: Search Agent without AOP").
	ReportMissing = "missing"
	// StatusUnknown is the status of output whose status cannot be taken: the
	// spec's parseAOPOutput starts from status 'unknown'.
	StatusUnknown = "unknown"
)

// Taken is what the parent takes of a report into its context (the fact
// conform.FactAOPOutputTaken).
type Taken = conform.AOPOutputTaken

// Take is the parent's decision on a report: its classification; the status, when
// the report is complete and its status one of the format's (else unknown: a
// report cut short or malformed is never taken as a success); and the summary,
// cut at its task type's limit so that an oversized summary never floods the
// parent's context (the purpose of the protocol; the spec's parseAOPOutput
// likewise keeps only the first 600 characters). fault is the engine fault played
// ("" for none).
func Take(rep *spec.Report, taskType, fault string) Taken {
	t := Taken{Report: ReportComplete, Status: StatusUnknown}
	switch {
	case len(rep.Markers) == 0:
		t.Report = ReportMissing
	case len(rep.MissingRequired()) > 0:
		t.Report = ReportIncomplete
	}
	if m := rep.First("METRICS"); m != nil {
		t.Metrics = spec.Metrics(m.Value)
		if fault == FaultMetricsWholeValue {
			t.Metrics = metricsWholeValue(m.Value)
		}
	} else if fault == FaultRequireMetrics && t.Report == ReportComplete {
		t.Report = ReportIncomplete // the engine fault: the optional marker taken as required
	}
	if st := rep.First("STATUS"); st != nil {
		switch {
		case fault == FaultTrustIncompleteReport && st.Value != "":
			t.Status = strings.ToLower(strings.Fields(st.Value)[0])
		case t.Report == ReportComplete && spec.ValidStatus(st.Value):
			t.Status = st.Value
		}
	}
	_, text := rep.Summary()
	t.HasSummary = rep.Has("SUMMARY")
	if fault == FaultSummaryFirstLineOnly {
		text, _, _ = strings.Cut(text, "\n")
	}
	t.Limit, _ = spec.SummaryLimit(taskType)
	t.Chars = utf8.RuneCountInString(text)
	t.Summary = text
	if t.Chars > t.Limit && fault != FaultAcceptOversizedSummary {
		t.Summary, t.Cut = string([]rune(text)[:t.Limit]), true
	}
	return t
}
