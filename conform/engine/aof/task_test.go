package aof_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform/engine/aof"
	"github.com/aopkit/aopkit/conform/engine/clock"
	aofspec "github.com/aopkit/aopkit/lint/spec/aof"
)

// aofWritten is a task file as d0labs/aof itself writes it (commit 2700399:
// FilesystemTaskStore.create, transition to ready, acquireLease; its yaml
// serializer's block lists, unquoted times and keys the engine does not know).
const aofWritten = "../../../testdata/aoftasks/aof-written.md"

// guideForm is a task as aof-1's guide shows one.
const guideForm = "../../../testdata/aoftasks/guide-form.md"

func TestTaskFileForms(t *testing.T) {
	data, err := os.ReadFile(aofWritten)
	if err != nil {
		t.Fatal(err)
	}
	up, err := aof.ParseTask(data)
	if err != nil {
		t.Fatal(err)
	}
	if up.Form != aof.FormUpstream || up.Assignee != "swe-backend" || up.Project != "data" || up.CreatedBy != "main" ||
		up.Lease == nil || up.Lease.ExpiresAt != "2026-12-07T03:41:34.661Z" || up.DelegationDepth() != 0 || !strings.HasPrefix(up.Body, "\n# Implement") {
		t.Errorf("upstream file read as %+v", up)
	}
	data, err = os.ReadFile(guideForm)
	if err != nil {
		t.Fatal(err)
	}
	guide, err := aof.ParseTask(data)
	if err != nil {
		t.Fatal(err)
	}
	if guide.Form != aof.FormMinimal || guide.Assignee != "swe-backend" || guide.Status != aofspec.Ready {
		t.Errorf("minimal file read as %+v", guide)
	}
	// The guide's form is rewritten as it came; the upstream form keeps the
	// keys d0labs/aof's schema requires, and the guide's assignee.
	if got := string(guide.Marshal()); got != string(data) {
		t.Errorf("the guide's form rewritten as\n%s\nwant\n%s", got, data)
	}
	out := string(up.Marshal())
	for _, want := range []string{"schemaVersion: 1\n", "project: data\n", "routing:\n  agent: swe-backend\n", "assignee: swe-backend\n", "lastTransitionAt: \"2026-12-07T03:31:34.669Z\"\n", "createdBy: main\n", "dependsOn: []\n", "  labels: [\"a\",\"b\"]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("upstream form rewritten without %q:\n%s", want, out)
		}
	}
	if again, err := aof.ParseTask([]byte(out)); err != nil || again.Form != aof.FormUpstream || again.Assignee != "swe-backend" {
		t.Errorf("rewritten upstream form read back as %+v, %v", again, err)
	}
	// routing.role is AOF's next choice when no agent is named.
	if r, err := aof.ParseTask([]byte("---\nschemaVersion: 1\nid: TASK-2026-11-22-001\nrouting:\n  role: swe-qa\n---\n")); err != nil || r.Assignee != "swe-qa" {
		t.Errorf("routing.role read as assignee %q, %v", r.Assignee, err)
	}
}

// The store seeds the upstream form with what d0labs/aof's create writes, and a
// transition stamps lastTransitionAt.
func TestStoreSeedsUpstreamForm(t *testing.T) {
	fake := clock.NewFake(start)
	dir := t.TempDir() + "/data"
	st, err := aof.NewStore(dir, fake)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Create(&aof.Task{ID: "TASK-2026-11-22-001", Title: "T", Status: aofspec.Ready, Assignee: "swe-backend"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(st.TaskPath(aofspec.Ready, "TASK-2026-11-22-001"))
	for _, want := range []string{"schemaVersion: 1\n", "project: data\n", "priority: normal\n", "createdBy: aopconform\n", `lastTransitionAt: "2026-11-22T10:00:00.000Z"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("seeded task without %q:\n%s", want, b)
		}
	}
	fake.Advance(10 * time.Second)
	if _, err := st.Transition("TASK-2026-11-22-001", aofspec.InProgress, "test", "test"); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get("TASK-2026-11-22-001")
	if err != nil || got.LastTransitionAt != "2026-11-22T10:00:10.000Z" {
		t.Errorf("after the transition lastTransitionAt %q, %v", got.LastTransitionAt, err)
	}
}
