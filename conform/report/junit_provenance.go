package report

import (
	"fmt"
	"strings"

	"github.com/aopkit/aopkit/conform"
)

type junitProps struct {
	Items []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// provenanceProperties are the <properties> of a scenario's testsuite: the run's
// provenance and the digest of the scenario's transcript (nil without provenance).
func provenanceProperties(r *conform.Report, scenario string) *junitProps {
	p := r.Provenance
	if p == nil {
		return nil
	}
	props := &junitProps{Items: []junitProperty{
		{"aopconform.version", p.Aopconform},
		{"aopconform.suite", p.Suite.Digest},
		{"aopconform.agent.command", strings.Join(p.Agent.Command, " ")},
		{"aopconform.agent.sha256", p.Agent.SHA256},
		{"aopconform.platform", p.Platform},
		{"aopconform.started", p.Started.Format(conform.TimeFormat)},
		{"aopconform.timeout_scale", fmt.Sprint(p.TimeoutScale)},
		{"aopconform.repeat", fmt.Sprint(p.Repeat)},
	}}
	for _, t := range p.Transcripts {
		if t.Scenario == scenario {
			props.Items = append(props.Items, junitProperty{"aopconform.transcript.sha256", t.SHA256})
		}
	}
	return props
}
