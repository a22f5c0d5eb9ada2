// Command aopbench measures aoplint (and aopconform) against the limits of issue 6
// and against the tools users would pick instead, all in one run, and writes
// docs/benchmarks.md. .ci/bench/run installs the peers (ajv-cli, ajv, ajv-formats,
// python3-jsonschema, hyperfine) and runs it; `make bench` calls .ci/bench/run.
//
//	go run ./internal/cmd/aopbench [-quick] [-messages 1000000] [-out docs/benchmarks.md]
//
// Internal subcommands (run by aopbench itself in child processes):
//
//	aopbench floor FILE             decode FILE line by line with encoding/json
//	aopbench cold-profile OUT FILE  CPU-profile the first lint of FILE in a fresh process
//	aopbench heap-profile OUT FILE  lint FILE, keep the heap profile of the largest heap seen
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/minio/simdjson-go"

	"github.com/aopkit/aopkit/internal/softlimit"
	_ "github.com/aopkit/aopkit/lint/all"
	"github.com/aopkit/aopkit/lint/linter"
)

func main() { os.Exit(mainArgs(os.Args[1:], os.Stdout, os.Stderr)) }

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := subcommands[args[0]]; ok {
			if err := cmd(args[1:], stdout, stderr); err != nil {
				fmt.Fprintln(stderr, err)
				return 2
			}
			return 0
		}
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "aopbench:", err)
		return 2
	}
	b := &bench{cfg: cfg, log: stderr}
	if cfg.rerender != "" {
		data, err := os.ReadFile(cfg.rerender)
		if err == nil {
			err = json.Unmarshal(data, &b.r)
		}
		if err == nil {
			err = b.writeReport()
		}
		if err != nil {
			fmt.Fprintln(stderr, "aopbench:", err)
			return 1
		}
		return 0
	}
	if err := b.all(); err != nil {
		fmt.Fprintln(stderr, "aopbench:", err)
		return 1
	}
	return 0
}

// subcommands are the measurements aopbench runs of itself, in a process of
// their own; a failure (a usage error too) is printed on stderr and exits 2.
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) error{
	"floor":        floorCmd,
	"lints":        lintsCmd,
	"cold-profile": coldProfileCmd,
	"heap-profile": heapProfileCmd,
}

// usage is a subcommand's usage error: its synopsis.
type usage string

func (u usage) Error() string { return "usage: aopbench " + string(u) }

