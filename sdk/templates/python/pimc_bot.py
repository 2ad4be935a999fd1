"""A bot that searches (docs/tutorial.md, "A bot that searches"): perfect-
information Monte Carlo over the referee's own engine (tarock_engine).

At a decision with a choice it samples complete hands that fit everything its
seat has seen, tries each legal action in each of them, finishes the hand with
random play (in C++), and takes the action with the best mean score (its own
score minus the others' mean). Bidding,
announcements and kontra it leaves alone (pass where it may: random play
cannot judge a contract); where no sample can be made it lays away its
cheapest card or takes the first legal action.

    tarock match --variant slovenian-4p me=py:pimc_bot.py h1=tarock-bot-heuristic ...
"""

from __future__ import annotations

import random
import time

from tarock_bot import Bot, Situation, card_value

SEARCHED = {"play", "discard", "talon", "king-call"}


class PimcBot(Bot):
    name = "pimc-python-bot"
    worlds = 24          # sampled hands per decision
    budget_s = 0.25      # at most this long per decision (the default limit is 10 s)

    def __init__(self) -> None:
        self.rng = random.Random(2026)

    def decide(self, s: Situation) -> str:
        if len(s.legal) == 1:
            return s.legal[0]
        if s.phase not in SEARCHED:
            return "pass" if s.is_legal("pass") else s.legal[0]
        try:
            worlds = s.samples(self.worlds, self.rng)
        except (NotImplementedError, ValueError):  # no sampler here, or no deal fits
            return self.fallback(s)
        deadline = time.monotonic() + min(self.budget_s, s.time_left_ms / 4000)
        total = {a: 0.0 for a in s.legal}
        for world in worlds:
            for action in s.legal:
                after = world.clone()
                after.apply(action)
                after.random_playout(self.rng.getrandbits(64))
                scores = after.scores  # ours against the others' mean: defenders often score 0
                total[action] += scores[s.seat] - (sum(scores) - scores[s.seat]) / (len(scores) - 1)
            if time.monotonic() > deadline:
                break
        return max(s.legal, key=lambda a: total[a])

    def fallback(self, s: Situation) -> str:
        discards = [a for a in s.legal if a.startswith("discard ")]
        if discards:  # lay away the cheapest card
            return min(discards, key=lambda a: card_value(a.split()[1]))
        return s.legal[0]


def make_bot() -> Bot:
    return PimcBot()
