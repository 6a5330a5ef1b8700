"""Which CFPackage `packages fetch` takes from a CASE provider: address shapes, CFDocuments listings, choices.

A real HTTP server on 127.0.0.1 (tests/sources/case_server.py) plays the provider, with listings written
here: the ``{"CFDocuments": [...]}`` object and the bare array some providers send, OpenSALT's paging
(``limit``/``offset`` and ``X-Total-Count``), a CFPackageURI naming a package id other than the document's
(as CPALMS gives), and a host that serves only CASE 1.0 or needs authorization.
"""

from __future__ import annotations

import gzip
import hashlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from case_server import DOC, FRAMEWORK_ID, V1P0, CaseServer, Reply, body_of, kitchen_science, running_server
from package_view import open_package

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import ConfigurationError, SourceFetchError
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseInputOrigin, CaseSource
from kgfegmcp.sources.case.client import CaseFetchOptions, FetchDeadline, fetch_case_package
from kgfegmcp.sources.case.provider import (
    MAX_LISTED_DOCUMENTS,
    AddressKind,
    CaseListing,
    DocumentChoice,
    ListedDocument,
    PackageLocation,
    check_choice,
    choose_document,
    locate_package,
    package_location,
    read_case_address,
    read_listing,
)

QUICK = CaseFetchOptions(timeout_seconds=2, deadline_seconds=20, max_bytes=256 * 1024, max_redirects=3)
OTHER = "0a4e0000-0000-4000-8000-0000000000aa"
TWIN_A, TWIN_B = "0a4e0000-0000-4000-8000-0000000000b1", "0a4e0000-0000-4000-8000-0000000000b2"
PACKAGE_OF_OTHER = "p-0a4e-77"  # a package id of its own, as some providers give


@pytest.fixture(scope="module")
def server() -> Iterator[CaseServer]:
    with running_server() as running:
        yield running


def listed(identifier: str, title: str, **members: Any) -> dict[str, Any]:
    return {
        "identifier": identifier,
        "uri": f"https://case.test/uri/{identifier}",
        "title": title,
        "version": "2.0",
        "lastChangeDateTime": "2025-01-15T08:00:00+00:00",
        "language": "en",
        **members,
    }


def documents(base: str) -> list[dict[str, Any]]:
    """A listing: the kitchen framework, one whose package has an id of its own, two of the same title."""
    link = {"title": "x", "identifier": PACKAGE_OF_OTHER, "uri": f"{base}/ims/case/v1p0/CFPackages/{PACKAGE_OF_OTHER}"}
    return [
        listed(DOC, "Kitchen Science for Tests", CFPackageURI={"title": "x", "identifier": DOC, "uri": None}),
        listed(OTHER, "Garden Science", CFPackageURI=link),
        listed(TWIN_A, "Draft Framework", version="1"),
        listed(TWIN_B, "draft framework ", version="2"),
    ]


def note_list() -> tuple[list[str], Any]:
    notes: list[str] = []
    return notes, notes.append


def locate(url: str, choice: DocumentChoice = DocumentChoice()) -> tuple[PackageLocation, list[str]]:
    notes, note = note_list()
    address = read_case_address(url)
    check_choice(address, choice)
    return locate_package(address, choice, QUICK, FetchDeadline.starting_now(20), note), notes


def listing_of(url: str, options: CaseFetchOptions = QUICK) -> tuple[CaseListing, list[str]]:
    notes, note = note_list()
    return read_listing(read_case_address(url), options, FetchDeadline.starting_now(20), note), notes


def fetch_error(call: Any, *arguments: Any) -> str:
    with pytest.raises(SourceFetchError) as caught:
        call(*arguments)
    message = caught.value.public_message
    assert message.startswith("source_fetch_error: ") and "\n" not in message
    return message