type config struct {
	work        string  // scratch directory for binaries and small files
	big         string  // directory for the large transcripts (deleted after)
	nodeDir     string  // directory whose node_modules holds ajv, ajv-cli, ajv-formats
	out         string  // the report
	profDir     string  // where the pprof text summaries go
	notes       string  // hand-written analysis appended to the report, if it exists
	messages    int64   // messages of the large transcript
	benchMsgs   int64   // messages of the Go benchmarks' transcript
	smallRuns   int     // runs per tool for one small file
	largeRuns   int     // runs per configuration for the large transcript
	rssSizes    []int64 // transcript sizes for peak RSS
	coldRuns    int     // processes whose cold-lint profiles are merged
	conformRuns int
	quick       bool
	rerender    string // write the report from a results.json of an earlier run
	only        string // run only these steps, over the last run's results.json
	commit      string // the commit measured, when the tree is no git checkout
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("aopbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var rssList string
	fs.StringVar(&c.work, "work", ".ci/bench/work", "scratch directory (binaries, small files, raw results)")
	fs.StringVar(&c.big, "big", os.TempDir(), "directory for the large transcripts, deleted after use")
	fs.StringVar(&c.nodeDir, "node", ".ci/bench", "directory whose node_modules holds ajv, ajv-cli and ajv-formats")
	fs.StringVar(&c.out, "out", "docs/benchmarks.md", "report to write")
	fs.StringVar(&c.profDir, "profiles", "docs/bench", "directory for the profile summaries")
	fs.StringVar(&c.notes, "notes", ".ci/bench/notes.md", "analysis appended to the report (if the file exists)")
	fs.Int64Var(&c.messages, "messages", 1_000_000, "messages in the large transcript")
	fs.Int64Var(&c.benchMsgs, "bench-messages", 100_000, "messages in the Go benchmarks' transcript")
	fs.IntVar(&c.smallRuns, "small-runs", 90, "runs per tool on one small file")
	fs.IntVar(&c.largeRuns, "large-runs", 5, "runs per configuration on the large transcript")
	fs.StringVar(&rssList, "rss", "100MB,1GB", "transcript sizes for peak RSS")
	fs.IntVar(&c.coldRuns, "cold-runs", 200, "fresh processes profiled for the small-file profile")
	fs.IntVar(&c.conformRuns, "conform-runs", 3, "runs of the conformance suite")
	fs.BoolVar(&c.quick, "quick", false, "dry run: small sizes, few runs (numbers are not meaningful)")
	fs.StringVar(&c.commit, "commit", "", "the commit measured, for a tree exported with `git archive` (default: git rev-parse HEAD)")
	fs.StringVar(&c.only, "only", "", "run only the steps named (comma-separated: small file, large transcript, instructions, go benchmarks, profiles, conformance, peak RSS) and keep the other figures of the last run's results.json")
	fs.StringVar(&c.rerender, "rerender", "", "only write the report again from `results.json` of an earlier run (e.g. after editing the notes)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.quick {
		c.messages, c.benchMsgs, c.smallRuns, c.largeRuns, c.coldRuns, c.conformRuns = 20_000, 5_000, 5, 1, 10, 1
		rssList = "5MB,20MB"
	}
	for _, s := range strings.Split(rssList, ",") {
		n, err := parseSize(s)
		if err != nil {
			return c, err
		}
		c.rssSizes = append(c.rssSizes, n)
	}
	return c, nil
}

func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.m
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("size %q: want a number with KB, MB or GB", s)
	}
	return int64(n * float64(mult)), nil
}

