#!/usr/bin/env python3
"""Interleaved rounds on a machine with quiet and slow periods: runs the commands
in turn, N rounds, prints each round (wall/CPU seconds, CPU from the kernel's
rusage of the child), then the medians of the rounds of each period. A round is
"slow" when the second command took at least SLOW times the CPU of the first
(the first is the one-worker baseline; the second a two-worker run whose ratio
shows the period): this 2-vCPU VM alternates, minute by minute, between periods
where two threads of one process cost about 1.05x the CPU of one and periods
where they cost up to 1.5x (.ci/bench/notes.md, session of 2026-11-25).

usage: python3 .ci/bench/rounds.py [--slow 1.25] N LABEL=CMD LABEL=CMD [LABEL=CMD ...]
e.g.:  python3 .ci/bench/rounds.py 40 "one=env GOMAXPROCS=1 bin/aoplint -j 1 t.jsonl" "two=bin/aoplint -j 2 t.jsonl"
"""
import resource
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
slow = 1.25
if args[:1] == ["--slow"]:
    slow, args = float(args[1]), args[2:]
n = int(args[0])
cmds = []
for a in args[1:]:
    label, cmd = a.split("=", 1)
    cmds.append((label, cmd.split()))
if len(cmds) < 2:
    sys.exit(__doc__)
rounds = []
with open("/dev/null", "w") as null:
    for i in range(n):
        r = {}
        for label, c in cmds:
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(c, stdout=null, stderr=null)
            t1 = time.perf_counter()
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            r[label] = (t1 - t0, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        rounds.append(r)
        print(time.strftime("%H:%M:%S"), " ".join("%s=%.3f/%.3f" % (k, w, c) for k, (w, c) in r.items()), flush=True)
base, probe = cmds[0][0], cmds[1][0]
for name, pick in (("quiet", lambda r: r[probe][1] / r[base][1] < slow),
                   ("slow", lambda r: r[probe][1] / r[base][1] >= slow),
                   ("all", lambda r: True)):
    rs = [r for r in rounds if pick(r)]
    if not rs:
        continue
    print("%-5s %3d rounds:" % (name, len(rs)))
    for label, _ in cmds:
        cpu = statistics.median(r[label][1] for r in rs)
        wall = statistics.median(r[label][0] for r in rs)
        xc = statistics.median(r[label][1] / r[base][1] for r in rs)
        xw = statistics.median(r[base][0] / r[label][0] for r in rs)
        print("  %-8s CPU %.3f s, wall %.3f s; per round: %.2fx the CPU of %s, %.2fx its wall-clock speed" % (label, cpu, wall, xc, base, xw))
