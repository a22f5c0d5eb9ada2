package orchside

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/lint/spec/aof"
)

// A scheduler whose own heartbeat TTL outlives the scenario (d0labs/aof writes
// 5 minutes) leaves the stale-heartbeat checks NOT-APPLICABLE, saying why; a
// heartbeat that expired in time, or a task recovered anyway, is judged.
func TestAOFTTLOutlived(t *testing.T) {
	const staleID, crashID = "TASK-2026-11-22-004", "TASK-2026-11-22-007"
	stale, staleB := aofScenario(t, "orch-aof-stale-reclaim")
	crash, crashB := aofScenario(t, "orch-aof-crash-partial")
	hung := aofLaunch(staleID, "swe-backend", nil, sig("14s"), exit("14s", 0))
	fiveMin := heartbeat("500ms", "5m0.5s")
	upstreamDir := func(t *AOFTask) { t.RunDir = "state/runs/" + t.ID }
	ended := func(s *conform.Session) *conform.Session {
		s.Attempts[0].End = at("15s")
		return s
	}
	partial := aofLaunch(crashID, "swe-backend", []string{aofReport(crashID, "swe-backend", "partial")}, exit("1s", 2))
	cases := []struct {
		check, name string
		s           *conform.Session
		want        conform.Verdict
	}{
		{"aof/orch/resume/reclaim-after-expiry", "5-minute TTL, still in progress", ended(aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.InProgress), upstreamDir, fiveMin}}), hung)), conform.NotApplicable},
		{"aof/orch/resume/reclaim-after-expiry", "the scenario's TTL, never reclaimed", ended(aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.InProgress), heartbeat("500ms", "4.5s")}}), hung)), conform.Fail},
		{"aof/orch/resume/reclaim-after-expiry", "5-minute TTL, reclaimed anyway without expiring the run", ended(aofSess(stale, staleB, state(nil, map[string][]aofTaskOpt{staleID: {status(aof.Ready), runJSON("swe-backend", "running"), fiveMin}}), hung)), conform.Fail},
		{"aof/orch/resume/outcome-driven", "5-minute TTL, still in progress", ended(aofSess(crash, crashB, state(nil, map[string][]aofTaskOpt{crashID: {status(aof.InProgress), fiveMin, result("swe-backend", "partial")}}), partial)), conform.NotApplicable},
		{"aof/orch/resume/outcome-driven", "the scenario's TTL, never recovered", ended(aofSess(crash, crashB, state(nil, map[string][]aofTaskOpt{crashID: {status(aof.InProgress), heartbeat("500ms", "2s"), result("swe-backend", "partial")}}), partial)), conform.Fail},
	}
	for _, c := range cases {
		t.Run(c.check+"/"+c.name, func(t *testing.T) {
			o := conform.LookupCheck(c.check).Run(c.s)
			if o.Verdict != c.want {
				t.Fatalf("%s, want %s: %s", o.Verdict, c.want, o.Message)
			}
			if c.want == conform.NotApplicable && (!strings.Contains(o.Message, "heartbeat TTL is 5m0s") || !strings.Contains(o.Message, "not the scenario's")) {
				t.Errorf("the reason does not name the TTLs: %s", o.Message)
			}
		})
	}
}

// d0labs/aof keeps run artifacts in state/runs/<id>/ and events/events.jsonl a
// link to the day's log: both are read, the log once.
func TestReadAOFStateUpstreamLayout(t *testing.T) {
	dir := t.TempDir()
	const id = "TASK-2026-12-07-001"
	b, err := os.ReadFile("../../testdata/aoftasks/aof-written.md")
	if err != nil {
		t.Fatal(err)
	}
	for rel, data := range map[string]string{
		"tasks/in-progress/" + id + ".md":          string(b),
		"state/runs/" + id + "/run.json":           `{"taskId":"` + id + `","agentId":"swe-backend","status":"running"}`,
		"state/runs/" + id + "/run_heartbeat.json": `{"lastHeartbeat":"2026-12-07T03:31:34.700Z","expiresAt":"2026-12-07T03:36:34.700Z"}`,
		"events/2026-12-07.jsonl":                  `{"type":"delegation.rejected","taskId":"` + id + `","payload":{"reason":"nested_delegation"}}` + "\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("2026-12-07.jsonl", filepath.Join(dir, "events", "events.jsonl")); err != nil {
		t.Fatal(err)
	}
	st := ReadAOFState(dir)
	task := st.Tasks[id]
	if task == nil || task.RunDir != "state/runs/"+id || task.Run == nil || task.Heartbeat == nil || task.Task == nil || task.Task.Assignee != "swe-backend" {
		t.Fatalf("task = %+v", task)
	}
	if task.runDirIn(dir) != filepath.Join(dir, "state", "runs", id) {
		t.Errorf("run dir %s", task.runDirIn(dir))
	}
	if len(st.Events) != 1 || !st.HasEvent("delegation.rejected", "nested_delegation", id) {
		t.Errorf("events = %+v", st.Events)
	}
	if len(st.Problems) != 0 {
		t.Errorf("problems: %v", st.Problems)
	}
}
