package mockagentcmd

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/mockagent"
)

// watchWait bounds how long the agent waits for the harness to write the
// orchestrator's PID (it writes it right after the launch).
const watchWait = 30 * time.Second

// watchOrchestrator records, in the observation, when the orchestrator under
// test ends: pidFile (--watch-orchestrator, written by aopconform) holds its
// PID. The orchestrator cannot act on its agent after it has ended, so what
// happens to the agent from then on is the harness's clean-up. The watch is
// given up silently when the PID never comes or cannot be watched.
func watchOrchestrator(obs *mockagent.Observer, pidFile string, done <-chan struct{}) {
	if obs == nil || pidFile == "" {
		return
	}
	go func() {
		deadline := time.Now().Add(watchWait)
		pid := 0
		for pid <= 0 {
			if b, err := safefile.ReadFile(pidFile, 64); err == nil {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
			if pid > 0 || time.Now().After(deadline) {
				break
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		if pid <= 0 || pid == os.Getpid() {
			return
		}
		wait, ok := waitPID(pid)
		if !ok {
			return
		}
		obs.Orchestrator(pid, false)
		select {
		case <-wait:
			obs.Orchestrator(pid, true)
		case <-done:
		}
	}()
}
