"""The standard gRPC health service (``grpc.health.v1.Health/Check``) for bots
served by this SDK, so Kubernetes ``grpc:`` probes, grpc_health_probe and
``tarock-health-probe`` can ask a Python bot whether it serves.

Debian's python3-grpcio has no ``grpc_health`` module (that is the separate
grpcio-health-checking on PyPI), and the two messages are tiny, so they are
encoded here by hand: ``HealthCheckRequest {string service = 1;}`` and
``HealthCheckResponse {ServingStatus status = 1;}``, wire-compatible with
proto/grpc/health/v1/health.proto. Only ``Check`` is served; ``Watch`` answers
UNIMPLEMENTED (it would hold one of the server's stream threads per watcher).

Thread-safety: a HealthState may be read and set from any thread.
"""

from __future__ import annotations

import threading
from typing import Iterable

import grpc

SERVICE = "grpc.health.v1.Health"
UNKNOWN, SERVING, NOT_SERVING, SERVICE_UNKNOWN = 0, 1, 2, 3


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def decode_request(data: bytes) -> str:
    """The ``service`` of a serialized HealthCheckRequest (unknown fields skipped)."""
    service = ""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > len(data):
                raise ValueError("truncated field")
            if field == 1:
                service = data[pos:pos + length].decode("utf-8")
            pos += length
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
    return service


def encode_response(status: int) -> bytes:
    """A serialized HealthCheckResponse (proto3: the default 0 is not written)."""
    return bytes([0x08, status]) if status else b""


class HealthState:
    """The statuses a server reports: the overall one (service "") and those
    of named services, all set together by ``set_serving``."""

    def __init__(self, services: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._services = {"", *services}
        self._serving = False

    def set_serving(self, serving: bool) -> None:
        with self._lock:
            self._serving = serving

    def status(self, service: str) -> int:
        """SERVING or NOT_SERVING for a known service, SERVICE_UNKNOWN for another."""
        with self._lock:
            if service not in self._services:
                return SERVICE_UNKNOWN
            return SERVING if self._serving else NOT_SERVING

    def handler(self) -> grpc.GenericRpcHandler:
        """The generic handler serving Check from this state."""

        def check(service: str, context: grpc.ServicerContext) -> int:
            status = self.status(service)
            if status == SERVICE_UNKNOWN:
                # What grpc's own health services answer for a service they do not know.
                context.abort(grpc.StatusCode.NOT_FOUND, f"unknown service '{service}'")
            return status

        return grpc.method_handlers_generic_handler(SERVICE, {
            "Check": grpc.unary_unary_rpc_method_handler(
                check, request_deserializer=decode_request, response_serializer=encode_response),
        })
