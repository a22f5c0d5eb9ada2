package conform

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aopkit/aopkit/internal/safetext"
)

// Containment is what the harness enforced on the implementation under test on
// this machine, and what the implementation said the sandbox refused it: the
// report's containment line (docs/aopconform.md, "Containment").
type Containment struct {
	// Mode is the launcher's confinement: "landlock-abi-N", or "none: REASON".
	Mode string `json:"mode"`
	// Enforced and Missing are the confiner's measures that took effect, and
	// those this machine could not enforce with the reason.
	Enforced []string `json:"enforced,omitempty"`
	Missing  []string `json:"missing,omitempty"`
	// Refusals are lines of the implementation's stderr that report a refused
	// operation (permission denied, operation not permitted...): the likely
	// sandbox refusals, shown first in the report with how to allow them.
	Refusals []string `json:"refusals,omitempty"`
	// Exits says how the implementation ended when it never sent a protocol
	// message (ExitSummary): with the refusals, the first thing a report says.
	Exits string `json:"exits,omitempty"`
	// Errors are the first lines of the implementation's stderr that read as an
	// error (ErrorLines), when it never sent a protocol message: why it did not.
	Errors []string `json:"errors,omitempty"`
}

// errorWords mark a stderr line that reads as an error report (Node.js, Python,
// Go, Java, shells).
var errorWords = []string{"error", "exception", "traceback", "panic:", "fatal", "cannot ", "can't ", "not found", "no such file", "undefined"}

// ScratchPrefix begins the name of every scratch directory of a run
// (conform/runner): "aopconform-run<token>-<scenario>-<n>".
const ScratchPrefix = "aopconform-run"

// scratchName matches a scratch directory's name.
var scratchName = regexp.MustCompile(ScratchPrefix + `[0-9a-f]+-[A-Za-z0-9._-]+`)

// ErrorLines returns the first max distinct lines of the implementation's
// stderr (not the harness's) that read as an error, in scenario order: what a
// report quotes of an implementation that never spoke. Refusals are left out
// (the report lists them on their own).
func ErrorLines(runs []ScenarioRun, max int) []string {
	var out []string
	seen := map[string]bool{}
	for _, run := range runs {
		for i := range run.Records {
			r := &run.Records[i]
			if len(out) >= max {
				return out
			}
			if r.From == ActorHarness || r.Stream != "stderr" || r.Text == nil || refusal(r) {
				continue
			}
			low := strings.ToLower(*r.Text)
			hit := false
			for _, w := range errorWords {
				hit = hit || strings.Contains(low, w)
			}
			line := printable(strings.TrimSpace(*r.Text), 240)
			// The same error in every scenario names each one's scratch
			// directory: one line for all.
			key := scratchName.ReplaceAllString(line, ScratchPrefix)
			if hit && line != "" && !seen[key] {
				seen[key] = true
				out = append(out, line)
			}
		}
	}
	return out
}

// refusalWords mark a stderr line that reports a refused operation (errno texts
// of EACCES, EPERM and EROFS as C libraries, Python, Node.js and Go print them).
var refusalWords = []string{"permission denied", "operation not permitted", "eacces", "eperm", "read-only file system", "erofs"}

// maxRefusals bounds the refusals a report lists.
const maxRefusals = 5

// ContainmentOf gathers the containment of a run from its scenarios' records.
func ContainmentOf(runs []ScenarioRun) *Containment {
	var c *Containment
	seen := map[string]bool{}
	for _, run := range runs {
		for i := range run.Records {
			r := &run.Records[i]
			if r.From == ActorHarness && r.Event == EventContainment {
				if c == nil {
					c = &Containment{}
				}
				if m, _ := KeyMode.Of(r.Detail); m != "" && c.Mode == "" {
					c.Mode = m
				}
				ms, _ := KeyMeasures.Of(r.Detail)
				for _, m := range ms {
					if seen[m] {
						continue
					}
					seen[m] = true
					if e, ok := strings.CutPrefix(m, "enforced "); ok {
						c.Enforced = append(c.Enforced, e)
					} else if e, ok := strings.CutPrefix(m, "missing "); ok {
						c.Missing = append(c.Missing, e)
					}
				}
			}
		}
	}
	if c == nil {
		return nil
	}
	for _, run := range runs {
		for i := range run.Records {
			r := &run.Records[i]
			if r.From == ActorHarness || r.Stream != "stderr" || len(c.Refusals) >= maxRefusals || !refusal(r) {
				continue
			}
			line := printable(*r.Text, 240)
			if !seen["refusal "+line] {
				seen["refusal "+line] = true
				c.Refusals = append(c.Refusals, line)
			}
		}
	}
	sort.Strings(c.Refusals)
	return c
}

// printable cuts s to max bytes and escapes what could drive the reader's
// terminal (safetext.Line).
func printable(s string, max int) string {
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return safetext.Line(s)
}

// ExitSummary says how the implementation's processes ended in the scenarios
// of a run, grouped by status ("exit 1 in 6 of 6 scenarios"; "" when every
// one exited 0 or none ran): what happened to an implementation that never
// spoke, told before anything else.
func ExitSummary(runs []ScenarioRun) string {
	count := map[string]int{}
	var order []string
	total := 0
	for _, run := range runs {
		if run.Skipped || len(run.Attempts) == 0 {
			continue
		}
		total++
		a := run.Attempts[0]
		st := fmt.Sprintf("exit %d", a.ExitCode)
		switch {
		case a.Error != "":
			st = "not started: " + printable(a.Error, 160)
		case a.TimedOut:
			st = "still running at the scenario deadline (stopped by the harness)"
		case a.Signal != "":
			st = "killed by " + a.Signal
		}
		if count[st] == 0 {
			order = append(order, st)
		}
		count[st]++
	}
	if total == 0 || (len(order) == 1 && order[0] == "exit 0") {
		return ""
	}
	var parts []string
	for _, st := range order {
		parts = append(parts, fmt.Sprintf("%s in %d of %d scenarios", st, count[st], total))
	}
	return strings.Join(parts, "; ")
}

// KeptRecords is how many records of a judged scenario are kept in memory for the
// reports (the HTML report shows no more).
const KeptRecords = 2000

// TrimRecords drops the records of a judged scenario that no report reads: it
// keeps the first KeptRecords and, past them, the containment events and the
// stderr lines ContainmentOf reads. A flooding implementation's 20,000 records
// per scenario are otherwise held until the end of the run.
func TrimRecords(run *ScenarioRun) {
	run.RecordCount = len(run.Records)
	if len(run.Records) <= KeptRecords {
		return
	}
	kept := append(make([]Record, 0, KeptRecords+16), run.Records[:KeptRecords]...)
	for i := KeptRecords; i < len(run.Records); i++ {
		r := &run.Records[i]
		if (r.From == ActorHarness && r.Event == EventContainment) || (r.From != ActorHarness && r.Stream == "stderr" && refusal(r)) {
			kept = append(kept, *r)
		}
	}
	run.Records = kept
}

// refusal reports whether a record's text reports a refused operation.
func refusal(r *Record) bool {
	if r.Text == nil {
		return false
	}
	low := strings.ToLower(*r.Text)
	for _, w := range refusalWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}
