// Package certify signs and verifies aopconform certificates: an in-toto Statement
// (https://in-toto.io/Statement/v1) about the executable under test (an agent, or an
// orchestrator for `run --side orchestrator`) and the files its command line names
// (the script of `node agent.mjs`), whose predicate binds the side, the
// suite digest, the aopconform version, the level reached per protocol and the
// digests of the reports, wrapped in a DSSE envelope signed with ed25519 (Go's
// standard library). Keys are PEM files: PKCS#8 private keys and PKIX public keys,
// the formats `openssl genpkey -algorithm ed25519` writes.
package certify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/provenance"
	"github.com/aopkit/aopkit/internal/safefile"
)

// The types a certificate declares.
const (
	PayloadType   = "application/vnd.in-toto+json"
	StatementType = "https://in-toto.io/Statement/v1"
	PredicateType = "https://aopkit.dev/aopconform/certificate/v1"
)

// Envelope is a DSSE envelope (https://github.com/secure-systems-lab/dsse).
type Envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"` // base64 of the Statement
	Signatures  []Signature `json:"signatures"`
}

// Signature is one DSSE signature; KeyID is KeyID(public key).
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"` // base64 of ed25519(PAE(payloadType, payload))
}

// Statement is the in-toto statement a certificate signs.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is an artifact the statement is about. The first is the executable
// under test (the agent, or the orchestrator of an orchestrator-side run), named
// by its base name; the others, in command-line order, are the files its command
// line named (provenance.NamedFiles: the script an interpreter ran), named as
// given. Certificates written before files were recorded have one subject.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is what aopconform certifies about the executable under test.
type Predicate struct {
	Aopconform string `json:"aopconform"`
	// Side is the side of the protocol the subject played: "agent", or
	// "orchestrator" (`run --side`). The suite is loaded as that side's on
	// verification. Empty in certificates written before sides existed: agent.
	Side  string          `json:"side,omitempty"`
	Suite conform.SuiteID `json:"suite"`
	// Levels is the level reached per protocol ("none" when none was).
	Levels map[string]string `json:"levels"`
	// Scores are the pass rates per protocol.
	Scores map[string]Rates `json:"scores"`
	// Passed: no MUST failed except known failures, no harness error, no stale
	// known-failing entry.
	Passed bool `json:"passed"`
	// Known counts the failures a --known-failing file excused.
	Known int `json:"known"`
	// Selection is what ran and how: --run, --skip, --known-failing,
	// --timeout-scale, --repeat, --strict. Nil in certificates written before it
	// was signed, which do not verify (they cannot say whether every check ran).
	Selection *Selection `json:"selection,omitempty"`
	// Requirements says, per protocol, how many of the spec's requirements binding
	// the side under test the checks that passed enforce (conform/requirements,
	// whose digest the provenance names). Absent in older certificates.
	Requirements map[string]RequirementCoverage `json:"requirements,omitempty"`
	// Reports are the report files of the run, named relative to the certificate.
	Reports    []File             `json:"reports"`
	Provenance conform.Provenance `json:"provenance"`
	Signed     time.Time          `json:"signed"`
}

// Selection is the part of a run's settings that decides what a certificate
// certifies. Only a full selection (no --run, no --skip) certifies a level: a
// partial one's Levels are "none", and its Passed speaks for the selected checks
// only.
type Selection struct {
	// Full: every check of the suite was selected (neither --run nor --skip was
	// given; either, even one that selects everything, makes a selection
	// partial).
	Full bool   `json:"full"`
	Run  string `json:"run,omitempty"`
	Skip string `json:"skip,omitempty"`
	// KnownFailing is the --known-failing file, when one was given.
	KnownFailing *KnownFailingFile `json:"known_failing,omitempty"`
	TimeoutScale float64           `json:"timeout_scale"`
	Repeat       int               `json:"repeat"`
	Strict       bool              `json:"strict,omitempty"`
}

// KnownFailingFile is a --known-failing file as the run applied it: its name,
// the SHA-256 of its bytes and its entries (with what each excused).
type KnownFailingFile struct {
	File    string               `json:"file"`
	SHA256  string               `json:"sha256"`
	Entries []conform.KnownEntry `json:"entries"`
}

// Partial reports whether the selection left checks out (--run or --skip).
func (s *Selection) Partial() bool { return s.Run != "" || s.Skip != "" }

