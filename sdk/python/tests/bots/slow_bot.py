"""A test bot that answers legally (first legal action) but sleeps 60 ms before
its first card and every fifth card after it: check-bot must report the slow
answers. (Starting with the first card matters: with wild opponents a few
hands may hold only a handful of plays for this seat.)"""

import time

from tarock_bot import Situation

count = 0


def decide(s: Situation) -> str:
    global count
    if s.phase == "play":
        count += 1
        if count % 5 == 1:
            time.sleep(0.06)
    return s.legal[0]
