"""The Python bot API: a bot author writes one class (a :class:`Bot` subclass
with a :meth:`Bot.decide` method) or one function ``decide(s) -> str``, and
``python3 -m tarock_bot serve mybot.py --listen HOST:PORT`` serves it.

::

    from tarock_bot import Bot, Situation

    class MyBot(Bot):
        name = "my-bot"

        def decide(self, s: Situation) -> str:
            if "pass" in s.legal:
                return "pass"
            return s.legal[0]

A :class:`Situation` carries the seat's complete observation (so a stateless bot
works), the legal actions, the time left, and helpers for the hand, the cards
it may play, the current trick, card points and the cards it cannot see. It
mirrors ``tarock::sdk::Situation`` of the C++ SDK (sdk/cpp/include/tarock/sdk/bot.h).

Threading: the server creates one bot instance per match stream (with the
factory: the class, or ``make_bot()``) and calls it from that stream's thread
only, so a bot needs no locking of its own.
"""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from google.protobuf import json_format

from . import cards as _cards
from ._proto import pb
from .cards import Card


@dataclass
class MatchInfo:
    """What a bot knows of its match from the MatchStart message."""

    match_id: str = ""
    variant: str = ""  # e.g. "slovenian-4p" (`tarock variants`)
    options: dict[str, str] = field(default_factory=dict)  # complete: defaults filled in
    seat: int = 0
    num_seats: int = 0
    num_hands: int = 0
    per_decision_ms: int = 0
    match_bank_ms: int = 0
    grace_ms: int = 0
    seat_names: list[str] = field(default_factory=list)

    @staticmethod
    def from_proto(m: "pb.MatchStart") -> "MatchInfo":
        return MatchInfo(
            match_id=m.match_id,
            variant=m.variant,
            options=dict(m.options),
            seat=m.seat,
            num_seats=m.num_seats,
            num_hands=m.num_hands,
            per_decision_ms=m.time_control.per_decision_ms,
            match_bank_ms=m.time_control.match_bank_ms,
            grace_ms=m.time_control.grace_ms,
            seat_names=list(m.seat_names),
        )


