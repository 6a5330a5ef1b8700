"""Which CFPackage to fetch from a CASE provider, from the address a user has.

``packages fetch --case-url`` takes a provider's address in any of the shapes publishers give out
(:func:`read_case_address`): a package's own ``…/CFPackages/<id>``, one document's
``…/CFDocuments/<id>``, the ``…/CFDocuments`` listing, the API root ``…/ims/case/v1p0`` (or
``v1p1``), or the bare host, where CASE 1.1 is tried first and CASE 1.0 only when the host answers
404 for it. From a listing the user chooses one document by identifier or by exact title
(:class:`DocumentChoice`); without a choice the listing is shown and nothing is fetched.

A document's package is the one its ``CFPackageURI`` names when that is a ``CFPackages`` address on the
listing's host (some providers give a package an identifier of its own), else
``<API root>/CFPackages/<document id>``; :class:`PackageLocation` says which, and why. Every request
goes through :mod:`kgfegmcp.sources.case.client`, under the command's one deadline.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import httpx2
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgfegmcp.core.errors import ConfigurationError, SourceFetchError, echo, problem_list
from kgfegmcp.sources.case.client import (
    CF_PACKAGE_PATH,
    CaseFetchOptions,
    FetchDeadline,
    FetchedCaseJson,
    check_case_address,
    fetch_case_json,
    shown_url,
)

#: The CASE API versions a bare host is asked for, newest first, with the path of each one's root.
API_VERSIONS = (("CASE 1.1", "/ims/case/v1p1"), ("CASE 1.0", "/ims/case/v1p0"))
#: Most CFDocuments read from one listing, over at most this many pages (OpenSALT pages by 100).
MAX_LISTED_DOCUMENTS = 10_000
MAX_LISTING_PAGES = 100
#: Candidates named in an error about a title (ambiguous, or not found and near others).
MAX_CANDIDATES = 10

_ACCEPTED_SHAPES = (
    "Pass a CASE API address: https://HOST/ims/case/v1p0/CFPackages/<id> (one package), …/CFDocuments/<id> "
    "(one document), …/CFDocuments (the listing), https://HOST/ims/case/v1p0 or v1p1 (the API root), or "
    "https://HOST."
)
_BUILT = "built from the API root and the document's identifier"
_API_ROOT = re.compile(r"^(?P<root>.*/ims/case/v1p[01])/?$")
_LISTING = re.compile(r"^(?P<root>.*)/CFDocuments(?:\.json)?/?$")
_DOCUMENT = re.compile(r"^(?P<root>.*)/CFDocuments/(?P<id>[^/]+?)(?:\.json)?/?$")

#: Called with one line saying what was found or decided (which API, which document, which package URL).
Note = Callable[[str], None]


class AddressKind(StrEnum):
    """What a ``--case-url`` names."""

    PACKAGE = "package"
    DOCUMENT = "document"
    LISTING = "listing"
    API_ROOT = "API root"
    HOST = "host"


@dataclass(frozen=True, slots=True)
class CaseAddress:
    """A ``--case-url`` read: its kind, and the API root it implies (none for a package, several for a host)."""

    url: str
    kind: AddressKind
    parsed: httpx2.URL
    api_root: str | None = None  # the raw path of …/ims/case/v1pN (or whatever precedes /CFDocuments)
    document_id: str | None = None

    @property
    def lists_documents(self) -> bool:
        """Whether the address leads to a listing, from which a document must be chosen."""
        return self.kind in (AddressKind.LISTING, AddressKind.API_ROOT, AddressKind.HOST)


@dataclass(frozen=True, slots=True)
class DocumentChoice:
    """The document to take from a listing: by identifier (any case) or by exact title (any case)."""

    document_id: str | None = None
    title: str | None = None


class PackageLink(BaseModel):
    """A CASE ``LinkURI`` as far as choosing a package needs it: its ``uri``."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    uri: str | None = None


