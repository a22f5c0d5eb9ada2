// Package aopoutput is the reference Agent Output Protocol 1.0.0 agent of mockagent
// (specs/aop-output-1.0.0.md) under the aop-output binding: it reads its task from
// stdin, does scripted work, writes its details JSON inside the scratch directory
// and prints an AOP report between [AOP:START] and [AOP:END]. Each fault breaks one
// rule.
package aopoutput

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/aopkit/aopkit/conform/fault"
	"os"
	"path/filepath"
	"strings"
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"

	"github.com/aopkit/aopkit/mockagent"
)

// faults is the catalogue of the mock agent, each fault declared once below.
var faults fault.Catalogue

// The faults of the aop-output agent; Rule names the lint rule or conform check each breaks.
var (
	FaultHang                    = faults.Add(fault.Fault{Name: "hang", Rule: "AOPOUT-MARKER-001, aop-output/format/markers agent never completes its report", Doc: "prints [AOP:START] and [AOP:TASK], then never finishes"})
	FaultExceedTimeout           = faults.Add(fault.Fault{Name: "exceed-timeout", Rule: "AOPOUT-MARKER-001, aop-output/format/markers agent exceeds the run deadline, its report unfinished", Doc: "works for ten minutes before reporting"})
	FaultCrashMidTask            = faults.Add(fault.Fault{Name: "crash-mid-task", Rule: "AOPOUT-MARKER-001 report cut short by a crash", Doc: "prints [AOP:START] and [AOP:TASK], then exits with code 2"})
	FaultCrashAfterPartialReport = faults.Add(fault.Fault{Name: "crash-after-partial-report", Rule: "AOPOUT-MARKER-001 [AOP:END] missing after a crash", Doc: "prints the report up to [AOP:STATUS] partial, then exits with code 2"})
	FaultMalformedJSON           = faults.Add(fault.Fault{Name: "malformed-json", Rule: "AOPOUT-DETAILS-003 details file is not JSON", Doc: "writes a details file whose JSON is cut short"})
	FaultEmptyReport             = faults.Add(fault.Fault{Name: "empty-report", Rule: "AOPOUT-SUMMARY-001 [AOP:SUMMARY] has no findings", Doc: "prints every marker but leaves the summary empty"})
	FaultNoCompletionReport      = faults.Add(fault.Fault{Name: "no-completion-report", Rule: "GEN-DETECT-001 no AOP report at all", Doc: "does the work and exits 0 without printing a report"})
	FaultOversizePayload         = faults.Add(fault.Fault{Name: "oversize-payload", Rule: "AOPOUT-CONTENT-001 full results dumped into the report", Doc: "prints 12,000 characters of file content inside the report"})
	FaultBadTimestamps           = faults.Add(fault.Fault{Name: "bad-timestamps", Rule: "AOPOUT-TIME-001 [AOP:START]/[AOP:END] not ISO timestamps", Doc: "writes \"yesterday\" after [AOP:START] and a local-time END"})
	FaultStdoutGarbage           = faults.Add(fault.Fault{Name: "stdout-garbage", Rule: "AOPOUT-MARKER-005 text outside [AOP:START] … [AOP:END]", Doc: "prints log lines before and after the report"})
	FaultMissingMarker           = faults.Add(fault.Fault{Name: "missing-marker", Rule: "AOPOUT-MARKER-001 [AOP:START] is missing", Doc: "leaves out the [AOP:START] line"})
	FaultSummaryTooLong          = faults.Add(fault.Fault{Name: "summary-too-long", Rule: "AOPOUT-SUMMARY-002 summary over the task type's limit", Doc: "writes a summary longer than the limit of its task type"})
	FaultBadStatus               = faults.Add(fault.Fault{Name: "bad-status", Rule: "AOPOUT-STATUS-001 status must be success, failure or partial", Doc: "reports [AOP:STATUS] done"})
	FaultDetailsFileMissing      = faults.Add(fault.Fault{Name: "details-file-missing", Rule: "AOPOUT-DETAILS-002 [AOP:DETAILS_FILE] names a file that does not exist", Doc: "names a details file it never writes"})
	FaultMarkersOutOfOrder       = faults.Add(fault.Fault{Name: "markers-out-of-order", Rule: "AOPOUT-MARKER-003 markers out of order", Doc: "prints [AOP:STATUS] before [AOP:SUMMARY]"})
	FaultDetailsPathEscape       = faults.Add(fault.Fault{Name: "details-path-escape", Rule: "AOPOUT-DETAILS-004 details path leaves the scratch directory", Doc: "names ../outside.json as its details file (and writes nothing there)"})
	FaultTaskTooLong             = faults.Add(fault.Fault{Name: "task-too-long", Rule: "AOPOUT-TASK-001 [AOP:TASK] over 50 characters", Doc: "writes the whole task text, over 50 characters, after [AOP:TASK]"})
	FaultTooManyBullets          = faults.Add(fault.Fault{Name: "too-many-bullets", Rule: "AOPOUT-SUMMARY-001 more than 5 bullet points", Doc: "writes seven short bullet points"})
	FaultHangAfterReport         = faults.Add(fault.Fault{Name: "hang-after-report", Rule: "aop-output/bind/exit-zero agent does not exit after [AOP:END]", Doc: "prints a complete report, then never exits (until stopped)"})
	FaultSparseDetails           = faults.Add(fault.Fault{Name: "sparse-details", Rule: "aop-output/details/fields the details file should include aop_version, agent_id, task, timestamp and results (AOPOUT-FILE-001, §Details File Format)", Doc: "writes its details JSON without agent_id"})
	FaultQuotedDuration          = faults.Add(fault.Fault{Name: "quoted-duration", Rule: "AOPOUT-SCHEMA-001 (aop-output/lint/messages-valid) the details file's duration_ms is an integer (§Details File Format)", Doc: "writes duration_ms in its details JSON as the string \"2000\""})
	FaultIgnoreShutdown          = faults.Add(fault.Fault{Name: "ignore-shutdown", Rule: "aop-output/bind/stop-on-sigterm exit within the grace period after SIGTERM (bindings §Process control)", Doc: "ignores SIGTERM and works on (4 s, twice as long): stopped mid-task, only SIGKILL ends it"})
)

