package orchside

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/conform"
	engaos "github.com/aopkit/aopkit/conform/engine/aos"
)

// TestWaitListen: a listener is found; where nothing listens the wait ends at its
// bound with an error naming the address (never a hang).
func TestWaitListen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := waitListen(context.Background(), ln.Addr().String(), ListenWithin); err != nil {
		t.Errorf("listening: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	err = waitListen(context.Background(), addr, 0)
	if err == nil || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), EnvListen) {
		t.Errorf("nothing listening: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitListen(ctx, addr, ListenWithin); err == nil {
		t.Error("a cancelled wait succeeds")
	}
}

// TestGuardianChecks: the aos checks read the guardian run: a guardian never
// reached fails listens and leaves the probe checks NOT-JUDGED; a probe's verdict
// becomes its check's, with its records as evidence; the decision sequence names
// probes and answers, never ids.
func TestGuardianChecks(t *testing.T) {
	byID := map[string]*conform.Check{}
	for _, c := range guardianChecks() {
		byID[c.ID] = c
	}
	if len(byID) != len(engaos.ProbeChecks())+2 {
		t.Fatalf("%d checks", len(byID))
	}
	sess := func(g *guardianRun) *conform.Session {
		s := &conform.Session{Scenario: &conform.Scenario{Protocol: "aos"}}
		FactProbe.Set(s, g)
		return s
	}
	never := sess(&guardianRun{NotListening: "nothing accepted connections"})
	if o := byID[engaos.ListensID].Run(never); o.Verdict != conform.Fail {
		t.Errorf("listens: %v %s", o.Verdict, o.Message)
	}
	if o := byID["aos/orch/5.3/ping"].Run(never); o.Verdict != conform.NotJudged || o.DependsOn != engaos.ListensID {
		t.Errorf("ping of a guardian never reached: %v depends on %q", o.Verdict, o.DependsOn)
	}
	if got := strings.Join(guardianDecisions(never), "\n"); got != "guardian never listens" {
		t.Errorf("decisions: %s", got)
	}
	g := &guardianRun{Listened: true, URL: "http://127.0.0.1:1/", Results: []engaos.CheckResult{
		{ID: "aos/orch/5.3/ping", Verdict: "PASS", Answer: "result: status connected", Seq: []int{5, 6}},
		{ID: "aos/orch/5.1/decision", Verdict: "FAIL", Detail: "result.decision approve must be allow, deny or modify", Answer: "result: decision approve", Seq: []int{7, 8}},
	}}
	s := sess(g)
	if o := byID["aos/orch/5.3/ping"].Run(s); o.Verdict != conform.Pass || len(o.Seq) != 2 {
		t.Errorf("ping: %v %v", o.Verdict, o.Seq)
	}
	if o := byID["aos/orch/5.1/decision"].Run(s); o.Verdict != conform.Fail || !strings.Contains(o.Message, "approve") {
		t.Errorf("decision: %v %s", o.Verdict, o.Message)
	}
	if o := byID["aos/orch/6.1/parse-error"].Run(s); o.Verdict != conform.NotTested {
		t.Errorf("a probe never sent: %v", o.Verdict)
	}
	want := "guardian listens\n  ping: result: status connected\n  steps/toolCallRequest: result: decision approve"
	if got := strings.Join(guardianDecisions(s), "\n"); got != want {
		t.Errorf("decisions\n got %s\nwant %s", got, want)
	}
}

// TestNeedsMockagent: the aos side plays the agent itself; aop2 launches mockagent.
func TestNeedsMockagent(t *testing.T) {
	if NeedsMockagent("aos") || !NeedsMockagent("aop2") {
		t.Errorf("NeedsMockagent: aos %v, aop2 %v", NeedsMockagent("aos"), NeedsMockagent("aop2"))
	}
}

// TestGuardianOneCause: a guardian that never spoke has every check failed by
// the runner's rule for a silent implementation; the checks other than
// aos/orch/bind/listens, the comparison with the engine too, declare it their
// root cause, so listens is the one failure and the others are NOT-JUDGED
// under it.
func TestGuardianOneCause(t *testing.T) {
	var rs []conform.Result
	for _, c := range conform.Checks("aos") {
		if !strings.Contains(c.ID, "/orch/") {
			continue
		}
		rs = append(rs, conform.Result{Check: c.ID, Scenario: "orch-aos-probe", Verdict: conform.Fail, Message: "the orchestrator never sent a protocol message in any scenario"})
	}
	if len(rs) < 3 {
		t.Fatalf("only %d aos orchestrator-side checks", len(rs))
	}
	conform.ApplyCauses(rs)
	conform.ResolveDependencies(rs)
	for _, r := range rs {
		switch {
		case r.Check == engaos.ListensID:
			if r.Verdict != conform.Fail {
				t.Errorf("%s: %s, want FAIL", r.Check, r.Verdict)
			}
		case r.Verdict != conform.NotJudged || r.DependsOn != engaos.ListensID:
			t.Errorf("%s: %s (depends on %q), want NOT-JUDGED under %s", r.Check, r.Verdict, r.DependsOn, engaos.ListensID)
		}
	}
}
