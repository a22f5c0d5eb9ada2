package aopconformcmd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/aopkit/aopkit/conform"
	"github.com/aopkit/aopkit/conform/certify"
	"github.com/aopkit/aopkit/conform/knownfail"
	"github.com/aopkit/aopkit/conform/orchside"
	"github.com/aopkit/aopkit/conform/provenance"
	"github.com/aopkit/aopkit/conform/report"
	"github.com/aopkit/aopkit/conform/runner"
	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/internal/version"
)

// Flags of `aopconform run` for provenance, known failures and certificates.
const (
	flagKnownFailing = "known-failing"
	flagCertify      = "certify"
	flagCertificate  = "certificate"
	flagKey          = "key"
	flagAgent        = "agent"
)

// defaultCertificate is where --certify writes when --certificate is not given.
const defaultCertificate = "aopconform-certificate.json"

var certFlags = []cli.Flag{
	&cli.StringFlag{Name: flagKnownFailing, Usage: "failures listed in `FILE` (check ID pattern and reason a line) are KNOWN; an entry that now passes fails the run as stale"},
	&cli.StringFlag{Name: flagCertify, Usage: "sign a certificate of the run with the ed25519 private key `KEY` (PEM, PKCS#8)"},
	&cli.StringFlag{Name: flagCertificate, Value: defaultCertificate, Usage: "where --certify writes the certificate (`FILE`)"},
}

// certConfig is the part of runConfig these flags fill, with the settings the
// provenance records.
type certConfig struct {
	KnownFailing string
	Certify      string
	Certificate  string
	TimeoutScale float64
	Repeat       int // --repeat when the harness has it (0 = once)
}

func certConfigOf(c *cli.Context) certConfig {
	return certConfig{
		KnownFailing: c.String(flagKnownFailing), Certify: c.String(flagCertify), Certificate: c.String(flagCertificate),
		TimeoutScale: c.Float64(flagTimeoutScale), Repeat: c.Int("repeat"),
	}
}

// addCertCommands adds the flags of this file to run and the commands verify,
// badge and keygen.
func addCertCommands(app *cli.App, stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) {
	for _, c := range app.Commands {
		if c.Name == "run" {
			c.Flags = append(c.Flags, certFlags...)
		}
	}
	app.Commands = append(app.Commands, certCommands(stdout, stderr, usage)...)
}

// prepared is what runCmd checked before any scenario ran.
type prepared struct {
	executable string
	files      []conform.AgentFile // the files the command line names, digested before the run
	suite      conform.SuiteID
	known      *conform.KnownFailing
	knownSHA   string             // of the --known-failing file's bytes, as read
	key        ed25519.PrivateKey // --certify (nil: no certificate)
	cfg        certConfig
}

