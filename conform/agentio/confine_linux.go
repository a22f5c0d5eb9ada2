package agentio

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/aopkit/aopkit/internal/safefile"
)

// The agent is not started by the supervisor directly but through a confiner: the
// harness binary started a third time with confineEnv set (see Main). The confiner
// joins the agent's control groups, lowers its resource limits, drops every
// capability when it runs as root, restricts itself with Landlock (reads, writes,
// TCP binds, signals and abstract sockets) and then execs the agent. The
// supervisor thus stays outside the agent's Landlock domain: the agent can signal
// neither it nor the harness, and cannot read their /proc files (both are made
// non-dumpable, and the agent keeps no CAP_SYS_PTRACE).
//
// The confiner reports on fd 3 (close-on-exec, so a successful exec closes it):
//
//	enforced WHAT          one line per measure that took effect
//	missing WHAT: WHY      one line per measure this machine could not enforce
//	error MSG              the agent could not be started
//
// and nothing else.

const confineEnv = "AOPKIT_AGENTIO_CONFINE"

// confineConfig is what the supervisor tells the confiner (JSON in confineEnv).
type confineConfig struct {
	Scratch   string   `json:"scratch"`
	Read      []string `json:"read"`  // allowed read-only (directories or files)
	Write     []string `json:"write"` // allowed read-write besides scratch
	Deny      []string `json:"deny"`
	ReadAll   bool     `json:"read_all"`
	BindPorts []int    `json:"bind_ports"`
	// ConnectPorts are the TCP ports connect(2) may reach; nil with ConnectAll.
	ConnectPorts []int    `json:"connect_ports"`
	ConnectAll   bool     `json:"connect_all"`
	Limits       Limits   `json:"limits"`
	Cgroups      []string `json:"cgroups"` // cgroup.procs files to join
	Path         string   `json:"path"`    // the agent's program, resolved
}

// confineMain is the confiner's whole life: it never returns.
func confineMain(raw string, args []string) {
	status := os.NewFile(3, "status")
	say := func(format string, a ...any) {
		if status != nil {
			fmt.Fprintf(status, format+"\n", a...)
		}
	}
	var cfg confineConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil || len(args) == 0 || cfg.Path == "" {
		say("error confiner: bad configuration")
		os.Exit(125)
	}
	syscall.CloseOnExec(3)
	// Capabilities are per thread: drop them on the thread that execs.
	runtime.LockOSThread()
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, confineEnv+"=") {
			env = append(env, kv)
		}
	}
	for _, line := range confineSelf(cfg) {
		say("%s", line)
	}
	// Nothing allocates from here to the exec: the limits are in force.
	say("ready")
	err := syscall.Exec(cfg.Path, args, env)
	say("error start %q: %v", args[0], err)
	os.Exit(126)
}

