package aos

import (
	"net/url"
	"testing"
)

// plainAgrees: a URL plainAbsoluteURL judges without parsing is one url.Parse
// takes as absolute, without error.
func plainAgrees(t *testing.T, s string) {
	t.Helper()
	if !plainAbsoluteURL(s) {
		return
	}
	if u, err := url.Parse(s); err != nil || !u.IsAbs() {
		t.Fatalf("plainAbsoluteURL(%q) but url.Parse: %v, %v", s, u, err)
	}
}

var urlSeeds = []string{"https://example.com/file.pdf", "http://a", "https://", "http:///x", "https://ex.com/a?b=c&d=e",
	"https://ex.com/~u/a_b-c.d", "https://ex.com:80/", "https://ex.com/%zz", "ftp://x", "https://[::1]/", "https://u@h/",
	"HTTPS://EX.COM", "https://ex.com/a#b", "https://ex.com/a b"}

// TestPlainAbsoluteURL: what plainAbsoluteURL answers (the seeds run against
// url.Parse as FuzzPlainAbsoluteURL's).
func TestPlainAbsoluteURL(t *testing.T) {
	for s, want := range map[string]bool{"https://example.com/file.pdf": true, "https://ex.com:80/": false, "https://ex.com/%41": false, "/rel": false} {
		if plainAbsoluteURL(s) != want {
			t.Errorf("plainAbsoluteURL(%q) != %v", s, want)
		}
	}
}

func FuzzPlainAbsoluteURL(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	f.Fuzz(plainAgrees)
}
