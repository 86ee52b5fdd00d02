#!/usr/bin/env python3
"""Medians of the per-pass times that GPUBLUR_PASS_TIMES=1 logs (core/pass_times.hpp), one table per
sequence of passes, in the order first seen: `GPUBLUR_PASS_TIMES=1 gpublur bench ... 2> log; pass_times.py log`.
The bench's warm-up runs log too; the median keeps them out."""
import re
import statistics
import sys

runs = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r"pass times ms: (.*)$", line)
    if not m:
        continue
    parts = [p.rsplit(" ", 1) for p in m.group(1).split(", ")]
    key = tuple(p[0] for p in parts)
    runs.setdefault(key, []).append([float(p[1]) for p in parts])
for key, rows in runs.items():
    med = [statistics.median(r[i] for r in rows) for i in range(len(key))]
    print(f"{len(rows)} runs, total {sum(med):.4f} ms: " + ", ".join(f"{k} {v:.4f}" for k, v in zip(key, med)))
