package conform

import "encoding/json"

// Fact is a typed key of a session's facts: observations of the orchestrator
// side that are not messages (go/analysis's FactTypes idea: the key carries its
// type). Keys are package variables (NewFact); a key's identity, not its name,
// finds the fact, so a misspelled key does not compile.
type Fact[T any] struct{ name string }

// NewFact declares a fact; name is for messages only.
func NewFact[T any](name string) *Fact[T] { return &Fact[T]{name} }

func (f *Fact[T]) String() string { return f.name }

// Of returns the fact recorded in s (false when none was).
func (f *Fact[T]) Of(s *Session) (T, bool) {
	v, ok := s.facts[f].(T)
	return v, ok
}

// Get returns the fact recorded in s, or T's zero value.
func (f *Fact[T]) Get(s *Session) T {
	v, _ := f.Of(s)
	return v
}

// Set records the fact in s (the harness serialises writers: harness.SetFact).
func (f *Fact[T]) Set(s *Session, v T) {
	if s.facts == nil {
		s.facts = map[any]any{}
	}
	s.facts[f] = v
}

// The agent side's facts, written by the engines (conform/engine/<protocol>)
// and read by the checks.
var (
	// FactAOSDecisions: the guardian's answer to each steps/toolCallRequest.
	FactAOSDecisions = NewFact[[]AOSDecision]("aos.decisions")
	// FactAOSScript: the tool script the agent was given.
	FactAOSScript = NewFact[json.RawMessage]("aos.script")

	// FactAOP2Workspace: the workspace directory (an absolute path).
	FactAOP2Workspace = NewFact[string]("aop2.workspace")
	// FactAOP2Files: the sha256 of every workspace file after the run, by slash path.
	FactAOP2Files = NewFact[map[string]string]("aop2.files")
	// FactAOP2Snapshots: the rollback snapshots and what became of them.
	FactAOP2Snapshots = NewFact[[]AOP2Snapshot]("aop2.snapshots")

	// FactAOFHandoff: the agent ran a delegated child task (inputs/handoff.json).
	FactAOFHandoff = NewFact[bool]("aof.handoff")
	// FactAOFStale: the scheduler found the run's heartbeat expired.
	FactAOFStale = NewFact[bool]("aof.stale")
	// FactAOFFinalStatus: the task's status when the scenario ended.
	FactAOFFinalStatus = NewFact[string]("aof.final_status")
	// FactAOFFiles: the files of the data directory when the scenario ended.
	FactAOFFiles = NewFact[[]string]("aof.files")
	// FactAOFTaskDir: the task's directory, relative to the data directory.
	FactAOFTaskDir = NewFact[string]("aof.task_dir")

	// FactOrchMsgShutdownGraceMS: the grace period announced with notify:shutdown.
	FactOrchMsgShutdownGraceMS = NewFact[int64]("orchmsg.shutdown_grace_ms")

	// FactAOPOutputDetails: the details file the report names, as the parent found it.
	FactAOPOutputDetails = NewFact[AOPOutputDetails]("aopoutput.details")
	// FactAOPOutputTaken: what the parent took of the report.
	FactAOPOutputTaken = NewFact[AOPOutputTaken]("aopoutput.taken")
)

// AOSDecision is what the guardian answered to one steps/toolCallRequest.
type AOSDecision struct {
	Seq         int             `json:"seq"` // the request record
	ExecutionID string          `json:"executionId"`
	Tool        string          `json:"tool"`
	Decision    string          `json:"decision"` // allow, deny, modify; error, stall (the scenario's own answers)
	Arguments   json.RawMessage `json:"arguments,omitempty"`
}

// AOP2Snapshot is a rollback snapshot the aop2 driver took before dispatch.
type AOP2Snapshot struct {
	Path   string // relative to the scratch directory
	Intact bool
	After  string // what was found after the run
}

// AOPOutputDetails describes the details file a report names, as the parent found it.
type AOPOutputDetails struct {
	Named  string `json:"named"`  // as written after [AOP:DETAILS_FILE]
	Path   string `json:"path"`   // relative to the scratch directory (slash-separated)
	Inside bool   `json:"inside"` // inside the scratch directory, symbolic links resolved
	Exists bool   `json:"exists"` // a regular file
	JSON   bool   `json:"json"`   // a JSON object
	Seq    int    `json:"seq"`    // the file's transcript record (0: not read)
	// Content is what the parent read of the file (nil: not read).
	Content []byte `json:"-"`
}

// AOPOutputTaken is what the parent takes of a report into its context.
type AOPOutputTaken struct {
	Report     string `json:"report"`      // complete, incomplete or missing
	Status     string `json:"status"`      // success, failure or partial of a complete report; else unknown
	Summary    string `json:"summary"`     // the summary as kept in the parent's context
	HasSummary bool   `json:"has_summary"` // the report has an [AOP:SUMMARY] marker
	Chars      int    `json:"chars"`       // characters of the agent's summary
	Limit      int    `json:"limit"`       // the limit of the task type (§Summary Length Limits by Task Type)
	Cut        bool   `json:"cut"`         // the summary was over the limit and was cut there
}
