// Package all is mockagent's list of reference agents: importing it registers
// every protocol's (each mockagent/<protocol> registers its Agent from init),
// and Agents names them in the list's order (lint/all; conform/protocols holds
// the same agents, its tests check). mockagent is built for Windows too and
// links no engine, hence its own list.
package all

import (
	"github.com/aopkit/aopkit/mockagent"
	"github.com/aopkit/aopkit/mockagent/aof"
	"github.com/aopkit/aopkit/mockagent/aop2"
	"github.com/aopkit/aopkit/mockagent/aopoutput"
	"github.com/aopkit/aopkit/mockagent/aos"
	"github.com/aopkit/aopkit/mockagent/orchmsg"
)

// Agents are the reference agents, in the list's order.
var Agents = []*mockagent.Agent{aop2.Agent, aos.Agent, aopoutput.Agent, aof.Agent, orchmsg.Agent}
