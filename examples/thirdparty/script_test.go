package thirdparty

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aopkit/aopkit/pkg/testkit"

	"example.com/thirdparty/reportagent"
)

// TestMain makes aoplint, aopconform and mockagent (from the kit) and the project's
// own reportagent commands of the test binary.
func TestMain(m *testing.M) {
	testkit.Main(m, map[string]func(){
		"reportagent": func() { os.Exit(reportagent.Main()) },
	})
}

// TestScripts runs testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
