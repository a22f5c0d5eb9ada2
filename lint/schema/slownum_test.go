package schema_test

import (
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint/jsonread"
	"github.com/aopkit/aopkit/lint/schema"
)

// A number literal with a large exponent (1e999999 is a valid JSON number of 8
// bytes) costs big.Rat a power of ten of a million digits (20 ms) each time
// draft7 asks whether it is an integer: a 1 MB line of them takes half an hour.
func TestLargeExponentNumbersAreCheap(t *testing.T) {
	data, err := os.ReadFile("../../fixtures/aop2/valid/spec_2.2_full_task.json")
	if err != nil {
		t.Fatal(err)
	}
	nums := strings.TrimSuffix(strings.Repeat("1e999999,", 300), ",")
	msg := regexp.MustCompile(`"retry_backoff_seconds":\s*\[[^\]]*\]`).ReplaceAllLiteralString(string(data), `"retry_backoff_seconds": [`+nums+`]`)
	// One member of the wrong type: the generated validator is not Valid, so
	// draft7 walks the message.
	msg = strings.Replace(msg, `"retry_backoff_seconds"`, `"max_retries": "x", "retry_backoff_seconds"`, 1)
	root, _, err := jsonread.Parse([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	// The cost is measured in bytes allocated, not in time (a loaded machine
	// slows everything): the slow path allocates each power of ten, about 4 MB
	// a number (measured: big.Rat SetString("1e999999") then IsInt), over 1 GB
	// for the 300; the fast one a few hundred KB.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	es, err := schema.Validate("aop2/task.schema.json", root)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("%d bytes validated with %d MB allocated (%d errors): a big.Rat per number?", len(msg), n>>20, len(es))
	}
}

// A number big.Rat cannot read (an exponent past a million: 1e9999999, a valid
// JSON number) against a minimum, in a message draft7 validates.
func TestHugeExponentAgainstABound(t *testing.T) {
	data, err := os.ReadFile("../../fixtures/aop2/valid/spec_5_response.json")
	if err != nil {
		t.Fatal(err)
	}
	msg := strings.Replace(string(data), `"estimated_cost_usd": 0.15`, `"estimated_cost_usd": 1e9999999`, 1)
	msg = strings.Replace(msg, `"duration_seconds": 331`, `"duration_seconds": "x"`, 1)
	root, _, err := jsonread.Parse([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	es, err := schema.Validate("aop2/response.schema.json", root) // panicked: big.Rat.SetString gives nil, then Cmp
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Pointer != "/timing/duration_seconds" {
		t.Errorf("errors %v", es)
	}
}