class ListedDocument(BaseModel):
    """A CFDocument of a listing: what identifies it to a person, and where its package is said to be."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    identifier: str = Field(min_length=1)
    title: str | None = None
    version: str | None = None
    last_change: str | None = Field(None, alias="lastChangeDateTime")
    language: str | None = None
    package_uri: str | PackageLink | None = Field(None, alias="CFPackageURI")

    def described(self) -> str:
        """``<id> “<title>” (version …, changed …)`` for a message, with the server's text escaped."""
        facts = [f"version {echo(self.version, 40)}"] if self.version else []
        facts += [f"changed {echo(self.last_change, 40)}"] if self.last_change else []
        return f"{echo(self.identifier, 120)} “{echo(self.title or '', 120)}”" + (
            f" ({', '.join(facts)})" if facts else ""
        )


@dataclass(frozen=True, slots=True)
class CaseListing:
    """The CFDocuments a provider listed (at most :data:`MAX_LISTED_DOCUMENTS`), and where."""

    url: str
    api_root: httpx2.URL
    documents: tuple[ListedDocument, ...]
    total: int | None  # what the provider said it holds (X-Total-Count), when it said


@dataclass(frozen=True, slots=True)
class PackageLocation:
    """The ``CFPackages`` address to fetch, and why it is that one."""

    url: str
    reason: str


def read_case_address(url: str) -> CaseAddress:
    """``url`` as one of the accepted shapes, or ``source_fetch_error`` listing them."""
    parsed = check_case_address(url)
    raw_path = parsed.raw_path.split(b"?", 1)[0].decode("ascii")
    if CF_PACKAGE_PATH.search(parsed.path):
        return CaseAddress(url, AddressKind.PACKAGE, parsed)
    if match := _LISTING.match(raw_path):
        return CaseAddress(url, AddressKind.LISTING, parsed, api_root=match["root"])
    if match := _DOCUMENT.match(raw_path):
        document = urllib.parse.unquote(match["id"])
        return CaseAddress(url, AddressKind.DOCUMENT, parsed, api_root=match["root"], document_id=document)
    if match := _API_ROOT.match(raw_path):
        return CaseAddress(url, AddressKind.API_ROOT, parsed, api_root=match["root"])
    if raw_path in ("", "/") and not parsed.query:
        return CaseAddress(url, AddressKind.HOST, parsed)
    raise SourceFetchError(
        f"{shown_url(url)} is not an address of a CASE API this command reads.", hint=_ACCEPTED_SHAPES
    )


def check_choice(address: CaseAddress, choice: DocumentChoice) -> None:
    """``configuration_error`` when the choice does not fit the address (or both ways of choosing are given)."""
    if choice.document_id is not None and choice.title is not None:
        raise ConfigurationError(
            "--document and --title both choose a document; give one.",
            hint="Choose by identifier with --document, or by exact title with --title.",
        )
    if address.lists_documents or (choice.document_id is None and choice.title is None):
        return
    flag = "--document" if choice.document_id is not None else "--title"
    raise ConfigurationError(
        f"{flag} chooses from a CFDocuments listing, and {shown_url(address.url)} names one {address.kind} already.",
        hint=f"Drop {flag}, or pass the listing (…/CFDocuments) or the API root (…/ims/case/v1p0) instead.",
    )


def read_listing(address: CaseAddress, options: CaseFetchOptions, deadline: FetchDeadline, note: Note) -> CaseListing:
    """The provider's CFDocuments, page after page (``limit``/``offset``, ``X-Total-Count``) within the bounds."""
    if address.kind is AddressKind.HOST:
        return _probe_host(address, options, deadline, note)
    assert address.api_root is not None
    api_root = address.parsed.copy_with(raw_path=address.api_root.encode("ascii"))
    first = address.parsed if address.kind is AddressKind.LISTING else _under(api_root, "CFDocuments")
    return _read_pages(first, api_root, options, deadline, note)


