// Package transcriptgen writes large, deterministic, realistic JSON-lines
// transcripts for benchmarking aoplint: whole sessions of the five protocols (aop2,
// aos, aop-output, aof, orchmsg), one after another, as bare JSON lines and as
// transcript/1 records, shaped after the spec examples and the fixtures. Every
// message is valid and every session is a coherent conversation (correlation ids,
// heartbeat cadence, increasing progress, handoff before completion), except one
// message in Config.InvalidEvery, which is broken on purpose.
package transcriptgen

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aopkit/aopkit/internal/transcript"
)

// Framing says how sessions are written.
type Framing int

const (
	// Mixed writes about half the sessions as transcript/1 records, half as bare
	// lines (aop-output reports are multi-line text and always go in records).
	Mixed Framing = iota
	// Bare writes bare JSON lines only (and no aop-output).
	Bare
	// Records writes transcript/1 records only.
	Records
)

// Config says what to write. Writing stops after the first session that reaches
// Messages or Bytes; one of them must be set.
type Config struct {
	Seed         uint64
	Messages     int64    // stop once at least this many messages were written
	Bytes        int64    // stop once at least this many bytes were written
	InvalidEvery int      // break one message in InvalidEvery on purpose (0: none)
	Protocols    []string // only these protocols (nil: all five)
	Framing      Framing
}

// Protocols are the protocol IDs the generator knows, in a stable order (that
// of sessions; TestProtocolsAreTheList holds it to lint/all's list).
var Protocols = func() []string {
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.id
	}
	return ids
}()

// session is what the generator knows of one protocol (protocols.go).
type session struct {
	id string
	// weight is the protocol's share of sessions.
	weight int
	// command is the agent command an agent-start record names.
	command string
	// write writes one session.
	write func(*gen)
	// mutate breaks one rule of the protocol in m (nil: m is only ever cut short).
	mutate func(m O) O
	// text: the messages are multi-line text, always written in transcript/1
	// records (aop-output reports), never as bare lines.
	text bool
}

// sessionOf returns the session of protocol id, or nil.
func sessionOf(id string) *session {
	for i := range sessions {
		if sessions[i].id == id {
			return &sessions[i]
		}
	}
	return nil
}

// Stats describe what was written.
type Stats struct {
	Messages    int64            // protocol messages (JSON messages and aop-output reports)
	Lines       int64            // lines written (messages and harness events)
	Bytes       int64            // bytes written
	Sessions    int64            // conversations written
	Records     int64            // lines that are transcript/1 records
	Invalid     int64            // messages broken on purpose
	PerProtocol map[string]int64 // messages per protocol
}

// Write writes a transcript to w.
func Write(w io.Writer, cfg Config) (Stats, error) {
	if cfg.Messages <= 0 && cfg.Bytes <= 0 {
		return Stats{}, fmt.Errorf("transcriptgen: set Messages or Bytes")
	}
	protos := cfg.Protocols
	if protos == nil {
		protos = Protocols
	}
	var table []*session
	for _, p := range protos {
		s := sessionOf(p)
		if s == nil {
			return Stats{}, fmt.Errorf("transcriptgen: unknown protocol %q", p)
		}
		if cfg.Framing == Bare && s.text {
			continue
		}
		for i := 0; i < s.weight; i++ {
			table = append(table, s)
		}
	}
	if len(table) == 0 {
		return Stats{}, fmt.Errorf("transcriptgen: no protocol to write with this framing")
	}
	g := &gen{
		cfg:   cfg,
		r:     rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)),
		w:     bufio.NewWriterSize(w, 1<<20),
		clock: time.Date(2025, 1, 6, 8, 0, 0, 0, time.UTC),
		st:    Stats{PerProtocol: map[string]int64{}},
	}
	for (cfg.Messages <= 0 || g.st.Messages < cfg.Messages) && (cfg.Bytes <= 0 || g.st.Bytes < cfg.Bytes) {
		s := table[g.r.IntN(len(table))]
		g.begin(s)
		s.write(g)
		g.end()
		if g.err != nil {
			return g.st, g.err
		}
	}
	if err := g.w.Flush(); err != nil {
		return g.st, err
	}
	return g.st, nil
}

type gen struct {
	cfg   Config
	r     *rand.Rand
	w     *bufio.Writer
	buf   []byte
	err   error
	st    Stats
	clock time.Time // start of the next session
	seq   int64     // transcript/1 seq, over the whole file

	day      string // for per-day id counters
	dayCount int
	rpcID    int // JSON-RPC ids, unique over the whole file
	taskNo   int // orchmsg task numbers

	// the current session
	proto   string
	sess    *session
	records bool
	session string
	last    time.Time // time of the session's last message
}

func (g *gen) begin(s *session) {
	g.proto, g.sess = s.id, s
	switch {
	case s.text || g.cfg.Framing == Records:
		g.records = true
	case g.cfg.Framing == Bare:
		g.records = false
	default:
		g.records = g.r.IntN(2) == 0
	}
	g.st.Sessions++
	g.session = fmt.Sprintf("S-%07d", g.st.Sessions)
	g.last = g.clock
	if g.records {
		g.event(g.clock, "agent-start", O{{"command", s.command}})
	}
}

func (g *gen) end() {
	if g.records {
		g.event(g.last.Add(150*time.Millisecond), "agent-exit", O{{"code", 0}})
	}
	g.clock = g.last.Add(time.Duration(2+g.r.IntN(20)) * time.Second)
}

// dayID returns the next per-day counter (1..999) for ids like TASK-YYYY-MM-DD-NNN.
func (g *gen) dayID(t time.Time) (string, int) {
	d := t.Format("2006-01-02")
	if d != g.day {
		g.day, g.dayCount = d, 0
	}
	g.dayCount++
	return d, (g.dayCount-1)%999 + 1
}

