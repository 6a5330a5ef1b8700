"""Every resource family is declared once (resources/families.py) and that one entry drives it all:
the MCP listing, the address parser, the rights policy, the document builders and the tool reference."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from checkout import REPOSITORY_ROOT
from kgfegmcp.bootstrap import AppState
from kgfegmcp.resources.addresses import parse_address
from kgfegmcp.resources.families import FAMILIES, FAMILY, Family
from kgfegmcp.resources.policy import FAMILY_ACCESS

DOCS = REPOSITORY_ROOT / "docs" / "tools.md"
SAMPLE_KEYS = {"node_id": "node-1", "relationship_id": "rel-1", "part": "07", "logical_name": "validationReport"}


def test_the_table_holds_every_family_once_in_design_order() -> None:
    assert [f.family for f in FAMILIES] == list(Family)
    assert len({f.template for f in FAMILIES}) == len(FAMILIES) == 15
    assert FAMILIES[0].variables == () and all(f.variables for f in FAMILIES[1:])  # 1 resource, 14 templates


async def test_every_family_is_registered_as_declared(matrix_client: Client[Any]) -> None:
    fixed = await matrix_client.list_resources()
    templates = await matrix_client.list_resource_templates()
    listed = [(str(r.uri), r.name, r.description) for r in fixed] + [
        (t.uri_template, t.name, t.description) for t in templates
    ]
    assert sorted(listed) == sorted((f.template, f.name, f.description) for f in FAMILIES)


@pytest.mark.parametrize("family", FAMILIES, ids=[f.name for f in FAMILIES])
def test_every_family_is_parsed_back_from_its_own_uris(family: Any) -> None:
    uri = family.uri("fixture-lc", "2026-01", SAMPLE_KEYS.get(family.key or "", ""))
    address = parse_address(uri)
    assert address.family is family.family and address.uri == uri
    assert "{" not in uri


def test_every_family_is_policed() -> None:
    # Every dedicated family has its access class; the artifact family is decided per logical name.
    assert set(FAMILY_ACCESS) == {f.family for f in FAMILIES} - {Family.ARTIFACT}
    assert FAMILY[Family.ARTIFACT].access is None
    assert all(FAMILY_ACCESS[f.family] == f.access for f in FAMILIES if f.access is not None)


def test_every_package_level_family_has_a_document_builder(matrix_state: AppState) -> None:
    package_level = {f.family for f in FAMILIES} - {Family.CATALOG, Family.FRAMEWORK}
    assert set(matrix_state.resources._builders) == package_level


def test_every_family_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert all(f"`{f.template}`" in text for f in FAMILIES)