def locate_package(
    address: CaseAddress,
    choice: DocumentChoice,
    options: CaseFetchOptions,
    deadline: FetchDeadline,
    note: Note,
) -> PackageLocation:
    """The package to fetch: the address itself, the document's, or the chosen listed document's."""
    if address.kind is AddressKind.PACKAGE:
        return PackageLocation(address.url, "the address given")
    if address.kind is AddressKind.DOCUMENT:
        assert address.api_root is not None and address.document_id is not None
        api_root = address.parsed.copy_with(raw_path=address.api_root.encode("ascii"))
        document = _read_document(address.url, options, deadline)
        note(f"CFDocument {document.described()}.")
        return package_location(document, api_root, address.parsed)
    listing = read_listing(address, options, deadline, note)
    document = choose_document(listing, choice)
    note(f"Chose CFDocument {document.described()}.")
    return package_location(document, listing.api_root, httpx2.URL(listing.url))


def choose_document(listing: CaseListing, choice: DocumentChoice) -> ListedDocument:
    """The one listed document the choice names, or ``source_fetch_error`` saying why there is not one."""
    documents = listing.documents
    rerun = "Run the command without --document and --title to see the listing."
    if choice.document_id is not None:
        wanted = choice.document_id.casefold()
        found = [d for d in documents if d.identifier.casefold() == wanted]
        if found:
            return found[0]
        raise SourceFetchError(
            f"No CFDocument with identifier {echo(choice.document_id, 120)} among the {_counted(listing)}.",
            hint=f"{rerun}{_beyond_the_bound(listing)}",
        )
    if choice.title is None:
        raise ConfigurationError(
            f"{_counted(listing).capitalize()}; choose one.",
            hint="Choose by identifier with --document, or by exact title with --title.",
        )
    title = _title_key(choice.title)
    found = [d for d in documents if d.title is not None and _title_key(d.title) == title]
    if len(found) == 1:
        return found[0]
    if found:
        raise SourceFetchError(
            f"{len(found)} CFDocuments are titled “{echo(choice.title, 120)}”: "
            f"{problem_list([d.described() for d in found[:MAX_CANDIDATES]], len(found))}.",
            hint="Choose one of them by identifier with --document.",
        )
    titles = {_title_key(d.title): d for d in documents if d.title}
    near = [titles[key].described() for key in difflib.get_close_matches(title, list(titles), n=5, cutoff=0.6)]
    nearest = f"; the nearest titles: {problem_list(near)}" if near else ""
    raise SourceFetchError(
        f"No CFDocument is titled “{echo(choice.title, 120)}” (the whole title, in any case) among the "
        f"{_counted(listing)}{nearest}.",
        hint=f"{rerun}{_beyond_the_bound(listing)}",
    )


def package_location(document: ListedDocument, api_root: httpx2.URL, listed_at: httpx2.URL) -> PackageLocation:
    """The document's ``CFPackageURI`` when it is a CFPackages address on the listing's host, else the built one."""
    built = str(_under(api_root, "CFPackages", document.identifier))
    named = document.package_uri.uri if isinstance(document.package_uri, PackageLink) else document.package_uri
    if not named:
        return PackageLocation(built, f"{_BUILT}: the CFDocument names no CFPackageURI")
    try:
        target = check_case_address(named)
    except SourceFetchError as exc:
        return PackageLocation(built, f"{_BUILT}: its CFPackageURI {exc.message}")
    shown = shown_url(named)
    if target.host != listed_at.host:
        return PackageLocation(built, f"{_BUILT}: its CFPackageURI {shown} is on another host")
    if not CF_PACKAGE_PATH.search(target.path):
        return PackageLocation(built, f"{_BUILT}: its CFPackageURI {shown} is not a CFPackages address")
    if target.scheme == "http" and listed_at.scheme == "https":
        upgraded = listed_at.copy_with(raw_path=target.raw_path)
        return PackageLocation(str(upgraded), f"its CFPackageURI {shown}, asked over https as the listing was")
    return PackageLocation(named, "its CFPackageURI, on the listing's host")


