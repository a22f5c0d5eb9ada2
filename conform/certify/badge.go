package certify

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
)

// badgeColors by level reached.
var badgeColors = map[string]string{"Full": "#2c9f45", "Resilient": "#7cb342", "Core": "#d4a017", "none": "#cb3d2f", "partial": "#9f9f9f"}

// Badge writes an SVG badge ("aopconform aop2 | Full", "aopconform aop2
// orchestrator | Full" for an orchestrator's certificate) for a statement. A
// partial selection (--run, --skip), or a statement that does not record its
// selection, shows no level ("partial run, no level"). Callers must only pass a
// statement that Verify accepted (cmd/aopconform does).
func Badge(w io.Writer, st *Statement, keyID string) error {
	var protos []string
	for p := range st.Predicate.Levels {
		protos = append(protos, p)
	}
	sort.Strings(protos)
	var right []string
	color := ""
	for _, p := range protos {
		l := st.Predicate.Levels[p]
		right = append(right, l)
		if c := badgeColors[l]; color == "" || l == "none" {
			color = c
		}
	}
	if color == "" {
		color = badgeColors["none"]
	}
	left := "aopconform " + strings.Join(protos, "+")
	if side := st.Predicate.SubjectSide(); side != sideAgent {
		left += " " + side
	}
	val := strings.Join(right, "/")
	if sel := st.Predicate.Selection; sel == nil || sel.Partial() {
		// A level is certified by the full suite only: a partial run (or a
		// certificate that does not say) shows none, whatever its levels say.
		val, color = "partial run, no level", badgeColors["partial"]
	}
	if !st.Predicate.Passed && val != "none" {
		val += " (failed)"
	}
	lw, rw := textWidth(left), textWidth(val)
	title := fmt.Sprintf("%s; suite %s; signed by key %s", st.Summary(), st.Predicate.Suite.Digest, keyID)
	e := html.EscapeString
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" viewBox="0 0 %d 20" role="img" aria-label="%s: %s">
<title>%s</title>
<linearGradient id="s" x2="0" y2="100%%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>
<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>
</g></svg>
`, lw+rw, lw+rw, e(left), e(val), e(title), lw+rw, lw, lw, rw, color, lw+rw,
		lw/2, e(left), lw/2, e(left), lw+rw/2, e(val), lw+rw/2, e(val))
	return err
}

// textWidth estimates the width in pixels of Verdana 11px text plus padding.
func textWidth(s string) int { return len([]rune(s))*7 + 12 }
