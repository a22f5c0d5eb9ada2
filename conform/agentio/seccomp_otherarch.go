//go:build linux && !amd64 && !arm64

package agentio

const (
	seccompArch   = 0
	seccompSocket = 0
)
