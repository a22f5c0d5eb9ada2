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
)

// goBenchResult is the Go benchmarks of lint/linter (bench_test.go).
type goBenchResult struct {
	Transcript genStats
	Commands   []string
	Rows       []goBenchRow
}

type goBenchRow struct {
	Name    string
	CPU     int                  // GOMAXPROCS (-cpu)
	Metrics map[string][]float64 // unit -> one value per run
}

func (b *bench) goBench() error {
	file, st, err := b.genMessages("bench.jsonl", b.cfg.benchMsgs)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	res := &b.r.GoBench
	res.Transcript = st
	count := "5" // runs of each Go benchmark (medians)
	if b.cfg.quick {
		count = "1"
	}
	cores := runtime.NumCPU()
	runs := [][]string{
		{"-bench", "^BenchmarkDecodeFloor$", "-cpu", "1", "-benchtime", "1x", "-count", count},
		{"-bench", "^BenchmarkLintStream$", "-cpu", "1," + strconv.Itoa(cores), "-benchtime", "1x", "-count", count},
		{"-bench", "^Benchmark(LintBytesSmall|DecodeSmall)$", "-cpu", "1", "-count", count},
	}
	rows := map[string]*goBenchRow{}
	var order []string
	for _, args := range runs {
		full := append([]string{"test", "./lint/linter", "-run", "^$", "-benchmem"}, args...)
		res.Commands = append(res.Commands, "AOPLINT_BENCH_TRANSCRIPT=$BIG/bench.jsonl go "+strings.Join(quoteArgs(full), " "))
		b.logf("go %s", strings.Join(full, " "))
		cmd := exec.Command("go", full...)
		cmd.Env = append(os.Environ(), "AOPLINT_BENCH_TRANSCRIPT="+file)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = b.log
		err := cmd.Run()
		os.WriteFile(filepath.Join(b.cfg.work, "gobench-"+strconv.Itoa(len(res.Commands))+".txt"), out.Bytes(), 0o644)
		if err != nil {
			return fmt.Errorf("go test -bench: %v\n%s", err, out.String())
		}
		for _, r := range parseBench(out.String()) {
			key := r.Name + "/" + strconv.Itoa(r.CPU)
			row := rows[key]
			if row == nil {
				row = &goBenchRow{Name: r.Name, CPU: r.CPU, Metrics: map[string][]float64{}}
				rows[key] = row
				order = append(order, key)
			}
			for u, v := range r.Metrics {
				row.Metrics[u] = append(row.Metrics[u], v...)
			}
		}
	}
	for _, k := range order {
		res.Rows = append(res.Rows, *rows[k])
	}
	return nil
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$|()* ") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

// parseBench reads `go test -bench` output lines such as
// "BenchmarkLintStream   1   7012345678 ns/op   9.57 MB/s   14000 lines/s   123 B/op   4 allocs/op".
func parseBench(s string) []goBenchRow {
	var out []goBenchRow
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name, cpu := f[0], 1
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if n, err := strconv.Atoi(name[i+1:]); err == nil {
				name, cpu = name[:i], n
			}
		}
		r := goBenchRow{Name: strings.TrimPrefix(name, "Benchmark"), CPU: cpu, Metrics: map[string][]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			r.Metrics[f[i+1]] = append(r.Metrics[f[i+1]], v)
		}
		out = append(out, r)
	}
	return out
}

func (r goBenchResult) row(name string, cpu int) *goBenchRow {
	for i := range r.Rows {
		if r.Rows[i].Name == name && (cpu == 0 || r.Rows[i].CPU == cpu) {
			return &r.Rows[i]
		}
	}
	return nil
}

func (r *goBenchRow) median(unit string) float64 {
	if r == nil {
		return 0
	}
	return summarize(r.Metrics[unit]).Median
}
