"""Serving a bot over gRPC: the ``Bot`` service of tarock.v1 (one bidirectional
``Play`` stream per seat per match), with a fresh bot instance per stream, so
one bot process can sit in many matches at once.

The service is registered through grpc's generic handlers, so only the message
classes are generated (``protoc --python_out``) and the SDK runs on Debian's
python3-grpcio and python3-protobuf alone.

Threading: each open stream occupies one thread of the server's pool for the
whole match; a bot instance is only ever called from its own stream's thread.
"""

from __future__ import annotations

import signal
import sys
import threading
from concurrent import futures
from typing import Iterator, Optional

import grpc

from ._proto import pb
from .health import HealthState
from .bot import BotFactory, BotSession
from .transport import REFEREE_PROOF_HEADER, Transport, referee_proof_matches

SERVICE = "tarock.v1.Bot"
METHOD = "Play"


class BotServer:
    """A running Bot service. ``start()`` binds and serves; ``port`` is the
    bound port; ``stop()`` ends it. Usable as a context manager."""

    def __init__(
        self,
        factory: BotFactory,
        listen: str = "127.0.0.1:0",
        name: str = "bot",
        version: str = "",
        max_streams: int = 64,
        max_receive_bytes: int = 4 << 20,
        transport: Optional[Transport] = None,
        referee_secret: str = "",
    ) -> None:
        """``transport``: TLS (default: plaintext, loopback only).
        ``referee_secret``: the secret the arena gave at registration; streams
        whose referee cannot prove it are refused (empty: accept any)."""
        self.factory = factory
        self.transport = transport or Transport()
        self.referee_secret = referee_secret
        self.listen = listen
        self.name = name
        self.version = version
        self.port = 0
        # grpc.health.v1 for probes (tarock_bot/health.py): SERVING from
        # start() until stop(). Its calls share the stream limit, so a bot
        # with every stream busy answers a probe RESOURCE_EXHAUSTED.
        self.health = HealthState([SERVICE])
        self._server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=max_streams, thread_name_prefix="tarock-bot"),
            handlers=[self._handler(), self.health.handler()],
            maximum_concurrent_rpcs=max_streams,
            options=[("grpc.max_receive_message_length", max_receive_bytes)],
        )

    def _handler(self) -> grpc.GenericRpcHandler:
        play = grpc.stream_stream_rpc_method_handler(
            self._play,
            request_deserializer=pb.RefereeMessage.FromString,
            response_serializer=pb.BotMessage.SerializeToString,
        )
        return grpc.method_handlers_generic_handler(SERVICE, {METHOD: play})

    def _play(
        self, requests: Iterator["pb.RefereeMessage"], context: grpc.ServicerContext
    ) -> Iterator["pb.BotMessage"]:
        first = None
        if self.referee_secret:
            # A stranger learns nothing, not even the Hello, before it proves
            # it was sent by the arena this bot registered with.
            first = next(requests, None)
            if first is None:
                return
            problem = self._check_proof(context, first)
            if problem:
                print(f"{self.name}: refused a stream: {problem}", file=sys.stderr, flush=True)
                context.abort(grpc.StatusCode.UNAUTHENTICATED, problem)
        yield pb.BotMessage(hello=pb.Hello(name=self.name, version=self.version))
        session = BotSession(self.factory())
        if first is not None:
            reply = session.handle(first)
            if reply is not None:
                yield reply
        for message in requests:
            reply = session.handle(message)
            if reply is not None:
                yield reply

    def _check_proof(self, context: grpc.ServicerContext,
                     first: "pb.RefereeMessage") -> str:
        """'' when the referee proved the secret, else why not."""
        proofs = [v for k, v in context.invocation_metadata() if k == REFEREE_PROOF_HEADER]
        if not proofs:
            return ("the referee presented no proof of this bot's referee secret "
                    "(not sent by its arena)")
        start = first.match_start
        proof = proofs[0] if isinstance(proofs[0], str) else proofs[0].decode("ascii", "replace")
        if not first.HasField("match_start") or not referee_proof_matches(
                self.referee_secret, start.match_id, start.seat, proof):
            return ("the referee's proof does not match this bot's referee secret "
                    "(not sent by its arena)")
        return ""

    def start(self) -> "BotServer":
        """Binds and serves; raises ValueError for a refused plaintext address."""
        self.port = self.transport.add_port(self._server, self.listen)
        if self.port == 0:
            raise OSError(f"cannot listen on {self.listen}")
        self._server.start()
        self.health.set_serving(True)
        return self

    @property
    def host(self) -> str:
        return self.listen.rsplit(":", 1)[0]

    def stop(self, grace: Optional[float] = 1.0) -> None:
        self.health.set_serving(False)
        self._server.stop(grace).wait()

    def __enter__(self) -> "BotServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop(0)


def serve(
    factory: BotFactory,
    listen: str = "127.0.0.1:0",
    name: str = "bot",
    version: str = "",
    transport: Optional[Transport] = None,
    referee_secret: str = "",
) -> int:
    """Serves until SIGINT or SIGTERM, then drains open streams for up to a
    second. Prints ``NAME listening on HOST:PORT`` on standard output once it
    accepts connections (port 0 picks a free port). Returns an exit status."""
    try:
        server = BotServer(factory, listen=listen, name=name, version=version,
                           transport=transport, referee_secret=referee_secret)
        server.start()
    except (OSError, RuntimeError, ValueError) as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(f"{name} listening on {server.host}:{server.port}", flush=True)
    while not stop.wait(0.5):
        pass
    server.stop(1.0)
    return 0
