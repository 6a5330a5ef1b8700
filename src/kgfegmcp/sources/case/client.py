"""GET from a publisher's CASE 1.0/1.1 REST API: one ``CFPackage`` to a file, or a small JSON answer whole.

Build time only (``kgfegmcp packages fetch``); the server never uses the network. The client is
deliberately narrow, because the bytes it returns become a package that is later served as evidence:

- one ``GET`` per call, of an ``http``/``https`` URL with no credentials in it (the URL is recorded
  in the package's provenance); a package's URL names a ``CFPackages/<id>`` endpoint;
- TLS verification is always on (the platform's trust store, or ``SSL_CERT_FILE``); there is no
  option to turn it off;
- redirects are followed by this client, one by one, counted against ``max_redirects``; every
  ``Location`` is held to the rules of the first URL by the same check (:func:`check_case_address`:
  http or https, a host, no credentials, no control characters, at most 2,000 characters), and a hop
  from ``https`` to ``http`` is refused;
- ``timeout_seconds`` bounds connecting and every read; a :class:`FetchDeadline` of
  ``deadline_seconds`` bounds all the requests of one command together (listing pages, then the
  package), from name resolution to the last byte, whatever the server does (a server that drips its
  headers or body a byte at a time is cut off at the deadline): each exchange runs in one cancel scope;
  the build of the body then runs under the same deadline (:meth:`FetchDeadline.check`);
- ``max_bytes`` bounds the body as it streams in: a larger ``Content-Length`` is refused before
  reading, but a smaller one (or none, with chunked transfer) is never trusted. ``gzip`` and
  ``deflate`` are asked for and inflated here, in steps of at most 256 KiB, and the count is of the
  decoded bytes (what is hashed and built), so a small compressed body cannot grow past the cap. A
  package's body goes to a file the caller gives, never whole into memory;
- a body whose first character is ``<`` is markup (a sign-in or error page), not JSON: it is refused
  as soon as that is seen, naming the page's title.

Every failure is one ``source_fetch_error`` (``<code>: <message> Next action: <hint>``); text the
server chose (a reason phrase, a body, a header) is only ever repeated through :func:`echo`, so its
control characters are escaped. Whether the bytes are a CASE CFPackage is decided by
:mod:`kgfegmcp.sources.case.reader`; which package to fetch, by :mod:`kgfegmcp.sources.case.provider`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import html
import re
import ssl
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import IO, Any

import anyio
import httpx2
from pydantic import BaseModel, ConfigDict, Field

from kgfegmcp import __version__
from kgfegmcp.core.errors import SourceFetchError, echo, has_unprintable

MIB = 1024 * 1024
#: Longest URL accepted (the manifest's source dataset ``uri`` holds at most 2000 characters).
MAX_URL_CHARS = 2000
#: The path of a CASE REST ``getCFPackage`` request (``/ims/case/v1p0/CFPackages/<id>`` on most hosts).
CF_PACKAGE_PATH = re.compile(r"/CFPackages/[^/]+/?$")
#: Largest small JSON answer read whole (a page of a CFDocuments listing, one CFDocument), decoded bytes.
JSON_MAX_BYTES = 32 * MIB
#: Body characters quoted from an error response, so the provider's own explanation is visible.
ERROR_BODY_CHARS = 160
#: The encodings asked for, and the only ones inflated.
ACCEPTED_ENCODINGS = "gzip, deflate"
_CHUNK_BYTES = 64 * 1024
#: Decoded bytes one inflation step of a compressed body may produce (and so hold in memory).
_INFLATE_STEP_BYTES = 256 * 1024
#: The first bytes of a gzip member: what may follow a finished member in a gzip body.
_GZIP_MAGIC = b"\x1f\x8b"
#: Leading body bytes examined to tell a page of markup (a sign-in or error page) from JSON.
_SNIFF_BYTES = 4096
_JSON_SPACE = b" \t\r\n"
_UTF8_BOM = b"\xef\xbb\xbf"
_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
#: The user name and password of a URL (``scheme://user:pass@``), however malformed the rest is.
_USERINFO = re.compile(r"^([^:/?#]*:)?//[^/?#]*@")

#: Called with the bytes received so far and the declared ``Content-Length`` (``None`` when absent).
FetchProgress = Callable[[int, int | None], None]


class CaseFetchOptions(BaseModel):
    """Limits of one fetch; the defaults suit the largest published frameworks on a slow link."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_seconds: float = Field(30.0, gt=0, le=600, description="Connecting and each read, in seconds.")
    deadline_seconds: float = Field(600.0, gt=0, le=3600, description="The whole fetch, redirects and build included.")
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
class FetchDeadline:
    """When a command's exchange with a provider must end: one deadline over all its requests."""

    seconds: float
    ends_at: float  # on the time.monotonic() clock, which anyio's asyncio backend also keeps

    @classmethod
    def starting_now(cls, seconds: float) -> FetchDeadline:
        return cls(seconds, time.monotonic() + seconds)

    def remaining(self) -> float:
        return max(0.0, self.ends_at - time.monotonic())

    def check(self, host: str) -> None:
        """``source_fetch_error`` once the deadline has passed, while what was fetched from ``host`` is built.

        The deadline bounds the whole command: the build reads the body under it too, calling this before
        every read and between its steps, so no body, however it is made, keeps a fetch past it.
        """
        if time.monotonic() >= self.ends_at:
            raise SourceFetchError(
                f"Building the CFPackage fetched from {echo(host, 200)} took longer than the deadline of "
                f"{self.seconds:g} s (--deadline bounds the download and the build together); nothing was written.",
                hint="Allow more time with --deadline (at most 3600 s), or download the CFPackage and run "
                "`kgfegmcp packages build --source case FILE.json`.",
            )