# -- address shapes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "kind", "root", "document"),
    [
        ("https://h.test/ims/case/v1p0/CFPackages/abc", AddressKind.PACKAGE, None, None),
        ("https://h.test/ims/case/v1p1/CFPackages/abc.json", AddressKind.PACKAGE, None, None),
        ("https://h.test/Public/ims/case/v1p0/CFDocuments", AddressKind.LISTING, "/Public/ims/case/v1p0", None),
        ("https://h.test/ims/case/v1p1/CFDocuments.json?limit=5", AddressKind.LISTING, "/ims/case/v1p1", None),
        ("https://h.test/ims/case/v1p0/CFDocuments/abc", AddressKind.DOCUMENT, "/ims/case/v1p0", "abc"),
        ("https://h.test/ims/case/v1p0/CFDocuments/abc.json", AddressKind.DOCUMENT, "/ims/case/v1p0", "abc"),
        ("https://h.test/ims/case/v1p0/CFDocuments/a%2Fb", AddressKind.DOCUMENT, "/ims/case/v1p0", "a/b"),
        ("https://h.test/ims/case/v1p0", AddressKind.API_ROOT, "/ims/case/v1p0", None),
        ("https://h.test/ims/case/v1p1/", AddressKind.API_ROOT, "/ims/case/v1p1", None),
        ("https://h.test", AddressKind.HOST, None, None),
        ("https://h.test/", AddressKind.HOST, None, None),
    ],
)
def test_address_shapes(url: str, kind: AddressKind, root: str | None, document: str | None) -> None:
    address = read_case_address(url)
    assert (address.kind, address.api_root, address.document_id) == (kind, root, document)


@pytest.mark.parametrize(
    "url",
    ["https://h.test/Public/", "https://h.test/ims/case/v2p0", "https://h.test/?page=1", "https://h.test/CFItems/x"],
)
def test_other_addresses_are_refused_naming_the_shapes(url: str) -> None:
    text = fetch_error(read_case_address, url)
    assert "is not an address of a CASE API this command reads" in text
    assert "…/CFDocuments (the listing)" in text and "https://HOST/ims/case/v1p0 or v1p1 (the API root)" in text


