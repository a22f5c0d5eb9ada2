// Package schemas holds aopkit's JSON Schemas (draft-07), one directory per protocol,
// one file per message kind, embedded in every binary.
//
// Every file carries "$id": "https://aopkit.dev/schemas/<dir>/<file>"; a schema may
// refer to another file of its directory by relative name ("common.schema.json#/definitions/Agent").
package schemas

import "embed"

// FS holds every schema: <protocol>/<kind>.schema.json.
//
//go:embed */*.json
var FS embed.FS

// BaseURL is the prefix of every schema's $id.
const BaseURL = "https://aopkit.dev/schemas/"
