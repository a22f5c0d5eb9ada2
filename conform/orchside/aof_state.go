package orchside

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/internal/safefile"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// FactAOF holds the AOF data directory as the scheduler under test left it
// (*AOFState), read once it has ended: the spec's own artifacts are the evidence.
var FactAOF = conform.NewFact[*AOFState]("orch.aof")

// AOFState is an AOF data directory (aof-1 §Run Artifacts Location, §Logging):
// the task files by status, each task's handoff and run artifacts, the events.
type AOFState struct {
	DataDir  string
	Tasks    map[string]*AOFTask // by task id
	Events   []AOFEvent          // in file order
	Problems []string            // what could not be read
	// refused are the files refused (path, why), for the harness to judge.
	refused [][2]string
}

// AOFTask is one task as the data directory holds it.
type AOFTask struct {
	ID string
	// Statuses are the tasks/<status>/ directories holding <id>.md: exactly one
	// in a sane store.
	Statuses []string
	Task     *engaof.Task // its front matter (nil: unreadable)
	// Handoff is <task dir>/inputs/handoff.json, nil when absent.
	Handoff []byte
	// RunDir is where its run artifacts are, relative to the data directory:
	// runs/<id> (aof-1's guide), else state/runs/<id> (d0labs/aof's layout).
	RunDir string
	// Run, Heartbeat and Result are run.json, run_heartbeat.json and
	// run_result.json of RunDir (nil when absent).
	Run, Heartbeat, Result []byte
}

// runDirIn is the task's run directory in the data directory: RunDir, runs/<id>
// (the guide's) when it has none.
func (t *AOFTask) runDirIn(data string) string {
	if t.RunDir != "" {
		return filepath.Join(data, filepath.FromSlash(t.RunDir))
	}
	return filepath.Join(data, "runs", t.ID)
}

// Status is the task's status ("" when no task file, "a+b" when in several).
func (t *AOFTask) Status() string {
	if t == nil {
		return ""
	}
	return strings.Join(t.Statuses, "+")
}

// AOFEvent is one line of <dataDir>/events/*.jsonl: its type, task, actor (who
// acted: the events log is the scheduler's alone) and payload (Reason is
// payload.reason).
type AOFEvent struct {
	Type, TaskID, Reason string
	Actor                string
	Payload              map[string]any
}

// Field is one string field of the event's payload ("" when absent).
func (e AOFEvent) Field(key string) string {
	s, _ := e.Payload[key].(string)
	return s
}

// Bounds of what is read back.
const (
	maxArtifact   = 1 << 20
	maxEventsFile = 16 << 20
	maxEvents     = 20000
)

// aofRunRoots are where run directories live, relative to the data directory,
// in order of preference: aof-1's guide (runs/<id>/), d0labs/aof (state/runs/<id>/).
var aofRunRoots = []string{"runs", "state/runs"}

// aofGiven is the task file the scheduler was given ($AOPKIT_TASK).
type aofGiven struct {
	DataDir        string `json:"dataDir"`
	TaskID         string `json:"taskId"`
	HeartbeatTTLMs int64  `json:"heartbeatTtlMs"`
}

func aofGivenOf(task []byte) (aofGiven, bool) {
	var g aofGiven
	if json.Unmarshal(task, &g) != nil || g.DataDir == "" || g.TaskID == "" {
		return g, false
	}
	g.DataDir = filepath.Clean(g.DataDir)
	return g, true
}

// aofReadBack reads the data directory after the scheduler ended.
func aofReadBack(h *harness.H) {
	g, ok := aofGivenOf(h.Expand(h.Scenario().Task))
	if !ok {
		return
	}
	if _, inside := h.Inside(g.DataDir); !inside {
		harness.SetFact(h, FactAOF, &AOFState{DataDir: g.DataDir, Problems: []string{"the data directory is not inside the scratch directory"}})
		return
	}
	st := ReadAOFState(g.DataDir)
	refused := h.Refused(func() int { return 0 })
	for _, r := range st.refused {
		refused(r[0], r[1]) // judged by <protocol>/bind/regular-files
	}
	harness.SetFact(h, FactAOF, st)
	recordArtifacts(h, st)
}

// recordArtifacts adds the scheduler's run artifacts and handoffs to the
// transcript (from the orchestrator, stream file:<path>): an AOF scheduler speaks
// through the data directory ("all state lives in the filesystem").
func recordArtifacts(h *harness.H, st *AOFState) {
	for _, id := range slices.Sorted(maps.Keys(st.Tasks)) {
		t := st.Tasks[id]
		files := []struct {
			path string
			data []byte
		}{{t.RunDir + "/run.json", t.Run}, {t.RunDir + "/run_heartbeat.json", t.Heartbeat}, {t.RunDir + "/run_result.json", t.Result}}
		for _, f := range files {
			if f.data == nil {
				continue
			}
			r := fileRecord(h, filepath.Join(st.DataDir, filepath.FromSlash(f.path)), f.data)
			r.Attempt = 1
			h.Record(r)
		}
	}
}