@pytest.mark.parametrize(
    ("url", "choice", "message"),
    [
        ("https://h.test/ims/case/v1p0/CFPackages/x", DocumentChoice(title="T"), "--title chooses from a CFDocuments"),
        ("https://h.test/ims/case/v1p0/CFDocuments/x", DocumentChoice(document_id="y"), "names one document already"),
        ("https://h.test/ims/case/v1p0", DocumentChoice(document_id="y", title="T"), "--document and --title both"),
    ],
)
def test_a_choice_that_does_not_fit_the_address_is_refused(url: str, choice: DocumentChoice, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_choice(read_case_address(url), choice)
    assert message in caught.value.public_message


# -- listings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["object", "bare array"])
@pytest.mark.parametrize("version", ["v1p0", "v1p1"])
def test_a_listing_is_read_in_either_shape(shape: str, version: str, server: CaseServer) -> None:
    entries = documents(server.base)
    body = body_of({"CFDocuments": entries} if shape == "object" else entries)
    path = f"/shape-{shape.replace(' ', '-')}/ims/case/{version}/CFDocuments"
    server.serve(path, Reply(body=body))
    for url in (server.base + path, server.base + path.removesuffix("/CFDocuments")):  # the listing, the API root
        listing, notes = listing_of(url)
        assert [d.identifier for d in listing.documents] == [DOC, OTHER, TWIN_A, TWIN_B]
        assert str(listing.api_root) == server.base + path.removesuffix("/CFDocuments")
        assert listing.documents[1].last_change == "2025-01-15T08:00:00+00:00"
        assert notes == [f"Listed 4 CFDocuments from {server.base}{path}."]


def test_paging_follows_offset_to_the_total(server: CaseServer) -> None:
    entries = [listed(f"0a4e0000-0000-4000-8000-{n:012d}", f"Framework {n}") for n in range(5)]
    listing_path = "/paged/ims/case/v1p0/CFDocuments"
    total = {"Content-Type": "application/json", "X-Total-Count": "5"}
    server.serve(listing_path + "?limit=2", Reply(body=body_of({"CFDocuments": entries[:2]}), headers=total))
    server.serve(listing_path + "?limit=2&offset=2", Reply(body=body_of({"CFDocuments": entries[2:4]}), headers=total))
    server.serve(listing_path + "?limit=2&offset=4", Reply(body=body_of({"CFDocuments": entries[4:]}), headers=total))
    listing, notes = listing_of(server.base + listing_path + "?limit=2")
    assert [d.title for d in listing.documents] == [f"Framework {n}" for n in range(5)]
    assert listing.total == 5 and notes == [
        f"Listed 5 CFDocuments from {server.base}{listing_path}?limit=2 in 3 pages."
    ]


def test_paging_stops_when_the_server_ignores_the_offset(server: CaseServer) -> None:
    entries = [listed(f"0a4e0000-0000-4000-8000-{n:012d}", f"Framework {n}") for n in range(2)]
    path = "/ignores-offset/ims/case/v1p0/CFDocuments"
    reply = Reply(
        body=body_of({"CFDocuments": entries}), headers={"Content-Type": "application/json", "X-Total-Count": "9"}
    )
    server.serve(path, reply)
    server.serve(path + "?offset=2&limit=2", reply)
    listing, notes = listing_of(server.base + path)
    assert len(listing.documents) == 2
    assert "repeated documents already listed; the listing stops there." in notes[0]


def test_an_identifier_listed_twice_is_shown_once_and_said(server: CaseServer) -> None:
    entries = documents(server.base)
    twice = [*entries, {**entries[1], "identifier": OTHER.upper()}]  # identifiers match in any case
    server.serve("/twice/ims/case/v1p0/CFDocuments", Reply(body=body_of({"CFDocuments": twice})))
    listing, notes = listing_of(server.base + "/twice/ims/case/v1p0/CFDocuments")
    assert [d.identifier for d in listing.documents] == [DOC, OTHER, TWIN_A, TWIN_B]
    assert notes[-1].endswith("(1 entry repeating an identifier listed before left out).")


def test_a_listing_past_the_bound_is_cut_and_says_so(server: CaseServer) -> None:
    entries = [{"identifier": f"id-{n}", "title": f"T{n}"} for n in range(MAX_LISTED_DOCUMENTS + 5)]
    server.serve("/big/ims/case/v1p0/CFDocuments", Reply(body=body_of(entries)))
    roomy = QUICK.model_copy(update={"max_bytes": 4 * 1024 * 1024})
    listing, notes = listing_of(server.base + "/big/ims/case/v1p0/CFDocuments", roomy)
    assert len(listing.documents) == MAX_LISTED_DOCUMENTS
    assert f"{MAX_LISTED_DOCUMENTS:,} were read (a listing is read to at most" in notes[0]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(body=b"<html><title>Log in</title></html>", headers={"Content-Type": "text/html"}), "with an HTML page titled “Log in”, not JSON"),
        (Reply(body=b"temporarily unavailable", headers={"Content-Type": "text/plain"}), "did not answer JSON (Expecting value"),
        (Reply(body=body_of(kitchen_science())), "is not a CFDocuments listing: found a JSON object with members CFDocument, CFItems"),
        (Reply(body=body_of({"CFDocuments": [{"title": "no id"}, {"identifier": 7, "title": ["x"]}]})), "CFDocuments[0].identifier: must be a non-empty string; CFDocuments[1].identifier: must be a non-empty string; CFDocuments[1].title: must be a string"),
        (Reply(status=401, body=b"{}", headers={"WWW-Authenticate": "Bearer"}), "requires authorization (it asks for Bearer)"),
    ],
    ids=["html", "text", "a-package", "wrong-types", "auth"],
)  # fmt: skip
def test_a_listing_that_cannot_be_read_is_one_line(reply: Reply, message: str, server: CaseServer) -> None:
    path = f"/bad-{reply.status}-{len(reply.body)}/ims/case/v1p0/CFDocuments"
    server.serve(path, reply)
    assert message in fetch_error(listing_of, server.base + path)


# -- choosing a document, and its package ----------------------------------------------------------


@pytest.fixture(scope="module")
def provider(server: CaseServer) -> str:
    """A CASE 1.0 provider at ``/prov``: the listing, the kitchen package, and one package with an id of its own."""
    server.serve(
        "/prov/ims/case/v1p0/CFDocuments", Reply(body=body_of({"CFDocuments": documents(server.base + "/prov")}))
    )
    server.serve(f"/prov{V1P0}", Reply(body=body_of(kitchen_science())))
    return server.base + "/prov/ims/case/v1p0"


@pytest.mark.parametrize(
    "choice",
    [DocumentChoice(document_id=DOC), DocumentChoice(document_id=DOC.upper()), DocumentChoice(title="KITCHEN science for tests")],
    ids=["id", "id-in-other-case", "title-in-other-case"],
)  # fmt: skip
def test_a_document_is_chosen_by_id_or_title(choice: DocumentChoice, provider: str) -> None:
    location, notes = locate(provider, choice)
    assert location.url == f"{provider}/CFPackages/{DOC}"  # its CFPackageURI has no uri: built from the API root
    assert (
        location.reason == "built from the API root and the document's identifier: the CFDocument names no CFPackageURI"
    )
    assert (
        notes[-1]
        == f"Chose CFDocument {DOC} “Kitchen Science for Tests” (version 2.0, changed 2025-01-15T08:00:00+00:00)."
    )


