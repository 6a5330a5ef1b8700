"""Delivery schema 1.1 decoding: every string-encoding rule, including near misses."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from kgfegmcp.core.errors import DeliveryPropertyDecodingError, JsonlParsingError
from kgfegmcp.packages.decoder import CHUNK_BYTES, decode_node, decode_relationship, iter_nodes, iter_physical_lines
from kgfegmcp.packages.encoder import node_wire, relationship_wire
from kgfegmcp.packages.records import ComponentNode, ItemNode, RelationshipRecord

UUID = "b8436bd2-daea-5d82-acd6-850e6d00bcf2"


def item_record(**properties: Any) -> dict[str, Any]:
    base = {
        "caseIdentifierUUID": UUID,
        "description": "Explore using certain culturally acceptable language for communication",
        "gradeLevel": '["3"]',
        "isCurrent": "true",
        "statementCode": "B3.1.6.1",
        "statementType": "Content Standard",
        "inLanguage": "en",
    }
    base.update(properties)
    return {"identifier": UUID, "labels": ["StandardsFrameworkItem"], "properties": base, "type": "node"}


def line(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode()


def decode_item(**properties: Any) -> ItemNode:
    node = decode_node(line(item_record(**properties)), "nodes", 7)
    assert isinstance(node, ItemNode)
    return node


def test_spec_example_decodes_to_typed_fields() -> None:
    node = decode_item()
    assert node.grade_level == ("3",)
    assert node.is_current is True
    assert node.statement_code == "B3.1.6.1"
    assert not hasattr(node, "properties") and not hasattr(node, "__dict__")


@pytest.mark.parametrize(("wire", "value"), [("true", True), ("false", False)])
def test_booleans_only_from_exact_strings(wire: str, value: bool) -> None:
    assert decode_item(isCurrent=wire).is_current is value


@pytest.mark.parametrize("near_miss", ["True", "FALSE", "1", "0", "yes", " true", "true ", "", True, 1, None, ["true"]])
def test_boolean_near_misses_are_rejected(near_miss: object) -> None:
    with pytest.raises(DeliveryPropertyDecodingError) as caught:
        decode_item(isCurrent=near_miss)
    assert caught.value.details == {"artifact": "nodes", "line": 7, "findingCode": "invalid_encoding"}
    assert "nodes line 7" in caught.value.public_message


@pytest.mark.parametrize(
    ("wire", "value"), [('["3"]', ("3",)), ('["K","1"]', ("K", "1")), ("[]", ()), ('[ "3" , "4" ]', ("3", "4"))]
)
def test_arrays_from_json_arrays_inside_strings(wire: str, value: tuple[str, ...]) -> None:
    assert decode_item(gradeLevel=wire).grade_level == value


@pytest.mark.parametrize(
    "near_miss",
    ['["3"', "3", '"3"', "[3]", '[""]', '["3","3"]', '{"a":1}', "null", ["3"], None, 3, '[["3"]]', "[null]"],
)
def test_array_near_misses_are_rejected(near_miss: object) -> None:
    with pytest.raises(DeliveryPropertyDecodingError):
        decode_item(gradeLevel=near_miss)


def test_unknown_properties_are_dropped_not_kept() -> None:
    node = decode_item(colour="blue", gradeLevelX='["9"]')
    assert "colour" not in repr(node) and "blue" not in repr(node)


def test_non_string_property_values_are_rejected() -> None:
    with pytest.raises(DeliveryPropertyDecodingError):
        decode_item(statementCode=12)


def test_missing_required_property_is_its_own_finding() -> None:
    record = item_record()
    del record["properties"]["description"]
    with pytest.raises(DeliveryPropertyDecodingError) as caught:
        decode_node(line(record), "nodes", 1)
    assert caught.value.details["findingCode"] == "missing_property"


@pytest.mark.parametrize(
    "labels",
    [[], ["Standard"], ["StandardsFrameworkItem", "LearningComponent"], ["StandardsFrameworkItem", "Extra"]],
)
def test_exactly_one_recognised_label(labels: list[str]) -> None:
    record = item_record()
    record["labels"] = labels
    with pytest.raises(DeliveryPropertyDecodingError) as caught:
        decode_node(line(record), "nodes", 1)
    assert caught.value.details["findingCode"] == "invalid_label"


@pytest.mark.parametrize(
    "raw",
    [
        b"{",
        b"",
        b"[]",
        b'"node"',
        b'{"identifier": "x"}',
        b"{} {}",
        line({**item_record(), "extra": 1}),
        line({**item_record(), "type": "relationship"}),
    ],
)
def test_malformed_lines_are_parsing_errors(raw: bytes) -> None:
    with pytest.raises(JsonlParsingError) as caught:
        decode_node(raw, "nodes", 3)
    assert caught.value.code == "jsonl_parsing_error"
    assert caught.value.details["line"] == 3


def test_invalid_utf8_is_a_decoding_error() -> None:
    with pytest.raises(DeliveryPropertyDecodingError) as caught:
        decode_node(line(item_record()).replace(b"Explore", b"Expl\xffre"), "nodes", 2)
    assert caught.value.code == "delivery_property_decoding_error"


def test_component_has_no_case_identity() -> None:
    record = {
        "identifier": "c1",
        "labels": ["LearningComponent"],
        "properties": {"description": "Count", "inLanguage": "en", "tags": '["a","b"]', "caseIdentifierUUID": UUID},
        "type": "node",
    }
    node = decode_node(line(record), "nodes", 1)
    assert isinstance(node, ComponentNode)
    assert node.tags == ("a", "b")
    assert not hasattr(node, "case_identifier_uuid")


def relationship(label: str = "supports", **properties: Any) -> dict[str, Any]:
    base = {
        "relationshipType": label,
        "sourceEntityKey": "identifier",
        "targetEntityKey": "caseIdentifierUUID",
        "supportConfidence": "0.75",
    }
    base.update(properties)
    return {
        "identifier": "r1",
        "label": label,
        "properties": base,
        "source_identifier": "c1",
        "source_labels": ["LearningComponent"],
        "target_identifier": UUID,
        "target_labels": ["StandardsFrameworkItem"],
        "type": "relationship",
    }


def test_relationship_decodes_keys_and_confidence() -> None:
    rel = decode_relationship(line(relationship()), "relationships", 1)
    assert rel.support_confidence == 0.75
    assert (rel.source_entity_key, rel.target_entity_key) == ("identifier", "caseIdentifierUUID")


@pytest.mark.parametrize("confidence", ["1.5", "-0.1", "0.5e0", "NaN", "", ".5", 0.5, None])
def test_support_confidence_near_misses(confidence: object) -> None:
    with pytest.raises(DeliveryPropertyDecodingError):
        decode_relationship(line(relationship(supportConfidence=confidence)), "relationships", 1)


def test_supports_without_confidence_is_missing_property() -> None:
    record = relationship()
    del record["properties"]["supportConfidence"]
    with pytest.raises(DeliveryPropertyDecodingError) as caught:
        decode_relationship(line(record), "relationships", 1)
    assert caught.value.details["findingCode"] == "missing_property"


@pytest.mark.parametrize(
    "change",
    [{"label": "isChildOf"}, {"properties": {"relationshipType": "hasChild"}}],
)
def test_relationship_labels(change: dict[str, Any]) -> None:
    record = relationship()
    if "properties" in change:
        record["properties"].update(change["properties"])
    else:
        record.update(change)
    with pytest.raises(DeliveryPropertyDecodingError) as caught:
        decode_relationship(line(record), "relationships", 1)
    assert caught.value.details["findingCode"] == "invalid_label"


def test_entity_key_must_be_known() -> None:
    with pytest.raises(DeliveryPropertyDecodingError):
        decode_relationship(line(relationship(sourceEntityKey="uuid")), "relationships", 1)


def test_encoder_and_decoder_round_trip() -> None:
    item = decode_item()
    again = decode_node(json.dumps(node_wire(item)).encode(), "nodes", 1)
    assert again == item
    rel = RelationshipRecord(
        "r",
        "buildsTowards",
        "a",
        "b",
        "StandardsFrameworkItem",
        "StandardsFrameworkItem",
        "caseIdentifierUUID",
        "caseIdentifierUUID",
    )
    assert decode_relationship(json.dumps(relationship_wire(rel)).encode(), "r", 1) == rel


def test_streaming_lines_and_line_numbers() -> None:
    data = b"".join(line(item_record()) + b"\n" for _ in range(3)) + b"{bad"
    chunks: list[bytes] = []
    numbered = list(iter_physical_lines(io.BytesIO(data), chunks.append))
    assert [n for n, _ in numbered] == [1, 2, 3, 4]
    assert b"".join(chunks) == data
    with pytest.raises(JsonlParsingError) as caught:
        list(iter_nodes(io.BytesIO(data), "nodes"))
    assert caught.value.details["line"] == 4


def test_a_line_over_the_bound_is_refused_once_it_is_that_long() -> None:
    """Gigabytes without a newline are never gathered into one line (quadratic), nor read to their end."""
    data = b"\0" * (8 * CHUNK_BYTES)
    chunks: list[bytes] = []
    with pytest.raises(JsonlParsingError) as caught:
        list(iter_physical_lines(io.BytesIO(data), chunks.append, artifact="nodes"))
    assert caught.value.details == {"artifact": "nodes", "line": 1, "findingCode": "invalid_json_line"}
    assert "longer than 1048576 bytes" in caught.value.message
    assert len(chunks) <= 2  # stopped as soon as the line was longer than the bound


def test_a_repeated_key_in_a_record_is_an_invalid_line() -> None:
    record = line(item_record())
    with pytest.raises(JsonlParsingError) as caught:
        decode_node(record.replace(b'{"identifier"', b'{"type": "node", "identifier"', 1), "nodes", 3)
    assert caught.value.details == {"artifact": "nodes", "line": 3, "findingCode": "invalid_json_line"}
    assert 'repeats the key "type"' in caught.value.message