@dataclass(frozen=True, slots=True)
class FetchedCasePackage:
    """A successful ``getCFPackage`` response (its body was written to the caller's file), with where it came from."""

    url: str
    retrieved_url: str
    size: int
    sha256: str
    status_code: int
    content_type: str | None
    redirects: int
    content_encoding: str | None = None
    encoded_size: int | None = None  # the compressed bytes received, when the body had a Content-Encoding


@dataclass(frozen=True, slots=True)
class FetchedCaseJson:
    """A small CASE API answer read whole (a CFDocuments page, one CFDocument), decoded, with what paging needs."""

    url: str
    retrieved_url: str
    body: bytes
    content_type: str | None
    total_count: int | None  # the X-Total-Count header (OpenSALT's listings), when it is a number


def shown_url(url: object, limit: int = 200) -> str:
    """A URL fit for a message: any user name and password replaced by ``***``, clipped, controls escaped."""
    return echo(_USERINFO.sub(lambda match: f"{match.group(1) or ''}//***@", str(url)), limit)


def check_case_address(url: str) -> httpx2.URL:
    """``url`` as an address this client may request: the rules every hop of a fetch obeys.

    At most 2,000 characters, no control or bidirectional formatting character, ``http`` or
    ``https`` with a host, and no credentials (the URL is recorded in the package's provenance, and a
    user name or password would be sent). ``source_fetch_error`` names the first rule broken.
    """
    hint = "Pass the provider's CASE API address, e.g. https://HOST/ims/case/v1p0/CFPackages/<id>."
    if len(url) > MAX_URL_CHARS:
        raise SourceFetchError(f"The address is longer than {MAX_URL_CHARS} characters.", hint=hint)
    if has_unprintable(url):
        raise SourceFetchError(f"{shown_url(url)} holds control characters; it is not a URL.", hint=hint)
    if _USERINFO.match(url):
        raise SourceFetchError(
            f"{shown_url(url)} carries credentials; the URL is recorded in the package's provenance, so it may not.",
            hint="Remove the user name and password from the URL.",
        )
    try:
        parsed = httpx2.URL(url)
    except httpx2.InvalidURL as exc:
        raise SourceFetchError(f"{shown_url(url)} is not a valid URL ({echo(exc, 200)}).", hint=hint) from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise SourceFetchError(f"{shown_url(url)} is not an http or https URL with a host.", hint=hint)
    if parsed.userinfo:
        raise SourceFetchError(
            f"{shown_url(url)} carries credentials; the URL is recorded in the package's provenance, so it may not.",
            hint="Remove the user name and password from the URL.",
        )
    return parsed


