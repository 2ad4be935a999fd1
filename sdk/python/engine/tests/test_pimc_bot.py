"""The search template sdk/templates/python/pimc_bot.py plays a match of every
variant under `tarock match` against the heuristic bot without a fault (with
fewer worlds and a shorter budget than it plays with, to keep the test short)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine_testlib import BIN, SEATS, SOURCE, VARIANTS, tarock_match

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
