package aop2

import "github.com/aopkit/aopkit/lint"

// ExtensionKey: keys of every extensions object start with x_.
var ExtensionKey = ruleDocs.Rule(lint.Rule{ID: "AOP2-EXT-001", Protocol: ID, Severity: lint.Error, Run: checkExtensionKeys})

func init() { lint.Register(ExtensionKey) }

// checkExtensionKeys reports the extensions keys the walk of the tree found
// (walk.go).
func checkExtensionKeys(p *lint.Pass) { report(p, byExtensions) }
