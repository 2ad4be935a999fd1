"""Dialing in: the bot connects out to an arena's ``BotGateway``
(proto/tarock/v1/gateway.proto, docs/dial-in.md) with its token and plays
every seat the arena gives it through that one connection, several matches at
once. No listening port, so it works behind NAT or a campus firewall.

``python3 -m tarock_bot connect BOT.py --arena HOST:PORT --token TOKEN``; the
token may come from the environment variable ``TAROCK_BOT_TOKEN`` instead
(preferred: it keeps the token out of ``ps``) and the address from
``TAROCK_ARENA``.

Threading: one thread reads the connection and hands each seat's messages to
that seat's own thread, with its own bot instance (a bot that thinks for a
second blocks no other seat); answers share the connection.
"""

from __future__ import annotations

import queue
import signal
import sys
import threading
import time
from typing import Dict, Iterator, Optional

import grpc

from ._proto import gw, pb
from .bot import BotFactory, BotSession
from .transport import Transport

METHOD = "/tarock.v1.BotGateway/Connect"
JOIN_METHOD = "/tarock.v1.SeatGateway/Join"
# The features of this SDK the arena may use (tarock.proto, Hello.features).
FEATURES = ("join-referee",)

# Errors after which reconnecting cannot help: the arena refused the token,
# the bot is retired or not a dial-in bot, or a newer connection replaced this.
PERMANENT = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.UNIMPLEMENTED,
}

_END = object()


