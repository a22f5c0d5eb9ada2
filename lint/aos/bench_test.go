package aos_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/linter"
)

// BenchmarkStream lints a generated AOS session of tool calls and answers.
func BenchmarkStream(b *testing.B) {
	var buf bytes.Buffer
	ctx := `{"agent":{"id":"a1","name":"n","instructions":"i","version":"1","provider":{"name":"p","url":"https://p.example/"}},"session":{"id":"s"},"turnId":"t","stepId":"%s","timestamp":"2025-01-24T15:30:45.123Z"}`
	n := 0
	for i := 0; i < 2500; i++ {
		n++
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"method":"steps/toolCallRequest","params":{"context":`+ctx+`,"toolCallRequest":{"executionId":"e%d","toolId":"x","inputs":[{"name":"q","value":"v"}]}}}`+"\n", n, fmt.Sprint("a", i), i)
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"result":{"decision":"allow","message":"ok"}}`+"\n", n)
		n++
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"method":"steps/toolCallResult","params":{"context":`+ctx+`,"executionId":"e%d","result":{"outputs":[],"isError":false}}}`+"\n", n, fmt.Sprint("b", i), i)
		fmt.Fprintf(&buf, `{"jsonrpc":"2.0","id":%d,"result":{"decision":"allow","message":"ok"}}`+"\n", n)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := linter.LintStream("bench.jsonl", bytes.NewReader(data), linter.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range res.Diagnostics {
			if d.Severity != lint.Info {
				b.Fatalf("%s: %s", d.Rule, d.Message)
			}
		}
	}
}