// event writes a harness record.
func (g *gen) event(at time.Time, name string, detail O) {
	g.seq++
	rec := O{{"aopkit", transcript.Version}, {"seq", g.seq}, {"at", stampMilli(at)}, {"from", "harness"}, {"session", g.session}, {"event", name}, {"detail", detail}}
	g.line(appendJSON(g.buf[:0], rec), true)
}

// msg writes one JSON message sent by from at time at.
func (g *gen) msg(at time.Time, from, stream string, m O) {
	g.last = at
	g.count()
	broken := false
	if g.due() {
		m, broken = g.mutate(m)
	}
	if g.records {
		g.seq++
		rec := O{{"aopkit", transcript.Version}, {"seq", g.seq}, {"at", stampMilli(at)}, {"from", from}, {"protocol", g.proto}, {"stream", stream}, {"session", g.session}, {"msg", m}}
		b := appendJSON(g.buf[:0], rec)
		if broken {
			b = b[:len(b)*2/3]
		}
		g.line(b, true)
		return
	}
	b := appendJSON(g.buf[:0], m)
	if broken {
		b = b[:len(b)*2/3]
	}
	g.line(b, false)
}

// text writes one non-JSON message (an aop-output report, an AOF/1 line).
func (g *gen) text(at time.Time, from, stream, s string) {
	g.last = at
	if g.records {
		g.seq++
		rec := O{{"aopkit", transcript.Version}, {"seq", g.seq}, {"at", stampMilli(at)}, {"from", from}, {"protocol", g.proto}, {"stream", stream}, {"session", g.session}, {"text", s}}
		g.line(appendJSON(g.buf[:0], rec), true)
		return
	}
	g.line(append(g.buf[:0], s...), false)
}

func (g *gen) count() {
	g.st.Messages++
	g.st.PerProtocol[g.proto]++
}

// due reports whether the message just counted is to be broken.
func (g *gen) due() bool {
	if g.cfg.InvalidEvery <= 0 || g.st.Messages%int64(g.cfg.InvalidEvery) != 0 {
		return false
	}
	g.st.Invalid++
	return true
}

func (g *gen) line(b []byte, record bool) {
	b = append(b, '\n')
	g.buf = b[:0]
	if g.err != nil {
		return
	}
	_, g.err = g.w.Write(b)
	g.st.Lines++
	g.st.Bytes += int64(len(b))
	if record {
		g.st.Records++
	}
}

// mutate breaks m the way real producers get it wrong: one invalid message in ten
// is cut short (invalid JSON), the others break one rule of their protocol.
func (g *gen) mutate(m O) (O, bool) {
	if g.st.Invalid%10 == 0 {
		return m, true
	}
	if g.sess.mutate != nil {
		return g.sess.mutate(m), false
	}
	return m, false
}

func clone(o O) O { return append(O(nil), o...) }

// stampMilli is a transcript record's "at" (transcript.TimeFormat).
func stampMilli(t time.Time) string { return t.UTC().Format(transcript.TimeFormat) }
func stampSec(t time.Time) string   { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Helpers for realistic values.

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *gen) secs(lo, hi int) time.Duration { return time.Duration(g.between(lo, hi)) * time.Second }

func (g *gen) millis(lo, hi int) time.Duration {
	return time.Duration(g.between(lo, hi)) * time.Millisecond
}

func (g *gen) uuid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	a = a&^0xf000 | 0x4000
	b = b&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

// sentence returns a sentence of between lo and hi words, ending with a period.
func (g *gen) sentence(lo, hi int) string {
	n := g.between(lo, hi)
	b := make([]byte, 0, n*8)
	for i := 0; i < n; i++ {
		w := words[g.r.IntN(len(words))]
		if i == 0 {
			b = append(b, w[0]-'a'+'A')
			b = append(b, w[1:]...)
			continue
		}
		b = append(b, ' ')
		b = append(b, w...)
	}
	return string(append(b, '.'))
}

func (g *gen) sentences(n, lo, hi int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.sentence(lo, hi)
	}
	return out
}

var words = []string{
	"analyse", "module", "handler", "config", "provider", "interface", "refactor", "test",
	"coverage", "latency", "cache", "index", "query", "request", "response", "schema",
	"validate", "deploy", "build", "service", "client", "server", "token", "session",
	"retry", "timeout", "error", "warning", "function", "method", "dependency", "injection",
	"database", "migration", "table", "column", "record", "user", "account", "payment",
	"invoice", "report", "summary", "review", "branch", "commit", "merge", "release",
	"pipeline", "artifact", "container", "image", "volume", "network", "policy", "guard",
	"update", "create", "remove", "rename", "extract", "inline", "document", "describe",
	"the", "a", "with", "for", "from", "into", "and", "of", "to", "in", "on", "by",
}

var files = []string{
	"src/module_x.py", "src/api/users.ts", "src/api/auth.ts", "src/db/migrations/0042_orders.sql",
	"internal/cache/lru.go", "cmd/server/main.go", "tests/test_module_x.py", "web/src/components/Table.tsx",
	"docs/architecture.md", "pkg/billing/invoice.go", "lib/parser.rb", "app/models/order.rb",
	"src/main/java/com/acme/OrderService.java", "scripts/deploy.sh", "config/settings.yaml",
}

// String summarises the stats in one line.
func (s Stats) String() string {
	out := fmt.Sprintf("%d messages, %d lines (%d records), %d bytes, %d sessions, %d invalid;", s.Messages, s.Lines, s.Records, s.Bytes, s.Sessions, s.Invalid)
	for _, k := range slices.Sorted(maps.Keys(s.PerProtocol)) {
		out += fmt.Sprintf(" %s %d", k, s.PerProtocol[k])
	}
	return out
}
