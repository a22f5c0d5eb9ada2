package runner

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/harness"
	"github.com/aopkit/aopkit/mockagent"
)

// TestAOSHostileHTTP: an agent that floods the guardian with 40 MiB of valid
// requests gets a transcript within the channel's byte budget and an
// http-truncated event; requests off the guardian's secret path are refused and
// not recorded.
func TestAOSHostileHTTP(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("x", 1<<20-100)
	var offPath int
	flood := &mockagent.Agent{Protocol: "aos", Run: func(ctx context.Context, env mockagent.Env, _ string) int {
		// In-process, the engine serves the guardian in memory.
		client := &http.Client{Transport: env.HTTP}
		guardian := env.Getenv("AOS_GUARDIAN_URL")
		u, err := url.Parse(guardian)
		if err != nil || len(strings.Trim(u.Path, "/")) < 32 {
			fmt.Fprintf(env.Stderr, "guessable guardian URL %q\n", guardian)
			return 3
		}
		if resp, err := client.Post("http://"+u.Host+"/", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":"off","method":"ping"}`)); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				offPath++
			}
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i := 0; i < 40; i++ {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"pad":%q}}`, i, pad)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, guardian, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if resp, err := client.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		return 0
	}}
	var scs []*conform.Scenario
	for _, s := range builtin(t) {
		if s.ID == "aos-happy-path" {
			scs = append(scs, s)
		}
	}
	out := t.TempDir()
	rep, err := Run(context.Background(), Options{Protocol: "aos", Command: []string{"flood"}, Scenarios: scs,
		Run: "aos/2.2/content-type", OutDir: out, Launcher: agentio.InProcess{Agent: flood}})
	if err != nil {
		t.Fatal(err)
	}
	if offPath != 1 {
		t.Errorf("a request off the secret path was not refused with 404")
	}
	data, err := os.ReadFile(rep.Scenarios[0].Transcript)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > harness.MaxAgentBytes+1<<20 {
		t.Errorf("transcript holds %d MiB of HTTP, budget %d MiB", len(data)>>20, harness.MaxAgentBytes>>20)
	}
	if !bytes.Contains(data, []byte(`"event":"http-truncated"`)) {
		t.Error("no http-truncated event")
	}
	if bytes.Contains(data, []byte(`"off"`)) {
		t.Error("the request off the secret path was recorded")
	}
}
