package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aopkit/aopkit/lint/schema"
	"github.com/aopkit/aopkit/schemas"
)

// smallResult is measurement 1.
type smallResult struct {
	File     string
	Size     int64
	Schema   string // the schema file, as `aoplint schema aop2 RESPONSE` prints it
	Method   string // "hyperfine x.y" or "own loop"
	Tools    []toolTiming
	Verdicts []string // what each tool said about the file, once
	Init     initTrace
	Binary   binaryFacts // aoplint's executable
}

type toolTiming struct {
	Name    string
	Command string
	Wall    dist // seconds
	CPU     dist // seconds (user + system), when known
}

type initTrace struct {
	TotalMS  float64
	Packages int // packages with initialisation work
	Runs     int // runs the figures are the medians of (0: one run)
	Top      []initLine
	// By origin: aopkit's packages, other modules', the Go distribution's.
	AopkitMS, ModulesMS, StdMS float64
}

// origin classifies an import path: "aopkit", "module" or "std".
func origin(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, "github.com/aopkit/aopkit"):
		return "aopkit"
	case strings.Contains(strings.SplitN(pkg, "/", 2)[0], "."):
		return "module"
	}
	return "std"
}

type initLine struct {
	Pkg     string
	ClockMS float64
	Bytes   int64
	Allocs  int64
}

func (b *bench) small() error {
	dir := filepath.Join(b.cfg.work, "small")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	file := filepath.Join(dir, "response.json")
	if _, err := b.gen(file, "-small"); err != nil {
		return err
	}
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	res := &b.r.Small
	res.File, res.Size = "response.json (aop2 §5 RESPONSE example)", fi.Size()

	// The schema as the user exports it, its siblings for ajv-cli's -r, and a
	// bundled copy for Python's CLI (which would fetch relative refs over HTTP).
	var schemaOut bytes.Buffer
	cmd := exec.Command(b.bin["aoplint"], "schema", "aop2", "RESPONSE")
	cmd.Stdout = &schemaOut
	cmd.Stderr = b.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("aoplint schema aop2 RESPONSE: %w", err)
	}
	schemaFile := filepath.Join(dir, "response.schema.json")
	if err := os.WriteFile(schemaFile, schemaOut.Bytes(), 0o644); err != nil {
		return err
	}
	var head struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(schemaOut.Bytes(), &head); err != nil {
		return fmt.Errorf("exported schema: %w", err)
	}
	embedded := strings.TrimPrefix(head.ID, schemas.BaseURL)
	res.Schema = embedded
	refs, err := schema.Refs(embedded)
	if err != nil {
		return err
	}
	var refArgs []string
	for _, r := range refs {
		data, err := readEmbedded(r)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, "ref-"+filepath.Base(r))
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		refArgs = append(refArgs, "-r", dst)
	}
	bundled, err := bundle(embedded)
	if err != nil {
		return err
	}
	bundledFile := filepath.Join(dir, "response.bundled.schema.json")
	if err := os.WriteFile(bundledFile, bundled, 0o644); err != nil {
		return err
	}

	tools := []proc{{Name: "aoplint", Args: []string{b.bin["aoplint"], file}}}
	// References, not peers: what starting a Go program costs here, and what
	// starting aoplint costs before it lints anything.
	if hello, err := b.helloWorld(); err == nil {
		tools = append(tools, proc{Name: "reference: Go hello-world", Args: []string{hello}, Ref: true})
	} else {
		b.logf("hello-world reference: %v", err)
	}
	tools = append(tools, proc{Name: "reference: aoplint --version", Args: []string{b.bin["aoplint"], "--version"}, Ref: true})
	if ajv := filepath.Join(b.cfg.nodeDir, "node_modules", ".bin", "ajv"); exists(ajv) {
		abs, _ := filepath.Abs(ajv)
		args := []string{abs, "validate", "--spec=draft7", "--strict=false", "-c", "ajv-formats", "-s", schemaFile}
		args = append(append(args, refArgs...), "-d", file)
		tools = append(tools, proc{Name: "ajv-cli", Args: args})
	} else {
		b.r.Failures = append(b.r.Failures, "ajv-cli not installed under "+b.cfg.nodeDir+"/node_modules: run .ci/bench/run")
	}
	if py := pythonWithJSONSchema(); py != "" {
		tools = append(tools, proc{Name: "python jsonschema", Args: []string{py, "-m", "jsonschema", "-i", file, bundledFile}})
	} else {
		b.r.Failures = append(b.r.Failures, "no python3 with the jsonschema module: apt-get install python3-jsonschema")
	}

	// Each tool must accept the file before its time means anything.
	for _, t := range tools {
		if t.Ref {
			continue
		}
		out, err := exec.Command(t.Args[0], t.Args[1:]...).CombinedOutput()
		verdict := strings.TrimSpace(string(out))
		if verdict == "" {
			verdict = "(no output)"
		}
		if err != nil {
			return fmt.Errorf("%s rejects the valid file: %v: %s", t.Name, err, verdict)
		}
		res.Verdicts = append(res.Verdicts, fmt.Sprintf("%s: exit 0, %s", t.Name, firstLine(verdict)))
	}

	if hf, err := exec.LookPath("hyperfine"); err == nil {
		if err := b.hyperfine(hf, tools, res); err != nil {
			return err
		}
	} else {
		if err := b.ownLoop(tools, res); err != nil {
			return err
		}
	}

	// Package initialisation of aoplint, which no profile of main sees: the
	// medians of several runs, one run being at the mercy of the machine's load.
	var traces []initTrace
	for i := 0; i < initRuns; i++ {
		cmd = exec.Command(b.bin["aoplint"], file)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("aoplint with inittrace: %w", err)
		}
		traces = append(traces, parseInitTrace(stderr.String()))
	}
	res.Init = medianInit(traces, 10)
	res.Binary, err = inspectBinary(b.bin["aoplint"])
	return err
}

