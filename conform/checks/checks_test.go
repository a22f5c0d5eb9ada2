package checks

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
)

// TestRegistry: every check has a unique, well-formed ID, its protocol as prefix, a
// spec reference, the quoted requirement, a level, a tier and a bad and a good
// example.
func TestRegistry(t *testing.T) {
	cs := conform.Checks("")
	if len(cs) < 50 {
		t.Fatalf("only %d checks registered", len(cs))
	}
	for _, c := range cs {
		if !strings.HasPrefix(c.ID, c.Protocol+"/") || strings.Count(c.ID, "/") != 2 {
			t.Errorf("%s: ID must be <protocol>/<section>/<name>", c.ID)
		}
		if c.Bad == "" || c.Good == "" {
			t.Errorf("%s: needs a bad and a good example", c.ID)
		}
		if c.Level != conform.MUST && c.Level != conform.SHOULD && c.Level != conform.MAY {
			t.Errorf("%s: level %q", c.ID, c.Level)
		}
		if !conform.KnownProtocol(c.Protocol) || c.Family == "" {
			t.Errorf("%s: protocol %q family %q", c.ID, c.Protocol, c.Family)
		}
	}
}

// checkFile is the file that holds the check id (package doc).
func checkFile(id string) string {
	parts := strings.Split(id, "/")
	switch parts[1] + "/" + parts[2] {
	case "bind/exit-zero", "bind/stop-on-sigterm", "bind/writes-in-scratch", "bind/regular-files":
		// Every protocol has these alike (package doc).
		return "bind_" + strings.ReplaceAll(parts[2], "-", "_") + ".go"
	}
	return strings.ReplaceAll(parts[0], "-", "") + "_" + strings.ReplaceAll(parts[1], ".", "_") + ".go"
}

// TestCheckFiles: a check's literal stands in the file its ID names, and only
// there; the registry lists every check once.
func TestCheckFiles(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src[f] = string(b)
		}
	}
	seen := map[string]bool{}
	for _, c := range all() {
		if seen[c.ID] {
			t.Errorf("%s is listed twice", c.ID)
		}
		seen[c.ID] = true
		want := checkFile(c.ID)
		if _, ok := src[want]; !ok {
			t.Errorf("%s: no file %s", c.ID, want)
			continue
		}
		lit := regexp.MustCompile(`ID:\s+` + regexp.QuoteMeta(strconv.Quote(c.ID)))
		derived := !lit.MatchString(src[want])
		for f, s := range src {
			if f != want && lit.MatchString(s) {
				t.Errorf("%s stands in %s, not in %s", c.ID, f, want)
			}
		}
		if derived && !strings.HasPrefix(want, "bind_") {
			t.Errorf("%s: %s has no literal with %s", c.ID, want, lit)
		}
	}
	if n := len(conform.Checks("")); n != len(seen) {
		t.Errorf("%d checks registered, the registry lists %d", n, len(seen))
	}
}

// TestSilentSession: checks never panic on an empty session.
func TestSilentSession(t *testing.T) {
	sc := &conform.Scenario{ID: "s", Task: []byte(`{}`)}
	s := &conform.Session{Scenario: sc, Scale: 1}
	for _, c := range conform.Checks("") {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s panicked on an empty session: %v", c.ID, p)
				}
			}()
			if o := c.Run(s); o.Verdict == conform.Pass && !strings.Contains(c.ID, "/lint/") {
				// Passing on nothing is allowed only for checks that look at what
				// the agent must not do; the runner fails silent agents anyway.
				_ = o
			}
		}()
	}
}
