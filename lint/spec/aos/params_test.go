package aos

import (
	"bytes"
	"encoding/json"
	"testing"
)

func decode(t testing.TB, s string, useNumber bool) map[string]any {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	if useNumber {
		dec.UseNumber()
	}
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

const ctx = `{"agent":{"id":"a","name":"n","instructions":"i","version":"1","provider":{"name":"p","url":"https://p.example"}},"session":{"id":"s"},"turnId":"t","stepId":"st","timestamp":"2025-01-24T15:30:45.123Z"}`

// The validator reads JSON decoded either way (the guardian uses UseNumber, the
// checks plain float64) and names the first problem by pointer.
func TestParamsProblem(t *testing.T) {
	for _, useNumber := range []bool{true, false} {
		for _, c := range []struct {
			method, params, pointer string
		}{
			{MethodPing, `{"timestamp":"2025-01-24T15:30:45Z","timeout":5000}`, ""},
			{MethodPing, `{"timestamp":"2025-01-24T15:30:45Z","timeout":1.5}`, "/params/timeout"},
			{MethodPing, `{}`, "/params/timestamp"},
			{MethodMessage, `{"context":` + ctx + `,"message":{"id":"m","role":"user","content":[{"kind":"text","text":"hi"}]},"citation":[]}`, ""},
			{MethodMessage, `{"context":` + ctx + `,"message":{"id":"m","role":"bot","content":[{"kind":"text","text":"hi"}]},"citation":[]}`, "/params/message/role"},
			{MethodMessage, `{"context":` + ctx + `,"message":{"id":"m","role":"user","content":[{"kind":"text","text":"hi"}]},"citations":[]}`, "/params/citation"},
			{MethodToolCallRequest, `{"context":` + ctx + `,"toolCallRequest":{"executionId":"e","toolId":"t","inputs":[{"name":"a","value":null}]}}`, ""},
			{MethodToolCallRequest, `{"context":{"agent":{}},"toolCallRequest":{}}`, "/params/context/agent/name"},
			{MethodToolCallResult, `{"context":` + ctx + `,"toolCallResult":{"executionId":"e"}}`, "/params/executionId"},
		} {
			perr := ParamsProblem(c.method, decode(t, c.params, useNumber))
			got := ""
			if perr != nil {
				got = perr.Pointer
			}
			if got != c.pointer {
				t.Errorf("ParamsProblem(%s, %s) (UseNumber %v) = %v, want pointer %q", c.method, c.params, useNumber, perr, c.pointer)
			}
		}
	}
	if perr := StepContextProblem(decode(t, ctx, false)); perr != nil {
		t.Errorf("valid StepContext: %v", perr)
	}
	bad := decode(t, ctx, false)
	bad["agent"].(map[string]any)["provider"] = map[string]any{"name": "p"}
	if perr := StepContextProblem(bad); perr == nil || perr.Pointer != "/params/context/agent/provider/url" {
		t.Errorf("provider without url: %v", perr)
	}
	if perr := MessageProblem(decode(t, `{"message":{"id":"m","role":"user","content":[]},"citation":[]}`, false)); perr == nil || perr.Pointer != "/params/message/content" {
		t.Errorf("empty content: %v", perr)
	}
}

// FuzzParamsProblem: any decoded JSON object, for any method, is judged without a panic.
func FuzzParamsProblem(f *testing.F) {
	f.Add(`{"context":`+ctx+`,"message":{"id":"m","role":"user","content":[{"kind":"file","file":{"uri":"x"}}]},"citation":[{"kind":"site","url":"u"}]}`, true)
	f.Add(`{"trigger":{"type":"autonomous","event":{"type":"x","id":"y"},"content":[{"kind":"data","data":{}}]}}`, false)
	f.Add(`{"knowledgeStep":{"results":[1]},"memory":[{}],"result":{"outputs":[{"kind":"text"}],"isError":1}}`, true)
	f.Fuzz(func(t *testing.T, params string, useNumber bool) {
		dec := json.NewDecoder(bytes.NewReader([]byte(params)))
		if useNumber {
			dec.UseNumber()
		}
		var m map[string]any
		if dec.Decode(&m) != nil {
			return
		}
		for _, method := range Methods {
			ParamsProblem(method, m)
		}
		MessageProblem(m)
		StepContextProblem(m)
	})
}
