"""Python bots against C++ bots through the real referee: `tarock match` with
py:PATH seats (the referee in process and as a tarock-referee process), a bot
served by hand with `python3 -m tarock_bot serve`, the SDK's helpers checked
against the referee's play, and a bot that cannot start."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from conftest import (PYTHON, SOURCE, VARIANT_SEATS, BUILD, bin_path, copy_into, match_json,
                      run_tarock)

TEMPLATE = SOURCE / "sdk" / "templates" / "python" / "my_bot.py"
BOTS = Path(__file__).resolve().parent / "bots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Every variant is played by check-bot (test_check_bot.py); full matches here.
@pytest.mark.parametrize("variant", ["slovenian-3p", "slovenian-4p"])
def test_template_plays_full_matches(variant: str, workdir: Path, random_bot: str,
                                     heuristic_bot: str) -> None:
    bot = copy_into(workdir, TEMPLATE)
    n = VARIANT_SEATS[variant]
    others = [f"o{i}={heuristic_bot if i % 2 else random_bot}" for i in range(1, n)]
    record = workdir / "match.json"
    d = match_json("--variant", variant, "--hands", str(2 * n), "--seed", "5", "--record", str(record),
                   f"py=py:{bot}", *others)
    me = d["bots"][0]
    assert me["bot"] == "py" and me["faults"] == 0 and me["decisions"] > 0, d
    assert d["hands"] == 2 * n
    rec = json.loads(record.read_text())
    assert rec["seats"][0]["hello_name"] == "my-python-bot"
    replay = run_tarock("replay", str(record))
    assert replay.returncode == 0, replay.stderr


def test_helpers_agree_with_the_engine(workdir: Path, random_bot: str) -> None:
    """The checker bot compares trick winners, trick seats, playable and unknown
    cards with what the referee did, over many random hands and both rule options."""
    bot = copy_into(workdir, BOTS / "checker_bot.py")
    out = bot.with_suffix(".out")
    match_json("--variant", "slovenian-4p", "--hands", "12", "--seed", "3",
               f"a=py:{bot}", f"b={random_bot}", f"c=py:{bot}", f"d={random_bot}")
    match_json("--variant", "slovenian-5p", "--hands", "10", "--seed", "4",
               "--option=red_pip_order=numeric,imperator=off",
               f"a=py:{bot}", f"b={random_bot}", f"c={random_bot}", f"d=py:{bot}", f"e={random_bot}")
    match_json("--variant", "slovenian-3p", "--hands", "9", "--seed", "9",
               f"a=py:{bot}", f"b=py:{bot}", f"c={random_bot}")
    expected = 6
    for variant in ("tapp-tarock", "westfest"):  # other families: no Imperator
        if variant in VARIANT_SEATS:
            n = VARIANT_SEATS[variant]
            match_json("--variant", variant, "--hands", str(n), "--seed", "5", f"a=py:{bot}",
                       *[f"r{i}={random_bot}" for i in range(1, n)])
            expected += 1
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == expected
    violations = [v for x in lines for v in x["violations"]]
    assert not violations, "\n".join(violations)
    assert sum(x["checked"] for x in lines) > 100


def test_remote_referee(workdir: Path, random_bot: str) -> None:
    port = free_port()
    referee = subprocess.Popen([str(bin_path("tarock-referee")), "--listen", f"127.0.0.1:{port}",
                                "--metrics_listen="], stdout=subprocess.DEVNULL)
    try:
        bot = copy_into(workdir, TEMPLATE)
        d = match_json("--variant", "slovenian-tapp", "--hands", "3", "--seed", "2",
                       "--referee", f"127.0.0.1:{port}", f"p=py:{bot}", f"r1={random_bot}",
                       f"r2={random_bot}")
        assert d["bots"][0]["faults"] == 0 and d["bots"][0]["decisions"] > 0
    finally:
        referee.terminate()
        referee.wait(5)


def test_serve_by_hand(workdir: Path, random_bot: str) -> None:
    """`python3 -m tarock_bot serve FILE --listen 127.0.0.1:0` prints where it
    listens, plays, and exits cleanly on SIGTERM."""
    bot = copy_into(workdir, BOTS / "checker_bot.py")
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"), PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen([PYTHON, "-m", "tarock_bot", "serve", str(bot), "--listen", "127.0.0.1:0",
                             "--name", "by-hand"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("by-hand listening on 127.0.0.1:"), line
        endpoint = line.split()[-1]
        d = match_json("--variant", "slovenian-3p", "--hands", "3", "--seed", "1",
                       f"x={endpoint}", f"y={random_bot}", f"x={endpoint}")
        assert d["bots"][0]["faults"] == 0 and d["bots"][0]["seats"] == [0, 2]
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(5) == 0


def test_bot_that_cannot_start(workdir: Path, random_bot: str) -> None:
    bot = copy_into(workdir, BOTS / "syntax_error_bot.py")
    started = time.monotonic()
    r = run_tarock("match", "--variant", "slovenian-3p", "--quiet", f"a={random_bot}",
                   f"bad=py:{bot}", f"c={random_bot}")
    assert r.returncode != 0
    assert time.monotonic() - started < 8
    err = r.stderr.strip().splitlines()
    assert err[-1].startswith("tarock: seat 1 (bad):"), r.stderr
    assert "exited before it listened" in err[-1]
    assert any("SyntaxError" in x for x in err), r.stderr  # the bot's own stderr came through


def test_bad_specs(workdir: Path, random_bot: str) -> None:
    r = run_tarock("match", "--variant", "slovenian-3p", f"a={random_bot}",
                   f"b=py:{workdir}/missing.py", f"c={random_bot}")
    assert r.returncode != 0 and "no such Python file" in r.stderr
    r = run_tarock("match", "--variant", "slovenian-3p", f"a={random_bot}", "b=stdio:", f"c={random_bot}")
    assert r.returncode != 0 and "needs a COMMAND" in r.stderr
