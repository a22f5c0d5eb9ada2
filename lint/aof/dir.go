package aof

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aopkit/aopkit/internal/safefile"
	"github.com/aopkit/aopkit/lint"
	"github.com/aopkit/aopkit/lint/jsonread"
)

var (
	// DirTaskFile: a task file has well-formed frontmatter naming its task.
	DirTaskFile = ruleDocs.Rule(lint.Rule{ID: "AOF-DIR-001", Protocol: "aof", Kinds: []string{"task"}, Severity: lint.Error, Run: func(*lint.Pass) {}})
	// DirStatus: the status directory agrees with the frontmatter.
	DirStatus = ruleDocs.Rule(lint.Rule{ID: "AOF-DIR-002", Protocol: "aof", Kinds: []string{"task"}, Severity: lint.Error, Run: func(*lint.Pass) {}})
	// DirRuns: run directories are named by their task.
	DirRuns = ruleDocs.Rule(lint.Rule{
		ID: "AOF-DIR-003", Protocol: "aof", Kinds: []string{KindRun, KindHeartbeat, KindRunResult}, Severity: lint.Error,
		Run: checkRunDir,
	})
	// DirHandoff: handoff inputs agree with their task.
	DirHandoff = ruleDocs.Rule(lint.Rule{
		ID: "AOF-DIR-004", Protocol: "aof", Kinds: []string{KindHandoffInput, KindHandoffMD}, Severity: lint.Error,
		Run: checkHandoffFile,
	})
	// DirEvents: the events log is JSON lines of events.
	DirEvents = ruleDocs.Rule(lint.Rule{ID: "AOF-DIR-005", Protocol: "aof", Kinds: []string{"events"}, Severity: lint.Error, Run: func(*lint.Pass) {}})
)

var dirRules = []*lint.Rule{DirTaskFile, DirStatus, DirRuns, DirHandoff, DirEvents}

var allStatuses = append(append([]string(nil), taskStatuses...), upstreamStatuses...)

func isAnyStatus(s string) bool { return isTaskStatus(s) || isUpstreamStatus(s) }

