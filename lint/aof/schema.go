package aof

import (
	_ "embed"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/ruledoc"
	"github.com/aopkit/aopkit/lint/schema"
)

// ruleDocs is the prose of the package's rules, by ID (rules.yaml).
var ruleDocs = ruledoc.Parse("lint/aof/rules.yaml", rulesYAML)

//go:embed rules.yaml
var rulesYAML []byte

// SchemaRule validates every AOF message against the schema of its kind.
var SchemaRule = ruleDocs.Rule(lint.Rule{ID: "AOF-SCHEMA-001", Protocol: "aof", Severity: lint.Error, Schema: true, Run: schema.Run})
