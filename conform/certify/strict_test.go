package certify

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// reenvelope builds an envelope by hand: members in the order given.
func reenvelope(members ...string) []byte {
	return []byte("{" + strings.Join(members, ",") + "}")
}

// TestDuplicateMembers (issue 33 item 5): an envelope or a signed statement with a
// member twice — or twice in different case, which encoding/json reads as one —
// does not open: a forged payload before the signed one no longer verifies.
func TestDuplicateMembers(t *testing.T) {
	t.Parallel()
	dir, pub, cert, _ := fixture(t)
	priv, err := LoadPrivateKey(filepath.Join(dir, "k.key"))
	if err != nil {
		t.Fatal(err)
	}
	var env Envelope
	if err := json.Unmarshal(cert, &env); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	forged := base64.StdEncoding.EncodeToString([]byte(`{"_type":"https://in-toto.io/Statement/v1","predicateType":"` + PredicateType + `","predicate":{"levels":{"aop2":"Full"},"passed":true}}`))
	sigs, _ := json.Marshal(env.Signatures)
	good := reenvelope(`"payloadType":`+q(env.PayloadType), `"payload":`+q(env.Payload), `"signatures":`+string(sigs))
	if _, err := Open(good, pub); err != nil {
		t.Fatalf("the hand-made envelope does not open: %v", err)
	}
	for name, data := range map[string][]byte{
		"payload twice":         reenvelope(`"payloadType":`+q(env.PayloadType), `"payload":`+q(forged), `"payload":`+q(env.Payload), `"signatures":`+string(sigs)),
		"payload in two cases":  reenvelope(`"payloadType":`+q(env.PayloadType), `"Payload":`+q(forged), `"payload":`+q(env.Payload), `"signatures":`+string(sigs)),
		"sig twice":             reenvelope(`"payloadType":`+q(env.PayloadType), `"payload":`+q(env.Payload), `"signatures":[{"keyid":"x","sig":"AAAA","sig":`+q(env.Signatures[0].Sig)+`}]`),
		"ſig, folded to sig":    reenvelope(`"payloadType":`+q(env.PayloadType), `"payload":`+q(env.Payload), `"signatures":[{"keyid":"x","sig":"AAAA","ſig":`+q(env.Signatures[0].Sig)+`}]`),
		"trailing data":         append(append([]byte(nil), good...), []byte(` {"payload":"x"}`)...),
		"payloadType twice":     reenvelope(`"payloadType":"x"`, `"payloadType":`+q(env.PayloadType), `"payload":`+q(env.Payload), `"signatures":`+string(sigs)),
		"signatures in 2 cases": reenvelope(`"payloadType":`+q(env.PayloadType), `"payload":`+q(env.Payload), `"SIGNATURES":[]`, `"signatures":`+string(sigs)),
	} {
		if _, err := Open(data, pub); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
	// A statement signed with a member twice (the certifier's own bytes): refused
	// after the signature verifies.
	for name, payload := range map[string]string{
		"passed twice":    `{"_type":"https://in-toto.io/Statement/v1","predicateType":"` + PredicateType + `","predicate":{"passed":false,"levels":{"aop2":"none"},"passed":true}}`,
		"levels in cases": `{"_type":"https://in-toto.io/Statement/v1","predicateType":"` + PredicateType + `","predicate":{"Levels":{"aop2":"Full"},"levels":{"aop2":"none"}}}`,
		"trailing value":  `{"_type":"https://in-toto.io/Statement/v1","predicateType":"` + PredicateType + `"} {}`,
	} {
		sig := ed25519.Sign(priv, PAE(PayloadType, []byte(payload)))
		data := reenvelope(`"payloadType":`+q(PayloadType), `"payload":`+q(base64.StdEncoding.EncodeToString([]byte(payload))),
			`"signatures":[{"keyid":"k","sig":`+q(base64.StdEncoding.EncodeToString(sig))+`}]`)
		_, err := Open(data, pub)
		if err == nil || errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), "signed payload is not a statement") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
