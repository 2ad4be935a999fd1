"""A broken Python bot for check-bot's tests; BROKEN_MODE picks the bug:
  illegal  plays a card it does not hold once the play starts
  raises   raises an exception in the play phase
  crash    ends its own process at its third decision
  sleeps   answers its third decision after 1 s
"""

import os
import time

from tarock_bot import Bot, Situation, cards

MODE = os.environ.get("BROKEN_MODE", "illegal")


class Broken(Bot):
    name = "broken"

    def __init__(self) -> None:
        self.n = 0

    def decide(self, s: Situation) -> str:
        self.n += 1
        if MODE == "illegal" and s.phase == "play":
            other = sorted(set(cards.ALL_CARDS) - set(s.hand), key=cards.card_index)[0]
            return cards.play_action(other)
        if MODE == "raises" and s.phase == "play":
            return s.hand[100]
        if MODE == "crash" and self.n == 3:
            os._exit(7)
        if MODE == "sleeps" and self.n == 3:
            time.sleep(1)
        return s.legal[0]