def test_a_package_uri_on_the_same_host_is_followed(provider: str) -> None:
    location, _notes = locate(provider, DocumentChoice(title="Garden Science"))
    assert location == PackageLocation(
        f"{provider}/CFPackages/{PACKAGE_OF_OTHER}", "its CFPackageURI, on the listing's host"
    )


def test_an_ambiguous_title_lists_the_candidates(provider: str) -> None:
    text = fetch_error(locate, provider, DocumentChoice(title="Draft framework"))
    assert "2 CFDocuments are titled “Draft framework”: " in text
    assert (
        f"{TWIN_A} “Draft Framework” (version 1, changed" in text and f"{TWIN_B} “draft framework ” (version 2" in text
    )
    assert "Next action: Choose one of them by identifier with --document." in text


def test_a_title_not_listed_names_the_nearest(provider: str) -> None:
    text = fetch_error(locate, provider, DocumentChoice(title="Garden Sciences"))
    assert "No CFDocument is titled “Garden Sciences” (the whole title, in any case) among the 4 CFDocuments" in text
    assert f"the nearest titles: {OTHER} “Garden Science”" in text and "without --document and --title" in text


def test_an_identifier_not_listed_is_refused(provider: str) -> None:
    text = fetch_error(locate, provider, DocumentChoice(document_id="nope"))
    assert f"No CFDocument with identifier nope among the 4 CFDocuments listed at {provider}/CFDocuments." in text


def test_a_document_address_leads_to_its_package(server: CaseServer) -> None:
    server.serve(f"/doc/ims/case/v1p1/CFDocuments/{DOC}", Reply(body=body_of(kitchen_science()["CFDocument"])))
    wrapped = {
        "CFDocument": listed(
            OTHER, "Garden Science", CFPackageURI=f"{server.base}/doc/ims/case/v1p1/CFPackages/{PACKAGE_OF_OTHER}"
        )
    }
    server.serve(f"/doc/ims/case/v1p1/CFDocuments/{OTHER}.json", Reply(body=body_of(wrapped)))
    location, notes = locate(f"{server.base}/doc/ims/case/v1p1/CFDocuments/{DOC}")
    assert location.url == f"{server.base}/doc/ims/case/v1p1/CFPackages/{DOC}"
    assert (
        "its CFPackageURI https://case.test/ims/case/v1p0/CFPackages/" in location.reason
        and "on another host" in location.reason
    )
    assert notes == [f"CFDocument {DOC} “Kitchen Science for Tests” (version 2.0, changed 2025-01-15T08:00:00+00:00)."]
    location, _notes = locate(f"{server.base}/doc/ims/case/v1p1/CFDocuments/{OTHER}.json")
    assert location.url == f"{server.base}/doc/ims/case/v1p1/CFPackages/{PACKAGE_OF_OTHER}"


def _document(package_uri: Any) -> ListedDocument:
    return ListedDocument.model_validate({"identifier": "urn:x/1", "CFPackageURI": package_uri})


@pytest.mark.parametrize(
    ("listed_at", "package_uri", "url", "reason"),
    [
        ("https://h.test/ims/case/v1p0/CFDocuments", "http://h.test/ims/case/v1p0/CFPackages/p1", "https://h.test/ims/case/v1p0/CFPackages/p1", "asked over https as the listing was"),
        ("http://h.test/ims/case/v1p0/CFDocuments", {"uri": "https://h.test/ims/case/v1p0/CFPackages/p1"}, "https://h.test/ims/case/v1p0/CFPackages/p1", "on the listing's host"),
        ("https://h.test/ims/case/v1p0/CFDocuments", "https://h.test/cftree/doc/4007", "https://h.test/ims/case/v1p0/CFPackages/urn%3Ax%2F1", "is not a CFPackages address"),
        ("https://h.test/ims/case/v1p0/CFDocuments", "https://u:p@h.test/ims/case/v1p0/CFPackages/p1", "https://h.test/ims/case/v1p0/CFPackages/urn%3Ax%2F1", "carries credentials"),
        ("https://h.test/ims/case/v1p0/CFDocuments", "https://mirror.test/ims/case/v1p0/CFPackages/p1", "https://h.test/ims/case/v1p0/CFPackages/urn%3Ax%2F1", "is on another host"),
    ],
    ids=["upgraded", "https", "not-a-package", "credentials", "other-host"],
)  # fmt: skip
def test_which_package_address_is_taken(listed_at: str, package_uri: Any, url: str, reason: str) -> None:
    address = read_case_address(listed_at)
    api_root = address.parsed.copy_with(raw_path=b"/ims/case/v1p0")
    location = package_location(_document(package_uri), api_root, httpx2.URL(listed_at))
    assert location.url == url and reason in location.reason and "u:p@" not in location.reason


