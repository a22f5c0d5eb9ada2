package config

import (
	"io/fs"

	"github.com/aopkit/aopkit/schemas"
)

// SchemaFile is the configuration's JSON Schema within package schemas' FS.
const SchemaFile = "aoplint/config.schema.json"

// Schema returns the configuration's JSON Schema.
func Schema() ([]byte, error) { return fs.ReadFile(schemas.FS, SchemaFile) }

// Template is the file `aoplint config init` writes: every key, commented, with
// its default.
const Template = `# aoplint configuration: https://github.com/aopkit/aopkit/blob/main/docs/configuration.md
# Editors complete this file from its JSON Schema: aoplint config schema > .aoplint.schema.json
# yaml-language-server: $schema=https://aopkit.dev/schemas/aoplint/config.schema.json

# Output format when --format is not given: text, json, jsonl, sarif, junit, github or markdown.
format: text

# Exit 1 on findings of this severity or worse: error or warning.
fail-on: error

files:
  # Only files matching these patterns are linted (globs relative to this file,
  # ** for any depth). Empty: every .json, .jsonl, .ndjson, .aop and .txt file.
  include: []
  # Files or directories never linted, even when named on the command line.
  exclude:
    - "**/node_modules"
    - "**/vendor"
  # Files without any protocol marker: auto (skip them in directory walks, report
  # them when named), skip (always skip) or error (always report).
  unrecognised: auto

# Turn rules off or change their severity: off, on, error, warning or info.
rules: {}
#  GEN-JSON-005: off
#  AOP2-LIMIT-001: error

# Settings for some paths; a later override wins.
overrides: []
#  - files: ["legacy/**"]
#    protocol: aop2
#    rules:
#      AOP2-VERSION-001: warning
#  - files: ["reports/search/**"]
#    task-type: search

# Known findings, suppressed one by one; an entry that matches nothing is reported.
ignore: []
#  - path: fixtures/old-task.json
#    rule: AOP2-ENVELOPE-001
#    pointer: /payload
#    reason: kept as sent by the 2025 orchestrator

# Baseline of known findings (aoplint --baseline-write FILE writes one).
# baseline: .aoplint-baseline.json
`
