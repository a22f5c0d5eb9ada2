package runner

import (
	"runtime"

	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	engaopoutput "github.com/aopkit/aopkit/conform/engine/aopoutput"

	"github.com/aopkit/aopkit/conform/harness"

	engaop2 "github.com/aopkit/aopkit/conform/engine/aop2"
	engorchmsg "github.com/aopkit/aopkit/conform/engine/orchmsg"
)

func runtimeNumCPU() int { return runtime.NumCPU() }

// drivers play the orchestrator side of each protocol: the reference engines'
// Drive (conform/engine/<protocol>).
var drivers = map[string]func(h *harness.H) error{
	"aop2":       engaop2.Drive,
	"orchmsg":    engorchmsg.Drive,
	"aos":        driveAOS,
	"aop-output": engaopoutput.Drive,
	"aof":        engaof.Drive,
}
