// Package all is aoplint's one list of protocols: Protocols names every
// protocol's lint-level descriptor (lint/<protocol>.Protocol), and importing
// the package registers them, in this order, with the rules of their packages
// and the generic ones. Adding a protocol adds one line here, one in
// conform/protocols (the conformance side's list) and one in mockagent/all.
package all

import (
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/aof"
	"github.com/aopkit/aopkit/lint/aop2"
	"github.com/aopkit/aopkit/lint/aopoutput"
	"github.com/aopkit/aopkit/lint/aos"
	_ "github.com/aopkit/aopkit/lint/generic"
	"github.com/aopkit/aopkit/lint/orchmsg"
)

// Protocols are the protocols aoplint lints, in the order help texts and
// messages name them.
var Protocols = []*lint.Protocol{
	aop2.Protocol,
	aos.Protocol,
	aopoutput.Protocol,
	aof.Protocol,
	orchmsg.Protocol,
}

func init() {
	for _, p := range Protocols {
		lint.RegisterProtocol(p)
	}
}
