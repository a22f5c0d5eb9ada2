package draft7

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// checkedByGojsonschema reports whether gojsonschema v1.2.0 checks a format; it
// passes every value of any other. (Switches rather than maps: nothing to build
// at start-up in a command that may never validate here.)
func checkedByGojsonschema(format string) bool {
	switch format {
	case "date", "time", "date-time", "hostname", "email", "idn-email", "ipv4", "ipv6", "uri", "uri-reference", "iri",
		"iri-reference", "uri-template", "uuid", "regex", "json-pointer", "relative-json-pointer":
		return true
	}
	return false
}

// formatChecker returns the checker of a format implemented here (nil: none),
// each as gojsonschema's; Compile refuses a schema using another format
// gojsonschema checks. Like gojsonschema's, they reject every value that is not
// a string.
func formatChecker(format string) func(string) bool {
	switch format {
	case "date-time":
		return isDateTime
	case "uri", "iri":
		return isURI
	case "uri-template":
		return isURITemplate
	}
	return nil
}

func isFormat(format string, v any) bool {
	check := formatChecker(format)
	if check == nil {
		return true // Compile let only formats gojsonschema does not check through
	}
	s, ok := v.(string)
	return ok && check(s)
}

func isDateTime(s string) bool {
	for _, layout := range []string{"15:04:05", "15:04:05Z07:00", "2006-01-02", time.RFC3339, time.RFC3339Nano} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

func isURI(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return false
	}
	return !strings.Contains(s, `\`)
}

var uriTemplate = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^([^{]*({[^}]*})?)*$") })

func isURITemplate(s string) bool {
	u, err := url.Parse(s)
	if err != nil || strings.Contains(s, `\`) {
		return false
	}
	return uriTemplate().MatchString(u.Path)
}
