package draft7

import (
	"encoding/json"
	"math/big"
	"testing"
)

// isInteger's reading of digits agrees with big.Rat at the edges of its
// exponent limit and on what is not JSON's grammar.
func TestIsIntegerDecimalEdges(t *testing.T) {
	for _, s := range []string{"1e999999", "1e1000000", "1e1000001", "-1e-1000000", "10e-1000001", "1.0e-1000000",
		"1.5e-3", "1500e-2", "15e-1", "150e-1", "0e++0", "1e+-5", "1.e5", ".5", "5.", "-0.0e-9999999", "0e99999999999999999999",
		"1e99999999999999999999", "1E+2", "1.25E2", "-12.50e1", "1e05", "1e-0"} {
		q, ok := new(big.Rat).SetString(s)
		if got, want := isInteger(json.Number(s)), ok && q.IsInt(); got != want {
			t.Errorf("isInteger(%q) = %v, big.Rat says %v", s, got, want)
		}
	}
}
