"""The learned bot: its weights load or fail with one error, a saved model
decides as the one trained, the suit renaming it trains on is a symmetry of the
game, and it plays a legal match through the Python SDK under `tarock match`
(ctest: learned_bot)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
SOURCE = Path(os.environ.get("TAROCK_SOURCE_DIR", HERE.parents[1]))
BUILD = Path(os.environ.get("TAROCK_BUILD_DIR", SOURCE / "build"))
sys.path.insert(0, str(BUILD / "python"))
sys.path.insert(0, str(HERE))

import tarock_engine as te  # noqa: E402
import features as F  # noqa: E402
from model import Model, input_columns, load  # noqa: E402

VARIANT = "slovenian-4p"


def sizes():
    enc = te.Encoder(te.Game(VARIANT))
    return enc.observation_size, enc.num_actions


def small_model(hidden: int = 16) -> Model:
    game = te.Game(VARIANT)
    enc = te.Encoder(game)
    return Model(enc.observation_size, enc.num_actions, (hidden, hidden), 0, VARIANT,
                 te.ENCODING_VERSION, input_columns(enc.fields), game.action_index("talon 0"),
                 game.action_index("play T1"), enc.fields)


def test_a_model_round_trips(tmp_path: Path) -> None:
    """Saved and loaded, a model decides as before, at every phase of real hands
    (the talon's groups and the play's card features included)."""
    game = te.Game(VARIANT)
    enc = te.Encoder(game)
    m = small_model()
    m.margin[6] = 0.0
    m.tta = 3
    m.save(str(tmp_path / "m.npz"))
    back = load(str(tmp_path / "m.npz"), VARIANT, te.ENCODING_VERSION, *sizes())
    assert back.tta == 3 and back.margin[6] == 0
    rows = []
    for seed in range(3):
        st = game.new_hand(seed=seed)
        while not st.is_terminal:
            seat = st.current_seat
            extra, groups = F.from_dict(st.observation(seat))
            rows.append((enc.observation(st, seat), enc.mask(st, seat), extra, enc.phase(st),
                         np.zeros((F.MAX_GROUPS, 54), np.float32) if groups is None else groups))
            st.apply(te.heuristic_action(st, seat))
    obs, mask, extra, phase, groups = (np.stack([r[i] for r in rows]) for i in range(5))
    assert (phase == 3).any() and (phase == 6).any()
    perms = F.pick_permutations(F.suit_permutations(enc.fields, game.action_names), 3)
    for p in (None, perms):
        a = m.act(obs, mask, extra, phase, groups, perms=p)
        assert (back.act(obs, mask, extra, phase, groups, perms=p) == a).all()
        assert mask[np.arange(len(a)), a].all()


def test_suit_renaming_is_a_symmetry() -> None:
    """Renaming the suits of a deal renames the encodings of every decision
    (features.suit_permutations), so the augmentation trains on real decisions."""
    game = te.Game(VARIANT)
    enc = te.Encoder(game)
    perms = F.suit_permutations(enc.fields, game.action_names)
    osrc, asrc, esrc, inv = perms[17]
    card = np.empty(54, np.int64)
    card[inv] = np.arange(54)
    ren = lambda cs: [F.CARDS[card[F.CARD_INDEX[c]]] for c in cs]  # noqa: E731
    st = game.new_hand(seed=4)
    st2 = game.new_hand(hands=[ren(h) for h in st.deal["hands"]], talon=ren(st.deal["talon"]))
    while not st.is_terminal:
        seat = st.current_seat
        assert (enc.observation(st, seat)[osrc] == enc.observation(st2, seat)).all()
        assert (enc.mask(st, seat)[asrc] == enc.mask(st2, seat)).all()
        assert (F.from_dict(st.observation(seat))[0][esrc] ==
                F.from_dict(st2.observation(seat))[0]).all()
        a = game.action_index(te.heuristic_action(st, seat))
        st.apply(a)
        st2.apply(int(np.nonzero(asrc == a)[0][0]))


@pytest.mark.parametrize("what", ["garbage", "variant", "version", "shape", "nan"])
def test_a_model_that_does_not_fit_is_one_error(tmp_path: Path, what: str) -> None:
    obs, acts = sizes()
    path = tmp_path / "m.npz"
    m = small_model(8)
    if what == "garbage":
        path.write_bytes(b"PK\x03\x04 not a model")
    else:
        if what == "variant":
            m.variant = "westfest"
        if what == "version":
            m.encoding_version = te.ENCODING_VERSION + 1
        if what == "shape":
            m.W2 = m.W2[:, :4]
        if what == "nan":
            m.b1[0] = np.nan
        m.save(str(path))
    with pytest.raises(ValueError, match="model file"):
        load(str(path), VARIANT, te.ENCODING_VERSION, obs, acts)


@pytest.mark.skipif(not (HERE / f"{VARIANT}.npz").exists(), reason="no trained weights")
def test_it_plays_a_legal_match(tmp_path: Path) -> None:
    seats = [f"me=py:{HERE / 'learned_bot.py'}"] + [
        f"h{i}={BUILD / 'bin' / 'tarock-bot-heuristic'}" for i in range(1, 4)]
    r = subprocess.run([str(BUILD / "bin" / "tarock"), "match", "--quiet", "--json", "--variant",
                        VARIANT, "--hands", "4", "--seed", "3", *seats],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr + r.stdout
    summary = json.loads(r.stdout)
    me = [b for b in summary["bots"] if b["bot"] == "me"][0]
    assert me["faults"] == 0 and not me["forfeited"] and me["decisions"] > 0, me
