// Package all imports every protocol of the mock agent. Each protocol's package adds
// its own blank import line here.
package all

import (
	_ "github.com/aopkit/aopkit/mockagent" // the registry itself
	_ "github.com/aopkit/aopkit/mockagent/aof"
	_ "github.com/aopkit/aopkit/mockagent/aop2"
	_ "github.com/aopkit/aopkit/mockagent/aopoutput"
	_ "github.com/aopkit/aopkit/mockagent/aos"
	_ "github.com/aopkit/aopkit/mockagent/orchmsg"
)
