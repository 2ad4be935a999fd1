"""Tarock Arena's Python bot SDK.

Write one class (or one function) that takes what your seat may see and
returns one of the legal actions, then serve it::

    python3 -m tarock_bot serve mybot.py --listen 127.0.0.1:7801

or let the referee start it: ``tarock match ... me=py:mybot.py`` and
``tarock check-bot py:mybot.py``. See sdk/python/README.md and docs/tutorial.md.
"""

from __future__ import annotations

from . import cards
from .bot import Bot, BotFactory, BotSession, FunctionBot, MatchInfo, Situation, as_factory
from .cards import (
    ALL_CARDS,
    Card,
    card_of_action,
    card_points,
    card_points_thirds,
    card_value,
    is_tarock,
    play_action,
    sort_cards,
    suit_of,
    trick_winner,
)



def __getattr__(name: str):
    """BotServer and serve import grpc: only when asked for (the stdio mode,
    which hosted bots run, starts without it)."""
    if name in ("BotServer", "serve"):
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ALL_CARDS",
    "Bot",
    "BotFactory",
    "BotServer",
    "BotSession",
    "Card",
    "FunctionBot",
    "MatchInfo",
    "Situation",
    "as_factory",
    "card_of_action",
    "card_points",
    "card_points_thirds",
    "card_value",
    "cards",
    "is_tarock",
    "play_action",
    "serve",
    "sort_cards",
    "suit_of",
    "trick_winner",
]

__version__ = "0.1.0"
