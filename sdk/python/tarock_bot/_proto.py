"""The generated tarock.v1 messages (``protoc --python_out`` from
proto/tarock/v1/tarock.proto, done by the build into ``build/python``).

Everything else in the SDK imports the messages from here, so a missing build
gives one clear error instead of an ImportError deep inside.
"""

from __future__ import annotations

try:
    from tarock.v1 import tarock_pb2 as pb  # noqa: F401  (re-exported)
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "tarock_bot: the generated protocol module tarock.v1.tarock_pb2 is missing. "
        "Build it (`ninja -C build tarock_python`) and put build/python on PYTHONPATH "
        "(`tarock match` and `tarock check-bot` do that for py:PATH bots). "
        f"Cause: {e}"
    ) from e

try:
    # The gateway's messages (gateway.proto), for dialing in (connect.py).
    from tarock.v1 import gateway_pb2 as gw  # noqa: F401  (re-exported)
except ImportError:  # pragma: no cover - an older build: connect.py says so
    gw = None

__all__ = ["pb", "gw"]
