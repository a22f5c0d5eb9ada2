//go:build !linux

package mockagent

// waitPID cannot watch a process without pidfds: no watch.
func waitPID(pid int) (<-chan struct{}, bool) { return nil, false }
