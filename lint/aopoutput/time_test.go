package aopoutput

import (
	"testing"

	"github.com/aopkit/aopkit/lint/internal/isotime/isotimetest"
)

// parseISO's fast path (isotime.ParseUTC) gives what parseISOSlow gives.
func FuzzParseISO(f *testing.F) { isotimetest.Fuzz(f, parseISOSlow) }
