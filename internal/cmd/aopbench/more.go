package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/aopkit/aopkit/lint"
)

// rssResult is measurement 3.
type rssResult struct {
	Rows    []rssRow
	Hostile []hostileRow
}

type rssRow struct {
	Target   int64
	Bytes    int64
	Messages int64
	All      sample // all cores
	NoLimit  sample // all cores, GOMEMLIMIT=off (aoplint's 64 MiB soft limit lifted)
}

// hostileRow is one hostile input of issue 13.9: its peak RSS is the bound that
// docs/benchmarks.md states for any input.
type hostileRow struct {
	What    string
	Bytes   int64
	All     sample
	NoLimit sample
}

func (b *bench) peakRSS() error {
	dir, err := b.bigDir()
	if err != nil {
		return err
	}
	for _, size := range b.cfg.rssSizes {
		file := filepath.Join(dir, fmt.Sprintf("rss-%d.jsonl", size))
		st, err := b.gen(file, "-bytes", strconv.FormatInt(size, 10), "-seed", "2")
		if err != nil {
			return err
		}
		row := rssRow{Target: size, Bytes: st.Bytes, Messages: st.Messages}
		b.logf("peak RSS of %s", fmtBytes(float64(st.Bytes)))
		p := proc{Name: "aoplint", Args: []string{b.bin["aoplint"], file}, Ok: []int{0, 1}}
		if row.All, err = run(p); err != nil {
			os.Remove(file)
			return err
		}
		p.Env = []string{"GOMEMLIMIT=off"}
		if row.NoLimit, err = run(p); err != nil {
			os.Remove(file)
			return err
		}
		os.Remove(file)
		b.r.RSS.Rows = append(b.r.RSS.Rows, row)
	}
	return b.hostileRSS(dir)
}

// hostileRSS measures aoplint's peak RSS on the inputs of issue 13.9: one 15 MiB
// message of tiny values, and a file of 15 MiB lines (1.5 GB; 150 MB with
// -quick), half of them long strings, half as many values as a message may hold.
// They are generated here and deleted after.
func (b *bench) hostileRSS(dir string) error {
	const line = 15 << 20
	lines := 100
	if b.cfg.quick {
		lines = 10
	}
	many := filepath.Join(dir, "hostile-values.json")
	big := filepath.Join(dir, "hostile-lines.jsonl")
	defer os.Remove(many)
	defer os.Remove(big)
	if err := writeHostile(many, big, line, lines); err != nil {
		return err
	}
	for _, in := range []struct{ what, file string }{
		{"one 15 MiB message of 7.8 M tiny values", many},
		{fmt.Sprintf("%d lines of 15 MiB (long strings; 250 k values)", lines), big},
	} {
		st, err := os.Stat(in.file)
		if err != nil {
			return err
		}
		row := hostileRow{What: in.what, Bytes: st.Size()}
		p := proc{Name: "aoplint", Args: []string{b.bin["aoplint"], in.file}, Ok: []int{0, 1}}
		if row.All, err = run(p); err != nil {
			return err
		}
		p.Env = []string{"GOMEMLIMIT=off"}
		if row.NoLimit, err = run(p); err != nil {
			return err
		}
		b.logf("%s: max RSS %s (%s without the soft limit)", in.what, fmtBytes(float64(row.All.MaxRSS)), fmtBytes(float64(row.NoLimit.MaxRSS)))
		b.r.RSS.Hostile = append(b.r.RSS.Hostile, row)
	}
	return nil
}

// writeHostile writes the two hostile inputs: aop2 TASK-shaped messages.
func writeHostile(many, big string, size, lines int) error {
	head := `{"protocol_version":"2.0","message_type":"TASK","task_id":"t","payload":{"x":`
	f, err := os.Create(many)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(head + "[0")
	for i := len(head) + 2; i < size-4; i += 2 {
		w.WriteString(",0")
	}
	w.WriteString("]}}")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	f, err = os.Create(big)
	if err != nil {
		return err
	}
	defer f.Close()
	w = bufio.NewWriterSize(f, 1<<20)
	item := `"` + strings.Repeat("b", 58) + `"`
	for l := 0; l < lines; l++ {
		if l%2 == 0 {
			w.WriteString(`{"protocol_version":"2.0","message_type":"TASK","task_id":"t","payload":{"description":"`)
			w.WriteString(strings.Repeat("a", size-100))
			w.WriteString("\"}}\n")
			continue
		}
		w.WriteString(head + "[" + item)
		for i := len(head) + 1 + len(item); i < size-2*len(item); i += len(item) + 1 {
			w.WriteString("," + item)
		}
		w.WriteString("]}}\n")
	}
	return w.Flush()
}

