"""A real HTTP(S) server on 127.0.0.1 for the CASE fetch tests, and the CASE JSON it serves.

Every body is written by the tests (a tiny made-up framework); nothing is fetched from outside. The
server runs ``http.server.ThreadingHTTPServer`` in a thread; each path answers with a :class:`Reply`
that can delay, trickle, redirect, fail, or frame its body by length, chunks or connection close.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import json
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

DOC = "7c2e0000-0000-4000-8000-000000000001"
STRAND = "7c2e0000-0000-4000-8000-000000000010"
BOIL = "7c2e0000-0000-4000-8000-000000000020"
FREEZE = "7c2e0000-0000-4000-8000-000000000021"
MIX = "7c2e0000-0000-4000-8000-000000000022"
ELSEWHERE = "e15e0000-0000-4000-8000-000000000099"  # a statement of some other framework
FRAMEWORK_ID = "kitchen-science-for-tests"
V1P0 = f"/ims/case/v1p0/CFPackages/{DOC}"
V1P1 = f"/ims/case/v1p1/CFPackages/{DOC}"


def _link(identifier: str, title: str) -> dict[str, str]:
    return {"title": title, "identifier": identifier, "uri": f"https://case.test/uri/{identifier}"}


def _association(number: int, kind: str, origin: dict[str, Any], destination: dict[str, Any]) -> dict[str, Any]:
    identifier = f"7c2e0000-0000-4000-8000-0000000001{number:02d}"
    return {
        "identifier": identifier,
        "uri": f"https://case.test/uri/{identifier}",
        "associationType": kind,
        "originNodeURI": origin,
        "destinationNodeURI": destination,
        "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
    }


def kitchen_science(case_version: str = "1.0") -> dict[str, Any]:
    """A small CFPackage written for these tests: a strand, three statements, links in and out."""
    doc = _link(DOC, "Kitchen Science for Tests")
    strand, boil, freeze, mix = (
        _link(STRAND, "Heat"),
        _link(BOIL, "KS.1"),
        _link(FREEZE, "KS.2"),
        _link(MIX, "KS.3"),
    )
    outside = {**_link(ELSEWHERE, "Describe what happens to water when it is heated."), "uri": "https://other.test/x"}
    package: dict[str, Any] = {
        "CFDocument": {
            "identifier": DOC,
            "uri": doc["uri"],
            "creator": "Test Kitchen Board",
            "title": "Kitchen Science for Tests",
            "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
            "version": "2.0",
            "language": "en",
            "subject": ["Science"],
            "adoptionStatus": "Draft",
            "licenseURI": {
                "title": "Test licence",
                "identifier": "7c2e0000-0000-4000-8000-000000000900",
                "uri": "https://case.test/licence",
            },
            "CFPackageURI": {**_link(DOC, "Kitchen Science for Tests"), "uri": f"https://case.test{V1P0}"},
        },
        "CFItems": [
            {
                "identifier": STRAND,
                "uri": strand["uri"],
                "fullStatement": "Heat changes matter.",
                "CFItemType": "Strand",
                "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
            },
            {
                "identifier": BOIL,
                "uri": boil["uri"],
                "fullStatement": "Observe water boiling in a covered pot.",
                "humanCodingScheme": "KS.1",
                "CFItemType": "Standard",
                "educationLevel": ["03", "04"],
                "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
            },
            {
                "identifier": FREEZE,
                "uri": freeze["uri"],
                "fullStatement": "Record how long an ice cube takes to melt on a plate.",
                "humanCodingScheme": "KS.2",
                "CFItemType": "Standard",
                "educationLevel": ["04"],
                "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
            },
            {
                "identifier": MIX,
                "uri": mix["uri"],
                "fullStatement": "Compare stirring sugar into cold and warm milk.",
                "humanCodingScheme": "KS.3",
                "CFItemType": "Standard",
                "educationLevel": ["04"],
                "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
            },
        ],
        "CFAssociations": [
            _association(1, "isChildOf", strand, doc),
            _association(2, "isChildOf", boil, strand),
            _association(3, "isChildOf", freeze, strand),
            _association(4, "isChildOf", mix, strand),
            _association(5, "precedes", boil, freeze),
            _association(6, "exactMatchOf", boil, outside),
            _association(7, "isRelatedTo", mix, outside),
            _association(8, "isPeerOf", freeze, mix),  # both inside: no counterpart, a mapping gap
        ],
        "CFDefinitions": {
            "CFLicenses": [
                {
                    "identifier": "7c2e0000-0000-4000-8000-000000000900",
                    "uri": "https://case.test/licence",
                    "title": "Test licence",
                    "licenseText": "Written for the kgfegmcp tests; no rights reserved.",
                    "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
                }
            ]
        },
    }
    if case_version == "1.1":
        document = package["CFDocument"]
        document.update(caseVersion="1.1", frameworkType="Academic Standards", statusStartDate="2025-01-01")
        document.pop("CFPackageURI")  # CASE 1.1's CFPckgDocument has none
        package["CFItems"][1].update(statusStartDate="2025-01-01", subject=["Science"], extensions={"x": {"y": 1}})
        package["CFAssociations"][5]["notes"] = "Same expectation, worded by another board."
        package["CFAssociations"][5]["destinationNodeURI"]["targetType"] = "CASE"
        package["CFRubrics"] = [{"identifier": "7c2e0000-0000-4000-8000-000000000800", "uri": "https://case.test/r"}]
        package["extensions"] = {"publisherNote": "test"}
    return package


def body_of(document: Any) -> bytes:
    return json.dumps(document).encode("utf-8")


@dataclass
class Reply:
    """How one path answers."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    framing: Literal["length", "chunked", "close"] = "length"
    declared_length: int | None = None  # a Content-Length other than the body's real length
    delay_before: float = 0.0  # seconds before the status line
    trickle: float = 0.0  # seconds between one-byte body writes
    header_trickle: float = 0.0  # seconds between one-byte writes of the status line and headers
    reason: str | None = None  # the reason phrase, sent as it is (latin-1), when not the status's usual one


