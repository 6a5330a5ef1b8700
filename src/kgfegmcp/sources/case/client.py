"""Fetch one CASE ``CFPackage`` from its publisher's CASE 1.0/1.1 REST API (``…/CFPackages/{id}``).

Build time only (``kgfegmcp packages fetch``); the server never uses the network. The client is
deliberately narrow, because the bytes it returns become a package that is later served as evidence:

- one ``GET`` of an ``http``/``https`` URL whose path ends in ``CFPackages/<id>``, with no
  credentials in it (the URL is recorded in the package's provenance);
- TLS verification is always on (the platform's trust store, or ``SSL_CERT_FILE``); there is no
  option to turn it off;
- redirects are followed by this client, one by one, counted against ``max_redirects``; every
  ``Location`` is held to the rules of the first URL by the same check (:func:`check_case_address`:
  http or https, a host, no credentials, no control characters, at most 2,000 characters), and a hop
  from ``https`` to ``http`` is refused;
- ``timeout_seconds`` bounds connecting and every read; ``deadline_seconds`` bounds the whole
  exchange from name resolution to the last byte, whatever the server does (a server that drips its
  headers or body a byte at a time is cut off at the deadline): the exchange runs in one cancel scope;
- ``max_bytes`` bounds the body as it streams in: a larger ``Content-Length`` is refused before
  reading, but a smaller one (or none, with chunked transfer) is never trusted; the count is of the
  decoded bytes, and compressed bodies are inflated in bounded steps, so a small compressed body
  cannot grow past the cap. The body goes to a file the caller gives, never whole into memory.

Every failure is one ``source_fetch_error`` (``<code>: <message> Next action: <hint>``); text the
server chose (a reason phrase, a body, a header) is only ever repeated through :func:`echo`, so its
control characters are escaped. Whether the bytes are a CASE CFPackage is decided by
:mod:`kgfegmcp.sources.case.reader`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import re
import ssl
import threading
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import IO, Any

import anyio
import httpx2
from pydantic import BaseModel, ConfigDict, Field

from kgfegmcp import __version__
from kgfegmcp.errors import SourceFetchError, echo, has_unprintable

MIB = 1024 * 1024
#: Longest URL accepted (the manifest's source dataset ``uri`` holds at most 2000 characters).
MAX_URL_CHARS = 2000
#: The path of a CASE REST ``getCFPackage`` request (``/ims/case/v1p0/CFPackages/<id>`` on most hosts).
CF_PACKAGE_PATH = re.compile(r"/CFPackages/[^/]+/?$")
#: Body characters quoted from an error response, so the provider's own explanation is visible.
ERROR_BODY_CHARS = 160
_CHUNK_BYTES = 64 * 1024
#: The user name and password of a URL (``scheme://user:pass@``), however malformed the rest is.
_USERINFO = re.compile(r"^([^:/?#]*:)?//[^/?#]*@")

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
    """A successful ``getCFPackage`` response (its body was written to the caller's file), with where it came from."""

    url: str
    retrieved_url: str
    size: int
    sha256: str
    status_code: int
    content_type: str | None
    redirects: int


def shown_url(url: object, limit: int = 200) -> str:
    """A URL fit for a message: any user name and password replaced by ``***``, clipped, controls escaped."""
    return echo(_USERINFO.sub(lambda match: f"{match.group(1) or ''}//***@", str(url)), limit)


def check_case_address(url: str) -> httpx2.URL:
    """``url`` as an address this client may request: the rules every hop of a fetch obeys.

    At most 2,000 characters, no control or bidirectional formatting character, ``http`` or
    ``https`` with a host, and no credentials (the URL is recorded in the package's provenance, and a
    user name or password would be sent). ``source_fetch_error`` names the first rule broken.
    """
    hint = "Pass the provider's CASE API address of one package, e.g. https://HOST/ims/case/v1p0/CFPackages/<id>."
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
    """``url`` as the first address of a fetch: :func:`check_case_address`, naming a ``CFPackages/<id>`` endpoint."""
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
) -> FetchedCasePackage:
    """GET one CFPackage within ``options``, writing its body to ``destination``.

    ``source_fetch_error`` for every failure to obtain it; ``destination`` may then hold part of a
    body, which the caller discards. Runs its own event loop, so it is called from synchronous code.
    """
    limits = options or CaseFetchOptions()
    first = check_case_url(url)
    return anyio.run(_Exchange(url, first, limits, destination, on_progress).run)


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


