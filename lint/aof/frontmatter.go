package aof

import "github.com/aopkit/aopkit/lint/aof/taskfile"

// A task file's front matter is read by its one home, lint/aof/taskfile, which
// the reference engine and agent share; the rules name it as their own.
type (
	Frontmatter      = taskfile.Frontmatter
	FrontmatterError = taskfile.FrontmatterError
)

// ParseFrontmatter reads the frontmatter of a task file (taskfile.ParseFrontmatter).
func ParseFrontmatter(data []byte) (*Frontmatter, error) { return taskfile.ParseFrontmatter(data) }
