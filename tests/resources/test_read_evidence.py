"""read_evidence: windows that reassemble byte-exactly, bound cursors, and the same gates as a read."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from fastmcp import Client
from resource_calls import evidence, evidence_code, outcome, read, read_all_windows

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.errors import EvidenceResultTooLargeError
from kgfegmcp.core.models import sha256_hex
from kgfegmcp.core.rendering import rendered_size
from kgfegmcp.core.tool_names import ToolName
from kgfegmcp.resources import uris
from kgfegmcp.services.paging import Pager
from kgfegmcp.services.requests import ReadEvidenceRequest
from kgfegmcp.services.resources import AttributionView
from package_factory import LC, FixtureWorld, state_for
from resource_worlds import NOTES_TEXT, VARIANTS, lc_ids, small_lc_world

IDS = lc_ids()
SID = next(v.snapshot_id for v in VARIANTS if v.review_status == "approved" and all(v.flags))
NOTES = uris.artifact_uri(LC, SID, "operatorNotes")


def reassemble(windows: list[dict[str, Any]]) -> bytes:
    """Concatenate window texts, checking offsets are contiguous."""
    position = 0
    chunks = []
    for window in windows:
        body = window["window"]
        assert body["offset"] == position
        chunk = body["text"].encode("utf-8")
        assert len(chunk) == body["byteLength"] == body["endOffset"] - body["offset"] == window["page"]["returned"]
        chunks.append(chunk)
        position = body["endOffset"]
    return b"".join(chunks)


#: The smallest windows cut the document into hundreds of reads each: the sweep over them is slow.
SMALL_WINDOWS = [pytest.param(size, marks=pytest.mark.slow) for size in (4, 5, 6, 7, 9, 13)]


@pytest.mark.parametrize("window_bytes", [*SMALL_WINDOWS, 64, 1000, 16_384, 32_768])
async def test_windows_reassemble_byte_exactly(matrix_client: Client[Any], window_bytes: int) -> None:
    data, meta = await read(matrix_client, NOTES)
    assert data == NOTES_TEXT.encode("utf-8")
    windows = await read_all_windows(matrix_client, NOTES, window_bytes)
    assert reassemble(windows) == data
    for window in windows:
        assert window["resource"] == meta  # the full metadata of the whole resource, every time
        assert window["uri"] == NOTES
        assert 0 < window["window"]["byteLength"] <= window_bytes
    *middle, last = windows
    assert all(w["limitedBy"] == "window_bytes" and not w["reachedEnd"] for w in middle)
    assert last["limitedBy"] == "end_of_resource" and last["reachedEnd"] and last["page"]["nextCursor"] is None


async def test_windows_meet_multibyte_characters_at_their_edges(matrix_client: Client[Any]) -> None:
    """Odd window sizes land inside 2-, 3- and 4-byte characters; each window still ends between them."""
    data = NOTES_TEXT.encode("utf-8")
    widths = {len(ch.encode("utf-8")) for ch in NOTES_TEXT}
    assert widths == {1, 2, 3, 4}
    shortened = 0
    for window_bytes in (5, 7):
        for window in await read_all_windows(matrix_client, NOTES, window_bytes):
            end = window["window"]["endOffset"]
            assert end == len(data) or (data[end] & 0xC0) != 0x80  # never inside a character
            shortened += window["window"]["byteLength"] < window_bytes and not window["reachedEnd"]
    assert shortened > 0  # some windows really were cut short at a character boundary


async def test_default_window_is_16_kib(matrix_client: Client[Any]) -> None:
    uri = uris.manifest_uri(LC, SID)
    data, _ = await read(matrix_client, uri)
    assert len(data) > 16_384
    first = await evidence(matrix_client, {"uri": uri})
    assert first["window"]["byteLength"] == 16_384 and first["page"]["limit"] == 16_384
    assert first["window"]["text"].encode("utf-8") == data[:16_384]


async def test_result_ceiling_shrinks_the_window_instead_of_failing(matrix_client: Client[Any]) -> None:
    """Each control character becomes six JSON characters: 32 KiB of them cannot fit 100,000 characters."""
    uri = uris.artifact_uri(LC, SID, "controlNotes")
    data, _ = await read(matrix_client, uri)
    windows = await read_all_windows(matrix_client, uri, 32_768)
    assert reassemble(windows) == data
    assert windows[0]["limitedBy"] == "result_ceiling"
    assert windows[0]["window"]["byteLength"] < 32_768
    for window in windows:
        size = rendered_size(window)
        assert size.fits and size.chars <= 100_000 and size.bytes <= 1_048_576


async def test_every_readable_family_reassembles(matrix_client: Client[Any]) -> None:
    for uri in (
        uris.CATALOG_URI,
        uris.framework_uri(LC),
        uris.snapshot_uri(LC, SID),
        uris.manifest_uri(LC, SID),
        uris.validation_uri(LC, SID),
        uris.profile_uri(LC, SID),
        uris.unresolved_uri(LC, SID),
        uris.standard_uri(LC, SID, IDS.standard),
        uris.standard_provenance_uri(LC, SID, IDS.standard),
        uris.relationship_uri(LC, SID, IDS.supports),
        uris.learning_component_uri(LC, SID, IDS.component),
        uris.learning_component_provenance_uri(LC, SID, IDS.component),
        uris.learning_progression_uri(LC, SID, IDS.relates_to),
        uris.provenance_part_uri(LC, SID, 7),
        uris.artifact_uri(LC, SID, "nodes"),
    ):
        data, meta = await read(matrix_client, uri)
        windows = await read_all_windows(matrix_client, uri, 2_000)
        assert reassemble(windows) == data, uri
        assert sha256_hex(data) == meta["sha256"] == windows[0]["resource"]["sha256"]


async def test_changed_window_size_or_uri_with_an_old_cursor_is_invalid(matrix_client: Client[Any]) -> None:
    first = await evidence(matrix_client, {"uri": NOTES, "windowBytes": 100})
    cursor = first["page"]["nextCursor"]
    second = await evidence(matrix_client, {"uri": NOTES, "windowBytes": 100, "cursor": cursor})
    assert second["window"]["offset"] == first["window"]["endOffset"]
    for changed in (
        {"uri": NOTES, "windowBytes": 101, "cursor": cursor},
        {"uri": NOTES, "cursor": cursor},  # the default window is a different window size
        {"uri": uris.manifest_uri(LC, SID), "windowBytes": 100, "cursor": cursor},
        {"uri": NOTES, "windowBytes": 100, "cursor": cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")},
        {"uri": NOTES, "windowBytes": 100, "cursor": "not-a-cursor"},
    ):
        assert await evidence_code(matrix_client, changed) == "invalid_cursor", changed


async def test_cursor_from_another_catalog_is_invalid(
    matrix_client: Client[Any], matrix_state: AppState, tmp_path: Any
) -> None:
    other = state_for(small_lc_world(tmp_path))
    uri = uris.artifact_uri(LC, "2026-01", "operatorNotes")
    async with Client(create_app(other)) as client:
        foreign = await evidence(client, {"uri": uri, "windowBytes": 100})
    assert matrix_state.catalog.fingerprint != other.catalog.fingerprint
    request = {"uri": NOTES, "windowBytes": 100, "cursor": foreign["page"]["nextCursor"]}
    assert await evidence_code(matrix_client, request) == "invalid_cursor"


async def test_cursor_is_bounded_and_opaque(matrix_client: Client[Any]) -> None:
    first = await evidence(matrix_client, {"uri": NOTES, "windowBytes": 4})
    cursor = first["page"]["nextCursor"]
    assert 0 < len(cursor) <= 4096 and cursor.replace("-", "").replace("_", "").isalnum()
    padded = base64.urlsafe_b64encode(b"x" * 10).decode()
    assert padded.endswith("=")
    assert await evidence_code(matrix_client, {"uri": NOTES, "cursor": padded}) == "invalid_cursor"
    assert await evidence_code(matrix_client, {"uri": NOTES, "cursor": "A" * 4097}) == "invalid_cursor"


async def test_window_bounds_are_schema_bounds(matrix_client: Client[Any]) -> None:
    for window_bytes in (0, 3, 32_769, "16384"):
        assert await evidence_code(matrix_client, {"uri": NOTES, "windowBytes": window_bytes}) == "invalid_request"
    assert await evidence_code(matrix_client, {"uri": NOTES, "window_bytes": 100}) == "invalid_request"
    assert await evidence_code(matrix_client, {"uri": NOTES, "extra": 1}) == "invalid_request"


async def test_binary_resource_is_unsupported_format(matrix_client: Client[Any]) -> None:
    uri = uris.artifact_uri(LC, SID, "binaryFigure")
    data, meta = await read(matrix_client, uri)  # natively it is served, as a blob
    assert meta["mimeType"] == "application/octet-stream" and len(data) == 2048
    assert await evidence_code(matrix_client, {"uri": uri}) == "unsupported_evidence_format"


async def test_same_rights_gates_as_a_native_read(matrix_client: Client[Any]) -> None:
    for variant in VARIANTS:
        for uri in (
            uris.unresolved_uri(LC, variant.snapshot_id),
            uris.standard_uri(LC, variant.snapshot_id, IDS.standard),
            uris.artifact_uri(LC, variant.snapshot_id, "nodes"),
            uris.artifact_uri(LC, variant.snapshot_id, "operatorLog"),
        ):
            native = await outcome(matrix_client, uri)
            result = await matrix_client.call_tool("read_evidence", {"request": {"uri": uri}}, raise_on_error=False)
            if native == "ok":
                assert not result.is_error, uri
            else:
                assert await evidence_code(matrix_client, {"uri": uri}) == native, uri


async def test_same_size_gates_as_a_native_read(tmp_path: Any) -> None:
    world: FixtureWorld = small_lc_world(tmp_path)
    state = state_for(world, max_returned_resource_bytes=1_000)
    async with Client(create_app(state)) as client:
        uri = uris.artifact_uri(LC, "2026-01", "operatorNotes")  # larger than 1,000 bytes
        assert await outcome(client, uri) == "resource_access_denied"
        assert await evidence_code(client, {"uri": uri, "windowBytes": 100}) == "resource_access_denied"


def test_no_content_beside_oversized_metadata_is_evidence_result_too_large(matrix_state: AppState) -> None:
    """The metadata alone can exceed the ceiling only with an attribution longer than the manifest allows, so
    the rule is exercised on the service with such a document, not through a package."""
    document = matrix_state.resources.read_uri(NOTES)
    huge = document.metadata.model_copy(
        update={"attribution": AttributionView(source_license="x" * 60_000, attribution_statement="y")}
    )
    request = ReadEvidenceRequest.model_validate({"uri": NOTES})
    evidence_service = matrix_state.evidence
    with pytest.raises(EvidenceResultTooLargeError) as caught:
        pager = Pager(matrix_state.cursors, ToolName.READ_EVIDENCE, request, sha256=huge.sha256[:32])
        evidence_service._fit(request, pager, huge, document.data, 0)
    assert caught.value.code == "evidence_result_too_large"