func readEmbedded(file string) ([]byte, error) { return schemas.FS.ReadFile(file) }

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}

// pythonWithJSONSchema returns the Debian python3 if it has the jsonschema module
// (python3-jsonschema), else any python3 on PATH that has it.
func pythonWithJSONSchema() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import jsonschema").Run() == nil {
			return py
		}
	}
	return ""
}

// hyperfine times the tools with hyperfine in three rounds (each round runs every
// tool in turn), so that a change of the machine's load hits them alike.
func (b *bench) hyperfine(hf string, tools []proc, res *smallResult) error {
	out, _ := exec.Command(hf, "--version").Output()
	const rounds = 3
	res.Method = fmt.Sprintf("%s (-N, in %d rounds, JSON export)", strings.TrimSpace(string(out)), rounds)
	times := make([][]float64, len(tools))
	cpu := make([]float64, len(tools))
	for round := 0; round < rounds; round++ {
		export := filepath.Join(b.cfg.work, fmt.Sprintf("small-hyperfine-%d.json", round+1))
		args := []string{"-N", "--style", "basic", "--warmup", "3", "--runs", strconv.Itoa(max(2, b.cfg.smallRuns/rounds)), "--export-json", export}
		for _, t := range tools {
			args = append(args, "-n", t.Name, strings.Join(t.Args, " "))
		}
		cmd := exec.Command(hf, args...)
		cmd.Stdout, cmd.Stderr = b.log, b.log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("hyperfine: %w", err)
		}
		data, err := os.ReadFile(export)
		if err != nil {
			return err
		}
		var doc struct {
			Results []struct {
				Command string    `json:"command"`
				Times   []float64 `json:"times"`
				User    float64   `json:"user"`
				System  float64   `json:"system"`
			} `json:"results"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("hyperfine export: %w", err)
		}
		if len(doc.Results) != len(tools) {
			return fmt.Errorf("hyperfine export has %d results for %d tools", len(doc.Results), len(tools))
		}
		for i, r := range doc.Results {
			times[i] = append(times[i], r.Times...)
			cpu[i] += (r.User + r.System) / rounds
		}
	}
	for i, t := range tools {
		res.Tools = append(res.Tools, toolTiming{Name: t.Name, Command: t.String(), Wall: summarize(times[i]), CPU: dist{N: 1, Median: cpu[i]}})
	}
	return nil
}

// ownLoop runs the tools round-robin, so that the machine's load hits them alike.
func (b *bench) ownLoop(tools []proc, res *smallResult) error {
	res.Method = "own loop (hyperfine not found), tools interleaved"
	ss := make([][]sample, len(tools))
	for i := 0; i < b.cfg.smallRuns+3; i++ {
		for j, t := range tools {
			s, err := run(t)
			if err != nil {
				return err
			}
			if i >= 3 {
				ss[j] = append(ss[j], s)
			}
		}
	}
	for j, t := range tools {
		res.Tools = append(res.Tools, toolTiming{Name: t.Name, Command: t.String(), Wall: summarize(walls(ss[j])), CPU: summarize(cpus(ss[j]))})
	}
	return nil
}

var initRE = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, (\d+) bytes, (\d+) allocs`)

func parseInitTrace(s string) initTrace {
	var it initTrace
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		m := initRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ms, _ := strconv.ParseFloat(m[2], 64)
		by, _ := strconv.ParseInt(m[3], 10, 64)
		al, _ := strconv.ParseInt(m[4], 10, 64)
		it.TotalMS += ms
		switch origin(m[1]) {
		case "aopkit":
			it.AopkitMS += ms
		case "module":
			it.ModulesMS += ms
		default:
			it.StdMS += ms
		}
		it.Top = append(it.Top, initLine{Pkg: m[1], ClockMS: ms, Bytes: by, Allocs: al})
	}
	it.Packages = len(it.Top)
	sort.SliceStable(it.Top, func(i, j int) bool { return it.Top[i].ClockMS > it.Top[j].ClockMS })
	return it
}

