"""A student's side of an arena event from the Python SDK alone
(docs/events.md, "Sign-up"): join an event, register a bot into it, upload a
version, list the versions, read a seat's log. ``python3 -m tarock_bot
join|register|upload|versions|log ...``; no ``tarock-arena-cli`` needed.

Tokens come from the environment so that they stay out of the command line
and ``ps``: the entrant token from TAROCK_ENTRANT_TOKEN (``register``), the
bot's token from TAROCK_BOT_TOKEN (``upload``, ``versions``, ``log``); the
arena's address from ``--arena`` or TAROCK_ARENA.

The calls are the arena's gRPC methods (tarock.v1.Arena and tarock.v1.Hosting,
arena.proto and hosting.proto), made with the generated messages of the
wheel; each failure is one line on standard error and exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Optional

import grpc

from . import _proto
from .transport import Transport


def _call(transport: Transport, arena: str, method: str, request: Any, response_type: Any) -> Any:
    if not arena:
        raise ValueError("no arena: give --arena HOST:PORT (or set TAROCK_ARENA)")
    channel = transport.channel(arena)
    try:
        rpc: Callable[..., Any] = channel.unary_unary(
            method, request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_type.FromString)
        return rpc(request, timeout=60)
    finally:
        channel.close()


UPLOAD_PIECE = 512 << 10


def _upload(transport: Transport, arena: str, hosting_pb2: Any, path: str, bot: str,
            token: str, kind: str, entry: str) -> Any:
    """Hosting.UploadVersionStream: the file read and sent in pieces of 512 KiB
    (no message over the arena's --max_request_bytes, and never the whole file
    in one message); the arena refuses it in one line as soon as it passes its
    --max_upload_bytes."""
    if not arena:
        raise ValueError("no arena: give --arena HOST:PORT (or set TAROCK_ARENA)")
    total = os.path.getsize(path)

    def pieces() -> Any:
        with open(path, "rb") as f:
            first = True
            while True:
                data = f.read(UPLOAD_PIECE)
                if first:
                    yield hosting_pb2.UploadVersionRequest(
                        bot=bot, token=token, filename=os.path.basename(path), content=data,
                        kind=kind, entry=entry, total_bytes=total)
                    first = False
                elif data:
                    yield hosting_pb2.UploadVersionRequest(content=data)
                if not data:
                    return

    channel = transport.channel(arena)
    try:
        rpc: Callable[..., Any] = channel.stream_unary(
            "/tarock.v1.Hosting/UploadVersionStream",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=hosting_pb2.VersionInfo.FromString)
        return rpc(pieces(), timeout=300)
    finally:
        channel.close()


def _env(name: str) -> str:
    return os.environ.get(name, "")


def add_account_commands(sub: "argparse._SubParsersAction[argparse.ArgumentParser]",
                         add_transport: Callable[[argparse.ArgumentParser], None]) -> None:
    """The subcommands join, register, upload, versions and log."""
    def arena_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--arena", default=_env("TAROCK_ARENA"),
                       help="HOST:PORT of the arena (default: $TAROCK_ARENA)")
        add_transport(p)

    j = sub.add_parser("join", help="join an event with its invite code (prints your token once)")
    j.add_argument("code", help="the invite code your organiser handed out")
    j.add_argument("--name", required=True, help="your name in the event")
    arena_arg(j)
    r = sub.add_parser("register", help="register a bot into an event (entrant token: "
                                        "$TAROCK_ENTRANT_TOKEN)")
    r.add_argument("bot", help="the bot's name (letters, digits, '-', '_', '.')")
    r.add_argument("--event", required=True, help="the event's slug")
    r.add_argument("--variants", required=True, help="the variants it plays, comma-separated")
    how = r.add_mutually_exclusive_group()
    how.add_argument("--dial_in", action="store_true",
                     help="it dials in (python3 -m tarock_bot connect; the default)")
    how.add_argument("--hosted", action="store_true",
                     help="the arena's bot hosts run it (then python3 -m tarock_bot upload)")
    arena_arg(r)
    u = sub.add_parser("upload", help="upload a version of a bot (bot token: $TAROCK_BOT_TOKEN)")
    u.add_argument("bot")
    u.add_argument("path", help="a .py file, or a .zip with tarock.json")
    u.add_argument("--kind", default="", help="python, cpp or stdio (default: by convention)")
    u.add_argument("--entry", default="", help="the entry point (default: tarock.json or convention)")
    arena_arg(u)
    v = sub.add_parser("versions", help="a bot's versions and their builds ($TAROCK_BOT_TOKEN)")
    v.add_argument("bot")
    arena_arg(v)
    lg = sub.add_parser("log", help="a hosted bot's standard error in one match ($TAROCK_BOT_TOKEN)")
    lg.add_argument("match", help="the match id")
    lg.add_argument("--bot", required=True)
    arena_arg(lg)


ACCOUNT_COMMANDS = ("join", "register", "upload", "versions", "log")


def run_account_command(args: argparse.Namespace, transport: Transport) -> int:
    arena_pb2 = _proto.arena_pb2
    hosting_pb2 = _proto.hosting_pb2
    try:
        if args.command == "join":
            out = _call(transport, args.arena, "/tarock.v1.Arena/JoinEvent",
                        arena_pb2.JoinEventRequest(code=args.code, name=args.name),
                        arena_pb2.JoinEventResponse)
            print(f"entrant {out.entrant} in {out.event}\ntoken {out.token}   (shown once: keep it)")
            print(out.connect_line)
            return 0
        if args.command == "register":
            token = _env("TAROCK_ENTRANT_TOKEN")
            if not token:
                print("tarock_bot: set TAROCK_ENTRANT_TOKEN to your entrant token "
                      "(the line your organiser or the join page gave you)", file=sys.stderr)
                return 1
            req = arena_pb2.AddBotRequest(
                name=args.bot, variants=[x for x in args.variants.split(",") if x],
                dial_in=not args.hosted, hosted=args.hosted, event=args.event,
                entrant_token=token)
            out = _call(transport, args.arena, "/tarock.v1.Arena/AddBot", req,
                        arena_pb2.AddBotResponse)
            print(f"bot {out.bot.name} registered in {args.event}")
            print(f"export TAROCK_BOT_TOKEN={out.token}   (the bot's token, shown once: keep it)")
            where = f" --arena {args.arena}" + (f" --tls_ca {args.tls_ca}" if args.tls_ca else "")
            if args.hosted:
                print(f"then: python3 -m tarock_bot upload {out.bot.name} mybot.py{where}")
            else:
                print(f"then: python3 -m tarock_bot connect mybot.py{where}")
            return 0
        token = _env("TAROCK_BOT_TOKEN")
        if not token:
            print("tarock_bot: set TAROCK_BOT_TOKEN to the bot's token (printed by register)",
                  file=sys.stderr)
            return 1
        if args.command == "upload":
            out = _upload(transport, args.arena, hosting_pb2, args.path, args.bot, token,
                          args.kind, args.entry)
            print(f"version {out.id} of {out.bot}: {out.status} ({out.kind}, sha256 {out.sha256[:16]})")
            if out.note:  # byte-identical to the bot's current version: nothing new stored
                print(out.note)
            if out.status == "building":
                print("a bot host builds it: `python3 -m tarock_bot versions` shows when it is "
                      "ready (it stays building while the arena has no bot host)")
            return 0
        if args.command == "versions":
            out = _call(transport, args.arena, "/tarock.v1.Hosting/ListVersions",
                        hosting_pb2.ListVersionsRequest(bot=args.bot, token=token),
                        hosting_pb2.ListVersionsResponse)
            if not out.versions:
                print(f"{args.bot}: no version uploaded")
            for v in out.versions:
                print(f"v{v.id}  {v.status:9}  {v.kind:6}  uploaded {v.uploaded_at}"
                      + (f"  ready {v.ready_at}" if v.ready_at else ""))
                if v.status == "failed" and v.build_log:
                    print("    " + v.build_log.strip().replace("\n", "\n    "))
            return 0
        if args.command == "log":
            out = _call(transport, args.arena, "/tarock.v1.Hosting/GetSeatLog",
                        hosting_pb2.GetSeatLogRequest(match_id=args.match, bot=args.bot, token=token),
                        hosting_pb2.SeatLog)
            text = out.log.decode("utf-8", "replace")
            print(text if text else f"(no standard error from {args.bot} in {args.match})")
            return 0
    except grpc.RpcError as e:
        print(f"tarock_bot: {args.command}: {e.code().name}: {e.details()}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as e:
        print(f"tarock_bot: {args.command}: {e}", file=sys.stderr)
        return 1
    print(f"tarock_bot: unknown command {args.command}", file=sys.stderr)
    return 1