def check_case_url(url: str) -> httpx2.URL:
    """``url`` as the first address of a package fetch: :func:`check_case_address`, naming ``CFPackages/<id>``."""
    parsed = check_case_address(url)
    if not CF_PACKAGE_PATH.search(parsed.path):
        raise SourceFetchError(
            f"{shown_url(url)} is not a CASE CFPackages address (its path must end in CFPackages/<id>).",
            hint="Pass the provider's CASE API address of one package, e.g. "
            "https://HOST/ims/case/v1p0/CFPackages/<id>.",
        )
    return parsed


def fetch_case_package(
    url: str,
    destination: IO[bytes],
    options: CaseFetchOptions | None = None,
    on_progress: FetchProgress | None = None,
    deadline: FetchDeadline | None = None,
) -> FetchedCasePackage:
    """GET one CFPackage within ``options``, writing its decoded body to ``destination``.

    ``deadline`` is the command's, when earlier requests shared it (else ``deadline_seconds`` from
    now). ``source_fetch_error`` for every failure to obtain it; ``destination`` may then hold part of
    a body, which the caller discards. Runs its own event loop, so it is called from synchronous code.
    """
    limits = options or CaseFetchOptions()
    first = check_case_url(url)
    exchange = _Exchange(url, first, limits, deadline or FetchDeadline.starting_now(limits.deadline_seconds))
    body = _Body(destination, limits.max_bytes, on_progress)
    response = anyio.run(exchange.run, body)
    return FetchedCasePackage(
        url=url,
        retrieved_url=exchange.retrieved_url,
        size=body.received,
        sha256=body.digest.hexdigest(),
        status_code=response.status_code,
        content_type=response.headers.get("Content-Type"),
        redirects=exchange.redirects,
        content_encoding=body.encoding,
        encoded_size=body.encoded if body.encoding else None,
    )


def fetch_case_json(
    url: str,
    options: CaseFetchOptions | None = None,
    deadline: FetchDeadline | None = None,
) -> FetchedCaseJson:
    """GET a small answer of a CASE API (a CFDocuments page, one CFDocument) whole, within ``options``.

    The same rules as :func:`fetch_case_package`, with the body held in memory and capped at the
    smaller of ``max_bytes`` and :data:`JSON_MAX_BYTES`. Reading it as JSON is the caller's part.
    """
    limits = options or CaseFetchOptions()
    first = check_case_address(url)
    exchange = _Exchange(url, first, limits, deadline or FetchDeadline.starting_now(limits.deadline_seconds))
    held = _MemoryFile()
    body = _Body(held, min(limits.max_bytes, JSON_MAX_BYTES), None)
    response = anyio.run(exchange.run, body)
    total = response.headers.get("X-Total-Count", "").strip()
    return FetchedCaseJson(
        url=url,
        retrieved_url=exchange.retrieved_url,
        body=bytes(held.data),
        content_type=response.headers.get("Content-Type"),
        total_count=int(total) if total.isdigit() and len(total) < 19 else None,
    )


class _MemoryFile:
    """The one ``write`` a :class:`_Body` needs, into a growing buffer."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, piece: bytes) -> int:
        self.data += piece
        return len(piece)


class _DaemonThreads(concurrent.futures.ThreadPoolExecutor):
    """Runs each blocking call (name resolution) in its own daemon thread, never waited for at shutdown.

    A resolver that never answers is abandoned when the deadline cancels the exchange; the event loop
    closes without joining it and the process exits without waiting for it.
    """

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # handed to the awaiting task, as an executor does
                future.set_exception(exc)

        threading.Thread(target=run, name="kgfegmcp-fetch-resolver", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        return None


class _Body:
    """Where a response's decoded body goes, counted, hashed and capped; its leading bytes are sniffed."""

    def __init__(self, destination: IO[bytes] | _MemoryFile, max_bytes: int, on_progress: FetchProgress | None) -> None:
        self.destination = destination
        self.max_bytes = max_bytes
        self.report = on_progress or (lambda _received, _declared: None)
        self.digest = hashlib.sha256()
        self.received = 0
        self.encoding: str | None = None
        self.encoded = 0  # bytes received before decoding
        self.head = bytearray()  # the first bytes, until they show JSON or markup


