package certify

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/aopkit/aopkit/lint/jsonread"
)

// strictJSON accepts one JSON value with no member twice in any object, nor two
// members whose names differ only in case (encoding/json reads those as one field,
// the last winning, where another reader may take the first), and nothing after
// the value: what a certificate says must read the same in every parser.
func strictJSON(data []byte) error {
	root, problems, err := jsonread.Parse(data)
	if err != nil {
		return err
	}
	if len(problems) > 0 { // the first says enough
		p := problems[0]
		where := p.Pointer
		if where == "" {
			where = "/"
		}
		return fmt.Errorf("%s at %s", p.Message, where)
	}
	return caseDuplicates(root, "")
}

// caseDuplicates finds two members of an object whose names differ only in case.
func caseDuplicates(n *jsonread.Node, ptr string) error {
	switch n.Kind {
	case jsonread.Object:
		seen := make(map[string]string, len(n.Members))
		for _, m := range n.Members {
			k := foldKey(m.Key)
			if prev, ok := seen[k]; ok {
				return fmt.Errorf("members %q and %q at %s differ only in case: parsers disagree on which one is read; keep one", prev, m.Key, orRoot(ptr))
			}
			seen[k] = m.Key
			if err := caseDuplicates(m.Value, ptr+"/"+jsonread.EscapeToken(m.Key)); err != nil {
				return err
			}
		}
	case jsonread.Array:
		for i, it := range n.Items {
			if err := caseDuplicates(it, fmt.Sprintf("%s/%d", ptr, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// foldKey maps every name encoding/json takes for the same field (bytes.EqualFold:
// simple Unicode case folding, "ſ" and "S" and "s" alike) to one string: each
// rune becomes the least of its folding orbit.
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}
