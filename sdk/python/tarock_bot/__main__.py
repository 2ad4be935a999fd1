"""``python3 -m tarock_bot serve BOT.py --listen HOST:PORT``: serves the bot
defined in BOT.py over gRPC.

``python3 -m tarock_bot connect BOT.py --arena HOST:PORT --token TOKEN``: the
bot dials in to an arena instead (no listening port; docs/dial-in.md). The
token may come from the environment variable TAROCK_BOT_TOKEN (keeps it out of
``ps``), the address from TAROCK_ARENA.

Which bot in the file: ``--bot NAME`` names it (a Bot subclass, a function
returning a Bot, or a ``decide(s)`` function); otherwise the first that exists
of: a function ``make_bot()``, the one Bot subclass defined in the file, a
function ``decide(s)``. The file's directory is put on ``sys.path`` so the bot
can import its own helper modules.

``python3 -m tarock_bot join CODE --name NAME``, ``register BOT --event SLUG
--variants V [--hosted]``, ``upload BOT FILE``, ``versions BOT``, ``log MATCH
--bot BOT`` (each with ``--arena``): a student's side of an event, with the
tokens in TAROCK_ENTRANT_TOKEN and TAROCK_BOT_TOKEN (tarock_bot/account.py).

Options: ``--name`` (the name sent in Hello; default: the class's ``name``
attribute or the file name), ``--log FILE`` (append standard error, e.g. the
tracebacks of a bot that raises, to FILE).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys
from types import ModuleType
from typing import Optional, Sequence

from .bot import Bot, BotFactory, as_factory


def load_module(path: str) -> ModuleType:
    """Imports a Python file as a module (its directory goes on sys.path)."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such bot file: {path}")
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def find_bot(module: ModuleType, attr: Optional[str] = None) -> tuple[BotFactory, str]:
    """The bot factory of a module and a default name for it."""
    stem = module.__name__
    if attr:
        if not hasattr(module, attr):
            raise LookupError(f"{module.__file__} has no '{attr}'")
        thing = getattr(module, attr)
        if isinstance(thing, type) and issubclass(thing, Bot):
            return thing, thing.name or stem
        if callable(thing):
            params = inspect.signature(thing).parameters
            if len(params) == 0:  # a factory
                return thing, stem
            return as_factory(thing), stem
        raise TypeError(f"'{attr}' in {module.__file__} is not a bot")
    make = getattr(module, "make_bot", None)
    if callable(make):
        return make, stem
    classes = [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, Bot) and v.__module__ == module.__name__
    ]
    if len(classes) == 1:
        return classes[0], classes[0].name or stem
    if len(classes) > 1:
        names = ", ".join(c.__name__ for c in classes)
        raise LookupError(f"{module.__file__} defines several Bot classes ({names}): pick one with --bot")
    decide = getattr(module, "decide", None)
    if callable(decide):
        return as_factory(decide), stem
    raise LookupError(
        f"{module.__file__} defines no bot: want a Bot subclass, a make_bot() function "
        "or a decide(s) function"
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tarock_bot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    # grpc is imported only for the commands that use it (stdio starts fast).
    if argv is None:
        argv = sys.argv[1:]
    if list(argv[:1]) == ["stdio"]:
        st = sub.add_parser("stdio", help="play one match over standard input and output")
        st.add_argument("path", help="the bot's Python file")
        st.add_argument("--bot", default=None, help="the class or function in the file to play")
        args = parser.parse_args(argv)
        try:
            module = load_module(args.path)
            factory, _ = find_bot(module, args.bot)
        except Exception as e:  # noqa: BLE001
            import traceback

            traceback.print_exc()
            print(f"tarock_bot: {args.path}: {e}", file=sys.stderr)
            return 1
        from .stdio import run_stdio

        return run_stdio(factory)
    from .server import serve
    from .transport import add_transport_arguments, secret_from_flag_or_env, transport_from_arguments

    s = sub.add_parser("serve", help="serve a bot file over gRPC")
    s.add_argument("path", help="the bot's Python file")
    s.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT (port 0: pick a free one)")
    s.add_argument("--bot", default=None, help="the class or function in the file to serve")
    s.add_argument("--name", default=None, help="the name sent to the referee in Hello")
    s.add_argument("--version", default="", help="the version sent in Hello")
    s.add_argument("--log", default=None, help="append standard error to this file")
    s.add_argument("--referee_secret", default=None,
                   help="the referee secret the arena gave at registration: streams from "
                        "referees that cannot prove it are refused (default: "
                        "$TAROCK_REFEREE_SECRET; empty: accept any)")
    add_transport_arguments(s)
    c = sub.add_parser("connect", help="dial in to an arena (no listening port)")
    c.add_argument("path", help="the bot's Python file")
    c.add_argument("--arena", default=os.environ.get("TAROCK_ARENA", ""),
                   help="HOST:PORT of the arena (default: $TAROCK_ARENA)")
    c.add_argument("--token", default=None,
                   help="the bot's token (default: $TAROCK_BOT_TOKEN, which keeps it out of ps)")
    c.add_argument("--bot", default=None, help="the class or function in the file to play")
    c.add_argument("--name", default=None, help="the name sent to the arena in Hello")
    c.add_argument("--version", default="", help="the version sent in Hello")
    c.add_argument("--log", default=None, help="append standard error to this file")
    add_transport_arguments(c)
    from .account import ACCOUNT_COMMANDS, add_account_commands, run_account_command

    add_account_commands(sub, add_transport_arguments)
    args = parser.parse_args(argv)
    if args.command in ACCOUNT_COMMANDS:
        try:
            transport = transport_from_arguments(args)
        except ValueError as e:
            print(f"tarock_bot: {e}", file=sys.stderr)
            return 1
        return run_account_command(args, transport)

    if args.log:
        fd = os.open(args.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
    try:
        module = load_module(args.path)
        factory, default_name = find_bot(module, args.bot)
    except Exception as e:  # noqa: BLE001 - one line for the user, traceback for the log
        import traceback

        traceback.print_exc()
        print(f"tarock_bot: {args.path}: {e}", file=sys.stderr)
        return 1
    try:
        transport = transport_from_arguments(args)
    except ValueError as e:
        print(f"tarock_bot: {e}", file=sys.stderr)
        return 1
    if args.command == "connect":
        from .connect import connect

        token = args.token if args.token is not None else os.environ.get("TAROCK_BOT_TOKEN", "")
        return connect(factory, arena=args.arena, token=token, name=args.name or default_name,
                       version=args.version, transport=transport)
    return serve(factory, listen=args.listen, name=args.name or default_name, version=args.version,
                 transport=transport,
                 referee_secret=secret_from_flag_or_env(args.referee_secret,
                                                        "TAROCK_REFEREE_SECRET"))


if __name__ == "__main__":
    sys.exit(main())