// Agent is the protocol's reference agent (conform/protocols lists it).
var Agent = mockagent.Register(&mockagent.Agent{Protocol: "aop-output", Faults: &faults, Run: Run})

// script is the out-of-band behaviour script of an orchestrator-side scenario
// ($AOPKIT_MOCKAGENT_SCRIPT): Metrics, when set, replaces the value of
// [AOP:METRICS] ("" leaves the optional marker out).
type script struct {
	Metrics *string `json:"metrics"`
	// DetailsBytes pads the details file's results to about that many bytes
	// ("can be any size", §Details File Format); the report's METRICS then
	// tells the file's size as details_bytes.
	DetailsBytes int `json:"details_bytes"`
}

// maxDetailsBytes bounds the script's details_bytes.
const maxDetailsBytes = 64 << 20

// defaultMetrics is the value of [AOP:METRICS] without a script.
const defaultMetrics = "items_examined: 3, findings: 1, duration: 2s"

const ts = "2006-01-02T15:04:05Z"

// Run plays the aop-output agent; see the package doc.
func Run(ctx context.Context, env mockagent.Env, fault string) int {
	line, err := bufio.NewReader(env.Stdin).ReadBytes('\n')
	in, bad := spec.DecodeTaskLine(line)
	if (err != nil && len(line) == 0) || bad != nil {
		fmt.Fprintln(env.Stderr, "mockagent aop-output: stdin must carry one JSON line {\"task\":...,\"task_type\":...}")
		return 2
	}
	if in.TaskType == "" {
		in.TaskType = "analysis"
	}
	var sc script
	if b, ok := mockagent.Script(env); ok {
		json.Unmarshal(b, &sc)
	}
	detailsSize := 0
	metrics := func() {
		out, v := env.Stdout, defaultMetrics
		if detailsSize > 0 {
			v += fmt.Sprintf(", details_bytes: %d", detailsSize)
		}
		if sc.Metrics != nil {
			v = *sc.Metrics
		}
		if v != "" {
			fmt.Fprintln(out, "[AOP:METRICS] "+v)
		}
	}
	scratch := env.Getenv("AOPKIT_SCRATCH")
	if scratch == "" {
		scratch = env.Dir
	}
	clk := env.Clock
	started := clk.Now().UTC()
	out := env.Stdout
	sleep := func(d time.Duration) bool { return env.Sleep(ctx, d) }
	task := in.Task
	if r := []rune(task); len(r) > spec.MaxTask && fault != FaultTaskTooLong {
		task = string(r[:spec.MaxTask-3]) + "..."
	}
	if fault == FaultStdoutGarbage {
		fmt.Fprintln(out, "Loading workspace index...")
	}
	if fault != FaultMissingMarker && fault != FaultNoCompletionReport {
		start := started.Format(ts)
		if fault == FaultBadTimestamps {
			start = "yesterday"
		}
		fmt.Fprintf(out, "[AOP:START] %s\n", start)
	}
	if fault != FaultNoCompletionReport {
		fmt.Fprintf(out, "[AOP:TASK] %s\n\n", task)
	}
	switch fault {
	case FaultHang:
		for sleep(time.Minute) {
		}
		return 0
	case FaultCrashMidTask:
		fmt.Fprintln(env.Stderr, "mockagent aop-output: simulated crash")
		return 2
	case FaultExceedTimeout:
		if !sleep(10 * time.Minute) {
			return 0
		}
	}
	work := 2 * time.Second
	if fault == FaultIgnoreShutdown {
		work *= 2
	}
	if !sleep(work) {
		return 0
	}
	if fault == FaultOversizePayload {
		for i := 0; i < 200; i++ {
			fmt.Fprintf(out, "    line %03d: const handler = require('./auth/handler'); // full file content\n", i)
		}
	}
	rel := filepath.Join("outputs", in.TaskType+"-details.json")
	detailsName := filepath.ToSlash(rel)
	switch fault {
	case FaultDetailsFileMissing:
		detailsName = "outputs/never-written.json"
	case FaultDetailsPathEscape:
		detailsName = "../outside.json"
	}
	if fault != FaultDetailsFileMissing && fault != FaultDetailsPathEscape {
		details := map[string]any{"aop_version": "1.0.0", "agent_id": "mockagent-" + in.TaskType, "task": in.Task,
			"timestamp": started.Format(ts), "duration_ms": 2000,
			"results":  map[string]any{"items": []string{"item-1", "item-2", "item-3"}, "analysis": "Scripted work: three items examined, one finding."},
			"metadata": map[string]any{"items_examined": 3, "findings": 1}}
		switch fault {
		case FaultSparseDetails:
			delete(details, "agent_id")
		case FaultQuotedDuration:
			details["duration_ms"] = "2000"
		}
		if n := min(sc.DetailsBytes, maxDetailsBytes); n > 0 {
			details["results"].(map[string]any)["log"] = strings.Repeat("scripted log line\n", n/18+1)
		}
		data, _ := json.MarshalIndent(details, "", "  ")
		if sc.DetailsBytes > 0 {
			detailsSize = len(data) + 1
		}
		if fault == FaultMalformedJSON {
			data = data[:len(data)/2]
		}
		dir := filepath.Join(scratch, "outputs")
		if err := os.MkdirAll(dir, 0o755); err == nil {
			os.WriteFile(filepath.Join(scratch, rel), append(data, '\n'), 0o644)
		}
	}
	status := "success"
	if fault == FaultBadStatus {
		status = "done"
	}
	bullets := []string{"Examined 3 items for: " + shorten(in.Task, 60), "1 finding recorded in the details file", "No errors during the run"}
	switch fault {
	case FaultEmptyReport:
		bullets = nil
	case FaultSummaryTooLong:
		bullets = nil
		for i := 1; i <= 5; i++ {
			bullets = append(bullets, fmt.Sprintf("Finding %d: %s", i, strings.Repeat("a detail the parent did not need to see, ", 4)))
		}
	case FaultTooManyBullets:
		bullets = []string{"a", "b", "c", "d", "e", "f", "g"}
	}
	summary := func() {
		fmt.Fprintln(out, "[AOP:SUMMARY]")
		for _, b := range bullets {
			fmt.Fprintf(out, "- %s\n", b)
		}
		fmt.Fprintln(out)
	}
	if fault == FaultMarkersOutOfOrder {
		fmt.Fprintf(out, "[AOP:STATUS] %s\n", status)
		summary()
		fmt.Fprintf(out, "[AOP:DETAILS_FILE] %s\n", detailsName)
		metrics()
	} else if fault != FaultNoCompletionReport {
		summary()
		fmt.Fprintf(out, "[AOP:DETAILS_FILE] %s\n", detailsName)
		metrics()
		if fault == FaultCrashAfterPartialReport {
			fmt.Fprintln(out, "[AOP:STATUS] partial")
			fmt.Fprintln(env.Stderr, "mockagent aop-output: simulated crash")
			return 2
		}
		fmt.Fprintf(out, "[AOP:STATUS] %s\n", status)
	}
	if fault != FaultNoCompletionReport {
		end := clk.Now().UTC().Format(ts)
		if fault == FaultBadTimestamps {
			end = clk.Now().UTC().Format("02/01/2006 15:04")
		}
		fmt.Fprintf(out, "[AOP:END] %s\n", end)
	}
	if fault == FaultStdoutGarbage {
		fmt.Fprintln(out, "Done. Cleaning up temporary files.")
	}
	if fault == FaultHangAfterReport {
		for sleep(time.Minute) {
		}
	}
	return 0
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}
