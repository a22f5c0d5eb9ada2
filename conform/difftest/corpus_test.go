package difftest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpusRoots are protocol p's corpora: its fixtures, the reference transcripts,
// the spec corpus and the upstream projects' messages (../shared/reference
// beside the checkout, when it is there).
func corpusRoots(p string) []string {
	return []string{"../../fixtures/" + p, "../../fixtures/reference/" + p, "../../testdata/speccorpus/" + p, upstreamRoot + p}
}

// upstreamRoot holds the upstream reference messages of each protocol, beside
// the checkout (absent in a clone on its own: no error).
const upstreamRoot = "../../../shared/reference/upstream/"

// corpusRecord is what the engine and wire tests read of a transcript/1 record
// met in a corpus (decodeRecord): they take its message or text in place of
// the record.
type corpusRecord struct {
	Aopkit   string          `json:"aopkit"`
	Protocol string          `json:"protocol"`
	Stream   string          `json:"stream"`
	Text     *string         `json:"text"`
	Msg      json.RawMessage `json:"msg"`
}

// decodeRecord reports whether b is a transcript/1 record, and decodes it.
func decodeRecord(b []byte) (corpusRecord, bool) {
	var rec corpusRecord
	return rec, json.Unmarshal(b, &rec) == nil && rec.Aopkit != ""
}

// walkCorpus calls add with every candidate message of protocol p's corpora: a
// file that is one JSON value, whole (named by its path), else each of its
// lines (path:N). Goldens and Markdown are skipped; add decides what is a
// message.
func walkCorpus(t testing.TB, p string, add func(where string, b []byte)) {
	t.Helper()
	for _, root := range corpusRoots(p) {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".golden") || strings.HasSuffix(path, ".md") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if json.Valid(data) {
				add(path, data)
				return nil
			}
			for i, line := range bytes.Split(data, []byte("\n")) {
				add(path+":"+strconv.Itoa(i+1), line)
			}
			return nil
		})
		if err != nil && !(os.IsNotExist(err) && strings.HasPrefix(root, upstreamRoot)) {
			t.Fatal(err)
		}
	}
}
