"""The Tarock Arena engine in Python: the referee's own rules (docs/python.md)."""

from tarock_engine._core import *  # noqa: F401,F403
from tarock_engine import _core

__version__ = "0.1.0"
