// Package aop2 is the one home of the AOP JSON v2 contract's computations
// (Cyclops 2.0.2-C) that more than one part of aopkit needs: the §11 effective
// timeout, the §6.1 heartbeat defaults and limits, the §6.2 progress rate, and
// the clock tolerances they are judged with. aoplint's rules (lint/aop2), the
// reference engine (conform/engine/aop2), the conformance checks
// (conform/checks) and mockagent call it; nothing else computes these.
//
// It is also the home of the contract's wire messages (wire.go): Task (§2),
// Response (§5) and Event (§6) as typed structs with the spec's member names,
// and their one decoder, DecodeHeader with AsTask, AsResponse and AsEvent (or
// DecodeTask, DecodeResponse, DecodeEvent). It reads a line as aoplint does
// (lint/jsonread, through lint/spec/wire): keys exactly as spelled, a member of
// another JSON type than the spec's left zero and a pointer nil (the schema
// rule, AOP2-SCHEMA-001, reports it), a pointer nil for "absent". The checks,
// the reference engine, orchside and mockagent read these structs.
//
// It is a leaf: primitives in, values out, no conform imports (lint/jsonread
// and lint/spec/wire only).
package aop2

import (
	"path"
	"strings"
	"time"
)

// Heartbeat defaults of §6.1 (execution_policy.heartbeat).
const (
	DefaultHeartbeatInterval = 120 * time.Second
	DefaultMaxMissedBeats    = 3
)

// ProgressInterval is the minimum spacing of PROGRESS_UPDATE events of one task
// (§6.2: "not more than once every 30 seconds").
const ProgressInterval = 30 * time.Second

// Clock tolerances. On the harness clock (a transcript's "at") a message sent on
// time may be stamped a little late: a fifth of the period, at most
// HarnessSlack. Message timestamps are often truncated to whole seconds:
// MessageSlack.
const (
	HarnessSlack = 500 * time.Millisecond
	MessageSlack = time.Second
)

// Where the effective timeout comes from (§11).
const (
	FromGuardRails      = "guard_rails.timeout_seconds"
	FromExecutionPolicy = "execution_policy.timeout_seconds"
)

// Seconds converts a number of seconds from a message.
func Seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Stretch scales a limit by --timeout-scale (a scale ≤ 0 is 1).
func Stretch(d time.Duration, scale float64) time.Duration {
	if scale <= 0 {
		return d
	}
	return time.Duration(float64(d) * scale)
}

// Slack is the clock tolerance for a period: on the harness clock a fifth of
// the period, at most HarnessSlack; on the message clock MessageSlack.
func Slack(harness bool, period time.Duration) time.Duration {
	if harness {
		return min(HarnessSlack, period/5)
	}
	return MessageSlack
}

// EffectiveTimeout applies §11: guard_rails.timeout_seconds, when set, overrides
// execution_policy.timeout_seconds. nil is "not set"; the result is 0 (and from
// "") when neither sets a positive timeout: the executor's default applies.
func EffectiveTimeout(guardRails, executionPolicy *float64) (d time.Duration, from string) {
	switch {
	case guardRails != nil:
		d, from = Seconds(*guardRails), FromGuardRails
	case executionPolicy != nil:
		d, from = Seconds(*executionPolicy), FromExecutionPolicy
	}
	if d <= 0 {
		return 0, ""
	}
	return d, from
}

// Heartbeat reads execution_policy.heartbeat's interval_seconds and
// max_missed_beats (nil: not set), applying the §6.1 defaults to values that are
// missing or out of range.
func Heartbeat(intervalSeconds, maxMissedBeats *float64) (interval time.Duration, maxMissed int) {
	interval, maxMissed = DefaultHeartbeatInterval, DefaultMaxMissedBeats
	if intervalSeconds != nil && *intervalSeconds > 0 {
		interval = Seconds(*intervalSeconds)
	}
	if maxMissedBeats != nil && *maxMissedBeats >= 1 {
		maxMissed = int(*maxMissedBeats)
	}
	return interval, maxMissed
}

// HeartbeatSilence is interval × max_missed_beats stretched by scale: the
// silence after which an executor has missed max_missed_beats heartbeats
// (E_HEARTBEAT_FAILURE, §6.1, §12).
func HeartbeatSilence(interval time.Duration, maxMissed int, scale float64) time.Duration {
	return Stretch(interval*time.Duration(maxMissed), scale)
}

// HeartbeatFailed reports whether a silence measured on the harness clock
// (harness) or by message timestamps is a heartbeat failure: longer than
// HeartbeatSilence plus the clock's tolerance for the stretched interval. The
// reference engine declares E_HEARTBEAT_FAILURE and aoplint reports AOP2-SEQ-005
// by this one test.
func HeartbeatFailed(silence, interval time.Duration, maxMissed int, scale float64, harness bool) bool {
	return silence > HeartbeatSilence(interval, maxMissed, scale)+Slack(harness, Stretch(interval, scale))
}

