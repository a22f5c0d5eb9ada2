// Package version says which aopkit a binary is. The one source of truth for every
// command's --version and for the provenance written into reports and certificates.
package version

import (
	"runtime/debug"
	"sync"
)

// Override is set at build time with -ldflags "-X github.com/aopkit/aopkit/internal/version.Override=v1.2.3"
// (the Makefile does this from git describe). Empty means: ask the build info.
var Override string

var (
	once   sync.Once
	cached string
)

// String returns the version: the -ldflags override if set, else the module version
// recorded by `go install module@vX.Y.Z`, else the VCS revision of a local build
// (with "+dirty" when the tree was modified), else "dev".
func String() string {
	once.Do(func() { cached = compute() })
	return cached
}

func compute() string {
	if Override != "" {
		return Override
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return "dev-" + rev + dirty
	}
	return "dev"
}
