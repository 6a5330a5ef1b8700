"""CASE frameworks fetched from a provider: a real HTTP(S) server on 127.0.0.1 serves JSON written here.

The client (sources/case/client.py) and the importer it feeds (sources/case/) run unmodified: good
CASE 1.0 and 1.1 packages, the accepted variants, wrong types, redirects, HTTP failures, bodies that are
not JSON or not CASE, bodies over the cap however they are framed, deep nesting, slow servers and TLS.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import socket
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from case_server import (
    BOIL,
    DOC,
    ELSEWHERE,
    FRAMEWORK_ID,
    MIX,
    V1P0,
    V1P1,
    CaseServer,
    Reply,
    body_of,
    kitchen_science,
    raw_header,
    running_server,
    self_signed_tls,
)
from package_view import open_package

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.core.errors import ManifestBuildError, SourceFetchError, has_unprintable
from kgfegmcp.packages.lifecycle import LifecycleOutcome, PackageLifecycle
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageContent, PackageWriter
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.case import CaseInputOrigin, CaseSource
from kgfegmcp.sources.case.client import CaseFetchOptions, FetchedCasePackage, fetch_case_package

pytestmark = pytest.mark.slow

#: Small limits so failures are quick; the defaults are exercised by the CLI test.
QUICK = CaseFetchOptions(timeout_seconds=2, deadline_seconds=10, max_bytes=256 * 1024, max_redirects=3)


@pytest.fixture(scope="module")
def server() -> Iterator[CaseServer]:
    with running_server() as running:
        yield running


def fetch(url: str, options: CaseFetchOptions = QUICK) -> tuple[FetchedCasePackage, bytes]:
    """The response's metadata and the body the client wrote to its file."""
    with tempfile.TemporaryFile() as destination:
        fetched = fetch_case_package(url, destination, options)
        destination.seek(0)
        body = destination.read()
    assert (fetched.size, fetched.sha256) == (len(body), hashlib.sha256(body).hexdigest())
    return fetched, body


def fetch_and_build(
    url: str, profiles_root: Path, options: CaseFetchOptions = QUICK
) -> tuple[FetchedCasePackage, PackageContent]:
    fetched, body = fetch(url, options)
    origin = CaseInputOrigin.fetched(fetched.url, fetched.retrieved_url)
    (content,) = CaseSource().build_bytes(body, origin, ProfileRepository(profiles_root))
    return fetched, content


def write_and_validate(content: PackageContent, profiles_root: Path, root: Path) -> LifecycleOutcome:
    location = PackageWriter().write_pending(content, root)
    profiles = ProfileRepository(profiles_root)
    return PackageLifecycle(PackageValidator(profiles), PackageWriter(), InvalidPackagePolicy.FAIL).validate(location)


def fetch_error(url: str, options: CaseFetchOptions = QUICK) -> SourceFetchError:
    with pytest.raises(SourceFetchError) as caught:
        fetch(url, options)
    message = caught.value.public_message
    assert message.startswith("source_fetch_error: ") and "\n" not in message
    return caught.value


def build_error(url: str, profiles_root: Path) -> str:
    with pytest.raises(ManifestBuildError) as caught:
        fetch_and_build(url, profiles_root)
    message = caught.value.public_message
    assert message.startswith("manifest_build_error: ") and "\n" not in message
    return message


# -- good packages ------------------------------------------------------------------------------


