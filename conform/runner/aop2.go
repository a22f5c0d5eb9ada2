package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
)

func runtimeNumCPU() int { return runtime.NumCPU() }

// drivers play the orchestrator side of each protocol.
var drivers = map[string]func(h *H) error{
	"aop2":       driveAOP2,
	"orchmsg":    driveOrchmsg,
	"aos":        driveAOS,
	"aop-output": driveAOPOutput,
	"aof":        driveAOF,
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

// aop2Policy is what the driver reads of a TASK.
type aop2Policy struct {
	ExecutionPolicy struct {
		TimeoutSeconds         *float64 `json:"timeout_seconds"`
		AutoTerminateOnTimeout *bool    `json:"auto_terminate_on_timeout"`
		Heartbeat              *struct {
			Enabled            bool    `json:"enabled"`
			IntervalSeconds    float64 `json:"interval_seconds"`
			MaxMissedBeats     int     `json:"max_missed_beats"`
			OnHeartbeatFailure string  `json:"on_heartbeat_failure"`
		} `json:"heartbeat"`
	} `json:"execution_policy"`
	GuardRails struct {
		TimeoutSeconds         *float64 `json:"timeout_seconds"`
		AutoTerminateOnTimeout *bool    `json:"auto_terminate_on_timeout"`
	} `json:"guard_rails"`
}

// EffectiveTimeout is the §11 precedence: guard_rails.timeout_seconds overrides
// execution_policy.timeout_seconds; zero when neither is set.
func (p aop2Policy) EffectiveTimeout() time.Duration {
	switch {
	case p.GuardRails.TimeoutSeconds != nil:
		return time.Duration(*p.GuardRails.TimeoutSeconds * float64(time.Second))
	case p.ExecutionPolicy.TimeoutSeconds != nil:
		return time.Duration(*p.ExecutionPolicy.TimeoutSeconds * float64(time.Second))
	}
	return 0
}

func (p aop2Policy) autoTerminate() bool {
	if p.GuardRails.AutoTerminateOnTimeout != nil {
		return *p.GuardRails.AutoTerminateOnTimeout
	}
	if p.ExecutionPolicy.AutoTerminateOnTimeout != nil {
		return *p.ExecutionPolicy.AutoTerminateOnTimeout
	}
	return true
}

// driveAOP2: one TASK line per attempt on stdin (kept open), EVENT and RESPONSE lines
// back; the effective timeout (§11) terminates the agent; missing heartbeats
// (interval × max_missed_beats) are detected and, with on_heartbeat_failure ABORT,
// stop the agent.
func driveAOP2(h *H) error {
	ws := filepath.Join(h.scratch, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return harnessErrorf("workspace: %v", err)
	}
	attempts := h.sc.Attempts
	if len(attempts) == 0 {
		attempts = []json.RawMessage{json.RawMessage(`{}`)}
	}
	for _, patch := range attempts {
		task, err := conform.MergePatch(h.sc.Task, patch)
		if err != nil {
			return harnessErrorf("scenario %s: attempts: %v", h.sc.ID, err)
		}
		task = h.Expand(task)
		var pol aop2Policy
		if err := json.Unmarshal(task, &pol); err != nil {
			return harnessErrorf("scenario %s: task: %v", h.sc.ID, err)
		}
		a, err := h.Launch(task, "AOP2_WORKSPACE="+ws)
		if err != nil {
			return err
		}
		a.Send(task)
		var extra []conform.Step
		if to := pol.EffectiveTimeout(); to > 0 && pol.autoTerminate() {
			extra = append(extra, conform.Step{Do: "terminate", After: conform.Duration(to), Reason: "E_TIMEOUT"})
		}
		hb := pol.ExecutionPolicy.Heartbeat
		var lastBeat time.Time
		failed := false
		var monitor func(a *Agent, now time.Time) time.Time
		if hb != nil && hb.Enabled && hb.IntervalSeconds > 0 {
			missed := hb.MaxMissedBeats
			if missed <= 0 {
				missed = 3
			}
			limit := h.Scale(time.Duration(hb.IntervalSeconds*float64(missed)*float64(time.Second))) + h.Scale(250*time.Millisecond)
			lastBeat = a.att.Start
			monitor = func(a *Agent, now time.Time) time.Time {
				if failed || !a.att.Terminated.IsZero() {
					return time.Time{}
				}
				if now.Sub(lastBeat) >= limit {
					failed = true
					h.rec.event(a.n, "heartbeat-failure", map[string]any{"code": "E_HEARTBEAT_FAILURE", "missed_for_ms": now.Sub(lastBeat).Milliseconds(), "action": hb.OnHeartbeatFailure})
					h.Fact("aop2.heartbeat_failure", true)
					if strings.EqualFold(hb.OnHeartbeatFailure, "ABORT") || hb.OnHeartbeatFailure == "" {
						a.Terminate("E_HEARTBEAT_FAILURE")
					}
					return time.Time{}
				}
				return lastBeat.Add(limit)
			}
		}
		responses := 0
		err = a.Run(Handler{
			Key: AOP2Key,
			OnLine: func(a *Agent, r conform.Record) {
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
