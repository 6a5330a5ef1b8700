"""Fetch one CASE ``CFPackage`` from its publisher's CASE 1.0/1.1 REST API (``…/CFPackages/{id}``).

Build time only (``kgfegmcp packages fetch``); the server never uses the network. The client is
deliberately narrow, because the bytes it returns become a package that is later served as evidence:

- one ``GET`` of an ``http``/``https`` URL whose path ends in ``CFPackages/<id>``, with no
  credentials in it (the URL is recorded in the package's provenance);
- TLS verification is always on (the platform's trust store, or ``SSL_CERT_FILE``); there is no
  option to turn it off;
- redirects are followed one by one, counted against ``max_redirects``, and a redirect from
  ``https`` to ``http`` is refused;
- ``timeout_seconds`` bounds connecting and every read, ``deadline_seconds`` the whole fetch
  (checked before each request and after each chunk of the body);
- ``max_bytes`` bounds the body as it streams in: a larger ``Content-Length`` is refused before
  reading, but a smaller one (or none, with chunked transfer) is never trusted; the count is of the
  decoded bytes, and compressed bodies are inflated in bounded steps, so a small compressed body
  cannot grow past the cap in memory.

Every failure is one ``source_fetch_error`` (``<code>: <message> Next action: <hint>``). Whether the
bytes are a CASE CFPackage is decided by :func:`kgfegmcp.sources.case_document.parse_cf_package`.
"""

from __future__ import annotations

import hashlib
import re
import ssl
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx2
from pydantic import BaseModel, ConfigDict, Field

from kgfegmcp import __version__
from kgfegmcp.errors import SourceFetchError, echo

MIB = 1024 * 1024
#: Longest URL accepted (the manifest's source dataset ``uri`` holds at most 2000 characters).
MAX_URL_CHARS = 2000
#: The path of a CASE REST ``getCFPackage`` request (``/ims/case/v1p0/CFPackages/<id>`` on most hosts).
CF_PACKAGE_PATH = re.compile(r"/CFPackages/[^/]+/?$")
#: Body characters quoted from an error response, so the provider's own explanation is visible.
ERROR_BODY_CHARS = 160
_CHUNK_BYTES = 64 * 1024

#: Called with the bytes received so far and the declared ``Content-Length`` (``None`` when absent).
FetchProgress = Callable[[int, int | None], None]


