"""Builds the tarock-bot package (metadata in pyproject.toml) with the
tarock.v1 messages inside it, in tarock_bot/_generated.

Where the messages come from, first that applies:
1. tarock_bot/_generated/ already in the tree being built (the CMake build
   stages the package with them and builds the wheel from that copy);
2. generated while building, by generate_messages.py beside this file, from
   the protos in $TAROCK_PROTO_DIR, else ../../proto (a source checkout:
   `pip install ./sdk/python`); this needs protoc (generate_messages.py
   says where it looks for it).
The generated files go to the build directory, not into tarock_bot/ of the tree.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
STAGED = HERE / "tarock_bot" / "_generated"
HAVE_STAGED = (STAGED / "tarock_pb2.py").is_file()


def _proto_dir() -> Path:
    candidates = [Path(os.environ["TAROCK_PROTO_DIR"])] if os.environ.get("TAROCK_PROTO_DIR") else []
    candidates.append(HERE.parent.parent / "proto")
    for c in candidates:
        if (c / "tarock" / "v1" / "tarock.proto").is_file():
            return c
    raise FileNotFoundError(
        "tarock-bot: cannot find the protos (tarock/v1/tarock.proto) in "
        + ", ".join(str(c) for c in candidates)
        + "; set TAROCK_PROTO_DIR, or install the wheel the build makes (build/dist/)")


def _generator():
    spec = importlib.util.spec_from_file_location("generate_messages", HERE / "generate_messages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _version() -> str:
    text = (HERE / "tarock_bot" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.MULTILINE).group(1)


class BuildPyWithMessages(build_py):
    """build_py, then the generated messages into the build's tarock_bot/_generated."""

    def run(self) -> None:
        super().run()
        if not HAVE_STAGED:
            out = Path(self.build_lib) / "tarock_bot" / "_generated"
            self.announce(f"generating the tarock.v1 messages into {out}", level=2)
            _generator().generate(_proto_dir(), out)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        out = Path(self.build_lib) / "tarock_bot" / "_generated"
        if not HAVE_STAGED and out.is_dir():
            outputs += [str(p) for p in out.iterdir() if p.is_file()]
        return outputs


setup(
    version=_version(),
    packages=["tarock_bot"] + (["tarock_bot._generated"] if HAVE_STAGED else []),
    package_data={"tarock_bot": ["py.typed"], "tarock_bot._generated": ["*.pyi"]},
    cmdclass={"build_py": BuildPyWithMessages},
)
