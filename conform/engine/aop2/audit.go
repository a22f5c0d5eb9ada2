package aop2

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/aopkit/aopkit/internal/safefile"
)

// AuditStoragePath is the contract's audit trail location (§10), relative to the
// scenario's scratch directory.
const AuditStoragePath = "_skills/agent-orchestration-protocol_d/v2/audit_trails/"

// auditActor is the actor block of an audit record.
type auditActor struct {
	Name     string  `json:"name"`
	Role     string  `json:"role"`
	Provider *string `json:"provider"`
	Model    *string `json:"model"`
}

// auditRecord follows upstream's audit_record.schema.json (audit_version 1.0.0).
type auditRecord struct {
	AuditRecordID string     `json:"audit_record_id"`
	AuditVersion  string     `json:"audit_version"`
	Timestamp     string     `json:"timestamp"`
	SessionID     string     `json:"session_id"`
	TaskID        string     `json:"task_id"`
	RecordType    string     `json:"record_type"`
	Actor         auditActor `json:"actor"`
	Payload       any        `json:"payload"`
	Context       auditCtx   `json:"context"`
	Governance    governance `json:"governance"`
}

type auditCtx struct {
	ParentTaskID  *string `json:"parent_task_id"`
	Attempt       int     `json:"attempt"`
	CorrelationID string  `json:"correlation_id"`
}

type governance struct {
	GuardRailsApplied []string      `json:"guard_rails_applied"`
	BudgetStatus      *budgetStatus `json:"budget_status"`
	AccessDecision    string        `json:"access_decision"`
	ReasonCode        *string       `json:"reason_code"`
}

type budgetStatus struct {
	MaxCostUSD     *float64 `json:"max_cost_usd"`
	CurrentCostUSD float64  `json:"current_cost_usd"`
	WithinBudget   bool     `json:"within_budget"`
}

// auditTrail writes one JSON file per record (as upstream did) under dir.
type auditTrail struct {
	dir     string
	rel     string // dir relative to the scratch directory
	scratch string
	session string
	task    string
	parent  *string
	seq     int
	err     error
	files   []string
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func newAuditTrail(scratch, session, task, parent string) *auditTrail {
	name := unsafeName.ReplaceAllString(session, "_")
	if name == "" || name == "." || name == ".." {
		name = "session"
	}
	rel := filepath.ToSlash(filepath.Join(AuditStoragePath, name))
	a := &auditTrail{dir: filepath.Join(scratch, filepath.FromSlash(rel)), rel: rel, scratch: scratch, session: session, task: task}
	if parent != "" {
		a.parent = &parent
	}
	a.err = os.MkdirAll(a.dir, 0o755)
	return a
}

// recordID is a deterministic UUID (version 4 layout) for one record.
func recordID(session string, seq int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", session, seq)))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func (a *auditTrail) write(at time.Time, recordType string, actor auditActor, payload any, attempt int, rails []string, decision, reason string, budget *budgetStatus) {
	if a.err != nil {
		return
	}
	a.seq++
	if attempt < 1 {
		attempt = 1
	}
	if rails == nil {
		rails = []string{}
	}
	rec := auditRecord{
		AuditRecordID: recordID(a.session, a.seq), AuditVersion: "1.0.0",
		Timestamp: at.UTC().Format(time.RFC3339), SessionID: a.session, TaskID: a.task,
		RecordType: recordType, Actor: actor, Payload: payload,
		Context:    auditCtx{ParentTaskID: a.parent, Attempt: attempt, CorrelationID: a.session},
		Governance: governance{GuardRailsApplied: rails, BudgetStatus: budget, AccessDecision: decision},
	}
	if reason != "" {
		rec.Governance.ReasonCode = &reason
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		a.err = err
		return
	}
	name := fmt.Sprintf("%04d-%s.json", a.seq, recordType)
	// Never through a FIFO or a link the executor put at the name, nor into a
	// directory it made a link out of the scratch directory.
	if err := safefile.Inside(a.scratch, a.dir); err != nil {
		a.err = err
		return
	}
	if err := safefile.Replace(filepath.Join(a.dir, name), append(data, '\n'), 0o644); err != nil {
		a.err = err
		return
	}
	a.files = append(a.files, name)
}

var orchestratorActor = auditActor{Name: "aopkit-engine", Role: "ORCHESTRATOR"}
var governanceActor = auditActor{Name: "aopkit-engine", Role: "GOVERNANCE"}

func executorActor(name, provider, model string) auditActor {
	return auditActor{Name: name, Role: "EXECUTOR", Provider: &provider, Model: &model}
}
