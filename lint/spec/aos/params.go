package aos

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ParamError is the first problem of a request's params: where (a JSON Pointer
// into the request) and what.
type ParamError struct {
	Pointer string
	Problem string
}

func (e *ParamError) Error() string { return e.Pointer + ": " + e.Problem }

// v validates decoded JSON (encoding/json, with or without UseNumber) and keeps
// the first problem.
type v struct{ err *ParamError }

func (c *v) fail(ptr, format string, a ...any) {
	if c.err == nil {
		c.err = &ParamError{Pointer: ptr, Problem: fmt.Sprintf(format, a...)}
	}
}

func (c *v) obj(m map[string]any, ptr, key string, required bool) map[string]any {
	x, ok := m[key]
	if !ok {
		if required {
			c.fail(ptr+"/"+key, "is required")
		}
		return nil
	}
	o, isObj := x.(map[string]any)
	if !isObj {
		c.fail(ptr+"/"+key, "must be an object")
		return nil
	}
	return o
}

func (c *v) str(m map[string]any, ptr, key string, required bool) string {
	x, ok := m[key]
	if !ok {
		if required {
			c.fail(ptr+"/"+key, "is required")
		}
		return ""
	}
	s, isStr := x.(string)
	if !isStr {
		c.fail(ptr+"/"+key, "must be a string")
	}
	return s
}

func (c *v) arr(m map[string]any, ptr, key string, required bool, min int) []any {
	x, ok := m[key]
	if !ok {
		if required {
			c.fail(ptr+"/"+key, "is required")
		}
		return nil
	}
	a, isArr := x.([]any)
	if !isArr {
		c.fail(ptr+"/"+key, "must be an array")
		return nil
	}
	if len(a) < min {
		c.fail(ptr+"/"+key, "must hold at least %d item(s)", min)
	}
	return a
}

func (c *v) timestamp(m map[string]any, ptr, key string) {
	s := c.str(m, ptr, key, true)
	if c.err != nil {
		return
	}
	if why := TimestampProblem(s); why != "" {
		c.fail(ptr+"/"+key, "%q %s; write it like \"2025-01-24T15:30:45.123Z\"", s, why)
	}
}

func (c *v) enum(s, ptr string, allowed ...string) {
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	c.fail(ptr, "%q must be one of %s", s, strings.Join(allowed, ", "))
}

// StepContextProblem checks a StepContext (§3.8) and its Agent (§3.1): nil when
// ctx is valid, else the first problem, its pointer under /params/context.
func StepContextProblem(ctx map[string]any) *ParamError { return problem((*v).stepContext, ctx) }

// problem is the first problem check finds in m, nil when none.
func problem(check func(*v, map[string]any), m map[string]any) *ParamError {
	c := &v{}
	check(c, m)
	return c.err
}

// context checks params.context.
func (c *v) context(p map[string]any) {
	if ctx := c.obj(p, "/params", "context", true); ctx != nil {
		c.stepContext(ctx)
	}
}

func (c *v) stepContext(ctx map[string]any) {
	const ptr = "/params/context"
	if ag := c.obj(ctx, ptr, "agent", true); ag != nil {
		for _, k := range []string{"name", "id", "instructions", "version"} {
			c.str(ag, ptr+"/agent", k, true)
		}
		if pr := c.obj(ag, ptr+"/agent", "provider", true); pr != nil {
			c.str(pr, ptr+"/agent/provider", "name", true)
			c.str(pr, ptr+"/agent/provider", "url", true)
		}
	}
	if s := c.obj(ctx, ptr, "session", true); s != nil {
		c.str(s, ptr+"/session", "id", true)
	}
	c.str(ctx, ptr, "turnId", true)
	c.str(ctx, ptr, "stepId", true)
	c.timestamp(ctx, ptr, "timestamp")
	if u := c.obj(ctx, ptr, "user", false); u != nil {
		c.str(u, ptr+"/user", "id", true)
		if o := c.obj(u, ptr+"/user", "organization", true); o != nil {
			c.str(o, ptr+"/user/organization", "id", true)
		}
	}
}

// parts checks Part[] (§3.4).
func (c *v) parts(m map[string]any, ptr, key string) {
	c.objects(m, ptr, key, 1, "must be a TextPart, FilePart or DataPart object", func(pp string, part map[string]any) {
		kind := c.str(part, pp, "kind", true)
		switch kind {
		case "text":
			c.str(part, pp, "text", true)
		case "file":
			if f := c.obj(part, pp, "file", true); f != nil {
				_, b := f["bytes"]
				_, u := f["uri"]
				if b == u {
					c.fail(pp+"/file", "must hold exactly one of bytes (FileWithBytes) or uri (FileWithUri)")
				}
			}
		case "data":
			switch part["data"].(type) {
			case map[string]any, []any:
			default:
				c.fail(pp+"/data", "is required: an object or an array")
			}
		default:
			if c.err == nil {
				c.fail(pp+"/kind", "%q must be text, file or data", kind)
			}
		}
	})
}