// confineSelf applies every measure to this process and says, a line each, what
// took effect ("enforced ...") and what could not ("missing ...: why").
func confineSelf(cfg confineConfig) (out []string) {
	enforced := func(s string) { out = append(out, "enforced "+s) }
	missing := func(s string, err error) { out = append(out, "missing "+s+": "+err.Error()) }

	// The control groups' files are opened now, while Landlock allows it, and
	// joined last: the confiner's own memory is not the agent's to count.
	var joins []*os.File
	for _, procs := range cfg.Cgroups {
		f, err := os.OpenFile(procs, os.O_WRONLY, 0)
		if err != nil {
			missing("cgroup "+filepath.Dir(procs), err)
			continue
		}
		joins = append(joins, f)
	}
	defer func() {
		for _, f := range joins {
			if _, err := f.WriteString(strconv.Itoa(os.Getpid())); err != nil {
				missing("cgroup "+filepath.Dir(f.Name()), err)
			}
			f.Close()
		}
		// Limits last, just before the exec: lowered earlier, the confiner
		// itself (a Go program) could run into them.
		lim := cfg.Limits
		setrl := func(name string, res int, v int64, what string) {
			if v <= 0 {
				return
			}
			var cur unix.Rlimit
			_ = unix.Getrlimit(res, &cur)
			if cur.Max != unix.RLIM_INFINITY && cur.Max < uint64(v) {
				v = int64(cur.Max)
			}
			if err := unix.Setrlimit(res, &unix.Rlimit{Cur: uint64(v), Max: uint64(v)}); err != nil {
				missing(name, err)
				return
			}
			enforced(what)
		}
		setrl("memory rlimit", unix.RLIMIT_DATA, lim.Memory, "memory "+safefile.SizeText(lim.Memory)+" per process (RLIMIT_DATA)")
		setrl("CPU rlimit", unix.RLIMIT_CPU, int64(lim.CPU), strconv.Itoa(lim.CPU)+" CPU seconds per process (RLIMIT_CPU)")
		setrl("file size rlimit", unix.RLIMIT_FSIZE, lim.FileSize, "files up to "+safefile.SizeText(lim.FileSize)+" (RLIMIT_FSIZE)")
		_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	}()

	if os.Geteuid() == 0 {
		if err := dropCapabilities(); err != nil {
			missing("dropping root's capabilities", err)
		} else {
			enforced("no capabilities (runs as root with an empty capability set)")
		}
	}

	abi, err := landlockABI()
	if err != nil || abi < 1 {
		out = append(out, "missing Landlock: not available on this kernel (reads, writes, binds and signals are not confined; writes outside scratch are only looked for)")
		return out
	}
	rules, notes := landlockRules(cfg)
	out = append(out, notes...)
	net := landlock.AccessNetSet(ll.AccessNetBindTCP)
	if !cfg.ConnectAll {
		net |= landlock.AccessNetSet(ll.AccessNetConnectTCP)
	}
	c := landlock.Config{
		HandledAccessFS:  landlock.V6.HandledAccessFS,
		HandledAccessNet: net,
		Scoped:           landlock.V6.Scoped,
	}
	for _, p := range cfg.BindPorts {
		if p > 0 && p < 65536 {
			rules = append(rules, landlock.BindTCP(uint16(p)))
		}
	}
	for _, p := range cfg.ConnectPorts {
		if p > 0 && p < 65536 {
			rules = append(rules, landlock.ConnectTCP(uint16(p)))
		}
	}
	if err := c.BestEffort().Restrict(rules...); err != nil {
		out = append(out, "missing Landlock: "+err.Error())
		return out
	}
	out = append(out, "enforced landlock-abi-"+strconv.Itoa(abi))
	if cfg.ReadAll {
		out = append(out, "missing read allowlist: turned off (--allow-read /)")
	} else {
		enforced("reads only of system directories, the implementation's own files and --allow-read paths")
	}
	enforced("writes only in the scratch directory and --allow-write paths")
	if abi >= 4 {
		if err := refuseMPTCP(); err != nil {
			out = append(out, "missing refusal of Multipath TCP sockets (they bind past Landlock's TCP rules): "+err.Error())
		}
		if len(cfg.BindPorts) > 0 {
			ps := make([]string, len(cfg.BindPorts))
			for i, p := range cfg.BindPorts {
				ps[i] = strconv.Itoa(p)
			}
			enforced("TCP bind only on port " + strings.Join(ps, ", "))
		} else {
			enforced("no TCP bind")
		}
		if cfg.ConnectAll {
			out = append(out, "missing TCP connect rules: turned off (--allow-connect all)")
		} else {
			ps := make([]string, len(cfg.ConnectPorts))
			for i, p := range cfg.ConnectPorts {
				ps[i] = strconv.Itoa(p)
			}
			enforced("TCP connect only to port " + strings.Join(ps, ", "))
		}
	} else {
		out = append(out, "missing TCP bind and connect rules: Landlock ABI 4 needed, kernel has "+strconv.Itoa(abi))
	}
	if abi >= 6 {
		enforced("signals and abstract unix sockets only within its own processes")
	} else {
		out = append(out, "missing signal and abstract socket scoping: Landlock ABI 6 needed, kernel has "+strconv.Itoa(abi))
	}
	return out
}

