"""Unit tests of the Python SDK without a referee: cards and points, trick
winners, the Situation helpers on hand-made requests, BotSession's handling of
a bot's mistakes, and how `python3 -m tarock_bot serve` finds the bot in a file.
The card order and trick winners are also checked against the engine itself
(test_python_bot.py plays real hands)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import bin_path

from tarock_bot import Bot, BotSession, MatchInfo, Situation, cards
from tarock_bot.__main__ import find_bot, load_module
from tarock_bot._proto import pb


def test_pack() -> None:
    assert len(cards.ALL_CARDS) == 54 == len(set(cards.ALL_CARDS))
    assert cards.ALL_CARDS[:3] == ("T1", "T2", "T3")
    assert cards.ALL_CARDS[22:30] == ("H4", "H3", "H2", "H1", "HJ", "HN", "HQ", "HK")
    assert cards.ALL_CARDS[38:46] == ("C7", "C8", "C9", "C10", "CJ", "CN", "CQ", "CK")
    assert cards.card_points_thirds(cards.ALL_CARDS) == 210
    assert cards.card_points(cards.ALL_CARDS) == 70


def test_values_and_rounding() -> None:
    assert [cards.card_value(c) for c in ("T1", "T2", "T21", "T22", "HK", "DQ", "CN", "SJ", "S10", "H1")] == [
        5, 1, 5, 5, 5, 4, 3, 2, 1, 1]
    assert cards.card_thirds("HK") == 13 and cards.card_thirds("T5") == 1
    assert [cards.round_thirds(t) for t in (0, 1, 2, 3, 107, 106, -1, -2)] == [0, 0, 1, 1, 36, 35, 0, -1]
    assert cards.card_points(["HK", "T5", "T6"]) == 5  # 13 + 1 + 1 = 15 thirds
    assert cards.card_points(["HK", "T5"]) == 5  # 14 thirds = 4 2/3, rounded up


def test_notation() -> None:
    assert cards.is_card("C10") and not cards.is_card("C11") and not cards.is_card("T0")
    with pytest.raises(ValueError, match="not a card"):
        cards.check_card("HX")
    assert cards.suit_of("T7") == "T" and cards.suit_of("DQ") == "D"
    assert cards.tarock_number("T21") == 21
    assert cards.play_action("HK") == "play HK"
    assert cards.card_of_action("play C10") == "C10"
    assert cards.card_of_action("discard ?") is None
    assert cards.card_of_action("bid three") is None
    assert cards.sort_cards(["SK", "T22", "H1", "T3"]) == ["T3", "T22", "H1", "SK"]


def test_engine_order() -> None:
    """The engine lists every hand in its card order: ours must agree."""
    for variant in ("slovenian-3p", "slovenian-4p"):
        for seed in range(1, 6):
            out = subprocess.run([str(bin_path("tarock")), "deal", "--variant", variant, "--seed", str(seed)],
                                 capture_output=True, text=True, check=True).stdout
            for hand in json.loads(out)["hands"]:
                assert hand == cards.sort_cards(hand)


@pytest.mark.parametrize(
    "trick, kw, winner",
    [
        (["H4", "HK", "H1"], {}, 1),
        (["H4", "H1", "H3"], {}, 1),                       # traditional: 1 > 2 > 3 > 4
        (["H4", "H1", "H3"], {"red_pip_order": "numeric"}, 0),  # numeric: 4 > 3 > 2 > 1
        (["HJ", "H4"], {"red_pip_order": "numeric"}, 0),   # pips stay below the jack
        (["H3", "H2", "H4"], {"red_pip_order": "document"}, 2),  # westfest: 1 > 4 > 3 > 2
        (["D2", "D1", "D4"], {"red_pip_order": "document"}, 1),
        (["C7", "C10", "C9"], {}, 1),
        (["HK", "SK", "CK"], {}, 0),                       # off-suit never wins
        (["HK", "T2", "T1"], {}, 1),                       # tarocks trump
        (["T22", "T21", "T1"], {}, 2),                     # the Imperator
        (["T22", "T21", "T1"], {"imperator": False}, 0),
        (["HK", "T22", "T21", "T1"], {}, 3),
        (["HK", "T5"], {"tarocks_trump": False}, 0),       # Colour Valat
        (["T3", "T5"], {"tarocks_trump": False}, 1),
        (["HK", "T22", "T21", "T1"], {"tarocks_trump": False}, 0),
        (["T2", "T22", "T21", "T1"], {"tarocks_trump": False}, 3),
        ([], {}, None),
    ],
)
def test_trick_winner(trick: list[str], kw: dict, winner: int | None) -> None:
    assert cards.trick_winner(trick, **kw) == winner


def request(**obs: object) -> pb.DecisionRequest:
    legal = obs.pop("legal", [])
    return pb.DecisionRequest(request_id=7, hand_index=2, observation=pb.Observation(**obs),
                              legal_actions=legal, time_left_ms=900)


def test_situation_helpers() -> None:
    match = MatchInfo(variant="slovenian-4p", num_seats=4, seat=1,
                      options={"imperator": "on", "red_pip_order": "traditional"})
    r = request(
        variant="slovenian-4p", seat=1, num_seats=4, dealer=0, phase="play", to_act=1,
        hand=["SK", "T4", "H1", "HK"], trick_leader=3, trick=["HQ", "T2"], contract="three",
        declarer=2, partner=-1,
        history=[pb.Event(seat=2, action="bid three"), pb.Event(seat=2, action="discard T9"),
                 pb.Event(seat=2, action="discard ?"), pb.Event(seat=3, action="play HQ"),
                 pb.Event(seat=0, action="play T2")],
        talon=["?", "?", "?", "C7", "C8", "C9"],
        shown=[pb.ShownCards(), pb.ShownCards(), pb.ShownCards(cards=["T9"]), pb.ShownCards()],
        legal=["play H1", "play HK"],
    )
    s = Situation(match, r)
    assert s.hand == ["T4", "H1", "HK", "SK"]
    assert s.playable_cards == ["H1", "HK"]
    assert s.trick == ["HQ", "T2"] and s.trick_seats() == [3, 0]
    assert s.trick_winner() == 0
    assert s.trick_winner(s.trick + ["HK"]) == 1
    assert s.played_cards() == {"HQ", "T2"}
    assert s.shown(2) == ["T9"] and s.shown(9) == []
    unknown = s.unknown_cards()
    assert not unknown & {"SK", "T4", "H1", "HK", "HQ", "T2", "T9", "C7", "C8", "C9"}
    assert len(unknown) == 54 - 10
    assert s.is_legal("play HK") and not s.is_legal("play SK")
    assert (s.time_left_ms, s.hand_index, s.declarer, s.contract) == (900, 2, 2, "three")
    assert s.history[0] == (2, "bid three")


def test_five_player_trick_seats_skip_the_dealer() -> None:
    match = MatchInfo(variant="slovenian-5p", num_seats=5, seat=4)
    r = request(variant="slovenian-5p", seat=4, num_seats=5, dealer=0, phase="play",
                trick_leader=3, trick=["H1", "H2", "H4"], legal=["play H3"])
    assert Situation(match, r).trick_seats() == [3, 4, 1]


def test_colour_valat_winner() -> None:
    match = MatchInfo(variant="slovenian-3p", num_seats=3, options={"imperator": "on"})
    r = request(variant="slovenian-3p", num_seats=3, phase="play", contract="colour-valat",
                trick_leader=1, trick=["HK", "T22"])
    assert Situation(match, r).trick_winner() == 1


class Raises(Bot):
    def decide(self, s: Situation) -> str:
        raise RuntimeError("boom")


class ReturnsNone(Bot):
    def decide(self, s: Situation) -> str:
        return None  # type: ignore[return-value]


class Counts(Bot):
    name = "counts"

    def __init__(self) -> None:
        self.events: list[str] = []

    def start_match(self, match: MatchInfo) -> None:
        self.events.append(f"match {match.variant} seat {match.seat} limit {match.per_decision_ms}")

    def start_hand(self, hand: pb.HandStart) -> None:
        self.events.append(f"hand {hand.hand_index}")

    def decide(self, s: Situation) -> str:
        return s.legal[-1]

    def end_hand(self, result: pb.HandResult) -> None:
        self.events.append("end hand")

    def end_match(self, result: pb.MatchResult) -> None:
        self.events.append("end match")


def decision(reply: pb.BotMessage | None) -> tuple[int, str]:
    assert reply is not None and reply.WhichOneof("message") == "decision"
    return reply.decision.request_id, reply.decision.action


def test_session_faults_become_empty_actions(capsys: pytest.CaptureFixture[str]) -> None:
    msg = pb.RefereeMessage(decision_request=request(phase="bidding", legal=["pass"]))
    assert decision(BotSession(Raises()).handle(msg)) == (7, "")
    assert "RuntimeError: boom" in capsys.readouterr().err
    assert decision(BotSession(ReturnsNone()).handle(msg)) == (7, "")
    assert "not a string" in capsys.readouterr().err


def test_session_calls_every_hook() -> None:
    bot = Counts()
    session = BotSession(bot)
    tc = pb.TimeControl(per_decision_ms=500)
    assert session.handle(pb.RefereeMessage(match_start=pb.MatchStart(variant="slovenian-3p", seat=2,
                                                                      time_control=tc))) is None
    assert session.handle(pb.RefereeMessage(hand_start=pb.HandStart(hand_index=0))) is None
    msg = pb.RefereeMessage(decision_request=request(phase="bidding", legal=["pass", "bid three"]))
    assert decision(session.handle(msg)) == (7, "bid three")
    session.handle(pb.RefereeMessage(hand_result=pb.HandResult()))
    session.handle(pb.RefereeMessage(match_result=pb.MatchResult()))
    assert bot.events == ["match slovenian-3p seat 2 limit 500", "hand 0", "end hand", "end match"]


def test_find_bot(tmp_path: Path) -> None:
    def load(name: str, text: str, attr: str | None = None):
        f = tmp_path / f"{name}.py"
        f.write_text(text)
        factory, default_name = find_bot(load_module(str(f)), attr)
        return factory(), default_name

    bot, name = load("fn_bot", "def decide(s):\n    return s.legal[0]\n")
    assert name == "fn_bot" and bot.decide(Situation(MatchInfo(), request(legal=["x"]))) == "x"
    bot, name = load("cls_bot", "from tarock_bot import Bot\nclass A(Bot):\n    name = 'alpha'\n"
                     "    def decide(self, s):\n        return 'a'\n")
    assert name == "alpha" and type(bot).__name__ == "A"
    bot, _ = load("make_bot", "from tarock_bot import Bot\nclass A(Bot):\n    pass\n"
                  "class B(Bot):\n    pass\ndef make_bot():\n    return B()\n")
    assert type(bot).__name__ == "B"
    with pytest.raises(LookupError, match="several Bot classes"):
        load("two_bots", "from tarock_bot import Bot\nclass A(Bot):\n    pass\nclass B(Bot):\n    pass\n")
    bot, _ = load("two_bots_pick", "from tarock_bot import Bot\nclass A(Bot):\n    pass\n"
                  "class B(Bot):\n    pass\n", attr="B")
    assert type(bot).__name__ == "B"
    with pytest.raises(LookupError, match="defines no bot"):
        load("nothing", "x = 1\n")
