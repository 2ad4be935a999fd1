#!/usr/bin/env python3
"""Generates the tarock.v1 protocol messages for the Python SDK: every
``tarock/v1/*.proto`` under PROTO_DIR, compiled with ``protoc --python_out
--pyi_out``, written flat into OUT (``tarock_bot/_generated``) with their
imports of each other made relative (``from tarock.v1 import tarock_pb2`` ->
``from . import tarock_pb2``; the classes' module is the generated module's
own ``__name__``), so the messages live inside the tarock_bot
package and need nothing else on sys.path. The descriptors keep their proto
file names (``tarock/v1/tarock.proto``), as the other languages' stubs do.

Used by the CMake build (build/python/tarock_bot/_generated and the wheel) and
by setup.py (``pip install ./sdk/python`` from a source checkout).

    generate_messages.py --proto_dir proto --out DIR [--protoc PROTOC]

The compiler: --protoc, else $PROTOC, else ``protoc`` on PATH (Debian:
protobuf-compiler), else the ``grpc_tools.protoc`` module (pip: grpcio-tools).
Files whose content is unchanged are not rewritten; generated files of protos
that no longer exist are removed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

PACKAGE_DIR = Path("tarock") / "v1"
_IMPORT = re.compile(r"^from tarock\.v1 import (\w+_pb2)\b", re.MULTILINE)
# The module name given to the message classes (their __module__).
_MODULE_NAME = re.compile(r"^(_builder\.\w+\(DESCRIPTOR, )'tarock\.v1\.\w+_pb2'", re.MULTILINE)
_INIT = '''"""The tarock.v1 protocol messages, generated from proto/tarock/v1/*.proto
(sdk/python/generate_messages.py). Import them through tarock_bot._proto."""
'''


def protos(proto_dir: Path) -> list[Path]:
    """The .proto files of tarock.v1 under proto_dir, relative to it, sorted."""
    found = sorted(p.relative_to(proto_dir) for p in (proto_dir / PACKAGE_DIR).glob("*.proto"))
    if not found:
        raise FileNotFoundError(f"no .proto files in {proto_dir / PACKAGE_DIR}")
    return found


def protoc_command(protoc: Optional[str]) -> list[str]:
    """The command that runs protoc, as described in the module docstring."""
    protoc = protoc or os.environ.get("PROTOC") or shutil.which("protoc")
    if protoc:
        return [protoc]
    try:
        import grpc_tools.protoc  # noqa: F401  (only to know it is there)
    except ImportError:
        raise FileNotFoundError(
            "generating the tarock.v1 messages needs protoc: install protobuf-compiler "
            "(Debian) or grpcio-tools (pip), or set $PROTOC; or install the wheel that "
            "the build makes (build/dist/tarock_bot-*.whl), which has them inside"
        ) from None
    return [sys.executable, "-m", "grpc_tools.protoc"]


def generate(proto_dir: Path, out: Path, protoc: Optional[str] = None) -> list[Path]:
    """Writes the messages of every tarock.v1 proto into out; returns the files."""
    proto_dir = proto_dir.resolve()
    files = protos(proto_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="tarock-pb-") as tmp:
        cmd = protoc_command(protoc) + [
            f"--proto_path={proto_dir}", f"--python_out={tmp}", f"--pyi_out={tmp}",
            *(str(f) for f in files)]
        subprocess.run(cmd, check=True, cwd=proto_dir)
        for generated in sorted((Path(tmp) / PACKAGE_DIR).iterdir()):
            text = _IMPORT.sub(r"from . import \1", generated.read_text())
            text = _MODULE_NAME.sub(r"\1__name__", text)
            written.append(_write_if_changed(out / generated.name, text))
    written.append(_write_if_changed(out / "__init__.py", _INIT))
    keep = {p.name for p in written}
    for old in out.glob("*_pb2.py*"):
        if old.name not in keep:
            old.unlink()
    return written


def _write_if_changed(path: Path, text: str) -> Path:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    else:
        os.utime(path)  # newer than its inputs, for make-style builds
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--proto_dir", required=True, type=Path,
                        help="the directory holding tarock/v1/*.proto")
    parser.add_argument("--out", required=True, type=Path, help="e.g. tarock_bot/_generated")
    parser.add_argument("--protoc", default=None, help="the protoc executable")
    args = parser.parse_args(argv)
    try:
        generate(args.proto_dir, args.out, args.protoc)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"generate_messages.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
