package aof

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// KindHandoffMD is inputs/handoff.md, the human-readable handoff the router writes
// beside inputs/handoff.json (aof-1 §Handoff Artifacts).
const KindHandoffMD = "handoff.md"

// handoffMDHeading is the first line of the router's handoff.md.
const handoffMDHeading = "# Handoff Request"

// handoffMDLabels are the fields of handoff.md's header, with the handoff.json
// member each renders.
var handoffMDLabels = []struct{ label, ptr string }{
	{"From", "/fromAgent"}, {"To", "/toAgent"}, {"Due By", "/dueBy"},
}

// DetectText recognises the guide's handoff.md: a "# Handoff Request" heading
// first, then its "**From:**" lines or "## " sections.
func DetectText(text []byte) (kind, dialect string, confidence int) {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	rest := bytes.TrimLeft(text, " \t\r\n")
	first, after, _ := bytes.Cut(rest, []byte("\n"))
	if string(bytes.TrimSpace(first)) != handoffMDHeading {
		return "", "", 0
	}
	for _, l := range handoffMDLabels {
		if bytes.Contains(after, []byte("**"+l.label+":**")) {
			return KindHandoffMD, "", 90
		}
	}
	if bytes.Contains(after, []byte("\n## ")) || bytes.HasPrefix(bytes.TrimLeft(after, " \t\r\n"), []byte("## ")) {
		return KindHandoffMD, "", 70
	}
	return "", "", 0
}

// mdField is one "**Label:** value" line of handoff.md.
type mdField struct {
	value        string
	line, offset int
}

// parseHandoffMD reads the header fields of handoff.md (From, To, Due By), with
// the line and byte offset of each.
func parseHandoffMD(data []byte) map[string]mdField {
	out := map[string]mdField{}
	off := 0
	for n := 1; off <= len(data); n++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := strings.TrimSpace(string(data[off : off+end]))
		for _, l := range handoffMDLabels {
			prefix := "**" + l.label + ":**"
			if _, seen := out[l.label]; !seen && strings.HasPrefix(line, prefix) {
				out[l.label] = mdField{value: strings.TrimSpace(strings.TrimPrefix(line, prefix)), line: n, offset: off}
			}
		}
		off += end + 1
	}
	return out
}

// mdFinding is what is wrong with a handoff.md: at a line (1 for the file).
type mdFinding struct {
	line, offset int
	related      []lint.Related
	msg          string
}

// handoffMDFindings compares handoff.md's From, To and Due By with handoff.json
// (js, nil when there is none) and names the fields it lacks. The data-directory
// linter and AOF-DIR-004 on a handoff.md linted alone both report these.
func handoffMDFindings(data []byte, js *lint.Message) []mdFinding {
	fields := parseHandoffMD(data)
	var out []mdFinding
	var missing []string
	for _, l := range handoffMDLabels {
		f, ok := fields[l.label]
		if !ok {
			missing = append(missing, "**"+l.label+":**")
			continue
		}
		if js == nil {
			continue
		}
		if want := js.Root.Lookup(l.ptr).String(); want != "" && f.value != want {
			out = append(out, mdFinding{line: f.line, offset: f.offset, related: []lint.Related{lint.Witness(js, l.ptr, "handoff.json "+l.ptr[1:])},
				msg: fmt.Sprintf("handoff.md says %s %q, but handoff.json (authoritative) says %q: the router renders handoff.md from handoff.json", l.label, f.value, want)})
		}
	}
	if len(missing) > 0 {
		out = append(out, mdFinding{line: 1, msg: fmt.Sprintf("handoff.md lacks %s: the router's handoff.md starts with \"# Handoff Request\" and the From, To and Due By lines", strings.Join(missing, ", "))})
	}
	return out
}

// checkHandoffFile is AOF-DIR-004 for an inputs/handoff.md linted on its own: its
// header fields, compared with the handoff.json beside it.
func checkHandoffFile(p *lint.Pass) {
	m := p.Msg
	if m.Kind != KindHandoffMD || m.Root != nil {
		return
	}
	var js *lint.Message
	if m.Index == 0 && m.Stream == "" && filepath.Base(m.Path) == "handoff.md" {
		dir := filepath.Dir(m.Path)
		jsonPath := filepath.Join(dir, "handoff.json")
		if _, err := os.Stat(jsonPath); err == nil {
			if js = loadMessage(jsonPath); js != nil && js.Kind != KindHandoffInput {
				js = nil
			}
		} else if filepath.Base(dir) == "inputs" {
			p.ReportOffsetf(lint.Warning, 0, "inputs/handoff.md without inputs/handoff.json: the router writes both, and handoff.json is the authoritative one")
		}
	}
	for _, f := range handoffMDFindings(m.Raw, js) {
		line, col := m.Pos.Position(f.offset)
		p.ReportAtf(lint.Warning, lint.Related{Line: line, Column: col}, f.related, "%s", f.msg)
	}
}