class _Exchange:
    """One request: every hop, from name resolution to the last byte, inside the command's deadline."""

    def __init__(self, url: str, first: httpx2.URL, limits: CaseFetchOptions, deadline: FetchDeadline) -> None:
        self.url = url
        self.current = first
        self.limits = limits
        self.deadline = deadline
        self.redirects = 0

    @property
    def retrieved_url(self) -> str:
        """The address that answered: the URL as given unless a redirect was followed (never a re-spelling)."""
        return str(self.current) if self.redirects else self.url

    async def run(self, body: _Body) -> httpx2.Response:
        asyncio.get_running_loop().set_default_executor(_DaemonThreads(max_workers=1))
        with anyio.move_on_after(self.deadline.remaining()):
            return await self._exchange(body)
        raise SourceFetchError(
            f"Fetching from {self.current.host} took longer than the deadline of {self.deadline.seconds:g} s.",
            hint="Try again later, or allow more time with --deadline.",
        )

    async def _exchange(self, body: _Body) -> httpx2.Response:
        headers = {
            "Accept": "application/json",
            "Accept-Encoding": ACCEPTED_ENCODINGS,
            "User-Agent": f"kgfegmcp/{__version__} (CASE CFPackage fetch)",
        }
        async with httpx2.AsyncClient(
            verify=True,  # never anything else; trust_env adds SSL_CERT_FILE/SSL_CERT_DIR and the proxy variables
            trust_env=True,
            follow_redirects=False,  # each hop is checked here, by the rules of the first URL
            timeout=httpx2.Timeout(self.limits.timeout_seconds),
            headers=headers,
        ) as client:
            while True:
                try:
                    async with client.stream("GET", self.current) as response:
                        if response.has_redirect_location:
                            self.current = self._redirect_target(response)
                            self.redirects += 1
                            continue
                        if not response.is_success:
                            raise await _status_error(response)
                        await self._read_capped(response, body)
                except httpx2.TimeoutException:
                    raise SourceFetchError(
                        f"{self.current.host} did not answer within {self.limits.timeout_seconds:g} s.",
                        hint="Try again later, or allow more time with --timeout.",
                    ) from None
                except httpx2.RequestError as exc:
                    raise _transport_error(exc, self.current) from None
                return response

    def _redirect_target(self, response: httpx2.Response) -> httpx2.URL:
        """The next hop of a redirect, held to the first URL's rules; never from https to http."""
        source = response.url
        location = response.headers["Location"]
        refused = f"{source.host} answered HTTP {response.status_code} with a Location that was not followed"
        hint = (
            "Ask the provider for an address that answers without such a redirect, or download the CFPackage with "
            "its tools and run `kgfegmcp packages build --source case FILE.json`."
        )
        try:
            target = check_case_address(str(source.join(location)) if not has_unprintable(location) else location)
        except httpx2.InvalidURL as exc:
            raise SourceFetchError(
                f"{refused}: {shown_url(location)} is not a valid URL ({echo(exc, 200)}).", hint=hint
            ) from None
        except SourceFetchError as exc:
            raise SourceFetchError(f"{refused}: {exc.message}", hint=hint) from None
        if self.redirects >= self.limits.max_redirects:
            raise SourceFetchError(
                f"{source.host} redirected more than {self.limits.max_redirects} time(s) (next: {shown_url(target)}).",
                hint="Use the final address of the package directly, or allow more with --max-redirects.",
            )
        if source.scheme == "https" and target.scheme == "http":
            raise SourceFetchError(
                f"{source.host} redirected from https to http ({shown_url(target)}); the downgrade was refused.",
                hint="Ask the provider to serve the package over https, or pass its https address.",
            )
        return target

    async def _read_capped(self, response: httpx2.Response, body: _Body) -> None:
        """Write the decoded body out, refused as soon as it passes the cap or shows itself to be markup."""
        cap = body.max_bytes
        declared = _declared_length(response)
        if declared is not None and declared > cap:
            raise _too_large(response, f"declares {declared} bytes, over the cap of {cap}; nothing was read")
        decoder = _Decoder(response)
        body.encoding = decoder.encoding
        body.report(0, declared)
        sniffing = True
        async for piece in decoder.pieces():
            body.received += len(piece)
            if body.received > cap:
                raise _too_large(response, decoder.past_cap(cap))
            if sniffing:
                body.head += piece[: _SNIFF_BYTES - len(body.head)]
                leading = _leading(body.head)
                if leading == "markup" and len(body.head) >= _SNIFF_BYTES:
                    raise self._markup_error(response, body.head)
                sniffing = leading != "json" and len(body.head) < _SNIFF_BYTES
            body.digest.update(piece)
            body.destination.write(piece)
            body.report(body.received, declared)
        body.encoded = decoder.compressed if decoder.encoding else body.received
        if _leading(body.head) == "markup":
            raise self._markup_error(response, body.head)

    def _markup_error(self, response: httpx2.Response, head: bytearray) -> SourceFetchError:
        """A body of HTML (or other markup) where JSON was asked for: most often a sign-in or error page."""
        content_type = response.headers.get("Content-Type") or "(none)"
        lowered = bytes(head).lower()
        page = "an HTML page" if b"<html" in lowered or b"<!doctype html" in lowered or "html" in content_type else None
        title = _TITLE.search(head)
        titled = ""
        if title is not None:
            text = " ".join(html.unescape(title.group(1).decode("utf-8", "replace")).split())
            titled = f" titled “{echo(text, 80)}”" if text else ""
        redirected = f", after {self.redirects} redirect(s)" if self.redirects else ""
        return SourceFetchError(
            f"{response.url.host} answered {shown_url(response.url)} with {page or 'markup'}{titled}, not JSON "
            f"(HTTP {response.status_code}{redirected}, Content-Type {echo(content_type, 120)}).",
            hint="The address leads to a web page, as a sign-in or error page does: open it in a browser to see "
            "which. A provider that requires signing in is reached with its own tools: download the CFPackage "
            "there and run `kgfegmcp packages build --source case FILE.json`. Otherwise pass the provider's CASE "
            "API address (…/ims/case/v1p0/… or v1p1).",
        )


