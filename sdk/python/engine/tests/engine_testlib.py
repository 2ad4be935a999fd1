"""Shared helpers of the tarock_engine tests: the build tree, `tarock match`.

The build directory comes from $TAROCK_BUILD_DIR (ctest sets it), else
../../../../build from here. build/python (tarock_bot and tarock_engine) goes
first on sys.path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = Path(os.environ.get("TAROCK_SOURCE_DIR", HERE.parents[3]))
BUILD = Path(os.environ.get("TAROCK_BUILD_DIR", SOURCE / "build"))
BIN = BUILD / "bin"
PYTHON = "/usr/bin/python3"
if str(BUILD / "python") not in sys.path:
    sys.path.insert(0, str(BUILD / "python"))

SEATS = {"slovenian-3p": 3, "slovenian-4p": 4, "slovenian-5p": 5, "slovenian-tapp": 3,
         "tapp-tarock": 3, "tapp-tarock-classic": 3, "westfest": 4}
VARIANTS = sorted(SEATS)


def tarock_match(*args: str, timeout: float = 120) -> dict:
    """`tarock match --quiet --json ARGS`: the summary, asserting success."""
    r = subprocess.run([str(BIN / "tarock"), "match", "--quiet", "--json", *args],
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"tarock match failed ({r.returncode}): {r.stderr}\n{r.stdout}"
    return json.loads(r.stdout)
