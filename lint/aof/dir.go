package aof

import "github.com/aopkit/aopkit/lint"

var dirRules []*lint.Rule
