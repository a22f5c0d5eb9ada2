package aof

import (
	"errors"

	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// Scheduler actions.
const (
	ActionStaleReclaim = "stale_heartbeat_reclaim" // no run_result: back to ready, run expired
	ActionStaleOutcome = "stale_heartbeat_outcome" // run_result: outcome-driven transitions
	ActionStaleInvalid = "stale_heartbeat_invalid_result"
)

// Action is one thing a scheduler poll did.
type Action struct {
	TaskID      string
	Kind        string
	Transitions []string
	Written     []Written
}

// Poll is the scheduler poll (aof-1 §Stale Heartbeat Flow): for every in-progress
// task whose run_heartbeat.json has expiresAt <= now, consult run_result.json and
// either apply the outcome-driven transitions or reclaim the task to ready and mark
// the run expired. A task without a heartbeat is skipped (it may predate the
// protocol).
func (r *Router) Poll() []Action {
	tasks, _ := r.Store.List(spec.InProgress)
	now := r.Store.Clock.Now()
	var out []Action
	for _, t := range tasks {
		hb, err := r.Store.ReadHeartbeat(t.ID)
		if err != nil && r.Fault == FaultReclaimNoHeartbeat {
			hb, err = &Heartbeat{ExpiresAt: spec.FormatTime(now)}, nil
		}
		if err != nil {
			continue
		}
		exp, _ := parseTime(hb.ExpiresAt)
		if last, err := parseTime(hb.LastHeartbeat); err == nil && r.Fault == FaultReclaimTooEarly && exp.After(last) {
			exp = last.Add(exp.Sub(last) / 4) // a quarter of the TTL
		}
		if !spec.Stale(exp, now) {
			continue
		}
		rr, err := r.Store.ReadRunResult(t.ID)
		if r.Fault == FaultBlindRequeue {
			err = errNoRunResult // the fault: the run's result is never consulted
		}
		switch {
		case errors.Is(err, errNoRunResult):
			a := Action{TaskID: t.ID, Kind: ActionStaleReclaim}
			if ok, err := r.Store.Transition(t.ID, spec.Ready, ActionStaleReclaim, "scheduler"); err == nil && ok {
				a.Transitions = []string{spec.Ready}
			}
			if w, err := r.Store.MarkRunExpired(t.ID, "stale_heartbeat"); err == nil {
				a.Written = append(a.Written, w)
			}
			out = append(out, a)
		case err != nil:
			r.log("protocol.message.rejected", "scheduler", t.ID, map[string]any{"reason": ReasonInvalidRunResult, "detail": err.Error()})
			out = append(out, Action{TaskID: t.ID, Kind: ActionStaleInvalid})
		default:
			applied := r.applyOutcome(t, rr, "stale_heartbeat_"+rr.Outcome)
			out = append(out, Action{TaskID: t.ID, Kind: ActionStaleOutcome, Transitions: applied})
		}
	}
	return out
}
