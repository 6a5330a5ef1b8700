"""A validated graph package written back out as a 1EdTech CASE ``CFPackage`` document.

Registry data files are checksum-verified against their wheel, so a test cannot change one row of
them; it can export a real package as a CASE file (a source format the project builds from), change
one row of that file and build it through the real CASE importer. The export is the inverse of
the mapping of ``sources/case/``: items → CFItems, hasChild → isChildOf (child → parent), buildsTowards
→ precedes, relatesTo → isRelatedTo. Learning components have no CASE counterpart and are left out.
"""

from __future__ import annotations

from typing import Any

from kgfegmcp.packages.records import BUILDS_TOWARDS, HAS_CHILD, RELATES_TO
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator

ASSOCIATION_TYPES = {HAS_CHILD: "isChildOf", BUILDS_TOWARDS: "precedes", RELATES_TO: "isRelatedTo"}


def export_case_package(location: PackageLocation, validator: PackageValidator) -> dict[str, Any]:
    """The CFPackage of a package that passed the gate, items and associations in package order."""
    outcome = validator.verify_recorded_pass(location)
    assert outcome.passed and outcome.content is not None and outcome.content.framework is not None
    framework, content = outcome.content.framework, outcome.content
    document_ref = {"identifier": framework.case_identifier_uuid, "title": framework.name}
    items: list[dict[str, Any]] = []
    refs: dict[str, dict[str, str]] = {framework.identifier: document_ref}
    for item in content.items:
        record: dict[str, Any] = {
            "identifier": item.case_identifier_uuid,
            "fullStatement": item.description,
            "CFItemType": item.statement_type,
            "educationLevel": list(item.grade_level),
            "language": item.in_language,
        }
        if item.statement_code is not None:
            record["humanCodingScheme"] = item.statement_code
        if item.notes is not None:
            record["notes"] = item.notes
        items.append(record)
        refs[item.identifier] = {"identifier": item.case_identifier_uuid, "title": item.description[:60]}
    associations = []
    for rel in content.relationships:
        kind = ASSOCIATION_TYPES.get(rel.label)
        if kind is None or rel.unresolved_status is not None:
            continue  # supports has no CASE counterpart; a root fallback is the adapter's to re-derive
        origin, destination = (
            (rel.target_identifier, rel.source_identifier)
            if rel.label == HAS_CHILD
            else (rel.source_identifier, rel.target_identifier)
        )
        associations.append(
            {
                "identifier": rel.identifier,
                "associationType": kind,
                "originNodeURI": refs[origin],
                "destinationNodeURI": refs[destination],
            }
        )
    return {
        "CFDocument": {
            "identifier": framework.case_identifier_uuid,
            "title": framework.name,
            "creator": framework.author or framework.jurisdiction,
            "language": framework.in_language,
            "subject": [framework.academic_subject],
        },
        "CFItems": items,
        "CFAssociations": associations,
    }


def one_standard_package(code: str = "PS.1", title: str = "Example Science Standards") -> dict[str, Any]:
    """The smallest CFPackage the CASE importer builds: a document, a domain, and one grade-01 standard
    coded ``code`` under it (``packages build --source case`` names it after ``title``)."""
    document, domain, standard = (f"9a1c0000-0000-4000-8000-0000000000{n}" for n in ("01", "10", "20"))

    def child(identifier: str, origin: str, destination: str) -> dict[str, Any]:
        return {
            "identifier": identifier,
            "associationType": "isChildOf",
            "originNodeURI": {"identifier": origin},
            "destinationNodeURI": {"identifier": destination},
        }

    return {
        "CFDocument": {
            "identifier": document,
            "creator": "Example Board",
            "title": title,
            "lastChangeDateTime": "2024-03-01T10:00:00Z",
            "version": "1.0",
            "language": "en",
            "subject": ["Science"],
            "licenseURI": {"title": "CC BY 4.0", "identifier": "lic-1", "uri": "https://case.example/lic/1"},
        },
        "CFItems": [
            {"identifier": domain, "fullStatement": "Physical Science", "CFItemType": "Domain"},
            {
                "identifier": standard,
                "fullStatement": "Describe the properties of matter.",
                "humanCodingScheme": code,
                "CFItemType": "Standard",
                "educationLevel": ["01"],
            },
        ],
        "CFAssociations": [child("a1", domain, document), child("a2", standard, domain)],
    }
