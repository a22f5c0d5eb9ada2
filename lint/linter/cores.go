package linter

import "sync/atomic"

// Cores is how many goroutines a run that lints several inputs keeps busy
// (Options.Cores), shared by its files and their streams' workers: a file being
// linted holds one (Take), and a stream adds workers, up to Options.Workers,
// while some are free and no file is left to start (tryExtra).
//
// Without it each file's stream had Options.Workers workers of its own while
// as many files were linted at once. Four 65 MB transcripts on this project's
// 2-core machine (medians of 7 interleaved runs): with -j 2, 1.93 s of CPU
// against 1.52 for -j 1 (1.27×), 1.74 s (1.15×) with Cores, wall 0.98 → 0.89 s;
// with -j 4, 2.64 → 2.35 s of CPU and 82 → 56 MiB peak RSS; with -j 16, 154 →
// 78 MiB (but 2.84 → 3.05 s of CPU: 16 workers on 2 cores either way). Files
// linted side by side, each by one worker, need no hand-overs between a
// stream's workers; workers are added at the end of the run, when fewer files
// than cores are left.
type Cores struct {
	tokens chan struct{}
	// toStart counts the files not yet started: while one is left, a stream
	// adds no worker (the file would wait for it).
	toStart atomic.Int64
}

// NewCores makes room for n goroutines at once, for a run of files inputs.
func NewCores(n, files int) *Cores {
	c := &Cores{tokens: make(chan struct{}, max(n, 1))}
	c.toStart.Store(int64(files))
	return c
}

// Take waits for a free core for the next file; Give hands it back.
func (c *Cores) Take() {
	c.tokens <- struct{}{}
	c.toStart.Add(-1)
}

// Give hands back a core taken by Take or tryExtra.
func (c *Cores) Give() { <-c.tokens }

// tryExtra takes a free core for one more worker of a stream, if no file is
// left to start.
func (c *Cores) tryExtra() bool {
	if c.toStart.Load() > 0 {
		return false
	}
	select {
	case c.tokens <- struct{}{}:
		return true
	default:
		return false
	}
}
