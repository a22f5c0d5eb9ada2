package aos

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

// Binding checks the records of aopkit's conformance binding for AOS.
var Binding = ruleDocs.Rule(lint.Rule{ID: "AOS-BIND-001", Protocol: ID, Kinds: []string{KindScript, KindExecuted}, Severity: lint.Error, Run: checkBinding})

func checkBinding(p *lint.Pass) {
	root := p.Msg.Root
	if root == nil || root.Kind != jsonread.Object {
		return
	}
	if p.Msg.Kind == KindExecuted {
		e := root.Get("executed")
		if !e.Get("executionId").IsString() {
			p.Reportf("/executed/executionId", "executed.executionId must be the executionId string of the tool call's steps/toolCallRequest")
		}
		if !e.Get("name").IsString() {
			p.Reportf("/executed/name", "executed.name must be the name (toolId) of the tool that ran")
		}
		if a := e.Get("arguments"); a == nil || a.Kind != jsonread.Object {
			p.Reportf("/executed/arguments", "executed.arguments must be an object of the arguments the tool ran with")
		}
		return
	}
	tools := root.Get("tools")
	if tools == nil {
		return
	}
	for i, t := range tools.Items {
		if t.Kind != jsonread.Object || !t.Get("name").IsString() {
			p.Reportf(jsonread.JoinPointer("/tools", i), "each work-script tool is {\"name\": string, \"arguments\": object}")
		}
	}
}
