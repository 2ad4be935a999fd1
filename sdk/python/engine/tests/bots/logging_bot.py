"""A random bot that appends every decision request it gets, as the referee
sent it, to decisions.jsonl beside this file (one JSON line each, written before
it answers, so the file holds a match's decisions in the order they happened)."""

from __future__ import annotations

import random
from pathlib import Path

from google.protobuf import json_format

from tarock_bot import Bot, Situation

LOG = Path(__file__).with_name("decisions.jsonl")


class LoggingBot(Bot):
    name = "logging-bot"

    def decide(self, s: Situation) -> str:
        line = json_format.MessageToJson(s.request, indent=None, preserving_proto_field_name=True)
        with LOG.open("a") as f:
            f.write(line + "\n")
        rng = random.Random(f"{s.hand_index}/{s.seat}/{len(s.history)}/{s.request.request_id}")
        return rng.choice(s.legal)
