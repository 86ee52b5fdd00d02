#!/usr/bin/env python3
"""Runs `gpublur quality` for a list of method settings and prints a markdown table for docs/methods.md:
requested sigma, parameters, the recipe's predicted effective sigma, the fitted effective sigma (mean over the
images, and its per-image range), the fitted Gaussian's kernel sd, and PSNR / max abs against the exact
Gaussian of the requested sigma.
Usage: scripts/quality_table.py GPUBLUR [--backend cpu] [--images ...] -- SETTING...
  SETTING: method:param=value[:param=value...], e.g. box:sigma=12:passes=3"""
import json
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if "--" not in args or not args:
        print(__doc__)
        return 2
    sep = args.index("--")
    opts, settings = args[:sep], args[sep + 1:]
    binary, extra = opts[0], opts[1:]
    print("| method | settings | widths / radius | predicted | fitted (range) | fitted kernel sd | PSNR dB | max abs |")
    print("|---|---|---|---|---|---|---|---|")
    for s in settings:
        parts = s.split(":")
        method, params = parts[0], parts[1:]
        cmd = [binary, "quality", "--method", method, "--json", "--no-impulse"] + extra
        for p in params:
            cmd += ["--param", p]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"| {method} | {' '.join(params)} | error: {r.stderr.strip().splitlines()[-1]} |||||")
            continue
        j = json.loads(r.stdout)
        m = j["mean"]
        sig = [i["effective_sigma"] for i in j["images"] if i.get("status") == "ok"]
        prm = j["params"]
        shape = prm.get("width") or prm.get("offsets") \
            or (f"N={prm['iterations']} c={prm['rate']}" if "iterations" in prm else "") or prm.get("radius", "")
        psnr = "inf" if m.get("psnr_db") is None else f"{m['psnr_db']:.1f}"
        print(f"| {method} | {' '.join(params)} | {shape} | {j['predicted_sigma']:.3f} | {m['effective_sigma']:.3f} "
              f"({min(sig):.2f}-{max(sig):.2f}) | {m['fit_kernel_sigma']:.3f} | {psnr} | {m['max_abs']:.2e} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
