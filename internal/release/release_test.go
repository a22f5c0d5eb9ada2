package release

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const root = "../.."

// goRun runs a pinned tool (go run MODULE@VERSION) in the repository's root.
// go run keeps the linked tool in the build cache, so a warm cache runs it at
// once (go install would link it again every time: goreleaser, 10 s of CPU).
// It skips under -short (the first build of a tool takes a while), and when go
// cannot build the tool outside CI (no module proxy); in CI (CI=true) that
// fails the test. When the run fails, version (the tool's version flag) is run
// alone, so that a tool that cannot be had is told from one that fails.
func goRun(t *testing.T, tool, version string, args ...string) (string, error) {
	t.Helper()
	if testing.Short() {
		t.Skipf("builds %s: not in -short", tool)
	}
	run := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("go", append([]string{"run", tool}, args...)...)
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false", "GOWORK=off")
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := run(root, args...)
	if err == nil {
		return out, nil
	}
	if vout, verr := run(t.TempDir(), version); verr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go run %s %s: %v\n%s", tool, version, verr, vout)
		}
		t.Skipf("cannot build %s here: %v\n%s", tool, verr, vout)
	}
	return out, err
}

// TestActionlint: actionlint is clean on every workflow, and on action.yml, which
// it reads through the workflow that runs the action of this checkout (uses: ./).
func TestActionlint(t *testing.T) {
	wfs, err := filepath.Glob(filepath.Join(root, ".github/workflows/*.yml"))
	if err != nil || len(wfs) == 0 {
		t.Fatalf("no workflow in .github/workflows (%v)", err)
	}
	var rel []string
	usesAction := false
	for _, w := range wfs {
		data, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		usesAction = usesAction || strings.Contains(string(data), "uses: ./\n")
		rel = append(rel, strings.TrimPrefix(w, root+"/"))
	}
	if !usesAction {
		t.Error("no workflow uses the action from this checkout (uses: ./): actionlint would not read action.yml")
	}
	out, err := goRun(t, Actionlint, "-version", append([]string{"-color=false"}, rel...)...)
	if err != nil {
		t.Fatalf("actionlint %s: %v\n%s", strings.Join(rel, " "), err, out)
	}
}

// TestGoreleaserCheck: goreleaser check accepts .goreleaser.yaml (the snapshot
// build of every archive, goreleaser release --snapshot --clean, is too slow for
// the suite: run it by hand).
func TestGoreleaserCheck(t *testing.T) {
	out, err := goRun(t, Goreleaser, "--version", "check")
	if err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
}

// TestGoreleaserMatrix: every command a user installs is built for linux, darwin
// and windows (aopconform: linux and darwin) on amd64 and arm64 into its own archive, with the checksums file
// and the LICENSE; the version a release binary prints is the tag.
func TestGoreleaserMatrix(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Before struct {
			Hooks []string `yaml:"hooks"`
		} `yaml:"before"`
		Builds []struct {
			ID      string   `yaml:"id"`
			Main    string   `yaml:"main"`
			Goos    []string `yaml:"goos"`
			Goarch  []string `yaml:"goarch"`
			Ldflags []string `yaml:"ldflags"`
		} `yaml:"builds"`
		Archives []struct {
			IDs   []string `yaml:"ids"`
			Files []string `yaml:"files"`
		} `yaml:"archives"`
		Checksum struct {
			Name      string `yaml:"name_template"`
			Algorithm string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	want := []string{"aopconform", "aoplint", "mockagent"}
	var built, archived []string
	for _, b := range cfg.Builds {
		built = append(built, b.ID)
		if b.Main != "./cmd/"+b.ID {
			t.Errorf("build %s: main %s, want ./cmd/%s", b.ID, b.Main, b.ID)
		}
		sort.Strings(b.Goos)
		sort.Strings(b.Goarch)
		wantOS := "darwin linux windows"
		if b.ID == "aopconform" { // process groups and signals: POSIX only
			wantOS = "darwin linux"
		}
		if strings.Join(b.Goos, " ") != wantOS || strings.Join(b.Goarch, " ") != "amd64 arm64" {
			t.Errorf("build %s: goos %v goarch %v, want %s × amd64 arm64", b.ID, b.Goos, b.Goarch, wantOS)
		}
		if !strings.Contains(strings.Join(b.Ldflags, " "), "internal/version.Override={{") {
			t.Errorf("build %s: the version is not set from the tag (ldflags %v)", b.ID, b.Ldflags)
		}
	}
	for _, a := range cfg.Archives {
		archived = append(archived, a.IDs...)
		if !strings.Contains(strings.Join(a.Files, " "), "LICENSE") {
			t.Errorf("archive %v has no LICENSE", a.IDs)
		}
	}
	sort.Strings(built)
	sort.Strings(archived)
	if strings.Join(built, " ") != strings.Join(want, " ") || strings.Join(archived, " ") != strings.Join(want, " ") {
		t.Errorf("builds %v, archives %v: want one each of %v", built, archived, want)
	}
	if cfg.Checksum.Name != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum %+v: the Action verifies checksums.txt with SHA-256", cfg.Checksum)
	}
	if !strings.Contains(strings.Join(cfg.Before.Hooks, " "), ".ci/release-check") {
		t.Error("a release does not check the Action's default version against the tag (.ci/release-check)")
	}
	for _, f := range []string{"LICENSE", "CHANGELOG.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Error(err)
		}
	}
	lic, _ := os.ReadFile(filepath.Join(root, "LICENSE"))
	if !bytes.Contains(lic, []byte("Apache License")) || !bytes.Contains(lic, []byte("END OF TERMS AND CONDITIONS")) {
		t.Error("LICENSE is not the full Apache-2.0 text")
	}
}

