package aop2

import (
	"github.com/aopkit/aopkit/lint"
	aop2spec "github.com/aopkit/aopkit/lint/spec/aop2"
)

// errorCodes is the §12 taxonomy (lint/spec/aop2).
var errorCodes = aop2spec.ErrorCodes

// ErrorCode: every error_code is from the §12 taxonomy.
var ErrorCode = ruleDocs.Rule(lint.Rule{ID: "AOP2-CODE-001", Protocol: ID, Severity: lint.Warning, Run: checkErrorCodes})

func init() { lint.Register(ErrorCode) }

// checkErrorCodes reports the error_code members the walk of the tree found
// (walk.go).
func checkErrorCodes(p *lint.Pass) { report(p, byErrorCodes) }
