"""A test bot that plays uniformly random legal actions and checks the SDK's
helpers against the referee's own account at every decision: who won each
trick (the next trick's leader), the seats of the current trick, the cards it
may play, the cards it cannot see. It appends one JSON line per match to
<this file>.out: the tricks it checked and every disagreement."""

from __future__ import annotations

import json
import random
from pathlib import Path

from tarock_bot import Bot, MatchInfo, Situation, cards

OUT = Path(__file__).with_suffix(".out")


class Checker(Bot):
    name = "checker"

    def __init__(self) -> None:
        self.rng = random.Random()
        self.checked = 0
        self.decisions = 0
        self.violations: list[str] = []

    def start_match(self, match: MatchInfo) -> None:
        self.rng.seed(1000 + match.seat)

    def bad(self, what: str, s: Situation) -> None:
        if len(self.violations) < 20:
            self.violations.append(f"{what}: {s!r} history={s.history}")

    def decide(self, s: Situation) -> str:
        self.decisions += 1
        if not s.legal:
            self.bad("no legal actions", s)
        if not set(s.playable_cards) <= set(s.hand):
            self.bad("playable cards outside the hand", s)
        if s.unknown_cards() & set(s.hand):
            self.bad("own cards among the unknown ones", s)
        plays = [(seat, a[5:]) for seat, a in s.history if a.startswith("play ")]
        size = 4 if s.variant == "slovenian-5p" else s.num_seats
        tricks = [plays[i:i + size] for i in range(0, len(plays), size)]
        for k, trick in enumerate(tricks):
            if len(trick) < size:
                # The current trick: its seats must match the history's.
                if [seat for seat, _ in trick] != s.trick_seats():
                    self.bad(f"trick_seats {s.trick_seats()} vs {trick}", s)
                continue
            if k + 1 < len(tricks):
                next_leader = tricks[k + 1][0][0]
            elif s.phase == "play" and not s.trick:
                next_leader = s.seat  # we lead: we won the last trick
            else:
                continue
            pos = s.trick_winner([c for _, c in trick])
            self.checked += 1
            if pos is None or trick[pos][0] != next_leader:
                self.bad(f"trick {trick}: SDK says position {pos}, the referee gave it to seat "
                         f"{next_leader} (contract {s.contract})", s)
        if s.trick:
            current = s.trick_winner()
            if current not in s.trick_seats():
                self.bad("current winner not in the trick", s)
        return self.rng.choice(s.legal)

    def end_match(self, result) -> None:  # type: ignore[no-untyped-def]
        with OUT.open("a") as f:
            f.write(json.dumps({"checked": self.checked, "decisions": self.decisions,
                                "violations": self.violations}) + "\n")
