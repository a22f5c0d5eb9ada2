package aos

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/engine/clock"
	"github.com/aopkit/aopkit/mockagent"
)

// TestNoBindingEnvironment: without its binding the agent says so and exits 2.
func TestNoBindingEnvironment(t *testing.T) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), mockagent.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Clock: clock.NewFake(time.Unix(0, 0))}, "")
	if code != 2 || errb.Len() == 0 {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
