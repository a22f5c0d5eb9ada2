package runner

import (
	"crypto/rand"
	"encoding/hex"
	"github.com/aopkit/aopkit/conform"
	"os"
	"path/filepath"
	"strings"
)

// Scratch directories and their owner. Every run of Run owns its scenarios'
// scratch directories, TMPDIR/aopconform-run<token>-<scenario>-<random>, through
// a lock file TMPDIR/aopconform-run<token>.lock that it holds locked (flock) as
// long as it lives. A run killed outright (SIGKILL) leaves both behind; the next
// run cleans them up on start (cleanStale): a lock file it can lock has lost its
// owner, so its directories are stale. A live run's lock cannot be taken, so its
// directories are never touched, and a directory without a lock file (another
// program's, an older aopconform's) is left alone.

const (
	scratchPrefix = conform.ScratchPrefix
	lockSuffix    = ".lock"
)

// scratchOwner is a run's claim on its scratch directories.
type scratchOwner struct {
	dir    string // where the directories go
	prefix string // of the directories' names: "aopconform-run<token>-"
	lock   *os.File
	path   string
}

// claimScratch takes a new, locked lock file in dir (os.TempDir()). The lock is
// taken before the file gets the name cleanStale looks for, so it is never seen
// unlocked while its owner lives.
func claimScratch(dir string) (*scratchOwner, error) {
	f, err := os.CreateTemp(dir, ".aopconform-lock-*")
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	token := hex.EncodeToString(b[:])
	path := filepath.Join(dir, scratchPrefix+token+lockSuffix)
	if err := os.Rename(f.Name(), path); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &scratchOwner{dir: dir, prefix: scratchPrefix + token + "-", lock: f, path: path}, nil
}

// release ends the claim: the lock file goes (the directories are removed by
// the scenarios that made them).
func (o *scratchOwner) release() {
	if o == nil {
		return
	}
	os.Remove(o.path)
	o.lock.Close()
}

// cleanStale removes the scratch directories in dir of runs that died without
// removing them, and their lock files; it returns what it removed. Only
// directories of this user are removed, a symbolic link is never followed.
func cleanStale(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, scratchPrefix) || !strings.HasSuffix(name, lockSuffix) {
			continue
		}
		token := strings.TrimSuffix(strings.TrimPrefix(name, scratchPrefix), lockSuffix)
		if token == "" || strings.ContainsAny(token, "-*?[") {
			continue
		}
		lockPath := filepath.Join(dir, name)
		f, err := os.OpenFile(lockPath, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		if !ownedByMe(f) || lockFile(f) != nil {
			f.Close() // another user's, or its run is alive
			continue
		}
		prefix := scratchPrefix + token + "-"
		for _, d := range ents {
			p := filepath.Join(dir, d.Name())
			if !d.IsDir() || !strings.HasPrefix(d.Name(), prefix) || !mineDir(p) {
				continue
			}
			if os.RemoveAll(p) == nil {
				removed = append(removed, p)
			}
		}
		if os.Remove(lockPath) == nil {
			removed = append(removed, lockPath)
		}
		f.Close()
	}
	return removed
}

// scratchDir makes the scratch directory of a scenario in the temporary
// directory: one of o's when o is set.
func (o *scratchOwner) scratchDir(scenario string) (string, error) {
	dir, pattern := "", "aopconform-"+safeName(scenario)+"-"
	if o != nil {
		dir, pattern = o.dir, o.prefix+safeName(scenario)+"-"
	}
	return os.MkdirTemp(dir, pattern)
}
