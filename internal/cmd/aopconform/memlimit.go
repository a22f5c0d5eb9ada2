package aopconformcmd

import (
	"os"
	"runtime/debug"
)

// softMemoryLimit is aopconform's own soft memory limit. What it keeps is bounded
// by the budgets (docs/aopconform.md, "Output" and "Files the agent controls"),
// but at the default GOGC the heap may grow to twice what is live: an aop2 agent
// that fills every output budget of every scenario took aopconform to 338 MiB,
// and 172 MiB under this limit (28.8 -> 37.8 s: the collector runs more only when
// the heap is that large). A quiet run's heap is far below it and pays nothing.
// GOMEMLIMIT in the environment overrides it.
const softMemoryLimit = 160 << 20

func setMemoryLimit() {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		debug.SetMemoryLimit(softMemoryLimit)
	}
}