# -- reading ------------------------------------------------------------------------------------


def _probe_host(address: CaseAddress, options: CaseFetchOptions, deadline: FetchDeadline, note: Note) -> CaseListing:
    """The listing of the newest CASE API the host serves: the next version is tried only after a 404."""
    for number, (version, root) in enumerate(API_VERSIONS):
        api_root = address.parsed.copy_with(raw_path=root.encode("ascii"))
        try:
            return _read_pages(_under(api_root, "CFDocuments"), api_root, options, deadline, note)
        except SourceFetchError as exc:
            if exc.details.get("status") != 404 or number == len(API_VERSIONS) - 1:
                raise
            note(f"No {version} API at {shown_url(api_root)} (HTTP 404); trying {API_VERSIONS[number + 1][0]}.")
    raise AssertionError("unreachable")  # pragma: no cover


def _read_pages(
    first: httpx2.URL, api_root: httpx2.URL, options: CaseFetchOptions, deadline: FetchDeadline, note: Note
) -> CaseListing:
    documents: dict[str, ListedDocument] = {}  # by identifier in any case, in the provider's order
    page_url, total, pages, repeated = first, None, 0, 0
    offset = _number(first.params.get("offset")) or 0
    while True:
        fetched = fetch_case_json(str(page_url), options, deadline)
        page = _listed(fetched)
        pages += 1
        fresh: dict[str, ListedDocument] = {}
        for listed in page:
            fresh.setdefault(listed.identifier.casefold(), listed)
        new = [listed for key, listed in fresh.items() if key not in documents]
        repeated += len(page) - len(new)
        room = MAX_LISTED_DOCUMENTS - len(documents)
        for document in new[:room]:
            documents[document.identifier.casefold()] = document
        total = fetched.total_count
        more = total is not None and bool(page) and offset + len(page) < total
        if len(new) > room or (more and (len(documents) >= MAX_LISTED_DOCUMENTS or pages >= MAX_LISTING_PAGES)):
            note(
                f"The provider lists more than {len(documents):,} CFDocuments; {len(documents):,} were read "
                f"(a listing is read to at most {MAX_LISTED_DOCUMENTS:,} documents in {MAX_LISTING_PAGES} pages)."
            )
            break
        if not more:
            break
        if not new:
            note(f"{shown_url(page_url)} repeated documents already listed; the listing stops there.")
            repeated -= len(page)
            break
        offset += len(page)
        page_url = first.copy_set_param("offset", offset).copy_set_param(
            "limit", first.params.get("limit") or len(page)
        )
    listing = CaseListing(str(first), api_root, tuple(documents.values()), total)
    in_pages = f" in {pages} pages" if pages > 1 else ""
    left_out = (
        f" ({repeated} entr{'ies' if repeated > 1 else 'y'} repeating an identifier listed before left out)"
        if repeated
        else ""
    )
    note(f"Listed {len(listing.documents):,} CFDocuments from {shown_url(first)}{in_pages}{left_out}.")
    return listing


def _read_document(url: str, options: CaseFetchOptions, deadline: FetchDeadline) -> ListedDocument:
    """One ``getCFDocument`` answer: the CFDocument object, bare or as ``{"CFDocument": …}``."""
    fetched = fetch_case_json(url, options, deadline)
    value = _json(fetched)
    if isinstance(value, dict) and isinstance(value.get("CFDocument"), dict):
        value = value["CFDocument"]
    if not isinstance(value, dict) or "identifier" not in value:
        raise SourceFetchError(
            f"{shown_url(url)} is not a CFDocument: found {_found(value)}.",
            hint="Pass the provider's …/CFDocuments/<id> address, or its CFDocuments listing.",
        )
    return _documents([value], fetched, "CFDocument")[0]


