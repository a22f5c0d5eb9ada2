package lint

// FileReport is what the driver found in one file on disk: the part of its
// result a protocol's hook reads (a directory linter, a rule that lints a file
// a message names).
type FileReport struct {
	Path        string
	Protocol    string
	Kind        string
	Messages    int
	Diagnostics []Diagnostic
}

// FileLinter lints one file on disk as `aoplint FILE` does, as the given
// protocol ("" detects one). The driver (lint/linter) makes it and hands it to
// the protocols (Options.LintFile, Protocol.LintDir), so that a protocol's
// rules lint the files they find without importing the driver.
type FileLinter func(path, protocol string) (FileReport, error)
