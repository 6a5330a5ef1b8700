"""Forged cursors: a cursor checksummed with the public catalog fingerprint is refused, and a cursor sealed
with the server's own key (a replica's, or a leaked secret) is still decoded within bounds and validated.

The checksum key is derived from a secret no client can compute (``KGFEGMCP_CURSOR_SECRET``, else the
install's secret file; see docs/configuration.md). These tests build cursors as an outsider would, with
the public fingerprint, and as a holder of the key would (``CursorCodec.seal``): hostile JSON, correctly
checksummed. Extreme offsets against a real server process are in tests/e2e/test_cursor_bounds.py.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import pytest
from fastmcp import Client
from pydantic import BaseModel

import worlds
from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState
from kgfegmcp.core.config import load_settings
from kgfegmcp.core.cursors import request_fingerprint
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.resources.uris import CATALOG_URI
from kgfegmcp.services import requests as r
from package_factory import FixtureWorld, state_for
from tool_calls import call, error, structured

EF = "brazil-bncc-ensino-fundamental"
SECRET = "a-deployment-secret-of-forty-characters!"
OTHER_SECRET = "another-deployment-secret-forty-chars!!!"

#: Every tool that accepts a cursor, with a request that has a next page on the default catalog.
CURSOR_TOOLS: dict[str, tuple[dict[str, Any], type[BaseModel]]] = {
    "list_frameworks": ({"limit": 1}, r.ListFrameworksRequest),
    "search_standards": ({"query": "frações", "limit": 1}, r.SearchStandardsRequest),
    "search_learning_components": ({"query": "frações", "limit": 1}, r.SearchLearningComponentsRequest),
    "get_standard_progressions": (
        {"frameworkId": EF, "statementCode": "EF05MA03", "limit": 1},
        r.GetStandardProgressionsRequest,
    ),
    "search_learning_progressions": ({"frameworkId": EF, "limit": 1}, r.SearchLearningProgressionsRequest),
    "read_evidence": ({"uri": CATALOG_URI, "windowBytes": 64}, r.ReadEvidenceRequest),
}


def forge(catalog_fingerprint: str, payload: bytes) -> str:
    """A cursor checksummed with the public catalog fingerprint, as anyone who reads the manifests can."""
    checksum = hmac.new(catalog_fingerprint.encode("ascii"), payload, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(payload + checksum).decode("ascii").rstrip("=")


def envelope(tool: str, request: BaseModel, position: bytes) -> bytes:
    """The payload layout the server writes, with ``position`` spliced in verbatim."""
    fingerprint = request_fingerprint(request)[:32]
    return b'{"p":' + position + b',"r":"' + fingerprint.encode() + b'","t":"' + tool.encode() + b'","v":1}'


def hostile_payloads(tool: str, request: BaseModel) -> dict[str, bytes]:
    deep = b"[" * 1400 + b"]" * 1400
    return {
        "array nested 1,400 deep": deep,
        "object nested 500 deep": b'{"":' * 500 + b"0" + b"}" * 500,
        "position nested 1,400 deep": envelope(tool, request, deep),
        "offset nested 1,000 deep": envelope(tool, request, b'{"offset":' + b"[" * 1000 + b"]" * 1000 + b"}"),
        "unbalanced brackets": b"[" * 2000,
        "closing brackets first": b"]" * 1000 + b"[" * 1000,
        "not UTF-8": b"\xff\xfe\xfd" * 100,
        "huge number": envelope(tool, request, b'{"offset":' + b"9" * 2900 + b"}"),
        "NaN offset": envelope(tool, request, b'{"offset":NaN}'),
        "negative offset": envelope(tool, request, b'{"offset":-1}'),
        "float offset": envelope(tool, request, b'{"offset":1.0}'),
        "string offset": envelope(tool, request, b'{"offset":"1"}'),
        "position is a list": envelope(tool, request, b"[1]"),
        "truncated JSON": b'{"p":{"offset":',
        "a bare string": b'"' + b"x" * 2000 + b'"',
    }


def payload_of(cursor: str) -> bytes:
    """The payload of a cursor, its 16-byte checksum cut off."""
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))[:-16]


@pytest.mark.parametrize("tool", sorted(CURSOR_TOOLS))
async def test_cursors_forged_with_the_public_fingerprint_are_refused(
    default_client: Client[Any], default_state: AppState, tool: str
) -> None:
    """Without KGFEGMCP_CURSOR_SECRET the key is the install's secret, not the fingerprint anyone can read."""
    assert default_state.settings.cursor_secret is None
    request, _ = CURSOR_TOOLS[tool]
    genuine = structured(await call(default_client, tool, request))["page"]["nextCursor"]
    # The very payload the server issued, checksummed with the public fingerprint instead of its key.
    public = forge(default_state.catalog.fingerprint, payload_of(genuine))
    assert public != genuine
    message = await error(default_client, tool, {**request, "cursor": public})
    assert message.startswith("invalid_cursor: The cursor was altered, or belongs to another catalog."), message
    assert default_state.cursors.seal(payload_of(genuine)) == genuine
    assert structured(await call(default_client, tool, {**request, "cursor": genuine}))["page"] is not None


