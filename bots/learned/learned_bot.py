"""The learned bot: a numpy network trained by bots/learned/train.py, served
through the Python SDK (bots/learned/README.md).

    tarock match --variant slovenian-4p me=py:bots/learned/learned_bot.py \
        h1=build/bin/tarock-bot-heuristic h2=... h3=...

The weights (VARIANT.npz beside this file, or $TAROCK_LEARNED_MODEL) are loaded
once when the module is imported, before the first match starts, so the load
time is part of the bot's start (what a bot host measures as its start cost).
A file that does not load stops the bot at start with one error line.

Inference is batched across the seats this process plays: every seat's
decide() puts its observation in one queue, and whichever seat finds the
model idle runs one forward pass for all the observations waiting (one matrix
product for many seats, when a process serves several matches at once).
Phases the model was not trained for (any variant without a weights file) fall
back to the first legal action; that never happens for a variant it ships for.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import tarock_engine as te  # noqa: E402
from tarock_bot import Bot, Situation  # noqa: E402
import features as F  # noqa: E402
from model import load  # noqa: E402


class BatchedPolicy:
    """One model for one variant; act() may be called from many threads."""

    def __init__(self, variant: str, path: str) -> None:
        self.game = te.Game(variant)
        self.enc = te.Encoder(self.game)
        self.names = self.game.action_names
        self.model = load(path, variant, te.ENCODING_VERSION, self.enc.observation_size,
                          self.enc.num_actions)
        self.perms = F.pick_permutations(F.suit_permutations(self.enc.fields, self.names),
                                         self.model.tta)
        self._lock = threading.Lock()
        self._queue: list = []
        self._running = False
        self.batches = 0

    def act(self, s: Situation) -> str:
        obs, mask, phase = self.enc.encode_request(s.request.SerializeToString())
        extra, groups = F.from_proto(s.observation, s.legal)
        if groups is None:
            groups = np.zeros((F.MAX_GROUPS, 54), np.float32)
        slot = {"obs": obs, "mask": mask, "extra": extra, "phase": phase, "groups": groups,
                "done": threading.Event(), "action": None}
        with self._lock:
            self._queue.append(slot)
            lead = not self._running
            if lead:
                self._running = True
        if lead:
            while True:
                with self._lock:
                    batch, self._queue = self._queue, []
                    if not batch:
                        self._running = False
                        break
                acts = self.model.act(np.stack([b["obs"] for b in batch]),
                                      np.stack([b["mask"] for b in batch]),
                                      np.stack([b["extra"] for b in batch]),
                                      np.array([b["phase"] for b in batch]),
                                      np.stack([b["groups"] for b in batch]),
                                      perms=self.perms)
                self.batches += 1
                for b, a in zip(batch, acts):
                    b["action"] = int(a)
                    b["done"].set()
        slot["done"].wait()
        return self.names[slot["action"]]


def _model_path(variant: str) -> str:
    return os.environ.get("TAROCK_LEARNED_MODEL") or str(HERE / f"{variant}.npz")


def _load(variant: str, path: str) -> None:
    """Loads one model and says so on standard error (hosted: the seat's log),
    with its size and load time."""
    t0 = time.monotonic()
    _POLICIES[variant] = BatchedPolicy(variant, path)
    print(f"learned: {variant} model {Path(path).name} ({Path(path).stat().st_size // 1024} KiB) "
          f"loaded in {(time.monotonic() - t0) * 1000:.0f} ms", file=sys.stderr, flush=True)


# Loaded at import, before any match: the start cost includes the model's load.
_POLICIES: dict = {}
for _path in sorted(HERE.glob("*.npz")):
    _load(_path.stem, str(_path))
if os.environ.get("TAROCK_LEARNED_MODEL"):
    _load(os.environ.get("TAROCK_LEARNED_VARIANT", "slovenian-4p"), os.environ["TAROCK_LEARNED_MODEL"])


class LearnedBot(Bot):
    name = "learned"

    def decide(self, s: Situation) -> str:
        policy = _POLICIES.get(s.variant)
        if policy is None:
            return s.legal[0]
        action = policy.act(s)
        return action if s.is_legal(action) else s.legal[0]
