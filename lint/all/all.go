// Package all registers every protocol and rule of aoplint. Each protocol's
// package adds its own blank import line here.
package all

import (
	_ "github.com/aopkit/aopkit/lint/aof"
	_ "github.com/aopkit/aopkit/lint/aop2"
	_ "github.com/aopkit/aopkit/lint/aopoutput"
	_ "github.com/aopkit/aopkit/lint/aos"
	_ "github.com/aopkit/aopkit/lint/generic"
	_ "github.com/aopkit/aopkit/lint/orchmsg"
)