// conformResult is measurement 4.
type conformResult struct {
	Note      string
	Protocols []conformProtocol
}

type conformProtocol struct {
	Protocol string
	Command  string
	Samples  []sample
	Failed   string // why it could not be measured
}

// conform runs the conformance suite of every protocol against the reference
// agent: `aopconform run --protocol P --out DIR -- mockagent --protocol P`.
func (b *bench) conform() error {
	res := &b.r.Conform
	if b.bin["aopconform"] == "" || b.bin["mockagent"] == "" {
		res.Note = "not yet measurable: cmd/aopconform does not exist (or does not build) at this commit."
		return nil
	}
	out := filepath.Join(b.cfg.work, "conform")
	for _, p := range lint.ListedProtocolIDs() { // the list's order (lint/all)
		cp := conformProtocol{Protocol: p}
		pr := proc{Name: "aopconform", Args: []string{b.bin["aopconform"], "run", "--protocol", p, "--out", out, "--", b.bin["mockagent"], "--protocol", p}, Ok: []int{0, 1}}
		cp.Command = strings.ReplaceAll(pr.String(), b.cfg.work, "$WORK")
		for i := 0; i < b.cfg.conformRuns; i++ {
			os.RemoveAll(out)
			s, err := run(pr)
			if err != nil {
				cp.Failed = firstLine(err.Error())
				b.logf("aopconform %s: %v", p, err)
				break
			}
			cp.Samples = append(cp.Samples, s)
			b.logf("aopconform %s: %.2f s wall, %.2f s CPU, exit %d", p, s.Wall.Seconds(), s.CPU.Seconds(), s.Exit)
		}
		res.Protocols = append(res.Protocols, cp)
	}
	os.RemoveAll(out)
	return nil
}

// profileResult is measurement 5: pprof text summaries kept in docs/bench/.
type profileResult struct {
	Files []profileFile
}

type profileFile struct {
	Name    string // file under docs/bench
	What    string
	Command string
	Head    string // the first lines, for the report
}

