package aof

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/internal/safefile"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// ErrTaskNotFound is returned when no status directory holds the task.
var ErrTaskNotFound = errors.New("task not found")

// ErrInvalidTransition is returned for a transition the state machine forbids.
var ErrInvalidTransition = errors.New("invalid transition")

// Store is the filesystem task store under one data directory:
//
//	<dataDir>/tasks/<status>/<taskId>.md      the task
//	<dataDir>/tasks/<status>/<taskId>/        its companion directory (inputs/, outputs/)
//	<dataDir>/runs/<taskId>/                  run artifacts (stable across transitions)
//	<dataDir>/events/events.jsonl             the events log
type Store struct {
	Dir    string
	Clock  clock.Clock
	Events *EventLog
	// Refused, when set, is told of every file of the data directory the store
	// refused to read (the agent made it a FIFO, a device, a link leading out
	// of the data directory, or larger than safefile.MaxSmall): path and why.
	Refused func(path, reason string)
	mu      sync.Mutex
}

// read reads a file of the data directory, which the agent can write to: a
// regular file of at most safefile.MaxSmall bytes, inside the data directory
// (links followed only inside it). A refusal is an error and is told to Refused;
// a missing file is the plain fs.ErrNotExist.
func (s *Store) read(path string) ([]byte, error) {
	b, err := safefile.ReadFileIn(s.Dir, path, safefile.MaxSmall)
	var se *safefile.Error
	if errors.As(err, &se) && s.Refused != nil {
		s.Refused(path, strings.TrimPrefix(se.Error(), se.Path+": "))
	}
	return b, err
}

// NewStore opens (and creates) a data directory.
func NewStore(dir string, clk clock.Clock) (*Store, error) {
	for _, st := range spec.Statuses {
		if err := os.MkdirAll(filepath.Join(dir, "tasks", st), 0o755); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"runs", "events"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	return &Store{Dir: dir, Clock: clk, Events: &EventLog{Path: filepath.Join(dir, "events", "events.jsonl"), Clock: clk}}, nil
}

func (s *Store) now() string { return spec.FormatTime(s.Clock.Now()) }

// TaskPath is where a task of that status lives.
func (s *Store) TaskPath(status, id string) string {
	return filepath.Join(s.Dir, "tasks", status, id+".md")
}

// TaskDir is the companion directory of a task of that status.
func (s *Store) TaskDir(status, id string) string {
	return filepath.Join(s.Dir, "tasks", status, id)
}

// RunDir is runs/<taskId>/.
func (s *Store) RunDir(id string) string { return filepath.Join(s.Dir, "runs", id) }

// Create writes a new task (its Status says where).
func (s *Store) Create(t *Task) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ValidTaskID(t.ID) {
		return fmt.Errorf("task id %q is not TASK-YYYY-MM-DD-NNN", t.ID)
	}
	if !spec.IsStatus(t.Status) {
		return fmt.Errorf("task %s: unknown status %q", t.ID, t.Status)
	}
	if _, err := s.getLocked(t.ID); err == nil {
		return fmt.Errorf("task %s already exists", t.ID)
	}
	if t.CreatedAt == "" {
		t.CreatedAt = s.now()
	}
	if t.UpdatedAt == "" {
		t.UpdatedAt = t.CreatedAt
	}
	if t.Form == FormUpstream {
		// What d0labs/aof's FilesystemTaskStore.create writes: the project is
		// the data directory's name (its projectId), priority normal.
		if t.Project == "" {
			t.Project = filepath.Base(s.Dir)
		}
		if t.Priority == "" {
			t.Priority = "normal"
		}
		if t.CreatedBy == "" {
			t.CreatedBy = CreatedBy
		}
		if t.LastTransitionAt == "" {
			t.LastTransitionAt = t.CreatedAt
		}
	}
	return s.writeFile(s.TaskPath(t.Status, t.ID), t.Marshal())
}

// Get loads a task from whichever status directory holds it.
func (s *Store) Get(id string) (*Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.getLocked(id)
}

func (s *Store) getLocked(id string) (*Task, error) {
	if !ValidTaskID(id) {
		return nil, ErrTaskNotFound
	}
	for _, st := range spec.Statuses {
		data, err := s.read(s.TaskPath(st, id))
		if err != nil {
			continue
		}
		t, err := ParseTask(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.TaskPath(st, id), err)
		}
		// The directory is authoritative for the status.
		t.Status = st
		return t, nil
	}
	return nil, ErrTaskNotFound
}

