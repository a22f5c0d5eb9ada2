//go:build !aoplint_pprof

package aoplintcmd

import "errors"

// profiling says whether this build has --cpuprofile (-tags aoplint_pprof).
const profiling = false

// startCPUProfile says how to get a build that profiles (cpuprofile.go): the
// released aoplint does not link runtime/pprof, whose packages' initialisation
// (compress/gzip's crc32 and flate tables: 36k instructions) every run paid.
func startCPUProfile(string) (func(), error) {
	return nil, errors.New("this aoplint is built without profiling: build it with go build -tags aoplint_pprof")
}
