package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	engaopoutput "github.com/aopkit/aopkit/conform/engine/aopoutput"

	"github.com/aopkit/aopkit/conform/harness"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/checks"
	engaop2 "github.com/aopkit/aopkit/conform/engine/aop2"
	engorchmsg "github.com/aopkit/aopkit/conform/engine/orchmsg"
)

func runtimeNumCPU() int { return runtime.NumCPU() }

// drivers play the orchestrator side of each protocol.
var drivers = map[string]func(h *harness.H) error{
	"aop2":       driveAOP2,
	"orchmsg":    engorchmsg.Drive,
	"aos":        driveAOS,
	"aop-output": engaopoutput.Drive,
	"aof":        engaof.Drive,
}

// AOP2Key names an aop2 message: "TASK", "RESPONSE", "EVENT/HEARTBEAT", ...
func AOP2Key(r *conform.Record) string {
	m := r.Obj()
	if m == nil {
		return ""
	}
	t, _ := m["message_type"].(string)
	if t == "EVENT" {
		e, _ := m["event"].(string)
		return "EVENT/" + e
	}
	return t
}

// driveAOP2: one TASK line per attempt on stdin (kept open), EVENT and RESPONSE lines
// back; the effective timeout (§11) terminates the agent; missing heartbeats
// (interval × max_missed_beats) are detected and, with on_heartbeat_failure ABORT,
// stop the agent.
func driveAOP2(h *harness.H) error {
	ws := filepath.Join(h.Scratch(), "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return harness.Errorf("workspace: %v", err)
	}
	attempts := h.Scenario().Attempts
	if len(attempts) == 0 {
		attempts = []json.RawMessage{json.RawMessage(`{}`)}
	}
	h.Fact("aop2.workspace", ws)
	snaps := takeSnapshots(h, h.Expand(h.Scenario().Task))
	defer func() {
		h.Fact("aop2.snapshots", verifySnapshots(h, snaps))
		h.Fact("aop2.files", hashFiles(ws, 500))
	}()
	for _, patch := range attempts {
		task, err := conform.MergePatch(h.Scenario().Task, patch)
		if err != nil {
			return harness.Errorf("scenario %s: attempts: %v", h.Scenario().ID, err)
		}
		task = h.Expand(task)
		// The reference engine reads the TASK: §11 precedence, heartbeat policy.
		parsed, _, err := engaop2.ParseTask(task)
		if err != nil || parsed == nil {
			return harness.Errorf("scenario %s: task: %v", h.Scenario().ID, err)
		}
		pol := parsed.Policy
		a, err := h.Launch(task, "AOP2_WORKSPACE="+ws)
		if errors.Is(err, harness.ErrNoTime) {
			return nil
		}
		if err != nil {
			return err
		}
		a.Send(task)
		var extra []conform.Step
		if pol.Timeout > 0 && pol.AutoTerminate {
			extra = append(extra, conform.Step{Do: "terminate", After: conform.Duration(pol.Timeout), Reason: "E_TIMEOUT"})
		}
		var lastBeat time.Time
		failed := false
		var monitor func(a *harness.Agent, now time.Time) time.Time
		if pol.Heartbeat && pol.HeartbeatInterval > 0 {
			limit := h.Scale(pol.HeartbeatInterval*time.Duration(pol.MaxMissedBeats)) + h.Scale(250*time.Millisecond)
			monitor = func(a *harness.Agent, now time.Time) time.Time {
				if failed || !a.Attempt().Terminated.IsZero() {
					return time.Time{}
				}
				if lastBeat.IsZero() {
					// Heartbeats are owed from the first sign of life on.
					if a.Attempt().Alive.IsZero() {
						return time.Time{}
					}
					lastBeat = a.Attempt().Alive
				}
				if now.Sub(lastBeat) >= limit {
					failed = true
					h.Event(a.N(), "heartbeat-failure", map[string]any{"code": "E_HEARTBEAT_FAILURE", "missed_for_ms": now.Sub(lastBeat).Milliseconds(), "action": pol.OnHeartbeatFailure})
					h.Fact("aop2.heartbeat_failure", true)
					if strings.EqualFold(pol.OnHeartbeatFailure, "ABORT") {
						a.Terminate("E_HEARTBEAT_FAILURE")
					}
					return time.Time{}
				}
				return lastBeat.Add(limit)
			}
		}
		responses := 0
		err = a.Run(harness.Handler{
			Key: AOP2Key,
			OnLine: func(a *harness.Agent, r conform.Record) {
				switch r.Key {
				case "EVENT/HEARTBEAT":
					lastBeat = r.Time
				case "RESPONSE":
					responses++
					// The final answer is in: heartbeats are no longer owed.
					lastBeat = r.Time.Add(time.Hour)
				}
			},
			Monitor: monitor,
			Extra:   extra,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

type snapshot struct {
	rel  string
	path string
	data []byte
}

// takeSnapshots plays the orchestrator's rollback duty (§7): before dispatch it
// copies every expected output with rollback_snapshot.enabled to its snapshot_path
// (creating the output with seed content when it does not exist yet). Paths outside
// the scratch directory are ignored.
func takeSnapshots(h *harness.H, task []byte) []snapshot {
	var t struct {
		Task struct {
			ExpectedOutputs []struct {
				Path             string `json:"path"`
				RollbackSnapshot *struct {
					Enabled      bool   `json:"enabled"`
					SnapshotPath string `json:"snapshot_path"`
				} `json:"rollback_snapshot"`
			} `json:"expected_outputs"`
		} `json:"task"`
	}
	if json.Unmarshal(task, &t) != nil {
		return nil
	}
	var out []snapshot
	for _, o := range t.Task.ExpectedOutputs {
		rs := o.RollbackSnapshot
		if rs == nil || !rs.Enabled || rs.SnapshotPath == "" {
			continue
		}
		src, ok1 := h.Inside(o.Path)
		dst, ok2 := h.Inside(rs.SnapshotPath)
		if !ok1 || !ok2 {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			data = []byte("original content of " + filepath.Base(src) + "\n")
			os.MkdirAll(filepath.Dir(src), 0o755)
			os.WriteFile(src, data, 0o644)
		}
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if os.WriteFile(dst, data, 0o644) != nil {
			continue
		}
		rel, _ := filepath.Rel(h.Scratch(), dst)
		out = append(out, snapshot{rel: filepath.ToSlash(rel), path: dst, data: data})
	}
	return out
}

func verifySnapshots(h *harness.H, snaps []snapshot) []checks.Snapshot {
	var out []checks.Snapshot
	for _, s := range snaps {
		got, err := os.ReadFile(s.path)
		cs := checks.Snapshot{Path: s.rel, Intact: err == nil && bytes.Equal(got, s.data)}
		switch {
		case err != nil:
			cs.After = "deleted"
		case !cs.Intact:
			cs.After = "changed"
		}
		out = append(out, cs)
	}
	return out
}

// hashFiles maps the regular files under root (slash paths) to their sha256.
func hashFiles(root string, max int) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= max || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 16<<20 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = checks.SHA256Hex(b)
		return nil
	})
	return out
}