def test_a_case_1_0_package_is_fetched_built_and_accepted(
    server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    body = body_of(kitchen_science())
    url = server.serve(V1P0, Reply(body=body))
    fetched, content = fetch_and_build(url, profiles_root)  # the bytes written are the bytes hashed
    assert (fetched.size, fetched.sha256) == (len(body), hashlib.sha256(body).hexdigest())
    assert (fetched.status_code, fetched.redirects, fetched.retrieved_url) == (200, 0, url)
    path, headers = server.requests[-1]
    assert path == V1P0 and headers["Accept-Encoding"] == "gzip, deflate" and headers["Accept"] == "application/json"
    assert write_and_validate(content, profiles_root, tmp_path).accepted
    view = open_package(tmp_path, FRAMEWORK_ID)
    (dataset,) = view.manifest["source"]["datasets"]
    assert dataset["uri"] == url and dataset["name"] == f"CFPackages/{DOC}"
    assert fetched.sha256 in dataset["role"]
    assert view.manifest["rights"]["sourceLicense"] == "Written for the kgfegmcp tests; no rights reserved."
    for entity in (DOC, BOIL):
        provenance = view.provenance[entity]
        assert provenance["dataset"] == {"name": "CASE CFPackage", "url": url, "sha256": fetched.sha256}
        assert provenance["locator"]["url"] == url and "file" not in provenance["locator"]
    assert view.provenance[DOC]["sourceDetails"]["case"]["CFPackageURI"]["identifier"] == DOC
    edges = {(r.label, r.source_identifier, r.target_identifier) for r in view.relationships}
    assert ("buildsTowards", BOIL, "7c2e0000-0000-4000-8000-000000000021") in edges
    assert not any(ELSEWHERE in (r.source_identifier, r.target_identifier) for r in view.relationships)


def test_cross_framework_associations_stay_source_asserted_and_unresolved(
    server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    url = server.serve(V1P0, Reply(body=body_of(kitchen_science())))
    _fetched, content = fetch_and_build(url, profiles_root)
    assert write_and_validate(content, profiles_root, tmp_path).accepted
    view = open_package(tmp_path, FRAMEWORK_ID)
    by_type = {entry["associationType"]: entry for entry in view.unresolved}
    assert set(by_type) == {"exactMatchOf", "isRelatedTo"}
    exact, related = by_type["exactMatchOf"], by_type["isRelatedTo"]
    assert exact["sourceEntityId"] == BOIL and related["sourceEntityId"] == MIX
    for entry in (exact, related):
        assert entry["status"] == "unresolvedExternalReference"
        assert entry["referenceKind"] == "crossFrameworkAssociation"
        assert entry["epistemicStatus"] == "source_asserted"
        assert entry["reference"] == "https://other.test/x"
        assert entry["destinationNode"]["identifier"] == ELSEWHERE
        assert entry["locator"]["url"] == url
    assert "relationshipLabel" not in exact and related["relationshipLabel"] == "relatesTo"
    assert view.provenance[BOIL]["crossFrameworkReferences"] == [exact["unresolvedId"]]
    assert "alignment" not in json.dumps(view.unresolved).lower()
    gaps = [f["message"] for f in view.report["findings"] if f["code"] == "source_mapping_gap"]
    assert any("'isPeerOf'" in message for message in gaps)  # inside the document: no counterpart, reported


def test_a_case_1_1_package_is_accepted_with_its_additions(
    server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    url = server.serve(V1P1, Reply(body=body_of(kitchen_science("1.1"))))
    _fetched, content = fetch_and_build(url, profiles_root)
    assert write_and_validate(content, profiles_root, tmp_path).accepted
    view = open_package(tmp_path, FRAMEWORK_ID)
    details = view.provenance[DOC]["sourceDetails"]["case"]
    assert (details["caseVersion"], details["frameworkType"]) == ("1.1", "Academic Standards")
    item = view.details[BOIL]["sourceDetails"]["case"]
    assert (item["statusStartDate"], item["subject"]) == ("2025-01-01", ["Science"])
    exact = next(e for e in view.unresolved if e["associationType"] == "exactMatchOf")
    assert exact["destinationNode"]["targetType"] == "CASE"
    messages = [f["message"] for f in view.report["findings"]]
    assert any("1 CFRubrics" in m for m in messages)
    assert not any("neither CASE" in m for m in messages)  # extensions and 1.1 members are CASE members


# -- accepted variants and refused types --------------------------------------------------------


def _variant(change: str) -> dict[str, Any]:
    document = kitchen_science()
    items = document["CFItems"]
    if change == "educationLevel as a string":
        items[2]["educationLevel"] = "04"
    elif change == "CFPackageURI as a string":
        document["CFDocument"]["CFPackageURI"] = f"https://case.test{V1P0}"
    elif change == "optional members absent":
        document["CFDocument"] = {k: document["CFDocument"][k] for k in ("identifier", "title")}
        document["CFItems"] = [{k: item[k] for k in ("identifier", "fullStatement")} for item in items]
        del document["CFDefinitions"]
    elif change == "optional members null":
        document["CFDocument"].update(licenseURI=None, statusStartDate=None, subject=None)
        items[1].update(conceptKeywords=None, conceptKeywordsURI=None, educationLevel=None, notes=None)
        document["CFAssociations"][0]["CFAssociationGroupingURI"] = None
    elif change == "wrapped in CFPackage":
        return {"CFPackage": document}
    return document


@pytest.mark.parametrize(
    "change",
    [
        "educationLevel as a string",
        "CFPackageURI as a string",
        "optional members absent",
        "optional members null",
        "wrapped in CFPackage",
    ],
)
def test_known_variants_are_accepted_as_they_are(
    change: str, server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    path = f"/ims/case/v1p0/CFPackages/variant-{abs(hash(change))}"
    url = server.serve(path, Reply(body=body_of(_variant(change))))
    _fetched, content = fetch_and_build(url, profiles_root)
    assert write_and_validate(content, profiles_root, tmp_path).accepted
    grades = {item.identifier: item.grade_level for item in content.items}
    if change == "educationLevel as a string":
        assert grades["7c2e0000-0000-4000-8000-000000000021"] == ("04",)
        details = open_package(tmp_path, FRAMEWORK_ID).details["7c2e0000-0000-4000-8000-000000000021"]
        assert details["sourceDetails"]["case"]["educationLevel"] == "04"  # kept in the source's shape
    if change == "CFPackageURI as a string":
        details = open_package(tmp_path, FRAMEWORK_ID).provenance[DOC]["sourceDetails"]["case"]
        assert details["CFPackageURI"] == f"https://case.test{V1P0}"
    if change == "optional members null":
        assert grades[BOIL] == ()


def test_members_outside_case_are_reported_not_read(server: CaseServer, profiles_root: Path) -> None:
    document = kitchen_science()
    document["CFItems"][2]["educationalLevel"] = ["Year 4"]  # schema.org's name, not CASE's educationLevel
    document["CFItems"][3]["educationalLevel"] = ["Year 4"]
    url = server.serve("/ims/case/v1p0/CFPackages/unknown-members", Reply(body=body_of(document)))
    _fetched, content = fetch_and_build(url, profiles_root)
    assert {item.identifier: item.grade_level for item in content.items}[MIX] == ("04",)  # never guessed
    (finding,) = [f for f in content.build_findings if f.location == "unknown-members"]
    assert "CFItems.educationalLevel (2)" in finding.message and finding.severity == "warning"


@pytest.mark.parametrize(
    ("member", "value", "message"),
    [
        (("CFItems", 1, "educationLevel"), 4, "CFItems[1].educationLevel must be a string or a list of strings, not number"),
        (("CFItems", 1, "educationLevel"), ["03", 4], "CFItems[1].educationLevel must be a string or a list of strings, not an array holding a number"),
        (("CFItems", 2, "humanCodingScheme"), 12, "CFItems[2].humanCodingScheme must be a string, not number"),
        (("CFItems", 2, "fullStatement"), True, "CFItems[2].fullStatement must be a string, not boolean"),
        (("CFDocument", "CFPackageURI"), 7, "CFDocument.CFPackageURI must be a URI string or a link object"),
        (("CFDocument", "CFPackageURI"), {"uri": 7}, "CFDocument.CFPackageURI must be a URI string or a link object"),
        (("CFDocument", "subject"), {"name": "Science"}, "CFDocument.subject must be a string or a list of strings, not object"),
        (("CFDocument", "licenseURI"), "https://case.test/licence", "CFDocument.licenseURI must be an object, not string"),
        (("CFAssociations", 4, "sequenceNumber"), "1st", "CFAssociations[4].sequenceNumber must be an integer, not string"),
        (("CFAssociations", 4, "originNodeURI"), BOIL, "CFAssociations[4].originNodeURI must be an object, not string"),
        (("CFItems",), {"a": 1}, "CFItems must be an array, not object"),
        (("CFItems", 0), "Heat changes matter.", "CFItems[0] must be an object, not string"),
    ],
)  # fmt: skip
def test_wrong_types_are_refused_naming_the_member(
    member: tuple[str | int, ...], value: Any, message: str, server: CaseServer, profiles_root: Path
) -> None:
    document = copy.deepcopy(kitchen_science())
    holder: Any = document
    for key in member[:-1]:
        holder = holder[key]
    holder[member[-1]] = value
    path = f"/ims/case/v1p0/CFPackages/wrong-{'-'.join(map(str, member))}-{type(value).__name__}"
    url = server.serve(path, Reply(body=body_of(document)))
    text = build_error(url, profiles_root)
    assert message in text, text
    assert "of a type CASE 1.0/1.1 does not allow" in text and "Next action:" in text


# -- bodies that are not a CFPackage ------------------------------------------------------------


def test_a_non_json_body_is_refused_with_its_content_type(server: CaseServer, profiles_root: Path) -> None:
    text = b"Service temporarily unavailable; please retry."
    url = server.serve("/ims/case/v1p0/CFPackages/text", Reply(body=text, headers={"Content-Type": "text/plain"}))
    fetched, received = fetch(url)
    origin = CaseInputOrigin.fetched(url, fetched.retrieved_url, hint=f"Content-Type {fetched.content_type}")
    with pytest.raises(ManifestBuildError) as caught:
        CaseSource().build_bytes(received, origin, ProfileRepository(profiles_root))
    message = caught.value.public_message
    assert message.startswith(f"manifest_build_error: CASE response from {url} is not valid JSON: ")
    assert message.endswith("Next action: Content-Type text/plain")


SIGN_IN = b"\n <!doctype html><html><head><title>Sign in &amp; continue</title></head><p>Please sign in.</p>"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body=SIGN_IN, headers={"Content-Type": "text/html; charset=utf-8"}),
        Reply(body=SIGN_IN + b" " * 300_000, headers={"Content-Type": "text/html"}, framing="chunked"),
        Reply(body=SIGN_IN, headers={"Content-Type": "application/json"}),  # a server that labels everything JSON
        Reply(body=gzip.compress(SIGN_IN), headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}),
    ],
    ids=["html", "long-html", "labelled-json", "gzip"],
)
def test_a_web_page_is_refused_while_fetching_with_its_title(reply: Reply, server: CaseServer) -> None:
    url = server.serve(f"/ims/case/v1p0/CFPackages/page-{len(reply.body)}-{reply.framing}", reply)
    text = fetch_error(url).public_message
    assert f"127.0.0.1 answered {url} with an HTML page titled “Sign in & continue”, not JSON (HTTP 200" in text
    assert "sign-in or error page" in text and "packages build --source case FILE.json" in text


