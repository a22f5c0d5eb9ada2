package aopoutput

import (
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
)

const good = `[AOP:START] 2026-02-05T10:30:00Z
[AOP:TASK] Search for auth implementations

[AOP:SUMMARY]
- Found 8 auth-related files in src/auth/
- Main handler: src/auth/handler.ts (450 lines)

[AOP:DETAILS_FILE] none
[AOP:METRICS] files_scanned: 234, matches: 8, duration: 12s
[AOP:STATUS] success
[AOP:END] 2026-02-05T10:30:12Z
`

func TestParse(t *testing.T) {
	t.Parallel()
	r := parse([]byte(good))
	var names []string
	for _, m := range r.Markers {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, ","); got != "START,TASK,SUMMARY,DETAILS_FILE,METRICS,STATUS,END" {
		t.Fatalf("markers %s", got)
	}
	if v := r.First("TASK").Value; v != "Search for auth implementations" {
		t.Errorf("TASK %q", v)
	}
	lines, text := r.Summary()
	if len(lines) != 2 || !lines[0].Bullet || !strings.HasPrefix(text, "- Found 8") || strings.HasSuffix(text, "\n") {
		t.Errorf("summary %d lines, text %q", len(lines), text)
	}
	if got := spec.Metrics(r.First("METRICS").Value); got["matches"] != "8" || got["duration"] != "12s" {
		t.Errorf("metrics %v", got)
	}
	if off := r.First("STATUS").ValOff; good[off:off+7] != "success" {
		t.Errorf("STATUS value offset %d points at %q", off, good[off:off+7])
	}
}

func TestDetectText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, dialect string
		conf        int
	}{
		{good, "", 95},
		{"[AOP:SUMMARY] Brief\n[AOP:DETAILS_FILE] x.json\n[AOP:STATUS] success\n", DialectThreeMarker, 85},
		{"[AOP:STATUS] SUCCESS\n[AOP:FILES] a.ts\n", DialectFiles, 85},
		{strings.Replace(good, "] success", "] SUCCESS", 1), DialectUpperStatus, 95},
		{strings.Replace(good, "] success", "] BLOCKED", 1), DialectFiles, 95},
		{"compiling...", "", 0},
		{"see [AOP:START] in the docs", "", 0},
		{"[AOP:WHATEVER] x", "", 0},
	} {
		_, d, c := DetectText([]byte(tc.in))
		if d != tc.dialect || c != tc.conf {
			t.Errorf("DetectText(%.30q) = %q, %d; want %q, %d", tc.in, d, c, tc.dialect, tc.conf)
		}
	}
}

func rulesOf(ds []lint.Diagnostic) string {
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.Severity.String()+" "+d.Rule)
	}
	return strings.Join(ids, "; ")
}

func TestReportRules(t *testing.T) {
	t.Parallel()
	long := "- " + strings.Repeat("x", 298)
	longUTF8 := "- " + strings.Repeat("é", 298)
	for _, tc := range []struct {
		name, text, taskType, want string
	}{
		{"good", good, "", ""},
		{"good-search", good, "search", ""},
		{"300-chars-code", strings.Replace(good, "- Found 8 auth-related files in src/auth/\n- Main handler: src/auth/handler.ts (450 lines)", long, 1), "code", ""},
		{"301-chars-code", strings.Replace(good, "- Found 8 auth-related files in src/auth/\n- Main handler: src/auth/handler.ts (450 lines)", long+"x", 1), "code", "error AOPOUT-SUMMARY-002"},
		// more bytes than the limit, but not more characters: counted, not refused by length
		{"300-two-byte-chars-code", strings.Replace(good, "- Found 8 auth-related files in src/auth/\n- Main handler: src/auth/handler.ts (450 lines)", longUTF8, 1), "code", ""},
		{"301-two-byte-chars-code", strings.Replace(good, "- Found 8 auth-related files in src/auth/\n- Main handler: src/auth/handler.ts (450 lines)", longUTF8+"é", 1), "code", "error AOPOUT-SUMMARY-002"},
		{"301-chars-default", strings.Replace(good, "- Found 8 auth-related files in src/auth/\n- Main handler: src/auth/handler.ts (450 lines)", long+"x", 1), "", ""},
		{"status-trailing", strings.Replace(good, "] success", "] success (all green)", 1), "", "warning AOPOUT-STATUS-001"},
		{"status-failed", strings.Replace(good, "] success", "] FAILED", 1), "", "error AOPOUT-STATUS-001"},
		{"one-trace-frame-ok", strings.Replace(good, "(450 lines)", "(450 lines)\n    at verify (src/auth/handler.ts:42:17)", 1), "", ""},
		{"five-code-lines-ok", strings.Replace(good, "(450 lines)", "(450 lines)\n```\na;\nb;\nc;\nd;\ne;\n```", 1), "", ""},
		{"six-code-lines", strings.Replace(good, "(450 lines)", "(450 lines)\n```\na;\nb;\nc;\nd;\ne;\nf;\n```", 1), "", "error AOPOUT-SUMMARY-003"},
		{"end-equals-start", strings.Replace(good, "10:30:12Z", "10:30:00Z", 1), "", ""},
		{"end-offset-zone", strings.Replace(good, "10:30:12Z", "11:30:12+01:00", 1), "", ""},
		{"end-before-start-zone", strings.Replace(good, "10:30:12Z", "10:30:12+01:00", 1), "", "error AOPOUT-TIME-002"},
		{"task-50", strings.Replace(good, "Search for auth implementations", strings.Repeat("é", 50), 1), "", ""},
		{"task-51", strings.Replace(good, "Search for auth implementations", strings.Repeat("é", 51), 1), "", "error AOPOUT-TASK-001"},
		// METRICS as the spec's parser reads it: split(':') keeps the text
		// between the first and the second colon, and trim() is JavaScript's.
		{"metrics-empty-value-before-colon", strings.Replace(good, "matches: 8", "matches::8", 1), "", "warning AOPOUT-METRICS-001"},
		{"metrics-value-cut-at-colon", strings.Replace(good, "duration: 12s", "started: 10:30", 1), "", "warning AOPOUT-METRICS-001"},
		{"metrics-value-only-bom", strings.Replace(good, "matches: 8", "matches: \ufeff", 1), "", "warning AOPOUT-METRICS-001"},
		{"metrics-value-nel-kept", strings.Replace(good, "matches: 8", "matches: \u0085", 1), "", ""},
		{"task-nel-is-text", strings.Replace(good, "Search for auth implementations", "\u0085", 1), "", ""},
		{"task-bom-is-blank", strings.Replace(good, "Search for auth implementations", "\ufeff", 1), "", "error AOPOUT-TASK-001"},
		// DETAILS_FILE as \S+ reads it: JavaScript's white space ends the word.
		{"details-nbsp-cuts-path", strings.Replace(good, "[AOP:DETAILS_FILE] none", "[AOP:DETAILS_FILE] out\u00a0dir/a.json", 1), "", "error AOPOUT-DETAILS-001"},
		{"details-form-feed-cuts-path", strings.Replace(good, "[AOP:DETAILS_FILE] none", "[AOP:DETAILS_FILE] out\fdir/a.json", 1), "", "error AOPOUT-DETAILS-001"},
	} {
		got := rulesOf(lintReport(tc.text, lint.Options{TaskType: tc.taskType}))
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
