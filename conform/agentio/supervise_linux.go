package agentio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The supervisor is a small process between the harness and the agent: the harness
// binary started again with superviseEnv set (see Main). It
//
//   - is a child subreaper (PR_SET_CHILD_SUBREAPER), so everything the agent starts,
//     double-forked setsid daemons included, stays its descendant;
//   - kills every descendant as soon as the agent has exited, or when the harness
//     asks (SIGTERM), and exits only when none is left;
//   - dies with the harness: it gets SIGTERM when the harness dies (Pdeathsig, even
//     on SIGKILL or the OOM killer) and then kills everything as above; the agent
//     itself gets SIGKILL when the supervisor dies;
//   - confines the agent's writes to its scratch directory with Landlock when the
//     kernel has it, and otherwise reports files the agent's processes hold open for
//     writing outside scratch.
//
// It talks to the harness over fd 3, one line per event:
//
//	pid N                  the agent started with process id N (its process group)
//	error MSG              the agent could not be started
//	confined MODE          how writes are confined: "landlock-abi-N" or "none: REASON"
//	write PATH             an agent process held PATH open for writing outside scratch
//	exit CODE SIGNAL       the agent ended (SIGNAL 0 when it exited by itself)

const superviseEnv = "AOPKIT_AGENTIO_SUPERVISE"

// superviseConfig is what the harness tells the supervisor (JSON in superviseEnv).
type superviseConfig struct {
	Scratch string `json:"scratch"` // writes outside it are confined or reported
	Confine bool   `json:"confine"` // start the agent through the confiner
	// The confiner's configuration, all but Path and Cgroups (the supervisor's).
	Policy confineConfig `json:"policy"`
}

var supervisorAvailable bool

// Main must be called first thing in main (and in TestMain of tests that launch
// agents): in a process started as a supervisor it runs the supervisor and exits;
// otherwise it returns and makes Process launches go through a supervisor.
func Main() {
	if raw, ok := os.LookupEnv(confineEnv); ok {
		confineMain(raw, os.Args[1:])
	}
	// Neither the harness nor a supervisor is dumpable: their /proc files
	// (environ, maps, mem, fd) are out of reach of an agent without
	// CAP_SYS_PTRACE, which the confiner drops.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	cfg, ok := os.LookupEnv(superviseEnv)
	if !ok {
		supervisorAvailable = true
		// An agent that kills its supervisor orphans what it started: as a
		// subreaper the harness inherits those processes (instead of init) and
		// sweepOrphans kills them.
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
		return
	}
	os.Exit(supervise(cfg, os.Args[1:]))
}

// supervise runs the agent command args and never writes to the standard streams,
// which belong to the agent.
func supervise(rawCfg string, args []string) int {
	status := os.NewFile(3, "status")
	if status == nil {
		return 125
	}
	syscall.CloseOnExec(3)
	var smu sync.Mutex
	say := func(format string, a ...any) {
		smu.Lock()
		fmt.Fprintf(status, format+"\n", a...)
		smu.Unlock()
	}
	var cfg superviseConfig
	if err := json.Unmarshal([]byte(rawCfg), &cfg); err != nil || len(args) == 0 {
		say("error supervisor: bad configuration")
		return 125
	}
	// Signals first: a harness that dies from here on takes everything with it.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Without it (a sandbox that refuses the prctl) orphans escape to init; the
	// agent still runs, and its own descendants are still killed.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, superviseEnv+"=") {
			env = append(env, kv)
		}
	}
	confine := cfg.Confine && cfg.Scratch != ""
	var cmd *exec.Cmd
	var confinerOut *os.File
	var cg *cgroups
	if !confine {
		if cfg.Confine {
			say("confined none: no scratch directory")
		} else {
			say("confined none: not requested")
		}
		cmd = exec.Command(args[0], args[1:]...)
	} else {
		path, err := lookPath(args[0], env, cfg.Scratch)
		exe, eerr := os.Executable()
		if err != nil || eerr != nil {
			if err == nil {
				err = eerr
			}
			say("error start %q: %v", args[0], err)
			return 126
		}
		cg = newCgroups("aopkit-"+strconv.Itoa(os.Getpid()), cfg.Policy.Limits)
		defer cg.remove()
		pc := cfg.Policy
		pc.Path, pc.Cgroups, pc.Scratch = path, cg.procs, cfg.Scratch
		raw, _ := json.Marshal(pc)
		r, w, err := os.Pipe()
		if err != nil {
			say("error start %q: confiner pipe: %v", args[0], err)
			return 126
		}
		confinerOut = r
		cmd = &exec.Cmd{Path: exe, Args: append([]string{"aopkit-confiner"}, args...), ExtraFiles: []*os.File{w}}
		env = append(env, confineEnv+"="+string(raw))
		defer w.Close()
	}
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// Pdeathsig follows the thread that forked: keep it alive for good.
	runtime.LockOSThread()
	if err := cmd.Start(); err != nil {
		say("error start %q: %v", args[0], err)
		return 126
	}
	agent := cmd.Process.Pid
	confined := "none: not requested"
	if confinerOut != nil {
		// The confiner says what it enforced, then execs (its end closes) or
		// fails (it says why).
		cmd.ExtraFiles[0].Close()
		var lines []string
		for _, l := range cg.enforced {
			lines = append(lines, "enforced "+l)
		}
		for _, l := range cg.missing {
			lines = append(lines, "missing "+l)
		}
		sc := bufio.NewScanner(confinerOut)
		startErr, ready := "", false
		for sc.Scan() {
			l := sc.Text()
			if e, ok := strings.CutPrefix(l, "error "); ok {
				startErr = e
				continue
			}
			if l == "ready" {
				ready = true
				continue
			}
			lines = append(lines, l)
		}
		confinerOut.Close()
		if startErr == "" && !ready {
			startErr = fmt.Sprintf("start %q: the confiner ended before starting it (killed by a limit?)", args[0])
		}
		if startErr != "" {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(agent, &ws, 0, nil)
			say("error %s", startErr)
			return 126
		}
		confined = "none: Landlock is not available on this kernel"
		for _, l := range lines {
			if m, ok := strings.CutPrefix(l, "enforced landlock-abi-"); ok {
				confined = "landlock-abi-" + m
			} else if m, ok := strings.CutPrefix(l, "missing Landlock: "); ok {
				confined = "none: Landlock: " + m
			}
		}
		say("confined %s", confined)
		for _, l := range lines {
			if !strings.HasPrefix(l, "enforced landlock-abi-") {
				say("measure %s", l)
			}
		}
	}
	say("pid %d", agent)
	// The supervisor keeps no copy of the agent's streams open longer than needed:
	// the harness sees EOF once every holder is gone.
	os.Stdin.Close()

	scan := !strings.HasPrefix(confined, "landlock")
	seen := map[string]bool{}
	report := func() {
		if !scan {
			return
		}
		for _, p := range writesOutside(os.Getpid(), cfg.Scratch) {
			if !seen[p] && len(seen) < 100 {
				seen[p] = true
				say("write %s", p)
			}
		}
	}

	var mu sync.Mutex
	killing := false
	startKilling := func() {
		mu.Lock()
		first := !killing
		killing = true
		mu.Unlock()
		if first {
			report()
		}
		killDescendants(os.Getpid())
	}
	go func() {
		for range sigs {
			startKilling()
		}
	}()
	if scan {
		go func() {
			for {
				time.Sleep(200 * time.Millisecond)
				mu.Lock()
				k := killing
				mu.Unlock()
				if k {
					return
				}
				report()
			}
		}()
	}

	var agentStatus syscall.WaitStatus
	agentDone := false
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: no descendant is left
			break
		}
		if pid == agent {
			agentStatus, agentDone = ws, true
		}
		if agentDone {
			// Reap what is already dead before one scan of /proc, so that many
			// processes dying at once cost one scan, not one each.
			for {
				p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
				if p <= 0 || err != nil {
					break
				}
			}
			startKilling()
		}
	}
	code, sig := -1, 0
	if agentDone {
		if agentStatus.Signaled() {
			sig = int(agentStatus.Signal())
		} else {
			code = agentStatus.ExitStatus()
		}
	}
	say("exit %d %d", code, sig)
	return 0
}

