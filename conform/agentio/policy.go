package agentio

// Policy is what the implementation under test may do. The zero value is the
// default policy: reads of system directories and of the implementation's own
// files, writes in its scratch directory, no TCP bind but on ports the harness
// names, signals only within its own tree, default limits.
type Policy struct {
	// AllowRead and AllowWrite widen the allowlists (--allow-read, --allow-write).
	AllowRead  []string
	AllowWrite []string
	// Deny are paths that stay unreadable even inside an allowed directory: the
	// harness's secrets (the signing key).
	Deny []string
	// BindPorts are the TCP ports the implementation may bind (AOPKIT_LISTEN's).
	BindPorts []int
	// ConnectPorts are TCP ports it may connect to besides the harness's own and
	// the defaults (DefaultConnectPorts); ConnectAll lifts the restriction.
	ConnectPorts []int
	ConnectAll   bool
	// Limits bound memory, processes, CPU time and file size.
	Limits Limits
	// ReadAll turns the read allowlist off (--allow-read /).
	ReadAll bool
}

// Limits are resource bounds of one implementation under test. Zero fields take
// the defaults; a negative field means no limit.
type Limits struct {
	Memory   int64 // bytes: the whole tree (cgroup), or each process (RLIMIT_DATA)
	Procs    int   // processes and threads of the tree (cgroup pids)
	CPU      int   // CPU seconds of each process (RLIMIT_CPU)
	FileSize int64 // bytes of one written file (RLIMIT_FSIZE)
}

// DefaultConnectPorts are the TCP ports every implementation may connect to
// besides the harness's: HTTPS (model APIs) and DNS over TCP. Port 80 is not
// among them: it is where cloud metadata services hand out credentials.
var DefaultConnectPorts = []int{53, 443}

// Default resource limits: far above what a correct agent uses, far below what
// sinks a 2-core, 8 GiB CI runner.
const (
	DefaultMemory   = 2 << 30
	DefaultProcs    = 512
	DefaultCPU      = 900
	DefaultFileSize = 1 << 30
)

func (l Limits) withDefaults() Limits {
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	if l.Procs == 0 {
		l.Procs = DefaultProcs
	}
	if l.CPU == 0 {
		l.CPU = DefaultCPU
	}
	if l.FileSize == 0 {
		l.FileSize = DefaultFileSize
	}
	return l
}