// prepareRun fails fast, before any scenario runs, on what would otherwise fail
// every scenario or the end of the run: an agent that cannot be started, a
// known-failing file that does not parse or names no check, a signing key that
// cannot be read, a report that cannot be certified. Each error is one line.
func prepareRun(cfg runConfig, all []*conform.Scenario) (*prepared, error) {
	exe, err := provenance.Executable(cfg.Command)
	if err != nil {
		if hint := misplacedArgs(cfg.Command); hint != "" {
			err = fmt.Errorf("%v (%s)", err, hint)
		}
		return nil, err
	}
	// The files the command line names (the script of `python3 agent.py`) are
	// digested as the run starts: a certificate binds them with the program.
	files, err := provenance.NamedFiles(cfg.Command)
	if err != nil {
		return nil, err
	}
	suite, err := provenance.Suite(cfg.Protocol, all, cfg.Builtin, cfg.Scenarios)
	if err != nil {
		return nil, err
	}
	p := &prepared{executable: exe, files: files, suite: suite, cfg: cfg.Cert}
	if cfg.Cert.KnownFailing != "" {
		// Read once: the entries applied and the digest a certificate signs are
		// of the same bytes.
		data, err := safefile.ReadFile(cfg.Cert.KnownFailing, safefile.MaxConfig)
		if err != nil {
			return nil, fmt.Errorf("--known-failing: %v", err)
		}
		if p.known, err = knownfail.Parse(cfg.Cert.KnownFailing, data); err != nil {
			return nil, err
		}
		if err := knownfail.CheckIDs(p.known); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		p.knownSHA = hex.EncodeToString(sum[:])
	}
	if cfg.Cert.Certify != "" {
		if len(cfg.Reports) == 0 {
			return nil, usageError{"--certify needs at least one --report FILE (the certificate binds its digest)"}
		}
		if p.key, err = certify.LoadPrivateKey(cfg.Cert.Certify); err != nil {
			return nil, fmt.Errorf("--certify: %v", err)
		}
		if err := overwritable("--certificate", cfg.Cert.Certificate, cfg.Force); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// misplacedArgs explains an agent command that starts with what was meant as more
// flag values (`--report a.json b.md -- agent`): flags take one value each.
func misplacedArgs(cmd []string) string {
	for i, a := range cmd[1:] {
		if a == "--" {
			return fmt.Sprintf("the agent command is %q: a flag takes one value, repeat it (--report a.json --report b.md)", strings.Join(cmd[:i+1], " ")+" …")
		}
	}
	return ""
}

// run runs the scenarios, then records the provenance and applies the
// known-failing file.
func (p *prepared) run(ctx context.Context, opts runner.Options) (*conform.Report, error) {
	rep, err := runner.Run(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := provenance.Collect(rep, provenance.Run{Suite: p.suite, Executable: p.executable, Files: p.files, TimeoutScale: p.cfg.TimeoutScale, Repeat: p.cfg.Repeat}); err != nil {
		return nil, err
	}
	if p.known != nil {
		knownfail.Apply(rep, p.known)
	}
	return rep, nil
}

// runFailed is exit code 1 (once harness errors are ruled out): a MUST failed that
// is not known, or a known-failing entry is stale.
func runFailed(rep *conform.Report) bool { return report.Failed(rep) }

// certifyRun signs the certificate after the reports were written.
func (p *prepared) certifyRun(rep *conform.Report, cfg runConfig, stderr io.Writer) error {
	if p.key == nil {
		return nil
	}
	passed := rep.HarnessErrors == 0 && !runFailed(rep)
	side := cfg.Side
	if side == "" {
		side = orchside.SideAgent
	}
	sel := certify.Selection{Run: cfg.Run, Skip: cfg.Skip, Strict: cfg.Strict}
	if kf := rep.KnownFailing; kf != nil {
		sel.KnownFailing = &certify.KnownFailingFile{File: kf.File, SHA256: p.knownSHA, Entries: kf.Entries}
	}
	st, err := certify.NewStatement(rep, side, passed, sel, cfg.Reports, cfg.Cert.Certificate)
	if err != nil {
		return fmt.Errorf("--certify: %v", err)
	}
	data, err := certify.Sign(st, p.key)
	if err != nil {
		return fmt.Errorf("--certify: %v", err)
	}
	write := certify.WriteNew
	if cfg.Force {
		write = func(name string, data []byte, mode os.FileMode) error {
			return safefile.WriteFile(name, data, mode, false)
		}
	}
	if err := write(cfg.Cert.Certificate, data, 0o644); err != nil {
		return fmt.Errorf("--certificate: %v", err)
	}
	fmt.Fprintf(stderr, "aopconform: certificate %s (key %s)\n", cfg.Cert.Certificate, certify.KeyID(p.key.Public().(ed25519.PublicKey)))
	if sel.Partial() {
		fmt.Fprintln(stderr, "aopconform: the certificate covers a partial selection (--run, --skip): it certifies no level")
	}
	return nil
}

// certCommands are verify, badge and keygen.
func certCommands(stdout, stderr io.Writer, usage cli.OnUsageErrorFunc) []*cli.Command {
	verifyFlags := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: flagKey, Usage: "the certifier's ed25519 public key `PUB` (PEM, PKIX)"},
			&cli.StringSliceFlag{Name: flagScenarios, Usage: "load the suite's scenario directories from `DIR` (default: as certified)"},
			&cli.BoolFlag{Name: flagBuiltin, Value: true, Usage: "include the shipped scenarios (default: as certified)"},
			&cli.StringSliceFlag{Name: flagAgent, Aliases: []string{"orchestrator"}, Usage: "also check that `PATH` is what was certified: the executable, or a file its command line named (the script of `python3 agent.py`); repeatable; every named file must be given (the interpreter alone does not verify)"},
		}
	}
	return []*cli.Command{
		{
			Name:         "verify",
			Usage:        "verify a certificate: signature, report digests, suite unchanged since (exit 1 when it does not verify)",
			UsageText:    "aopconform verify --key PUB [--agent|--orchestrator PATH]... [--scenarios DIR]... [--builtin=false] CERT",
			Flags:        verifyFlags(),
			OnUsageError: usage,
			Action: func(c *cli.Context) error {
				v, code := verifyCert(c, stderr)
				if v == nil {
					return exitCode(code)
				}
				for _, f := range v.Findings {
					mark := "ok"
					if !f.OK {
						mark = "FAILED"
					}
					fmt.Fprintf(stdout, "%-8s %s: %s\n", mark, f.What, f.Detail)
				}
				fmt.Fprintln(stdout, v.Statement.Summary())
				if !v.OK() {
					fmt.Fprintln(stdout, "NOT VERIFIED")
					return exitCode(exitMustBad)
				}
				fmt.Fprintln(stdout, "verified")
				return nil
			},
		},
		{
			Name:      "badge",
			Usage:     "write an SVG badge of a certificate's level, only when the certificate verifies",
			UsageText: "aopconform badge --key PUB [--out FILE [--force]] [--agent PATH]... [--scenarios DIR]... CERT",
			Flags: append(verifyFlags(),
				&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the SVG to `FILE` (default: stdout); an existing FILE is kept unless --force, a symbolic link is refused"},
				&cli.BoolFlag{Name: "force", Usage: "let --out replace an existing file (never through a symbolic link)"}),
			OnUsageError: usage,
			Action: func(c *cli.Context) error {
				v, code := verifyCert(c, stderr)
				if v == nil {
					return exitCode(code)
				}
				if !v.OK() {
					for _, f := range v.Findings {
						if !f.OK {
							fmt.Fprintf(stderr, "aopconform: no badge: %s: %s\n", f.What, f.Detail)
						}
					}
					return exitCode(exitMustBad)
				}
				pub, _ := certify.LoadPublicKey(c.String(flagKey))
				out := c.String("out")
				if out == "" {
					return certify.Badge(stdout, v.Statement, certify.KeyID(pub))
				}
				var svg bytes.Buffer
				if err := certify.Badge(&svg, v.Statement, certify.KeyID(pub)); err != nil {
					return err
				}
				if err := safefile.WriteFile(out, svg.Bytes(), 0o644, !c.Bool("force")); err != nil {
					if errors.Is(err, fs.ErrExist) {
						err = fmt.Errorf("--out %s already exists: refusing to overwrite it (--force replaces it)", out)
					}
					fmt.Fprintln(stderr, "aopconform:", err)
					return exitCode(exitHarness)
				}
				return nil
			},
		},
		{
			Name:         "keygen",
			Usage:        "make an ed25519 key pair for --certify: PREFIX.key (private) and PREFIX.pub (publish it)",
			UsageText:    "aopconform keygen PREFIX",
			OnUsageError: usage,
			Action: func(c *cli.Context) error {
				prefix := c.Args().First()
				if prefix == "" || c.NArg() != 1 {
					fmt.Fprintln(stderr, "aopconform: keygen takes one PREFIX (writes PREFIX.key and PREFIX.pub)")
					return exitCode(exitHarness)
				}
				pub, err := certify.GenerateKey(prefix)
				if err != nil {
					fmt.Fprintln(stderr, "aopconform:", err)
					return exitCode(exitHarness)
				}
				fmt.Fprintf(stdout, "wrote %s.key (keep it secret) and %s.pub (publish it)\nkey id %s\n", prefix, prefix, certify.KeyID(pub))
				return nil
			},
		},
	}
}

