//go:build aoplint_pprof

package aoplintcmd

import (
	"os"
	"runtime/pprof"
)

// profiling says whether this build has --cpuprofile (-tags aoplint_pprof).
const profiling = true

// startCPUProfile writes a CPU profile of the run to path until stop is called.
// Only a build with -tags aoplint_pprof has it: runtime/pprof links
// compress/gzip and its tables, whose initialisation every run would pay.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
