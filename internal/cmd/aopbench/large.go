package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// largeResult is measurement 2.
type largeResult struct {
	Transcript genStats
	Configs    []largeConfig
	Diags      diagSummary // what aoplint said about the transcript
	Ajv        ajvSummary
	SchemaMap  map[string]string
	Cores      int
}

type largeConfig struct {
	Name    string
	Command string
	Workers string
	Samples []sample
	Floor   bool // the encoding/json floor
}

type diagSummary struct {
	Total  int
	ByRule []ruleCount
	Footer string
}

type ruleCount struct {
	Rule  string
	Count int
}

type ajvSummary struct {
	Lines, Valid, Invalid, Errors, NotJSON, Skipped, Unknown int64
	Ajv                                                      string
}

func (b *bench) bigDir() (string, error) {
	if b.r.bigDir != "" {
		return b.r.bigDir, nil
	}
	dir, err := os.MkdirTemp(b.cfg.big, "aopbench-")
	if err != nil {
		return "", err
	}
	b.r.bigDir = dir
	return dir, nil
}

// genMessages generates a transcript of n messages, the file name of the big
// directory (bigDir); the caller removes it.
func (b *bench) genMessages(name string, n int64) (string, genStats, error) {
	dir, err := b.bigDir()
	if err != nil {
		return "", genStats{}, err
	}
	file := filepath.Join(dir, name)
	st, err := b.gen(file, "-messages", strconv.FormatInt(n, 10))
	if err != nil {
		os.Remove(file)
		return "", genStats{}, err
	}
	return file, st, nil
}

func (b *bench) large() error {
	b.logf("generating %d messages", b.cfg.messages)
	file, st, err := b.genMessages("transcript.jsonl", b.cfg.messages)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	dir := filepath.Dir(file)
	res := &b.r.Large
	res.Transcript = st
	res.Cores = runtime.NumCPU()
	b.logf("transcript: %s", st.Summary)

	// The peer: ajv over the same lines with the same schemas.
	schemaDir := filepath.Join(b.cfg.work, "schemas")
	os.RemoveAll(schemaDir)
	if err := exportSchemas(schemaDir); err != nil {
		return err
	}
	if res.SchemaMap, err = schemaMap(file, 200_000); err != nil {
		return err
	}
	mapFile := filepath.Join(b.cfg.work, "schema-map.json")
	data, _ := json.MarshalIndent(res.SchemaMap, "", "  ")
	if err := os.WriteFile(mapFile, data, 0o644); err != nil {
		return err
	}

	shards, err := split(file, res.Cores)
	if err != nil {
		return err
	}
	aoplint := b.bin["aoplint"]
	lintOK := []int{0, 1} // 1: the transcript holds invalid messages on purpose
	type runner struct {
		cfg *largeConfig
		ps  []proc
	}
	var runners []runner
	add := func(c largeConfig, ps ...proc) {
		res.Configs = append(res.Configs, c)
		runners = append(runners, runner{ps: ps})
	}
	add(largeConfig{Name: "aoplint", Workers: "1 (GOMAXPROCS=1)"},
		proc{Name: "aoplint", Args: []string{aoplint, file}, Env: []string{"GOMAXPROCS=1"}, Ok: lintOK, Out: filepath.Join(b.cfg.work, "large-aoplint.txt")})
	add(largeConfig{Name: "aoplint", Workers: fmt.Sprintf("all (%d cores)", res.Cores)},
		proc{Name: "aoplint", Args: []string{aoplint, file}, Ok: lintOK})
	add(largeConfig{Name: fmt.Sprintf("aoplint's linter, %d lints in one process, one file each", len(shards)), Workers: fmt.Sprintf("%d goroutines, one worker each", len(shards))},
		proc{Name: "lints", Args: append([]string{b.bin["aopbench"], "lints"}, shards...)})
	var par []proc
	for _, s := range shards {
		par = append(par, proc{Name: "aoplint", Args: []string{aoplint, s}, Env: []string{"GOMAXPROCS=1"}, Ok: lintOK})
	}
	add(largeConfig{Name: fmt.Sprintf("aoplint, %d processes, one file each", len(shards)), Workers: fmt.Sprintf("%d × GOMAXPROCS=1", len(shards))}, par...)
	add(largeConfig{Name: "encoding/json floor (json.Unmarshal → any, per line)", Workers: "1 (GOMAXPROCS=1)", Floor: true},
		proc{Name: "floor", Args: []string{b.bin["aopbench"], "floor", file}, Env: []string{"GOMAXPROCS=1"}})
	for _, d := range []struct{ name, decoder string }{
		{"goccy/go-json (Unmarshal → any, per line)", "goccy"},
		{"simdjson-go (parse to its tape, per line): the limit", "simdjson"},
		{"newline scan (read the lines, decode nothing)", "newline"},
	} {
		add(largeConfig{Name: "reference: " + d.name, Workers: "1 (GOMAXPROCS=1)"},
			proc{Name: "floor-" + d.decoder, Args: []string{b.bin["aopbench"], "floor", "-decoder", d.decoder, file}, Env: []string{"GOMAXPROCS=1"}})
	}
	ajvScript, _ := filepath.Abs(filepath.Join(".ci", "bench", "ajv-lines.js"))
	nodeModules, _ := filepath.Abs(filepath.Join(b.cfg.nodeDir, "node_modules"))
	ajvOut := filepath.Join(b.cfg.work, "large-ajv-lines.json")
	if exists(filepath.Join(nodeModules, "ajv")) {
		add(largeConfig{Name: "ajv-lines.js (ajv, schema validation only)", Workers: "1 (node)"},
			proc{Name: "ajv-lines", Args: []string{"node", ajvScript, schemaDir, mapFile, file}, Env: []string{"NODE_PATH=" + nodeModules}, Out: ajvOut})
	} else {
		b.r.Failures = append(b.r.Failures, "ajv not installed under "+nodeModules+": ajv-lines.js not measured")
	}
	for i := range runners {
		runners[i].cfg = &res.Configs[i]
		cmd := runners[i].ps[0].String()
		if len(runners[i].ps) > 1 {
			cmd = fmt.Sprintf("%d processes in parallel: %s ...", len(runners[i].ps), cmd)
		}
		res.Configs[i].Command = strings.ReplaceAll(strings.ReplaceAll(cmd, dir, "$BIG"), b.cfg.work, "$WORK")
	}
	// Round-robin over the configurations, so the machine's load hits them alike.
	for r := 0; r < b.cfg.largeRuns; r++ {
		for _, rn := range runners {
			b.logf("run %d/%d: %s", r+1, b.cfg.largeRuns, rn.cfg.Name)
			ss, err := runTogether(rn.ps)
			if err != nil {
				return err
			}
			total := sample{Wall: ss[0].Wall}
			for _, s := range ss {
				total.CPU += s.CPU
				total.MaxRSS = max(total.MaxRSS, s.MaxRSS)
			}
			rn.cfg.Samples = append(rn.cfg.Samples, total)
			b.logf("  %.2f s wall, %.2f s CPU, %s max RSS", total.Wall.Seconds(), total.CPU.Seconds(), fmtBytes(float64(total.MaxRSS)))
		}
	}
	res.Diags = summarizeDiags(filepath.Join(b.cfg.work, "large-aoplint.txt"))
	if data, err := os.ReadFile(ajvOut); err == nil {
		json.Unmarshal(data, &res.Ajv)
	}
	for _, s := range shards {
		os.Remove(s)
	}
	return nil
}

