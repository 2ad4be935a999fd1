"""The generated tarock.v1 messages, which live inside this package in
``tarock_bot._generated`` (sdk/python/generate_messages.py runs ``protoc
--python_out --pyi_out`` on every proto/tarock/v1/*.proto: the build does it
into build/python and into the wheel; ``pip install ./sdk/python`` does it when
it builds the package).

Everything in the SDK imports the messages from here, so a package without
them gives one clear error instead of an ImportError deep inside:

- ``pb`` is tarock.proto's module (``tarock_pb2``: the referee and bot messages);
- any other generated module by its name, imported when first asked for:
  ``from tarock_bot._proto import arena_pb2`` (``gateway_pb2`` likewise, in
  a build whose protos have it); an ImportError when the module does not exist.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_HOW = (
    "Install the SDK with its messages (`pip install build/dist/tarock_bot-*.whl`, or "
    "`pip install ./sdk/python` with protoc installed), or build the target tarock_python "
    "and put build/python on PYTHONPATH (`tarock match` and `tarock check-bot` do that "
    "for py:PATH bots)."
)

try:
    from ._generated import tarock_pb2 as pb  # noqa: F401  (re-exported)
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"tarock_bot: the generated protocol module tarock_bot._generated.tarock_pb2 is missing. {_HOW} "
        f"Cause: {e}"
    ) from e

tarock_pb2 = pb


def __getattr__(name: str) -> ModuleType:
    """``X_pb2``: the generated module of proto/tarock/v1/X.proto, imported lazily."""
    if not name.endswith("_pb2") or name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(f"{__package__}._generated.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__package__}._generated.{name}":
            raise
        raise ImportError(
            f"tarock_bot: no generated protocol module {name} (no proto/tarock/v1/"
            f"{name[:-4]}.proto in the protos this SDK was built from)", name=name) from e
    globals()[name] = module
    return module


try:
    # The gateway's messages (gateway.proto), for dialing in (connect.py).
    from ._generated import gateway_pb2 as gw  # noqa: F401  (re-exported)
except ImportError:  # pragma: no cover - a package built without gateway.proto: connect.py says so
    gw = None

__all__ = ["pb", "tarock_pb2", "gw"]
