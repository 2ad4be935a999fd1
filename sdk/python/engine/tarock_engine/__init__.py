"""The Tarock Arena engine in Python: the referee's own rules (docs/python.md).

    import tarock_engine as te
    game = te.Game("slovenian-4p")            # any variant of te.variants(), with options
    state = game.new_hand(seed=7, dealer=0)   # or hands=..., talon=...; game.match_hand(...)
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])  # an index of the action space, or "play T21"
    print(state.scores, state.result()["contract"])

From a live decision of the Python SDK (tarock_bot.Situation) to worlds that fit
what the seat has seen: ``situation.sample(rng)``, ``situation.samples(n, rng)``,
or here ``sample(situation, rng)`` and ``Sampler``.

Nothing here has rules of its own: Game and State are the engine the referee
runs (compiled into tarock_engine._core).
"""

from __future__ import annotations

import json
import random as _random
import threading
from typing import Any, Mapping, Optional, Union

from tarock_engine._core import Game, Sampler, State, variants  # noqa: F401
from tarock_engine import _core  # noqa: F401

__version__ = "0.1.0"

__all__ = [
    "Game",
    "State",
    "Sampler",
    "variants",
    "game",
    "sample",
    "samples",
    "sampler",
    "situation",
    "replay",
    "heuristic_action",
    "heuristic_playout",
]

_games: dict = {}
_games_lock = threading.Lock()


def game(variant: str, options: Optional[Mapping[str, str]] = None) -> Game:
    """The Game of a variant and its options, made once per process and shared
    (a Game is immutable and thread-safe)."""
    key = (variant, tuple(sorted((options or {}).items())))
    with _games_lock:
        g = _games.get(key)
        if g is None:
            g = Game(variant, dict(options or {}))
            _games[key] = g
        return g


def _seed(rng: Any) -> int:
    """A 64-bit seed from an int, a random.Random, a numpy Generator or None."""
    if rng is None:
        return _random.getrandbits(64)
    if isinstance(rng, int):
        return rng & 0xFFFFFFFFFFFFFFFF
    if hasattr(rng, "getrandbits"):
        return rng.getrandbits(64)
    if hasattr(rng, "integers"):  # numpy.random.Generator
        return int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2))
    raise TypeError(f"rng: want an int seed, random.Random or numpy Generator, not {type(rng).__name__}")


def sampler(situation: Any, forced_klop: Optional[bool] = None) -> Sampler:
    """The Sampler of a tarock_bot.Situation (its variant, options and request).
    Raises NotImplementedError where the determinizer does not work (the
    Austrian variants and westfest before the announcements), ValueError for an
    observation that no deal fits."""
    if forced_klop is None:
        forced_klop = getattr(situation, "forced_klop", None)
    g = game(situation.variant, situation.options)
    return Sampler(g, situation.request.SerializeToString(), forced_klop)


def sample(situation: Any, rng: Any = None) -> State:
    """One State consistent with everything the situation's seat has seen."""
    return sampler(situation).sample(_seed(rng))


def samples(situation: Any, n: int, rng: Any = None) -> list:
    """n States consistent with the situation (sampled without the GIL)."""
    return sampler(situation).samples(n, _seed(rng))


def heuristic_action(where: Any, seat: Optional[int] = None) -> str:
    """The bundled heuristic bot's action (text) for a tarock_bot.Situation, or
    for `seat` of a State (it must be that seat's turn). The bot decides from
    the seat's own request (what the referee sends that seat), never from the
    other hands."""
    if isinstance(where, State):
        if seat is None:
            seat = where.current_seat
        return _core.heuristic_action(where.game, where.decision_request_proto(seat))
    return _core.heuristic_action(game(where.variant, where.options), where.request.SerializeToString())


def heuristic_playout(state: State, rng: Any = None, epsilon: float = 0.0) -> int:
    """Plays `state` to the end of the hand in C++, every seat deciding as the
    heuristic bot from its own observation (a random legal action with
    probability epsilon); returns how many actions were applied."""
    return _core.heuristic_playout(state, _seed(rng), epsilon)


def situation(state: State, seat: int, hand_index: int = 0, match: Any = None) -> Any:
    """The tarock_bot.Situation the referee would give `seat` at this point of
    `state` (needs the Python SDK, tarock_bot)."""
    from tarock_bot import MatchInfo, Situation
    from tarock_bot._proto import pb

    request = pb.DecisionRequest.FromString(state.decision_request_proto(seat, hand_index))
    g = state.game
    if match is None:
        match = MatchInfo(variant=g.variant, options=dict(g.options), seat=seat, num_seats=g.num_seats)
    return Situation(match, request)


def replay(record: Union[str, Mapping[str, Any]], upto: Optional[int] = None) -> list:
    """The hands of a hand record or a match record (`tarock match --record`,
    `tarock deal`; JSON text or its dict), each a State with its first `upto`
    actions applied (all by default). A recorded hand's `scores`, when present,
    are what State.scores gives after replaying it."""
    data = json.loads(record) if isinstance(record, str) else dict(record)
    hands = data["deals"] if "deals" in data else [data]
    out = []
    for hand in hands:
        hand = dict(hand)
        # A match record may give the variant and options once at the top.
        hand.setdefault("variant", data.get("variant"))
        hand.setdefault("options", data.get("options", {}))
        g = game(hand["variant"], hand["options"])
        out.append(g.from_record(json.dumps(hand), upto))
    return out
from tarock_engine._core import ENCODING_VERSION, PHASES, Encoder, VecEnv  # noqa: F401,E402  (learning: docs/python.md)
