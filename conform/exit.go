package conform

// Exit is how an implementation under test (or one of its agents) ended, as the
// launcher saw it (conform/agentio). It is vocabulary: the session records it and
// the checks read it, while the process layer that fills it in imports this
// package, never the other way round (docs/development.md, "Layers").
type Exit struct {
	Code   int    // exit code, -1 when killed by a signal
	Signal string // "SIGKILL", "SIGTERM", ... or ""
	Err    error  // an error of the harness itself (could not start, ...)
}
