package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// instrResult is measurement 6: instructions counted by callgrind, which do not
// depend on what else the machine is doing (the same binary, input and
// environment give the same count to within the GC's timing), so they compare
// aoplint with its references even on a loaded machine. They are not time:
// cache misses and the GC's memory traffic cost cycles that an instruction count
// does not show, which is why the targets are judged by CPU time (measurement 2).
type instrResult struct {
	Valgrind   string // version, or why nothing was counted
	Transcript genStats
	Rows       []instrRow
}

// instrRow is one command counted on the transcript and on an empty input: the
// difference is what the lines cost, start-up and one-off set-up taken out.
type instrRow struct {
	Name    string
	Command string
	Full    []int64 // instructions, transcript
	Empty   []int64 // instructions, empty input
	Floor   bool
}

var collected = regexp.MustCompile(`Collected : (\d+)`)

// callgrind counts the instructions of one run of args under env.
func callgrind(env, args []string) (int64, error) {
	cmd := exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=/dev/null"}, args...)...)
	// Go's asynchronous preemption signals make valgrind 3.19 lose the count now
	// and then ("no count in its output"): off, the program runs the same code.
	cmd.Env = append(append(os.Environ(), "GODEBUG=asyncpreemptoff=1"), env...)
	out, _ := cmd.CombinedOutput() // the linter's own exit code is 1 on findings
	m := collected.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("callgrind %s: no count in its output: %s", strings.Join(args, " "), firstLine(string(out)))
	}
	return strconv.ParseInt(string(m[1]), 10, 64)
}

func (b *bench) instructions() error {
	res := &b.r.Instr
	v, err := exec.Command("valgrind", "--version").Output()
	if err != nil {
		res.Valgrind = "valgrind not installed: nothing counted"
		return nil
	}
	res.Valgrind = strings.TrimSpace(string(v))
	n := int64(20_000)
	if b.cfg.quick {
		n = 2_000
	}
	file, st, err := b.genMessages("instr.jsonl", n)
	if err != nil {
		return err
	}
	defer os.Remove(file)
	empty := filepath.Join(filepath.Dir(file), "empty.jsonl")
	defer os.Remove(empty)
	res.Transcript = st
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		return err
	}
	one := "GOMAXPROCS=1"
	type cmdSpec struct {
		name  string
		env   []string
		args  []string // the input is appended
		floor bool
	}
	specs := []cmdSpec{
		{name: "aoplint, one worker", env: []string{one}, args: []string{b.bin["aoplint"], "-j", "1"}},
		{name: "aoplint, one worker, no GC (GOGC=off GOMEMLIMIT=off): the lint without the collector", env: []string{one, "GOGC=off", "GOMEMLIMIT=off"}, args: []string{b.bin["aoplint"], "-j", "1"}},
		{name: "encoding/json floor (json.Unmarshal → any, per line)", env: []string{one}, args: []string{b.bin["aopbench"], "floor"}, floor: true},
		{name: "reference: goccy/go-json (Unmarshal → any, per line)", env: []string{one}, args: []string{b.bin["aopbench"], "floor", "-decoder", "goccy"}},
	}
	// Node and its JIT are left out: a count over a short input is mostly the
	// JIT warming up, and a long one takes too long under callgrind.
	runs := 3
	for _, s := range specs {
		row := instrRow{Name: s.name, Command: strings.TrimSpace(strings.Join(s.env, " ") + " " + strings.Join(s.args, " ") + " FILE"), Floor: s.floor}
		for i := 0; i < runs; i++ {
			for _, in := range []string{file, empty} {
				c, err := callgrind(s.env, append(append([]string(nil), s.args...), in))
				if err != nil {
					return err
				}
				if in == file {
					row.Full = append(row.Full, c)
				} else {
					row.Empty = append(row.Empty, c)
				}
			}
		}
		b.logf("instructions: %s: %v (empty input %v)", s.name, row.Full, row.Empty)
		res.Rows = append(res.Rows, row)
	}
	return nil
}

// perLine is a row's instructions per line of the transcript, start-up taken out.
func (r instrRow) perLine(lines int64) float64 {
	if lines == 0 {
		return 0
	}
	return (median(r.Full) - median(r.Empty)) / float64(lines)
}

func (res *instrResult) floor() *instrRow {
	for i := range res.Rows {
		if res.Rows[i].Floor {
			return &res.Rows[i]
		}
	}
	return nil
}

func (b *bench) reportInstr(r *report) {
	res := &b.r.Instr
	if res.Valgrind == "" {
		return
	}
	r.p("## 6. Instructions (callgrind)")
	r.p("")
	if len(res.Rows) == 0 {
		r.p("%s.", res.Valgrind)
		r.p("")
		return
	}
	lines := res.Transcript.Lines
	r.p("Instructions counted by %s (`valgrind --tool=callgrind`), each command three times on a %s-message transcript of the same generator (%s lines, %s) and three times on an empty file; the per-line figure is the difference of the medians over the lines, so start-up and one-off set-up are taken out. Counts do not depend on the machine's load, which makes them the figure to compare across runs; they are not time (cache misses and the collector's memory traffic cost cycles a count does not show): the targets are judged by CPU time in measurement 2.",
		res.Valgrind, fmtCount(res.Transcript.Messages), fmtCount(lines), fmtBytes(float64(res.Transcript.Bytes)))
	r.p("")
	fl := res.floor()
	var rows [][]string
	for _, row := range res.Rows {
		ratio := "–"
		if fl != nil && fl.perLine(lines) > 0 {
			ratio = fmtRatio(row.perLine(lines) / fl.perLine(lines))
		}
		rows = append(rows, []string{row.Name, fmtInstr(median(row.Full)), fmtInstr(median(row.Empty)),
			fmt.Sprintf("%.0f", row.perLine(lines)), ratio})
	}
	r.table([]string{"what", "instructions, transcript", "instructions, empty input", "per line", "× floor"}, rows)
	r.p("Commands: %s.", strings.Join(func() []string {
		var cs []string
		for _, row := range res.Rows {
			cs = append(cs, "`"+row.Command+"`")
		}
		return cs
	}(), "; "))
	r.p("")
}

func fmtInstr(x float64) string {
	switch {
	case x >= 1e9:
		return fmt.Sprintf("%.2f G", x/1e9)
	case x >= 1e6:
		return fmt.Sprintf("%.1f M", x/1e6)
	}
	return fmt.Sprintf("%.0f", x)
}
