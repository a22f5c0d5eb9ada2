package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
)

// sample is one run of one process.
type sample struct {
	Wall   time.Duration
	CPU    time.Duration // user + system
	MaxRSS int64         // bytes
	Exit   int
}

// proc is a command to run and measure.
type proc struct {
	Name string
	Args []string
	Env  []string // added to the environment
	Out  string   // file for standard output ("" discards it)
	Ok   []int    // accepted exit codes (default 0)
	Ref  bool     // a reference point, not a peer
}

func (p proc) String() string {
	s := strings.Join(p.Args, " ")
	if len(p.Env) > 0 {
		s = strings.Join(p.Env, " ") + " " + s
	}
	return s
}

func (p proc) command() (*exec.Cmd, io.Closer, error) {
	cmd := exec.Command(p.Args[0], p.Args[1:]...)
	cmd.Env = append(os.Environ(), p.Env...)
	var c io.Closer = io.NopCloser(nil)
	if p.Out != "" {
		f, err := os.Create(p.Out)
		if err != nil {
			return nil, nil, err
		}
		cmd.Stdout, c = f, f
	}
	var stderr strings.Builder
	cmd.Stderr = &limitWriter{w: &stderr, n: 4096}
	return cmd, c, nil
}

// run runs p once and measures it.
func run(p proc) (sample, error) {
	ss, err := runTogether([]proc{p})
	if err != nil {
		return sample{}, err
	}
	return ss[0], nil
}

// runTogether starts every process at once and waits for all: Wall is the time
// until the last one exits (the same for all samples), CPU and MaxRSS are each
// process's own.
func runTogether(ps []proc) ([]sample, error) {
	cmds := make([]*exec.Cmd, len(ps))
	closers := make([]io.Closer, len(ps))
	for i, p := range ps {
		cmd, c, err := p.command()
		if err != nil {
			return nil, err
		}
		cmds[i], closers[i] = cmd, c
	}
	start := time.Now()
	for i, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("%s: %w", ps[i].Name, err)
		}
	}
	out := make([]sample, len(ps))
	var firstErr error
	for i, cmd := range cmds {
		err := cmd.Wait()
		closers[i].Close()
		st := cmd.ProcessState
		if st == nil {
			return nil, fmt.Errorf("%s: %w", ps[i].Name, err)
		}
		s := sample{Exit: st.ExitCode(), CPU: st.UserTime() + st.SystemTime()}
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			s.MaxRSS = ru.Maxrss * 1024
		}
		out[i] = s
		if !accepted(ps[i].Ok, s.Exit) && firstErr == nil {
			firstErr = fmt.Errorf("%s exited with %d: %s", ps[i], s.Exit, cmd.Stderr.(*limitWriter).w.(*strings.Builder).String())
		}
	}
	wall := time.Since(start)
	for i := range out {
		out[i].Wall = wall
	}
	return out, firstErr
}

func accepted(ok []int, code int) bool {
	if len(ok) == 0 {
		return code == 0
	}
	for _, c := range ok {
		if c == code {
			return true
		}
	}
	return false
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}

// dist summarises repeated measurements (seconds, bytes, ...).
type dist struct {
	N                          int
	Median, P25, P75, Min, Max float64
}

func summarize(xs []float64) dist {
	if len(xs) == 0 {
		return dist{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return dist{N: len(s), Median: quantile(s, 0.5), P25: quantile(s, 0.25), P75: quantile(s, 0.75), Min: s[0], Max: s[len(s)-1]}
}

// quantile interpolates linearly between the closest ranks of sorted s.
func quantile(s []float64, q float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// spread is the interquartile range relative to the median, in percent.
func (d dist) spread() float64 {
	if d.Median == 0 {
		return 0
	}
	return 100 * (d.P75 - d.P25) / d.Median
}

func walls(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.Wall.Seconds()
	}
	return out
}

func cpus(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.CPU.Seconds()
	}
	return out
}

func rss(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = float64(s.MaxRSS)
	}
	return out
}

// Formatting.

func fmtDur(sec float64) string {
	switch {
	case sec == 0:
		return "–"
	case sec < 1e-3:
		return fmt.Sprintf("%.0f µs", sec*1e6)
	case sec < 1:
		return fmt.Sprintf("%.1f ms", sec*1e3)
	default:
		return fmt.Sprintf("%.2f s", sec)
	}
}

func fmtBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func fmtRate(x float64) string {
	switch {
	case x == 0:
		return "–"
	case x >= 1e6:
		return fmt.Sprintf("%.2f M", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.1f k", x/1e3)
	}
	return fmt.Sprintf("%.0f", x)
}

func fmtRatio(x float64) string {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return "–"
	}
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.2f×", x)
}
