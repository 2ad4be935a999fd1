"""A bot that writes down everything its seat is told (tests/secret_deals_test.sh).

Every MatchStart, HandStart, DecisionRequest, HandResult and MatchResult goes
to $SPY_LOG as one JSON line (the message in protobuf text format and the
cards it names), so the test can look for anything the seat should not know.
In the tournament it waits at its first decision of the second match it plays
until the file $SPY_GATE exists (at most 60 s), so the test can look at the
arena while one table of a duplicate set has finished and another has not.
At its first decision of the first tournament match it plays, it answers its
whole hand as an "action" ("LEAK-MARKER T1 ..."): the fault's detail then holds
its cards, and the test checks that no public route shows it while the deal
is still played at another table.
With $SPY_HOLD_FIRST set it waits so at the first decision of the first match
it plays instead (tests/redeal_test.sh: the referee is killed meanwhile).
"""
import json
import os
import time

from tarock_bot import Bot

LOG = os.environ["SPY_LOG"]
GATE = os.environ.get("SPY_GATE", "")
_matches: list[str] = []


def _write(kind: str, match_id: str, text: str, **extra) -> None:
    with open(LOG, "a") as f:
        f.write(json.dumps({"kind": kind, "match": match_id, "text": text, **extra}) + "\n")


class Spy(Bot):
    name = "spy"

    def start_match(self, match) -> None:
        self.match = match
        _matches.append(match.match_id)
        self.leak_once = match.match_id.startswith("T") and \
            sum(m.startswith("T") for m in _matches) == 1
        if os.environ.get("SPY_HOLD_FIRST"):
            self.blocked = GATE and len(_matches) == 1
        else:
            self.blocked = GATE and match.match_id.startswith("T") and \
                sum(m.startswith("T") for m in _matches) == 2
        _write("match_start", match.match_id, repr(match), seat=match.seat)

    def start_hand(self, hand) -> None:
        _write("hand_start", self.match.match_id, str(hand), hand_index=hand.hand_index,
               cards=list(hand.hand))

    def decide(self, s) -> str:
        _write("decision", self.match.match_id, str(s.request), hand_index=s.hand_index,
               cards=[str(c) for c in s.hand])
        if self.blocked:
            deadline = time.time() + 60
            while not os.path.exists(GATE) and time.time() < deadline:
                time.sleep(0.05)
            self.blocked = False
        if self.leak_once:
            self.leak_once = False
            return "LEAK-MARKER " + " ".join(str(c) for c in s.hand)
        return s.legal[0]

    def end_hand(self, result) -> None:
        _write("hand_result", self.match.match_id, str(result))

    def end_match(self, result) -> None:
        _write("match_result", self.match.match_id, str(result))
