"""VecEnv speed (docs/benchmarks.md): agent decisions per second on one core,
random legal actions chosen in numpy, every seat an agent seat.

    PYTHONPATH=build/python python3 sdk/python/engine/bench/vec_env_bench.py \
        [--variant slovenian-4p] [--seconds 2] [--runs 3]

Prints one line per (batch, tensors) with the median of --runs runs. With
--openspiel DIR (the module openspiel_tarok that
sdk/python/engine/bench/openspiel_python_side_by_side.sh builds into its --work
directory), OpenSpiel's tarok (4 players) is stepped from Python in the same
run, one state at a time with random legal actions (it has no batched
environment and no tensor), runs alternating with VecEnv's. With --baseline
DIR (a directory holding another build's tarock_engine package, e.g. a copy
of an earlier commit's build/python), each row is also measured with that
build, its runs alternating with this one's, every run in a fresh process of
its own (the same for both)."""

import argparse
import statistics
import time

import numpy as np

import tarock_engine as te
from tarock_engine import envs


def run(variant: str, n: int, tensors: bool, seconds: float) -> float:
    env = te.VecEnv(variant, n, seed=1, observation_tensor=tensors)
    rng = np.random.default_rng(0)
    steps = 0
    start = time.process_time()
    while True:
        for _ in range(max(1, 2048 // n)):
            env.step(envs.random_actions(env, rng))
            steps += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps * n / elapsed


def run_in(path: str, variant: str, n: int, tensors: bool, seconds: float) -> float:
    """run() in a fresh process with `path` first on sys.path."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=path)
    out = subprocess.run(
        [sys.executable, __file__, "--one", f"{variant},{n},{int(tensors)},{seconds}"],
        env=env, check=True, capture_output=True, text=True).stdout
    return float(out.strip())


def openspiel(module_dir: str, seconds: float, seed: int) -> float:
    import random
    import sys
    sys.path.insert(0, module_dir)
    import openspiel_tarok as ost
    game = ost.Game(4, seed)
    rnd = random.Random(seed).random
    n = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(s.chance_outcome())
                continue
            legal = s.legal_actions()
            s.apply_action(legal[int(rnd() * len(legal))])
            n += 1
        s.returns()
    return n / (time.process_time() - start)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--variant", default="slovenian-4p")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--batches", default="1,64,1024")
    p.add_argument("--openspiel", default="", help="directory of the openspiel_tarok module")
    p.add_argument("--baseline", default="",
                   help="directory of another build's tarock_engine, measured alternately")
    p.add_argument("--one", default="", help=argparse.SUPPRESS)  # variant,n,tensors,seconds
    a = p.parse_args()
    if a.one:
        variant, n, tensors, seconds = a.one.split(",")
        print(run(variant, int(n), tensors == "1", float(seconds)))
        return
    if a.openspiel:
        r = [openspiel(a.openspiel, a.seconds, i + 1) for i in range(a.runs)]
        print(f"OpenSpiel tarok (4 players), one state from Python, no tensor: "
              f"{statistics.median(r):12,.0f} decisions/s per core (runs: "
              + ", ".join(f"{x:,.0f}" for x in r) + ")", flush=True)
    if a.baseline:
        import os
        this = os.path.dirname(os.path.dirname(os.path.abspath(te.__file__)))
        for tensors in (False, True):
            for n in [int(x) for x in a.batches.split(",")]:
                new, old = [], []
                for _ in range(a.runs):
                    new.append(run_in(this, a.variant, n, tensors, a.seconds))
                    old.append(run_in(a.baseline, a.variant, n, tensors, a.seconds))
                for name, r in (("this build", new), ("baseline  ", old)):
                    print(f"{a.variant} batch {n:5d} tensors {'on ' if tensors else 'off'} "
                          f"{name}: {statistics.median(r):12,.0f} decisions/s per core (CPU "
                          "time; runs: " + ", ".join(f"{x:,.0f}" for x in r) + ")", flush=True)
        return
    for tensors in (False, True):
        for n in [int(x) for x in a.batches.split(",")]:
            r = [run(a.variant, n, tensors, a.seconds) for _ in range(a.runs)]
            print(f"{a.variant} batch {n:5d} tensors {'on ' if tensors else 'off'}: "
                  f"{statistics.median(r):12,.0f} decisions/s per core (CPU time; runs: "
                  + ", ".join(f"{x:,.0f}" for x in r) + ")", flush=True)


if __name__ == "__main__":
    main()
