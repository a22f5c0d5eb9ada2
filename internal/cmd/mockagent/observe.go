package mockagentcmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/mockagent"
)

// observe starts the observation of --observe DIR (nil when not asked for): the
// agent's stdin and stdout are replaced by recording copies.
func observe(cfg config, h host, stdin *io.Reader, stdout *io.Writer) (*mockagent.Observer, error) {
	if cfg.Observe == "" {
		return nil, nil
	}
	env := map[string]string{}
	for _, kv := range h.environ {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AOP") || strings.HasPrefix(k, "AOF_") {
			env[k] = v
		}
	}
	var obs *mockagent.Observer
	var err error
	if h.pid != 0 {
		obs, err = mockagent.NewObserverFor(cfg.Observe, h.pid, h.args, env, h.killed)
	} else {
		obs, err = mockagent.NewObserver(cfg.Observe, h.args, env)
	}
	if err != nil {
		return nil, fmt.Errorf("--observe %s: %w", cfg.Observe, err)
	}
	if d := h.getenv("AOF_RUN_DIR"); d != "" {
		// The aof run as the scheduler left it for the agent: run.json while
		// the run is live (aof-1 §Artifacts 1, "status": "running").
		obs.Saw(filepath.Join(d, "run.json"))
	}
	*stdin = obs.Stdin(*stdin)
	*stdout = obs.Stdout(*stdout)
	return obs, nil
}
