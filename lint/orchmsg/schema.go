package orchmsg

import (
	_ "embed"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/ruledoc"
	"github.com/aopkit/aopkit/lint/schema"
)

// ruleDocs is the prose of the package's rules, by ID (rules.yaml).
var ruleDocs = ruledoc.Parse("lint/orchmsg/rules.yaml", rulesYAML)

//go:embed rules.yaml
var rulesYAML []byte

// Schema validates each message against the schema of its type
// (schemas/orchmsg/<type>.schema.json, the colon written as a dash).
var Schema = ruleDocs.Rule(lint.Rule{ID: "ORCH-SCHEMA-001", Protocol: ID, Severity: lint.Error, Schema: true, Run: schema.Run})

func init() { lint.Register(Schema) }
