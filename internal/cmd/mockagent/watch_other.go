//go:build !linux

package mockagentcmd

// waitPID cannot watch a process without pidfds: no watch.
func waitPID(pid int) (<-chan struct{}, bool) { return nil, false }