class _Decoder:
    """A response's body after its Content-Encoding: ``gzip`` and ``deflate`` inflated in bounded steps."""

    def __init__(self, response: httpx2.Response) -> None:
        self.response = response
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        self.encoding = None if encoding in ("", "identity") else encoding
        self.compressed = 0  # bytes received before inflating

    def past_cap(self, cap: int) -> str:
        """Why reading stopped at the cap, saying how small the compressed body was (a decompression bomb)."""
        if self.encoding is None:
            return f"passed the cap of {cap} bytes while streaming; reading stopped"
        return (
            f"inflated past the cap of {cap} bytes from {self.compressed:,} {self.encoding}-compressed bytes; "
            "reading stopped (a compressed body is never inflated further than the cap)"
        )

    async def pieces(self) -> AsyncIterator[bytes]:
        raw = self.response.aiter_raw()  # as the bytes arrive: a trickle is counted, and cut off, byte by byte
        host = self.response.url.host
        if self.encoding is None:
            async for chunk in raw:
                yield chunk
            return
        if self.encoding not in ("gzip", "x-gzip", "deflate"):
            raise SourceFetchError(
                f"{host} sent the body with Content-Encoding {echo(self.encoding)}, which this client does not "
                f"decode (it asks for {ACCEPTED_ENCODINGS}).",
                hint="Ask the provider to honour Accept-Encoding, or download the CFPackage with its tools and run "
                "`kgfegmcp packages build --source case FILE.json`.",
            )
        inflater: Any = None
        carried = b""  # the start of what follows a finished member, too short to tell yet
        try:
            async for chunk in raw:
                self.compressed += len(chunk)
                data = carried + chunk
                carried = b""
                while data:
                    if inflater is not None and inflater.eof:
                        # A member ended and bytes follow: another gzip member (RFC 1952 allows several), or
                        # bytes that belong to no member. zlib keeps the latter as an unconsumed tail for ever.
                        if len(data) < len(_GZIP_MAGIC) and _GZIP_MAGIC.startswith(data) and "gzip" in self.encoding:
                            carried = data
                            break
                        if "gzip" not in self.encoding or not data.startswith(_GZIP_MAGIC):
                            raise SourceFetchError(
                                f"{host} sent {len(data):,} bytes after the end of its {self.encoding} body; a "
                                "compressed body holds nothing else.",
                                hint="The provider's compression is broken: ask it to fix it, or download the "
                                "CFPackage with its tools and run `kgfegmcp packages build --source case FILE.json`.",
                            )
                        inflater = None
                    if inflater is None:
                        inflater = zlib.decompressobj(_window_bits(self.encoding, data))
                    yield inflater.decompress(data, _INFLATE_STEP_BYTES)
                    data = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            if carried:
                raise SourceFetchError(
                    f"{host} sent {len(carried)} byte(s) after the end of its {self.encoding} body; a compressed "
                    "body holds nothing else."
                )
            if inflater is not None:
                yield inflater.flush()
        except zlib.error as exc:
            raise SourceFetchError(
                f"{host} sent a {self.encoding} body that does not inflate ({echo(exc, 200)})."
            ) from None


