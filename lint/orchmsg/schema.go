package orchmsg

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/schema"
)

// Schema validates each message against the schema of its type
// (schemas/orchmsg/<type>.schema.json, the colon written as a dash).
var Schema = &lint.Rule{
	ID: "ORCH-SCHEMA-001", Title: "message does not match its type's schema", Protocol: ID, Severity: lint.Error,
	Spec: "orchmsg-stdio §Message Format; §Supported Requests; §Supported Events; §Orchestrator Notifications",
	Doc: "Each of the fourteen message types has a JSON Schema written from the spec's examples: the base fields (type, id, " +
		"timestamp, optional agentId), correlationId and error on responses, and the payload fields of each type with their " +
		"types and required members. `aoplint schema orchmsg TYPE` prints one. Unknown members are allowed.",
	Bad:    `{"type":"request:get-task","id":"req-749e7e1c-63a1-42e7-81f9-ae4d52d9dc8f","timestamp":"2026-02-04T14:30:00Z","payload":{"task":"task-123"}}`,
	Good:   `{"type":"request:get-task","id":"req-749e7e1c-63a1-42e7-81f9-ae4d52d9dc8f","timestamp":"2026-02-04T14:30:00Z","payload":{"taskId":"task-123"}}`,
	Schema: true,
	Run:    schema.Run,
}

func init() { lint.Register(Schema) }
