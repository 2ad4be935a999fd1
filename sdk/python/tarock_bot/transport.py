"""Transport security for the Python SDK, the same rules as the C++ transport library
``tarock/transport/transport.h`` and the same flags (docs/security.md):

- ``--tls_cert``/``--tls_key``: the PEM certificate and key this process
  presents (a served bot to the referee; a dial-in bot to the arena when the
  arena asks for a client certificate);
- ``--tls_ca``: the PEM roots that verify the servers this process dials
  (turns TLS on for ``connect``);
- ``--tls_client_ca``: a served bot requires a client certificate signed by
  these roots (mutual TLS: only the competition's referees may play it);
- ``--tls_server_name``: the name to verify in the server's certificate
  instead of the target's host;
- ``--allow_plaintext``: plaintext off loopback (a trusted network only).

Plaintext is refused on any address other than loopback unless allowed, so a
bot never plays in the clear over a network by mistake.

Also here: the check of the referee's proof (``referee_proof``), which tells a
referee of the bot's arena from a stranger:
``proof = hex(HMAC-SHA256(secret, MATCH_ID + "/" + SEAT))``.

Thread-safety: ``Transport`` is immutable after construction.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import ipaddress
import os
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import grpc

REFEREE_PROOF_HEADER = "x-tarock-referee-proof"


def host_of(address: str) -> str:
    """The host of ``HOST:PORT``, ``[V6]:PORT``, a bare host, or a gRPC URI
    target (``ipv4:``, ``ipv6:``, ``dns:///``)."""
    for scheme in ("dns:///", "ipv4:", "ipv6:", "dns:"):
        if address.startswith(scheme):
            address = address[len(scheme):]
            break
    if address.startswith("["):
        close = address.find("]")
        return address[1:close] if close >= 0 else address[1:]
    if address.count(":") == 1:
        address = address.rsplit(":", 1)[0]
    return address


def is_loopback_address(address: str) -> bool:
    """True for unix sockets, ``localhost`` and the loopback ranges."""
    if address.startswith(("unix:", "unix-abstract:")):
        return True
    host = host_of(address).lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _read_pem(path: str, what: str) -> bytes:
    if not path:
        return b""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as e:
        raise ValueError(f"cannot read {what} {path}: {e.strerror}") from e
    if b"-----BEGIN " not in text:
        raise ValueError(f"{what} {path} is not PEM")
    return text


@dataclass(frozen=True)
class TransportOptions:
    cert_file: str = ""  # PEM certificate chain of this process ("": none)
    key_file: str = ""  # PEM private key of cert_file
    ca_file: str = ""  # clients: roots that verify servers ("": plaintext)
    client_ca_file: str = ""  # servers: require client certificates signed by these
    server_name: str = ""  # clients: the name to verify instead of the target's host
    allow_plaintext: bool = False  # plaintext on addresses other than loopback


class Transport:
    """Credentials for servers and channels; raises ``ValueError`` with a
    message for the user on bad options or a refused plaintext address."""

    def __init__(self, options: Optional[TransportOptions] = None) -> None:
        o = options or TransportOptions()
        if bool(o.cert_file) != bool(o.key_file):
            raise ValueError("--tls_cert and --tls_key go together")
        self._cert = _read_pem(o.cert_file, "certificate")
        self._key = _read_pem(o.key_file, "key")
        self._ca = _read_pem(o.ca_file, "CA certificates")
        self._client_ca = _read_pem(o.client_ca_file, "client CA certificates")
        if self._client_ca and not self._cert:
            raise ValueError("--tls_client_ca needs --tls_cert and --tls_key")
        self._server_name = o.server_name
        self._allow_plaintext = o.allow_plaintext

    @property
    def server_tls(self) -> bool:
        return bool(self._cert)

    @property
    def client_tls(self) -> bool:
        return bool(self._ca)

    def add_port(self, server: grpc.Server, address: str) -> int:
        """Binds ``server`` to ``address`` with TLS or (loopback) plaintext;
        returns the port (0 when it could not bind)."""
        if not self._cert:
            if not self._allow_plaintext and not is_loopback_address(address):
                raise ValueError(
                    f"refusing to listen in plaintext on {address}, which is not a loopback "
                    "address: give --tls_cert and --tls_key (see scripts/dev-certs.sh), or "
                    "--allow_plaintext on a trusted network")
            return server.add_insecure_port(address)
        credentials = grpc.ssl_server_credentials(
            [(self._key, self._cert)],
            root_certificates=self._client_ca or None,
            require_client_auth=bool(self._client_ca),
        )
        return server.add_secure_port(address, credentials)

    def channel(self, target: str,
                options: Sequence[Tuple[str, object]] = ()) -> grpc.Channel:
        """A channel to ``target``: TLS when a CA was given, else plaintext to
        loopback only (unless allowed)."""
        opts: List[Tuple[str, object]] = list(options)
        if not self._ca:
            if not self._allow_plaintext and not is_loopback_address(target):
                raise ValueError(
                    f"refusing to connect in plaintext to {target}, which is not a loopback "
                    "address: give --tls_ca (the roots that signed its certificate), or "
                    "--allow_plaintext on a trusted network")
            return grpc.insecure_channel(target, options=opts)
        credentials = grpc.ssl_channel_credentials(
            root_certificates=self._ca,
            private_key=self._key or None,
            certificate_chain=self._cert or None,
        )
        if self._server_name:
            opts.append(("grpc.ssl_target_name_override", self._server_name))
        return grpc.secure_channel(target, credentials, options=opts)


def add_transport_arguments(parser: argparse.ArgumentParser) -> None:
    """The TLS flags, named as in the C++ programs."""
    g = parser.add_argument_group("transport security (docs/security.md)")
    g.add_argument("--tls_cert", default="", help="PEM certificate chain this process presents")
    g.add_argument("--tls_key", default="", help="PEM private key of --tls_cert")
    g.add_argument("--tls_ca", default="",
                   help="PEM roots that verify the servers this process dials (turns TLS on)")
    g.add_argument("--tls_client_ca", default="",
                   help="serve: require a client certificate signed by these PEM roots")
    g.add_argument("--tls_server_name", default="",
                   help="the name to verify in a server's certificate instead of the host")
    g.add_argument("--allow_plaintext", action="store_true",
                   help="allow plaintext gRPC on addresses other than loopback")


def transport_from_arguments(args: argparse.Namespace) -> Transport:
    return Transport(TransportOptions(
        cert_file=args.tls_cert, key_file=args.tls_key, ca_file=args.tls_ca,
        client_ca_file=args.tls_client_ca, server_name=args.tls_server_name,
        allow_plaintext=args.allow_plaintext))


def referee_proof(secret: str, match_id: str, seat: int) -> str:
    """The proof a referee of the bot's arena presents for one seat."""
    return hmac.new(secret.encode(), f"{match_id}/{seat}".encode(), hashlib.sha256).hexdigest()


def referee_proof_matches(secret: str, match_id: str, seat: int, proof: str) -> bool:
    """The check, in constant time; False for an empty proof."""
    if not proof:
        return False
    return hmac.compare_digest(referee_proof(secret, match_id, seat).encode(), proof.encode())


def secret_from_flag_or_env(value: Optional[str], env: str) -> str:
    return value if value else os.environ.get(env, "")
