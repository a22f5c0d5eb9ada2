package checks

import (
	"fmt"

	"github.com/aopkit/aopkit/conform"
)

var aosContentType = &conform.Check{
	ID:          "aos/2.2/content-type",
	Family:      "happy-path",
	Tier:        conform.Core,
	Level:       conform.MUST,
	Spec:        "aos-0.1.0 §2.2, §4",
	Requirement: "The Content-Type header for HTTP requests containing JSON-RPC payloads MUST be application/json; the body MUST be a JSONRPCRequest sent with HTTP POST.",
	Bad:         `POST with Content-Type: text/plain`,
	Good:        `POST with Content-Type: application/json`,
	Run: func(s *conform.Session) conform.Outcome {
		reqs := aosRequests(s, "")
		if len(reqs) == 0 {
			return conform.Failf("the agent never called the guardian")
		}
		for _, r := range reqs {
			if !r.Detail.IsZero() {
				return conform.Mismatch(fmt.Sprintf("record %d was not a JSON POST", r.Seq), "POST with Content-Type: application/json", fmt.Sprintf("%v %v", conform.KeyMethod.Get(r.Detail), conform.KeyContentType.Get(r.Detail))).At(r.Seq)
			}
		}
		return conform.Passf("%d requests, all application/json POST", len(reqs))
	},
}