// Rates are the MUST and SHOULD results of one protocol.
type Rates struct {
	MustPassed   int `json:"must_passed"`
	MustTotal    int `json:"must_total"`
	ShouldPassed int `json:"should_passed"`
	ShouldTotal  int `json:"should_total"`
}

// File is a file and its SHA-256.
type File struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// PAE is DSSE's pre-authentication encoding, what is signed.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// KeyID names a public key: the hex SHA-256 of its PKIX DER encoding, the value a
// certifier publishes next to the key.
func KeyID(pub ed25519.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// Sign wraps the statement in a DSSE envelope signed with key.
func Sign(st *Statement, key ed25519.PrivateKey) ([]byte, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	pub := key.Public().(ed25519.PublicKey)
	env := Envelope{
		PayloadType: PayloadType,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []Signature{{KeyID: KeyID(pub), Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(key, PAE(PayloadType, payload)))}},
	}
	out, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// ErrSignature is returned when no signature of the envelope verifies with the key.
var ErrSignature = errors.New("the signature does not verify with this key")

// Open checks the envelope's signature with pub and returns the statement it
// signs. Nothing in the payload is trusted before the signature is checked.
func Open(data []byte, pub ed25519.PublicKey) (*Statement, error) {
	// One reading for every reader: a member twice (a forged payload before
	// the signed one) is refused, not left to the parser to pick.
	if err := strictJSON(data); err != nil {
		return nil, fmt.Errorf("not a DSSE envelope: %v", err)
	}
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("not a DSSE envelope: %v", err)
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("payloadType %q, want %q", env.PayloadType, PayloadType)
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, fmt.Errorf("payload is not base64: %v", err)
	}
	ok := false
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err == nil && ed25519.Verify(pub, PAE(env.PayloadType, payload), sig) {
			ok = true
			break
		}
	}
	if !ok {
		return nil, ErrSignature
	}
	if err := strictJSON(payload); err != nil {
		return nil, fmt.Errorf("signed payload is not a statement: %v", err)
	}
	var st Statement
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("signed payload is not a statement: %v", err)
	}
	if st.Type != StatementType || st.PredicateType != PredicateType {
		return nil, fmt.Errorf("signed statement is %s / %s, not an aopconform certificate", st.Type, st.PredicateType)
	}
	return &st, nil
}

// GenerateKey writes a new key pair: prefix.key (PKCS#8 PEM, mode 0600) and
// prefix.pub (PKIX PEM). It refuses to overwrite either.
func GenerateKey(prefix string) (ed25519.PublicKey, error) {
	for _, name := range []string{prefix + ".key", prefix + ".pub"} {
		if _, err := os.Lstat(name); err == nil {
			return nil, fmt.Errorf("%s already exists: refusing to overwrite a key", name)
		}
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	privDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	if err := WriteNew(prefix+".key", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privDER}), 0o600); err != nil {
		return nil, err
	}
	if err := WriteNew(prefix+".pub", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		return nil, err
	}
	return pub, nil
}

// WriteNew writes a file that must not exist yet (keys and certificates are never
// overwritten) and never writes through a symbolic link: a link at name, even a
// dangling one, is refused.
func WriteNew(name string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// LoadPrivateKey reads an ed25519 private key (PEM, PKCS#8).
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	return loadKey[ed25519.PrivateKey](path, "PRIVATE KEY", x509.ParsePKCS8PrivateKey)
}

// LoadPublicKey reads an ed25519 public key (PEM, PKIX).
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	return loadKey[ed25519.PublicKey](path, "PUBLIC KEY", x509.ParsePKIXPublicKey)
}

// loadKey reads the PEM block typ of path and parses it into an ed25519 key K.
func loadKey[K ed25519.PrivateKey | ed25519.PublicKey](path, typ string, parse func([]byte) (any, error)) (K, error) {
	der, err := readPEM(path, typ)
	if err != nil {
		return nil, err
	}
	k, err := parse(der)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	key, ok := k.(K)
	if !ok {
		return nil, fmt.Errorf("%s: not an ed25519 key (%T)", path, k)
	}
	return key, nil
}

func readPEM(path, typ string) ([]byte, error) {
	// A key is a small regular file: a FIFO or /dev/zero is refused, not read.
	data, err := safefile.ReadFile(path, safefile.MaxConfig)
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != typ {
		return nil, fmt.Errorf("%s: want a PEM %q block", path, typ)
	}
	return b.Bytes, nil
}

