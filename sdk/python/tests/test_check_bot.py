"""`tarock check-bot`: the three starter templates pass in every variant; broken
Python bots and broken stdio programs are reported with the right fault kind,
the state where it happened, and their own standard error; slow answers are
reported without failing the check."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SOURCE, VARIANT_SEATS, bin_path, copy_into, run_tarock

from tarock_bot import Situation

TEMPLATES = SOURCE / "sdk" / "templates"
BOTS = Path(__file__).resolve().parent / "bots"


def check(spec: str, *flags: str, env: dict | None = None, timeout: float = 60) -> tuple[int, dict]:
    """check-bot --json: exit status and report."""
    args = [str(bin_path("tarock")), "check-bot", "--json", *flags, spec]
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    assert r.returncode in (0, 1), f"check-bot failed to run ({r.returncode}): {r.stderr}"
    return r.returncode, json.loads(r.stdout)


def faults_of(report: dict) -> list[dict]:
    return [f for v in report["variants"] for f in v.get("faults", [])]


@pytest.mark.parametrize("template", ["python", "stdio", "cpp"])
def test_templates_pass_every_variant(template: str, workdir: Path) -> None:
    if template == "python":
        spec = f"py:{copy_into(workdir, TEMPLATES / 'python' / 'my_bot.py')}"
    elif template == "stdio":
        spec = f"stdio:awk -W interactive -f {copy_into(workdir, TEMPLATES / 'stdio' / 'my_bot.awk')}"
    else:
        link = workdir / "my_bot"
        link.symlink_to(bin_path("template_cpp_bot"))
        spec = str(link)
    # One round of the dealer per variant (--hands 1 is rounded up to one hand
    # per seat; the default, two rounds, is checked below).
    rc, report = check(spec, "--hands", "1", "--seed", "11")
    assert rc == 0 and report["pass"], json.dumps(report, indent=1)[:3000]
    assert sorted(v["variant"] for v in report["variants"]) == sorted(VARIANT_SEATS)
    for v in report["variants"]:
        assert v["ok"] and v["decisions"] > 0 and v["hands"] == VARIANT_SEATS[v["variant"]]
    assert report["verdict"].startswith("PASS")


def test_python_bot_playing_a_card_it_does_not_hold(workdir: Path) -> None:
    bot = copy_into(workdir, BOTS / "broken_bot.py")
    env = {"BROKEN_MODE": "illegal", "PATH": "/usr/bin:/bin"}
    rc, report = check(f"py:{bot}", "--variants", "slovenian-4p", env=env)
    assert rc == 1 and not report["pass"]
    assert report["variants"][0]["hands"] == 8  # the default: two rounds of the dealer
    assert report["variants"][0]["forfeited"]  # after 5 faults, check-bot's default
    faults = faults_of(report)
    assert len(faults) == 5 and {f["kind"] for f in faults} == {"illegal_action"}
    first = faults[0]
    assert first["detail"].startswith("illegal action 'play ") and "phase play" in first["detail"]
    state = first["state"]
    assert state["phase"] == "play" and state["legal"] and all(a.startswith("play ") for a in state["legal"])
    assert first["fallback_action"] in state["legal"]
    # The record up to the fault replays to the same decision.
    replay = subprocess.run([str(bin_path("tarock")), "replay", "-"], input=state["record"],
                            capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    replayed = json.loads(replay.stdout)
    assert replayed["to_act"] == 0 and sorted(replayed["legal"]) == sorted(state["legal"])
    # What the bot received, in the stdio format; Situation.from_json reads it.
    request = json.loads(state["request"])
    assert request["legal_actions"] == state["legal"] and request["observation"]["seat"] == 0
    s = Situation.from_json(state["request"])
    assert s.legal == state["legal"] and s.phase == "play" and s.hand == state["hand"]
    # The SDK logged each illegal answer.
    assert "is not legal" in report["variants"][0]["log_tail"]


def test_python_bot_that_raises(workdir: Path) -> None:
    bot = copy_into(workdir, BOTS / "broken_bot.py")
    rc, report = check(f"py:{bot}", "--variants", "slovenian-3p",
                       env={"BROKEN_MODE": "raises", "PATH": "/usr/bin:/bin"})
    assert rc == 1
    assert {f["kind"] for f in faults_of(report)} == {"malformed"}
    tail = report["variants"][0]["log_tail"]
    assert "IndexError" in tail and "broken_bot.py" in tail


def test_python_bot_that_crashes_and_one_that_sleeps(workdir: Path) -> None:
    bot = copy_into(workdir, BOTS / "broken_bot.py")
    rc, report = check(f"py:{bot}", "--variants", "slovenian-tapp",
                       env={"BROKEN_MODE": "crash", "PATH": "/usr/bin:/bin"})
    assert rc == 1
    faults = faults_of(report)
    assert faults[0]["kind"] == "disconnect" and faults[0]["action_index"] >= 0
    rc, report = check(f"py:{bot}", "--variants", "slovenian-tapp", "--per_decision_ms", "300",
                       env={"BROKEN_MODE": "sleeps", "PATH": "/usr/bin:/bin"})
    assert rc == 1
    assert {f["kind"] for f in faults_of(report)} == {"timeout"}


def test_python_bot_that_does_not_load(workdir: Path) -> None:
    bot = copy_into(workdir, BOTS / "syntax_error_bot.py")
    started = time.monotonic()
    rc, report = check(f"py:{bot}", "--variants", "slovenian-3p,slovenian-4p", "--hands", "1")
    assert rc == 1 and time.monotonic() - started < 15
    for v in report["variants"]:
        assert "exited before it listened" in v["error"]
        assert "SyntaxError" in v["log_tail"]
    r = run_tarock("check-bot", "--variants", "slovenian-3p", f"py:{bot}")
    assert r.returncode == 1 and "verdict: FAIL" in r.stdout and "SyntaxError" in r.stdout


@pytest.mark.parametrize("mode, kind, detail, limit_ms", [
    ("crash", "disconnect", "exited with status 3", 2000),
    ("garbage", "malformed", "unparsable action 'hello, referee'", 2000),
    ("silent", "timeout", "no answer within 500 ms", 500),
])
def test_broken_stdio_program(mode: str, kind: str, detail: str, limit_ms: int, workdir: Path) -> None:
    sh = copy_into(workdir, BOTS / "broken_stdio.sh")
    rc, report = check(f"stdio:sh {sh} {mode} 4", "--variants", "slovenian-4p", "--per_decision_ms",
                       str(limit_ms), "--max_faults", "3")
    assert rc == 1 and not report["pass"]
    faults = faults_of(report)
    assert faults, json.dumps(report, indent=1)[:3000]
    assert faults[0]["kind"] == kind and detail in faults[0]["detail"], faults[0]
    assert faults[0]["state"]["legal"]
    if mode == "crash":
        assert "crashing at request 5" in report["variants"][0]["log_tail"]
    assert report["fault_counts"][kind] >= 1


def test_slow_answers_are_reported(workdir: Path) -> None:
    bot = copy_into(workdir, BOTS / "slow_bot.py")
    rc, report = check(f"py:{bot}", "--variants", "slovenian-3p", "--hands", "3", "--slow_ms", "40")
    assert rc == 0 and report["pass"] and report["slow"] > 0
    slow = report["variants"][0]["slow"][0]
    assert slow["ms"] > 40 and slow["state"]["phase"] == "play" and slow["action"].startswith("play ")
    r = run_tarock("check-bot", "--variants", "slovenian-tapp", "--hands", "3", "--slow_ms", "40", f"py:{bot}")
    assert r.returncode == 0 and "SLOW" in r.stdout and "slow answer(s)" in r.stdout


def test_usage_errors() -> None:
    r = run_tarock("check-bot")
    assert r.returncode == 2 and "wants one bot" in r.stderr
    r = run_tarock("check-bot", "--variants", "no-such-variant", "stdio:cat")
    assert r.returncode == 2 and "no-such-variant" in r.stderr