class Situation:
    """One decision: the request as the referee sent it, with helpers.

    Cheap to make; the helpers compute on demand. ``request`` and
    ``observation`` are the raw protocol messages (see tarock.proto) for
    anything the helpers do not cover.
    """

    def __init__(self, match: MatchInfo, request: "pb.DecisionRequest") -> None:
        self.match = match
        self.request = request
        self.observation = request.observation
        self.legal: list[str] = list(request.legal_actions)
        """The legal actions in text form ("pass", "bid three", "play T22", ...).
        Answer exactly one of them."""
        self.forced_klop: Optional[bool] = None
        """The HandStart's forced_klop flag of this hand when the session saw
        it (None: unknown; samplers then infer it)."""

    @staticmethod
    def from_json(line: str, match: Optional[MatchInfo] = None) -> "Situation":
        """A Situation from one JSON decision request, as `tarock check-bot`
        prints it and stdio bots read it: for replaying a faulty decision in a
        test or at the prompt (``MyBot().decide(Situation.from_json(line))``)."""
        request = json_format.Parse(line, pb.DecisionRequest(), ignore_unknown_fields=True)
        if match is None:
            o = request.observation
            match = MatchInfo(variant=o.variant, seat=o.seat, num_seats=o.num_seats)
        return Situation(match, request)

    # --- who and where -------------------------------------------------------
    @property
    def seat(self) -> int:
        return self.observation.seat

    @property
    def num_seats(self) -> int:
        return self.observation.num_seats

    @property
    def dealer(self) -> int:
        return self.observation.dealer

    @property
    def hand_index(self) -> int:
        return self.request.hand_index

    @property
    def phase(self) -> str:
        """"bidding", "king-call", "talon", "discard", "announce", "play", ..."""
        return self.observation.phase

    @property
    def variant(self) -> str:
        return self.observation.variant

    @property
    def options(self) -> dict[str, str]:
        """The match's variant options, defaults filled in."""
        return self.match.options

    def is_legal(self, action: str) -> bool:
        return action in self.legal

    # --- cards ---------------------------------------------------------------
    @property
    def hand(self) -> list[Card]:
        """This seat's own cards, in the engine's order."""
        return _cards.sort_cards(c for c in self.observation.hand if _cards.is_card(c))

    @property
    def playable_cards(self) -> list[Card]:
        """The cards this seat may play now (the cards of the legal "play" actions)."""
        out = []
        for a in self.legal:
            if a.startswith("play "):
                c = _cards.card_of_action(a)
                if c is not None:
                    out.append(c)
        return out

    @property
    def trick(self) -> list[Card]:
        """The current trick, in play order (empty outside play and on the lead)."""
        return [c for c in self.observation.trick if _cards.is_card(c)]

    @property
    def trick_leader(self) -> int:
        """The seat that led the current trick (-1 outside play)."""
        return self.observation.trick_leader

    def trick_seats(self) -> list[int]:
        """The seat that played each card of the current trick, in play order
        (seats follow each other; in slovenian-5p the dealer sits out)."""
        out: list[int] = []
        seat = self.trick_leader
        for _ in self.trick:
            out.append(seat)
            seat = self._next_seat(seat)
        return out

    def trick_winner(self, trick: Optional[list[Card]] = None) -> Optional[int]:
        """The seat winning the current trick so far (None when it is empty).
        With ``trick`` given (e.g. the current trick plus a card you consider),
        the position in that list instead.

        The rule every variant shares: the highest tarock wins, else the highest
        card of the led suit; plus, from the match: the Imperator where the
        variant has the option ``imperator=on`` (Slovenian), the option
        ``red_pip_order``, and no trumps in Colour Valat."""
        given = trick is not None
        t = trick if given else self.trick
        pos = _cards.trick_winner(
            t,
            imperator=self.options.get("imperator", "off") == "on",
            red_pip_order=self.options.get("red_pip_order", "traditional"),
            tarocks_trump=self.contract != "colour-valat",
        )
        if pos is None or given:
            return pos
        return self.trick_seats()[pos]

    def played_cards(self) -> set[Card]:
        """Every card played to a trick so far in this hand, the current trick included."""
        out: set[Card] = set()
        for e in self.observation.history:
            if e.action.startswith("play "):
                c = _cards.card_of_action(e.action)
                if c is not None:
                    out.add(c)
        return out

    def shown(self, seat: int) -> list[Card]:
        """The cards of ``seat`` shown to everyone (tarock discards, an open hand)."""
        if seat < 0 or seat >= len(self.observation.shown):
            return []
        return [c for c in self.observation.shown[seat].cards if _cards.is_card(c)]

    def unknown_cards(self) -> set[Card]:
        """The cards whose place this seat does not know: not in its hand, not
        played, not shown, not a visible talon card, not its own discard."""
        known = set(self.hand) | self.played_cards()
        for s in range(len(self.observation.shown)):
            known.update(self.shown(s))
        known.update(c for c in self.observation.talon if _cards.is_card(c))
        for e in self.observation.history:
            if e.seat == self.seat and e.action.startswith("discard "):
                c = _cards.card_of_action(e.action)
                if c is not None:
                    known.add(c)
        return set(_cards.ALL_CARDS) - known

    # --- the contract ----------------------------------------------------------
    @property
    def declarer(self) -> int:
        """The declarer's seat, -1 when none (yet)."""
        return self.observation.declarer

    @property
    def contract(self) -> str:
        """The contract ("three", "klop", ...), empty before the bidding ends."""
        return self.observation.contract

    @property
    def partner(self) -> int:
        """The declarer's partner when this seat knows it (itself included), else -1."""
        return self.observation.partner

    @property
    def called_king(self) -> str:
        return self.observation.called_king

    @property
    def history(self) -> list[tuple[int, str]]:
        """The whole hand so far as (seat, action); another seat's hidden
        discard is "discard ?"."""
        return [(e.seat, e.action) for e in self.observation.history]

    # --- time ------------------------------------------------------------------
    @property
    def time_left_ms(self) -> int:
        """Time for this decision in milliseconds, grace not included."""
        return self.request.time_left_ms

    @property
    def bank_left_ms(self) -> int:
        """Left in the match's time bank (0: no bank)."""
        return self.request.bank_left_ms

    # --- sampled worlds (the engine module, tarock_engine) ---------------------
    def sample(self, rng: object = None) -> "object":
        """One complete hand (a ``tarock_engine.State`` at this decision)
        consistent with everything this seat has seen: the C++ SDK's
        determinizer over the referee's own engine. ``rng``: an int seed, a
        ``random.Random``, a numpy Generator or None. Needs the engine module
        (``tarock_engine``, docs/python.md); raises NotImplementedError where
        the determinizer does not work (the Austrian variants and westfest
        before the announcements)."""
        import tarock_engine

        return tarock_engine.sample(self, rng)

    def samples(self, n: int, rng: object = None) -> list:
        """``n`` sampled hands, as :meth:`sample` (one sampler, no GIL while
        sampling)."""
        import tarock_engine

        return tarock_engine.samples(self, n, rng)

    def _next_seat(self, seat: int) -> int:
        n = self.num_seats
        nxt = (seat + 1) % n
        # slovenian-5p: the dealer sits out and is skipped.
        if self.variant == "slovenian-5p" and nxt == self.dealer:
            nxt = (nxt + 1) % n
        return nxt

    def __repr__(self) -> str:
        return (
            f"Situation(seat={self.seat}, phase={self.phase!r}, hand={self.hand}, "
            f"trick={self.trick}, legal={self.legal})"
        )


