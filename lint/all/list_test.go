package all

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aopkit/aopkit/lint"
)

// TestListIsTheRegistry: the protocols registered are the list, in its order,
// and every rule belongs to a listed protocol (or to all).
func TestListIsTheRegistry(t *testing.T) {
	if !slices.Equal(lint.ListedProtocols(), Protocols) {
		t.Errorf("registered %v, listed %v", lint.ListedProtocolIDs(), ids(Protocols))
	}
	for _, r := range lint.Rules() {
		if r.Protocol != "" && lint.LookupProtocol(r.Protocol) == nil {
			t.Errorf("rule %s belongs to %q, which is not listed", r.ID, r.Protocol)
		}
	}
	for _, p := range Protocols {
		if p.ID == "" || p.Name == "" || p.Spec == "" || p.SpecFile == "" || len(p.Kinds) == 0 || p.Detect == nil || len(p.Markers) == 0 || len(p.Extensions) == 0 {
			t.Errorf("%q: the descriptor lacks an ID, name, spec, kinds, detector, markers or extension containers", p.ID)
		}
	}
}

func ids(ps []*lint.Protocol) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocsNameTheList: the places outside Go that name the protocols (the
// Action, the pre-commit hook, the configuration schema, the docs' tables)
// name the listed ones: adding a protocol to the list fails here until they do.
func TestDocsNameTheList(t *testing.T) {
	listed := ids(Protocols)
	prose := strings.Join(listed, ", ") // "aop2, aos, aop-output, aof, orchmsg"
	for _, f := range []string{"action.yml", ".pre-commit-hooks.yaml"} {
		if !strings.Contains(read(t, f), "protocol messages ("+prose+")") {
			t.Errorf("%s: its description does not name the protocols as (%s)", f, prose)
		}
	}

	var schema struct {
		Properties struct {
			Overrides struct {
				Items struct {
					Properties struct {
						Protocol struct {
							Enum []string `json:"enum"`
						} `json:"protocol"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"overrides"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(read(t, "schemas/aoplint/config.schema.json")), &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties.Overrides.Items.Properties.Protocol.Enum; !slices.Equal(got, lint.ProtocolIDs()) {
		t.Errorf("schemas/aoplint/config.schema.json: overrides' protocol enum %v, want %v", got, lint.ProtocolIDs())
	}

	// Tables whose rows start with a protocol ID: one row per protocol, in the
	// list's order.
	row := regexp.MustCompile("(?m)^\\| `?([a-z0-9-]+)`? \\|(.*)$")
	for _, tc := range []struct{ file, after string }{
		{"README.md", "## The five protocols"},
		{"docs/specs.md", "| id | title |"},
		{"docs/configuration.md", "| protocol | extension object |"},
	} {
		doc := read(t, tc.file)
		i := strings.Index(doc, tc.after)
		if i < 0 {
			t.Errorf("%s: no %q", tc.file, tc.after)
			continue
		}
		table, _, _ := strings.Cut(doc[i:], "\n\n\n")
		if j := strings.Index(table, "|---"); j >= 0 {
			table = table[j:]
		}
		table, _, _ = strings.Cut(table, "\n\n")
		var got []string
		for _, m := range row.FindAllStringSubmatch(table, -1) {
			got = append(got, m[1])
			// The specs' table names each spec's file and version.
			if p := lint.LookupProtocol(m[1]); p != nil && tc.file == "docs/specs.md" {
				cells := strings.Split(m[2], "|")
				version := p.Version
				if version == "" {
					version = "unversioned"
				}
				if len(cells) < 4 || !strings.Contains(cells[1], version) || strings.TrimSpace(cells[2]) != "`"+p.SpecFile+"`" {
					t.Errorf("%s: the row of %s does not give its version %q and file %q: %q", tc.file, p.ID, version, p.SpecFile, m[2])
				}
			}
			// The extension containers' table names each container.
			if p := lint.LookupProtocol(m[1]); p != nil && tc.file == "docs/configuration.md" {
				for _, c := range p.Extensions {
					if !strings.Contains(m[2], "`"+c+"`") {
						t.Errorf("%s: the row of %s does not name its container %q", tc.file, p.ID, c)
					}
				}
			}
		}
		if !slices.Equal(got, listed) {
			t.Errorf("%s: the table after %q has rows %v, want %v", tc.file, tc.after, got, listed)
		}
	}

	// The transcript format's protocol hint.
	if !strings.Contains(read(t, "docs/transcript-format.md"), "| `protocol` | no | `"+strings.Join(listed, "`, `")+"`:") {
		t.Errorf("docs/transcript-format.md: the protocol member's row does not name %s", prose)
	}
}
