#!/usr/bin/env python3
"""Runs the commands of docs/tutorial.md as written, so the text cannot drift
from what works.

The blocks run are the fenced ```sh blocks right after a line
``<!-- tutorial-test -->`` (optionally with words after a colon:
``<!-- tutorial-test: background -->``). They run in document order in ONE bash
process, as a reader types them into one terminal (``cd`` and ``export`` carry
over), starting in a copy of the tree's sdk/templates under a fresh
$HOME, with BUILD/bin first on PATH (step 4's ``export PATH=...``; the build
itself is not run) and the wheel-free Python SDK of BUILD/python on PYTHONPATH
(for ``python3 -m tarock_bot``, which step 1 installs into a virtual
environment).

Words after ``tutorial-test:``:
  background   the block runs in the background (a second terminal) until the end
  any-status   the block runs without ``set -e`` (its commands may exit non-zero)
  until=TEXT   the block runs again every second (up to 90 s) until its output holds TEXT

ARENA_HOST is 127.0.0.1 (a class arena of the teacher's blocks on this machine),
and the ports 7700, 7800, 7801 and 8700 of the text are replaced by free loopback
ports, so the test can run beside other tests; after a background block the
runner waits until every 127.0.0.1:PORT it names after --listen accepts. Every process the blocks start is stopped
at the end (the runner is their subreaper: even daemons that left their parent
are found). The whole run is bounded by --timeout seconds.

Usage: tutorial_test.py SOURCE_DIR BUILD_DIR [--timeout S] [--keep]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

MARKER = re.compile(r"^<!--\s*tutorial-test(?::\s*(.*?))?\s*-->\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
PORTS = ("7700", "7800", "7801", "8700")


def blocks(markdown: str) -> list[tuple[int, set[str], str]]:
    """(line number, words, text) of every marked ```sh block."""
    out = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        if not m:
            i += 1
            continue
        words = set((m.group(1) or "").split())
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        fence = FENCE.match(lines[j].strip()) if j < len(lines) else None
        if not fence or fence.group(1) != "sh":
            raise SystemExit(f"tutorial line {i + 1}: a tutorial-test marker not followed by a ```sh block")
        k = j + 1
        body = []
        while k < len(lines) and lines[k].strip() != "```":
            body.append(lines[k])
            k += 1
        out.append((j + 2, words, "\n".join(body)))
        i = k + 1
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(root: int) -> list[int]:
    parent = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        parent[int(entry)] = int(fields[1])
    out, frontier = [], [root]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.extend(kids)
        frontier.extend(kids)
    return out


def stop_all() -> None:
    """Stops every process under this one (the runner is their subreaper)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = descendants(os.getpid())
        if not pids:
            return
        for p in pids:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + 5
        while time.time() < deadline and descendants(os.getpid()):
            try:
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            except ChildProcessError:
                pass
            time.sleep(0.1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("build")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--keep", action="store_true", help="keep the temporary HOME")
    args = ap.parse_args()
    source = os.path.abspath(args.source)
    build = os.path.abspath(args.build)
    with open(os.path.join(source, "docs", "tutorial.md")) as f:
        found = blocks(f.read())
    if not found:
        print("no marked blocks in docs/tutorial.md")
        return 1

    # Orphaned processes (a daemon, a bot whose parent died) come back to us.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

    home = tempfile.mkdtemp(prefix="tutorial-test-")
    # A checkout as the reader has it: the commands run "from a checkout of
    # this tree" copy from sdk/templates; nothing else of the tree is needed.
    tree = os.path.join(home, "tarock-arena")
    shutil.copytree(os.path.join(source, "sdk", "templates"), os.path.join(tree, "sdk", "templates"))
    ports = {p: str(free_port()) for p in PORTS}

    script = [
        "set -uo pipefail",
        "wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; "
        "sleep 0.1; done; return 1; }",
        f"cd {tree}",
    ]
    for line, words, text in found:
        for old, new in ports.items():
            text = re.sub(rf"(?<=:){old}\b", new, text)
        text = text.replace("ARENA_HOST", "127.0.0.1")
        header = f'echo "== docs/tutorial.md line {line}" >&2'
        until = [w.split("=", 1)[1] for w in words if w.startswith("until=")]
        if "background" in words:
            script += [header, "(", text, f") > {home}/background-{line}.log 2>&1 &"]
            for port in re.findall(r"--listen[ =]127\.0\.0\.1:(\d+)", text):
                script.append(f"wait_port {port} || {{ echo 'nothing listens on {port}' >&2; exit 1; }}")
        elif until:
            script += [header, "for try in $(seq 90); do", "set +e", f"out=$({text})", "set -e",
                       f'case "$out" in *{until[0]}*) break ;; esac', "sleep 1", "done",
                       'echo "$out"',
                       f'case "$out" in *{until[0]}*) ;; *) echo "never held {until[0]}" >&2; exit 1 ;; esac']
        elif "any-status" in words:
            script += [header, "set +e", text, "set -e"]
        else:
            script += [header, "set -e", text, "set +e"]
    script.append('echo "== every marked block ran" >&2')
    with open(os.path.join(home, "tutorial.sh"), "w") as f:
        f.write("\n".join(script) + "\n")

    # Step 1's virtual environment, in effect: python3 is Debian's (its grpcio and
    # protobuf), with the SDK from BUILD/python.
    venv_bin = os.path.join(home, ".tutorial-venv-bin")
    os.makedirs(venv_bin)
    os.symlink("/usr/bin/python3", os.path.join(venv_bin, "python3"))
    env = dict(os.environ)
    env.update(
        HOME=home,
        PATH=f"{build}/bin:{venv_bin}:{env.get('PATH', '/usr/bin:/bin')}",
        PYTHONPATH=f"{build}/python" + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""),
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("TAROCK_BOT_TOKEN", None)
    print(f"{len(found)} blocks, HOME={home}, ports {ports}", flush=True)
    started = time.time()
    proc = subprocess.Popen(["bash", os.path.join(home, "tutorial.sh")], env=env, cwd=home)
    try:
        rc = proc.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL: the tutorial's commands took more than {args.timeout:.0f} s")
        rc = -1
    finally:
        stop_all()
    for name in sorted(os.listdir(home)):
        if name.startswith("background-"):
            with open(os.path.join(home, name), errors="replace") as f:
                tail = f.read()[-3000:]
            if rc != 0:
                print(f"--- {name} (last lines)\n{tail}")
    print(f"exit status {rc} after {time.time() - started:.1f} s")
    if not args.keep:
        shutil.rmtree(home, ignore_errors=True)
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
