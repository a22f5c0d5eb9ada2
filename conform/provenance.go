package conform

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Provenance says what produced a report, so that a result can be traced and
// reproduced: which aopconform, which suite, which agent binary, on what machine,
// with which settings, and what the harness recorded (conform/provenance fills it).
type Provenance struct {
	// Aopconform is internal/version.String() of the harness that ran.
	Aopconform string `json:"aopconform"`
	// Suite identifies the scenarios and checks that were run.
	Suite SuiteID `json:"suite"`
	// Agent is the program under test.
	Agent AgentID `json:"agent"`
	// Platform is GOOS/GOARCH and the Go version of the harness.
	Platform     string    `json:"platform"`
	Started      time.Time `json:"started"`
	TimeoutScale float64   `json:"timeout_scale"`
	Repeat       int       `json:"repeat"`
	// Transcripts are the digests of the transcripts the harness recorded.
	Transcripts []TranscriptID `json:"transcripts"`
	// Requirements is the digest of the requirement registry
	// (conform/requirements) the harness was built with: which requirements its
	// checks and rules enforce (`aopconform coverage`). Empty in older reports.
	Requirements string `json:"requirements,omitempty"`
}

// SuiteID is the digest of a suite: every scenario of the protocol (its JSON, as
// loaded) and every check it names (ID, level, tier, spec, requirement, lint rules).
type SuiteID struct {
	Digest    string   `json:"digest"` // "sha256:<hex>"
	Protocol  string   `json:"protocol"`
	Scenarios int      `json:"scenarios"`
	Checks    int      `json:"checks"`
	Builtin   bool     `json:"builtin"`
	Dirs      []string `json:"dirs,omitempty"` // --scenarios directories
}

// AgentID names the agent: its command line, the executable it resolved to and the
// executable's digest, and the files the command line names (the script of
// `node agent.mjs`, `python3 agent.py`).
type AgentID struct {
	Command    []string `json:"command"`
	Executable string   `json:"executable"`
	SHA256     string   `json:"sha256"`
	// Files are the arguments of the command line that named an existing regular
	// file when the run started, in command-line order, each once: the script an
	// interpreter ran, a configuration file. Directories are not files here (a
	// Python package directory is not covered). Absent in older reports and when
	// no argument names a file.
	Files []AgentFile `json:"files,omitempty"`
}

// AgentFile is a file the agent's command line names: the argument as given and
// the SHA-256 of the file's bytes.
type AgentFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// TranscriptID is the digest of one scenario's transcript/1 bytes.
type TranscriptID struct {
	Scenario string `json:"scenario"`
	File     string `json:"file,omitempty"`
	Records  int    `json:"records"`
	SHA256   string `json:"sha256"`
}

// KnownFailing is how a --known-failing file was applied to a run.
type KnownFailing struct {
	File    string       `json:"file"`
	Entries []KnownEntry `json:"entries"`
}

// KnownEntry is one line of a --known-failing file: a check ID pattern and why it
// is expected to fail. Matched counts the failures it turned into KNOWN; Stale is
// set when every check it matched now passes (the run fails until it is removed).
type KnownEntry struct {
	Line    int    `json:"line"`
	Pattern string `json:"pattern"`
	Reason  string `json:"reason"`
	Matched int    `json:"matched"`
	Stale   bool   `json:"stale,omitempty"`
}

// DigestTranscript digests a scenario's transcript from the records the harness holds in
// memory: each record encoded as the recorder writes it, one JSON line each. It is
// the SHA-256 of the transcript file as written.
func DigestTranscript(run ScenarioRun) TranscriptID {
	h := sha256.New()
	for _, rec := range run.Records {
		b, err := json.Marshal(rec)
		if err != nil {
			// The recorder replaced such a record; hash what cannot be encoded as
			// its error so the digest still depends on it.
			b = []byte(err.Error())
		}
		h.Write(b)
		h.Write([]byte{'\n'})
	}
	return TranscriptID{Scenario: run.ID, File: run.Transcript, Records: len(run.Records), SHA256: hex.EncodeToString(h.Sum(nil))}
}
