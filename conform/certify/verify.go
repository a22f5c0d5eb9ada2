package certify

import (
	"crypto/ed25519"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/internal/safefile"
)

// Finding is one line of a verification.
type Finding struct {
	What   string // "signature", "side", "suite", "report r.json", "agent" (or "orchestrator": the subject's side)
	OK     bool
	Detail string
}

// Verification is the outcome of Verify.
type Verification struct {
	Statement *Statement
	Findings  []Finding
}

// OK reports whether every finding is OK.
func (v *Verification) OK() bool {
	for _, f := range v.Findings {
		if !f.OK {
			return false
		}
	}
	return len(v.Findings) > 0
}

// SuiteFunc computes the digest of the suite as it is now, loaded the way the
// certificate says it was: the side's scenarios (Predicate.SubjectSide: "agent" or
// "orchestrator"), built-in or not, extra directories. An error names what cannot
// be loaded (an unknown side, a protocol without scenarios of that side).
type SuiteFunc func(side, protocol string, builtin bool, dirs []string) (conform.SuiteID, error)

// Options are what Verify checks besides the signature.
type Options struct {
	// Suite, when set, recomputes the suite digest: a different digest means the
	// scenarios or checks changed since, and the agent must be certified again.
	Suite SuiteFunc
	// Agents, when set, are files that must be what was certified (`verify
	// --agent PATH`, repeatable): each must have the digest of a subject — the
	// executable, or a file its command line named — and every named file (the
	// script of `python3 agent.py`) must be matched by one of them, so the
	// interpreter alone never verifies as the agent. The executable of a
	// certificate with named files may be left out: it is reported NOT CHECKED.
	Agents []string
	// Version, when set, is the verifying aopconform's version: a different one is
	// reported (the suite digest covers the scenarios and the checks' definitions,
	// the version names the checks' code), not a failure.
	Version string
}

// Verify checks a certificate: the signature with pub (nothing else is read when
// it fails), then that every report it names still has its digest, the suite's
// digest against the suite now, and the agent executable when one is given.
func Verify(certPath string, data []byte, pub ed25519.PublicKey, opts Options) (*Verification, error) {
	st, err := Open(data, pub)
	if err != nil {
		return nil, err
	}
	v := &Verification{Statement: st}
	p := st.Predicate
	v.Findings = append(v.Findings, Finding{"signature", true, "ed25519 key " + KeyID(pub)})
	side := p.SubjectSide()
	if p.Side != "" {
		v.Findings = append(v.Findings, Finding{"side", true, side + " (the suite is the " + side + " side's)"})
	}
	v.Findings = append(v.Findings, selectionFindings(&p)...)
	if opts.Version != "" {
		d := "certified with " + p.Aopconform + ", the same as this one"
		if opts.Version != p.Aopconform {
			d = "certified with " + p.Aopconform + ", this is " + opts.Version + " (checks' code may differ)"
		}
		v.Findings = append(v.Findings, Finding{"aopconform", true, d})
	}
	if opts.Suite != nil {
		for _, proto := range slices.Sorted(maps.Keys(p.Levels)) {
			now, err := opts.Suite(side, proto, p.Suite.Builtin, p.Suite.Dirs)
			switch {
			case err != nil:
				v.Findings = append(v.Findings, Finding{"suite", false, "cannot load the suite: " + err.Error()})
			case now.Digest != p.Suite.Digest:
				v.Findings = append(v.Findings, Finding{"suite", false, fmt.Sprintf(
					"CHANGED since certification (certified %s, now %s): re-certification needed", p.Suite.Digest, now.Digest)})
			default:
				v.Findings = append(v.Findings, Finding{"suite", true, "unchanged, " + p.Suite.Digest})
			}
		}
	}
	v.Findings = append(v.Findings, requirementFindings(&p)...)
	dir := filepath.Dir(certPath)
	if len(p.Reports) == 0 {
		v.Findings = append(v.Findings, Finding{"reports", false, "the certificate names no report"})
	}
	for _, r := range p.Reports {
		path := filepath.FromSlash(r.Name)
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		sum, err := safefile.SHA256(path, safefile.MaxInput)
		switch {
		case err != nil:
			v.Findings = append(v.Findings, Finding{"report " + r.Name, false, "cannot read it: " + err.Error()})
		case sum != r.SHA256:
			v.Findings = append(v.Findings, Finding{"report " + r.Name, false, "CHANGED since certification (sha256 " + sum + ", certified " + r.SHA256 + ")"})
		default:
			v.Findings = append(v.Findings, Finding{"report " + r.Name, true, "sha256 " + sum})
		}
	}
	v.Findings = append(v.Findings, subjectFindings(st.Subject, side, opts.Agents)...)
	return v, nil
}

