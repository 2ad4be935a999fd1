#!/usr/bin/python3
"""Benchmark (not a test): the time per decision of dial-in bots, on both
routes, against the referee dialing the bot directly (docs/dial-in.md,
"Figures").

One referee, two arenas (--max_parallel 1, so matches do not compete for the
CPU) and three fields of four bots, all the same bot binary:
  direct  bots that listen; the referee dials them (arena A);
  relay   dial-in bots on the relay route: the referee dials arena A's Bot
          service, which relays each seat over the bot's gateway connection;
  join    dial-in bots on the direct route: arena B (--dial_in_route=auto, the
          default) sends each bot a seat ticket and the bot joins the referee
          itself (it can: all on loopback).
Each run plays one duplicate tournament per field, rotating which goes first,
and takes the median of every decision's time as the referee measured it (the
match records' `decision_ms`: from handing the request to the transport to the
answer's arrival). Prints the median over the runs of each field and the
ratios to `direct`, then each run's own ratios and their median.

    /usr/bin/python3 arena/bench/dial_in_bench.py [--build build] [--runs 5] [--deals 4]
        [--bot tarock-bot-random] [--bot_args '--iterations=0 --budget_ms=2']

Everything runs on loopback; every process is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 20) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--deals", type=int, default=4, help="tournament deals per run (x4 matches)")
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--bot", default="tarock-bot-random")
    ap.add_argument("--bot_args", default="", help="the bot's flags, one string: '--budget_ms=2'")
    args = ap.parse_args()
    bin_dir = os.path.abspath(os.path.join(args.build, "bin"))
    work = tempfile.mkdtemp(prefix="dial_in_bench_")
    procs: list[subprocess.Popen] = []

    def start(argv: list[str], **kw) -> subprocess.Popen:
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
        procs.append(p)
        return p

    try:
        rport, aport, bport = free_port(), free_port(), free_port()
        start([f"{bin_dir}/tarock-referee", "--listen", f"127.0.0.1:{rport}", "--metrics_listen="])
        wait_port(rport)
        for port, route, sub in ((aport, "relay", "a"), (bport, "auto", "b")):
            os.makedirs(os.path.join(work, sub))
            start([f"{bin_dir}/tarock-arena", "--listen", f"127.0.0.1:{port}", "--http_listen=",
                   "--data_dir", os.path.join(work, sub), "--referees", f"127.0.0.1:{rport}",
                   "--max_parallel", "1", f"--dial_in_route={route}"])
            wait_port(port)

        def run(port: int, *a: str) -> str:
            cli = [f"{bin_dir}/tarock-arena-cli", "--arena", f"127.0.0.1:{port}"]
            return subprocess.run(cli + list(a), check=True, capture_output=True, text=True).stdout

        fields = {"direct": (aport, [f"direct{i}" for i in range(4)]),
                  "relay": (aport, [f"relay{i}" for i in range(4)]),
                  "join": (bport, [f"join{i}" for i in range(4)])}
        for name in fields["direct"][1]:
            port = free_port()
            start([f"{bin_dir}/{args.bot}", "--listen", f"127.0.0.1:{port}", *args.bot_args.split()])
            wait_port(port)
            run(aport, "bots", "add", name, f"--endpoint=127.0.0.1:{port}", "--variants=slovenian-4p",
                "--owner=bench")
        for label in ("relay", "join"):
            arena, names = fields[label]
            for name in names:
                token = json.loads(run(arena, "bots", "add", name, "--dial_in", "--variants=slovenian-4p",
                                       "--owner=bench", "--json"))["token"]
                start([f"{bin_dir}/{args.bot}", "--arena", f"127.0.0.1:{arena}", *args.bot_args.split()],
                      env={**os.environ, "TAROCK_BOT_TOKEN": token})
            deadline = time.time() + 30
            while sum(b.get("online", False) for b in json.loads(run(arena, "bots", "list", "--json"))["bots"]) < 4:
                if time.time() > deadline:
                    raise RuntimeError("the dial-in bots did not come online")
                time.sleep(0.1)

        def tournament(label: str, seed: int) -> float:
            arena, field = fields[label]
            info = json.loads(run(arena, "tournament", "run", "--variant=slovenian-4p", f"--bots={','.join(field)}",
                                  f"--deals={args.deals}", f"--hands={args.hands}", f"--seed={seed}",
                                  "--wait", "--json"))
            if info.get("matches_failed", 0):
                raise RuntimeError(f"failed matches: {info}")
            listed = json.loads(run(arena, "matches", "--json", "--limit=1000"))["matches"]
            times: list[float] = []
            for m in listed:
                if not m["id"].startswith(f"T{info['id']}-"):
                    continue
                record = json.loads(json.loads(run(arena, "match", "show", m["id"], "--record", "--json"))["record_json"])
                faults = sum(len(deal.get("faults", [])) for deal in record["deals"])
                if faults:
                    raise RuntimeError(f"{label}: match {m['id']} has {faults} faults")
                for deal in record["deals"]:
                    times.extend(deal.get("decision_ms", []))
            return statistics.median(times)

        labels = list(fields)
        results: dict[str, list[float]] = {label: [] for label in labels}
        for r in range(args.runs):
            order = labels[r % 3:] + labels[:r % 3]
            for label in order:
                results[label].append(tournament(label, seed=r + 1))
            print(f"run {r + 1}: " + ", ".join(f"{label} {results[label][-1]:.3f} ms" for label in labels),
                  flush=True)
        med = {label: statistics.median(results[label]) for label in labels}
        print(f"median per decision over {args.runs} runs ({args.bot} {args.bot_args}, {args.deals * 4} matches "
              f"of {args.hands} hands per field and run): direct {med['direct']:.3f} ms, "
              f"dial-in relayed {med['relay']:.3f} ms (ratio {med['relay'] / med['direct']:.2f}), "
              f"dial-in joined {med['join']:.3f} ms (ratio {med['join'] / med['direct']:.2f})")
        # The same ratios paired within each run (the fields ran side by side,
        # so a run's load weighs on both): steadier on a shared machine.
        for label in ("relay", "join"):
            ratios = [x / d for x, d in zip(results[label], results["direct"])]
            print(f"{label} / direct per run: " + ", ".join(f"{r:.2f}" for r in ratios) +
                  f"; median {statistics.median(ratios):.2f}")
        return 0
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
