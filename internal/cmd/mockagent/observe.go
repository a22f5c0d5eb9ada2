package mockagentcmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aopkit/aopkit/mockagent"
)

// observe starts the observation of --observe DIR (nil when not asked for): the
// agent's stdin and stdout are replaced by recording copies.
func observe(cfg config, stdin *io.Reader, stdout *io.Writer) (*mockagent.Observer, error) {
	if cfg.Observe == "" {
		return nil, nil
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AOP") || strings.HasPrefix(k, "AOF_") {
			env[k] = v
		}
	}
	obs, err := mockagent.NewObserver(cfg.Observe, os.Args, env)
	if err != nil {
		return nil, fmt.Errorf("--observe %s: %w", cfg.Observe, err)
	}
	if d := os.Getenv("AOF_RUN_DIR"); d != "" {
		// The aof run as the scheduler left it for the agent: run.json while
		// the run is live (aof-1 §Artifacts 1, "status": "running").
		obs.Saw(filepath.Join(d, "run.json"))
	}
	*stdin = obs.Stdin(*stdin)
	*stdout = obs.Stdout(*stdout)
	return obs, nil
}
