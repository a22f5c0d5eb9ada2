package transcriptgen_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"

	"github.com/aopkit/aopkit/lint"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/internal/transcriptgen"
	"github.com/aopkit/aopkit/lint/linter"
)

// TestValidTranscriptsLintClean holds the generator to aoplint: with no message
// broken on purpose, every protocol, in every framing, gets no error and no warning.
func TestValidTranscriptsLintClean(t *testing.T) {
	t.Parallel()
	for _, framing := range []transcriptgen.Framing{transcriptgen.Bare, transcriptgen.Records} {
		for _, p := range transcriptgen.Protocols {
			if framing == transcriptgen.Bare && p == "aop-output" {
				continue
			}
			name := fmt.Sprintf("%s/%d", p, framing)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				if lint.LookupProtocol(p) == nil {
					t.Skipf("protocol %s is not registered yet", p)
				}
				var buf bytes.Buffer
				st, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 3, Messages: 1500, Framing: framing, Protocols: []string{p}})
				if err != nil {
					t.Fatal(err)
				}
				res, err := linter.LintStream(name+".jsonl", &buf, linter.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Messages != int(st.Lines) {
					t.Errorf("linted %d messages, wrote %d lines", res.Messages, st.Lines)
				}
				bad := 0
				for _, d := range res.Diagnostics {
					if d.Severity == lint.Info {
						continue
					}
					if bad++; bad <= 10 {
						t.Errorf("%d:%d %s %s: %s", d.Line, d.Column, d.Severity, d.Rule, d.Message)
					}
				}
				if bad > 10 {
					t.Errorf("... and %d more", bad-10)
				}
			})
		}
	}
}

// TestInvalidMessagesAreFound checks that the messages broken on purpose are
// broken for aoplint too.
func TestInvalidMessagesAreFound(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	st, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 4, Messages: 8000, InvalidEvery: 100})
	if err != nil {
		t.Fatal(err)
	}
	res, err := linter.LintStream("mixed.jsonl", &buf, linter.Options{})
	if err != nil {
		t.Fatal(err)
	}
	errs, _, _ := res.Counts()
	rules := map[string]int{}
	for _, d := range res.Diagnostics {
		if d.Severity == lint.Error {
			rules[strings.SplitN(d.Rule, "-", 2)[0]]++
		}
	}
	if int64(errs) < st.Invalid*8/10 {
		t.Errorf("%d messages broken on purpose, %d errors found (%v)", st.Invalid, errs, rules)
	}
}

// TestProtocolsAreTheList: the generator writes every listed protocol, in the
// list's order (lint/all.Protocols).
func TestProtocolsAreTheList(t *testing.T) {
	if got, want := strings.Join(transcriptgen.Protocols, " "), strings.Join(lint.ListedProtocolIDs(), " "); got != want {
		t.Errorf("transcriptgen writes %s; the list is %s", got, want)
	}
}

// TestRecordTime: a record's "at" is written in conform.TimeFormat.
func TestRecordTime(t *testing.T) {
	var buf bytes.Buffer
	if _, err := transcriptgen.Write(&buf, transcriptgen.Config{Seed: 1, Messages: 1, Framing: transcriptgen.Records, Protocols: []string{transcriptgen.Protocols[0]}}); err != nil {
		t.Fatal(err)
	}
	var rec struct{ At string }
	line, _, _ := strings.Cut(buf.String(), "\n")
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(conform.TimeFormat, rec.At); err != nil || len(rec.At) != len("2025-01-06T08:00:00.000Z") {
		t.Errorf("record time %q is not in conform.TimeFormat: %v", rec.At, err)
	}
}