# -- a bare host -----------------------------------------------------------------------------------


def test_a_host_without_case_1_1_falls_back_to_case_1_0_after_a_404() -> None:
    with running_server() as host:
        host.serve("/ims/case/v1p0/CFDocuments", Reply(body=body_of(documents(host.base))))
        listing, notes = listing_of(host.base)
        assert str(listing.api_root) == f"{host.base}/ims/case/v1p0" and len(listing.documents) == 4
        assert notes[0] == f"No CASE 1.1 API at {host.base}/ims/case/v1p1 (HTTP 404); trying CASE 1.0."
        assert [path for path, _headers in host.requests] == [
            "/ims/case/v1p1/CFDocuments",
            "/ims/case/v1p0/CFDocuments",
        ]


def test_a_host_prefers_case_1_1_and_never_falls_back_past_an_authorization_error() -> None:
    with running_server() as host:
        host.serve("/ims/case/v1p1/CFDocuments", Reply(body=body_of(documents(host.base)[:1])))
        host.serve("/ims/case/v1p0/CFDocuments", Reply(body=body_of(documents(host.base))))
        listing, _notes = listing_of(host.base + "/")
        assert str(listing.api_root) == f"{host.base}/ims/case/v1p1" and len(listing.documents) == 1
    with running_server() as host:
        host.serve("/ims/case/v1p1/CFDocuments", Reply(status=401, body=b"{}"))
        host.serve("/ims/case/v1p0/CFDocuments", Reply(body=body_of(documents(host.base))))
        assert "answered HTTP 401" in fetch_error(listing_of, host.base)
        assert [path for path, _headers in host.requests] == ["/ims/case/v1p1/CFDocuments"]
    with running_server() as host:
        text = fetch_error(listing_of, host.base)
        assert f"answered HTTP 404 Not Found for {host.base}/ims/case/v1p0/CFDocuments" in text


# -- end to end: chosen from a listing, compressed, built, accepted --------------------------------


def test_a_package_chosen_by_title_and_sent_compressed_is_built_and_accepted(
    provider: str, server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    body = body_of(kitchen_science())
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    server.serve(f"/prov{V1P0}", Reply(body=gzip.compress(body), headers=headers))
    location, _notes = locate(provider, DocumentChoice(title="Kitchen Science for Tests"))
    with tempfile.TemporaryFile() as destination:
        fetched = fetch_case_package(location.url, destination, QUICK)
        destination.seek(0)
        origin = CaseInputOrigin.fetched(fetched.url, fetched.retrieved_url)
        (content,) = CaseSource().build_stream(destination, origin, ProfileRepository(profiles_root))
    assert fetched.sha256 == hashlib.sha256(body).hexdigest() and fetched.content_encoding == "gzip"
    written = PackageWriter().write_pending(content, tmp_path)
    lifecycle = PackageLifecycle(
        PackageValidator(ProfileRepository(profiles_root)), PackageWriter(), InvalidPackagePolicy.FAIL
    )
    assert lifecycle.validate(written).accepted
    (dataset,) = open_package(tmp_path, FRAMEWORK_ID).manifest["source"]["datasets"]
    assert dataset["uri"] == location.url == f"{provider}/CFPackages/{DOC}"


def test_one_deadline_covers_the_listing_and_the_package(server: CaseServer) -> None:
    server.serve("/slow/ims/case/v1p0/CFDocuments", Reply(body=body_of(documents(server.base)), delay_before=0.6))
    address = read_case_address(server.base + "/slow/ims/case/v1p0")
    spent = FetchDeadline(seconds=0.5, ends_at=FetchDeadline.starting_now(0.5).ends_at)
    text = fetch_error(locate_package, address, DocumentChoice(document_id=DOC), QUICK, spent, lambda _line: None)
    assert "took longer than the deadline of 0.5 s" in text
    choose = fetch_error(
        choose_document, CaseListing("u", httpx2.URL("http://h"), (), None), DocumentChoice(document_id="x")
    )
    assert "No CFDocument with identifier x among the 0 CFDocuments listed at u." in choose
