package aop2

import (
	_ "embed"

	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/internal/ruledoc"
	"github.com/aopkit/aopkit/lint/schema"
)

// ruleDocs is the prose of the package's rules, by ID (rules.yaml).
var ruleDocs = ruledoc.Parse("lint/aop2/rules.yaml", rulesYAML)

//go:embed rules.yaml
var rulesYAML []byte

// Schema validates a message against the schema of its kind (schemas/aop2/).
var Schema = ruleDocs.Rule(lint.Rule{ID: "AOP2-SCHEMA-001", Protocol: ID, Severity: lint.Error, Schema: true, Run: schema.Run})

func init() { lint.Register(Schema) }

// checkUnknownMembers reports the members the contract does not define (by the
// member shapes internal/schemagen computed from the schema files) that the
// walk of the tree found (walk.go).
func checkUnknownMembers(p *lint.Pass) { report(p, byUnknown) }