// dropCapabilities empties the bounding and ambient sets of this thread, so that
// the program it execs runs without any capability even as root.
func dropCapabilities() error {
	last := 40
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = n
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return err
		}
	}
	// The inheritable set must not carry anything across exec either.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// landlockRules are the filesystem rules: read-only the allowlist (minus Deny),
// read-write scratch, the device files every program writes, and AllowWrite.
func landlockRules(cfg confineConfig) (rules []landlock.Rule, notes []string) {
	deny := cfg.Deny // absolute, links resolved, by the harness
	read := cfg.Read
	if cfg.ReadAll {
		read = []string{"/"}
	}
	for _, p := range read {
		rules = append(rules, readRules(p, deny, 0)...)
	}
	if cfg.Scratch != "" {
		rules = append(rules, landlock.RWDirs(cfg.Scratch).WithRefer())
	}
	rules = append(rules, landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty").IgnoreIfMissing())
	for _, p := range cfg.Write {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			rules = append(rules, landlock.RWDirs(p).WithRefer())
		} else if err == nil {
			rules = append(rules, landlock.RWFiles(p))
		} else {
			notes = append(notes, "missing --allow-write "+p+": "+err.Error())
		}
	}
	return rules, notes
}

// readRules allows reading p, except the denied paths inside it: a directory
// holding a denied path is allowed entry by entry (entries made later are not
// readable), down to depth 8.
func readRules(p string, deny []string, depth int) []landlock.Rule {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil
	}
	var inside []string
	for _, d := range deny {
		if d == real || strings.HasPrefix(real, d+"/") {
			return nil // p is, or lies in, a denied path
		}
		if strings.HasPrefix(d, strings.TrimSuffix(real, "/")+"/") {
			inside = append(inside, d)
		}
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil
	}
	if !st.IsDir() {
		return []landlock.Rule{landlock.ROFiles(real)}
	}
	if len(inside) == 0 {
		return []landlock.Rule{landlock.RODirs(real)}
	}
	if depth >= 8 {
		return nil
	}
	ents, err := os.ReadDir(real)
	if err != nil {
		return nil
	}
	var out []landlock.Rule
	for _, e := range ents {
		out = append(out, readRules(filepath.Join(real, e.Name()), deny, depth+1)...)
	}
	return out
}

func resolveAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		out = append(out, filepath.Clean(abs))
		if r, err := filepath.EvalSymlinks(abs); err == nil && r != abs {
			out = append(out, r)
		}
	}
	return out
}

// systemReadDirs are readable by every implementation: programs, libraries,
// configuration, the kernel's views. /etc is read without its secrets
// (systemDeny).
var systemReadDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc",
	"/proc", "/sys", "/dev", "/nix", "/snap", "/run/systemd/resolve", "/run/resolvconf",
	"/var/lib/dpkg/alternatives",
}

// systemDeny are files of the machine that hold secrets, unreadable whatever the
// allowlist says.
var systemDeny = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
	"/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd",
	"/etc/krb5.keytab", "/etc/wireguard", "/etc/NetworkManager/system-connections",
	"/etc/letsencrypt", "/etc/docker/key.json", "/etc/machine-id",
}

// homeDeny are the credentials kept in a home directory, unreadable even when the
// home directory (or a directory above it) is allowed.
var homeDeny = []string{
	".ssh", ".aws", ".azure", ".gnupg", ".kube", ".docker", ".netrc", ".git-credentials",
	".npmrc", ".pypirc", ".terraformrc", ".terraform.d", ".config/gcloud", ".config/gh",
	".config/hub", ".cargo/credentials", ".cargo/credentials.toml", ".bash_history",
	".zsh_history", ".python_history", ".node_repl_history", ".psql_history",
	".mysql_history", ".lesshst", ".viminfo", ".local/share/keyrings",
}