func (b *bench) profiles() error {
	if err := os.MkdirAll(b.cfg.profDir, 0o755); err != nil {
		return err
	}
	res := &b.r.Profiles

	// 2: the transcript through LintStream, one worker.
	file, _, err := b.genMessages("bench.jsonl", b.cfg.benchMsgs)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	testBin := filepath.Join(b.cfg.work, "linter.test")
	cpuProf := filepath.Join(b.cfg.work, "transcript.cpu.pprof")
	memProf := filepath.Join(b.cfg.work, "transcript.mem.pprof")
	args := []string{"test", "./lint/linter", "-run", "^$", "-bench", "^BenchmarkLintStream$", "-cpu", "1", "-benchtime", "1x",
		"-cpuprofile", cpuProf, "-memprofile", memProf, "-o", testBin}
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "AOPLINT_BENCH_TRANSCRIPT="+file)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test -cpuprofile: %w", err)
	}
	benchCmd := "AOPLINT_BENCH_TRANSCRIPT=$BIG/bench.jsonl go " + strings.Join(quoteArgs(args), " ")
	benchCmd = strings.ReplaceAll(benchCmd, b.cfg.work, "$WORK")
	if err := b.pprofTop(res, "profile-transcript-cpu.txt", "CPU, large transcript (LintStream, one worker)", benchCmd, testBin, []string{"-top", "-nodecount=45"}, cpuProf); err != nil {
		return err
	}
	if err := b.pprofTop(res, "profile-transcript-cpu-cum.txt", "CPU by cumulative time, large transcript", benchCmd, testBin, []string{"-top", "-cum", "-nodecount=45"}, cpuProf); err != nil {
		return err
	}
	if err := b.pprofTop(res, "profile-transcript-alloc.txt", "allocated bytes, large transcript", benchCmd, testBin, []string{"-top", "-sample_index=alloc_space", "-nodecount=30"}, memProf); err != nil {
		return err
	}

	// 3: what holds memory when the live heap is largest, linting the same file.
	heapProf := filepath.Join(b.cfg.work, "transcript.heap.pprof")
	c := exec.Command(b.bin["aopbench"], "heap-profile", heapProf, file)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("heap-profile: %v: %s", err, stderr.String())
	}
	heapCmd := "$WORK/aopbench heap-profile $WORK/transcript.heap.pprof $BIG/bench.jsonl  # " + strings.TrimSpace(stderr.String())
	if err := b.pprofTop(res, "profile-transcript-heap.txt", "live heap at its largest, large transcript (aoplint's driver, all cores)", heapCmd, b.bin["aopbench"], []string{"-top", "-sample_index=inuse_space", "-nodecount=30"}, heapProf); err != nil {
		return err
	}

	// 1: one small file, cold: the first lint in fresh processes, merged.
	small := filepath.Join(b.cfg.work, "small", "response.json")
	if !exists(small) {
		if _, err := b.gen(small, "-small"); err != nil {
			return err
		}
	}
	var profs []string
	for i := 0; i < b.cfg.coldRuns; i++ {
		p := filepath.Join(b.cfg.work, fmt.Sprintf("cold-%02d.pprof", i))
		c := exec.Command(b.bin["aopbench"], "cold-profile", p, small)
		var stderr bytes.Buffer
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			return fmt.Errorf("cold-profile: %v: %s", err, stderr.String())
		}
		profs = append(profs, p)
	}
	coldCmd := fmt.Sprintf("for i in $(seq %d); do $WORK/aopbench cold-profile $WORK/cold-$i.pprof response.json; done; go tool pprof -top $WORK/aopbench $WORK/cold-*.pprof", b.cfg.coldRuns)
	if err := b.pprofTop(res, "profile-small-cold.txt", fmt.Sprintf("CPU, one small file, first lint in a fresh process (%d processes merged; percentages only)", b.cfg.coldRuns), coldCmd, b.bin["aopbench"], []string{"-top", "-nodecount=40"}, profs...); err != nil {
		return err
	}
	if err := b.pprofTop(res, "profile-small-cold-cum.txt", "CPU by cumulative time, one small file, first lint", coldCmd, b.bin["aopbench"], []string{"-top", "-cum", "-nodecount=40"}, profs...); err != nil {
		return err
	}
	for _, p := range profs {
		os.Remove(p)
	}

	// 1, warm: LintBytes of the small file in a loop.
	warmProf := filepath.Join(b.cfg.work, "small.cpu.pprof")
	args = []string{"test", "./lint/linter", "-run", "^$", "-bench", "^BenchmarkLintBytesSmall$", "-cpu", "1", "-cpuprofile", warmProf, "-o", testBin}
	cmd = exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = b.log, b.log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go test -cpuprofile: %w", err)
	}
	warmCmd := strings.ReplaceAll("go "+strings.Join(quoteArgs(args), " "), b.cfg.work, "$WORK")
	return b.pprofTop(res, "profile-small-warm.txt", "CPU, one small file, warm (LintBytes in a loop)", warmCmd, testBin, []string{"-top", "-nodecount=40"}, warmProf)
}

func (b *bench) pprofTop(res *profileResult, name, what, how, bin string, opts []string, profs ...string) error {
	args := append(append([]string{"tool", "pprof"}, opts...), bin)
	args = append(args, profs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return fmt.Errorf("go tool pprof %s: %w", name, err)
	}
	header := fmt.Sprintf("# %s\n# recorded by internal/cmd/aopbench on %s, %s, %d cores\n# %s\n# go tool pprof %s\n\n", what, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.Version(), runtime.NumCPU(), how, strings.Join(opts, " "))
	text := header + string(out)
	if err := os.WriteFile(filepath.Join(b.cfg.profDir, name), []byte(text), 0o644); err != nil {
		return err
	}
	res.Files = append(res.Files, profileFile{Name: name, What: what, Command: how, Head: headLines(string(out), 15)})
	return nil
}

// headLines keeps the profile's Duration line and the first n rows of its table.
func headLines(s string, n int) string {
	var out []string
	table := -1
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "Duration:"):
			out = append(out, l)
		case strings.Contains(l, "flat%") && strings.Contains(l, "cum%"):
			table = 0
			out = append(out, l)
		case table >= 0 && table < n:
			table++
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
