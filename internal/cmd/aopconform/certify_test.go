package aopconformcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aopkit/aopkit/conform/agentio"
	"github.com/aopkit/aopkit/conform/certify"
	"github.com/aopkit/aopkit/mockagent"
	_ "github.com/aopkit/aopkit/mockagent/all"
)

// keyThief launches the agent after overwriting the signing key: what an agent
// that can write the key's file would do first.
type keyThief struct {
	agentio.Launcher
	key  string
	once sync.Once
}

func (k *keyThief) Launch(ctx context.Context, spec agentio.Spec) (agentio.Conn, error) {
	k.once.Do(func() {
		if err := os.WriteFile(k.key, []byte("not a key any more\n"), 0o600); err != nil {
			panic(err)
		}
	})
	return k.Launcher.Launch(ctx, spec)
}

// TestKeyReadBeforeLaunch (issue 33): the --certify key is in memory before the
// first agent starts, so nothing an agent does to the key file afterwards
// changes what signs the certificate. Were the key read after the launch, the
// run would fail on the overwritten file.
func TestKeyReadBeforeLaunch(t *testing.T) {
	dir := t.TempDir()
	pub, err := certify.GenerateKey(filepath.Join(dir, "k"))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := mockagent.Lookup("aop-output")
	if err != nil {
		t.Fatal(err)
	}
	thief := &keyThief{Launcher: agentio.InProcess{Agent: ag}, key: filepath.Join(dir, "k.key")}
	cert := filepath.Join(dir, "c.json")
	cfg := runConfig{
		Protocol: "aop-output", Builtin: true, Run: "aop-output/bind/exit-zero", TimeoutScale: 1, Repeat: 1,
		Out: filepath.Join(dir, "out"), Reports: []string{filepath.Join(dir, "r.json")}, NoLint: true,
		Command: []string{"/bin/true"}, launcher: thief,
		Cert: certConfig{Certify: thief.key, Certificate: cert, TimeoutScale: 1, Repeat: 1},
	}
	var stdout, stderr bytes.Buffer
	if err := runCmd(context.Background(), cfg, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, stderr.String(), stdout.String())
	}
	data, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	st, err := certify.Open(data, pub)
	if err != nil {
		t.Fatalf("the certificate is not signed with the key as it was before the launch: %v", err)
	}
	if sel := st.Predicate.Selection; sel == nil || sel.Full || sel.Run != "aop-output/bind/exit-zero" || st.Predicate.Levels["aop-output"] != "none" {
		t.Errorf("a --run certificate: selection %+v, levels %v", sel, st.Predicate.Levels)
	}
}
