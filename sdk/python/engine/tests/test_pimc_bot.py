"""The search template sdk/templates/python/pimc_bot.py plays a match of every
variant under `tarock match` against the heuristic bot without a fault (with
fewer worlds and a shorter budget than it plays with, to keep the test short);
the heuristic bot it leans on (te.heuristic_action, te.heuristic_playout) is
the bundled bot's own choice, made from the seat's own view."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from engine_testlib import BIN, SEATS, SOURCE, VARIANTS, tarock_match

import tarock_engine as te

QUICK = """
import sys
sys.path.insert(0, {dir!r})
from pimc_bot import PimcBot


class QuickPimc(PimcBot):
    worlds = 4
    budget_s = 0.02


def make_bot():
    return QuickPimc()
"""


@pytest.mark.parametrize("variant", VARIANTS)
def test_pimc_bot_plays_every_variant(variant: str, tmp_path: Path) -> None:
    shutil.copy(SOURCE / "sdk" / "templates" / "python" / "pimc_bot.py", tmp_path)
    quick = tmp_path / "quick_pimc.py"
    quick.write_text(QUICK.format(dir=str(tmp_path)))
    n = SEATS[variant]
    others = [f"h{i}={BIN / 'tarock-bot-heuristic'}" for i in range(1, n)]
    d = tarock_match("--variant", variant, "--hands", str(n), "--seed", "11",
                     f"pimc=py:{quick}", *others)
    me = d["bots"][0]
    assert me["bot"] == "pimc" and me["faults"] == 0 and me["decisions"] > 0, d


def play_recorded_match(variant: str, tmp_path: Path, seed: int) -> dict:
    """A match of tarock-bot-heuristic processes, with its record."""
    record = tmp_path / "match.json"
    seats = [f"h{i}={BIN / 'tarock-bot-heuristic'}" for i in range(SEATS[variant])]
    tarock_match("--variant", variant, "--hands", str(SEATS[variant]), "--seed", str(seed),
                 "--record", str(record), *seats)
    return json.loads(record.read_text())


@pytest.mark.parametrize("variant", VARIANTS)
def test_heuristic_action_is_the_heuristic_bot(variant: str, tmp_path: Path) -> None:
    """te.heuristic_action gives, at every decision of a match the bot process
    played, the action the process chose; and it decides from the seat's own
    view: in worlds sampled from that seat's decision (other hands, talon and
    discards dealt anew) it chooses the same."""
    rec = play_recorded_match(variant, tmp_path, 500 + VARIANTS.index(variant))
    game = te.Game(variant, rec.get("options", {}))
    rng = random.Random(3)
    decisions = sampled = 0
    for deal in rec["deals"]:
        deal = {"variant": rec.get("variant", variant), "options": rec.get("options", {}), **deal}
        state = game.from_record(json.dumps(deal), upto=0)
        for action in deal["actions"]:
            seat = state.current_seat
            if len(state.legal_actions()) > 1:
                assert te.heuristic_action(state, seat) == action, (seat, state.phase)
                decisions += 1
                s = te.situation(state, seat)
                assert te.heuristic_action(s) == action
                if rng.random() < 0.2:
                    try:
                        worlds = s.samples(2, rng)
                    except NotImplementedError:
                        worlds = []
                    for world in worlds:
                        assert world.hand(seat) == state.hand(seat)
                        assert te.heuristic_action(world, seat) == action
                        sampled += 1
            state.apply(action)
        assert state.is_terminal and state.scores == deal["scores"]
    assert decisions > 10 and sampled > 0


def test_heuristic_playout_plays_to_the_end_as_the_bot() -> None:
    """te.heuristic_playout plays the heuristic bot's own choices, step for step
    the same as te.heuristic_action; with epsilon it also plays other cards."""
    game = te.Game("slovenian-4p")
    for seed in range(4):
        state = game.new_hand(seed=seed, dealer=seed % 4)
        stepped = state.clone()
        n = te.heuristic_playout(state, 1)
        steps = 0
        while not stepped.is_terminal:
            stepped.apply(te.heuristic_action(stepped))
            steps += 1
        assert state.is_terminal and n == steps and state.history == stepped.history
    start = game.new_hand(seed=9, dealer=0)
    greedy = start.clone()
    te.heuristic_playout(greedy, 1)
    histories = set()
    for seed in range(6):
        noisy = start.clone()
        te.heuristic_playout(noisy, seed, epsilon=0.5)
        histories.add(tuple(noisy.history))
    assert any(h != tuple(greedy.history) for h in histories)


def test_heuristic_bad_input() -> None:
    """Bad input is one exception with a message; nothing is changed."""
    game = te.Game("slovenian-4p")
    state = game.new_hand(seed=1, dealer=0)
    before = state.history
    with pytest.raises(ValueError, match="DecisionRequest"):
        te._core.heuristic_action(game, b"\xff\xff not a request")
    other = te.Game("westfest").new_hand(seed=1, dealer=0)
    with pytest.raises(ValueError, match="variant"):
        te._core.heuristic_action(game, other.decision_request_proto(other.current_seat))
    idle = (state.current_seat + 1) % 4
    with pytest.raises(ValueError, match="no legal action"):
        te.heuristic_action(state, idle)
    with pytest.raises(ValueError, match="epsilon"):
        te.heuristic_playout(state, 1, epsilon=1.5)
    assert state.history == before and not state.is_terminal
    te.heuristic_playout(state, 1)
    with pytest.raises(ValueError, match="no legal action"):
        te.heuristic_action(state, 0)
    assert te.heuristic_playout(state, 1) == 0
