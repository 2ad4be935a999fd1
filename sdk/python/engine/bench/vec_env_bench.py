"""VecEnv speed (docs/benchmarks.md): agent decisions per second on one core,
random legal actions chosen in numpy, every seat an agent seat.

    PYTHONPATH=build/python python3 sdk/python/engine/bench/vec_env_bench.py \
        [--variant slovenian-4p] [--seconds 2] [--runs 3]

Prints one line per (batch, tensors) with the median of --runs runs."""

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


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--variant", default="slovenian-4p")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--batches", default="1,64,1024")
    a = p.parse_args()
    for tensors in (False, True):
        for n in [int(x) for x in a.batches.split(",")]:
            r = [run(a.variant, n, tensors, a.seconds) for _ in range(a.runs)]
            print(f"{a.variant} batch {n:5d} tensors {'on ' if tensors else 'off'}: "
                  f"{statistics.median(r):12,.0f} decisions/s per core (CPU time; runs: "
                  + ", ".join(f"{x:,.0f}" for x in r) + ")", flush=True)


if __name__ == "__main__":
    main()
