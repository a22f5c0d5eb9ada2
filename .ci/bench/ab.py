#!/usr/bin/env python3
"""A/B start-up timing on a shared machine: runs the commands in turn, N rounds
(the first 5 not counted), and prints each one's median CPU time (user + system,
from the kernel's rusage of the child) and median wall time. Interleaving makes a
change of the machine's load hit every command alike.

usage: python3 .ci/bench/ab.py N CMD1 -- CMD2 [-- CMD3 ...]
e.g.:  python3 .ci/bench/ab.py 300 ./hello -- ./old/aoplint f.json -- ./new/aoplint f.json
"""
import resource
import statistics
import subprocess
import sys
import time

n = int(sys.argv[1])
cmds = [c.split() for c in " ".join(sys.argv[2:]).split(" -- ")]
cpu = [[] for _ in cmds]
wall = [[] for _ in cmds]
with open("/dev/null", "w") as null:
    for i in range(n + 5):
        for j, c in enumerate(cmds):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(c, stdout=null, stderr=null)
            t1 = time.perf_counter()
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if i >= 5:
                cpu[j].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
                wall[j].append((t1 - t0) * 1e3)
for j, c in enumerate(cmds):
    print("%-50s CPU median %.2f ms, wall median %.2f ms" % (" ".join(c)[-50:], statistics.median(cpu[j]), statistics.median(wall[j])))