class _Seat:
    """One seat: a thread with its own bot, fed the referee's messages."""

    def __init__(self, seat_id: int, factory: BotFactory, send) -> None:
        self.seat_id = seat_id
        self.factory = factory
        self.send = send
        self.inbox: "queue.Queue[object]" = queue.Queue()
        self.thread = threading.Thread(target=self._run, name=f"tarock-seat-{seat_id}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        session: Optional[BotSession] = None
        while True:
            message = self.inbox.get()
            if message is _END:
                return
            # A MatchStart (a new seat, or the seat again after a reconnection)
            # starts a fresh bot.
            if session is None or message.WhichOneof("message") == "match_start":
                session = BotSession(self.factory())
            reply = session.handle(message)
            if reply is not None:
                self.send(gw.BotUplink(reply=gw.SeatReply(seat_id=self.seat_id, message=reply)))

    def close(self) -> None:
        self.inbox.put(_END)


class _JoinedSeat:
    """A seat on the direct route (gateway.proto, JoinReferee): its own stream
    to the referee and its own thread and bot; independent of the arena
    connection, so it goes on while that connection is re-established."""

    def __init__(self, join: "gw.JoinReferee", factory: BotFactory, channel: grpc.Channel,
                 name: str, version: str, on_end) -> None:
        self.join = join
        self.factory = factory
        self.name = name
        self.version = version
        self.on_end = on_end
        self.outbox: "queue.Queue[object]" = queue.Queue()
        self._join = channel.stream_stream(
            JOIN_METHOD,
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )
        self.call = None
        self._cancelled = False
        self.thread = threading.Thread(target=self._run, name=f"tarock-join-{join.seat_id}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            # The referee refuses a join while the seat's earlier stream is
            # live (ALREADY_EXISTS): after this process restarted it may not
            # have seen the old stream end yet. Join again for a few seconds.
            for attempt in range(21):
                if attempt:
                    time.sleep(0.25)
                if self._cancelled or not self._run_once(last=attempt == 20):
                    break
        finally:
            self.on_end(self.join.ticket)

    def _run_once(self, last: bool) -> bool:
        """One join; True when it was refused as a second stream (join again)."""
        self.outbox = queue.Queue()
        self.outbox.put(pb.BotMessage(hello=pb.Hello(name=self.name, version=self.version)))
        outbox = self.outbox

        def uplink() -> Iterator["pb.BotMessage"]:
            while True:
                item = outbox.get()
                if item is _END:
                    return
                yield item

        session: Optional[BotSession] = None
        try:
            self.call = self._join(uplink(), metadata=(("x-tarock-seat-ticket", self.join.ticket),))
            for message in self.call:
                if session is None or message.WhichOneof("message") == "match_start":
                    session = BotSession(self.factory())
                reply = session.handle(message)
                if reply is not None:
                    outbox.put(reply)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.ALREADY_EXISTS and session is None and not last:
                return True
            if e.code() == grpc.StatusCode.UNAVAILABLE and session is None:
                # Never reached the referee: an arena on the default route
                # (--dial_in_route=auto) plays the seat through itself instead.
                print(f"{self.name}: cannot reach referee {self.join.referee} for seat "
                      f"{self.join.seat_id} ({e.details()}); the arena relays the seat if its "
                      f"--dial_in_route is auto", file=sys.stderr, flush=True)
            elif e.code() != grpc.StatusCode.CANCELLED:
                print(f"{self.name}: seat {self.join.seat_id} on referee {self.join.referee} ended: "
                      f"{e.code().name}: {e.details()}", file=sys.stderr, flush=True)
        finally:
            outbox.put(_END)
        return False

    def cancel(self) -> None:
        self._cancelled = True
        call = self.call
        if call is not None:
            call.cancel()


class DialIn:
    """A bot's connection to an arena. ``run()`` plays until ``stop()`` (or
    SIGINT/SIGTERM with ``serve_forever``) and returns an exit status."""

    def __init__(
        self,
        factory: BotFactory,
        arena: str,
        token: str,
        name: str = "bot",
        version: str = "",
        reconnect: bool = True,
        max_receive_bytes: int = 4 << 20,
        transport: Optional[Transport] = None,
    ) -> None:
        """``transport``: TLS to the arena (default: plaintext, to a loopback
        arena only; ValueError otherwise)."""
        if gw is None:
            raise ImportError(
                "tarock_bot: the generated module tarock.v1.gateway_pb2 is missing; "
                "rebuild (`ninja -C build tarock_python`)"
            )
        self.factory = factory
        self.arena = arena
        self.token = token
        self.name = name
        self.version = version
        self.reconnect = reconnect
        self._stop = threading.Event()
        self._call = None
        self._transport = transport or Transport()
        self._max_receive_bytes = max_receive_bytes
        self._joined: Dict[str, _JoinedSeat] = {}
        self._referees: Dict[str, grpc.Channel] = {}
        self._lock = threading.Lock()
        self.error: Optional[str] = None
        self._channel = self._transport.channel(
            arena,
            options=[
                ("grpc.max_receive_message_length", max_receive_bytes),
                ("grpc.keepalive_time_ms", 20000),
                ("grpc.keepalive_timeout_ms", 10000),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.http2.max_pings_without_data", 0),
            ],
        )
        self._connect = self._channel.stream_stream(
            METHOD,
            request_serializer=gw.BotUplink.SerializeToString,
            response_deserializer=gw.ArenaDownlink.FromString,
        )

    def stop(self) -> None:
        self._stop.set()
        call = self._call
        if call is not None:
            call.cancel()
        with self._lock:
            joined = list(self._joined.values())
        for seat in joined:
            seat.cancel()

    def _join_referee(self, join: "gw.JoinReferee") -> None:
        """The direct route: plays the seat on the referee, unless this ticket
        is being played already (a JoinReferee sent again after a reconnection)."""
        with self._lock:
            if self._stop.is_set() or not join.ticket or join.ticket in self._joined:
                return
            channel = self._referees.get(join.referee)
            if channel is None:
                try:
                    channel = self._transport.channel(
                        join.referee, options=[("grpc.max_receive_message_length", self._max_receive_bytes)])
                except ValueError as e:
                    print(f"{self.name}: cannot reach referee {join.referee}: {e}", file=sys.stderr, flush=True)
                    return
                self._referees[join.referee] = channel

            def ended(ticket: str) -> None:
                with self._lock:
                    self._joined.pop(ticket, None)

            self._joined[join.ticket] = _JoinedSeat(join, self.factory, channel, self.name, self.version, ended)

    def _connection(self) -> tuple[Optional[grpc.RpcError], bool]:
        """One connection until it ends: (its error or None, welcomed)."""
        outbox: "queue.Queue[object]" = queue.Queue()
        outbox.put(gw.BotUplink(hello=pb.Hello(name=self.name, version=self.version, features=FEATURES)))

        def uplink() -> Iterator["gw.BotUplink"]:
            while True:
                item = outbox.get()
                if item is _END:
                    return
                yield item

        seats: Dict[int, _Seat] = {}
        welcomed = False
        call = self._connect(uplink(), metadata=(("authorization", f"Bearer {self.token}"),))
        self._call = call
        if self._stop.is_set():
            call.cancel()
        error: Optional[grpc.RpcError] = None
        try:
            for down in call:
                kind = down.WhichOneof("message")
                if kind == "welcome":
                    welcomed = True
                    print(f"{self.name} connected to {self.arena} as {down.welcome.bot}", flush=True)
                elif kind == "seat":
                    seat = seats.get(down.seat.seat_id)
                    if seat is None:
                        seat = seats[down.seat.seat_id] = _Seat(down.seat.seat_id, self.factory, outbox.put)
                    seat.inbox.put(down.seat.message)
                elif kind == "join_referee":
                    self._join_referee(down.join_referee)
                elif kind == "seat_closed":
                    seat = seats.pop(down.seat_closed.seat_id, None)
                    if seat is not None:
                        seat.close()
        except grpc.RpcError as e:
            error = e
        finally:
            for seat in seats.values():
                seat.close()
            outbox.put(_END)
            self._call = None
        return error, welcomed

    def run(self) -> int:
        backoff = 0.2
        while not self._stop.is_set():
            error, welcomed = self._connection()
            if self._stop.is_set():
                break
            code = error.code() if error is not None else grpc.StatusCode.OK
            details = error.details() if error is not None else "the arena closed the connection"
            why = f"{code.name}: {details}"
            if code in PERMANENT:
                self.error = f"the arena at {self.arena} ended the connection: {why}"
                print(f"{self.name}: {self.error}", file=sys.stderr, flush=True)
                return 1
            if not self.reconnect:
                self.error = f"connection to {self.arena} lost: {why}"
                print(f"{self.name}: {self.error}", file=sys.stderr, flush=True)
                return 1
            if welcomed:
                backoff = 0.2
            print(f"{self.name}: connection to {self.arena} lost ({why}); reconnecting in {backoff:.1f} s",
                  file=sys.stderr, flush=True)
            self._stop.wait(backoff)
            backoff = min(backoff * 2, 5.0)
        return 0

    def close(self) -> None:
        self.stop()
        self._channel.close()
        with self._lock:
            referees = list(self._referees.values())
        for channel in referees:
            channel.close()


def connect(
    factory: BotFactory,
    arena: str,
    token: str,
    name: str = "bot",
    version: str = "",
    transport: Optional[Transport] = None,
) -> int:
    """Dials in until SIGINT or SIGTERM (see the module's docstring). Prints
    ``NAME connected to HOST:PORT as BOT`` on each connection. Returns an exit
    status: 1 when the arena refuses the token, the bot is retired or a newer
    connection of the same bot replaced this one."""
    if not arena or ":" not in arena:
        print(f"{name}: the arena's address must be HOST:PORT (--arena or TAROCK_ARENA)", file=sys.stderr)
        return 1
    if not token:
        print(f"{name}: no token: give --token or set TAROCK_BOT_TOKEN "
              "(from `tarock-arena-cli bots add NAME --dial_in`)", file=sys.stderr)
        return 1
    try:
        dial = DialIn(factory, arena, token, name=name, version=version, transport=transport)
    except ValueError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    done = threading.Event()

    def on_signal(*_: object) -> None:
        done.set()
        dial.stop()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    result = {"status": 0}
    runner = threading.Thread(target=lambda: result.update(status=dial.run()), daemon=True)
    runner.start()
    while runner.is_alive() and not done.is_set():
        runner.join(0.2)
    dial.stop()
    runner.join(2.0)
    return result["status"]
