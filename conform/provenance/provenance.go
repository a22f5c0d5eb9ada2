// Package provenance records what produced an aopconform report: the harness
// version, the digest of the suite, the agent executable and its digest, the
// platform, the settings, and the digests of the transcripts the harness holds.
package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/requirements"
	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/internal/version"
)

// Executable finds the program of an agent command line the way the harness will
// start it (a name without a slash is looked up in $PATH, anything else is a path
// from the working directory) and checks that it is an executable file. The error
// is one line that names the program.
func Executable(command []string) (string, error) {
	if len(command) == 0 || command[0] == "" {
		return "", errors.New("no agent command")
	}
	prog := command[0]
	if !strings.ContainsRune(prog, filepath.Separator) {
		p, err := exec.LookPath(prog)
		if err != nil {
			if errors.Is(err, exec.ErrNotFound) {
				return "", fmt.Errorf("cannot start the agent: %q is not found in $PATH", prog)
			}
			return "", fmt.Errorf("cannot start the agent %q: %v", prog, err)
		}
		prog = p
	}
	abs, err := filepath.Abs(prog)
	if err != nil {
		return "", fmt.Errorf("cannot start the agent %q: %v", command[0], err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("cannot start the agent: %s does not exist", command[0])
	case err != nil:
		return "", fmt.Errorf("cannot start the agent %s: %v", command[0], err)
	case st.IsDir():
		return "", fmt.Errorf("cannot start the agent: %s is a directory", command[0])
	case st.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("cannot start the agent: %s is not executable (chmod +x %s)", command[0], command[0])
	}
	return abs, nil
}

// NamedFiles are the files an agent command line names besides its program: every
// argument that is an existing regular file when the run starts, resolved as the
// harness resolves it for the agent (runner's absCommand: an absolute path, or a
// path from the working directory aopconform runs in; an argument starting with
// "-" is a flag, never a file). Each is recorded once, as given, with the SHA-256
// of its bytes: the script of `node agent.mjs` or `python3 agent.py`, whose
// digest is what a certificate of an interpreted agent must bind — the
// interpreter alone runs any script.
//
// A directory is not a file here (`python3 -m pkg`, a package directory): what
// it holds is not covered. A FIFO, a device or a socket is skipped, never opened.
// A regular file that cannot be read is an error: a certificate never silently
// leaves out what the agent ran.
func NamedFiles(command []string) ([]conform.AgentFile, error) {
	var out []conform.AgentFile
	seen := map[string]bool{}
	for i, a := range command {
		if i == 0 || !conform.FileArg(i, a) || seen[a] {
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		seen[a] = true
		sum, err := FileSHA256(a)
		if err != nil {
			return nil, fmt.Errorf("cannot record the agent's file %s: %v", a, err)
		}
		out = append(out, conform.AgentFile{Path: a, SHA256: sum})
	}
	return out, nil
}

// FileSHA256 is the hex SHA-256 of a regular file's bytes (a FIFO or a device is
// refused, never waited on or read without end).
func FileSHA256(path string) (string, error) { return safefile.SHA256(path, 0) }

// suiteCheck is the part of a check the suite digest covers: everything but the Go
// code, which the aopconform version names.
type suiteCheck struct {
	ID          string        `json:"id"`
	Protocol    string        `json:"protocol"`
	Family      string        `json:"family"`
	Tier        conform.Tier  `json:"tier"`
	Level       conform.Level `json:"level"`
	Spec        string        `json:"spec"`
	Requirement string        `json:"requirement"`
	Lint        []string      `json:"lint,omitempty"`
}

// Suite digests the scenarios of protocol (each as its loaded JSON, in ID order) and
// every check they name. builtin and dirs are recorded, not hashed: they say how to
// load the same suite again.
func Suite(protocol string, scenarios []*conform.Scenario, builtin bool, dirs []string) (conform.SuiteID, error) {
	var scs []*conform.Scenario
	ids := map[string]bool{}
	for _, s := range scenarios {
		if s.Protocol != protocol {
			continue
		}
		scs = append(scs, s)
		for _, id := range s.Checks {
			ids[id] = true
		}
	}
	sort.Slice(scs, func(i, j int) bool { return scs[i].ID < scs[j].ID })
	var checks []suiteCheck
	for id := range ids {
		c := conform.LookupCheck(id)
		if c == nil {
			return conform.SuiteID{}, fmt.Errorf("check %q is unknown (see aopconform list)", id)
		}
		checks = append(checks, suiteCheck{c.ID, c.Protocol, c.Family, c.Tier, c.Level, c.Spec, c.Requirement, c.Lint})
	}
	sort.Slice(checks, func(i, j int) bool { return checks[i].ID < checks[j].ID })
	doc, err := json.Marshal(struct {
		Protocol  string              `json:"protocol"`
		Scenarios []*conform.Scenario `json:"scenarios"`
		Checks    []suiteCheck        `json:"checks"`
	}{protocol, scs, checks})
	if err != nil {
		return conform.SuiteID{}, fmt.Errorf("suite digest: %w", err)
	}
	sum := sha256.Sum256(doc)
	return conform.SuiteID{
		Digest: "sha256:" + hex.EncodeToString(sum[:]), Protocol: protocol,
		Scenarios: len(scs), Checks: len(checks), Builtin: builtin, Dirs: dirs,
	}, nil
}

// Transcript digests a scenario's transcript (conform.DigestTranscript): the
// SHA-256 of the transcript file as written.
func Transcript(run conform.ScenarioRun) conform.TranscriptID { return conform.DigestTranscript(run) }

// Run is what Collect needs besides the report.
type Run struct {
	Suite      conform.SuiteID
	Executable string // from Executable
	// Files are the files the command line names (NamedFiles), digested when
	// the run started.
	Files        []conform.AgentFile
	TimeoutScale float64
	Repeat       int
}

// Collect builds the provenance of a finished run and stores it in the report.
func Collect(rep *conform.Report, run Run) error {
	p := &conform.Provenance{
		Aopconform:   version.String(),
		Suite:        run.Suite,
		Agent:        conform.AgentID{Command: rep.Command, Executable: run.Executable, Files: run.Files},
		Platform:     fmt.Sprintf("%s/%s %s", runtime.GOOS, runtime.GOARCH, runtime.Version()),
		Started:      rep.Started.UTC().Truncate(time.Millisecond),
		TimeoutScale: run.TimeoutScale,
		Repeat:       run.Repeat,
		Transcripts:  []conform.TranscriptID{},
		Requirements: requirements.Digest(),
	}
	if p.Repeat < 1 {
		p.Repeat = 1
	}
	if p.TimeoutScale <= 0 {
		p.TimeoutScale = 1
	}
	if run.Executable != "" {
		sum, err := FileSHA256(run.Executable)
		if err != nil {
			return fmt.Errorf("agent digest: %w", err)
		}
		p.Agent.SHA256 = sum
	}
	for _, s := range rep.Scenarios {
		switch {
		case s.TranscriptID != nil && s.TranscriptID.Records > 0:
			p.Transcripts = append(p.Transcripts, *s.TranscriptID) // taken before the records were trimmed
		case s.TranscriptID == nil && len(s.Records) > 0:
			p.Transcripts = append(p.Transcripts, Transcript(s))
		}
	}
	rep.Provenance = p
	return nil
}

// RequirementCoverage is how many requirements of the run's protocol and side the
// checks that passed enforce (requirements.CoverageOfRun): a check counts when
// every result of it is a PASS. The side is the orchestrator's when the run judged
// orchestrator-side checks.
func RequirementCoverage(rep *conform.Report) (requirements.RunCoverage, error) {
	side := requirements.SideAgent
	passed := map[string]bool{}
	failed := map[string]bool{}
	for _, res := range rep.Results {
		if requirements.IsOrchCheck(res.Check) {
			side = requirements.SideOrchestrator
		}
		if res.Verdict == conform.Pass {
			passed[res.Check] = true
		} else {
			failed[res.Check] = true
		}
	}
	for c := range failed {
		delete(passed, c)
	}
	return requirements.CoverageOfRun(rep.Protocol, side, passed)
}
