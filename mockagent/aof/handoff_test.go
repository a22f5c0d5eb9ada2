package aof

import (
	"encoding/json"
	"testing"
)

// TestNoCriteria: noCriteria answers as the json.Unmarshal into
// struct{AcceptanceCriteria []string} it replaces (error or items: criteria).
func TestNoCriteria(t *testing.T) {
	for _, in := range []string{
		`{"acceptanceCriteria":["a"]}`, `{"acceptanceCriteria":[]}`, `{"acceptanceCriteria":null}`, `{}`, `null`, ` null `,
		`{"acceptanceCriteria":"a"}`, `{"acceptanceCriteria":[1]}`, `{"acceptanceCriteria":[null]}`, `[]`, `"x"`, `{`, ``,
		`{"acceptanceCriteria":[],"acceptanceCriteria":["a"]}`, `{"acceptanceCriteria":["a"],"acceptanceCriteria":[]}`,
	} {
		var h struct {
			AcceptanceCriteria []string `json:"acceptanceCriteria"`
		}
		want := !(json.Unmarshal([]byte(in), &h) != nil || len(h.AcceptanceCriteria) > 0)
		if got := noCriteria([]byte(in)); got != want {
			t.Errorf("noCriteria(%s) = %v, want %v", in, got, want)
		}
	}
}
