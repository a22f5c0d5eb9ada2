// Package aof is the reference dispatcher of AOF/1 (specs/aof-1.md): the
// filesystem-first task store, leases and run artifacts, the heartbeat writer, the
// protocol router, the session_end hook, the scheduler poll with stale-heartbeat
// recovery, and the events log. All time is read from a clock.Clock.
package aof

import "github.com/aopkit/aopkit/lint/aof/taskfile"

// The task file is protocol knowledge the reference agent shares
// (lint/aof/taskfile); the engine names it as its own.
type (
	Task  = taskfile.Task
	Lease = taskfile.Lease
	Form  = taskfile.Form
)

const (
	FormUpstream = taskfile.FormUpstream
	FormMinimal  = taskfile.FormMinimal
	CreatedBy    = taskfile.CreatedBy
)

// ParseTask reads a task file (taskfile.ParseTask).
func ParseTask(data []byte) (*Task, error) { return taskfile.ParseTask(data) }

// ValidTaskID reports whether id is a TaskId (taskfile.ValidTaskID).
func ValidTaskID(id string) bool { return taskfile.ValidTaskID(id) }
