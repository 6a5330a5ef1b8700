"""A package served at a million items: relationships as columns, shared values, streamed validation."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from corrupt import error_codes, rewrite_bytes

from kgfegmcp.core.config import InvalidPackagePolicy
from kgfegmcp.derived.content_codec import decode_content, encode_content
from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.lifecycle import PackageLifecycle
from kgfegmcp.packages.records import RELATIONSHIP_LABELS, ItemNode, RelationshipRecord
from kgfegmcp.packages.relationship_table import RelationshipColumns, RelationshipTable
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator
from kgfegmcp.packages.writer import PackageWriter
from package_factory import LC, FixtureWorld, state_for


def _validated(validator: PackageValidator, location: PackageLocation) -> list[RelationshipRecord]:
    outcome = validator.validate(location)
    assert outcome.passed and outcome.content is not None
    return list(outcome.content.relationships)


def test_the_table_gives_back_every_record_and_finds_each_by_id(
    validator: PackageValidator, built: dict[str, PackageLocation]
) -> None:
    outcome = validator.validate(built[LC])
    content = outcome.content
    assert content is not None
    records = list(content.relationships)
    table = RelationshipTable.from_records(records, content.node_ids())
    assert len(table) == len(records) and list(table) == records and table[-1] == records[-1]
    assert table[1:3] == records[1:3]
    for position, record in enumerate(records):
        assert table.position(record.identifier) == position
        assert table.label_at(position) == record.label
    assert table.position("no-such-relationship") is None
    assert table.position(records[0].identifier + "x") is None
    assert {record.support_confidence for record in table} == {r.support_confidence for r in records}
    by_label = table.positions_by_label()
    assert set(by_label) == set(RELATIONSHIP_LABELS)
    assert sorted(p for positions in by_label.values() for p in positions) == list(range(len(records)))
    with pytest.raises(IndexError):
        table[len(records)]


def test_stored_columns_round_trip_and_refuse_parts_that_do_not_fit(
    validator: PackageValidator, built: dict[str, PackageLocation]
) -> None:
    content = validator.validate(built[LC]).content
    assert content is not None
    table = RelationshipTable.of(content)
    parts = table.columns.to_parts()
    again = RelationshipTable(RelationshipColumns.from_parts(parts), content.node_ids())
    assert list(again) == list(table)
    shortened = (parts[0], parts[1], parts[2], parts[3][:-1], *parts[4:])
    with pytest.raises(ValueError, match="length"):
        RelationshipColumns.from_parts(shortened)
    unknown_shape = (*parts[:3], b"\xff" * len(parts[3]), *parts[4:])
    with pytest.raises(ValueError, match="shape"):
        RelationshipColumns.from_parts(unknown_shape)
    with pytest.raises(ValueError, match="outside"):
        RelationshipTable(RelationshipColumns.from_parts(parts), content.node_ids()[:2])
    decoded = decode_content(encode_content(content))
    assert isinstance(decoded.relationships, RelationshipTable)
    assert list(decoded.relationships) == list(content.relationships)


def test_a_warm_start_builds_no_relationship_record_and_shares_repeated_values(
    world: FixtureWorld, built: dict[str, PackageLocation], tmp_path: Path
) -> None:
    lifecycle = PackageLifecycle(PackageValidator(world.profiles()), PackageWriter(), InvalidPackagePolicy.FAIL)
    for location in built.values():
        assert lifecycle.validate(location).accepted
    state_for(world, cache_dir=tmp_path / "cache")  # cold: fills the derived-index cache
    gc.collect()
    before = sum(isinstance(o, RelationshipRecord) for o in gc.get_objects())
    state = state_for(world, cache_dir=tmp_path / "cache")
    gc.collect()
    after = sum(isinstance(o, RelationshipRecord) for o in gc.get_objects())
    assert after == before  # served from columns: a record exists only while a request reads it
    package = state.catalog.resolve(LC)
    assert isinstance(package.store.relationships, RelationshipTable)
    items: tuple[ItemNode, ...] = package.store.items
    assert len({id(item.in_language) for item in items}) == 1
    assert len({id(item.statement_type) for item in items}) == len({item.statement_type for item in items})
    assert all(
        item.case_identifier_uuid is item.identifier for item in items if item.case_identifier_uuid == item.identifier
    )


def test_validation_streams_the_bundle_and_entity_provenance(
    validator: PackageValidator, built: dict[str, PackageLocation], monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = ArtifactReader.document

    def refuse_growing(self: ArtifactReader, logical_name: str) -> object:
        assert logical_name not in ("academicStandardsBundle", "entityProvenance"), f"{logical_name} parsed whole"
        return whole(self, logical_name)

    monkeypatch.setattr(ArtifactReader, "document", refuse_growing)
    for location in built.values():
        assert validator.validate(location).passed


def test_a_repeated_streamed_member_or_entity_is_a_finding(
    validator: PackageValidator, built: dict[str, PackageLocation]
) -> None:
    location = built[LC]
    rewrite_bytes(location, "academicStandardsBundle", lambda data: data.rstrip()[:-1] + b',"items":[]}\n')
    assert "detailed_artifact_mismatch" in error_codes(validator.validate(location).findings)

    def repeat_first_entity(data: bytes) -> bytes:
        start = data.index(b'"entities":{') + len(b'"entities":{')
        end = data.index(b"}}", start) + 2  # the first entry: its record closes with its locator
        return data[:start] + data[start:end] + b"," + data[start:]

    rewrite_bytes(location, "entityProvenance", repeat_first_entity)
    findings = validator.validate(location).findings
    assert any("repeat within entities" in f.message for f in findings)


def test_bundle_items_out_of_order_are_still_found(
    validator: PackageValidator, built: dict[str, PackageLocation]
) -> None:
    location = built[LC]
    content = validator.validate(location).content
    assert content is not None
    first, second = (item.case_identifier_uuid.encode() for item in content.items[:2])
    rewrite_bytes(
        location,
        "academicStandardsBundle",
        lambda data: data.replace(first, b"\x00").replace(second, first).replace(b"\x00", second),
    )
    assert "detailed_artifact_mismatch" in error_codes(validator.validate(location).findings)