// List returns the tasks of one status, sorted by id.
func (s *Store) List(status string) ([]*Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Join(s.Dir, "tasks", status)
	// The agent can replace a status directory with a FIFO: stat before the
	// open, which would wait on it.
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		if s.Refused != nil {
			s.Refused(dir, "not a directory: refused")
		}
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*Task
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() {
			continue
		}
		t, err := s.getLocked(id)
		if err != nil {
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Save rewrites a task in place (its status directory does not change).
func (s *Store) Save(t *Task) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.UpdatedAt = s.now()
	return s.writeFile(s.TaskPath(t.Status, t.ID), t.Marshal())
}

// Transition moves a task to status to, with its companion directory, and logs
// task.transitioned. It returns (false, nil) when the task already is in that status
// (idempotency, aof-1 §Idempotency) and ErrInvalidTransition when the state machine
// forbids the move.
func (s *Store) Transition(id, to, reason, actor string) (bool, error) {
	s.mu.Lock()
	t, err := s.getLocked(id)
	if err != nil {
		s.mu.Unlock()
		return false, err
	}
	from := t.Status
	if from == to {
		s.mu.Unlock()
		return false, nil
	}
	if !spec.ValidTransition(from, to) {
		s.mu.Unlock()
		return false, fmt.Errorf("%w: %s → %s", ErrInvalidTransition, from, to)
	}
	t.Status = to
	t.UpdatedAt = s.now()
	if t.Form == FormUpstream {
		t.LastTransitionAt = t.UpdatedAt
	}
	if to != spec.InProgress {
		t.Lease = nil
	}
	if err := s.writeFile(s.TaskPath(to, id), t.Marshal()); err != nil {
		s.mu.Unlock()
		return false, err
	}
	os.Remove(s.TaskPath(from, id))
	if _, err := os.Stat(s.TaskDir(from, id)); err == nil {
		os.RemoveAll(s.TaskDir(to, id))
		if err := os.Rename(s.TaskDir(from, id), s.TaskDir(to, id)); err != nil {
			s.mu.Unlock()
			return false, err
		}
	}
	s.mu.Unlock()
	s.Events.Log("task.transitioned", actor, id, map[string]any{"from": from, "to": to, "reason": reason})
	return true, nil
}

// writeFile writes a file of the data directory via a temporary file and a
// rename, so that readers (and the agent) never see a half-written file. A FIFO
// or a link the agent put at the path (or at a fixed temporary name) is
// replaced, never written through; a directory on the way that the agent made a
// link out of the data directory is refused (the harness writes nothing outside
// it on the agent's say-so).
func (s *Store) writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := safefile.Inside(s.Dir, dir); err != nil {
		if s.Refused != nil {
			var se *safefile.Error
			if errors.As(err, &se) {
				s.Refused(dir, strings.TrimPrefix(se.Error(), se.Path+": "))
			}
		}
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return safefile.Replace(path, data, 0o644)
}

// writeJSON writes v as indented JSON with a trailing newline.
func (s *Store) writeJSON(path string, v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	return data, s.writeFile(path, data)
}

// Event is one line of the events log (aof-1 §Logging).
type Event struct {
	EventID   int            `json:"eventId"`
	Type      string         `json:"type"`
	Timestamp string         `json:"timestamp"`
	Actor     string         `json:"actor"`
	TaskID    string         `json:"taskId,omitempty"`
	Payload   map[string]any `json:"payload,omitempty"`
}

// EventLog appends events to <dataDir>/events/events.jsonl and keeps them in memory.
type EventLog struct {
	Path   string
	Clock  clock.Clock
	mu     sync.Mutex
	events []Event
}

// Log appends one event.
func (l *EventLog) Log(typ, actor, taskID string, payload map[string]any) Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	ev := Event{EventID: len(l.events) + 1, Type: typ, Timestamp: spec.FormatTime(l.Clock.Now()), Actor: actor, TaskID: taskID, Payload: payload}
	l.events = append(l.events, ev)
	if data, err := json.Marshal(ev); err == nil {
		if f, err := safefile.OpenAppend(l.Path, 0o644); err == nil { // never through a FIFO or a link
			f.Write(append(data, '\n'))
			f.Close()
		}
	}
	return ev
}

// All returns a copy of every event logged so far.
func (l *EventLog) All() []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Event(nil), l.events...)
}

// Types returns the event types in order, "type:reason" when the payload has a reason.
func (l *EventLog) Types() []string {
	var out []string
	for _, e := range l.All() {
		s := e.Type
		if r, ok := e.Payload["reason"].(string); ok {
			s += ":" + r
		}
		out = append(out, s)
	}
	return out
}

// parseTime reads an AOF/1 date-time (lint/spec/aof, as AOF-TIME-001 does).
func parseTime(s string) (time.Time, error) {
	t, _, ok := spec.ParseTime(s)
	if !ok {
		return t, fmt.Errorf("%q is not an ISO 8601 date-time", s)
	}
	return t, nil
}
