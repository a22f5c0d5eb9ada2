package transcriptgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func generate(t *testing.T, cfg Config) ([]byte, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := Write(&buf, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// skipUnderRace skips the generator's tests under the race detector
// (race_test.go).
func skipUnderRace(t *testing.T) {
	if raceEnabled {
		t.Skip("the generator alone, one goroutine: run without -race (race_test.go)")
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	skipUnderRace(t)
	a, _ := generate(t, Config{Seed: 7, Messages: 3000, InvalidEvery: 100})
	b, _ := generate(t, Config{Seed: 7, Messages: 3000, InvalidEvery: 100})
	if !bytes.Equal(a, b) {
		t.Fatal("same seed gave different transcripts")
	}
	c, _ := generate(t, Config{Seed: 8, Messages: 3000, InvalidEvery: 100})
	if bytes.Equal(a, c) {
		t.Fatal("different seeds gave the same transcript")
	}
}

// TestShape checks the mix: every protocol present, the counts in Stats agree
// with the lines, every line is JSON, an AOF/1 line, or (when broken on purpose)
// neither.
func TestShape(t *testing.T) {
	t.Parallel()
	skipUnderRace(t)
	data, st := generate(t, Config{Seed: 1, Messages: 20000, InvalidEvery: 500})
	if st.Messages < 20000 || st.Bytes != int64(len(data)) {
		t.Fatalf("stats %v for %d bytes", st, len(data))
	}
	if want := st.Messages / 500; st.Invalid != want {
		t.Errorf("invalid = %d, want %d", st.Invalid, want)
	}
	for _, p := range Protocols {
		share := float64(st.PerProtocol[p]) / float64(st.Messages)
		if share < 0.02 || share > 0.5 {
			t.Errorf("protocol %s has %.1f %% of the messages", p, 100*share)
		}
	}
	var lines, records, prefixed, broken int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("AOF/1 ")) {
			prefixed++
			line = line[len("AOF/1 "):]
		}
		if bytes.HasPrefix(line, []byte(`{"aopkit":"transcript/1",`)) {
			records++
		}
		if !json.Valid(line) {
			broken++
		}
	}
	if lines != st.Lines || records != st.Records {
		t.Errorf("counted %d lines, %d records; stats say %v", lines, records, st)
	}
	if prefixed == 0 || records == 0 || records == lines {
		t.Errorf("want bare lines, records and AOF/1 lines: %d lines, %d records, %d AOF/1", lines, records, prefixed)
	}
	if broken == 0 || broken > st.Invalid {
		t.Errorf("%d lines are not JSON, with %d messages broken on purpose", broken, st.Invalid)
	}
}

func TestStopsAtBytes(t *testing.T) {
	t.Parallel()
	skipUnderRace(t)
	_, st := generate(t, Config{Seed: 1, Bytes: 1 << 20})
	if st.Bytes < 1<<20 || st.Bytes > 1<<20+64<<10 {
		t.Errorf("asked 1 MiB, wrote %d bytes", st.Bytes)
	}
}

func TestFraming(t *testing.T) {
	t.Parallel()
	skipUnderRace(t)
	data, st := generate(t, Config{Seed: 1, Messages: 2000, Framing: Bare})
	if st.Records != 0 || st.PerProtocol["aop-output"] != 0 || bytes.Contains(data, []byte(`"aopkit"`)) {
		t.Errorf("bare framing wrote records: %v", st)
	}
	_, st = generate(t, Config{Seed: 1, Messages: 2000, Framing: Records, Protocols: []string{"aos"}})
	if st.Records != st.Lines || st.PerProtocol["aos"] != st.Messages {
		t.Errorf("records framing of aos: %v", st)
	}
	if _, err := Write(&bytes.Buffer{}, Config{Messages: 1, Framing: Bare, Protocols: []string{"aop-output"}}); err == nil {
		t.Error("aop-output cannot be bare, want an error")
	}
	if _, err := Write(&bytes.Buffer{}, Config{Messages: 1, Protocols: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown protocol: err = %v", err)
	}
}
