package aopoutput

import (
	_ "embed"

	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/ruledoc"
	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
	spec "github.com/aopkit/aopkit/lint/spec/aopoutput"
)

// ruleDocs is the prose of the package's rules, by ID (rules.yaml).
var ruleDocs = ruledoc.Parse("lint/aopoutput/rules.yaml", rulesYAML)

//go:embed rules.yaml
var rulesYAML []byte

// Schema validates the details file against details.schema.json and the report,
// converted to the JSON the spec's parseAOPOutput builds (plus its bullets), against
// report.schema.json. The report's precise rules claim what they report, so the
// schema adds only what they do not say.
var Schema = ruleDocs.Rule(lint.Rule{ID: "AOPOUT-SCHEMA-001", Protocol: ID, Severity: lint.Error, Schema: true, Run: runSchema})

func init() { lint.Register(Schema) }

func runSchema(p *lint.Pass) {
	if p.Msg.Root != nil {
		schema.Run(p)
		return
	}
	if p.Msg.Kind != KindReport || p.Msg.CutOff {
		// A report the harness cut off lacks its end by the harness's doing.
		return
	}
	r := parsed(p)
	tb := treePool.Get().(*treeBufs)
	errs, err := schema.Validate(SchemaFile(KindReport), tb.build(r))
	tb.reset()
	treePool.Put(tb)
	if err != nil {
		reportAt(p, lint.Error, 0, "", "internal error: schema %s: %v", SchemaFile(KindReport), err)
		return
	}
	for _, e := range errs {
		reportAt(p, p.Rule.Severity, offsetOf(r, e.Pointer), e.Pointer, "%s", e.Message)
	}
}

// reportTree is the report as the spec's parser reads it, plus the bullets: the
// tree jsonread.Parse would make of the JSON of {timestamps:{start,end}, task,
// summary, bullets, detailsFile, metrics, status} (json.Marshal's key order, each
// byte of invalid UTF-8 replaced by U+FFFD), built without maps or the round trip
// (the test's reportJSON and treeOf are its oracle). Offsets are zero: the
// report's diagnostics are placed by pointer (offsetOf).
func reportTree(r *report) *jsonread.Node { return new(treeBufs).build(r) }

// treeBufs hold a report tree's nodes and member lists. runSchema takes one from
// treePool per report and gives it back once the tree is validated (the
// validators keep no node), so the trees of a stream reuse one slab.
type treeBufs struct {
	nodes           []jsonread.Node
	ms, metrics, ts []jsonread.Member
	items           []*jsonread.Node
	pairs           []spec.Pair // the METRICS pairs (spec.MetricPairs)
}

var treePool = sync.Pool{New: func() any { return new(treeBufs) }}

// reset drops every reference the last tree held (strings of its report).
func (tb *treeBufs) reset() {
	clear(tb.nodes)
	clear(tb.ms)
	clear(tb.metrics)
	clear(tb.ts)
	clear(tb.items)
	clear(tb.pairs)
	tb.nodes, tb.ms, tb.metrics, tb.ts, tb.items, tb.pairs = tb.nodes[:0], tb.ms[:0], tb.metrics[:0], tb.ts[:0], tb.items[:0], tb.pairs[:0]
}

