"""A test bot that answers legally (first legal action) but sleeps 60 ms before
every fifth card it plays: check-bot must report the slow answers."""

import time

from tarock_bot import Situation

count = 0


def decide(s: Situation) -> str:
    global count
    if s.phase == "play":
        count += 1
        if count % 5 == 0:
            time.sleep(0.06)
    return s.legal[0]
