package aop2

import (
	"testing"
)

func TestHappyPath(t *testing.T) {
	r := runInProcess(t, "happy-path", "", taskWith(t, nil), nil, nil)
	t.Logf("%+v", r.res)
	t.Logf("%s", r.transcript)
}