class _Exchange:
    """One fetch: every hop, from name resolution to the last byte, inside one deadline."""

    def __init__(
        self,
        url: str,
        first: httpx2.URL,
        limits: CaseFetchOptions,
        destination: IO[bytes],
        on_progress: FetchProgress | None,
    ) -> None:
        self.url = url
        self.current = first
        self.limits = limits
        self.destination = destination
        self.report = on_progress or (lambda _received, _declared: None)
        self.redirects = 0

    async def run(self) -> FetchedCasePackage:
        asyncio.get_running_loop().set_default_executor(_DaemonThreads(max_workers=1))
        with anyio.move_on_after(self.limits.deadline_seconds):
            return await self._exchange()
        raise SourceFetchError(
            f"Fetching from {self.current.host} took longer than the deadline of {self.limits.deadline_seconds:g} s.",
            hint="Try again later, or allow more time with --deadline.",
        )

    async def _exchange(self) -> FetchedCasePackage:
        headers = {
            "Accept": "application/json",
            "Accept-Encoding": "identity",
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
                        size, sha256 = await self._read_capped(response)
                except httpx2.TimeoutException:
                    raise SourceFetchError(
                        f"{self.current.host} did not answer within {self.limits.timeout_seconds:g} s.",
                        hint="Try again later, or allow more time with --timeout.",
                    ) from None
                except httpx2.RequestError as exc:
                    raise _transport_error(exc, self.current) from None
                return FetchedCasePackage(
                    url=self.url,
                    retrieved_url=str(self.current) if self.redirects else self.url,  # never a re-spelling
                    size=size,
                    sha256=sha256,
                    status_code=response.status_code,
                    content_type=response.headers.get("Content-Type"),
                    redirects=self.redirects,
                )

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

    async def _read_capped(self, response: httpx2.Response) -> tuple[int, str]:
        """Write the decoded body to the destination, refused as soon as it passes ``max_bytes``."""
        limits = self.limits
        declared = _declared_length(response)
        if declared is not None and declared > limits.max_bytes:
            raise _too_large(
                response, f"declares {declared} bytes, over the cap of {limits.max_bytes}; nothing was read"
            )
        digest = hashlib.sha256()
        received = 0
        self.report(0, declared)
        async for piece in _decoded(response, limits.max_bytes):
            received += len(piece)
            if received > limits.max_bytes:
                raise _too_large(
                    response, f"passed the cap of {limits.max_bytes} bytes while streaming; reading stopped"
                )
            digest.update(piece)
            self.destination.write(piece)
            self.report(received, declared)
        return received, digest.hexdigest()


async def _status_error(response: httpx2.Response) -> SourceFetchError:
    """One line naming the status, with the start of the provider's own explanation when it gave one."""
    status = response.status_code
    first = b""
    try:
        async for chunk in response.aiter_raw(1024):
            first = chunk
            break
    except httpx2.HTTPError:
        pass
    text = " ".join(first.decode("utf-8", "replace").split())
    snippet = f": {echo(text, ERROR_BODY_CHARS)}" if text else ""
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
    reason = f" {echo(response.reason_phrase, ERROR_BODY_CHARS)}" if response.reason_phrase else ""
    return SourceFetchError(
        f"{response.url.host} answered HTTP {status}{reason} for {shown_url(response.url)}{snippet}", hint=hint
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


async def _decoded(response: httpx2.Response, max_bytes: int) -> AsyncIterator[bytes]:
    """The body's bytes after its Content-Encoding, inflated at most ``max_bytes + 1`` bytes per step."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    raw = response.aiter_raw()  # as the bytes arrive: a trickle is counted, and cut off, byte by byte
    if encoding in ("", "identity"):
        async for chunk in raw:
            yield chunk
        return
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise SourceFetchError(
            f"{response.url.host} sent the body with Content-Encoding {echo(encoding)}, which this client does "
            "not decode (it asks for identity).",
        )
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16 if "gzip" in encoding else zlib.MAX_WBITS)
    try:
        async for chunk in raw:
            data = chunk
            while data:
                yield inflater.decompress(data, max_bytes + 1)
                data = inflater.unconsumed_tail
        yield inflater.flush()
    except zlib.error as exc:
        raise SourceFetchError(
            f"{response.url.host} sent a {encoding} body that does not inflate ({echo(exc, 200)})."
        ) from None
