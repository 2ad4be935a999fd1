"""A bot that searches (docs/tutorial.md, "A bot that searches"): perfect-
information Monte Carlo over the referee's own engine (tarock_engine).

In the play it samples complete hands that fit everything its seat has seen,
tries each legal card in each of them, finishes the hand with quick play (in
C++: the bundled heuristic bot for every seat, from that seat's own view), and
plays the card with the best mean score (its own score minus the others' mean).
Bidding, the talon, announcements and kontra, and any decision where no world
can be sampled, it leaves to the heuristic bot (te.heuristic_action), which
judges a contract better than a few rollouts can.

    tarock match --variant slovenian-4p me=py:pimc_bot.py h1=tarock-bot-heuristic ...
"""

from __future__ import annotations

import random
import time

import tarock_engine as te
from tarock_bot import Bot, Situation


class PimcBot(Bot):
    name = "pimc-python-bot"
    worlds = 16          # sampled hands per decision
    budget_s = 1.0       # at most about this long per decision (the default limit is 10 s)

    def __init__(self) -> None:
        self.rng = random.Random(2026)

    def decide(self, s: Situation) -> str:
        if len(s.legal) == 1:
            return s.legal[0]
        if s.phase != "play":
            return te.heuristic_action(s)
        try:
            worlds = s.samples(self.worlds, self.rng)
        except (NotImplementedError, ValueError):  # no sampler here, or no deal fits
            return te.heuristic_action(s)
        limit = min(self.budget_s, s.time_left_ms / 4000) if s.time_left_ms else self.budget_s
        deadline = time.monotonic() + limit
        total = {a: 0.0 for a in s.legal}
        for world in worlds:
            for action in s.legal:
                after = world.clone()
                after.apply(action)
                te.heuristic_playout(after, self.rng)
                scores = after.scores  # ours against the others' mean: defenders often score 0
                total[action] += scores[s.seat] - (sum(scores) - scores[s.seat]) / (len(scores) - 1)
            if time.monotonic() > deadline:
                break
        return max(s.legal, key=lambda a: total[a])


def make_bot() -> Bot:
    return PimcBot()
