package aopoutput_test

import (
	"testing"

	"github.com/aopkit/aopkit/lint/internal/prototest"
)

// TestRetention: the sequence checkers keep no node and no string of a line
// (the driver reuses trees; a kept string would keep its whole line alive).
func TestRetention(t *testing.T) { prototest.Retention(t, "aop-output") }

// BenchmarkTranscript is the cost per message of linting aop-output sessions:
//
//	go test ./lint/aopoutput -run '^$' -bench Transcript -benchmem -cpu 1
func BenchmarkTranscript(b *testing.B) { prototest.BenchTranscript(b, "aop-output") }