// readDirN lists at most n entries of dir, sorted (nil on error, or when dir is
// no directory: a FIFO named like one is not opened, so never waited on).
func readDirN(dir string, n int) []os.DirEntry {
	if !isDir(dir) {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	es, _ := f.ReadDir(n)
	sort.Slice(es, func(i, j int) bool { return es[i].Name() < es[j].Name() })
	return es
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// IsDataDir recognises an AOF data directory: tasks/<status>/, or runs/<taskId>/
// (or upstream's state/runs/<taskId>/) holding run artifacts.
func IsDataDir(dir string) bool {
	if isDir(filepath.Join(dir, "tasks")) {
		for _, s := range allStatuses {
			if isDir(filepath.Join(dir, "tasks", s)) {
				return true
			}
		}
	}
	for _, runs := range []string{filepath.Join(dir, "runs"), filepath.Join(dir, "state", "runs")} {
		for _, e := range readDirN(runs, 64) {
			if !e.IsDir() {
				continue
			}
			for _, f := range []string{"run.json", "run_heartbeat.json", "run_result.json"} {
				if _, err := os.Stat(filepath.Join(runs, e.Name(), f)); err == nil {
					return true
				}
			}
		}
	}
	return false
}

// task is what the directory linter knows of one task file.
type task struct {
	id, dir, status, path string
	depth                 int64
	hasDepth              bool
	depthLine, statusLine int
}

type dirLint struct {
	root    string
	lint    lint.FileLinter // the driver's
	results map[string]*lint.FileReport
	tasks   map[string][]*task // by id (more than one: in two status directories)
	seen    map[string]bool    // real paths of the files and directories listed
	// statusDirs are the directories of tasks/ and their entries, as listed once.
	statusDirs []statusDir
}

type statusDir struct {
	name    string
	entries []entry
}

func (d *dirLint) result(path, kind string) *lint.FileReport {
	r, ok := d.results[path]
	if !ok {
		r = &lint.FileReport{Path: path, Protocol: "aof", Kind: kind, Messages: 1, Diagnostics: []lint.Diagnostic{}}
		d.results[path] = r
	}
	return r
}

func (d *dirLint) add(path string, ds ...lint.Diagnostic) {
	r := d.result(path, "")
	for _, x := range ds {
		x.Path = path
		r.Diagnostics = append(r.Diagnostics, x)
	}
}

// report adds a diagnostic at a line of a file that is no JSON message.
func (d *dirLint) report(rule *lint.Rule, sev lint.Severity, path string, line int, related []lint.Related, format string, args ...any) {
	if line < 1 {
		line = 1
	}
	d.add(path, lint.Diagnostic{Rule: rule.ID, Severity: sev, Spec: rule.Spec, Line: line, Column: 1, Message: fmt.Sprintf(format, args...), Related: related})
}

// LintDataDir lints every file of an AOF data directory through lintFile (the
// driver's), then the rules across files: the protocol's LintDir.
func LintDataDir(dir string, lintFile lint.FileLinter) ([]lint.FileReport, error) {
	if !isDir(dir) {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	d := &dirLint{root: dir, lint: lintFile, results: map[string]*lint.FileReport{}, tasks: map[string][]*task{}, seen: map[string]bool{}}
	d.lintTasks()
	d.lintRuns(filepath.Join(dir, "runs"), false)
	d.lintRuns(filepath.Join(dir, "state", "runs"), true)
	d.lintHandoffs()
	d.lintEvents()
	out := make([]lint.FileReport, 0, len(d.results))
	for _, r := range d.results {
		lint.SortDiagnostics(r.Diagnostics)
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

const maxTaskFile = 4 << 20

// readBounded reads a regular file of at most max bytes (a FIFO or a device is
// refused, never waited on: safefile).
func readBounded(path string, max int64) ([]byte, error) {
	return safefile.ReadFile(path, max)
}

// entry is a directory entry of the data directory, symbolic links resolved.
type entry struct {
	name, path string
	dir        bool // a directory (or a link to one)
	regular    bool // a regular file (or a link to one)
}

// inside reports whether path, its symbolic links resolved, lies inside the data
// directory; a path that leaves it is reported under rule.
func (d *dirLint) inside(path string, rule *lint.Rule) bool {
	err := safefile.Inside(d.root, path)
	if err == nil {
		return true
	}
	var se *safefile.Error
	if errors.As(err, &se) {
		err = se.Err
	}
	d.report(rule, lint.Error, path, 1, nil, "%s leads outside the data directory %s through a symbolic link: not followed, so nothing in it is linted (%v); move it into the data directory, or lint it on its own", filepath.Base(path), d.root, err)
	return false
}

// list returns the entries of dir, in a data directory, sorted by name. A
// symbolic link counts as its target when that lies inside the data directory;
// one that leads outside is reported under rule (its files are not read: an error,
// never a silent skip), as is a link to nothing. A file or directory reached a
// second time (a link beside its target, as AOF's events/events.jsonl beside the
// dated log) is left out the second time; the name that is no link is the one
// kept.
func (d *dirLint) list(dir string, rule *lint.Rule) []entry {
	if !d.inside(dir, rule) {
		return nil
	}
	es := readDirN(dir, -1)
	var out, links []entry
	for _, e := range es {
		en := entry{name: e.Name(), path: filepath.Join(dir, e.Name()), dir: e.IsDir(), regular: e.Type().IsRegular()}
		if e.Type()&os.ModeSymlink == 0 {
			out = append(out, en)
			continue
		}
		if !d.inside(en.path, rule) {
			continue
		}
		st, err := os.Stat(en.path)
		if err != nil {
			d.report(rule, lint.Error, en.path, 1, nil, "%s is a symbolic link to nothing: %v", en.name, err)
			continue
		}
		en.dir, en.regular = st.IsDir(), st.Mode().IsRegular()
		links = append(links, en)
	}
	out = append(out, links...) // after the names that are no links: those are kept
	kept := out[:0]
	for _, en := range out {
		if real, err := filepath.EvalSymlinks(en.path); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				if d.seen[abs] {
					continue
				}
				d.seen[abs] = true
			}
		}
		kept = append(kept, en)
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].name < kept[j].name })
	return kept
}

func (d *dirLint) lintTasks() {
	tasksDir := filepath.Join(d.root, "tasks")
	for _, sd := range d.list(tasksDir, DirTaskFile) {
		if !sd.dir {
			continue
		}
		sdir := sd.path
		entries := d.list(sdir, DirTaskFile)
		d.statusDirs = append(d.statusDirs, statusDir{sd.name, entries})
		if !isAnyStatus(sd.name) {
			for _, e := range entries {
				if strings.HasSuffix(e.name, ".md") {
					d.report(DirStatus, lint.Error, e.path, 1, nil,
						"tasks/%s/ is not a status directory: task statuses are %s", sd.name, quoteList(allStatuses))
				}
			}
		}
		for _, e := range entries {
			if e.dir || !strings.HasSuffix(e.name, ".md") {
				continue
			}
			d.lintTaskFile(e.path, sd.name)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(d.tasks)) {
		ts := d.tasks[id]
		for _, t := range ts[1:] {
			d.report(DirStatus, lint.Error, t.path, 1, []lint.Related{{Path: ts[0].path, Line: 1, Column: 1, Message: "the same task in tasks/" + ts[0].dir + "/"}},
				"task %s is in two status directories, tasks/%s/ and tasks/%s/: a task has one status and one file", id, ts[0].dir, t.dir)
		}
	}
}

func (d *dirLint) lintTaskFile(path, statusDir string) {
	d.result(path, "task")
	data, err := readBounded(path, maxTaskFile)
	if err != nil {
		d.report(DirTaskFile, lint.Error, path, 1, nil, "cannot read the task file: %v", err)
		return
	}
	fm, err := ParseFrontmatter(data)
	if err != nil {
		line := 1
		if fe, ok := err.(*FrontmatterError); ok {
			line = fe.Line
			err = fmt.Errorf("%s", fe.Msg)
		}
		d.report(DirTaskFile, lint.Error, path, line, nil, "the task file's frontmatter cannot be read: %v", err)
		return
	}
	fileID := strings.TrimSuffix(filepath.Base(path), ".md")
	t := &task{dir: statusDir, path: path}
	idLine := fm.Lines["id"]
	switch id := fm.Values["id"].(type) {
	case nil:
		d.report(DirTaskFile, lint.Error, path, 1, nil, "the frontmatter has no \"id\": write id: %s (the task's TaskId, as in its file name)", suggestTaskID(fileID))
	case string:
		t.id = id
		if p := taskIDProblem(id); p != "" {
			d.report(DirTaskFile, lint.Error, path, idLine, nil, "id %s", p)
		} else if id != fileID {
			d.report(DirTaskFile, lint.Error, path, idLine, nil, "the file %s.md holds task id %s: a task's file is named <taskId>.md, so the store finds it by its id", fileID, id)
		}
	default:
		d.report(DirTaskFile, lint.Error, path, idLine, nil, "id is %v, not a string TaskId such as %q", id, suggestTaskID(fileID))
	}
	if t.id == "" {
		t.id = fileID
	}
	t.statusLine = fm.Lines["status"]
	switch st := fm.Values["status"].(type) {
	case nil:
		d.report(DirTaskFile, lint.Error, path, 1, nil, "the frontmatter has no \"status\": write status: %s (the task is in tasks/%s/)", statusDir, statusDir)
	case string:
		t.status = st
		switch {
		case !isAnyStatus(st):
			d.report(DirStatus, lint.Error, path, t.statusLine, nil, "status %q is not a task status: use one of %s", st, quoteList(allStatuses))
		case st != statusDir && isAnyStatus(statusDir):
			d.report(DirStatus, lint.Error, path, t.statusLine, nil, "task %s is in tasks/%s/ but its frontmatter says status %s: the store moves the file to tasks/<status>/ on every transition; "+
				"move it to tasks/%s/ or set status: %s", t.id, statusDir, st, st, statusDir)
		}
	default:
		d.report(DirTaskFile, lint.Error, path, t.statusLine, nil, "status is %v, not a status name", st)
	}
	if meta, ok := fm.Values["metadata"].(map[string]any); ok {
		t.depthLine = fm.Lines["metadata.delegationDepth"]
		switch v := meta["delegationDepth"].(type) {
		case nil:
		case int64:
			t.depth, t.hasDepth = v, true
			if v > 1 {
				d.report(SeqDelegation, lint.Error, path, t.depthLine, nil, "task %s has metadata.delegationDepth %d: delegation depth is at most 1 (a delegated child may not delegate again; the router rejects such handoffs with nested_delegation)", t.id, v)
			} else if v < 0 {
				d.report(DirTaskFile, lint.Error, path, t.depthLine, nil, "metadata.delegationDepth %d is negative: it is 0 for a top-level task and 1 for a delegated child", v)
			}
		default:
			d.report(DirTaskFile, lint.Error, path, t.depthLine, nil, "metadata.delegationDepth is %v, not a number: the router reads a non-number as depth 0, so nesting goes unguarded", v)
		}
		if v, ok := meta["reviewRequired"]; ok {
			if _, isBool := v.(bool); !isBool {
				d.report(DirTaskFile, lint.Error, path, fm.Lines["metadata.reviewRequired"], nil, "metadata.reviewRequired is %v, not a boolean: the router treats anything but false as true", v)
			}
		}
	} else if m, ok := fm.Values["metadata"]; ok && m != nil {
		d.report(DirTaskFile, lint.Error, path, fm.Lines["metadata"], nil, "metadata is not a mapping of keys")
	}
	d.tasks[t.id] = append(d.tasks[t.id], t)
}

// loadMessage reads a JSON file as an AOF message for the cross-file rules (nil if
// it is not one).
func loadMessage(path string) *lint.Message {
	data, err := readBounded(path, lint.MaxMessage)
	if err != nil {
		return nil
	}
	root, _, err := jsonread.Parse(data)
	if err != nil || root == nil {
		return nil
	}
	kind, dialect, conf := Detect(root, path)
	if conf == 0 {
		return nil
	}
	return &lint.Message{Path: path, Protocol: "aof", Kind: kind, Dialect: dialect, Root: root, Raw: data, Pos: lint.NewLineIndex(data, 1, 1), Opts: &lint.Options{}}
}

func (d *dirLint) lintFile(path string, rule *lint.Rule) {
	res, err := d.lint(path, "")
	if err != nil {
		d.report(rule, lint.Error, path, 1, nil, "cannot read %s: %v", filepath.Base(path), err)
		return
	}
	r := d.result(path, res.Kind)
	r.Kind, r.Protocol, r.Messages = res.Kind, res.Protocol, res.Messages
	d.add(path, res.Diagnostics...)
}

func (d *dirLint) pass(rule *lint.Rule, m *lint.Message, f func(p *lint.Pass)) {
	p := lint.NewPass(rule, m)
	f(p)
	d.add(m.Path, p.Diagnostics()...)
}

func (d *dirLint) lintRuns(runsDir string, upstream bool) {
	for _, rd := range d.list(runsDir, DirRuns) {
		if !rd.dir {
			continue
		}
		id := rd.name
		arts := map[string]bool{}
		for _, e := range d.list(rd.path, DirRuns) {
			arts[e.name] = true
		}
		var msgs []*lint.Message
		for _, name := range runArtifactNames {
			path := filepath.Join(runsDir, id, name)
			if !arts[name] {
				continue
			}
			d.lintFile(path, DirRuns)
			if upstream && len(msgs) == 0 {
				d.report(DirRuns, lint.Info, path, 1, nil, "run artifacts under state/runs/<taskId>/: the upstream implementation's layout; the guide puts them in runs/<taskId>/ (accepted)")
			}
			m := loadMessage(path)
			if m == nil {
				continue
			}
			msgs = append(msgs, m) // AOF-DIR-003 and AOF-SEQ-005 ran in lintFile
		}
		if len(msgs) > 0 && len(d.tasks) > 0 && isDir(filepath.Join(d.root, "tasks")) && d.tasks[id] == nil && taskIDProblem(id) == "" {
			d.pass(DirRuns, msgs[0], func(p *lint.Pass) {
				p.ReportSevf(lint.Warning, "", "runs/%s/ has no task: no tasks/<status>/%s.md exists, so the scheduler never looks at this run", id, id)
			})
		}
	}
}

func (d *dirLint) lintHandoffs() {
	for _, sd := range d.statusDirs {
		for _, cd := range sd.entries {
			if !cd.dir {
				continue
			}
			inputs := filepath.Join(cd.path, "inputs")
			d.lintHandoff(sd.name, cd.name, inputs)
		}
	}
}

func (d *dirLint) lintHandoff(statusDir, id, inputs string) {
	jsonPath, mdPath := filepath.Join(inputs, "handoff.json"), filepath.Join(inputs, "handoff.md")
	if !d.inside(jsonPath, DirHandoff) || !d.inside(mdPath, DirHandoff) {
		return
	}
	_, jerr := os.Stat(jsonPath)
	_, merr := os.Stat(mdPath)
	if jerr != nil && merr != nil {
		return
	}
	if jerr != nil {
		d.report(DirHandoff, lint.Warning, mdPath, 1, nil, "inputs/handoff.md without inputs/handoff.json: the router writes both, and handoff.json is the authoritative one")
		return
	}
	d.lintFile(jsonPath, DirHandoff)
	m := loadMessage(jsonPath)
	if m == nil || m.Kind != KindHandoffInput {
		return
	}
	d.pass(DirHandoff, m, func(p *lint.Pass) {
		if tid := m.Root.Get("taskId"); tid.IsString() && tid.Str != id {
			p.Reportf("/taskId", "inputs/handoff.json of task %s names task %q: the router writes a handoff into its child task's own inputs/ (taskId_mismatch)", id, tid.Str)
		}
		if ts := d.tasks[id]; len(ts) > 0 && ts[0].dir != statusDir {
			p.ReportSevf(lint.Warning, "", "the inputs of task %s are in tasks/%s/%s/, but the task file is in tasks/%s/: the companion directory moves with its task", id, statusDir, id, ts[0].dir)
		}
		parentID := m.Root.Get("parentTaskId").String()
		if parentID == "" || !isDir(filepath.Join(d.root, "tasks")) {
			return
		}
		ps := d.tasks[parentID]
		if len(ps) == 0 {
			p.ReportSevf(lint.Warning, "/parentTaskId", "parent task %s has no task file in tasks/: the router rejects such a handoff with parent_not_found", parentID)
			return
		}
		parent := ps[0]
		if cs := d.tasks[id]; len(cs) > 0 && cs[0].hasDepth && cs[0].depth != parent.depth+1 && !(parent.hasDepth && parent.depth >= 1) {
			p.ReportSevf(lint.Warning, "/parentTaskId", "task %s has delegationDepth %d, but its parent %s has %d: the router sets a child's depth to its parent's plus one", id, cs[0].depth, parentID, parent.depth)
		}
	})
	d.pass(SeqDelegation, m, func(p *lint.Pass) {
		ps := d.tasks[m.Root.Get("parentTaskId").String()]
		if len(ps) == 0 || !ps[0].hasDepth || ps[0].depth < 1 {
			return
		}
		parent := ps[0]
		p.ReportRelatedf(lint.Error, "/parentTaskId", []lint.Related{{Path: parent.path, Line: parent.depthLine, Column: 1, Message: fmt.Sprintf("parent %s has delegationDepth %d", parent.id, parent.depth)}},
			"nested delegation: parent task %s is itself a delegated child (delegationDepth %d), so %s would have depth %d; the router rejects it with nested_delegation", parent.id, parent.depth, id, parent.depth+1)
	})
	if merr != nil {
		d.pass(DirHandoff, m, func(p *lint.Pass) {
			p.ReportSevf(lint.Warning, "", "inputs/handoff.md is missing: the router writes it beside handoff.json for the humans and agents who read the handoff")
		})
		return
	}
	d.checkHandoffMarkdown(mdPath, m)
}

// checkHandoffMarkdown compares handoff.md's From, To and Due By with handoff.json.
func (d *dirLint) checkHandoffMarkdown(mdPath string, m *lint.Message) {
	d.result(mdPath, KindHandoffMD)
	data, err := readBounded(mdPath, maxTaskFile)
	if err != nil {
		d.report(DirHandoff, lint.Warning, mdPath, 1, nil, "cannot read inputs/handoff.md: %v", err)
		return
	}
	for _, f := range handoffMDFindings(data, m) {
		d.report(DirHandoff, lint.Warning, mdPath, f.line, f.related, "%s", f.msg)
	}
}

func (d *dirLint) lintEvents() {
	evDir := filepath.Join(d.root, "events")
	for _, e := range d.list(evDir, DirEvents) {
		if e.dir || !(strings.HasSuffix(e.name, ".jsonl") || strings.HasSuffix(e.name, ".json") || strings.HasSuffix(e.name, ".log")) {
			continue
		}
		d.lintEventLog(e.path)
	}
}

func (d *dirLint) lintEventLog(path string) {
	r := d.result(path, "events")
	f, err := safefile.Open(path, 0) // a stream: each line is bounded, not the log
	if err != nil {
		d.report(DirEvents, lint.Error, path, 1, nil, "cannot read the events log: %v", err)
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64*1024)
	r.Messages = 0
	bad := 0
	var buf []byte
	last := map[string]lastTransition{}
	for n := 1; ; n++ {
		line, tooLong, err := readLine(br, buf[:0], lint.MaxMessage)
		buf = line[:0]
		if t := bytes.TrimSpace(line); len(t) > 0 || tooLong {
			r.Messages++
			msg := "the line is longer than the linter's bound and was skipped"
			var root *jsonread.Node
			if !tooLong {
				if root, _, err = jsonread.Parse(t); err != nil {
					root = nil
				}
				msg = eventProblem(root)
			}
			if msg != "" && bad < 100 {
				bad++
				d.report(DirEvents, lint.Error, path, n, nil, "%s", msg)
			}
			if msg == "" && root.Get("type").String() == "task.transitioned" {
				d.transition(path, n, root, last)
			}
		}
		if err != nil {
			break
		}
	}
	// the log's last transition of each task names the directory the task is in
	for _, id := range slices.Sorted(maps.Keys(last)) {
		tr := last[id]
		ts := d.tasks[id]
		if len(ts) == 0 || !isAnyStatus(ts[0].dir) || tr.to == ts[0].dir {
			continue
		}
		d.report(DirStatus, lint.Warning, ts[0].path, ts[0].statusLine, []lint.Related{{Path: path, Line: tr.line, Column: 1, Message: "the last task.transitioned of " + id + ": to " + tr.to}},
			"task %s is in tasks/%s/, but the events log's last transition moved it to %s: the store and its audit trail disagree", id, ts[0].dir, tr.to)
	}
}

type lastTransition struct {
	to   string
	line int
}

// transition checks one task.transitioned event against the state machine and the
// task's previous transition in the log.
func (d *dirLint) transition(path string, n int, root *jsonread.Node, last map[string]lastTransition) {
	id := root.Get("taskId").String()
	from, to := root.Path("payload", "from").String(), root.Path("payload", "to").String()
	if id == "" || to == "" {
		return
	}
	if prev, ok := last[id]; ok && from != "" && from != prev.to {
		d.report(DirEvents, lint.Warning, path, n, []lint.Related{{Path: path, Line: prev.line, Column: 1, Message: "the previous transition of " + id + ": to " + prev.to}},
			"task.transitioned for %s from %s, but its previous transition (line %d) moved it to %s: a transition was not logged", id, from, prev.line, prev.to)
	}
	// deadletter, an upstream status like cancelled, is reached from any live
	// status as cancelled is (the guide's table has only cancelled).
	target := to
	if to == "deadletter" {
		target = "cancelled"
	}
	if from != "" && from != to && isAnyStatus(from) && isAnyStatus(to) && !validTransition(from, target) {
		d.report(SeqTransition, lint.Error, path, n, nil, "task.transitioned for %s from %s to %s, which the task state machine forbids (from %s the allowed targets are %s)",
			id, from, to, from, allowedFrom(from))
	}
	if len(last) < MaxTasks || last[id].to != "" {
		last[id] = lastTransition{to: to, line: n}
	}
}

// readLine reads one line into buf, dropping it (tooLong) past max bytes.
func readLine(br *bufio.Reader, buf []byte, max int) ([]byte, bool, error) {
	tooLong := false
	for {
		frag, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(frag) > max {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return buf, tooLong, err
	}
}

func eventProblem(root *jsonread.Node) string {
	if root == nil {
		return "the line is not JSON: the events log holds one JSON event per line"
	}
	if root.Kind != jsonread.Object {
		return "the line is a JSON " + root.Kind.String() + ", not an event object"
	}
	var probs []string
	if !root.Get("type").IsString() || root.Get("type").Str == "" {
		probs = append(probs, "\"type\" (such as \"task.transitioned\")")
	}
	if ts := root.Get("timestamp"); !ts.IsString() {
		probs = append(probs, "\"timestamp\" (ISO 8601)")
	} else if _, ok := timeOf(ts); !ok {
		return fmt.Sprintf("event timestamp %q is not an ISO 8601 date-time", ts.Str)
	}
	if !root.Get("actor").IsString() {
		probs = append(probs, "\"actor\"")
	}
	if len(probs) > 0 {
		return "the event lacks " + strings.Join(probs, ", ") + ": events carry a type, a timestamp and an actor"
	}
	// A protocol.message.rejected event records the rejected message's taskId,
	// which by definition may name no task (aof-1 §Error Handling: invalid
	// envelope, task not found): it is evidence, not a reference.
	if tid := root.Get("taskId"); tid.IsString() && root.Get("type").String() != "protocol.message.rejected" {
		if p := taskIDProblem(tid.Str); p != "" {
			return "event taskId " + p
		}
	}
	return ""
}