// NewStatement builds the statement for a finished run of side (the side under
// test, `run --side`) whose reports were written to reportFiles; certPath is where
// the certificate goes (report names are kept relative to its directory). The
// report must carry provenance.
//
// sel names what was selected (Run, Skip, Strict, KnownFailing); its Full,
// TimeoutScale and Repeat are filled here, the last two from the provenance. A
// partial selection certifies no level: its levels are "none".
func NewStatement(rep *conform.Report, side string, passed bool, sel Selection, reportFiles []string, certPath string) (*Statement, error) {
	p := rep.Provenance
	if p == nil {
		return nil, errors.New("the report has no provenance")
	}
	if side == "" {
		return nil, errors.New("the side under test is not named")
	}
	if p.Agent.SHA256 == "" {
		return nil, fmt.Errorf("the %s executable has no digest", side)
	}
	pred := Predicate{
		Aopconform: p.Aopconform, Side: side, Suite: p.Suite, Passed: passed, Provenance: *p,
		Levels: map[string]string{rep.Protocol: levelName(rep.Score)},
		Scores: map[string]Rates{rep.Protocol: {rep.Score.MustPassed, rep.Score.MustTotal, rep.Score.ShouldPassed, rep.Score.ShouldTotal}},
		Signed: time.Now().UTC().Truncate(time.Second),
	}
	for _, r := range rep.Results {
		if r.Verdict == conform.Known {
			pred.Known++
		}
	}
	if rc, err := provenance.RequirementCoverage(rep); err == nil && rc.Total > 0 {
		pred.Requirements = map[string]RequirementCoverage{rep.Protocol: {Side: rc.Side, Covered: rc.Covered, Total: rc.Total, IDs: rc.CoveredIDs, Uncovered: rc.Uncovered}}
	}
	sel.Full = !sel.Partial()
	sel.TimeoutScale, sel.Repeat = max(p.TimeoutScale, 0), max(p.Repeat, 1)
	if sel.TimeoutScale == 0 {
		sel.TimeoutScale = 1 // as provenance.Collect records an unset scale
	}
	if !sel.Full {
		// The level of a selection is no level of the suite.
		pred.Levels[rep.Protocol] = "none"
	}
	pred.Selection = &sel
	certDir, err := filepath.Abs(filepath.Dir(certPath))
	if err != nil {
		return nil, err
	}
	for _, f := range reportFiles {
		sum, err := provenance.FileSHA256(f)
		if err != nil {
			return nil, fmt.Errorf("report digest: %v", err)
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		name, err := filepath.Rel(certDir, abs)
		if err != nil {
			name = abs
		}
		pred.Reports = append(pred.Reports, File{Name: filepath.ToSlash(name), SHA256: sum})
	}
	// The executable first, then every file its command line names (the
	// script of `node agent.mjs`): an interpreter's digest alone would certify
	// any script it runs.
	subjects := []Subject{{Name: filepath.Base(p.Agent.Executable), Digest: map[string]string{"sha256": p.Agent.SHA256}}}
	for _, f := range p.Agent.Files {
		subjects = append(subjects, Subject{Name: f.Path, Digest: map[string]string{"sha256": f.SHA256}})
	}
	return &Statement{
		Type:          StatementType,
		Subject:       subjects,
		PredicateType: PredicateType,
		Predicate:     pred,
	}, nil
}

// sideAgent is the side of a certificate that names none (written before sides
// existed): the agent, orchside.SideAgent.
const sideAgent = "agent"

// SubjectSide is the side the subject played: Side, or the agent for a
// certificate that names none.
func (p *Predicate) SubjectSide() string {
	if p.Side == "" {
		return sideAgent
	}
	return p.Side
}

func levelName(s conform.Score) string {
	if s.Level == "" {
		return "none"
	}
	return string(s.Level)
}

// RequirementCoverage is how many requirements of a protocol binding Side the
// certified run's passing checks enforce: Covered of Total.
type RequirementCoverage struct {
	Side    string `json:"side"`
	Covered int    `json:"covered"`
	Total   int    `json:"total"`
	// IDs are the requirements covered, Uncovered the others of the side
	// (conform/requirements IDs, sorted): what the certified level stands for.
	IDs       []string `json:"ids,omitempty"`
	Uncovered []string `json:"uncovered,omitempty"`
}