def test_a_sign_in_page_reached_by_redirect_says_so(server: CaseServer) -> None:
    login = server.serve("/login", Reply(body=SIGN_IN, headers={"Content-Type": "text/html"}))
    url = server.serve("/ims/case/v1p0/CFPackages/private", Reply(status=302, headers={"Location": "/login"}))
    text = fetch_error(url).public_message
    assert (
        f"answered {login} with an HTML page titled “Sign in & continue”, not JSON (HTTP 200, after 1 redirect(s),"
        in text
    )


@pytest.mark.parametrize(
    ("document", "found"),
    [
        ({"CFDocuments": [{"identifier": DOC, "title": "A list, not a package"}]}, "a JSON object with members CFDocuments"),
        ([{"CFDocument": {}}], "a JSON array"),
        ({"CFDocument": "Kitchen Science"}, "a JSON object with members CFDocument"),
        ("CFPackage", "a JSON string"),
    ],
)  # fmt: skip
def test_json_that_is_not_a_cfpackage_is_refused(
    document: Any, found: str, server: CaseServer, profiles_root: Path
) -> None:
    url = server.serve(f"/ims/case/v1p0/CFPackages/not-case-{abs(hash(found))}", Reply(body=body_of(document)))
    text = build_error(url, profiles_root)
    assert f"is not a CFPackage: it has no CFDocument object (found {found})" in text