// HeartbeatFailureAfter is the longest silence on the harness clock that is not
// yet a heartbeat failure (HeartbeatFailed is true for anything longer).
func HeartbeatFailureAfter(interval time.Duration, maxMissed int, scale float64) time.Duration {
	return HeartbeatSilence(interval, maxMissed, scale) + Slack(true, Stretch(interval, scale))
}

// HeartbeatDue is how long after the HEARTBEAT a schedule starts at its n-th
// next beat is due: n stretched intervals, each allowed a tenth more (an
// executor's sleeps overshoot a little, and that drift is no missed beat).
func HeartbeatDue(n int, interval time.Duration, scale float64) time.Duration {
	return Stretch(interval, scale) * time.Duration(n) * 11 / 10
}

// HeartbeatBehind reports whether a HEARTBEAT that is behind its slot of the
// schedule (first beat, first + interval, ...) missed a beat: more than half a
// stretched interval plus the clock's tolerance (AOP2-SEQ-006).
func HeartbeatBehind(behind, interval time.Duration, scale float64, harness bool) bool {
	return behind > HeartbeatBehindLimit(interval, scale, harness)
}

// HeartbeatBehindLimit is how far behind its slot a HEARTBEAT may come before
// HeartbeatBehind says a beat was missed: half a stretched interval plus the
// clock's tolerance.
func HeartbeatBehindLimit(interval time.Duration, scale float64, harness bool) time.Duration {
	p := Stretch(interval, scale)
	return p/2 + Slack(harness, p)
}

// FirstHeartbeatLate reports whether a first HEARTBEAT that came wait after the
// TASK (or the agent's first sign of life) missed a beat: more than two
// stretched intervals plus the tolerance (AOP2-SEQ-006).
func FirstHeartbeatLate(wait, interval time.Duration, scale float64, harness bool) bool {
	return wait > FirstHeartbeatLimit(interval, scale, harness)
}

// FirstHeartbeatLimit is the longest wait for a first HEARTBEAT that
// FirstHeartbeatLate accepts: two stretched intervals plus the tolerance.
func FirstHeartbeatLimit(interval time.Duration, scale float64, harness bool) time.Duration {
	p := Stretch(interval, scale)
	return 2*p + Slack(harness, p)
}

// ProgressTooSoon reports whether two PROGRESS_UPDATE events of one task gap
// apart break the §6.2 rate (AOP2-SEQ-007), with the clock's tolerance.
func ProgressTooSoon(gap time.Duration, harness bool) bool {
	return gap < ProgressInterval-Slack(harness, ProgressInterval)
}

// networkRank orders the §11 network access values, most restrictive first.
var networkRank = map[string]int{"NONE": 0, "RESTRICTED": 1, "FULL": 2}

// EffectiveNetwork applies §11.2: the effective network access is the most
// restrictive of target.capabilities.network_access and task.access.network
// (NONE < RESTRICTED < FULL). A value that is absent or not one of these does
// not restrict; "" when neither does.
func EffectiveNetwork(capability, task string) string {
	c, cok := networkRank[capability]
	t, tok := networkRank[task]
	switch {
	case cok && tok:
		if c <= t {
			return capability
		}
		return task
	case cok:
		return capability
	case tok:
		return task
	}
	return ""
}

// NetworkWithin reports whether network access asked is no wider than allowed
// ("" allows anything and asks for nothing).
func NetworkWithin(asked, allowed string) bool {
	a, aok := networkRank[asked]
	l, lok := networkRank[allowed]
	return !aok || !lok || a <= l
}

// Filesystem is the effective filesystem access of a task (§11.2).
type Filesystem struct {
	Allowed bool
	// Read and Write are the task's paths; nil means the task names none (no
	// restriction beyond the workspace).
	Read, Write []string
}

// EffectiveFilesystem applies §11.2: the intersection of
// target.capabilities.file_system_access (nil: not stated) and
// task.access.filesystem's read_paths and write_paths (nil: not stated). An
// executor without the capability has no filesystem access at all.
func EffectiveFilesystem(capable *bool, read, write []string) Filesystem {
	if capable != nil && !*capable {
		return Filesystem{Read: []string{}, Write: []string{}}
	}
	return Filesystem{Allowed: true, Read: read, Write: write}
}

// PathsWithin reports whether every path asked lies inside one of the paths
// allowed (equal, or below it); allowed nil is no restriction. Paths are
// compared lexically, cleaned, with slashes.
func PathsWithin(asked, allowed []string) bool {
	if allowed == nil {
		return true
	}
	for _, a := range asked {
		a = path.Clean(a)
		ok := false
		for _, l := range allowed {
			l = path.Clean(l)
			if a == l || strings.HasPrefix(a, strings.TrimSuffix(l, "/")+"/") {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
