package checks_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	engaof "github.com/aopkit/aopkit/conform/engine/aof"
	engaop2 "github.com/aopkit/aopkit/conform/engine/aop2"
	engaopoutput "github.com/aopkit/aopkit/conform/engine/aopoutput"
	engaos "github.com/aopkit/aopkit/conform/engine/aos"
	engorchmsg "github.com/aopkit/aopkit/conform/engine/orchmsg"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/fixtures/scenarios"
	"github.com/aopkit/aopkit/mockagent"
	mockaof "github.com/aopkit/aopkit/mockagent/aof"
	mockaop2 "github.com/aopkit/aopkit/mockagent/aop2"
	mockaopoutput "github.com/aopkit/aopkit/mockagent/aopoutput"
	mockaos "github.com/aopkit/aopkit/mockagent/aos"
	mockorchmsg "github.com/aopkit/aopkit/mockagent/orchmsg"
)

// players are each protocol's reference engine and correct agent (not
// conform/protocols: it registers the orchestrator side's checks too, which
// TestCheckFiles would count as this package's).
var players = map[string]struct {
	drive func(*harness.H) error
	agent *mockagent.Agent
}{
	"aof":        {engaof.Drive, mockaof.Agent},
	"aop2":       {engaop2.Drive, mockaop2.Agent},
	"aop-output": {engaopoutput.Drive, mockaopoutput.Agent},
	"aos":        {engaos.Drive, mockaos.Agent},
	"orchmsg":    {engorchmsg.Drive, mockorchmsg.Agent},
}

// played are the shipped scenarios played once per process by the correct
// in-process mockagent, on real time, for BenchmarkJudge.
var played struct {
	once sync.Once
	err  error
	// by protocol: the scenarios and their sessions, in the shipped order
	sessions map[string][]playedScenario
}

type playedScenario struct {
	sc   *conform.Scenario
	sess *conform.Session
}

// playAll plays every shipped scenario against the correct mockagent, all at
// once (their scenario clocks overlap: a few seconds of wall time).
func playAll(b *testing.B) map[string][]playedScenario {
	b.Helper()
	played.once.Do(func() {
		scs, err := scenarios.Builtin()
		if err != nil {
			played.err = err
			return
		}
		dir, err := os.MkdirTemp("", "aopkit-judge-bench-")
		if err != nil {
			played.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := make([]playedScenario, len(scs))
		var wg sync.WaitGroup
		for i, sc := range scs {
			p, ok := players[sc.Protocol]
			if !ok {
				continue
			}
			scratch := filepath.Join(dir, sc.ID)
			if err := os.Mkdir(scratch, 0o755); err != nil {
				played.err = err
				return
			}
			wg.Go(func() {
				h := harness.New(context.Background(), harness.Config{Scenario: sc,
					Launcher: agentio.InProcess{Agent: p.agent},
					Command:  []string{"mockagent", "--protocol", sc.Protocol}, Scratch: scratch})
				_ = h.End(p.drive(h)) // a harness error still leaves a session to judge
				out[i] = playedScenario{sc: sc, sess: h.Session()}
			})
		}
		wg.Wait()
		played.sessions = map[string][]playedScenario{}
		for _, ps := range out {
			if ps.sess != nil {
				played.sessions[ps.sc.Protocol] = append(played.sessions[ps.sc.Protocol], ps)
			}
		}
	})
	if played.err != nil {
		b.Fatal(played.err)
	}
	return played.sessions
}

// BenchmarkJudge judges the recorded sessions of each protocol's shipped
// scenarios (the correct mockagent's) as the runner does: every check the
// scenario names, run on its session. One op is one protocol's whole suite,
// each session judged afresh (a copy of it: nothing a previous op derived from
// it is reused, as the runner judges each session once).
//
//	go test -run '^$' -bench Judge -count 6 ./conform/checks
func BenchmarkJudge(b *testing.B) {
	all := playAll(b)
	for _, p := range conform.Protocols {
		ps := all[p]
		if len(ps) == 0 {
			continue
		}
		b.Run(p, func(b *testing.B) {
			records := 0
			for _, x := range ps {
				records += len(x.sess.Records)
			}
			for b.Loop() {
				for _, x := range ps {
					sess := *x.sess
					for _, id := range x.sc.Checks {
						if c := conform.LookupCheck(id); c != nil {
							judgeOne(c, &sess)
						}
					}
				}
			}
			b.ReportMetric(float64(records), "records/op")
		})
	}
}

// judgeOne runs a check as the runner does, a panic being the check's failure.
func judgeOne(c *conform.Check, s *conform.Session) (o conform.Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = conform.NotTestedf("panic: %v", p)
		}
	}()
	return c.Run(s)
}