@pytest.mark.parametrize("tool", sorted(CURSOR_TOOLS))
async def test_sealed_cursors_with_hostile_payloads_are_invalid_cursor(
    default_client: Client[Any], default_state: AppState, tool: str
) -> None:
    request, model = CURSOR_TOOLS[tool]
    # The request pages: a genuine cursor exists, so the forged ones compete with a real continuation.
    assert structured(await call(default_client, tool, request))["page"]["hasMore"] is True
    for label, payload in hostile_payloads(tool, model.model_validate(request)).items():
        for cursor in (default_state.cursors.seal(payload), forge(default_state.catalog.fingerprint, payload)):
            assert len(cursor) <= 4096, label
            message = await error(default_client, tool, {**request, "cursor": cursor})
            assert message.startswith("invalid_cursor: "), (label, message)
            assert len(message) < 300, label


def test_cursor_secret_setting_is_bounded_and_never_echoed() -> None:
    assert load_settings().cursor_secret is None
    settings = load_settings({"cursor_secret": SECRET})
    assert settings.cursor_secret is not None and settings.cursor_secret.get_secret_value() == SECRET
    assert SECRET not in repr(settings) and SECRET not in str(settings)
    for short in ("", "too-short", "x" * 31):
        with pytest.raises(ConfigurationError) as info:
            load_settings({"cursor_secret": short})
        assert "KGFEGMCP_CURSOR_SECRET" in info.value.public_message
        assert not short or short not in info.value.public_message


def listed(body: dict[str, Any]) -> list[Any]:
    """A catalog or search page's items (the page block says only hasMore and nextCursor)."""
    return list(body.get("hits", body.get("frameworks", [])))


async def test_cursors_are_sealed_with_the_deployment_secret(
    fixture_world: FixtureWorld, other_world_state: AppState
) -> None:
    request = {"includeNonCurrent": True, "limit": 1}
    listing = r.ListFrameworksRequest.model_validate(request)
    sealed = state_for(fixture_world, cursor_secret=SECRET)
    async with Client(create_app(sealed)) as client:
        cursor = structured(await call(client, "list_frameworks", request))["page"]["nextCursor"]
        assert len(listed(structured(await call(client, "list_frameworks", {**request, "cursor": cursor})))) == 1
        # What an outsider can compute from the public manifests is refused once a secret is set.
        public = forge(sealed.catalog.fingerprint, envelope("list_frameworks", listing, b'{"offset":1}'))
        assert public != cursor
        message = await error(client, "list_frameworks", {**request, "cursor": public})
        assert message.startswith("invalid_cursor: ")
    # A replica sharing the secret accepts it and issues byte-identical cursors.
    async with Client(create_app(state_for(fixture_world, cursor_secret=SECRET))) as replica:
        assert structured(await call(replica, "list_frameworks", request))["page"]["nextCursor"] == cursor
        assert len(listed(structured(await call(replica, "list_frameworks", {**request, "cursor": cursor})))) == 1
    # Another secret, or no secret, refuses it.
    for state in (state_for(fixture_world, cursor_secret=OTHER_SECRET), state_for(fixture_world)):
        async with Client(create_app(state)) as stranger:
            assert (await error(stranger, "list_frameworks", {**request, "cursor": cursor})).startswith(
                "invalid_cursor: "
            )
    # The same secret over another catalog refuses it too: the key binds the catalog fingerprint.
    async with Client(create_app(other_world_state)) as other:
        assert (await error(other, "list_frameworks", {**request, "cursor": cursor})).startswith("invalid_cursor: ")


@pytest.fixture(scope="module")
def other_world_state() -> AppState:
    """A different catalog served with the same secret."""
    return state_for(worlds.fixture_world("small"), cursor_secret=SECRET)