class CaseFetchOptions(BaseModel):
    """Limits of one fetch; the defaults suit the largest published frameworks on a slow link."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_seconds: float = Field(30.0, gt=0, le=600, description="Connecting and each read, in seconds.")
    deadline_seconds: float = Field(600.0, gt=0, le=3600, description="The whole fetch, redirects included.")
    max_bytes: int = Field(128 * MIB, ge=1, le=512 * MIB, description="Largest body accepted (decoded bytes).")
    max_redirects: int = Field(5, ge=0, le=20, description="Redirects followed at most.")


def limits_summary(flags: dict[str, str]) -> str:
    """Each limit as ``<flag> <low>..<high> (default <d>)``, read from :class:`CaseFetchOptions` itself."""
    parts = []
    for name, info in CaseFetchOptions.model_fields.items():
        low = next((f"> {m.gt}" for m in info.metadata if getattr(m, "gt", None) is not None), None)
        low = low or next((f">= {m.ge}" for m in info.metadata if getattr(m, "ge", None) is not None), "")
        high = next((f"<= {m.le}" for m in info.metadata if getattr(m, "le", None) is not None), "")
        parts.append(f"{flags.get(name, name)} {low}, {high} (default {info.default})")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class FetchedCasePackage:
    """The body of a successful ``getCFPackage`` response, with where it came from."""

    url: str
    retrieved_url: str
    body: bytes
    sha256: str
    status_code: int
    content_type: str | None
    redirects: int


def check_case_url(url: str) -> httpx2.URL:
    """``url`` as a CASE ``CFPackages/<id>`` address; ``source_fetch_error`` for anything else."""
    hint = "Pass the provider's CASE API address of one package, e.g. https://HOST/ims/case/v1p0/CFPackages/<id>."
    if len(url) > MAX_URL_CHARS:
        raise SourceFetchError(f"The CASE URL is longer than {MAX_URL_CHARS} characters.", hint=hint)
    try:
        parsed = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise SourceFetchError(f"{echo(url, 200)} is not a valid URL ({exc}).", hint=hint) from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise SourceFetchError(f"{echo(url, 200)} is not an http or https URL with a host.", hint=hint)
    if parsed.userinfo:
        raise SourceFetchError(
            "The CASE URL carries credentials; it is recorded in the package's provenance, so it may not.",
            hint="Remove the user name and password from the URL.",
        )
    if not CF_PACKAGE_PATH.search(parsed.path):
        raise SourceFetchError(
            f"{echo(url, 200)} is not a CASE CFPackages address (its path must end in CFPackages/<id>).", hint=hint
        )
    return parsed


def fetch_case_package(
    url: str,
    options: CaseFetchOptions | None = None,
    on_progress: FetchProgress | None = None,
) -> FetchedCasePackage:
    """GET one CFPackage within ``options``; ``source_fetch_error`` for every failure to obtain it."""
    limits = options or CaseFetchOptions()
    current = check_case_url(url)
    deadline = time.monotonic() + limits.deadline_seconds
    headers = {
        "Accept": "application/json",
        "Accept-Encoding": "identity",
        "User-Agent": f"kgfegmcp/{__version__} (CASE CFPackage fetch)",
    }
    redirects = 0
    with httpx2.Client(
        verify=True,  # never anything else; trust_env adds SSL_CERT_FILE/SSL_CERT_DIR and the proxy variables
        trust_env=True,
        follow_redirects=False,
        timeout=httpx2.Timeout(limits.timeout_seconds),
        headers=headers,
    ) as client:
        while True:
            _check_deadline(deadline, limits, current)
            try:
                with client.stream("GET", current) as response:
                    if response.has_redirect_location:
                        current = _redirect_target(response, redirects, limits)
                        redirects += 1
                        continue
                    if not response.is_success:
                        raise _status_error(response)
                    body = _read_capped(response, limits, deadline, on_progress)
            except httpx2.TimeoutException:
                raise SourceFetchError(
                    f"{current.host} did not answer within {limits.timeout_seconds:g} s.",
                    hint="Try again later, or allow more time with --timeout.",
                ) from None
            except httpx2.RequestError as exc:
                raise _transport_error(exc, current) from None
            return FetchedCasePackage(
                url=url,
                retrieved_url=str(current) if redirects else url,  # never a re-spelling of the same address
                body=body,
                sha256=hashlib.sha256(body).hexdigest(),
                status_code=response.status_code,
                content_type=response.headers.get("Content-Type"),
                redirects=redirects,
            )


def _check_deadline(deadline: float, limits: CaseFetchOptions, url: httpx2.URL) -> None:
    if time.monotonic() > deadline:
        raise SourceFetchError(
            f"Fetching from {url.host} took longer than the deadline of {limits.deadline_seconds:g} s.",
            hint="Try again later, or allow more time with --deadline.",
        )


def _redirect_target(response: httpx2.Response, followed: int, limits: CaseFetchOptions) -> httpx2.URL:
    """The next URL of a redirect, within the limits; never from https to http."""
    source = response.url
    if response.next_request is None:
        raise SourceFetchError(f"{source.host} answered HTTP {response.status_code} with an invalid Location.")
    target = response.next_request.url
    if followed >= limits.max_redirects:
        raise SourceFetchError(
            f"{source.host} redirected more than {limits.max_redirects} time(s) (next: {echo(target, 200)}).",
            hint="Use the final address of the package directly, or allow more with --max-redirects.",
        )
    if target.scheme not in ("http", "https"):
        raise SourceFetchError(f"{source.host} redirected to a non-HTTP address ({echo(target, 200)}).")
    if source.scheme == "https" and target.scheme == "http":
        raise SourceFetchError(
            f"{source.host} redirected from https to http ({echo(target, 200)}); the downgrade was refused.",
            hint="Ask the provider to serve the package over https, or pass its https address.",
        )
    return target


def _status_error(response: httpx2.Response) -> SourceFetchError:
    """One line naming the status, with the start of the provider's own explanation when it gave one."""
    status = response.status_code
    snippet = ""
    try:
        first = next(response.iter_raw(1024), b"")
    except httpx2.HTTPError:
        first = b""
    text = " ".join(first.decode("utf-8", "replace").split())
    if text:
        snippet = f": {echo(text, ERROR_BODY_CHARS)}"
    if status in (401, 403):
        hint = (
            "The provider requires authorization, and this client sends no credentials. Download the CFPackage "
            "with the provider's tools and run `kgfegmcp packages build --source case FILE.json`."
        )
    elif status == 404:
        hint = "Check the package identifier in the URL (the provider's CFDocuments list names each package)."
    elif status == 429 or status >= 500:
        hint = "The provider could not answer now; try again later."
    else:
        hint = "Check the URL against the provider's CASE API documentation."
    reason = f" {response.reason_phrase}" if response.reason_phrase else ""
    return SourceFetchError(
        f"{response.url.host} answered HTTP {status}{reason} for {echo(response.url, 200)}{snippet}", hint=hint
    )


