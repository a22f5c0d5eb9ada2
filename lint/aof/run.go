package aof

import (
	"os"
	"path/filepath"
	"time"

	"github.com/aopkit/aopkit/lint"
	spec "github.com/aopkit/aopkit/lint/spec/aof"
)

// DefaultTTL is the heartbeat TTL of aof-1 §Resume Protocol (lint/spec/aof).
const DefaultTTL = spec.DefaultTTL

// RunExpiry: expiresAt = lastHeartbeat + TTL.
var RunExpiry = ruleDocs.Rule(lint.Rule{ID: "AOF-RUN-001", Protocol: "aof", Kinds: []string{KindHeartbeat}, Severity: lint.Error, Run: checkExpiry})

var runRules = []*lint.Rule{RunExpiry}

func checkExpiry(p *lint.Pass) {
	last, ok1 := timeOf(p.Member("/lastHeartbeat"))
	exp, ok2 := timeOf(p.Member("/expiresAt"))
	if !ok1 || !ok2 {
		return
	}
	ttl := exp.Sub(last)
	switch {
	case ttl <= 0:
		p.Reportf("/expiresAt", "expiresAt %s is not after lastHeartbeat %s: expiresAt = lastHeartbeat + ttlMs (default 300,000 ms), such as %q",
			p.Member("/expiresAt").Str, p.Member("/lastHeartbeat").Str, spec.FormatTime(spec.ExpiresAt(last, DefaultTTL)))
	case ttl > 24*time.Hour:
		p.ReportSevf(lint.Warning, "/expiresAt", "expiresAt is %s after lastHeartbeat: a TTL that long lets a crashed run hold its task for hours (default 5 minutes)", ttl)
	}
}

// runArtifactNames are the files of runs/<taskId>/, in the order they are written
// (run.json when the lease is acquired, then heartbeats, then the result).
var runArtifactNames = []string{"run.json", "run_heartbeat.json", "run_result.json"}

// runFile reports whether m is a run artifact read from a file of its own (not a
// message of a stream), and returns the file's directory and name.
func runFile(m *lint.Message) (dir, name string, ok bool) {
	if m == nil || m.Root == nil || m.Index != 0 || m.Stream != "" || m.Path == "" {
		return "", "", false
	}
	name = filepath.Base(m.Path)
	for _, n := range runArtifactNames {
		if n == name && m.Kind == n {
			return filepath.Dir(m.Path), name, true
		}
	}
	return "", "", false
}

// runDirTask returns the taskId a run directory names: dir is runs/<taskId> (or
// upstream's state/runs/<taskId>); ok is false for a directory not under runs/.
func runDirTask(dir string) (id string, ok bool) {
	if filepath.Base(filepath.Dir(dir)) != "runs" {
		return "", false
	}
	return filepath.Base(dir), true
}

// checkRunDir is AOF-DIR-003 for one run artifact file: it lives in runs/<taskId>/
// of its own task. The data-directory linter gets it by linting each file of runs/.
func checkRunDir(p *lint.Pass) {
	dir, name, ok := runFile(p.Msg)
	if !ok {
		return
	}
	id, ok := runDirTask(dir)
	if !ok {
		return
	}
	if msg := taskIDProblem(id); msg != "" {
		p.Reportf("", "the run directory %s is not named by a TaskId: run artifacts live in runs/<taskId>/", id)
		return
	}
	if tid := p.Member("/taskId"); tid.IsString() && tid.Str != id {
		p.Reportf("/taskId", "%s in runs/%s/ carries taskId %q: run artifacts live in the directory of their own task", name, id, tid.Str)
	}
}

// runSiblings loads the run artifacts written before m in m's directory (for
// run_result.json: run.json and run_heartbeat.json), so that AOF-SEQ-005 compares
// a run artifact linted on its own, or in a data directory, with the others.
func runSiblings(m *lint.Message) []*lint.Message {
	dir, name, ok := runFile(m)
	if !ok {
		return nil
	}
	var out []*lint.Message
	for _, n := range runArtifactNames {
		if n == name {
			break
		}
		path := filepath.Join(dir, n)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		if sib := loadMessage(path); sib != nil && sib.Kind == n {
			out = append(out, sib)
		}
	}
	return out
}
