package harness

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// schedTotals reads how long the threads of process pid and of its descendants
// have run on a CPU and waited on a CPU run queue (Linux
// /proc/PID/task/*/schedstat, first and second field). A descendant that
// already ended is not counted (lower bounds). ok is false where that is not
// available.
func schedTotals(pid int) (onCPU, wait time.Duration, ok bool) {
	if pid <= 0 {
		return 0, 0, false
	}
	eachTask(pid, func(task string) bool {
		if b, err := os.ReadFile(filepath.Join(task, "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) >= 2 {
				run, err1 := strconv.ParseInt(f[0], 10, 64)
				ns, err2 := strconv.ParseInt(f[1], 10, 64)
				if err1 == nil && err2 == nil {
					onCPU += time.Duration(run)
					wait += time.Duration(ns)
					ok = true
				}
			}
		}
		return true
	})
	return onCPU, wait, ok
}

// excusedWait is how much of the agent's CPU wait the machine's other load
// caused. Since it started (elapsed) the agent's threads ran ran and waited
// waited on run queues (both summed over threads) on a machine of cores CPUs.
// What those CPUs gave no thread of the agent, cores×elapsed − ran, went to
// other processes: the agent is owed its wait up to that, and never more than
// the wall time. A single-threaded agent is owed exactly what it waited. An
// agent that loads the machine itself (more busy threads than CPUs) gets every
// CPU, and its wait is its own: nothing is owed.
//
// The figures are the totals since the start, not per interval: the kernel adds
// a thread's wait in one lump when it gets a CPU, and a lump may cover many of
// the harness's readings.
//
// The harness does not count the excused wait against the agent's bounds: the
// start-up allowance and the scenario deadline grow by it (at most by their own
// length). A correct agent on a saturated machine is thus not stopped for the
// machine's slowness, a hung agent that sleeps accumulates none and is stopped
// on time, and a slow agent cannot buy time on a quiet machine by starving
// itself. The runner reads it too (Attempt.CPUWait): a timing failure that the
// wait explains is the machine's.
func excusedWait(elapsed, ran, waited time.Duration, cores int) time.Duration {
	return max(0, min(waited, time.Duration(cores)*elapsed-ran, elapsed))
}

// eachTask calls f with the /proc directory of every thread of process pid and
// of its descendants (to depth 8), until f returns false; it reports whether f
// never did. A process that ends meanwhile is skipped.
func eachTask(pid int, f func(task string) bool) bool {
	var walk func(pid, depth int) bool
	walk = func(pid, depth int) bool {
		if depth > 8 {
			return true
		}
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*"))
		for _, t := range tasks {
			if !f(t) {
				return false
			}
			kids, _ := os.ReadFile(filepath.Join(t, "children"))
			for _, k := range strings.Fields(string(kids)) {
				if n, err := strconv.Atoi(k); err == nil && !walk(n, depth+1) {
					return false
				}
			}
		}
		return true
	}
	return walk(pid, 0)
}

// taskState is a thread's state letter (R, S, D, ...: the field after the
// parenthesised command name of its stat); ok is false when it is gone.
func taskState(task string) (state byte, ok bool) {
	b, err := os.ReadFile(filepath.Join(task, "stat"))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return b[i+2], true
}

// starved returns the agent's CPU wait so far that the machine's other load
// caused (excusedWait over its totals since it started; zero when unknown: the
// in-process launcher, or no /proc). It never decreases.
func (a *Agent) starved() time.Duration {
	pg, ok := a.conn.(interface{ Pgid() int })
	if !ok {
		return 0
	}
	onCPU, wait, ok := schedTotals(pg.Pgid())
	if !ok {
		return a.cpu.excused
	}
	// A descendant that ended took its totals with it: the totals are summed
	// from what grew between readings (what it did since the last one is lost,
	// a lower bound).
	c := &a.cpu
	c.ran += max(0, onCPU-c.onCPU)
	c.waited += max(0, wait-c.wait)
	c.onCPU, c.wait = onCPU, wait
	c.excused = max(c.excused, excusedWait(time.Since(a.att.Start), c.ran, c.waited, cores))
	return c.excused
}

// cores is how many CPUs the machine gives the harness and its agents.
var cores = runtime.NumCPU()

// cpuReading is the agent's CPU accounting (starved).
type cpuReading struct {
	onCPU, wait time.Duration // schedTotals at the last reading
	ran, waited time.Duration // what they grew by in all, since the start
	excused     time.Duration // the most excusedWait has been
}

// idle reports whether the agent's processes (the group leader and its
// descendants, every thread) are all asleep: it finished starting and now waits (on
// input, a timer, a request). ok is false where /proc cannot tell.
func idle(pid int) (asleep, ok bool) {
	seen := 0
	asleep = eachTask(pid, func(task string) bool {
		st, ok := taskState(task)
		if !ok {
			return true
		}
		seen++
		return st == 'S'
	})
	return asleep && seen > 0, seen > 0
}

