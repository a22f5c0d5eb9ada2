package aopoutput

import (
	"regexp"
	"testing"
)

// markerRe is the pattern matchMarker replaced: its oracle.
var markerRe = regexp.MustCompile(`^[ \t]*\[AOP:([A-Z_]+)\]`)

var markerSeeds = []string{"[AOP:START] x", " \t[AOP:TASK]", "[AOP:]", "[AOP:ab]", "[AOP:A_B]]", "[AOP:A", "x[AOP:A]", "\u00a0[AOP:A]", "[aop:A]", ""}

func agreeMarker(t *testing.T, s string) {
	g := markerRe.FindStringSubmatchIndex(s)
	n0, n1, end, ok := matchMarker(s)
	if ok != (g != nil) || ok && (n0 != g[2] || n1 != g[3] || end != g[1]) {
		t.Fatalf("matchMarker(%q) = %d %d %d %v, regexp %v", s, n0, n1, end, ok, g)
	}
}

func TestMatchMarkerAgreesWithTheRegexp(t *testing.T) {
	for _, s := range markerSeeds {
		agreeMarker(t, s)
	}
}

func FuzzMatchMarker(f *testing.F) {
	for _, s := range markerSeeds {
		f.Add(s)
	}
	f.Fuzz(agreeMarker)
}
