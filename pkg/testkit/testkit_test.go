package testkit_test

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/aopkit/aopkit/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m, nil) }

// TestScripts runs testdata/*.txtar: the three commands registered by the kit, as a
// third party's suite uses them.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata"})
}