// fileRecord is an artifact of the scheduler as a transcript record (from the
// orchestrator, stream file:<path in the scratch directory>, at the file's
// modification time).
func fileRecord(h *harness.H, p string, data []byte) conform.Record {
	rel, err := filepath.Rel(h.Scratch(), p)
	if err != nil {
		rel = p
	}
	r := conform.Record{From: Judged, Stream: "file:" + filepath.ToSlash(rel), Key: "file:" + filepath.Base(p)}
	if fi, err := os.Stat(p); err == nil {
		r.Time = fi.ModTime()
	}
	if b := bytes.TrimSpace(data); harness.IsJSONObject(b) && json.Valid(b) {
		r.Msg = json.RawMessage(b)
	} else {
		s := string(data)
		r.Text = &s
	}
	return r
}

// aofPrelude opens a launch's session with the handoff its task had (the
// scheduler wrote it, or the scenario seeded it, before the dispatch): the agent's
// acknowledgement answers it.
func aofPrelude(h *harness.H, l *Launch) []conform.Record {
	st, _ := harness.FactOf(h, FactAOF)
	if st == nil {
		return nil
	}
	t := st.Tasks[l.Env["AOF_TASK_ID"]]
	if t == nil || t.Handoff == nil || len(t.Statuses) == 0 {
		return nil
	}
	r := fileRecord(h, filepath.Join(st.DataDir, "tasks", t.Statuses[0], t.ID, "inputs", "handoff.json"), t.Handoff)
	r.Time = l.Start
	return []conform.Record{r}
}

// refuse keeps a refusal of safefile's (a FIFO, a device, a link leading out of
// the data directory, a file over its cap) for the harness to judge.
func (st *AOFState) refuse(err error) {
	var se *safefile.Error
	if errors.As(err, &se) {
		st.refused = append(st.refused, [2]string{se.Path, strings.TrimPrefix(se.Error(), se.Path+": ")})
	}
}

// ReadAOFState reads an AOF data directory; what cannot be read is listed in
// Problems, never fatal.
func ReadAOFState(dir string) *AOFState {
	st := &AOFState{DataDir: dir, Tasks: map[string]*AOFTask{}}
	task := func(id string) *AOFTask {
		t := st.Tasks[id]
		if t == nil {
			t = &AOFTask{ID: id}
			st.Tasks[id] = t
		}
		return t
	}
	read := func(p string) []byte {
		// Inside the data directory only: a link the orchestrator made to a
		// file elsewhere is not read (nor copied into the transcript).
		b, err := safefile.ReadFileIn(dir, p, maxArtifact)
		if err != nil {
			if !os.IsNotExist(err) {
				st.Problems = append(st.Problems, err.Error())
				st.refuse(err)
			}
			return nil
		}
		return b
	}
	for _, status := range spec.Statuses {
		names, _ := filepath.Glob(filepath.Join(dir, "tasks", status, "*.md"))
		sort.Strings(names)
		for _, name := range names {
			id := strings.TrimSuffix(filepath.Base(name), ".md")
			t := task(id)
			t.Statuses = append(t.Statuses, status)
			if b := read(name); b != nil {
				if pt, err := engaof.ParseTask(b); err == nil {
					t.Task = pt
				} else {
					st.Problems = append(st.Problems, "tasks/"+status+"/"+id+".md: "+err.Error())
				}
			}
			if b := read(filepath.Join(dir, "tasks", status, id, "inputs", "handoff.json")); b != nil {
				t.Handoff = b
			}
		}
	}
	// aof-1's guide keeps run artifacts in runs/<id>/, d0labs/aof in
	// state/runs/<id>/: the guide's when a task has both.
	for _, runs := range aofRunRoots {
		names, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(runs), "*"))
		sort.Strings(names)
		for _, rd := range names {
			if fi, err := os.Stat(rd); err != nil || !fi.IsDir() {
				continue
			}
			if t := task(filepath.Base(rd)); t.RunDir == "" {
				t.RunDir = runs + "/" + t.ID
			}
		}
	}
	for _, t := range st.Tasks {
		if t.RunDir == "" {
			continue
		}
		rd := filepath.Join(dir, filepath.FromSlash(t.RunDir))
		t.Run = read(filepath.Join(rd, "run.json"))
		t.Heartbeat = read(filepath.Join(rd, "run_heartbeat.json"))
		t.Result = read(filepath.Join(rd, "run_result.json"))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "events", "*.jsonl"))
	sort.Strings(files)
	for _, name := range files {
		if sameEventsFile(name, files) {
			continue
		}
		b, err := safefile.ReadFileIn(dir, name, maxEventsFile)
		if err != nil {
			st.Problems = append(st.Problems, err.Error())
			st.refuse(err)
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 0, 64*1024), maxArtifact)
		for sc.Scan() && len(st.Events) < maxEvents {
			var e struct {
				Type    string         `json:"type"`
				TaskID  string         `json:"taskId"`
				Actor   string         `json:"actor"`
				Payload map[string]any `json:"payload"`
			}
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type == "" {
				continue
			}
			r, _ := e.Payload["reason"].(string)
			st.Events = append(st.Events, AOFEvent{Type: e.Type, TaskID: e.TaskID, Reason: r, Actor: e.Actor, Payload: e.Payload})
		}
	}
	return st
}