// processStates describes what the threads of process pid and its descendants
// are doing right now, for the record of a scenario deadline: a correct agent
// stopped at its deadline on a loaded machine shows whether it was asleep (its
// own waiting), runnable (the CPU wait, which the deadline already grew by), or
// in an uninterruptible wait (disk or memory: the machine's, which schedstat
// does not count). "" where /proc cannot tell.
func processStates(pid int) string {
	names := map[byte]string{'R': "running or waiting for a CPU", 'S': "asleep", 'D': "in an uninterruptible wait (disk or memory)", 'T': "stopped", 't': "stopped", 'Z': "exited, not yet reaped", 'I': "asleep"}
	count := map[string]int{}
	eachTask(pid, func(task string) bool {
		if st, ok := taskState(task); ok {
			name, known := names[st]
			if !known {
				name = "state " + string(st)
			}
			count[name]++
		}
		return true
	})
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(count)) {
		parts = append(parts, fmt.Sprintf("%d %s", count[name], name))
	}
	if len(parts) == 0 {
		return ""
	}
	return "threads: " + strings.Join(parts, ", ")
}

// waitSinceLife is the agent's CPU wait since its timers started (Alive).
func (a *Agent) waitSinceLife() time.Duration { return a.starved() - a.cpuWaitAtLife }

// cpuSamplePeriod is how often (at most) the harness reads the agent's CPU wait
// while it runs: the processes' /proc entries are gone once they exit, so the
// last reading before is what Attempt.CPUWait keeps.
const cpuSamplePeriod = 100 * time.Millisecond

// sampleCPUWait updates Attempt.CPUWait, the agent's CPU wait since its timers
// started, at most every cpuSamplePeriod.
func (a *Agent) sampleCPUWait(now time.Time) {
	if a.att.Alive.IsZero() || now.Before(a.nextCPUSample) {
		return
	}
	a.nextCPUSample = now.Add(cpuSamplePeriod)
	if w := a.waitSinceLife(); w > a.att.CPUWait {
		a.att.CPUWait = w
	}
}

// deadlineState is processStates for the agent under test ("" when unknown).
func (a *Agent) deadlineState() string {
	pg, ok := a.conn.(interface{ Pgid() int })
	if !ok {
		return ""
	}
	return processStates(pg.Pgid())
}

// agentIdle is idle for the agent under test (false when unknown).
func (a *Agent) agentIdle() bool {
	if s, ok := a.conn.(interface{ Asleep() (asleep, known bool) }); ok {
		// A connection that knows (a test's) tells.
		asleep, known := s.Asleep()
		return known && asleep
	}
	pg, ok := a.conn.(interface{ Pgid() int })
	if !ok {
		return false
	}
	asleep, known := idle(pg.Pgid())
	return known && asleep
}

// Busy reports whether some process of the attempt is running or waiting for a
// CPU right now (false where /proc cannot tell): an orchestrator that still
// works is not done, whatever its output says.
func (a *Agent) Busy() bool {
	if s, ok := a.conn.(interface{ Asleep() (asleep, known bool) }); ok {
		asleep, known := s.Asleep()
		return known && !asleep
	}
	pg, ok := a.conn.(interface{ Pgid() int })
	if !ok {
		return false
	}
	// At work: a process running or waiting for a CPU now, or CPU time spent
	// since the last look (a process working in short bursts is asleep at
	// most instants: the state alone misses it on a loaded machine).
	cpu := treeCPU(pg.Pgid())
	spent := cpu > a.busyCPU
	a.busyCPU = cpu
	asleep, known := idle(pg.Pgid())
	return spent || (known && !asleep)
}

// treeCPU is the CPU time, in clock ticks, of the process pid and its
// descendants (utime and stime of each, every thread included); 0 where /proc
// cannot tell. Busy reads it, not schedTotals' nanosecond run time: the tick
// is its threshold, so that a daemon's idle polling (microseconds a wake-up)
// does not read as work. With schedTotals a Python daemon orchestrator under
// load stayed "busy" and missed being decided (TestOrchestratorSide).
func treeCPU(pid int) int64 {
	var total int64
	var walk func(pid, depth int)
	walk = func(pid, depth int) {
		if depth > 8 {
			return
		}
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return
		}
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 {
			// After ")": state(0) ppid ... utime(11) stime(12).
			if f := strings.Fields(string(b[i+1:])); len(f) > 12 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				total += u + st
			}
		}
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
		for _, t := range tasks {
			kids, _ := os.ReadFile(t)
			for _, k := range strings.Fields(string(kids)) {
				if n, err := strconv.Atoi(k); err == nil {
					walk(n, depth+1)
				}
			}
		}
	}
	walk(pid, 0)
	return total
}
