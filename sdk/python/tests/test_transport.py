"""The Python SDK's transport security (tarock_bot.transport): loopback
detection, the refusal of plaintext off loopback, the referee proof (checked
against openssl's HMAC, an implementation that is not ours), and a served bot
over TLS and with a referee secret, reached in process by a real gRPC client.
The arena-and-referee end of the same is tests/tls_test.sh."""

from __future__ import annotations

import subprocess
from pathlib import Path

import grpc
import pytest

from conftest import SOURCE
from tarock_bot import Bot
from tarock_bot._proto import pb
from tarock_bot.server import BotServer, METHOD, SERVICE
from tarock_bot.transport import (REFEREE_PROOF_HEADER, Transport, TransportOptions,
                                  is_loopback_address, referee_proof, referee_proof_matches)


@pytest.mark.parametrize("address,loopback", [
    ("127.0.0.1:7700", True), ("127.5.6.7:1", True), ("localhost:80", True),
    ("LOCALHOST", True), ("a.localhost:1", True), ("[::1]:7700", True), ("::1", True),
    ("[::ffff:127.0.0.1]:5", True), ("unix:/tmp/x", True), ("ipv4:127.0.0.1:9", True),
    ("dns:///localhost:7700", True),
    ("0.0.0.0:7700", False), ("[::]:7700", False), ("10.0.0.1:7700", False),
    ("192.0.2.1:7700", False), ("arena.example:7700", False), ("128.0.0.1:1", False),
    ("[::ffff:10.0.0.1]:5", False), ("localhost.example:1", False),
])
def test_loopback_addresses(address: str, loopback: bool) -> None:
    assert is_loopback_address(address) is loopback


def test_referee_proof_is_hmac_sha256_as_openssl_computes_it() -> None:
    out = subprocess.run(
        ["openssl", "dgst", "-sha256", "-hmac", "the-secret"], input=b"m-42/3",
        capture_output=True, check=True).stdout.decode()
    assert referee_proof("the-secret", "m-42", 3) == out.split()[-1]
    assert referee_proof_matches("the-secret", "m-42", 3, out.split()[-1])
    assert not referee_proof_matches("the-secret", "m-42", 2, out.split()[-1])
    assert not referee_proof_matches("other", "m-42", 3, out.split()[-1])
    assert not referee_proof_matches("the-secret", "m-42", 3, "")


def test_plaintext_is_refused_off_loopback() -> None:
    t = Transport()
    with pytest.raises(ValueError, match="--tls_ca"):
        t.channel("192.0.2.1:7700")
    t.channel("127.0.0.1:7700").close()  # loopback: allowed
    Transport(TransportOptions(allow_plaintext=True)).channel("192.0.2.1:7700").close()
    server = grpc.server(None)  # never started
    with pytest.raises(ValueError, match="--tls_cert"):
        t.add_port(server, "0.0.0.0:0")


def test_bad_options_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="go together"):
        Transport(TransportOptions(cert_file="x.pem"))
    with pytest.raises(ValueError, match="cannot read CA certificates"):
        Transport(TransportOptions(ca_file=str(tmp_path / "missing.pem")))
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(ValueError, match="is not PEM"):
        Transport(TransportOptions(ca_file=str(tmp_path / "junk.pem")))


class _Passer(Bot):
    def decide(self, s) -> str:  # pragma: no cover - no decision is asked here
        return s.legal[0]


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("certs")
    subprocess.run([str(SOURCE / "scripts" / "dev-certs.sh"), str(d)], check=True,
                   capture_output=True)
    return d


def _play(channel: grpc.Channel, metadata=()) -> list:
    """Opens a Play stream, sends a MatchStart, returns the first message."""
    play = channel.stream_stream(f"/{SERVICE}/{METHOD}",
                                 request_serializer=pb.RefereeMessage.SerializeToString,
                                 response_deserializer=pb.BotMessage.FromString)
    start = pb.RefereeMessage(match_start=pb.MatchStart(match_id="m-7", seat=2))
    call = play(iter([start]), metadata=metadata, timeout=10)
    return [next(call)]


def test_tls_bot_serves_only_over_tls(certs: Path) -> None:
    server_t = Transport(TransportOptions(cert_file=str(certs / "bot.pem"),
                                          key_file=str(certs / "bot.key")))
    with BotServer(_Passer, name="tls-bot", transport=server_t) as server:
        target = f"127.0.0.1:{server.port}"
        client = Transport(TransportOptions(ca_file=str(certs / "ca.pem")))
        with client.channel(target) as channel:
            assert _play(channel)[0].hello.name == "tls-bot"
        # A client that trusts another CA, and a plaintext client, get nothing.
        other = Transport(TransportOptions(ca_file=str(certs / "other-ca.pem")))
        for channel in (other.channel(target), Transport().channel(target)):
            with channel, pytest.raises(grpc.RpcError) as e:
                _play(channel)
            assert e.value.code() == grpc.StatusCode.UNAVAILABLE


def test_mutual_tls_bot_wants_a_client_certificate_of_its_ca(certs: Path) -> None:
    server_t = Transport(TransportOptions(cert_file=str(certs / "bot.pem"),
                                          key_file=str(certs / "bot.key"),
                                          client_ca_file=str(certs / "ca.pem")))
    with BotServer(_Passer, name="mtls-bot", transport=server_t) as server:
        target = f"127.0.0.1:{server.port}"
        referee = Transport(TransportOptions(ca_file=str(certs / "ca.pem"),
                                             cert_file=str(certs / "referee.pem"),
                                             key_file=str(certs / "referee.key")))
        with referee.channel(target) as channel:
            assert _play(channel)[0].hello.name == "mtls-bot"
        for options in (TransportOptions(ca_file=str(certs / "ca.pem")),
                        TransportOptions(ca_file=str(certs / "ca.pem"),
                                         cert_file=str(certs / "stranger.pem"),
                                         key_file=str(certs / "stranger.key"))):
            with Transport(options).channel(target) as channel, pytest.raises(grpc.RpcError):
                _play(channel)


def test_referee_secret_refuses_strangers_before_the_hello() -> None:
    secret = "s" * 64
    with BotServer(_Passer, name="guarded", referee_secret=secret) as server:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            good = referee_proof(secret, "m-7", 2)
            assert _play(channel, ((REFEREE_PROOF_HEADER, good),))[0].hello.name == "guarded"
            for metadata, why in (((), "no proof"),
                                  (((REFEREE_PROOF_HEADER, referee_proof(secret, "m-7", 1)),),
                                   "does not match"),
                                  (((REFEREE_PROOF_HEADER, referee_proof("x", "m-7", 2)),),
                                   "does not match")):
                with pytest.raises(grpc.RpcError) as e:
                    _play(channel, metadata)
                assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
                assert why in e.value.details()
