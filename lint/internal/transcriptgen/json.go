package transcriptgen

import (
	"strconv"
	"unicode/utf8"
)

// O is a JSON object that keeps its members in order, as real producers write them.
type O []F

// F is one member of an O.
type F struct {
	K string
	V any
}

// get returns the value of key, or nil.
func (o O) get(key string) any {
	for _, f := range o {
		if f.K == key {
			return f.V
		}
	}
	return nil
}

// set replaces the value of key, or appends the member.
func (o O) set(key string, v any) O {
	for i := range o {
		if o[i].K == key {
			o[i].V = v
			return o
		}
	}
	return append(o, F{key, v})
}

// del drops key.
func (o O) del(key string) O {
	out := o[:0]
	for _, f := range o {
		if f.K != key {
			out = append(out, f)
		}
	}
	return out
}

// appendJSON appends the compact JSON encoding of v. Values are what the generator
// builds: O, []any, []string, string, int, int64, float64, bool and nil.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case O:
		return appendList(b, '{', v, '}', func(b []byte, f F) []byte {
			b = appendString(b, f.K)
			b = append(b, ':')
			return appendJSON(b, f.V)
		})
	case []any:
		return appendList(b, '[', v, ']', appendJSON)
	case []string:
		return appendList(b, '[', v, ']', appendString)
	case string:
		return appendString(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	case bool:
		return strconv.AppendBool(b, v)
	case rawJSON:
		return append(b, v...)
	}
	panic("transcriptgen: cannot encode value")
}

// appendList appends the items of v between open and close, separated by
// commas, each as appendItem writes it.
func appendList[T any](b []byte, open byte, v []T, close byte, appendItem func([]byte, T) []byte) []byte {
	b = append(b, open)
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendItem(b, x)
	}
	return append(b, close)
}

// rawJSON is inserted verbatim (used to build deliberately broken lines).
type rawJSON string

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, valid UTF-8 kept as it is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b = append(b, s[i:i+size]...)
		i += size
	}
	return append(b, '"')
}
