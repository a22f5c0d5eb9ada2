package aopconformcmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/conform/agentio"
)

// The containment flags of aopconform run: what the implementation under test may
// read, write and use (docs/aopconform.md, "Containment").
const (
	flagAllowRead  = "allow-read"
	flagAllowWrite = "allow-write"
	flagMaxMemory  = "max-memory"
	flagMaxProcs   = "max-procs"
	flagConnect    = "allow-connect"
)

func containFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: flagAllowRead, Usage: "let the implementation read `PATH` too (repeatable; / turns the read allowlist off)"},
		&cli.StringSliceFlag{Name: flagAllowWrite, Usage: "let the implementation write `PATH` too (repeatable; by default only its scratch directory)"},
		&cli.StringSliceFlag{Name: flagConnect, Usage: "let the implementation connect to TCP `PORT` too (repeatable; all: any port; by default the harness's ports, 53 and 443)"},
		&cli.StringFlag{Name: flagMaxMemory, Value: "2GiB", Usage: "memory of the implementation's processes, `SIZE` (KiB, MiB, GiB; 0: no limit)"},
		&cli.IntFlag{Name: flagMaxProcs, Value: agentio.DefaultProcs, Usage: "processes and threads of the implementation, `N` (0: no limit)"},
	}
}

// policyOf reads the containment flags; key is the --certify key, which stays
// unreadable whatever --allow-read says.
func policyOf(c *cli.Context, key string) (agentio.Policy, error) {
	mem, err := parseSize(c.String(flagMaxMemory))
	if err != nil {
		return agentio.Policy{}, usageError{fmt.Sprintf("--%s: %v", flagMaxMemory, err)}
	}
	procs := c.Int(flagMaxProcs)
	if procs < 0 {
		return agentio.Policy{}, usageError{fmt.Sprintf("--%s must not be negative", flagMaxProcs)}
	}
	p := agentio.Policy{AllowRead: c.StringSlice(flagAllowRead), AllowWrite: c.StringSlice(flagAllowWrite)}
	p.Limits.Memory, p.Limits.Procs = mem, procs
	if mem == 0 {
		p.Limits.Memory = -1
	}
	if procs == 0 {
		p.Limits.Procs = -1
	}
	for _, v := range c.StringSlice(flagConnect) {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "all" {
				p.ConnectAll = true
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > 65535 {
				return agentio.Policy{}, usageError{fmt.Sprintf("--%s takes a TCP port (1-65535) or all, not %q", flagConnect, f)}
			}
			p.ConnectPorts = append(p.ConnectPorts, n)
		}
	}
	if key != "" {
		p.Deny = append(p.Deny, key)
	}
	return p, nil
}

// parseSize reads 512MiB, 2GiB, 1048576 (bytes).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (a number of bytes, or with KiB, MiB, GiB)", s)
	}
	return n * mult, nil
}
