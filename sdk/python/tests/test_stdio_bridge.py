"""The stdio bridge: an awk bot (the stdio template) and a POSIX sh bot play
full matches against C++ bots through the real referee; the bridge run by hand
with a log and --events; the JSON line format; a hung program never holds up
the bridge's exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SOURCE, VARIANT_SEATS, bin_path, copy_into, match_json, processes_mentioning, run_tarock

AWK_TEMPLATE = SOURCE / "sdk" / "templates" / "stdio" / "my_bot.awk"
BOTS = Path(__file__).resolve().parent / "bots"


# Every variant is played by check-bot (test_check_bot.py); full matches here.
@pytest.mark.parametrize("variant", ["slovenian-5p", "slovenian-tapp"])
def test_awk_template_plays_full_matches(variant: str, workdir: Path, random_bot: str,
                                         heuristic_bot: str) -> None:
    awk = copy_into(workdir, AWK_TEMPLATE)
    n = VARIANT_SEATS[variant]
    others = [f"o{i}={heuristic_bot if i % 2 else random_bot}" for i in range(1, n)]
    record = workdir / "m.json"
    # Two seats of the awk bot: two streams, two runs of the program.
    d = match_json("--variant", variant, "--hands", str(2 * n), "--seed", "7", "--record", str(record),
                   f"awk=stdio:awk -W interactive -f {awk}", *others[:-1],
                   f"awk=stdio:awk -W interactive -f {awk}")
    me = d["bots"][0]
    assert me["bot"] == "awk" and me["faults"] == 0 and me["seats"] == [0, n - 1], d
    assert me["decisions"] > 0 and d["hands"] == 2 * n
    assert json.loads(record.read_text())["seats"][0]["hello_name"] == "awk"
    assert run_tarock("replay", str(record)).returncode == 0


def test_sh_bot_answers_in_json(workdir: Path, random_bot: str) -> None:
    """The sh bot answers {"action": ...} lines: the bridge takes those too."""
    sh = copy_into(workdir, BOTS / "broken_stdio.sh")
    d = match_json("--variant", "slovenian-3p", "--hands", "3", "--seed", "3",
                   f"sh=stdio:sh {sh} good", f"r={random_bot}", f"sh=stdio:sh {sh} good")
    assert d["bots"][0]["faults"] == 0 and d["bots"][0]["decisions"] > 0


def start_bridge(workdir: Path, *args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([str(bin_path("tarock-stdio-bridge")), "--listen", "127.0.0.1:0", *args],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # type: ignore[union-attr]
    assert " listening on 127.0.0.1:" in line, line
    return proc, line.split()[-1]


def stop(proc: subprocess.Popen, within: float = 5) -> float:
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(within) == 0
    return time.monotonic() - started


def test_bridge_by_hand_with_events_and_log(workdir: Path, random_bot: str) -> None:
    logger = copy_into(workdir, BOTS / "events_logger.sh")
    log = workdir / "bot.log"
    proc, endpoint = start_bridge(workdir, "--log", str(log), "--events", "--name", "logger",
                                  "--", "sh", str(logger))
    try:
        d = match_json("--variant", "slovenian-3p", "--hands", "3", "--seed", "1",
                       f"l={endpoint}", f"r={random_bot}", f"s={random_bot}")
        assert d["bots"][0]["faults"] == 0
    finally:
        stop(proc)
    seen = log.read_text().split("\n")
    assert seen[0] == "got match_start", seen[:3]
    assert seen.count("got hand_start") == 3 and seen.count("got hand_result") == 3
    assert seen.count("got match_result") == 1
    assert seen.count("got decision_request") == d["bots"][0]["decisions"]


def test_request_line_format(workdir: Path, random_bot: str) -> None:
    """What a program reads: protobuf's JSON mapping of DecisionRequest with the
    proto field names and every field present; int64 fields are strings."""
    dump = workdir / "requests.jsonl"
    script = workdir / "tee_bot.sh"
    script.write_text(
        "while IFS= read -r line; do printf '%s\\n' \"$line\" >> " + str(dump) + "; "
        "printf '%s\\n' \"$line\" | sed -n 's/.*\"legal_actions\":\\[\"\\([^\"]*\\)\".*/\\1/p'; done\n")
    d = match_json("--variant", "slovenian-4p", "--hands", "4", "--seed", "2", "--per_decision_ms", "3000",
                   f"t=stdio:sh {script}", f"a={random_bot}", f"b={random_bot}", f"c={random_bot}")
    requests = [json.loads(x) for x in dump.read_text().splitlines()]
    assert len(requests) == d["bots"][0]["decisions"]
    r = requests[0]
    assert set(r) == {"request_id", "hand_index", "observation", "legal_actions", "new_events",
                      "time_left_ms", "bank_left_ms"}
    assert isinstance(r["request_id"], str) and r["time_left_ms"] == "3000"
    obs = r["observation"]
    assert obs["variant"] == "slovenian-4p" and obs["seat"] == 0 and obs["num_seats"] == 4
    assert {"phase", "to_act", "hand", "history", "talon", "shown", "declarer", "contract",
            "called_king", "partner", "trick_leader", "trick", "tricks_won", "radli"} <= set(obs)
    assert all(x["legal_actions"] for x in requests)
    assert any(x["observation"]["phase"] == "play" and x["observation"]["trick"] for x in requests)


def test_hung_program_does_not_hold_the_bridge(workdir: Path, random_bot: str) -> None:
    sh = copy_into(workdir, BOTS / "broken_stdio.sh")
    proc, endpoint = start_bridge(workdir, "--", "sh", str(sh), "silent", "2")
    try:
        # The referee gives up on each silent decision after 150 + 50 ms and
        # forfeits the bot after 2 faults; the match still ends.
        d = match_json("--variant", "slovenian-3p", "--hands", "3", "--per_decision_ms", "150",
                       "--max_faults", "2", f"s={endpoint}", f"r={random_bot}", f"q={random_bot}")
        assert d["bots"][0]["faults"] == 2 and d["bots"][0]["forfeited"]
        # The stream ended, so its program is gone (the bridge itself stays).
        deadline = time.monotonic() + 3
        while [p for p in processes_mentioning(str(sh)) if "tarock-stdio-bridge" not in p]:
            assert time.monotonic() < deadline, processes_mentioning(str(sh))
            time.sleep(0.05)
    finally:
        assert stop(proc) < 3
