#!/usr/bin/env python3
"""Compares two engine_bench binaries side by side (a benchmark, not a test):
runs them alternately RUNS times each (default 3), and prints per row the
median decisions/s of each, the change, the spread of each binary's runs, and
whether the signatures agree (they must: a different signature is a
different game).

  python3 referee/bench/engine_bench_ab.py BEFORE/engine_bench AFTER/engine_bench [RUNS]

Build the "before" binary in a worktree of the older commit, e.g.
  git worktree add /tmp/before af79302 && cmake -S /tmp/before -B /tmp/before/build \\
    -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C /tmp/before/build engine_bench
"""
import json
import statistics
import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    bins = {"before": sys.argv[1], "after": sys.argv[2]}
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rates = {k: {} for k in bins}
    sigs = {k: {} for k in bins}
    for r in range(runs):
        for k in (["before", "after"] if r % 2 == 0 else ["after", "before"]):
            out = subprocess.run([bins[k], "--benchmark_min_time=1", "--benchmark_format=json"],
                                 capture_output=True, text=True, check=True).stdout
            for b in json.loads(out)["benchmarks"]:
                rates[k].setdefault(b["name"], []).append(b["decisions/s"])
                sigs[k][b["name"]] = b.get("signature")
    status = 0
    for name, before in rates["before"].items():
        after = rates["after"].get(name)
        if not after:
            print(f"{name}: missing after")
            status = 1
            continue
        bm, am = statistics.median(before), statistics.median(after)
        same = sigs["before"][name] == sigs["after"][name]
        status |= 0 if same else 1
        print(f"{name:48s} {bm / 1e6:6.1f} M {am / 1e6:6.1f} M {100 * (am / bm - 1):+6.1f}%  "
              f"spread {100 * (max(before) / min(before) - 1):3.0f}% / "
              f"{100 * (max(after) / min(after) - 1):3.0f}%  signature {'same' if same else 'DIFFERENT'}")
    return status


if __name__ == "__main__":
    sys.exit(main())