def _window_bits(encoding: str, first: bytes) -> int:
    """zlib's window bits for the body: gzip's header, or deflate's zlib wrapper; raw deflate when it has none."""
    if "gzip" in encoding:
        return zlib.MAX_WBITS | 16
    wrapped = len(first) >= 2 and first[0] & 0x0F == 8 and (first[0] << 8 | first[1]) % 31 == 0
    return zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS  # some servers send deflate without the zlib header


def _leading(head: bytearray) -> str | None:
    """``"markup"`` when the first character (after a byte-order mark and white space) is ``<``, ``"json"`` for any
    other, ``None`` while only white space has come."""
    text = bytes(head[3:] if head.startswith(_UTF8_BOM) else head).lstrip(_JSON_SPACE)
    if not text:
        return None
    return "markup" if text.startswith(b"<") else "json"


async def _status_error(response: httpx2.Response) -> SourceFetchError:
    """One line naming the status, with the start of the provider's own explanation when it gave one."""
    status = response.status_code
    first = bytearray()
    try:
        async for piece in _Decoder(response).pieces():
            first += piece
            if len(first) >= 1024:
                break
    except (httpx2.HTTPError, SourceFetchError):
        pass
    text = " ".join(bytes(first[:1024]).decode("utf-8", "replace").split())
    snippet = f": {echo(text, ERROR_BODY_CHARS)}" if text else ""
    if status in (401, 403):
        challenge = response.headers.get("WWW-Authenticate", "").split(" ", 1)[0].split(",", 1)[0]
        asked = f" (it asks for {echo(challenge, 40)})" if challenge else ""
        hint = (
            f"The provider requires authorization{asked}, and this client sends no credentials: some CASE providers "
            "serve members only, with OAuth 2 client-credentials tokens. Download the CFPackage with the provider's "
            "tools and run `kgfegmcp packages build --source case FILE.json`."
        )
    elif status == 404:
        hint = (
            "Check the identifier in the URL: the provider's CFDocuments listing names each framework "
            "(pass …/CFDocuments or the API root to see it)."
        )
    elif status == 429 or status >= 500:
        hint = "The provider could not answer now; try again later."
    else:
        hint = "Check the URL against the provider's CASE API documentation."
    reason = f" {echo(response.reason_phrase, ERROR_BODY_CHARS)}" if response.reason_phrase else ""
    return SourceFetchError(
        f"{response.url.host} answered HTTP {status}{reason} for {shown_url(response.url)}{snippet}",
        hint=hint,
        details={"status": status},
    )


def _transport_error(exc: httpx2.RequestError, url: httpx2.URL) -> SourceFetchError:
    """TLS failures are named as such (verification is never turned off); other transport failures by type."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, ssl.SSLError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ssl.SSLError):
        reason = getattr(cause, "verify_message", None) or getattr(cause, "reason", None) or type(cause).__name__
        return SourceFetchError(
            f"TLS verification of {url.host} failed ({echo(reason, 200)}); nothing was read.",
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


def _declared_length(response: httpx2.Response) -> int | None:
    value = response.headers.get("Content-Length")
    return int(value) if value is not None and value.strip().isdigit() else None


def _too_large(response: httpx2.Response, what: str) -> SourceFetchError:
    return SourceFetchError(
        f"The response from {response.url.host} {what}.",
        hint="If the package really is that large, raise the cap with --max-bytes.",
    )