// initRuns is how many runs of aoplint the initialisation figures are medians of.
const initRuns = 21

// medianInit is the median run: each package's median clock (allocations do not
// vary), the median total, the top packages by median clock.
func medianInit(runs []initTrace, top int) initTrace {
	if len(runs) == 0 {
		return initTrace{}
	}
	var totals, aopkit, modules, std []float64
	clocks := map[string][]float64{}
	lines := map[string]initLine{}
	for _, r := range runs {
		totals = append(totals, r.TotalMS)
		aopkit, modules, std = append(aopkit, r.AopkitMS), append(modules, r.ModulesMS), append(std, r.StdMS)
		for _, l := range r.Top {
			clocks[l.Pkg] = append(clocks[l.Pkg], l.ClockMS)
			lines[l.Pkg] = l
		}
	}
	out := initTrace{TotalMS: median(totals), Packages: runs[0].Packages, Runs: len(runs),
		AopkitMS: median(aopkit), ModulesMS: median(modules), StdMS: median(std)}
	for pkg, l := range lines {
		l.ClockMS = median(clocks[pkg])
		out.Top = append(out.Top, l)
	}
	sort.Slice(out.Top, func(i, j int) bool {
		if out.Top[i].ClockMS != out.Top[j].ClockMS {
			return out.Top[i].ClockMS > out.Top[j].ClockMS
		}
		return out.Top[i].Pkg < out.Top[j].Pkg
	})
	if len(out.Top) > top {
		out.Top = out.Top[:top]
	}
	return out
}

// median is the median of xs as a float64 (0 for none).
func median[T int64 | float64](xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return float64(s[len(s)/2])
	}
	return (float64(s[len(s)/2-1]) + float64(s[len(s)/2])) / 2
}

// helloWorld builds the smallest Go program, the floor of any Go tool's start-up.
func (b *bench) helloWorld() (string, error) {
	dir := filepath.Join(b.cfg.work, "hello")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(dir, "hello.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"\") }\n"), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "hello")
	// With aoplint's build flags, so that only the program differs.
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, src)
	cmd.Stderr = b.log
	return out, cmd.Run()
}
