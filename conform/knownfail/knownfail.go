// Package knownfail reads a --known-failing file and applies it to a run: the
// failures it lists become KNOWN (reported, not failing the run), and an entry whose
// checks now pass is stale and fails the run, so the file shrinks as the agent
// improves (the connectrpc/conformance practice).
//
// The file has one entry a line: a check ID pattern (a substring or a glob, as
// --run takes), whitespace, and the reason, which is required. Blank lines and lines
// starting with # are ignored:
//
//	# our agent does not implement v1 fallback yet (ISSUE-12)
//	aop2/4/version-fallback   v1 fallback not implemented yet (ISSUE-12)
//	aop2/6.1/*                heartbeats are sent by the supervisor, not tested here
package knownfail

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/safefile"
)

// Parse reads a known-failing file. name is used in errors, which are one line.
func Parse(name string, data []byte) (*conform.KnownFailing, error) {
	kf := &conform.KnownFailing{File: name, Entries: []conform.KnownEntry{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.IndexFunc(line, unicode.IsSpace)
		if i < 0 {
			// The line is not quoted: the file may be anything a flag named
			// (--known-failing /etc/passwd), and its text is not ours to print.
			return nil, fmt.Errorf("known-failing %s:%d: the line has no reason (write: PATTERN REASON)", name, n)
		}
		pat, reason := line[:i], strings.TrimSpace(line[i:])
		if strings.Contains(pat, ",") {
			return nil, fmt.Errorf("known-failing %s:%d: one pattern per line (no commas in the pattern)", name, n)
		}
		kf.Entries = append(kf.Entries, conform.KnownEntry{Line: n, Pattern: pat, Reason: reason})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("known-failing %s: %v", name, err)
	}
	return kf, nil
}

// Load reads and parses a known-failing file, then checks that every entry names at
// least one registered check (a typo would otherwise hide nothing, silently).
func Load(path string) (*conform.KnownFailing, error) {
	data, err := safefile.ReadFile(path, safefile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("--known-failing: %v", err)
	}
	kf, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	return kf, CheckIDs(kf)
}

// CheckIDs reports the first entry that matches no registered check.
func CheckIDs(kf *conform.KnownFailing) error {
	all := conform.Checks("")
	for _, e := range kf.Entries {
		found := false
		for _, c := range all {
			if conform.MatchAny(c.ID, e.Pattern) {
				found = true
				break
			}
		}
		if !found {
			if checkShaped(e.Pattern) {
				return fmt.Errorf("known-failing %s:%d: %q matches no check (see aopconform list)", kf.File, e.Line, e.Pattern)
			}
			return fmt.Errorf("known-failing %s:%d: the pattern matches no check (see aopconform list)", kf.File, e.Line)
		}
	}
	return nil
}

// checkShaped reports whether a pattern looks like a check ID or a glob of one
// (protocol/section/name): only such a pattern is quoted in an error, so that a
// file that is no known-failing file (--known-failing /etc/passwd) is not printed.
func checkShaped(p string) bool {
	if len(p) > 100 || !strings.Contains(p, "/") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-*?[]", r)) {
			return false
		}
	}
	return true
}

// failing is a verdict a known-failing entry turns into KNOWN.
func failing(v conform.Verdict) bool {
	return v == conform.Fail || v == conform.NotTested || v == conform.Warn
}

// Apply turns the listed failures of rep into KNOWN, marks stale entries (an entry
// is stale when a check it matches passed in this run and none it matches failed),
// rescores the report and records the file in it. Entries for checks that did not
// run (another protocol, deselected) are neither used nor stale.
func Apply(rep *conform.Report, kf *conform.KnownFailing) {
	entries := append([]conform.KnownEntry(nil), kf.Entries...)
	passed := make([]bool, len(entries))
	failed := make([]bool, len(entries))
	for i := range rep.Results {
		res := &rep.Results[i]
		first := -1
		for j, e := range entries {
			if !conform.MatchAny(res.Check, e.Pattern) {
				continue
			}
			switch {
			case res.Verdict == conform.Pass:
				passed[j] = true
			case failing(res.Verdict):
				failed[j] = true
				if first < 0 {
					first = j
				}
			}
		}
		if first >= 0 {
			e := &entries[first]
			e.Matched++
			res.Verdict = conform.Known
			msg := "known failure (" + e.Reason + ")"
			if res.Message != "" {
				msg += ": " + res.Message
			}
			res.Message = msg
		}
	}
	// A result NOT-JUDGED because of a known failure is known with it: one root
	// cause, one (known) failure.
	known := map[string]bool{}
	for _, res := range rep.Results {
		if res.Verdict == conform.Known {
			known[res.Check] = true
		}
	}
	for i := range rep.Results {
		if res := &rep.Results[i]; res.Verdict == conform.NotJudged && known[res.DependsOn] {
			res.Verdict = conform.Known
			res.Message = "known failure of " + res.DependsOn + ": " + res.Message
		}
	}
	for j := range entries {
		entries[j].Stale = passed[j] && !failed[j]
	}
	rep.KnownFailing = &conform.KnownFailing{File: kf.File, Entries: entries}
	rep.Score = conform.ScoreResults(rep.Protocol, rep.Results)
}

// MustFailed reports whether a MUST failed that is not a known failure: the score
// of the results without the KNOWN ones (a known failure still keeps the level it
// belongs to from being reached, but does not fail the run).
func MustFailed(rep *conform.Report) bool {
	var rest []conform.Result
	for _, r := range rep.Results {
		if r.Verdict != conform.Known {
			rest = append(rest, r)
		}
	}
	return conform.ScoreResults(rep.Protocol, rest).MustFailed
}
