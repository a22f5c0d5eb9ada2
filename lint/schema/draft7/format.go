package draft7

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// gojsonschemaFormats are the formats gojsonschema v1.2.0 checks; any other
// format passes every value.
var gojsonschemaFormats = map[string]bool{"date": true, "time": true, "date-time": true, "hostname": true,
	"email": true, "idn-email": true, "ipv4": true, "ipv6": true, "uri": true, "uri-reference": true, "iri": true,
	"iri-reference": true, "uri-template": true, "uuid": true, "regex": true, "json-pointer": true,
	"relative-json-pointer": true}

// formats are the checkers implemented here, each as gojsonschema's; Compile
// refuses a schema using another of gojsonschemaFormats. Like gojsonschema's,
// they reject every value that is not a string.
var formats = map[string]func(string) bool{
	"date-time":    isDateTime,
	"uri":          isURI,
	"iri":          isURI,
	"uri-template": isURITemplate,
}

func isFormat(format string, v any) bool {
	check, ok := formats[format]
	if !ok {
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