// build makes r's tree in tb's buffers.
func (tb *treeBufs) build(r *report) *jsonread.Node {
	// Every node of the tree in one slab, counted: the root and timestamps
	// objects, the bullets array, each bullet and the summary, the metrics object
	// and each metric, one string per other marker.
	var lines []spec.SummaryLine
	var summaryText string
	var pairs []spec.Pair
	hasMetrics := false
	n, bullets := 2, 0
	hasSummary := r.Has("SUMMARY")
	if hasSummary {
		lines, summaryText = r.Summary()
		bullets = spec.Bullets(lines)
		n += 2 + bullets
	}
	if m := r.First("METRICS"); m != nil {
		pairs = spec.MetricPairs(tb.pairs[:0], m.Value)
		tb.pairs, hasMetrics = pairs, true
		n += 1 + len(pairs)
	}
	for _, name := range [...]string{"DETAILS_FILE", "STATUS", "TASK", "END", "START"} {
		if r.Has(name) {
			n++
		}
	}
	if cap(tb.nodes) < n {
		tb.nodes = make([]jsonread.Node, 0, n)
	}
	nodes := tb.nodes[:0]
	node := func(n jsonread.Node) *jsonread.Node {
		nodes = append(nodes, n) // within the capacity: the pointers stay valid
		return &nodes[len(nodes)-1]
	}
	// Every string of the tree is cut from the report's text at ASCII bytes or
	// whole runes (lines, trimmed values, bullets, metric pairs; the summary is
	// lines joined): when the text is valid UTF-8, so is each, and none is
	// checked again.
	valid := utf8.Valid(r.Text)
	marshal := func(s string) string {
		if valid {
			return s
		}
		return marshalled(s)
	}
	str := func(s string) *jsonread.Node { return node(jsonread.Node{Kind: jsonread.String, Str: marshal(s)}) }
	obj := func(ms []jsonread.Member) *jsonread.Node {
		return node(jsonread.Node{Kind: jsonread.Object, Members: ms})
	}
	// The members in json.Marshal's order: bullets, detailsFile, metrics, status,
	// summary, task, timestamps.
	ms := tb.ms[:0]
	if hasSummary {
		items := tb.items[:0]
		for _, l := range lines {
			if l.Bullet {
				items = append(items, str(spec.BulletText(l.Text)))
			}
		}
		if items == nil {
			items = []*jsonread.Node{} // an empty array, not a missing one
		}
		tb.items = items
		ms = append(ms, jsonread.Member{Key: "bullets", Value: node(jsonread.Node{Kind: jsonread.Array, Items: items})})
	}
	if m := r.First("DETAILS_FILE"); m != nil {
		ms = append(ms, jsonread.Member{Key: "detailsFile", Value: str(m.Value)})
	}
	if hasMetrics {
		// Keys as json.Marshal sorts them (by the Go string, before the
		// replacement of invalid UTF-8), one member per key even when two keys
		// read the same once replaced.
		metrics := tb.metrics[:0]
		for _, p := range pairs {
			metrics = append(metrics, jsonread.Member{Key: marshal(p.Key), Value: str(p.Value)})
		}
		if metrics == nil {
			metrics = []jsonread.Member{}
		}
		tb.metrics = metrics
		ms = append(ms, jsonread.Member{Key: "metrics", Value: obj(metrics)})
	}
	if m := r.First("STATUS"); m != nil {
		ms = append(ms, jsonread.Member{Key: "status", Value: str(m.Value)})
	}
	if hasSummary {
		ms = append(ms, jsonread.Member{Key: "summary", Value: str(summaryText)})
	}
	if m := r.First("TASK"); m != nil {
		ms = append(ms, jsonread.Member{Key: "task", Value: str(m.Value)})
	}
	ts := tb.ts[:0]
	if m := r.First("END"); m != nil {
		ts = append(ts, jsonread.Member{Key: "end", Value: str(m.Value)})
	}
	if m := r.First("START"); m != nil {
		ts = append(ts, jsonread.Member{Key: "start", Value: str(m.Value)})
	}
	tb.ts = ts
	ms = append(ms, jsonread.Member{Key: "timestamps", Value: obj(ts)})
	tb.ms = ms
	root := obj(ms)
	tb.nodes = nodes
	return root
}

// marshalled is s as json.Marshal then a JSON parser leave it: every byte of
// invalid UTF-8 becomes U+FFFD.
func marshalled(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// offsetOf maps a pointer into the report's JSON form back to the text.
func offsetOf(r *report, pointer string) int {
	toks := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	name := ""
	switch toks[0] {
	case "timestamps":
		name = "START"
		if len(toks) > 1 && toks[1] == "end" {
			name = "END"
		}
	case "task":
		name = "TASK"
	case "summary":
		name = "SUMMARY"
	case "bullets":
		if len(toks) > 1 {
			if i, err := strconv.Atoi(toks[1]); err == nil {
				lines, _ := r.Summary()
				n := 0
				for _, l := range lines {
					if l.Bullet {
						if n == i {
							return l.Off
						}
						n++
					}
				}
			}
		}
		name = "SUMMARY"
	case "detailsFile":
		name = "DETAILS_FILE"
	case "metrics":
		name = "METRICS"
	case "status":
		name = "STATUS"
	}
	if m := r.First(name); m != nil {
		if m.Value != "" {
			return m.ValOff
		}
		return m.Off
	}
	return 0
}
