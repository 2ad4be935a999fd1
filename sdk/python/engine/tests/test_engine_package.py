"""The tarock_engine wheel (build/dist) installs offline into a fresh virtual
environment and works there from outside the tree, without PYTHONPATH: the
extension carries the engine (no libtarock_engine.so to find)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine_testlib import BUILD, PYTHON

SCRIPT = """
import tarock_engine as te, sys
assert te.__file__.startswith(sys.prefix), te.__file__
g = te.Game("slovenian-3p")
s = g.new_hand(seed=5)
n = s.random_playout(1)
assert s.is_terminal and len(s.scores) == 3
print(te.__version__, n, s.scores)
"""


def test_wheel_installs_offline_into_a_fresh_venv(tmp_path: Path) -> None:
    wheels = sorted((BUILD / "dist").glob("tarock_engine-*.whl"))
    if not wheels:
        pytest.fail(f"no tarock_engine wheel in {BUILD / 'dist'} (target tarock_engine_wheel)")
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", str(wheels[-1])],
                         capture_output=True, text=True, timeout=120, env=env)
    assert pip.returncode == 0, pip.stderr
    run = subprocess.run([str(venv / "bin" / "python"), "-c", SCRIPT], capture_output=True,
                         text=True, timeout=60, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    version, decisions, _ = run.stdout.split(" ", 2)
    assert version == "0.1.0" and int(decisions) > 0
