"""``python3 -m tarock_bot stdio BOT.py``: plays one match over standard input
and output, for hosts that run the bot in a sandbox with no network
(tarock-bothost, docs/hosting.md). Each input line is one RefereeMessage in
protobuf's JSON mapping with the proto field names ({"match_start": {...}},
{"decision_request": {...}}, ...: the stdio bridge's ``--events`` lines,
sdk/stdio/README.md), or ``pb:`` and the base64 of the binary message (what
tarock-bothost sends: parsing JSON costs ~0.4 ms a message here); each
decision request is answered with one line, the action. Nothing here imports grpc, so the bot starts quickly.
"""

from __future__ import annotations

import base64
import binascii
import sys
from typing import TextIO

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from ._proto import pb
from .bot import BotFactory, BotSession


def run_stdio(factory: BotFactory, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Reads RefereeMessage lines until end of input; answers each request."""
    session = BotSession(factory())
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        message = pb.RefereeMessage()
        try:
            if line.startswith("pb:"):
                message.ParseFromString(base64.b64decode(line[3:], validate=True))
            else:
                json_format.Parse(line, message, ignore_unknown_fields=True)
        except (json_format.ParseError, binascii.Error, DecodeError) as e:
            print(f"tarock_bot stdio: a line that is no RefereeMessage: {e}", file=sys.stderr)
            if line.startswith("{\"decision_request\"") or "legal_actions" in line:
                stdout.write("\n")
                stdout.flush()
            continue
        reply = session.handle(message)
        if message.WhichOneof("message") == "decision_request":
            action = reply.decision.action if reply is not None else ""
            stdout.write(action + "\n")
            stdout.flush()
    return 0