// split cuts file into n files at line boundaries.
func split(file string, n int) ([]string, error) {
	if n < 2 {
		n = 2
	}
	fi, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	in, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 1<<20)
	per := fi.Size() / int64(n)
	var out []string
	for i := 0; i < n; i++ {
		name := strings.TrimSuffix(file, ".jsonl") + fmt.Sprintf("-part%d.jsonl", i+1)
		f, err := os.Create(name)
		if err != nil {
			return nil, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		var written int64
		for i == n-1 || written < per {
			line, err := br.ReadBytes('\n')
			w.Write(line)
			written += int64(len(line))
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return nil, err
			}
		}
		if err := w.Flush(); err != nil {
			return nil, err
		}
		f.Close()
		out = append(out, name)
	}
	return out, nil
}

var ruleRE = regexp.MustCompile(`\[([A-Z0-9]+-[A-Z0-9-]+)\]$`)

func summarizeDiags(file string) diagSummary {
	var d diagSummary
	f, err := os.Open(file)
	if err != nil {
		return d
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	last := ""
	for sc.Scan() {
		line := sc.Text()
		if m := ruleRE.FindStringSubmatch(line); m != nil {
			counts[m[1]]++
			d.Total++
		} else if strings.TrimSpace(line) != "" {
			last = line
		}
	}
	d.Footer = last
	for r, c := range counts {
		d.ByRule = append(d.ByRule, ruleCount{r, c})
	}
	sort.Slice(d.ByRule, func(i, j int) bool {
		if d.ByRule[i].Count != d.ByRule[j].Count {
			return d.ByRule[i].Count > d.ByRule[j].Count
		}
		return d.ByRule[i].Rule < d.ByRule[j].Rule
	})
	return d
}