// verifyCert runs the verification of verify and badge; a nil result carries the
// exit code (2: cannot read the inputs, 1: the signature does not verify).
func verifyCert(c *cli.Context, stderr io.Writer) (*certify.Verification, int) {
	cert := c.Args().First()
	if cert == "" || c.NArg() != 1 {
		fmt.Fprintln(stderr, "aopconform: give one certificate file")
		return nil, exitHarness
	}
	if c.String(flagKey) == "" {
		fmt.Fprintln(stderr, "aopconform: --key PUB is required: the certifier's published public key")
		return nil, exitHarness
	}
	pub, err := certify.LoadPublicKey(c.String(flagKey))
	if err != nil {
		fmt.Fprintln(stderr, "aopconform: --key:", err)
		return nil, exitHarness
	}
	data, err := safefile.ReadFile(cert, safefile.MaxSmall)
	if err != nil {
		fmt.Fprintln(stderr, "aopconform:", err)
		return nil, exitHarness
	}
	opts := certify.Options{Agents: c.StringSlice(flagAgent), Version: version.String(), Suite: func(side, protocol string, builtin bool, recorded []string) (conform.SuiteID, error) {
		dirs := append([]string(nil), recorded...)
		if c.IsSet(flagBuiltin) {
			builtin = c.Bool(flagBuiltin)
		}
		if c.IsSet(flagScenarios) {
			dirs = c.StringSlice(flagScenarios)
		} else {
			// Directories were recorded as given, relative to where the run was.
			for i, d := range dirs {
				if !filepath.IsAbs(d) {
					if _, err := os.Stat(d); err != nil {
						dirs[i] = filepath.Join(filepath.Dir(cert), d)
					}
				}
			}
		}
		// The suite of the certified side, loaded as `run --side` loads it.
		cfg := runConfig{Side: side, Protocol: protocol, Scenarios: dirs, Builtin: builtin}
		if side != orchside.SideAgent && side != orchside.SideOrchestrator {
			return conform.SuiteID{}, fmt.Errorf("the certificate's side %q is unknown to this aopconform (agent or orchestrator)", side)
		}
		if err := cfg.validateSide(); err != nil {
			return conform.SuiteID{}, err
		}
		all, err := cfg.sideScenarios()
		if err != nil {
			return conform.SuiteID{}, err
		}
		return provenance.Suite(protocol, all, builtin, dirs)
	}}
	v, err := certify.Verify(cert, data, pub, opts)
	if err != nil {
		fmt.Fprintf(stderr, "aopconform: %s does not verify: %v\n", cert, err)
		return nil, exitMustBad
	}
	return v, exitOK
}