def _listed(fetched: FetchedCaseJson) -> list[ListedDocument]:
    """A page of a listing: ``{"CFDocuments": [...]}``, or the bare array some providers send."""
    value = _json(fetched)
    if isinstance(value, dict) and isinstance(value.get("CFDocuments"), list):
        return _documents(value["CFDocuments"], fetched, "CFDocuments")
    if isinstance(value, list):
        return _documents(value, fetched, "")
    raise SourceFetchError(
        f"{shown_url(fetched.url)} is not a CFDocuments listing: found {_found(value)}.",
        hint="Pass the provider's …/CFDocuments address, or its API root (…/ims/case/v1p0 or v1p1).",
    )


def _documents(entries: list[Any], fetched: FetchedCaseJson, where: str) -> list[ListedDocument]:
    """Each entry as a :class:`ListedDocument`; entries of the wrong shape are named, up to ten."""
    documents, problems = [], []
    for index, entry in enumerate(entries):
        place = f"{where}[{index}]" if where != "CFDocument" else where
        try:
            documents.append(ListedDocument.model_validate(entry))
        except ValidationError as exc:
            members = dict.fromkeys(str(error["loc"][0]) if error["loc"] else "" for error in exc.errors())
            problems += [f"{place}{'.' + member if member else ''}: {_expected(member)}" for member in members]
    if problems:
        raise SourceFetchError(
            f"{shown_url(fetched.url)} lists CFDocuments this command cannot read: {problem_list(problems)}.",
            hint="Pass the package's own …/CFPackages/<id> address instead.",
        )
    return documents


def _expected(member: str) -> str:
    """What a listed CFDocument's member must be (the listing is read only for these)."""
    if not member:
        return "must be an object"
    if member == "identifier":
        return "must be a non-empty string"
    return "must be a URI string or a link object" if member == "CFPackageURI" else "must be a string"


def _json(fetched: FetchedCaseJson) -> Any:
    try:
        return json.loads(fetched.body)
    except RecursionError:
        raise SourceFetchError(f"{shown_url(fetched.url)} answered JSON nested too deeply to decode.") from None
    except ValueError as exc:
        content_type = echo(fetched.content_type or "(none)", 120)
        raise SourceFetchError(
            f"{shown_url(fetched.url)} did not answer JSON ({echo(exc, 120)}; Content-Type {content_type}).",
            hint="Check that the address is the provider's CASE API (…/ims/case/v1p0/… or v1p1).",
        ) from None


def _found(value: Any) -> str:
    if isinstance(value, dict):
        members = ", ".join(echo(key, 40) for key in list(value)[:5]) or "none"
        return f"a JSON object with members {members}"
    kinds = {list: "array", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    return f"a JSON {kinds.get(type(value), 'value')}"


def _under(api_root: httpx2.URL, *segments: str) -> httpx2.URL:
    """``api_root`` with each segment appended, percent-encoded whole (identifiers may be URIs)."""
    quoted = "/".join(urllib.parse.quote(segment, safe="") for segment in segments)
    root = api_root.raw_path.split(b"?", 1)[0].decode("ascii").rstrip("/")
    return api_root.copy_with(raw_path=f"{root}/{quoted}".encode("ascii"))


def _title_key(title: str) -> str:
    return unicodedata.normalize("NFC", title).strip().casefold()


def _number(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() and len(value) < 10 else None


def _counted(listing: CaseListing) -> str:
    return f"{len(listing.documents):,} CFDocuments listed at {shown_url(listing.url)}"


def _beyond_the_bound(listing: CaseListing) -> str:
    if listing.total is None or listing.total <= len(listing.documents):
        return ""
    return (
        f" The provider lists {listing.total:,}, more than were read: pass the document's own address "
        "(…/CFDocuments/<id>) instead."
    )