// objects checks m[key], a required array of at least min items, each an
// object (else what, the first that is not ends the walk), and calls each with
// every object and its pointer.
func (c *v) objects(m map[string]any, ptr, key string, min int, what string, each func(pp string, o map[string]any)) {
	for i, x := range c.arr(m, ptr, key, true, min) {
		pp := fmt.Sprintf("%s/%s/%d", ptr, key, i)
		o, ok := x.(map[string]any)
		if !ok {
			c.fail(pp, "%s", what)
			return
		}
		each(pp, o)
	}
}

// ParamsProblem checks params against the method's Request params Object (§4):
// nil when they are valid, else the first problem (the guardian answers it with
// -32602 Invalid params). params is decoded JSON, with or without UseNumber.
func ParamsProblem(method string, p map[string]any) *ParamError {
	c := &v{}
	switch method {
	case MethodPing:
		c.timestamp(p, "/params", "timestamp")
		if t, ok := p["timeout"]; ok && !integer(t) {
			c.fail("/params/timeout", "must be an integer (milliseconds)")
		}
		return c.err
	case MethodA2A, MethodMCP:
		c.obj(p, "/params", "message", true)
		c.str(p, "/params", "reasoning", false)
		return c.err
	}
	c.context(p)
	switch method {
	case MethodAgentTrigger:
		if tr := c.obj(p, "/params", "trigger", true); tr != nil {
			c.enum(c.str(tr, "/params/trigger", "type", true), "/params/trigger/type", "autonomous")
			if ev := c.obj(tr, "/params/trigger", "event", true); ev != nil {
				c.str(ev, "/params/trigger/event", "type", true)
				c.str(ev, "/params/trigger/event", "id", true)
			}
			c.parts(tr, "/params/trigger", "content")
		}
	case MethodKnowledgeRetrieval:
		if ks := c.obj(p, "/params", "knowledgeStep", true); ks != nil {
			c.objects(ks, "/params/knowledgeStep", "results", 0, "must be a KnowledgeRetrievalResult object", func(pp string, r map[string]any) {
				c.str(r, pp, "id", true)
				c.str(r, pp, "content", true)
			})
		}
	case MethodMemoryStore, MethodMemoryContext:
		for i, x := range c.arr(p, "/params", "memory", true, 0) {
			if _, ok := x.(string); !ok {
				c.fail(fmt.Sprintf("/params/memory/%d", i), "must be a string (stringify JSON memory)")
			}
		}
	case MethodMessage:
		c.message(p)
	case MethodToolCallRequest:
		if tc := c.obj(p, "/params", "toolCallRequest", true); tc != nil {
			c.str(tc, "/params/toolCallRequest", "executionId", true)
			c.str(tc, "/params/toolCallRequest", "toolId", true)
			c.objects(tc, "/params/toolCallRequest", "inputs", 0, "must be a ToolArgumentValue object", func(pp string, in map[string]any) {
				c.str(in, pp, "name", true)
				if _, ok := in["value"]; !ok {
					c.fail(pp+"/value", "is required (null is allowed)")
				}
			})
		}
	case MethodToolCallResult:
		if _, nested := p["toolCallResult"]; nested {
			if _, flat := p["executionId"]; !flat {
				c.fail("/params/executionId", "is required; params.toolCallResult{executionId,result} is the upstream schema's nesting, AOS 0.1.0 §4.6 puts executionId and result directly in params")
			}
		}
		c.str(p, "/params", "executionId", true)
		if r := c.obj(p, "/params", "result", true); r != nil {
			for i, x := range c.arr(r, "/params/result", "outputs", true, 0) {
				pp := fmt.Sprintf("/params/result/outputs/%d", i)
				part, ok := x.(map[string]any)
				if !ok || part["kind"] != "text" {
					c.fail(pp, "must be a TextPart {kind: \"text\", text}")
					break
				}
				c.str(part, pp, "text", true)
			}
			if _, ok := r["isError"].(bool); !ok {
				c.fail("/params/result/isError", "is required: a boolean")
			}
		}
	}
	return c.err
}

// MessageProblem checks steps/message params (§4.5.1) without the context: the
// message (id, role, Part content) and citation (Source[]).
func MessageProblem(p map[string]any) *ParamError { return problem((*v).message, p) }

func (c *v) message(p map[string]any) {
	if m := c.obj(p, "/params", "message", true); m != nil {
		c.str(m, "/params/message", "id", true)
		c.enum(c.str(m, "/params/message", "role", true), "/params/message/role", "user", "agent", "system")
		c.parts(m, "/params/message", "content")
	}
	if _, ok := p["citations"]; ok {
		if _, has := p["citation"]; !has {
			c.fail("/params/citation", "is required; \"citations\" is the upstream schema's spelling, AOS 0.1.0 §4.5.1 requires \"citation\"")
		}
	}
	c.objects(p, "/params", "citation", 0, "must be a FileSource or SiteSource object", func(pp string, src map[string]any) {
		switch kind := c.str(src, pp, "kind", true); kind {
		case "file":
			c.str(src, pp, "id", true)
			c.str(src, pp, "name", true)
		case "site":
			c.str(src, pp, "url", true)
		default:
			c.fail(pp+"/kind", "%q must be file or site", kind)
		}
	})
}

// integer reports whether a decoded JSON number is an integer.
func integer(x any) bool {
	switch n := x.(type) {
	case json.Number:
		return !strings.ContainsAny(n.String(), ".eE")
	case float64:
		return IntegerNumber(n)
	}
	return false
}
