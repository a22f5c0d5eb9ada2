package agentio

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/internal/safefile"
)

// cgroups are the control groups of one launch: the agent's whole tree is
// counted against one memory and one process limit. cgroup v2 is used where the
// harness's own group can have children with the memory and pids controllers,
// else the v1 pids and memory hierarchies where they are writable; what could not
// be had is said in missing, and the confiner's rlimits stand in for it.
type cgroups struct {
	dirs     []string // created, removed by remove
	procs    []string // cgroup.procs files the confiner joins
	enforced []string
	missing  []string
}

const cgroupRoot = "/sys/fs/cgroup"

// newCgroups makes the groups of a launch named name (unique per supervisor).
func newCgroups(name string, lim Limits) *cgroups {
	cg := &cgroups{}
	own := ownCgroups()
	if dir, ok := v2Parent(own[""]); ok && cg.tryV2(dir, name, lim) {
		return cg
	}
	for _, ctrl := range []string{"pids", "memory"} {
		base := filepath.Join(cgroupRoot, ctrl)
		if _, err := os.Stat(filepath.Join(base, "cgroup.procs")); err != nil {
			cg.missing = append(cg.missing, ctrl+" cgroup: no writable cgroup v2 group with the "+ctrl+" controller, nor a v1 "+ctrl+" hierarchy")
			continue
		}
		parent := filepath.Join(base, own[ctrl])
		sweepStale(parent)
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			cg.missing = append(cg.missing, ctrl+" cgroup: "+err.Error())
			continue
		}
		cg.dirs = append(cg.dirs, dir)
		var err error
		var what string
		if ctrl == "pids" && lim.Procs > 0 {
			err = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(lim.Procs)), 0)
			what = strconv.Itoa(lim.Procs) + " processes and threads in all (cgroup v1 pids)"
		}
		if ctrl == "memory" && lim.Memory > 0 {
			err = os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(lim.Memory, 10)), 0)
			what = "memory " + safefile.SizeText(lim.Memory) + " in all (cgroup v1 memory)"
		}
		if err != nil {
			cg.missing = append(cg.missing, ctrl+" cgroup: "+err.Error())
			continue
		}
		cg.procs = append(cg.procs, filepath.Join(dir, "cgroup.procs"))
		if what != "" {
			cg.enforced = append(cg.enforced, what)
		}
	}
	return cg
}

func (cg *cgroups) tryV2(parent, name string, lim Limits) bool {
	sweepStale(parent)
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return false
	}
	ok := true
	if lim.Procs > 0 {
		ok = os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(lim.Procs)), 0) == nil
	}
	if ok && lim.Memory > 0 {
		ok = os.WriteFile(filepath.Join(dir, "memory.max"), []byte(strconv.FormatInt(lim.Memory, 10)), 0) == nil
	}
	if !ok {
		os.Remove(dir)
		return false
	}
	cg.dirs = []string{dir}
	cg.procs = []string{filepath.Join(dir, "cgroup.procs")}
	cg.enforced = append(cg.enforced, strconv.Itoa(lim.Procs)+" processes and threads in all (cgroup v2 pids)",
		"memory "+safefile.SizeText(lim.Memory)+" in all (cgroup v2 memory)")
	return true
}

// v2Parent is the directory of the harness's own cgroup v2 group when it offers
// the pids and memory controllers to children.
func v2Parent(own string) (string, bool) {
	for _, mnt := range []string{cgroupRoot, filepath.Join(cgroupRoot, "unified")} {
		if _, err := os.Stat(filepath.Join(mnt, "cgroup.controllers")); err != nil {
			continue
		}
		dir := filepath.Join(mnt, own)
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
		if err != nil {
			return "", false
		}
		have := " " + strings.TrimSpace(string(b)) + " "
		if !strings.Contains(have, " pids ") || !strings.Contains(have, " memory ") {
			// Only a group without processes of its own may hand controllers
			// down; the harness is in this one, so try and accept a refusal.
			if os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+pids +memory"), 0) != nil {
				return "", false
			}
		}
		return dir, true
	}
	return "", false
}

// ownCgroups maps a v1 controller ("" for v2) to the harness's group path.
func ownCgroups() map[string]string {
	out := map[string]string{}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// sweepStale removes the empty groups that launches of dead harnesses left (a
// group with processes in it cannot be removed, so a live launch's stays).
func sweepStale(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "aopkit-") {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "aopkit-"))
		if err == nil && pid != os.Getpid() && processAlive(pid) {
			continue
		}
		_ = os.Remove(filepath.Join(parent, e.Name()))
	}
}

func processAlive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// remove deletes the groups once they are empty (the supervisor calls it after
// the last descendant was reaped; the kernel may take a moment to notice).
func (cg *cgroups) remove() {
	for _, d := range cg.dirs {
		for i := 0; i < 50; i++ {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