def raw_header(text: str) -> str:
    """``text``'s UTF-8 bytes as the latin-1 string ``http.server`` sends byte for byte."""
    return text.encode("utf-8").decode("latin-1")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        self.server.requests.append((self.path, dict(self.headers)))
        reply = self.server.routes.get(self.path) or Reply(status=404, body=b'{"imsx_codeMajor":"failure"}')
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self._answer(reply)  # a client giving up (timeout, cap) is expected in these tests

    def _answer(self, reply: Reply) -> None:
        time.sleep(reply.delay_before)
        self.send_response(reply.status, reply.reason)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.framing == "chunked":
            self.send_header("Transfer-Encoding", "chunked")
        elif reply.framing == "close":
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(reply.declared_length or len(reply.body)))
        if reply.header_trickle:  # the status line and headers, a byte at a time
            head = b"".join(self._headers_buffer) + b"\r\n"
            self._headers_buffer = []
            for byte in head:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(reply.header_trickle)
        else:
            self.end_headers()
        if reply.framing == "chunked":
            for start in range(0, len(reply.body), 65536):
                piece = reply.body[start : start + 65536]
                self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        elif reply.trickle:
            for byte in reply.body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(reply.trickle)
        else:
            self.wfile.write(reply.body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    routes: dict[str, Reply]
    requests: list[tuple[str, dict[str, str]]]

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # failed handshakes and dropped clients are what several tests provoke


@dataclass
class CaseServer:
    """A running server: register replies by path, get their URLs."""

    server: _Server
    scheme: str

    @property
    def base(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"

    def serve(self, path: str, reply: Reply) -> str:
        self.server.routes[path] = reply
        return self.base + path

    @property
    def requests(self) -> list[tuple[str, dict[str, str]]]:
        return self.server.requests


@contextmanager
def running_server(tls: ssl.SSLContext | None = None) -> Iterator[CaseServer]:
    """A server on an ephemeral 127.0.0.1 port, HTTPS when ``tls`` is given; stopped on exit."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.routes, server.requests = {}, []
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield CaseServer(server, "https" if tls else "http")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def self_signed_tls(directory: Path) -> tuple[ssl.SSLContext, Path]:
    """A server TLS context with a fresh self-signed certificate for 127.0.0.1, and the certificate's file.

    Needs ``cryptography`` (callers skip without it). The certificate is its own CA, so trusting the file
    (``SSL_CERT_FILE``) makes it valid, and not trusting it makes verification fail.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kgfegmcp test CASE provider")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = directory / "provider.pem", directory / "provider.key"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context, cert_file
