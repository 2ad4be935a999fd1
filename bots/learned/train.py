"""Trains the learned bot (bots/learned/README.md): imitation of a bundled bot
(the heuristic by default) on the states the learner itself reaches (DAgger:
VecEnv tables where every seat is the learner, labels from
VecEnv.teacher_actions), then an evaluation on duplicate deals against the
heuristic bot in the other seats. numpy only; two cores, minutes.

    PYTHONPATH=build/python python3 bots/learned/train.py \
        --variant slovenian-4p --out bots/learned/slovenian-4p.npz
    # then imitate the search bot (its play; it bids with the heuristic):
    TAROCK_SEARCH_OPTIONS=iterations=100 PYTHONPATH=build/python python3 bots/learned/train.py \
        --teacher search --init bots/learned/slovenian-4p.npz --out ...
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tarock_engine as te  # noqa: E402
from tarock_engine import envs  # noqa: E402
from model import Model, load  # noqa: E402


def collect(env, model, teacher: str, steps: int, beta: float, rng) -> tuple:
    """`steps` steps of every table: the observation, mask and the teacher's
    label at each decision; the table follows the teacher with probability
    beta, else the learner."""
    X, M, Y = [], [], []
    for _ in range(steps):
        obs, mask = env.obs.copy(), env.mask.copy()
        label = env.teacher_actions(teacher)
        X.append(obs)
        M.append(mask)
        Y.append(label)
        if model is None or beta >= 1:
            act = label
        else:
            mine = model.act(obs, mask)
            act = np.where(rng.random(len(label)) < beta, label, mine).astype(np.int32)
        env.step(act)
    return np.concatenate(X), np.concatenate(M), np.concatenate(Y)


def train(model: Model, X, M, Y, epochs: int, lr: float, batch: int, rng, state=None):
    """Cross-entropy over the legal actions, Adam."""
    params = model.params
    if state is None:
        state = {"m": [np.zeros_like(p) for p in params], "v": [np.zeros_like(p) for p in params],
                 "t": 0}
    n = len(Y)
    for _ in range(epochs):
        order = rng.permutation(n)
        for s in range(0, n, batch):
            idx = order[s:s + batch]
            x, m, y = X[idx], M[idx], Y[idx]
            logits, cache = model.forward(x)
            z = np.where(m, logits, -1e9)
            z -= z.max(1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(1, keepdims=True)
            d = p
            d[np.arange(len(y)), y] -= 1
            d /= len(y)
            grads = model.grads(cache, d.astype(np.float32))
            state["t"] += 1
            t = state["t"]
            for i, (w, g) in enumerate(zip(params, grads)):
                state["m"][i] = 0.9 * state["m"][i] + 0.1 * g
                state["v"][i] = 0.999 * state["v"][i] + 0.001 * g * g
                mh = state["m"][i] / (1 - 0.9 ** t)
                vh = state["v"][i] / (1 - 0.999 ** t)
                w -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    return state


def accuracy(model: Model, X, M, Y) -> float:
    return float((model.act(X, M) == Y).mean())


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--variant", default="slovenian-4p")
    p.add_argument("--teacher", default="heuristic")
    p.add_argument("--tables", type=int, default=256)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--steps", type=int, default=200, help="steps per table per round")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval_hands", type=int, default=800)
    p.add_argument("--out", default="")
    p.add_argument("--init", default="", help="start from these weights (a .npz of model.py)")
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    env = te.VecEnv(a.variant, a.tables, seed=a.seed * 1000003)
    model = Model(env.observation_size, env.num_actions, a.hidden, a.seed, a.variant,
                  te.ENCODING_VERSION)
    if a.init:
        model = load(a.init, a.variant, te.ENCODING_VERSION, env.observation_size,
                     env.num_actions)
    data = None
    opt = None
    for r in range(a.rounds):
        beta = 1.0 if r == 0 and not a.init else 0.5 ** max(r, 1)
        X, M, Y = collect(env, None if r == 0 else model, a.teacher, a.steps, beta, rng)
        if data is None:
            data = (X, M, Y)
        else:
            data = tuple(np.concatenate([d, x]) for d, x in zip(data, (X, M, Y)))
        opt = train(model, *data, epochs=a.epochs, lr=a.lr, batch=512, rng=rng, state=opt)
        print(f"round {r}: {len(data[2])} decisions, agreement with {a.teacher} on the new ones "
              f"{accuracy(model, X, M, Y):.3f}, {time.time() - t0:.0f} s", flush=True)
    if a.out:
        model.save(a.out)
        print(f"saved {a.out}")
    if a.eval_hands:
        res = envs.evaluate(lambda o, m, ph: model.act(o, m), a.variant, "heuristic",
                            hands=a.eval_hands, seed=a.seed + 77)
        print(f"against heuristic opponents, duplicate deals: {res['mean']:+.2f} "
              f"+- {res['ci95']:.2f} points per hand ({res['hands']} hands), "
              f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
