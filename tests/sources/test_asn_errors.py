"""What the ASN importer refuses, and how it says so: ``manifest_build_error`` with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest
from asn_fixtures import GEMQ, MRAC, build, mrac_mathematics, write_jsonld, write_rdfxml

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.sources import load_importer
from kgfegmcp.sources.asn.document import MAX_INPUT_BYTES


def _refused(path: Path | None, profiles_root: Path) -> ManifestBuildError:
    with pytest.raises(ManifestBuildError) as raised:
        if path is None:
            from kgfegmcp.profiles.repository import ProfileRepository

            load_importer("asn").build(None, ProfileRepository(profiles_root))
        else:
            build(path, profiles_root)
    assert raised.value.code == "manifest_build_error"
    return raised.value


def test_no_input_and_a_missing_file(tmp_path: Path, profiles_root: Path) -> None:
    assert "needs an ASN document file" in _refused(None, profiles_root).message
    assert "MISSING.rdf is not a readable file" in _refused(tmp_path / "MISSING.rdf", profiles_root).message


def test_a_file_over_the_memory_bound_is_refused_before_it_is_read(tmp_path: Path, profiles_root: Path) -> None:
    """rdflib holds a document at many times its size: past the cap a build would pass 1 GiB."""
    path = tmp_path / "huge.jsonld"
    with path.open("wb") as handle:
        handle.truncate(MAX_INPUT_BYTES + 1)  # sparse: the size is what is checked, before a byte is read
    refused = _refused(path, profiles_root)
    assert "huge.jsonld exceeds 48 MiB" in refused.message
    assert "its own file" in (refused.hint or "")


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("math.ttl", "@prefix asn: <http://purl.org/ASN/schema/core/> .\n", "is neither RDF/XML nor JSON-LD"),
        ("empty.rdf", "  \n", "(it is empty)"),
        ("cut.rdf", '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description', "as RDF/XML"),
        ("cut.jsonld", '[{"@graph": [', "cannot be read as JSON-LD"),
    ],
)
def test_unreadable_or_unknown_formats(tmp_path: Path, profiles_root: Path, name: str, text: str, said: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    error = _refused(path, profiles_root)
    assert said in error.message and name in error.message
    assert error.hint


def test_a_file_without_statements(tmp_path: Path, profiles_root: Path) -> None:
    nodes = {MRAC + "thing": [("http://www.w3.org/2004/02/skos/core#prefLabel", ("lit", "Not a statement", "en"))]}
    error = _refused(write_rdfxml(tmp_path / "none.rdf", nodes), profiles_root)
    assert "none.rdf holds no asn:Statement (1 triples read)" in error.message


def test_a_parent_cycle(tmp_path: Path, profiles_root: Path) -> None:
    nodes = mrac_mathematics()
    # the Number strand is placed under one of its own content descriptions
    strand = nodes[MRAC + "LA/MAT/st3n"]
    strand.remove((GEMQ + "isChildOf", ("iri", MRAC + "LA/MAT/lv3")))
    strand.append((GEMQ + "isChildOf", ("iri", MRAC + "LA/MAT/cd31")))
    error = _refused(write_jsonld(tmp_path / "cycle.jsonld", nodes), profiles_root)
    assert "form a cycle" in error.message
    assert "MATMATY3_1NUM" in error.message and "AC9M3N01" in error.message


def test_a_remote_json_ld_context_is_refused_not_fetched(tmp_path: Path, profiles_root: Path) -> None:
    path = tmp_path / "remote.jsonld"
    path.write_text(
        '{"@graph": [{"@context": ["https://example.org/asn.jsonld"], "@id": "http://example.org/s1"}]}',
        encoding="utf-8",
    )
    refused = _refused(path, profiles_root)
    assert "remote JSON-LD @context" in refused.message and "embed its context" in (refused.hint or "")
