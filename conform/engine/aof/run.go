package aof

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// Run is run.json (aof-1 §Artifacts 1).
type Run struct {
	TaskID        string            `json:"taskId"`
	AgentID       string            `json:"agentId"`
	StartedAt     string            `json:"startedAt"`
	Status        string            `json:"status"`
	ArtifactPaths map[string]string `json:"artifactPaths"`
	Metadata      map[string]any    `json:"metadata"`
	ExpiredAt     string            `json:"expiredAt,omitempty"`
	ExpiredReason string            `json:"expiredReason,omitempty"`
}

// Heartbeat is run_heartbeat.json (aof-1 §Artifacts 2).
type Heartbeat struct {
	TaskID        string `json:"taskId"`
	AgentID       string `json:"agentId"`
	LastHeartbeat string `json:"lastHeartbeat"`
	BeatCount     int    `json:"beatCount"`
	ExpiresAt     string `json:"expiresAt"`
}

// Tests is the TestReport of a completion.
type Tests struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// RunResult is run_result.json (aof-1 §run_result.json Schema).
type RunResult struct {
	TaskID       string   `json:"taskId"`
	AgentID      string   `json:"agentId"`
	CompletedAt  string   `json:"completedAt"`
	Outcome      string   `json:"outcome"`
	SummaryRef   string   `json:"summaryRef"`
	HandoffRef   string   `json:"handoffRef,omitempty"`
	Deliverables []string `json:"deliverables"`
	Tests        Tests    `json:"tests"`
	Blockers     []string `json:"blockers"`
	Notes        string   `json:"notes"`
}

// Written is a file the engine wrote, for the transcript.
type Written struct {
	Path string // absolute
	Data []byte
}

// AcquireLease dispatches a ready task to an agent: ready → in-progress, the lease in
// the frontmatter, run.json and a first heartbeat (aof-1 §Overview "ready →
// in-progress: acquireLease, write run.json").
func (s *Store) AcquireLease(id, agent string, ttl time.Duration) ([]Written, error) {
	if ttl <= 0 {
		ttl = spec.DefaultTTL
	}
	t, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	if t.Status != spec.Ready {
		return nil, fmt.Errorf("task %s is %s, only a ready task can be leased", id, t.Status)
	}
	if _, err := s.Transition(id, spec.InProgress, "lease_acquired", "dispatcher"); err != nil {
		return nil, err
	}
	t, err = s.Get(id)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	t.Lease = &Lease{Agent: agent, AcquiredAt: spec.FormatTime(now), ExpiresAt: spec.FormatTime(now.Add(ttl))}
	t.Assignee = agent
	if err := s.Save(t); err != nil {
		return nil, err
	}
	run := Run{TaskID: id, AgentID: agent, StartedAt: spec.FormatTime(now), Status: "running",
		ArtifactPaths: map[string]string{"inputs": "inputs/", "work": "work/", "output": "output/"},
		Metadata:      map[string]any{}}
	// A delegated child's run says so: the depth guard's evidence travels with the run.
	if d, ok := t.Metadata["delegationDepth"]; ok {
		run.Metadata["delegationDepth"] = d
	}
	if p, ok := t.Metadata["parentTaskId"]; ok {
		run.Metadata["parentTaskId"] = p
	}
	rw, err := s.writeArtifact(id, "run.json", run)
	if err != nil {
		return nil, err
	}
	hb, err := s.WriteHeartbeat(id, agent, ttl)
	if err != nil {
		return nil, err
	}
	s.Events.Log("lease.acquired", "dispatcher", id, map[string]any{"agent": agent, "ttlMs": ttl.Milliseconds()})
	return []Written{rw, hb}, nil
}

// WriteHeartbeat is the heartbeat writer: beatCount+1, lastHeartbeat = now,
// expiresAt = lastHeartbeat + ttl (aof-1 §Artifacts 2).
func (s *Store) WriteHeartbeat(id, agent string, ttl time.Duration) (Written, error) {
	hb := Heartbeat{TaskID: id, AgentID: agent}
	if old, err := s.ReadHeartbeat(id); err == nil {
		hb.BeatCount = old.BeatCount
	}
	now := s.Clock.Now()
	hb.BeatCount++
	hb.LastHeartbeat = spec.FormatTime(now)
	hb.ExpiresAt = spec.FormatTime(spec.ExpiresAt(now, ttl))
	return s.writeArtifact(id, "run_heartbeat.json", hb)
}

// ReadHeartbeat reads run_heartbeat.json; os.ErrNotExist when there is none.
func (s *Store) ReadHeartbeat(id string) (*Heartbeat, error) {
	hb, err := readArtifact[Heartbeat](s, id, "run_heartbeat.json")
	if err != nil {
		return nil, err
	}
	if _, err := parseTime(hb.ExpiresAt); err != nil {
		return nil, fmt.Errorf("run_heartbeat.json: expiresAt %q is not an ISO 8601 time", hb.ExpiresAt)
	}
	return hb, nil
}

// errNoRunResult says run_result.json does not exist.
var errNoRunResult = errors.New("no run_result.json")

// ReadRunResult reads run_result.json: errNoRunResult when missing, another error
// when it is not a valid result.
func (s *Store) ReadRunResult(id string) (*RunResult, error) {
	rr, err := readArtifact[RunResult](s, id, "run_result.json")
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoRunResult
	}
	if err != nil {
		return nil, err
	}
	if !spec.ValidOutcome(rr.Outcome) {
		return nil, fmt.Errorf("run_result.json: outcome %q is not done|blocked|needs_review|partial", rr.Outcome)
	}
	return rr, nil
}

// WriteRunResult writes run_result.json.
func (s *Store) WriteRunResult(rr *RunResult) (Written, error) {
	return s.writeArtifact(rr.TaskID, "run_result.json", rr)
}

// ReadRun reads run.json.
func (s *Store) ReadRun(id string) (*Run, error) {
	return readArtifact[Run](s, id, "run.json")
}

// MarkRunExpired sets run.json's status to "expired" (markRunArtifactExpired).
func (s *Store) MarkRunExpired(id, reason string) (Written, error) {
	r, err := s.ReadRun(id)
	if err != nil {
		// Missing run artifacts are resumable, not fatal (aof-1 §Resume Error Cases).
		r = &Run{TaskID: id, ArtifactPaths: map[string]string{}, Metadata: map[string]any{}}
	}
	r.Status = "expired"
	r.ExpiredAt = spec.FormatTime(s.Clock.Now())
	r.ExpiredReason = reason
	w, err := s.writeArtifact(id, "run.json", r)
	if err == nil {
		s.Events.Log("run.expired", "scheduler", id, map[string]any{"reason": reason})
	}
	return w, err
}

// ResolveCompletionTransitions maps an outcome to the statuses to apply in order
// (aof-1 §Transition Logic).
func ResolveCompletionTransitions(t *Task, outcome string) []string {
	return spec.CompletionTransitions(t.Status, t.ReviewRequired(), outcome)
}

// readArtifact reads and decodes the run artifact runs/<id>/<name>; the read's
// error as it is (os.ErrNotExist when there is none).
func readArtifact[T any](s *Store, id, name string) (*T, error) {
	data, err := s.read(filepath.Join(s.RunDir(id), name))
	if err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &v, nil
}

// writeArtifact writes the run artifact runs/<id>/<name>.
func (s *Store) writeArtifact(id, name string, v any) (Written, error) {
	path := filepath.Join(s.RunDir(id), name)
	data, err := s.writeJSON(path, v)
	return Written{path, data}, err
}
