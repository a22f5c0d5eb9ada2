// Package release holds no code: its tests check how aopkit is shipped, the
// GoReleaser configuration (.goreleaser.yaml), the GitHub workflows and the Action
// (action.yml, action/*.sh), and the release scripts (.ci/release-*), with the
// tools a release uses (goreleaser, actionlint), pinned here and run with go run
// from the module proxy, as CI installs its other tools.
package release

// Pinned tool versions: `go run MODULE@VERSION` builds them from the module proxy.
const (
	Actionlint = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
	Goreleaser = "github.com/goreleaser/goreleaser/v2@v2.17.0"
)
