package conform

// Snapshot is a rollback snapshot the aop2 engine took before dispatch, as it
// found it after the run: the engine records them (fact "aop2.snapshots") and
// the checks judge them, so the type is vocabulary, not the checks' own.
type Snapshot struct {
	Path   string // relative to the scratch directory
	Intact bool
	After  string // what was found after the run
}
