package aop2

import "testing"

func TestParseV1Prompt(t *testing.T) {
	p := parseV1Prompt("# AOP TASK TASK-007\n\n- Session: S\n\n## Objective\n\nDo it.\nCarefully.\n\n## Extensions\n\n```json\n{\"x_mockagent\":{\"work_seconds\":0.5,\"faults_by_attempt\":{\"1\":\"report-failure\"}}}\n```\n\n## Report\n\nEnd with STATUS.\n")
	if p.TaskID != "TASK-007" || p.Objective != "Do it.\nCarefully." || p.Script.WorkSeconds != 0.5 || p.Script.FaultsByAttempt["1"] != "report-failure" {
		t.Errorf("%+v", p)
	}
}

// FuzzParseV1Prompt: any text parses without a panic.
func FuzzParseV1Prompt(f *testing.F) {
	f.Add("# AOP TASK T\n## Objective\nx\n## Extensions\n```json\n{\"x_mockagent\":{}}\n```\n")
	f.Add("```\n# \n## \n```json")
	f.Fuzz(func(t *testing.T, s string) { parseV1Prompt(s) })
}
