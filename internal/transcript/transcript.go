// Package transcript holds the constants of aopkit's transcript/1 format
// (docs/transcript-format.md), which aopconform writes (conform, conform/harness)
// and aoplint reads (lint/linter): a leaf both sides import, so that the linter
// never imports the conformance suite.
package transcript

// Version is the value of the "aopkit" key of every transcript record.
const Version = "transcript/1"

// TimeFormat is how transcript records write `at`.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"
