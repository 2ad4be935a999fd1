#!/usr/bin/env python3
"""Keeps docs/cli.md true to the programs' --help.

1. Every `--flag` named in a part of docs/cli.md that begins with
   ``<!-- flags-of: PROGRAM[,PROGRAM...] -->`` exists in the --help of one of
   those programs (a flag in the usage text counts too).
2. The flag lists between ``<!-- generated-flags: PROGRAM -->`` and
   ``<!-- end generated-flags -->`` are exactly what --help says today.

Usage: cli_docs_test.py SOURCE_DIR BUILD_DIR [--write]
  --write  regenerate the lists (2) in docs/cli.md instead of checking them
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

FLAGS_OF = re.compile(r"<!--\s*flags-of:\s*([\w,.-]+)\s*-->")
GENERATED = re.compile(r"(<!--\s*generated-flags:\s*([\w.-]+)\s*-->\n)(.*?)(<!--\s*end generated-flags\s*-->)", re.S)
FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9_]*)")


# program -> exit status of its --help (every one must be 0: asking for help is no failure).
HELP_STATUS: dict[str, int] = {}

# Programs whose --help is checked although docs/cli.md does not list their flags:
# each must exit 0 and name itself first in its usage (checked when it is built).
OTHER_PROGRAMS = ["faulty_bot", "arena_bench", "referee_bench", "ladder_bench", "random_decisions",
                  "sandbox_bench", "tarock-bot-random", "tarock-bot-heuristic", "tarock-bot-search",
                  "tarock-health-probe", "engine_bench", "rating_bench", "web_bench"]


def help_text(build: str, program: str) -> str:
    out = subprocess.run([os.path.join(build, "bin", program), "--help"], capture_output=True,
                         text=True, timeout=30)
    HELP_STATUS[program] = out.returncode
    return out.stdout + out.stderr


def flag_entries(text: str) -> list[tuple[str, str, str]]:
    """(name, help, default) of every flag entry of an Abseil --help."""
    entries, current = [], None
    for line in text.splitlines():
        if line.startswith("    --"):
            if current is not None:
                entries.append(current)
            current = line.strip()
        elif current is not None and line.startswith("      "):
            current += " " + line.strip()
        elif current is not None:
            entries.append(current)
            current = None
    if current is not None:
        entries.append(current)
    out = []
    for e in entries:
        m = re.match(r"^--(\w+) \((.*)\); default: (.*);$", e, re.S)
        if m:
            out.append((m.group(1), m.group(2), m.group(3)))
    return sorted(out)


def generated(build: str, program: str) -> str:
    lines = []
    for name, text, default in flag_entries(help_text(build, program)):
        default = default.strip()
        shown = "no default" if default == "" else f"default `{default}`"
        lines.append(f"- `--{name}` ({shown}): {text}")
    return "\n".join(lines) + "\n"


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    source, build = sys.argv[1], sys.argv[2]
    write = "--write" in sys.argv[3:]
    path = os.path.join(source, "docs", "cli.md")
    with open(path) as f:
        doc = f.read()

    def regenerate(m: re.Match) -> str:
        return m.group(1) + generated(build, m.group(2)) + m.group(4)

    new_doc = GENERATED.sub(regenerate, doc)
    if write:
        with open(path, "w") as f:
            f.write(new_doc)
        print(f"wrote {path}")
        return 0

    failures = []
    if new_doc != doc:
        failures.append("the generated flag lists of docs/cli.md differ from --help: run "
                        "tests/cli_docs_test.py SOURCE_DIR BUILD_DIR --write and review the diff")

    # 1. flags named in the hand-written parts.
    helps: dict[str, str] = {}
    body = GENERATED.sub("", doc)
    pieces = FLAGS_OF.split(body)
    checked = 0
    for i in range(1, len(pieces), 2):
        programs = pieces[i].split(",")
        for p in programs:
            if p not in helps:
                helps[p] = help_text(build, p)
        known = set()
        for p in programs:
            known |= set(FLAG.findall(helps[p]))
        for line_no, line in enumerate(pieces[i + 1].splitlines()):
            for flag in FLAG.findall(line):
                checked += 1
                if flag not in known:
                    failures.append(f"--{flag} is not in the --help of {', '.join(programs)}: {line.strip()}")
    # 2. every program's --help exits 0 and names the program in its first line.
    for p in OTHER_PROGRAMS:
        if p not in helps and os.path.exists(os.path.join(build, "bin", p)):
            helps[p] = help_text(build, p)
            first = helps[p].lstrip().splitlines()[0] if helps[p].strip() else ""
            if not first.startswith(p):
                failures.append(f"{p} --help does not start with its own name: {first!r}")
            if len(helps[p].strip().splitlines()) < 2:
                failures.append(f"{p} --help does not say what it does")
    # 3. `help match` lists the flags of `match stderr` (issue 47).
    out = subprocess.run([os.path.join(build, "bin", "tarock-arena-cli"), "help", "match"],
                         capture_output=True, text=True, timeout=30)
    for flag in ("--bot", "--token", "--record"):
        if f"\n  {flag} (default" not in out.stdout:
            failures.append(f"tarock-arena-cli help match does not list {flag}")
    for p, status in sorted(HELP_STATUS.items()):
        if status != 0:
            failures.append(f"{p} --help exits {status}, not 0")
    if checked == 0:
        failures.append("no flags checked: docs/cli.md has no <!-- flags-of: ... --> parts")
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} flag mentions checked against {len(helps)} programs' --help; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
