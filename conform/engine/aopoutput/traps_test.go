package aopoutput_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/checks"
	"github.com/aopkit/aopkit/conform/engine/aopoutput"
	"github.com/aopkit/aopkit/conform/engine/enginetest"
	"github.com/aopkit/aopkit/internal/testdeadline"
	"github.com/aopkit/aopkit/mockagent"
)

// fifoAgent names a details file that is a FIFO ("fifo") or a link to /dev/zero
// inside its scratch directory ("zero"), then prints its report and exits 0.
var fifoAgent = &mockagent.Agent{Protocol: "aop-output", Run: func(ctx context.Context, env mockagent.Env, fault string) int {
	scratch := env.Getenv("AOPKIT_SCRATCH")
	if scratch == "" {
		scratch = env.Dir
	}
	name := "details.md"
	p := filepath.Join(scratch, name)
	var err error
	if fault == "fifo" {
		err = syscall.Mkfifo(p, 0o600)
	} else {
		err = os.Symlink("/dev/zero", p)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "trap:", err)
		return 3
	}
	fmt.Fprintf(env.Stdout, "[AOP:START] 2026-02-05T10:30:00Z\n[AOP:TASK] Analyse\n\n[AOP:SUMMARY]\n- Done\n\n[AOP:DETAILS_FILE] %s\n[AOP:STATUS] success\n[AOP:END] 2026-02-05T10:31:00Z\n", name)
	return 0
}}

// A details file that is a FIFO is refused, not waited on, and judged; one that
// is a link to /dev/zero leads out of the scratch directory and is never read.
func TestDetailsFileTraps(t *testing.T) {
	sc := enginetest.Builtin(t, "aop-output")[0]
	for _, fault := range []string{"fifo", "zero"} {
		t.Run(fault, func(t *testing.T) {
			done := make(chan enginetest.Played, 1)
			go func() { done <- enginetest.PlayAgent(t, sc, fifoAgent, fault, "", aopoutput.Drive) }()
			var p enginetest.Played
			select {
			case p = <-done:
			case <-testdeadline.Near(t):
				t.Fatal("the harness hangs")
			}
			d := conform.FactAOPOutputDetails.Get(p.Session)
			if d.Exists || d.Content != nil {
				t.Errorf("the details file was read: %+v", d)
			}
			o := conform.LookupCheck(checks.RegularFilesID("aop-output")).Run(p.Session)
			if fault == "fifo" && (o.Verdict != conform.Fail || !strings.Contains(o.Message, "details.md: not a regular file (a named pipe)")) {
				t.Errorf("regular-files: %s %q\n%s", o.Verdict, o.Message, p.Transcript)
			}
		})
	}
}