class Bot:
    """The class a bot author implements. One instance serves one match.

    Override :meth:`decide`; the other hooks are optional. ``name`` (a class
    attribute) is sent to the referee in the Hello message.
    """

    name: str = ""

    def start_match(self, match: MatchInfo) -> None:
        """Called once, before the first hand."""

    def start_hand(self, hand: "pb.HandStart") -> None:
        """Called at the start of every hand (hand.hand is this seat's cards)."""

    def decide(self, s: Situation) -> str:
        """Returns one of ``s.legal``. Anything else is a fault charged to the
        bot (the referee then plays a random legal action for it)."""
        raise NotImplementedError("a Bot must implement decide(self, s)")

    def end_hand(self, result: "pb.HandResult") -> None:
        """Called at the end of every hand: scores, and the full hand record
        (``result.record_json``), except in duplicate matches whose deals other
        tables still play (tournaments, tests): then it is empty."""

    def end_match(self, result: "pb.MatchResult") -> None:
        """Called once at the end: totals and faults per seat."""


DecideFunction = Callable[[Situation], str]


class FunctionBot(Bot):
    """A bot made of one function ``decide(s: Situation) -> str``."""

    def __init__(self, decide: DecideFunction, name: str = "") -> None:
        self._decide = decide
        self.name = name or getattr(decide, "__name__", "bot")

    def decide(self, s: Situation) -> str:
        return self._decide(s)


BotFactory = Callable[[], Bot]


def as_factory(thing: Union[type, Callable[..., object]]) -> BotFactory:
    """A bot factory from a Bot subclass, a function returning a Bot, or a
    plain ``decide(s)`` function."""
    if isinstance(thing, type) and issubclass(thing, Bot):
        return thing
    if callable(thing):
        fn = thing

        def make() -> Bot:
            return FunctionBot(fn)  # type: ignore[arg-type]

        return make
    raise TypeError(f"not a bot: {thing!r} (want a Bot subclass or a decide(s) function)")


class BotSession:
    """Drives one :class:`Bot` through one match stream: turns each
    RefereeMessage into calls on the bot and returns the BotMessage to send, if
    any. Mirrors ``tarock::sdk::BotSession``. A bot that raises, or returns
    something that is not a string, answers with an empty action (a fault); the
    traceback goes to standard error."""

    def __init__(self, bot: Bot, log_illegal: bool = True) -> None:
        self.bot = bot
        self.match = MatchInfo()
        self.log_illegal = log_illegal
        self.forced_klop: Optional[bool] = None  # of the current hand (HandStart)

    def handle(self, message: "pb.RefereeMessage") -> Optional["pb.BotMessage"]:
        kind = message.WhichOneof("message")
        try:
            if kind == "match_start":
                self.match = MatchInfo.from_proto(message.match_start)
                self.bot.start_match(self.match)
            elif kind == "hand_start":
                self.forced_klop = message.hand_start.forced_klop
                self.bot.start_hand(message.hand_start)
            elif kind == "decision_request":
                return self._decide(message.decision_request)
            elif kind == "hand_result":
                self.bot.end_hand(message.hand_result)
            elif kind == "match_result":
                self.bot.end_match(message.match_result)
        except Exception:  # noqa: BLE001 - a bot's bug must not end the stream
            self._log(f"{kind} raised:\n{traceback.format_exc()}")
        return None

    def _decide(self, request: "pb.DecisionRequest") -> "pb.BotMessage":
        action = ""
        situation = Situation(self.match, request)
        situation.forced_klop = self.forced_klop
        try:
            answer = self.bot.decide(situation)
            if isinstance(answer, str):
                action = answer
            else:
                self._log(f"decide returned {answer!r}, not a string; legal: {situation.legal}")
        except Exception:  # noqa: BLE001
            self._log(
                f"decide raised in hand {request.hand_index}, phase {situation.phase}:\n"
                f"{traceback.format_exc()}"
            )
        if action and self.log_illegal and action not in situation.legal:
            self._log(
                f"'{action}' is not legal in hand {request.hand_index}, phase "
                f"{situation.phase}; legal: {situation.legal}"
            )
        return pb.BotMessage(decision=pb.Decision(request_id=request.request_id, action=action))

    def _log(self, text: str) -> None:
        name = self.bot.name or type(self.bot).__name__
        print(f"{name}: {text}", file=sys.stderr, flush=True)
