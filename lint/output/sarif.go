package output

import (
	"encoding/json"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aopkit/aopkit/lint"
)

// RulesDocURL is where each rule's documentation lives; the fragment is the
// lowercased rule ID.
const RulesDocURL = "https://github.com/aopkit/aopkit/blob/main/docs/rules.md"

// HelpURI returns the documentation link of a rule.
func HelpURI(id string) string { return RulesDocURL + "#" + strings.ToLower(id) }

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	HelpURI              string         `json:"helpUri"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration map[string]any `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	Properties       map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	ID               int            `json:"id,omitempty"`
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string     `json:"uri"`
	URIBaseID string     `json:"uriBaseId,omitempty"`
	Desc      *sarifText `json:"description,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func sarifLevel(s lint.Severity) string { return bySeverity(s, "error", "warning", "note") }

// SARIF prints a SARIF 2.1.0 log with rule metadata (descriptions, help with the
// bad and good examples, help URIs) for every rule that has a result.
func SARIF(w io.Writer, r *Report) error {
	used := map[string]bool{}
	for _, f := range r.Files {
		for _, d := range f.Diagnostics {
			used[d.Rule] = true
		}
	}
	ids := slices.Sorted(maps.Keys(used))
	index := map[string]int{}
	rules := []sarifRule{}
	for i, id := range ids {
		index[id] = i
		rules = append(rules, sarifRuleOf(id))
	}
	results := []sarifResult{}
	for f, d := range r.diagnostics() {
		loc := sarifLocation{PhysicalLocation: physical(pathOf(f, d), d.Line, d.Column)}
		if d.Pointer != "" {
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: d.Pointer, Kind: "member"}}
		}
		res := sarifResult{RuleID: d.Rule, RuleIndex: index[d.Rule], Level: sarifLevel(d.Severity),
			Message: sarifText{Text: d.Message}, Locations: []sarifLocation{loc},
			Properties: map[string]any{"spec": d.Spec, "protocol": f.Protocol}}
		for k, rel := range d.Related {
			res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: k + 1, PhysicalLocation: physical(relatedPath(f, d, rel), rel.Line, rel.Column), Message: &sarifText{Text: rel.Message}})
		}
		results = append(results, res)
	}
	log := sarifLog{
		Schema:  SARIFSchemaURI,
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "aoplint", InformationURI: "https://github.com/aopkit/aopkit", Version: r.Version, Rules: rules}},
			Results: results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

func physical(path string, line, col int) sarifPhysical {
	if line < 1 {
		line = 1
	}
	return sarifPhysical{ArtifactLocation: artifactOf(path), Region: sarifRegion{StartLine: line, StartColumn: col}}
}

// SARIFSchemaURI is the $schema of aoplint's SARIF logs: the OASIS SARIF 2.1.0 schema.
const SARIFSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// SrcRoot is the uriBaseId of every relative artifact location: the directory aoplint
// ran in, which in CI is the repository's root (GitHub code scanning resolves it).
const SrcRoot = "%SRCROOT%"

// StdinURI names standard input in SARIF: a valid absolute URI, since "<stdin>" is not one.
const StdinURI = "file:///dev/stdin"

// stdinName is how the linter names standard input.
const stdinName = "<stdin>"

// artifactOf turns a path as aoplint printed it into a SARIF artifactLocation
// (SARIF 2.1.0 §3.4, §3.10): a relative path becomes a percent-encoded relative
// reference with uriBaseId %SRCROOT%; an absolute path, or one that leaves the working
// directory (../), becomes a file:// URI; standard input becomes file:///dev/stdin.
func artifactOf(path string) sarifArtifact {
	if path == stdinName {
		return sarifArtifact{URI: StdinURI, Desc: &sarifText{Text: "standard input"}}
	}
	p := filepath.ToSlash(filepath.Clean(path))
	if filepath.IsAbs(path) || p == ".." || strings.HasPrefix(p, "../") {
		abs, err := filepath.Abs(path)
		if err == nil {
			p = filepath.ToSlash(abs)
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // a Windows drive: file:///C:/...
		}
		return sarifArtifact{URI: "file://" + escapePath(p)}
	}
	return sarifArtifact{URI: escapePath(p), URIBaseID: SrcRoot}
}

// escapePath percent-encodes each segment of a slash-separated path (RFC 3986 §2.1):
// everything but the unreserved characters and the sub-delimiters a path segment
// allows; ':' is encoded too, so that a relative reference never reads as a scheme.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}

func sarifRuleOf(id string) sarifRule {
	r := lint.LookupRule(id)
	if r == nil {
		return sarifRule{ID: id, Name: id, ShortDescription: sarifText{Text: id}, FullDescription: sarifText{Text: id}, HelpURI: HelpURI(id),
			Help: sarifText{Text: id}, DefaultConfiguration: map[string]any{"level": "error"}, Properties: map[string]any{}}
	}
	help := r.Doc + "\n\nBad:\n" + r.Bad + "\n\nGood:\n" + r.Good
	md := r.Doc + "\n\nBad:\n\n```\n" + r.Bad + "\n```\n\nGood:\n\n```\n" + r.Good + "\n```\n\nSpec: " + r.Spec
	proto := r.Protocol
	if proto == "" {
		proto = "all"
	}
	return sarifRule{
		ID: r.ID, Name: ruleName(r.Title),
		ShortDescription:     sarifText{Text: r.Title},
		FullDescription:      sarifText{Text: r.Doc},
		HelpURI:              HelpURI(r.ID),
		Help:                 sarifText{Text: help, Markdown: md},
		DefaultConfiguration: map[string]any{"level": sarifLevel(r.Severity)},
		Properties:           map[string]any{"tags": []string{proto}, "spec": r.Spec},
	}
}

// ruleName turns a title into the PascalCase name SARIF viewers show.
func ruleName(title string) string {
	var b strings.Builder
	up := true
	for _, c := range title {
		switch {
		case c >= 'a' && c <= 'z':
			if up {
				c -= 'a' - 'A'
			}
			b.WriteRune(c)
			up = false
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteRune(c)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}