// LandlockABI is the kernel's Landlock ABI version, 0 when it has none.
func LandlockABI() int {
	abi, err := landlockABI()
	if err != nil {
		return 0
	}
	return abi
}

func landlockABI() (int, error) {
	r, _, e := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// descendants lists the live processes below root, from /proc.
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := procStat(pid)
		if !ok || st.state == "Z" || st.state == "X" {
			continue
		}
		kids[st.ppid] = append(kids[st.ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}

type stat struct {
	state string
	ppid  int
	pgrp  int
}

func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	return stat{state: f[0], ppid: ppid, pgrp: pgrp}, true
}

// killDescendants sends SIGKILL to every live process below root. Processes whose
// parent dies meanwhile are reparented to root (a subreaper) and killed when the
// caller's wait loop calls again.
func killDescendants(root int) {
	for _, p := range descendants(root) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// writesOutside lists regular files the processes below root hold open for writing
// outside scratch.
func writesOutside(root int, scratch string) []string {
	var out []string
	for _, pid := range descendants(root) {
		dir := "/proc/" + strconv.Itoa(pid)
		fds, err := os.ReadDir(dir + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := os.Readlink(dir + "/fd/" + fd.Name())
			if err != nil || !filepath.IsAbs(target) || allowedWrite(target, scratch) {
				continue
			}
			if !openForWrite(dir + "/fdinfo/" + fd.Name()) {
				continue
			}
			out = append(out, strings.TrimSuffix(target, " (deleted)"))
		}
	}
	return out
}

func allowedWrite(path, scratch string) bool {
	switch path {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/tty":
		return true
	}
	if strings.HasPrefix(path, "/dev/pts/") || strings.HasPrefix(path, "/proc/") {
		return true
	}
	if scratch == "" {
		return true
	}
	return path == scratch || strings.HasPrefix(path, scratch+"/")
}

func openForWrite(fdinfo string) bool {
	f, err := os.Open(fdinfo)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "flags:"); ok {
			flags, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_ACCMODE != syscall.O_RDONLY
		}
	}
	return false
}

// liveSupervisors are the supervisors this harness started that have not ended.
var liveSupervisors = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// sweepOrphans kills what agents of dead supervisors left behind: children of the
// harness (a subreaper) in another session than the harness's (every supervisor
// runs in a session of its own, and nothing can join the harness's session), that
// are not live supervisors. Their own children are reparented to the harness as
// they die, hence the rounds.
func sweepOrphans() {
	self := os.Getpid()
	own, err := unix.Getsid(0)
	if err != nil {
		return
	}
	for round := 0; round < 1000; round++ {
		var victims []int
		for _, pid := range descendants(self) {
			st, ok := procStat(pid)
			if !ok || st.ppid != self {
				continue
			}
			liveSupervisors.Lock()
			sup := liveSupervisors.pids[pid]
			liveSupervisors.Unlock()
			if sid, err := unix.Getsid(pid); sup || err != nil || sid == own {
				continue
			}
			victims = append(victims, pid)
		}
		if len(victims) == 0 {
			return
		}
		for _, pid := range victims {
			killDescendants(pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range victims {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}