def _transport_error(exc: httpx2.RequestError, url: httpx2.URL) -> SourceFetchError:
    """TLS failures are named as such (verification is never turned off); other transport failures by type."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, ssl.SSLError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ssl.SSLError):
        reason = getattr(cause, "verify_message", None) or getattr(cause, "reason", None) or type(cause).__name__
        return SourceFetchError(
            f"TLS verification of {url.host} failed ({reason}); nothing was read.",
            hint="Verification is never turned off. If the certificate is right, add its CA to the system trust "
            "store (or point SSL_CERT_FILE at a bundle holding it) and run the command again.",
        )
    if isinstance(exc, httpx2.ConnectError):
        return SourceFetchError(
            f"Could not connect to {url.host}: {echo(exc, 200)}.", hint="Check the host name and your network."
        )
    if isinstance(exc, httpx2.DecodingError):
        return SourceFetchError(f"{url.host} sent a body that could not be decoded: {echo(exc, 200)}.")
    return SourceFetchError(f"The connection to {url.host} failed ({type(exc).__name__}: {echo(exc, 200)}).")


def _read_capped(
    response: httpx2.Response,
    limits: CaseFetchOptions,
    deadline: float,
    on_progress: FetchProgress | None,
) -> bytes:
    """The decoded body, refused as soon as it passes ``max_bytes`` or the deadline."""
    declared = _declared_length(response)
    if declared is not None and declared > limits.max_bytes:
        raise _too_large(response, f"declares {declared} bytes, over the cap of {limits.max_bytes}; nothing was read")
    report = on_progress or (lambda _received, _declared: None)
    chunks: list[bytes] = []
    received = 0
    report(0, declared)
    for piece in _decoded(response, limits.max_bytes):
        received += len(piece)
        if received > limits.max_bytes:
            raise _too_large(response, f"passed the cap of {limits.max_bytes} bytes while streaming; reading stopped")
        chunks.append(piece)
        report(received, declared)
        _check_deadline(deadline, limits, response.url)
    return b"".join(chunks)


def _declared_length(response: httpx2.Response) -> int | None:
    value = response.headers.get("Content-Length")
    return int(value) if value is not None and value.strip().isdigit() else None


def _too_large(response: httpx2.Response, what: str) -> SourceFetchError:
    return SourceFetchError(
        f"The response from {response.url.host} {what}.",
        hint="If the package really is that large, raise the cap with --max-bytes.",
    )


def _decoded(response: httpx2.Response, max_bytes: int) -> Iterator[bytes]:
    """The body's bytes after its Content-Encoding, inflated at most ``max_bytes + 1`` bytes per step."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    raw = response.iter_raw(_CHUNK_BYTES)
    if encoding in ("", "identity"):
        yield from raw
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise SourceFetchError(
            f"{response.url.host} sent the body with Content-Encoding {echo(encoding)}, which this client does "
            "not decode (it asks for identity).",
        )
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16 if "gzip" in encoding else zlib.MAX_WBITS)
    try:
        for chunk in raw:
            data = chunk
            while data:
                yield inflater.decompress(data, max_bytes + 1)
                data = inflater.unconsumed_tail
        yield inflater.flush()
    except zlib.error as exc:
        raise SourceFetchError(f"{response.url.host} sent a {encoding} body that does not inflate ({exc}).") from None