// TestReleasePrepare: .ci/release-prepare writes the Action's default version, and
// .ci/release-check (which GoReleaser runs first) refuses a tag that differs.
func TestReleasePrepare(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for _, f := range []string{"action.yml", ".ci/release-prepare", ".ci/release-check"} {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(script string, args ...string) error {
		cmd := exec.Command("bash", append([]string{filepath.Join(dir, ".ci", script)}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("%s %v: %s", script, args, out)
		}
		return err
	}
	if err := run("release-prepare", "v9.8.7"); err != nil {
		t.Fatal(err)
	}
	yml, _ := os.ReadFile(filepath.Join(dir, "action.yml"))
	if !strings.Contains(string(yml), "    default: v9.8.7 # release-version\n") {
		t.Errorf("release-prepare did not write the default version:\n%s", yml)
	}
	if err := run("release-check", "v9.8.7"); err != nil {
		t.Error("release-check refuses the version release-prepare wrote")
	}
	if err := run("release-check", "v9.8.8"); err == nil {
		t.Error("release-check accepts a tag that is not the Action's default version")
	}
	if err := run("release-prepare", "latest"); err == nil {
		t.Error("release-prepare accepts a version that is not vX.Y.Z")
	}
}

// TestShellcheck: the shell scripts users run (the Action's, the pre-commit hook's,
// the release's) pass shellcheck, when it is installed (Debian's shellcheck).
func TestShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck is not installed (apt-get install shellcheck)")
	}
	scripts := []string{"action/install.sh", "action/run.sh", "hooks/aoplint", ".ci/release-prepare", ".ci/release-check"}
	cmd := exec.Command("shellcheck", scripts...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

// TestCrossBuild: the release's commands compile for the systems of
// .goreleaser.yaml (go vet type-checks them without linking). mockagent
// did not build for windows (x/sys/unix's SignalName). aopconform is held to
// linux only here: conform/agentio does not build for darwin or windows yet
// (Policy is defined in a linux-only file), which a release would hit.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the commands for six platforms: not in -short")
	}
	// One architecture per system (linux/amd64 is the suite's own build): each
	// target type-checks every dependency once, minutes on a fresh cache.
	for _, target := range []string{"linux/arm64", "darwin/arm64", "windows/amd64"} {
		goos, goarch, _ := strings.Cut(target, "/")
		pkgs := []string{"./cmd/aoplint", "./cmd/mockagent"}
		if goos != "windows" { // aopconform is POSIX only (.goreleaser.yaml)
			pkgs = append(pkgs, "./cmd/aopconform")
		}
		cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: go vet %s: %v\n%s", target, strings.Join(pkgs, " "), err, out)
		}
	}
}
