package aoplintcmd

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
	pkgaoplint "github.com/aopkit/aopkit/pkg/aoplint"
)

// TestRuleCounts: docs/aoplint.md's rule counts, `aoplint rules` and the
// library's Rules() are one number (they were 169, 174 and 172).
func TestRuleCounts(t *testing.T) {
	byProto := map[string]int{}
	for _, r := range lint.Rules() {
		p := r.Protocol
		if p == "" {
			p = "generic"
		}
		byProto[p]++
	}
	total := len(lint.Rules())
	if n := len(pkgaoplint.Rules()); n != total {
		t.Errorf("pkg/aoplint.Rules() has %d rules, aoplint rules %d", n, total)
	}
	doc, err := os.ReadFile("../../../docs/aoplint.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\*\*Rules\.\*\* (\d+) rules: ([^.]+)\.`).FindStringSubmatch(strings.Join(strings.Fields(string(doc)), " "))
	if m == nil {
		t.Fatal("docs/aoplint.md has no '**Rules.** N rules: …' sentence")
	}
	if m[1] != fmt.Sprint(total) {
		t.Errorf("docs/aoplint.md says %s rules, aoplint has %d", m[1], total)
	}
	said := map[string]int{}
	for _, part := range regexp.MustCompile(`(\d+) ([a-z0-9-]+)`).FindAllStringSubmatch(m[2], -1) {
		var n int
		fmt.Sscan(part[1], &n)
		said[part[2]] = n
	}
	if fmt.Sprint(said) != fmt.Sprint(byProto) {
		t.Errorf("docs/aoplint.md counts %v, aoplint has %v", said, byProto)
	}
}
