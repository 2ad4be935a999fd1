#!/usr/bin/env python3
"""Each bot's median of its per-match mean decision time (as the referee
measured it) in an arena's store, and ratios of those medians: what the
hosted-bot benchmarks (hosted_bench.sh, hosted_ab_bench.sh) print.

Usage: decision_medians.py ARENA_DB [LABEL=NUMERATOR/DENOMINATOR ...]
e.g.   decision_medians.py arena.db "cpp: hosted / dial-in=cpp-hosted/cpp-dial"
prints "cpp: hosted / dial-in = 1.35" when both bots played.
"""
import sqlite3
import statistics
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    db = sqlite3.connect(argv[1])
    rows = db.execute(
        "SELECT b.name, s.decision_ms / s.decisions, s.faults FROM match_seats s "
        "JOIN bots b ON b.id = s.bot_id WHERE s.decisions > 0").fetchall()
    by = {}
    for name, ms, faults in rows:
        by.setdefault(name, []).append((ms, faults))
    width = max((len(n) for n in by), default=0)
    med = {}
    for name in sorted(by):
        ms = [m for m, _ in by[name]]
        med[name] = statistics.median(ms)
        print(f"{name:{width}s} median of per-match mean decision time {med[name]:7.3f} ms  "
              f"({len(ms)} matches, faults {sum(f for _, f in by[name])})")
    for spec in argv[2:]:
        label, _, pair = spec.rpartition("=")
        num, _, den = pair.partition("/")
        if num in med and den in med:
            print(f"{label} = {med[num] / med[den]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
