#!/usr/bin/env python3
"""Compares two GPU-check bench logs (bench.txt, as in docs/measurements/): for each (backend, method, size,
channels, sigma) in both, the new median / old median and the ratios to copy, flagging changes beyond a tolerance.
Usage: scripts/compare_bench.py OLD.txt NEW.txt [--tol 0.03] [--methods copy,gauss-2d,...]
Exit 1 when any compared case is slower than old * (1 + tol), both in ms and in its ratio to copy."""
import argparse
import re
import sys


def parse(path):
    cases, backend = {}, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"backend (\w+), device", line)
        if m:
            backend = m.group(1)
            continue
        f = line.split()
        if backend is None or len(f) < 9 or not re.match(r"\d+x\d+$", f[1]):
            continue
        try:
            median, ratio = float(f[5]), float(f[8])
        except ValueError:
            continue
        # The first table of a backend holds its defaults; later tables (variants) are keyed by their label.
        key = (backend, f[0], f[1], f[2], f[3])
        cases.setdefault(key, (median, ratio, f[9] if len(f) > 9 else ""))
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--tol", type=float, default=0.03)
    ap.add_argument("--methods", default="")
    a = ap.parse_args()
    old, new = parse(a.old), parse(a.new)
    wanted = set(a.methods.split(",")) if a.methods else None
    worse = 0
    print(f"{'backend':7} {'method':22} {'size':>10} {'c':>2} {'sigma':>5} {'old ms':>9} {'new ms':>9} {'new/old':>8} "
          f"{'old xc':>7} {'new xc':>7}")
    for key in sorted(set(old) & set(new)):
        backend, method, size, channels, sigma = key
        if wanted and method not in wanted:
            continue
        (om, orat, _), (nm, nrat, npath) = old[key], new[key]
        r = nm / om if om else float("nan")
        flag = ""
        if r > 1 + a.tol and nrat > orat * (1 + a.tol):
            flag, worse = "  SLOWER", worse + 1
        print(f"{backend:7} {method:22} {size:>10} {channels:>2} {sigma:>5} {om:9.4f} {nm:9.4f} {r:8.3f} {orat:7.2f} "
              f"{nrat:7.2f}{flag}  {npath}")
    print(f"{worse} case(s) slower than {1 + a.tol:.2f}x both in ms and in ratio to copy")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
