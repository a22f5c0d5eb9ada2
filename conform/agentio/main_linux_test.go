package agentio

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary be the agents' supervisor, as aopconform is, and a
// small harness for TestHarnessKilled (AGENTIO_TEST_HARNESS set).
func TestMain(m *testing.M) {
	Main()
	if os.Getenv(probeEnv) != "" {
		os.Exit(probe())
	}
	if os.Getenv(writerEnv) != "" {
		os.Exit(lateWriter())
	}
	if marker := os.Getenv("AGENTIO_TEST_HARNESS"); marker != "" {
		os.Exit(testHarness(marker))
	}
	os.Exit(m.Run())
}

// testHarness launches an agent whose daemons carry marker, says "ready" once they
// run, and waits to be killed.
func testHarness(marker string) int {
	dir, err := os.MkdirTemp("", "agentio-harness-")
	if err != nil {
		return 3
	}
	c, err := Process{}.Start(context.Background(), Spec{Dir: dir, Env: []string{markerVar + "=" + marker},
		Args: []string{"sh", "-c", daemonScript}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	l := <-c.Lines()
	fmt.Println(string(l.Data))
	bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}