// subjectFindings check the files given (`--agent PATH`) against the subjects:
// the executable (subjects[0]) and the files its command line named. Each file
// must match a subject's digest; each named file must be matched; the executable
// of a certificate with named files need not be (NOT CHECKED, not a failure).
func subjectFindings(subjects []Subject, side string, files []string) []Finding {
	if len(files) == 0 {
		return nil
	}
	var out []Finding
	matched := make([]bool, len(subjects))
	for _, f := range files {
		sum, err := safefile.SHA256(f, 0)
		if err != nil {
			out = append(out, Finding{side, false, "cannot read it: " + err.Error()})
			continue
		}
		hit := -1
		for i, s := range subjects {
			if s.Digest["sha256"] == sum {
				matched[i] = true
				if hit < 0 {
					hit = i
				}
			}
		}
		switch {
		case hit < 0 && len(subjects) == 1:
			out = append(out, Finding{side, false, fmt.Sprintf("%s is not the certified executable (sha256 %s, certified %s)", f, sum, subjects[0].Digest["sha256"])})
		case hit < 0:
			out = append(out, Finding{side, false, fmt.Sprintf("%s is none of the certified files (sha256 %s; certified %s)", f, sum, subjectList(subjects))})
		case len(subjects) == 1:
			out = append(out, Finding{side, true, f + " is the certified executable"})
		case hit == 0:
			out = append(out, Finding{side, true, fmt.Sprintf("%s is the certified program %s (sha256 %s)", f, subjects[0].Name, sum)})
		default:
			out = append(out, Finding{side, true, fmt.Sprintf("%s is the certified %s (sha256 %s, run by %s)", f, subjects[hit].Name, sum, subjects[0].Name)})
		}
	}
	for i, s := range subjects {
		switch {
		case matched[i] || len(subjects) == 1:
			// A single subject that no file matched has its FAILED line above.
		case i == 0:
			out = append(out, Finding{side, true, fmt.Sprintf("NOT CHECKED: the program %s (sha256 %s) that ran the certified files; --agent PATH checks it too", s.Name, s.Digest["sha256"])})
		default:
			out = append(out, Finding{side, false, fmt.Sprintf("NOT CHECKED: %s (sha256 %s), named on the certified command line, matched no --agent file: the certificate is of %s run by %s, give --agent PATH for it", s.Name, s.Digest["sha256"], s.Name, subjects[0].Name)})
		}
	}
	return out
}

// subjectList is every subject with its digest.
func subjectList(subjects []Subject) string {
	var l []string
	for _, s := range subjects {
		l = append(l, s.Name+" "+s.Digest["sha256"])
	}
	return strings.Join(l, ", ")
}