// readAllowlist is the default read allowlist of a launch: the system
// directories, the program and its installation prefix, the directories of the
// path-like arguments and the project each lies in, the harness's working directory, every PATH directory with
// its prefix, and the absolute paths the harness hands over in its AOPKIT_
// variables.
func readAllowlist(args, env []string, path string) []string {
	set := map[string]bool{}
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		set[filepath.Clean(p)] = true
	}
	for _, d := range systemReadDirs {
		add(d)
	}
	home, _ := os.UserHomeDir()
	prefix := func(dir string) {
		add(dir)
		switch filepath.Base(dir) {
		case "bin", "sbin", "shims":
			if up := filepath.Dir(dir); up != "/" && up != home {
				add(up)
			}
		}
	}
	if path != "" {
		prefix(filepath.Dir(path))
		if r, err := filepath.EvalSymlinks(path); err == nil {
			prefix(filepath.Dir(r))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		add(wd)
	}
	pathArg := func(a string) {
		if a == "" || strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			return
		}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return
		}
		st, err := os.Stat(abs)
		if err != nil {
			return
		}
		if st.IsDir() {
			add(abs)
			add(projectRoot(abs, home))
		} else {
			prefix(filepath.Dir(abs))
			add(projectRoot(filepath.Dir(abs), home))
			if r, err := filepath.EvalSymlinks(abs); err == nil {
				prefix(filepath.Dir(r))
				add(projectRoot(filepath.Dir(r), home))
			}
		}
	}
	for _, a := range args {
		pathArg(a)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PATH" {
			for _, d := range filepath.SplitList(v) {
				if filepath.IsAbs(d) {
					prefix(d)
				}
			}
			continue
		}
		// The harness's own variables name what it hands over (the mockagent
		// an orchestrator launches, a task file); other variables are the
		// user's and widen nothing.
		if !strings.HasPrefix(k, "AOPKIT_") {
			continue
		}
		for _, f := range strings.Fields(v) {
			if filepath.IsAbs(f) {
				pathArg(f)
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// projectMarkers are files that mark the root of a project: a script's imports,
// node_modules and virtual environments live under it.
var projectMarkers = []string{".git", "go.mod", "package.json", "node_modules", "pyproject.toml", "setup.py",
	"setup.cfg", "requirements.txt", "Pipfile", "Cargo.toml", "pom.xml", "build.gradle", "Gemfile",
	"composer.json", "deno.json", "Makefile"}

// projectRoot is the nearest directory at or above dir (at most 6 levels up, never
// / nor the home directory) that holds a project marker; "" when none does.
func projectRoot(dir, home string) string {
	d := dir
	for i := 0; i < 7; i++ {
		if d == "/" || d == home || d == "." {
			return ""
		}
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		d = filepath.Dir(d)
	}
	return ""
}

// defaultDeny is systemDeny, the credentials of the harness's home directory and
// of the agent's, and the policy's own Deny.
func defaultDeny(p Policy) []string {
	out := append([]string(nil), systemDeny...)
	homes := []string{}
	if h, err := os.UserHomeDir(); err == nil {
		homes = append(homes, h)
	}
	if h := os.Getenv("HOME"); h != "" {
		homes = append(homes, h)
	}
	homes = append(homes, "/root")
	for _, h := range homes {
		for _, d := range homeDeny {
			out = append(out, filepath.Join(h, d))
		}
	}
	return append(out, p.Deny...)
}

// lookPath resolves the agent's program as the agent's own PATH would, from dir.
func lookPath(prog string, env []string, dir string) (string, error) {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, prog)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: prog, Err: exec.ErrNotFound}
}
