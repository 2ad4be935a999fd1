"""The learned bot: its weights load or fail with one error; it plays a legal
match through the Python SDK under `tarock match` (ctest: learned_bot)."""

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
from model import Model, load  # noqa: E402

VARIANT = "slovenian-4p"


def sizes():
    enc = te.Encoder(te.Game(VARIANT))
    return enc.observation_size, enc.num_actions


def test_a_model_round_trips(tmp_path: Path) -> None:
    obs, acts = sizes()
    m = Model(obs, acts, hidden=16, variant=VARIANT, encoding_version=te.ENCODING_VERSION)
    m.save(str(tmp_path / "m.npz"))
    back = load(str(tmp_path / "m.npz"), VARIANT, te.ENCODING_VERSION, obs, acts)
    x = np.random.default_rng(0).random((5, obs), dtype=np.float32)
    mask = np.ones((5, acts), bool)
    assert (back.act(x, mask) == m.act(x, mask)).all()


@pytest.mark.parametrize("what", ["garbage", "variant", "version", "shape", "nan"])
def test_a_model_that_does_not_fit_is_one_error(tmp_path: Path, what: str) -> None:
    obs, acts = sizes()
    path = tmp_path / "m.npz"
    m = Model(obs, acts, hidden=8, variant=VARIANT, encoding_version=te.ENCODING_VERSION)
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
