"""A bot that holds its first decision of every match until a gate opens
(tests/sealed_slot_test.sh): the file $GATE_DIR/<match id>, or $GATE_DIR/all,
exists (at most 120 s). Then it plays the first legal action."""
import os
import time

from tarock_bot import Bot

GATE_DIR = os.environ["GATE_DIR"]


class Gate(Bot):
    name = "gate"

    def start_match(self, match) -> None:
        self.match_id = match.match_id
        self.held = True

    def decide(self, s) -> str:
        if self.held:
            deadline = time.time() + 120
            while time.time() < deadline and not any(
                    os.path.exists(os.path.join(GATE_DIR, name)) for name in (self.match_id, "all")):
                time.sleep(0.02)
            self.held = False
        return s.legal[0]