// bench is one run of the whole benchmark.
type bench struct {
	cfg   config
	log   io.Writer
	bin   map[string]string // built binaries
	r     results
	start time.Time
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "%s aopbench: %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func (b *bench) all() error {
	b.start = time.Now()
	if err := os.MkdirAll(b.cfg.work, 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(b.cfg.work)
	if err != nil {
		return err
	}
	b.cfg.work = abs
	defer func() {
		if b.r.bigDir != "" {
			os.RemoveAll(b.r.bigDir)
		}
	}()
	b.r.Env = environment(b.cfg)
	b.logf("load average at start: %s", b.r.Env.LoadStart)
	if err := b.build(); err != nil {
		return err
	}
	// Each step writes one section of the results; reset empties it, so that a
	// step run again (-only) does not add its rows to the last run's.
	type step struct {
		name  string
		f     func() error
		reset func()
	}
	steps := []step{
		{"small file", b.small, func() { b.r.Small = smallResult{} }},
		{"large transcript", b.large, func() { b.r.Large = largeResult{} }},
		{"instructions", b.instructions, func() { b.r.Instr = instrResult{} }},
		{"go benchmarks", b.goBench, func() { b.r.GoBench = goBenchResult{} }},
		{"profiles", b.profiles, func() { b.r.Profiles = profileResult{} }},
		{"conformance", b.conform, func() { b.r.Conform = conformResult{} }},
		{"peak RSS", b.peakRSS, func() { b.r.RSS = rssResult{} }},
	}
	// The report is rewritten after every step, so that a run stopped early still
	// leaves what it measured.
	if b.cfg.only != "" {
		// Run the steps named, over the figures of the last run (results.json).
		data, err := os.ReadFile(filepath.Join(b.cfg.work, "results.json"))
		if err != nil {
			return fmt.Errorf("-only needs the results.json of an earlier run: %w", err)
		}
		if err := json.Unmarshal(data, &b.r); err != nil {
			return err
		}
		names := strings.Split(b.cfg.only, ",")
		var keep []step
		for _, s := range steps {
			if slices.Contains(names, s.name) {
				keep = append(keep, s)
			}
		}
		for _, n := range names {
			if !slices.ContainsFunc(keep, func(s step) bool { return s.name == n }) {
				return fmt.Errorf("-only: no step %q", n)
			}
		}
		// The failures of the steps run again are forgotten; the others stay.
		b.r.Failures = slices.DeleteFunc(b.r.Failures, func(f string) bool {
			return slices.ContainsFunc(keep, func(s step) bool { return strings.HasPrefix(f, s.name+": ") })
		})
		for _, s := range keep {
			s.reset()
		}
		steps = keep
	}
	for i, s := range steps {
		b.logf("== %s", s.name)
		if err := s.f(); err != nil {
			b.r.Failures = append(b.r.Failures, fmt.Sprintf("%s: %v", s.name, err))
			b.logf("%s failed: %v", s.name, err)
		}
		b.r.Pending = nil
		for _, rest := range steps[i+1:] {
			b.r.Pending = append(b.r.Pending, rest.name)
		}
		if b.cfg.only == "" {
			b.r.Env.LoadEnd = loadAverage()
			b.r.Env.Duration = time.Since(b.start)
		} else {
			b.r.Env.Reruns = append(b.r.Env.Reruns, fmt.Sprintf("%s again at %s (commit %s, load average %s, %s)",
				s.name, time.Now().UTC().Format("15:04 UTC"), strings.TrimSpace(output("git", "rev-parse", "--short", "HEAD")), loadAverage(), time.Since(b.start).Round(time.Second)))
		}
		if data, err := json.MarshalIndent(&b.r, "", " "); err == nil {
			os.WriteFile(filepath.Join(b.cfg.work, "results.json"), data, 0o644)
		}
		if err := b.writeReport(); err != nil {
			return err
		}
	}
	b.logf("load average at end: %s", b.r.Env.LoadEnd)
	return nil
}

// build compiles the binaries under test once.
func (b *bench) build() error {
	b.bin = map[string]string{}
	targets := []struct{ name, pkg string }{
		{"aoplint", "./cmd/aoplint"},
		{"gentranscript", "./lint/internal/transcriptgen/gentranscript"},
		{"aopbench", "./internal/cmd/aopbench"},
		{"aopconform", "./cmd/aopconform"},
		{"mockagent", "./cmd/mockagent"},
	}
	for _, t := range targets {
		if _, err := os.Stat(filepath.FromSlash(t.pkg)); err != nil {
			b.logf("%s does not exist: skipped", t.pkg)
			continue
		}
		out := filepath.Join(b.cfg.work, t.name)
		// As `make build` builds the release binaries (its -X version aside).
		cmd := exec.Command("go", "build", "-trimpath", "-tags", "urfave_cli_no_docs", "-ldflags", "-s -w", "-o", out, t.pkg)
		cmd.Stderr = b.log
		if err := cmd.Run(); err != nil {
			if t.name == "aopconform" || t.name == "mockagent" {
				b.logf("building %s failed: skipped", t.pkg)
				continue
			}
			return fmt.Errorf("go build %s: %w", t.pkg, err)
		}
		b.bin[t.name] = out
	}
	return nil
}

// gen writes a transcript with the generator binary.
func (b *bench) gen(out string, args ...string) (genStats, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(b.bin["gentranscript"], append([]string{"-o", out}, args...)...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return genStats{}, fmt.Errorf("gentranscript %v: %v: %s", args, err, stderr.String())
	}
	st := genStats{Summary: strings.TrimSpace(stderr.String()), Args: strings.Join(args, " ")}
	if fi, err := os.Stat(out); err == nil {
		st.Bytes = fi.Size()
	}
	fmt.Sscanf(st.Summary, "%d messages, %d lines", &st.Messages, &st.Lines)
	return st, nil
}

type genStats struct {
	Args            string
	Summary         string
	Messages, Lines int64
	Bytes           int64
}

// floorCmd decodes a file line by line with encoding/json into an any: the floor
// of measurement 2, as a process like aoplint.
// lintsCmd lints each file with one worker, every file at once on a goroutine
// of its own, in this one process: work that shares nothing but the process
// (the Go runtime, the address space). Against one worker on the whole input,
// it is what two threads cost on this machine, the floor of two workers' CPU.
// The soft memory limit is aoplint's (softlimit.DefaultBase) once per file:
// each lint keeps the live heap one aoplint would.
func lintsCmd(files []string, stdout, _ io.Writer) error {
	if len(files) == 0 {
		return usage("lints FILE...")
	}
	softlimit.Set(int64(len(files)) * softlimit.DefaultBase)
	res := make([]linter.FileResult, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = linter.LintFile(f, linter.Options{Workers: 1})
		}()
	}
	wg.Wait()
	n := 0
	for i := range files {
		if errs[i] != nil {
			return errs[i]
		}
		n += res[i].Messages
	}
	fmt.Fprintf(stdout, "%d messages in %d files\n", n, len(files))
	return nil
}

