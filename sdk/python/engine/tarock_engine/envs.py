"""Helpers around VecEnv for training and evaluation (docs/python.md, "VecEnv").

    import numpy as np
    from tarock_engine import VecEnv, envs
    env = VecEnv("slovenian-4p", 1024, seed=1, seat_bots=["agent", "heuristic", "heuristic", "heuristic"])
    rng = np.random.default_rng(0)
    for _ in range(1000):
        env.step(envs.random_actions(env, rng))

Everything here is numpy over the VecEnv's arrays; the rules stay in C++.
"""

import math
from typing import Callable, Optional, Sequence

import numpy as np

from tarock_engine import _core


def random_actions(env, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action index for every table (int32)."""
    n = env.num_envs
    k = (rng.random(n) * env.num_legal).astype(np.int64)
    return env.legal[np.arange(n), k].astype(np.int32)


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the index of the highest score among the legal actions (int32)."""
    return np.where(mask, scores, -np.inf).argmax(axis=1).astype(np.int32)


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the softmax over the legal actions (0 elsewhere)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def sample_masked(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, an action drawn from the masked softmax (int32)."""
    p = masked_softmax(logits, mask)
    c = p.cumsum(axis=1)
    u = rng.random((p.shape[0], 1)) * c[:, -1:]
    return np.minimum((c < u).sum(axis=1), p.shape[1] - 1).astype(np.int32)


def evaluate(policy: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray], variant: str,
             opponent: str = "heuristic", hands: int = 400, n: Optional[int] = None,
             seed: int = 1, options: Optional[dict] = None) -> dict:
    """The duplicate-adjusted score per hand of `policy` (obs, mask, phase ->
    action indices) in one seat against `opponent` bots in the others, on
    duplicate deals (each deal played with the policy in every seat). Returns
    {"mean", "ci95" (half-width), "hands"}: the policy's score minus the mean
    score of the opponent bots that held the same cards at the other tables
    of its duplicate group (points per hand)."""
    seats = _core.Game(variant, options or {}).num_seats
    if n is None:
        n = seats * 16
    bots = ["agent"] + [opponent] * (seats - 1)
    env = _core.VecEnv(variant, n, seed=seed, options=options or {}, seat_bots=bots,
                       duplicate=True)
    got = []
    guard = 0
    while len(got) < hands:
        env.step(policy(env.obs, env.mask, env.phase))
        dup = env.dup_reward
        # The agent sits at seat (table % seats) of table i (rotation): its cards'
        # adjusted score is dup_reward[i, i % seats].
        for i in np.nonzero(env.dup_done)[0]:
            got.append(float(dup[i, i % seats]) * seats / (seats - 1))
        guard += 1
        if guard > 200000:
            raise RuntimeError("evaluate: no hands finish")
    x = np.asarray(got[:hands])
    sd = float(x.std(ddof=1)) if len(x) > 1 else 0.0
    return {"mean": float(x.mean()), "ci95": 1.96 * sd / math.sqrt(max(1, len(x))),
            "hands": int(len(x))}
