package aopconformcmd

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/engine/aos"
	"github.com/aopkit/aopkit/conform/lintstep"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/runner"
)

// guardianCmd is the short form of `aopconform run --side orchestrator --protocol
// aos` for a guardian that is already running at a URL: the same probes and
// checks (conform/engine/aos Prober, the aos/orch/... checks; ping, a tool call
// request, malformed JSON, an invalid request, a wrong jsonrpc version, an unknown
// method, invalid params), then the exchange linted with aoplint's rules
// (aos/orch/3/messages-valid). What it does not have is the run's: starting the
// guardian (aos/orch/bind/listens), reports, --repeat, the comparison with the
// reference guardian.
// Exit 0: every MUST passed; 1: a MUST failed; 2: the URL is unusable (not
// http(s), or nothing answers HTTP there). Redirects are never followed: a redirect
// is the guardian's answer, graded as such. With out, the probes and the answers
// are written as a transcript/1 file (aos-guardian-probe.jsonl) by the harness's
// recorder, as in an agent run: aopkit's requests from "agent", the guardian's
// answers from "orchestrator".
func guardianCmd(ctx context.Context, rawURL string, timeout time.Duration, out string, stdout io.Writer) error {
	u, err := url.Parse(rawURL)
	if rawURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Sprintf("guardian takes the guardian's http(s) URL, such as: aopconform guardian http://127.0.0.1:8080/ (got %q)", rawURL)}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var transcript *os.File
	if out != "" {
		dir, err := runner.RunDir(out)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		if transcript, err = runner.CreateNew(filepath.Join(dir, aos.ProbeScenario.ID+".jsonl")); err != nil {
			return fmt.Errorf("transcript: %w", err)
		}
		defer transcript.Close()
	}
	var w io.Writer
	if transcript != nil {
		w = transcript
	}
	h := aos.ProbeHarness(ctx, w)
	results := (&aos.Prober{URL: rawURL, Client: aos.NoRedirectClient(), H: h}).Run(ctx)
	if err := h.End(nil); err != nil {
		return err
	}
	if transcript != nil {
		if err := transcript.Close(); err != nil {
			return fmt.Errorf("transcript: %w", err)
		}
	}
	if len(results) > 0 && results[0].Unreachable {
		return fmt.Errorf("the guardian at %s cannot be used: %s", rawURL, results[0].Detail)
	}
	lintRes, err := lintGuardian(h.Session().Records)
	if err != nil {
		return err
	}
	results = append(results, lintRes)
	t := tablewriter.NewWriter(stdout)
	t.Header("CHECK", "LEVEL", "SPEC", "VERDICT", "DETAIL")
	mustFailed, pass := false, 0
	for _, r := range results {
		if err := t.Append([]string{r.ID, r.Level, r.Spec, r.Verdict, r.Detail}); err != nil {
			return err
		}
		switch {
		case r.Verdict == "PASS":
			pass++
		case r.Level == "MUST":
			mustFailed = true
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "aos guardian %s: %d/%d checks passed\n", rawURL, pass, len(results))
	if transcript != nil {
		fmt.Fprintf(stdout, "transcript: %s\n", transcript.Name())
	}
	if mustFailed {
		return exitCode(exitMustBad)
	}
	return nil
}

// lintGuardian is the lint step of guardian mode: aoplint's rules over the
// exchange, as over an agent run's transcript (the deliberately malformed probes
// are marked as probes and not judged). An error is the guardian's: its answers
// break a rule of AOS 0.1.0 (a wrong id, a result where an error is due, ...).
func lintGuardian(records []conform.Record) (aos.CheckResult, error) {
	// The check of the run (conform/orchside), judged here on the same exchange.
	c := conform.LookupCheck(aos.MessagesValidID)
	res := aos.CheckResult{ID: c.ID, Spec: c.Spec, Level: string(c.Level), Verdict: "PASS"}
	// As in a run (the runner's lint step): only what the guardian sent counts.
	lint, err := runner.LintRecords(lintstep.AOPLint{}, aos.ProbeScenario.ID+".jsonl", records, orchside.Judged)
	if err != nil {
		return res, err
	}
	var errs []string
	for _, f := range lint {
		if f.Severity == "error" {
			errs = append(errs, fmt.Sprintf("%s (record %d): %s", f.Rule, f.Seq, f.Message))
		}
	}
	if len(errs) > 0 {
		res.Verdict = "FAIL"
		if len(errs) > 3 {
			errs = append(errs[:3], fmt.Sprintf("and %d more", len(errs)-3))
		}
		res.Detail = strings.Join(errs, "; ")
	}
	return res, nil
}
