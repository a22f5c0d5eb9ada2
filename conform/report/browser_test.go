package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aopkit/aopkit/conform"
)

// wide is the goldens' report (repeated) with what made the page overflow in a
// real run: long stream labels (a file the agent wrote, deep in a scratch
// directory), long words without a space (digests, paths, base64) in messages,
// event details, the agent command and the transcript directory, and a folded
// message whose one-line summary is long.
func wide() *conform.Report {
	r := repeated()
	long := strings.Repeat("x", 300)
	path := "/tmp/aopconform-run-20261122T100000Z-1234567890/" + strings.Repeat("nested-directory/", 12) + "run_heartbeat.json"
	r.Command = []string{"/home/someone/projects/a-rather-long-agent-project-name/bin/" + strings.Repeat("agent-", 20), "--config=" + path}
	r.OutDir = filepath.Dir(path)
	text := "stderr: " + long
	many := map[string]any{"blob": long}
	for i := 0; i < 20; i++ {
		many[string(rune('a'+i))] = strings.Repeat("y", 40)
	}
	folded, _ := json.Marshal(many)
	s := &r.Scenarios[0]
	s.Transcript = path + ".jsonl"
	s.Records = append(s.Records,
		conform.Record{Seq: 4, From: "agent", Stream: "file:" + path, Msg: json.RawMessage(`{"run_id":"` + long + `","status":"running"}`)},
		conform.Record{Seq: 5, From: "agent", Stream: "stderr", Text: &text},
		conform.Record{Seq: 6, From: "harness", Event: "agent-exit", Detail: conform.Details(conform.KeyError.Is(long))},
		conform.Record{Seq: 7, From: "agent", Msg: folded},
	)
	for i := range r.Results {
		if r.Results[i].Scenario == "s1" && len(r.Results[i].Evidence) > 0 {
			r.Results[i].Evidence = append(r.Results[i].Evidence, 4, 5, 6, 7)
		}
	}
	r.Results[0].Message = "the agent wrote " + long
	return r
}

// overflowProbe is added to the page under test: once laid out, the page writes
// its own width and the elements that stick out on the right into the DOM,
// which --dump-dom prints.
const overflowProbe = `<script>
(function(){
  document.querySelectorAll("details").forEach(function(d){d.open=true;});
  var de=document.documentElement, w=de.clientWidth, out=[];
  document.querySelectorAll("body *").forEach(function(e){
    var r=e.getBoundingClientRect();
    if(r.right>w+1&&out.length<8){out.push(e.tagName.toLowerCase()+(e.className?"."+e.className:"")+" right="+Math.round(r.right));}
  });
  var p=document.createElement("pre");p.id="overflow-probe";
  p.textContent="scrollWidth="+de.scrollWidth+" clientWidth="+w+" over="+out.join(" | ");
  document.body.appendChild(p);
})();
</script>`

// chromium finds headless Chromium (Debian's chromium, or another build).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (Debian: apt-get install chromium; .ci/run installs it): the HTML report's layout is not checked")
	return ""
}

// TestHTMLFitsAt1280 renders a report with long labels and records in headless
// Chromium at 1280 px, every <details> open, and fails when the page scrolls
// sideways: long words wrap and wide tables scroll inside their own box.
func TestHTMLFitsAt1280(t *testing.T) {
	bin := chromium(t)
	var page bytes.Buffer
	if err := HTML(&page, wide()); err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(page.String(), "</body>", overflowProbe+"</body>", 1)
	if doc == page.String() {
		t.Fatal("no </body> in the page")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	// The deadline only stops a browser that hangs; a loaded machine is slow,
	// not wrong.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
		"--disable-dev-shm-usage", "--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1280,900",
		"--dump-dom", "file://"+file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	m := regexp.MustCompile(`scrollWidth=(\d+) clientWidth=(\d+) over=([^<]*)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("the probe wrote nothing (did the script run?):\n%.2000s\n%s", out, stderr.String())
	}
	scroll, _ := strconv.Atoi(m[1])
	client, _ := strconv.Atoi(m[2])
	if client < 1000 {
		t.Fatalf("implausible client width %d at --window-size=1280,900", client)
	}
	if scroll > client {
		t.Errorf("the page overflows at 1280 px: document scrollWidth %s > clientWidth %s; elements past the right edge: %s", m[1], m[2], m[3])
	}
}
