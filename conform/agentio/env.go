package agentio

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The agent's environment is an allowlist, not the harness's environment: tokens and
// keys of the machine that runs aopconform (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
// NPM_TOKEN, ...) must never reach a program under test, whose output lands in
// transcripts and reports.

// allowedEnv are the variables of the harness's environment every agent gets.
var allowedEnv = []string{"PATH", "LANG", "LANGUAGE", "TZ"}

// HomeDir and TmpDir are the agent's HOME and TMPDIR, inside its scratch directory.
const (
	HomeDir = ".home"
	TmpDir  = ".tmp"
)

// AgentEnv builds an agent's environment from the harness's environment: PATH, the
// locale (LANG, LANGUAGE, LC_*), TZ and the variables named in pass; HOME and
// TMPDIR point inside scratch (the directories are created); extra (the binding's
// variables) comes last and wins. Nothing else of environ is passed on.
func AgentEnv(environ, pass []string, scratch string, extra []string) []string {
	keep := map[string]bool{}
	for _, k := range allowedEnv {
		keep[k] = true
	}
	for _, k := range pass {
		keep[k] = true
	}
	vals := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if keep[k] || strings.HasPrefix(k, "LC_") {
			vals[k] = v
		}
	}
	if scratch != "" {
		home, tmp := filepath.Join(scratch, HomeDir), filepath.Join(scratch, TmpDir)
		_ = os.MkdirAll(home, 0o700)
		_ = os.MkdirAll(tmp, 0o700)
		if !passes(pass, "HOME") {
			vals["HOME"] = home
		}
		if !passes(pass, "TMPDIR") {
			vals["TMPDIR"] = tmp
		}
	}
	for _, kv := range extra {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			vals[k] = v
		}
	}
	out := make([]string, 0, len(vals))
	for k, v := range vals {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func passes(pass []string, name string) bool {
	for _, p := range pass {
		if p == name {
			return true
		}
	}
	return false
}
