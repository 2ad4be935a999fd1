#!/usr/bin/env python3
"""tarock_engine from Python: random playouts driven from Python, decisions per
second through integer and text actions; random_playout (the loop in C++);
clone() and sample() per second. Single-threaded; prints the median of --runs
runs of each measurement (docs/benchmarks.md, "tarock_engine from Python").

    PYTHONPATH=build/python /usr/bin/python3 sdk/python/engine/bench/engine_bench.py \
        [--variant slovenian-4p] [--runs 5] [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import tarock_engine as te


def timed(fn, seconds: float) -> float:
    """Calls fn() (which returns how many units it did) until `seconds` of CPU
    time have passed; units per CPU second."""
    units = 0
    start = time.process_time()
    while True:
        units += fn()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return units / elapsed


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--variant", default="slovenian-4p")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    args = p.parse_args()
    game = te.Game(args.variant)
    rnd = random.random
    seeds = iter(range(1 << 62))

    def py_int() -> int:
        s = game.new_hand(seed=next(seeds))
        n = 0
        while not s.is_terminal:
            legal = s.legal_actions()
            s.apply(legal[int(rnd() * len(legal))])
            n += 1
        return n

    def py_text() -> int:
        s = game.new_hand(seed=next(seeds))
        n = 0
        while not s.is_terminal:
            legal = s.legal_actions_text()
            s.apply(legal[int(rnd() * len(legal))])
            n += 1
        return n

    import numpy as np
    mask = np.zeros(game.num_actions, dtype=bool)

    def py_mask() -> int:  # the learning loop's shape: a numpy mask per decision (reused)
        s = game.new_hand(seed=next(seeds))
        n = 0
        while not s.is_terminal:
            legal = np.flatnonzero(s.legal_mask(out=mask))
            s.apply(int(legal[int(rnd() * len(legal))]))
            n += 1
        return n

    root = game.new_hand(seed=1)

    def playout() -> int:
        return root.clone().random_playout(next(seeds))

    def clones() -> int:
        for _ in range(1000):
            root.clone()
        return 1000

    # A decision in the middle of the play, from seat 0's side: the sampler's work.
    rng = random.Random(3)
    for seed in range(3, 1000):
        mid = game.new_hand(seed=seed)
        while not mid.is_terminal and (mid.phase != "play" or len(mid.history) < 12 or mid.current_seat != 0):
            la = mid.legal_actions()
            mid.apply(la[rng.randrange(len(la))])
        if not mid.is_terminal:
            break
    sampler = te.Sampler(game, mid.decision_request_proto(mid.current_seat))

    def samples_one() -> int:
        for _ in range(100):
            sampler.sample(next(seeds))
        return 100

    def samples_batch() -> int:
        sampler.samples(1000, next(seeds))
        return 1000

    cases = [
        ("decisions/s, Python loop, int actions (legal_actions + apply)", py_int),
        ("decisions/s, Python loop, text actions (legal_actions_text + apply)", py_text),
        ("decisions/s, Python loop, numpy mask (legal_mask(out=) + flatnonzero + apply)", py_mask),
        ("decisions/s, random_playout (one call per hand, loop in C++)", playout),
        ("clone()/s", clones),
        ("sample()/s, one call each (mid-play, seat 0)", samples_one),
        ("samples(1000)/s, per sample", samples_batch),
    ]
    print(f"tarock_engine {te.__version__}, {args.variant}, median of {args.runs} runs "
          f"of {args.seconds} s CPU each")
    for name, fn in cases:
        figures = [timed(fn, args.seconds) for _ in range(args.runs)]
        print(f"{statistics.median(figures):>14,.0f}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