func floorCmd(args []string, stdout, _ io.Writer) error {
	decoder := "encoding/json"
	if len(args) == 3 && args[0] == "-decoder" {
		decoder, args = args[1], args[2:]
	}
	decode, ok := floorDecoders[decoder]
	if len(args) != 1 || !ok {
		return usage("floor [-decoder encoding/json|goccy|simdjson|newline] FILE")
	}
	f, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(bufio.NewReaderSize(f, 256<<10))
	sc.Buffer(make([]byte, 0, 1<<20), linter.MaxMessage)
	var lines, decoded int
	for sc.Scan() {
		lines++
		if decode(bytes.TrimPrefix(sc.Bytes(), []byte("AOF/1 "))) {
			decoded++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d lines, %d decoded (%s)\n", lines, decoded, decoder)
	return nil
}

// floorDecoders are the references of the transcript measurement: what it costs
// to decode each line into a generic value with each decoder (simdjson-go: its
// tape, the limit), and to find the lines at all (newline).
var floorDecoders = map[string]func([]byte) bool{
	"encoding/json": func(b []byte) bool {
		var v any
		return json.Unmarshal(b, &v) == nil
	},
	"goccy": func(b []byte) bool {
		var v any
		return gojson.Unmarshal(b, &v) == nil
	},
	"simdjson": func() func([]byte) bool {
		var pj *simdjson.ParsedJson
		return func(b []byte) bool {
			var err error
			pj, err = simdjson.Parse(b, pj)
			return err == nil
		}
	}(),
	"newline": func(b []byte) bool { return len(b) > 0 },
}

// coldProfileCmd profiles the first lint of a file in this fresh process: schema
// compilation and rule set-up included, process start and package init excluded
// (GODEBUG=inittrace=1 covers those). The sampling rate is raised to 20 kHz so one
// run of a few milliseconds gets samples; aopbench merges many runs.
func coldProfileCmd(args []string, _, _ io.Writer) error {
	if len(args) != 2 {
		return usage("cold-profile OUT FILE")
	}
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	defer f.Close()
	// StartCPUProfile then prints "cannot set cpu profile rate" and keeps ours; the
	// profile's header still says 100 Hz, so only the percentages are right.
	runtime.SetCPUProfileRate(20000)
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	res, err := linter.LintFile(args[1], linter.Options{})
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	if res.Messages != 1 {
		return fmt.Errorf("linted %d messages", res.Messages)
	}
	return nil
}

// heapProfileCmd lints a file and writes the heap profile taken when the live heap
// was largest (checked every 200 ms, after a GC): what holds memory at the peak.
func heapProfileCmd(args []string, _, stderr io.Writer) error {
	if len(args) != 2 {
		return usage("heap-profile OUT FILE")
	}
	runtime.MemProfileRate = 64 << 10
	done := make(chan error, 1)
	go func() {
		_, err := linter.LintFile(args[1], linter.Options{})
		done <- err
	}()
	var best uint64
	var prof bytes.Buffer
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			if err := os.WriteFile(args[0], prof.Bytes(), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "largest live heap seen: %d bytes\n", best)
			return nil
		case <-tick.C:
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > best {
				best = ms.HeapAlloc
				prof.Reset()
				pprof.Lookup("heap").WriteTo(&prof, 0)
			}
		}
	}
}