// selectionFindings are the lines of what the certificate says ran: the
// selection (full suite or not), the known-failing file and the settings. A
// certificate that does not say (written before selections were signed) does
// not verify: it may cover a few checks under the full suite's digest and level.
func selectionFindings(p *Predicate) []Finding {
	sel := p.Selection
	if sel == nil {
		return []Finding{{"selection", false, "NOT RECORDED: the certificate was written by an aopconform that did not sign what it ran (--run, --skip, --known-failing), so it may cover only some checks; re-certify"}}
	}
	var out []Finding
	switch {
	case sel.Full != !sel.Partial():
		out = append(out, Finding{"selection", false, fmt.Sprintf("INCONSISTENT: full is %v with %s", sel.Full, sel.flags())})
	case sel.Partial():
		f := Finding{"selection", true, fmt.Sprintf("PARTIAL (%s): no level is certified; passed speaks for the selected checks only", sel.flags())}
		for proto, l := range p.Levels {
			if l != "none" {
				f = Finding{"selection", false, fmt.Sprintf("PARTIAL (%s) yet level %s %s: a partial selection certifies no level", sel.flags(), proto, l)}
			}
		}
		out = append(out, f)
	default:
		out = append(out, Finding{"selection", true, "the full suite (no --run, no --skip)"})
	}
	if kf := sel.KnownFailing; kf != nil {
		var es []string
		for _, e := range kf.Entries {
			es = append(es, fmt.Sprintf("%s excused %d (%s)", e.Pattern, e.Matched, e.Reason))
		}
		d := fmt.Sprintf("%s (sha256 %s): %d entr%s; %d failure(s) excused; a level with an excused MUST is not reached",
			kf.File, kf.SHA256, len(kf.Entries), plural(len(kf.Entries), "y", "ies"), p.Known)
		if len(es) > 0 {
			d += ": " + strings.Join(es, "; ")
		}
		out = append(out, Finding{"known-failing", true, d})
	}
	settings := fmt.Sprintf("--timeout-scale %s, --repeat %d", strconv.FormatFloat(sel.TimeoutScale, 'g', -1, 64), sel.Repeat)
	if sel.Strict {
		settings += ", --strict"
	}
	return append(out, Finding{"settings", true, settings})
}

// flags is the selection as the command line gave it.
func (s *Selection) flags() string {
	var f []string
	if s.Run != "" {
		f = append(f, "--run "+s.Run)
	}
	if s.Skip != "" {
		f = append(f, "--skip "+s.Skip)
	}
	if len(f) == 0 {
		return "neither --run nor --skip"
	}
	return strings.Join(f, " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Summary is one line about what the certificate states.
func (st *Statement) Summary() string {
	p := st.Predicate
	var lv []string
	for proto, l := range p.Levels {
		lv = append(lv, proto+" "+l)
	}
	sort.Strings(lv)
	// The files the command line named are what was certified, run by the
	// program; a certificate without them certifies the program.
	var names []string
	for i, s := range st.Subject {
		if i > 0 || len(st.Subject) == 1 {
			names = append(names, s.Name+" (sha256:"+s.Digest["sha256"]+")")
		}
	}
	agent := strings.Join(names, ", ")
	if len(st.Subject) > 1 {
		agent += " run by " + st.Subject[0].Name + " (sha256:" + st.Subject[0].Digest["sha256"] + ")"
	}
	state := "passed"
	if !p.Passed {
		state = "failed"
	}
	level := "level " + strings.Join(lv, ", ")
	switch {
	case p.Selection == nil:
		level += " (selection not recorded)"
	case p.Selection.Partial():
		level = "no level: a partial selection (" + p.Selection.flags() + ")"
		state += " for the selection"
	}
	s := fmt.Sprintf("aopconform %s certified %s as %s: %s, run %s", p.Aopconform, agent, article(p.SubjectSide()), level, state)
	if p.Known > 0 {
		s += fmt.Sprintf(" with %d known failure(s)", p.Known)
	}
	return s + ", signed " + p.Signed.Format("2006-01-02T15:04:05Z")
}

// article is "an agent", "an orchestrator".
func article(side string) string {
	if side != "" && strings.ContainsRune("aeiou", rune(side[0])) {
		return "an " + side
	}
	return "a " + side
}

// requirementFindings say which requirements of the spec the certified run
// covers (its passing checks enforce them), against the registry the
// provenance names; certificates before the requirement list say nothing.
func requirementFindings(p *Predicate) []Finding {
	var out []Finding
	for _, proto := range slices.Sorted(maps.Keys(p.Requirements)) {
		rc := p.Requirements[proto]
		d := fmt.Sprintf("%d of %d %s %s-side requirements covered (registry %s)", rc.Covered, rc.Total, proto, rc.Side, p.Provenance.Requirements)
		if len(rc.Uncovered) > 0 {
			d += "; not covered: " + strings.Join(rc.Uncovered, ", ")
		}
		out = append(out, Finding{"requirements", true, d})
	}
	return out
}
