// Package testkit makes aoplint, aopconform and mockagent commands of a test binary,
// so that a project's own testscript suites (.txtar files) can lint their fixtures and
// certify their agents with the real tools, in-process, without installing them:
//
//	func TestMain(m *testing.M) { testkit.Main(m, nil) }
//
//	func TestScripts(t *testing.T) {
//		testscript.Run(t, testscript.Params{Dir: "testdata/script"})
//	}
//
// and in testdata/script/agent.txtar:
//
//	exec aoplint fixtures/
//	exec aopconform run --protocol orchmsg -- my-agent
//	! exec aopconform run --protocol orchmsg -- mockagent --protocol orchmsg --fault hang
//
// The commands are on the PATH of every process the scripts start, so aopconform can
// spawn mockagent (or any other registered command) as the agent under test.
package testkit

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aopkit/aopkit/conform/agentio"
	aopconformcmd "github.com/aopkit/aopkit/internal/cmd/aopconform"
	aoplintcmd "github.com/aopkit/aopkit/internal/cmd/aoplint"
	mockagentcmd "github.com/aopkit/aopkit/internal/cmd/mockagent"
)

// Commands returns aoplint, aopconform and mockagent as testscript commands (for
// testscript.Main). Each behaves exactly as the installed command does.
func Commands() map[string]func() {
	return map[string]func(){
		"aoplint":    func() { os.Exit(aoplintcmd.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
		"aopconform": func() { os.Exit(aopconformcmd.Run(os.Args, os.Stdout, os.Stderr)) },
		"mockagent":  func() { os.Exit(mockagentcmd.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	}
}

// Main runs the tests of m with the three commands and extra (the caller's own, such
// as its agent) registered; call it from TestMain. An extra command of the same name
// replaces one of the kit's. The test binary is also aopconform's agent supervisor
// (as the installed aopconform is), so agents run contained as they would there.
func Main(m testscript.TestingM, extra map[string]func()) {
	agentio.Main()
	cmds := Commands()
	for name, f := range extra {
		cmds[name] = f
	}
	testscript.Main(m, cmds)
}
