// Package wrapped embeds the official JSON Schemas of the two protocols an AOS
// message wraps (protocols/MCP and protocols/A2A params.message): one file per
// published revision, byte for byte as published. SOURCES.md says where each
// file comes from, its licence and how to add a revision.
package wrapped

import "embed"

// FS holds mcp/<revision>.schema.json and a2a/<revision>.schema.json.
//
//go:embed mcp/*.json a2a/*.json
var FS embed.FS