def test_deeply_nested_json_is_refused_in_one_line(server: CaseServer, profiles_root: Path) -> None:
    deep = b'{"CFDocument": {"identifier": "x", "title": "y", "extensions": ' + b"[" * 50_000 + b"]" * 50_000 + b"}}"
    url = server.serve("/ims/case/v1p0/CFPackages/deep", Reply(body=deep))
    text = build_error(url, profiles_root)  # no RecursionError escapes
    assert "is JSON nested too deeply to decode" in text


# -- HTTP failures, redirects, size, time -------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "hint"),
    [(404, "Check the identifier in the URL"), (500, "try again later"), (401, "requires authorization")],
)
def test_http_errors_name_the_status(status: int, hint: str, server: CaseServer) -> None:
    path = f"/ims/case/v1p0/CFPackages/status-{status}"
    url = server.serve(path, Reply(status=status, body=b'{"imsx_description": "no such package"}'))
    text = fetch_error(url).public_message
    assert f"127.0.0.1 answered HTTP {status} " in text
    assert 'imsx_description": "no such package"' in text and hint in text


def test_redirects_within_the_limit_are_followed_and_recorded(
    server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    final = server.serve("/mirror/ims/case/v1p0/CFPackages/final", Reply(body=body_of(kitchen_science())))
    server.serve("/r/2", Reply(status=301, headers={"Location": "/mirror/ims/case/v1p0/CFPackages/final"}))
    server.serve("/r/1", Reply(status=302, headers={"Location": f"{server.base}/r/2"}))
    start = server.serve("/ims/case/v1p0/CFPackages/moved", Reply(status=307, headers={"Location": "/r/1"}))
    fetched, content = fetch_and_build(start, profiles_root)
    assert (fetched.redirects, fetched.url, fetched.retrieved_url) == (3, start, final)
    assert write_and_validate(content, profiles_root, tmp_path).accepted
    view = open_package(tmp_path, FRAMEWORK_ID)
    assert view.provenance[BOIL]["dataset"]["retrievedUrl"] == final
    assert view.manifest["source"]["datasets"][0]["uri"] == start


def test_too_many_redirects_are_refused(server: CaseServer) -> None:
    server.serve("/loop/b", Reply(status=302, headers={"Location": "/ims/case/v1p0/CFPackages/loop"}))
    url = server.serve("/ims/case/v1p0/CFPackages/loop", Reply(status=302, headers={"Location": "/loop/b"}))
    text = fetch_error(url).public_message
    assert "redirected more than 3 time(s)" in text and "--max-redirects" in text
    one = QUICK.model_copy(update={"max_redirects": 0})
    assert "redirected more than 0 time(s)" in fetch_error(url, one).public_message


STREAMED_PAST_CAP = "passed the cap of 262144 bytes while streaming; reading stopped"


@pytest.mark.parametrize(
    ("reply", "what"),
    [
        # an honest Content-Length over the cap: refused before reading
        (Reply(body=b" " * 300_000), "declares 300000 bytes, over the cap of 262144; nothing was read"),
        # no length (chunked, or read until the connection closes): counted while reading
        (Reply(body=b" " * 300_000, framing="chunked"), STREAMED_PAST_CAP),
        (Reply(body=b" " * 300_000, framing="close"), STREAMED_PAST_CAP),
        # a small compressed body that inflates past the cap (a decompression bomb)
        (
            Reply(
                body=gzip.compress(b" " * 5_000_000),
                headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            ),
            f"inflated past the cap of 262144 bytes from {len(gzip.compress(b' ' * 5_000_000)):,} gzip-compressed "
            "bytes; reading stopped",
        ),
    ],
    ids=["content-length", "chunked", "close-delimited", "gzip"],
)
def test_bodies_over_the_cap_are_refused_while_reading(reply: Reply, what: str, server: CaseServer) -> None:
    url = server.serve(f"/ims/case/v1p0/CFPackages/huge-{reply.framing}-{len(reply.body)}", reply)
    text = fetch_error(url).public_message
    assert what in text and "--max-bytes" in text


def test_a_content_length_is_never_read_past(server: CaseServer, profiles_root: Path) -> None:
    body = body_of(kitchen_science())
    lying = Reply(body=body + b" " * 100_000, declared_length=len(body) // 2)  # claims less than it sends
    url = server.serve("/ims/case/v1p0/CFPackages/lying", lying)
    _fetched, received = fetch(url)
    assert received == body[: len(body) // 2]  # exactly what was declared; the rest is never read
    with pytest.raises(ManifestBuildError, match="is not valid JSON"):
        CaseSource().build_bytes(received, CaseInputOrigin.fetched(url, url), ProfileRepository(profiles_root))


def _deflated(body: bytes, wrapped: bool) -> bytes:
    """``deflate`` as HTTP means it (zlib-wrapped), or raw, as some servers send it."""
    compressor = zlib.compressobj(wbits=zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
    return compressor.compress(body) + compressor.flush()


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", lambda body: _deflated(body, wrapped=True)),
        ("deflate", lambda body: _deflated(body, wrapped=False)),
    ],
    ids=["gzip", "x-gzip", "deflate", "raw-deflate"],
)
def test_a_compressed_package_is_inflated_and_hashed_as_decoded(
    encoding: str, compress: Any, server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    body = body_of(kitchen_science())
    headers = {"Content-Type": "application/json", "Content-Encoding": encoding}
    compressed = compress(body)
    url = server.serve(
        f"/ims/case/v1p0/CFPackages/{encoding}-{len(compressed)}", Reply(body=compressed, headers=headers)
    )
    fetched, content = fetch_and_build(url, profiles_root)
    assert server.requests[-1][1]["Accept-Encoding"] == "gzip, deflate"
    assert len(compressed) < len(body) and fetched.content_encoding == encoding
    assert (fetched.size, fetched.sha256) == (len(body), hashlib.sha256(body).hexdigest())  # the decoded bytes
    assert write_and_validate(content, profiles_root, tmp_path).accepted
    (dataset,) = open_package(tmp_path, FRAMEWORK_ID).manifest["source"]["datasets"]
    assert hashlib.sha256(body).hexdigest() in dataset["role"]


def test_an_encoding_not_asked_for_is_refused(server: CaseServer) -> None:
    headers = {"Content-Type": "application/json", "Content-Encoding": "br"}
    url = server.serve("/ims/case/v1p0/CFPackages/brotli", Reply(body=b"\x8b\x00\x80", headers=headers))
    text = fetch_error(url).public_message
    assert "Content-Encoding br, which this client does not decode (it asks for gzip, deflate)" in text


def test_a_corrupt_compressed_body_is_refused(server: CaseServer) -> None:
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    url = server.serve("/ims/case/v1p0/CFPackages/corrupt", Reply(body=b"\x1f\x8bnot gzip at all", headers=headers))
    assert "sent a gzip body that does not inflate" in fetch_error(url).public_message


@pytest.mark.parametrize("status", [401, 403])
def test_an_authorization_error_says_what_the_provider_asks_for(status: int, server: CaseServer) -> None:
    headers = {"Content-Type": "application/json", "WWW-Authenticate": 'Bearer realm="case", error="invalid_token"'}
    body = gzip.compress(b'{"message": "Invalid credentials provided"}')  # error bodies are inflated too
    reply = Reply(status=status, body=body, headers={**headers, "Content-Encoding": "gzip"})
    url = server.serve(f"/ims/case/v1p1/CFPackages/auth-{status}", reply)
    text = fetch_error(url).public_message
    assert f"127.0.0.1 answered HTTP {status} " in text and '{"message": "Invalid credentials provided"}' in text
    assert "requires authorization (it asks for Bearer), and this client sends no credentials" in text
    assert "OAuth 2 client-credentials" in text and "packages build --source case FILE.json" in text
    assert not [h for _p, h in server.requests if "Authorization" in h or "authorization" in h]


def test_a_silent_server_times_out(server: CaseServer) -> None:
    url = server.serve("/ims/case/v1p0/CFPackages/slow", Reply(body=b"{}", delay_before=1.5))
    quick = QUICK.model_copy(update={"timeout_seconds": 0.3})
    text = fetch_error(url, quick).public_message
    assert "127.0.0.1 did not answer within 0.3 s." in text and "--timeout" in text


def test_a_trickling_server_hits_the_deadline(server: CaseServer) -> None:
    url = server.serve("/ims/case/v1p0/CFPackages/trickle", Reply(body=b" " * 200, trickle=0.02))
    quick = QUICK.model_copy(update={"timeout_seconds": 1, "deadline_seconds": 0.5})
    text = fetch_error(url, quick).public_message
    assert "took longer than the deadline of 0.5 s" in text and "--deadline" in text


def test_a_refused_connection_is_one_line() -> None:
    with running_server() as stopped:
        url = stopped.base + V1P0
    assert "Could not connect to 127.0.0.1" in fetch_error(url).public_message


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://case.test/ims/case/v1p0/CFDocuments/abc", "is not a CASE CFPackages address"),
        ("ftp://case.test/ims/case/v1p0/CFPackages/abc", "is not an http or https URL"),
        ("https://user:secret@case.test/ims/case/v1p0/CFPackages/abc", "carries credentials"),
        ("https://case.test/ims/case/v1p0/CFPackages/" + "a" * 2000, "longer than 2000 characters"),
    ],
)
def test_only_cfpackage_addresses_are_fetched(url: str, message: str) -> None:
    assert message in fetch_error(url).public_message


# -- TLS ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CaseServer, Path]]:
    pytest.importorskip("cryptography")
    context, certificate = self_signed_tls(tmp_path_factory.mktemp("tls"))
    with running_server(context) as running:
        yield running, certificate


def test_an_untrusted_certificate_is_refused(
    tls_server: tuple[CaseServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, _certificate = tls_server
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    url = server.serve(V1P0, Reply(body=body_of(kitchen_science())))
    text = fetch_error(url).public_message
    assert text.startswith("source_fetch_error: TLS verification of 127.0.0.1 failed (")
    assert "nothing was read" in text and "never turned off" in text
    assert not [path for path, _headers in server.requests if path == V1P0]  # no request was sent


def test_a_trusted_certificate_is_accepted_and_https_never_downgrades(
    tls_server: tuple[CaseServer, Path], monkeypatch: pytest.MonkeyPatch, server: CaseServer
) -> None:
    secure, certificate = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate))  # the operator trusts this provider's CA
    url = secure.serve("/ims/case/v1p1/CFPackages/tls", Reply(body=body_of(kitchen_science("1.1"))))
    assert fetch(url)[1] == body_of(kitchen_science("1.1"))
    plain = server.serve("/plain/ims/case/v1p0/CFPackages/x", Reply(body=body_of(kitchen_science())))
    down = secure.serve("/ims/case/v1p0/CFPackages/down", Reply(status=301, headers={"Location": plain}))
    text = fetch_error(down).public_message
    assert "redirected from https to http" in text and "downgrade was refused" in text
    assert not [path for path, _headers in server.requests if path == "/plain/ims/case/v1p0/CFPackages/x"]


# -- hostile servers: the deadline holds from connect to last byte ------------------------------

#: A bound, not a performance figure: generous for a shared machine, far below what a drip takes.
SLACK_SECONDS = 10
#: A byte every 0.1 s: each read comes far within the 5 s read timeout, and the whole drip (600 bytes of
#: head or body, a minute) far beyond the deadline and its slack.
DRIP = 0.1
PADDED = {"Content-Type": "application/json", "X-Padding": "p" * 600}


@pytest.mark.parametrize(
    "reply",
    [
        Reply(body=body_of(kitchen_science()), headers=PADDED, header_trickle=DRIP),  # the head, a byte at a time
        Reply(body=b" " * 600, trickle=DRIP),  # a prompt head, then the body a byte at a time
    ],
    ids=["headers", "body"],
)
def test_a_dripping_server_is_cut_off_at_the_deadline(reply: Reply, server: CaseServer) -> None:
    url = server.serve(f"/ims/case/v1p0/CFPackages/drip-{reply.header_trickle}-{reply.trickle}", reply)
    every_read_in_time = QUICK.model_copy(update={"timeout_seconds": 5, "deadline_seconds": 0.5})
    started = time.monotonic()
    text = fetch_error(url, every_read_in_time).public_message
    assert time.monotonic() - started < 0.5 + SLACK_SECONDS
    assert "127.0.0.1 took longer than the deadline of 0.5 s" in text and "--deadline" in text


def test_a_resolver_that_never_answers_is_abandoned_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Name resolution is inside the deadline too (a stuck resolver is injected: the real one cannot be made to hang)."""
    never = threading.Event()

    def stuck_resolver(*_arguments: object, **_options: object) -> list[Any]:
        never.wait(60)
        return []

    monkeypatch.setattr(socket, "getaddrinfo", stuck_resolver)
    started = time.monotonic()
    quick = QUICK.model_copy(update={"deadline_seconds": 0.5})
    text = fetch_error("http://case.test/ims/case/v1p0/CFPackages/x", quick).public_message
    assert time.monotonic() - started < 0.5 + SLACK_SECONDS
    assert "case.test took longer than the deadline of 0.5 s" in text
    never.set()


# -- hostile servers: every hop obeys the first URL's rules -------------------------------------


def _no_request_reached(server: CaseServer, path: str) -> None:
    assert not [p for p, _headers in server.requests if p == path], f"{path} was requested"
    assert not [h for _p, h in server.requests if "Authorization" in h or "authorization" in h]


def test_a_redirect_to_a_url_with_credentials_is_refused(server: CaseServer) -> None:
    target = "/creds/ims/case/v1p0/CFPackages/x"
    server.serve(target, Reply(body=body_of(kitchen_science())))
    port = server.server.server_address[1]
    for number, location in enumerate(
        [
            f"http://operator:s3cret-token@127.0.0.1:{port}{target}",  # absolute
            f"//operator:s3cret-token@127.0.0.1:{port}{target}",  # scheme-relative
            f"http://s3cret-token@127.0.0.1:{port}{target}",  # a user name alone
        ]
    ):
        url = server.serve(
            f"/ims/case/v1p0/CFPackages/to-creds-{number}", Reply(status=302, headers={"Location": location})
        )
        text = fetch_error(url).public_message
        assert "with a Location that was not followed" in text and "carries credentials" in text, text
        assert "s3cret-token" not in text and "operator" not in text  # never repeated, not even in the error
        _no_request_reached(server, target)


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("file:///etc/passwd", "is not an http or https URL"),
        ("ftp://127.0.0.1/ims/case/v1p0/CFPackages/x", "is not an http or https URL"),
        ("javascript:alert(1)", "is not an http or https URL"),
        ("data:application/json,{}", "is not an http or https URL"),
        (raw_header("/ims/case/v1p0/CFPackages/x\x1b[31m"), "holds control characters"),  # ESC: h11 lets it through
        (raw_header("/ims/case/v1p0/CFPackages/x\u009b31m"), "holds control characters"),  # a C1 CSI
        (raw_header("/ims/case/v1p0/CFPackages/\u202ex"), "holds control characters"),  # a bidi override
        ("/ims/case/v1p0/CFPackages/" + "x" * 2000, "longer than 2000 characters"),
    ],
    ids=["file", "ftp", "javascript", "data", "esc", "c1", "bidi", "long"],
)
def test_a_redirect_breaking_a_rule_of_the_first_url_is_refused(location: str, reason: str, server: CaseServer) -> None:
    server.serve("/ims/case/v1p0/CFPackages/x", Reply(body=body_of(kitchen_science())))
    before = len(server.requests)
    url = server.serve(
        f"/ims/case/v1p0/CFPackages/bad-hop-{abs(hash(location))}", Reply(status=301, headers={"Location": location})
    )
    text = fetch_error(url).public_message
    assert "with a Location that was not followed" in text and reason in text, text
    assert not has_unprintable(text)
    assert len(server.requests) == before + 1  # only the first request was sent


# -- hostile servers: remote text reaches a terminal only escaped ------------------------------

#: ANSI colour (CSI), an OSC 8 hyperlink, BEL, a C1 CSI and a bidi override.
HOSTILE_TEXT = "\x1b[31mred\x1b[0m \x1b]8;;https://evil.test/\x07click\x1b]8;;\x07 bell\x07 c1\u009b2J rtl\u202eevil"


def test_control_characters_from_an_error_response_are_escaped(server: CaseServer) -> None:
    reply = Reply(
        status=503,
        reason=raw_header("\x1b[31mDown\x1b]8;;https://evil.test/\x07here\x1b]8;;\x07\u202e"),
        body=HOSTILE_TEXT.encode("utf-8"),
    )
    url = server.serve("/ims/case/v1p0/CFPackages/hostile-error", reply)
    text = fetch_error(url).public_message
    assert not has_unprintable(text), repr(text)
    assert "HTTP 503 \\x1b[31mDown\\x1b]8;;https://evil.test/\\x07here" in text  # shown, escaped
    assert "\\x1b[31mred\\x1b[0m" in text and "\\x9b2J" in text and "\\u202eevil" in text


#: Room for a first gzip member that inflates past one inflate step (256 KiB).
ROOMY = CaseFetchOptions(timeout_seconds=2, deadline_seconds=10, max_bytes=2 * 1024 * 1024, max_redirects=3)


def _finishes(action: Any, seconds: float = 30) -> Any:
    """``action()``'s result, or a failure when it runs past ``seconds`` (an inflate loop that never awaits)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = action()
        except BaseException as exc:  # handed back to the test below
            outcome["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still running after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def test_a_gzip_body_of_several_members_is_inflated_whole(
    server: CaseServer, profiles_root: Path, tmp_path: Path
) -> None:
    body = b" " * 300_000 + body_of(kitchen_science())  # JSON may start with white space
    compressed = gzip.compress(body[:300_100]) + gzip.compress(body[300_100:])  # RFC 1952 allows members in a row
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    url = server.serve("/ims/case/v1p0/CFPackages/members", Reply(body=compressed, headers=headers))
    fetched, received = _finishes(lambda: fetch(url, ROOMY))
    assert received == body and (fetched.size, fetched.sha256) == (len(body), hashlib.sha256(body).hexdigest())
    (content,) = CaseSource().build_bytes(
        received, CaseInputOrigin.fetched(fetched.url, fetched.retrieved_url), ProfileRepository(profiles_root)
    )
    assert write_and_validate(content, profiles_root, tmp_path).accepted


@pytest.mark.parametrize("after", [b"garbage", b"\x1f"], ids=["bytes", "half-a-header"])
def test_bytes_after_a_gzip_body_are_refused_at_once(server: CaseServer, after: bytes) -> None:
    compressed = gzip.compress(b" " * 300_000 + body_of(kitchen_science())) + after
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    url = server.serve(f"/ims/case/v1p0/CFPackages/trailing-{len(after)}", Reply(body=compressed, headers=headers))
    refused = _finishes(lambda: fetch_error(url, ROOMY))
    assert f"sent {len(after)}" in refused.public_message and "after the end of its gzip body" in refused.public_message
