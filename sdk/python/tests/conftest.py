"""Shared fixtures of the Python SDK's tests: where the build is, running the
`tarock` tool with a time limit, and a check that no bot process outlives a test.

The build directory comes from $TAROCK_BUILD_DIR (ctest sets it), else
../../../build from here. Tests that need the build skip when it is missing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parent
SOURCE = Path(os.environ.get("TAROCK_SOURCE_DIR", HERE.parents[2]))
BUILD = Path(os.environ.get("TAROCK_BUILD_DIR", SOURCE / "build"))
BIN = BUILD / "bin"
PYTHON = "/usr/bin/python3"

# The SDK with its generated messages (build/python/tarock_bot: links to the
# sources and tarock_bot/_generated), for tests that import them in process.
if str(BUILD / "python") not in sys.path:
    sys.path.insert(0, str(BUILD / "python"))


def bin_path(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{path} is not built")
    return path


def run_tarock(*args: str, timeout: float = 60, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs build/bin/tarock; output as text."""
    return subprocess.run(
        [str(bin_path("tarock")), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )


def match_json(*args: str, timeout: float = 60) -> dict:
    """`tarock match --quiet --json ARGS`: the summary, asserting success."""
    r = run_tarock("match", "--quiet", "--json", *args, timeout=timeout)
    assert r.returncode == 0, f"tarock match failed ({r.returncode}): {r.stderr}\n{r.stdout}"
    return json.loads(r.stdout)


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that contain `text` (zombies left out)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            if (d / "stat").read_text().split(") ", 1)[1].startswith("Z"):
                continue
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if text in cmd:
            out.append(f"{d.name}: {cmd}")
    return out


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    """A scratch directory whose path is in every bot command line started
    from it; after the test, no process may still mention it."""
    yield tmp_path
    left = processes_mentioning(str(tmp_path))
    for line in left:
        try:
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes left running: {left}"


@pytest.fixture
def random_bot(workdir: Path) -> str:
    """The C++ random bot, linked into the work directory (so the leftover
    check sees it)."""
    link = workdir / "random-bot"
    link.symlink_to(bin_path("tarock-bot-random"))
    return str(link)


@pytest.fixture
def heuristic_bot(workdir: Path) -> str:
    link = workdir / "heuristic-bot"
    link.symlink_to(bin_path("tarock-bot-heuristic"))
    return str(link)


def copy_into(workdir: Path, source: Path, name: str | None = None) -> Path:
    """A copy of a bot file in the work directory."""
    target = workdir / (name or source.name)
    target.write_text(source.read_text())
    return target


def _variant_seats() -> dict[str, int]:
    """Every variant of the built engine and its number of seats (`tarock
    variants`); the Slovenian four when the tool is not built."""
    try:
        out = subprocess.run([str(BIN / "tarock"), "variants"], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {"slovenian-3p": 3, "slovenian-4p": 4, "slovenian-5p": 5, "slovenian-tapp": 3}
    seats: dict[str, int] = {}
    name = ""
    for line in out.splitlines():
        if line and not line.startswith(" "):
            name = line.split()[0]
        elif name and line.strip().startswith("seats "):
            seats[name] = int(line.split()[1].rstrip(","))
            name = ""
    return seats


VARIANT_SEATS = _variant_seats()
SLOVENIAN = sorted(v for v in VARIANT_SEATS if v.startswith("slovenian-"))