// sameEventsFile: name is a link to another file of files (d0labs/aof keeps
// events/events.jsonl a link to the day's events/YYYY-MM-DD.jsonl), read once.
func sameEventsFile(name string, files []string) bool {
	if fi, err := os.Lstat(name); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return false
	}
	target, err := os.Stat(name)
	if err != nil {
		return false
	}
	for _, f := range files {
		if fi, err := os.Lstat(f); err == nil && f != name && fi.Mode().IsRegular() && os.SameFile(fi, target) {
			return true
		}
	}
	return false
}

// aofStateOf is the session's data directory as the scheduler left it.
func aofStateOf(s *conform.Session) *AOFState {
	if s == nil {
		return nil
	}
	return FactAOF.Get(s)
}

// HasEvent reports whether an event of that type (and reason, "" = any) was
// logged for the task ("" = any task; an event naming no task counts for every
// task).
func (st *AOFState) HasEvent(typ, reason, taskID string) bool {
	for _, e := range st.Events {
		if e.Type == typ && (reason == "" || e.Reason == reason) && (taskID == "" || e.TaskID == "" || e.TaskID == taskID) {
			return true
		}
	}
	return false
}

// EventsOf are the events of that type logged for the task (an event naming no
// task counts for every task), in order.
func (st *AOFState) EventsOf(typ, taskID string) []AOFEvent {
	return filter(st.Events, func(e AOFEvent) bool { return e.Type == typ && (e.TaskID == "" || e.TaskID == taskID) })
}

// jsonField decodes one string field of a JSON object ("" when absent).
// aofTime reads an AOF/1 timestamp with the dialect's one reader
// (lint/spec/aof.ParseTime, as aoplint's AOF-TIME rules and the engine do).
func aofTime(s string) (time.Time, bool) {
	t, _, ok := spec.ParseTime(s)
	return t, ok
}

// heartbeatTimes are run_heartbeat.json's lastHeartbeat and expiresAt (ok
// false: either is missing or no AOF/1 timestamp).
func (t *AOFTask) heartbeatTimes() (last, exp time.Time, ok bool) {
	last, okLast := aofTime(jsonField(t.Heartbeat, "lastHeartbeat"))
	exp, okExp := aofTime(jsonField(t.Heartbeat, "expiresAt"))
	return last, exp, okLast && okExp
}

func jsonField(b []byte, key string) string {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// ttlOutlived is NOT-APPLICABLE when the scenario's stale-heartbeat recovery
// could not be played: the task is still in progress under a heartbeat whose
// TTL (run_heartbeat.json: expiresAt − lastHeartbeat) is longer than the
// scenario's heartbeatTtlMs (× scale) and that had not expired when the
// scenario ended. The scheduler chose that TTL itself (d0labs/aof's dispatcher
// writes 5 minutes, whatever its configuration says); a heartbeat that did
// expire in time is judged as ever.
func ttlOutlived(s *conform.Session, g aofGiven, t *AOFTask) (conform.Outcome, bool) {
	if g.HeartbeatTTLMs <= 0 || t == nil || t.Status() != spec.InProgress {
		return conform.Outcome{}, false
	}
	last, exp, ok := t.heartbeatTimes()
	if !ok {
		return conform.Outcome{}, false
	}
	scale := scaleOf(s)
	want := time.Duration(float64(g.HeartbeatTTLMs) * float64(time.Millisecond) * scale)
	var end time.Time // when the scheduler ended (the scenario did)
	if a := s.Last(); a != nil {
		end = a.End
	}
	ttl := exp.Sub(last)
	if ttl <= want || end.IsZero() || !exp.After(end) {
		return conform.Outcome{}, false
	}
	return conform.Outcome{Verdict: conform.NotApplicable, Message: fmt.Sprintf(
		"the scheduler's heartbeat TTL is %s (%s/run_heartbeat.json: lastHeartbeat %s, expiresAt %s), not the scenario's %s (heartbeatTtlMs in $AOPKIT_TASK): "+
			"the heartbeat had not expired when the scenario ended (%s), so stale-heartbeat recovery could not be played; give the scheduler the scenario's TTL to judge it",
		ttl.Round(time.Millisecond), t.RunDir, spec.FormatTime(last), spec.FormatTime(exp), want, spec.FormatTime(end))}, true
}
