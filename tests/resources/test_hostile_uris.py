"""Hostile and non-canonical URIs fail closed with a stable code, natively and through read_evidence.

Native reads are sent twice: exactly as written (the low-level session, so the server's own parser
sees ``..`` and ``%2e`` unchanged) and through the client's normal path (which first normalises the
URI as a URL, e.g. resolving dot segments). Either way the answer is ``resource_not_found``; the
same URIs given to read_evidence are ``invalid_evidence_uri`` when they are not one exact supported
address, and ``resource_not_found`` when they are well formed but name nothing this catalog exposes.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import AnyUrl
from resource_calls import evidence_code, outcome, read_code

from kgfegmcp.resources import uris
from kgfegmcp.resources.addresses import InvalidAddressError, parse_address
from kgfegmcp.resources.families import Family
from package_factory import LC, TREE
from resource_worlds import VARIANTS, lc_ids

IDS = lc_ids()
SID = next(v.snapshot_id for v in VARIANTS if v.review_status == "approved" and all(v.flags))
BASE = uris.snapshot_uri(LC, SID)
STANDARD = uris.standard_uri(LC, SID, IDS.standard)

#: Not one exact supported address: rejected by the parser itself.
MALFORMED: dict[str, str] = {
    "dot-dot segment": f"{BASE}/standard/../manifest",
    "dot-dot escaping the scheme": f"{BASE}/../../../../etc/passwd",
    "dot-dot as an id": f"{BASE}/standard/..",
    "single dot segment": f"{BASE}/./manifest",
    "encoded dot-dot (lowercase)": f"{BASE}/standard/%2e%2e",
    "encoded dot-dot (uppercase)": f"{BASE}/standard/%2E%2E/provenance",
    "encoded slash in an id": f"{STANDARD}%2Fprovenance",
    "encoded letter": f"{BASE}/artifact/%6Eodes",
    "encoded hyphen in a framework id": "kgfegmcp://framework/fixture%2Dlc",
    "encoded absolute path": "kgfegmcp://framework/%2Fetc%2Fpasswd",
    "absolute path": "/etc/passwd",
    "file URI": "file:///etc/passwd",
    "scheme with an absolute path": "kgfegmcp:///etc/passwd",
    "absolute path as an artifact": f"{BASE}/artifact//etc/passwd",
    "backslash path": f"{BASE}/artifact/..\\..\\etc",
    "uppercase scheme": "KGFEGMCP://catalog",
    "capitalised family": "kgfegmcp://Catalog",
    "uppercase family": "kgfegmcp://CATALOG",
    "capitalised framework word": f"kgfegmcp://Framework/{LC}",
    "uppercase framework id": f"kgfegmcp://framework/{LC.upper()}",
    "uppercase snapshot id": uris.snapshot_uri(LC, SID.upper()),
    "capitalised standard word": f"{BASE}/Standard/{IDS.standard}",
    "uppercase manifest word": f"{BASE}/MANIFEST",
    "capitalised artifact name": f"{BASE}/artifact/Nodes",
    "capitalised provenance word": f"{STANDARD}/Provenance",
    "trailing slash on the catalog": "kgfegmcp://catalog/",
    "trailing slash on a snapshot": f"{BASE}/",
    "trailing slash on the manifest": f"{BASE}/manifest/",
    "trailing slash on a standard": f"{STANDARD}/",
    "trailing slash on provenance": f"{STANDARD}/provenance/",
    "double slash": f"{BASE}//manifest",
    "overlong node id": f"{BASE}/standard/{'a' * 257}",
    "overlong relationship id": f"{BASE}/relationship/{'1' * 300}",
    "overlong framework id": f"kgfegmcp://framework/{'a' * 97}",
    "query string": "kgfegmcp://catalog?format=raw",
    "fragment": f"{STANDARD}#provenance",
    "whitespace": f"{BASE}/standard/ {IDS.standard}",
    "unknown family": f"{BASE}/secrets",
    "unknown top-level family": "kgfegmcp://packages",
    "framework without id": "kgfegmcp://framework",
    "empty after the scheme": "kgfegmcp://",
    "other scheme": f"https://example.org/framework/{LC}",
    "one-digit part": f"{BASE}/provenance-part/7",
    "three-digit part": f"{BASE}/provenance-part/007",
    "part out of range": f"{BASE}/provenance-part/64",
    "provenance of a relationship": f"{uris.relationship_uri(LC, SID, IDS.has_child)}/provenance",
    "artifact name with a dot": f"{BASE}/artifact/nodes.jsonl",
    "id with a colon": f"{BASE}/standard/urn:{IDS.standard}",
}

#: Well-formed addresses that name nothing this catalog exposes.
UNRESOLVABLE: dict[str, str] = {
    "unknown logical name": f"{BASE}/artifact/secrets",
    "manifest pseudo-artifact": f"{BASE}/artifact/packageManifest",
    "part through the artifact family": f"{BASE}/artifact/entityProvenancePart07",
    "artifact without exposure contract": f"{BASE}/artifact/operatorLog",
    "standard id of another package": uris.standard_uri(LC, SID, IDS.tree_standard),
    "standard of this package under another package": uris.standard_uri(TREE, "2026-01", IDS.standard),
    "provenance of another package's standard": uris.standard_provenance_uri(LC, SID, IDS.tree_standard),
    "component id in a standard template": uris.standard_uri(LC, SID, IDS.component),
    "component id in the standard provenance template": uris.standard_provenance_uri(LC, SID, IDS.component),
    "standard id in a component template": uris.learning_component_uri(LC, SID, IDS.standard),
    "standard id in the component provenance template": uris.learning_component_provenance_uri(LC, SID, IDS.standard),
    "hasChild link in the progression template": uris.learning_progression_uri(LC, SID, IDS.has_child),
    "supports link in the progression template": uris.learning_progression_uri(LC, SID, IDS.supports),
    "node id in the relationship template": uris.relationship_uri(LC, SID, IDS.standard),
    "unknown node id": uris.standard_uri(LC, SID, "00000000-0000-5000-8000-000000000000"),
    "uppercase variant of a node id": uris.standard_uri(LC, SID, IDS.standard.upper()),
    "unknown framework": uris.framework_uri("no-such-framework"),
    "unknown snapshot": uris.manifest_uri(LC, "2099-01"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
async def test_malformed_uri_is_not_found_natively(matrix_client: Client[Any], name: str) -> None:
    uri = MALFORMED[name]
    assert await read_code(matrix_client, uri, raw=True) == "resource_not_found"
    try:
        sent = str(AnyUrl(uri))
    except ValueError:  # the client itself refuses to send it
        return
    if sent == uri:  # the client's normal path sends it unchanged: same answer
        assert await outcome(matrix_client, uri) == "resource_not_found"
    # Otherwise the client rewrote it first (``a/../b`` → ``b``, ``KGFEGMCP:`` → ``kgfegmcp:``) and the
    # server only ever sees the rewritten URI, which is answered on its own merits.


@pytest.mark.parametrize("name", sorted(MALFORMED))
async def test_malformed_uri_is_invalid_evidence_uri(matrix_client: Client[Any], name: str) -> None:
    assert await evidence_code(matrix_client, {"uri": MALFORMED[name]}) == "invalid_evidence_uri"


@pytest.mark.parametrize("name", sorted(UNRESOLVABLE))
async def test_unresolvable_address_is_not_found(matrix_client: Client[Any], name: str) -> None:
    uri = UNRESOLVABLE[name]
    parse_address(uri)  # well formed ...
    assert await read_code(matrix_client, uri, raw=True) == "resource_not_found"  # ... but nothing is there
    assert await evidence_code(matrix_client, {"uri": uri}) == "resource_not_found"


async def test_uri_longer_than_the_schema_bound_is_an_invalid_request(matrix_client: Client[Any]) -> None:
    uri = f"{BASE}/standard/{'a' * 3000}"
    assert await read_code(matrix_client, uri, raw=True) == "resource_not_found"
    assert await evidence_code(matrix_client, {"uri": uri}) == "invalid_request"


def test_no_error_message_echoes_a_path() -> None:
    for uri in MALFORMED.values():
        with pytest.raises(InvalidAddressError) as caught:
            parse_address(uri)
        assert "etc" not in str(caught.value) and "/" not in str(caught.value).replace("kgfegmcp://", "")


def _every_canonical_uri(fid: str, sid: str, key: str, part: int, name: str) -> list[tuple[str, Family]]:
    return [
        (uris.CATALOG_URI, Family.CATALOG),
        (uris.framework_uri(fid), Family.FRAMEWORK),
        (uris.snapshot_uri(fid, sid), Family.SNAPSHOT),
        (uris.manifest_uri(fid, sid), Family.MANIFEST),
        (uris.validation_uri(fid, sid), Family.VALIDATION),
        (uris.profile_uri(fid, sid), Family.PROFILE),
        (uris.unresolved_uri(fid, sid), Family.UNRESOLVED),
        (uris.standard_uri(fid, sid, key), Family.STANDARD),
        (uris.standard_provenance_uri(fid, sid, key), Family.STANDARD_PROVENANCE),
        (uris.relationship_uri(fid, sid, key), Family.RELATIONSHIP),
        (uris.learning_component_uri(fid, sid, key), Family.LEARNING_COMPONENT),
        (uris.learning_component_provenance_uri(fid, sid, key), Family.LEARNING_COMPONENT_PROVENANCE),
        (uris.learning_progression_uri(fid, sid, key), Family.LEARNING_PROGRESSION),
        (uris.provenance_part_uri(fid, sid, part), Family.PROVENANCE_PART),
        (uris.artifact_uri(fid, sid, name), Family.ARTIFACT),
    ]


_IDENTIFIER = st.from_regex(r"[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}", fullmatch=True).filter(lambda s: len(s) >= 3)
_KEY = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._~-]{0,255}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(
    fid=_IDENTIFIER,
    sid=_IDENTIFIER,
    key=_KEY,
    part=st.integers(0, 63),
    name=st.from_regex(r"[a-z][A-Za-z0-9]{1,63}", fullmatch=True),
)
def test_every_uri_the_server_prints_parses_back_to_itself(fid: str, sid: str, key: str, part: int, name: str) -> None:
    for uri, family in _every_canonical_uri(fid, sid, key, part, name):
        address = parse_address(uri)
        assert (address.family, address.uri) == (family, uri)


@settings(max_examples=300, deadline=None)
@given(
    suffix=st.text(alphabet=st.sampled_from("framewokshtdinl/%.-_~aAzZ09éF\\?# "), max_size=80),
    prefix=st.sampled_from(["kgfegmcp://", "kgfegmcp://framework/", f"{BASE}/", "KGFEGMCP://", ""]),
)
def test_any_text_either_fails_closed_or_is_exactly_canonical(prefix: str, suffix: str) -> None:
    text = prefix + suffix
    try:
        address = parse_address(text)
    except InvalidAddressError:
        return
    assert address.uri == text
