"""Packages in the shape the design's construction pipeline supplies, written from small content of our own.

The layout is the reference manifests' (``../shared/data/supplied-package-shape/``): the snapshot directory
``<framework>@<version>+<12 hex>`` (the hex from the pipeline's rule over the sorted checksums), manifest 1.1
with its artifact map, ``additionalArtifacts``, ``sha256:`` checksum map, counts, capabilities, framework
block, profile binding and validation state; delivery schema 1.2 lines (every property a string, the progression
links appended after the standards and components); the detailed standards, component and progression files;
and the 64 provenance shards with their index. Only the texts and ids are ours.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kgfegmcp.packages.encoder import node_wire, relationship_wire
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    HAS_CHILD,
    PROGRESSION_LABELS,
    RELATES_TO,
    SUPPORTS,
    ComponentNode,
    ItemNode,
    RelationshipRecord,
)
from kgfegmcp.packages.tree import PackageLocation
from package_factory import RIGHTS, FixtureGraph, FixtureWorld

PROFILE_VERSION = "2.0"
VERSION_TOKEN = "2026"
SHARDS = 64
CREATED_AT = "2026-10-01T23:43:27Z"
VALIDATED_AT = "2026-10-01T23:43:34Z"
LLM_AUTHOR = "LLM generated"
PROVIDER = "Fixture pipeline"
DESCRIPTIONS = {
    HAS_CHILD: "A hasChild relationship links a parent framework/item to a child standards item.",
    SUPPORTS: "A supports relationship links a learning component to the standards item it was decomposed from.",
    BUILDS_TOWARDS: "A buildsTowards relationship indicates that mastery of the source supports success on the target.",
    RELATES_TO: "A relatesTo relationship indicates conceptual or skill coherence without sequence or dependency.",
}


def _line(document: Any) -> bytes:
    return (json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def _document(document: Any) -> bytes:
    return _line(document)


def shard_of(relationship_id: str) -> int:
    return hashlib.sha256(relationship_id.encode("utf-8")).digest()[0] % SHARDS


def _snapshot_digest(checksums: dict[str, str]) -> str:
    """The pipeline's snapshot suffix: SHA-256 over the sorted ``sha256:<hex>`` checksums, one per line."""
    joined = "".join(f"{value}\n" for value in sorted(checksums.values()))
    return hashlib.sha256(joined.encode()).hexdigest()[:12]


def _statement_type(name: str, role: str, parents: list[str], max_count: int | None) -> dict[str, Any]:
    return {
        "aliases": [],
        "allowedParents": [{"maxCount": max_count, "minCount": 0, "parentStatementType": p} for p in parents],
        "controlledValues": [],
        "description": f"The fixture's {name} level.",
        "identityScope": [],
        "isGraphNode": True,
        "normalizedStatementType": role,
        "sourceStatementType": name,
    }


def pipeline_profile_document(framework_id: str) -> dict[str, Any]:
    """A complete profile in the pipeline's schema (1.1) for the fixture graphs: Domain → Cluster → Standard,
    a Standard under a Cluster, a Domain or (in the DAG fixture) both. The pipeline's single-parent rule bounds
    a type's parents to one in all, which cannot say "one parent, a Domain or a Cluster", so the fixtures'
    profile allows several (as the pipeline's CBSE profile does)."""
    standard = _statement_type("Standard", "Standard", ["Domain", "Cluster"], None)
    return {
        "codeSearchPolicy": {
            "allowPrefixSearch": True,
            "availability": "complete",
            "canonicalizationNotes": [],
            "caseSensitive": False,
            "codeParentRules": [],
            "codeTypes": [
                {
                    "codeType": "standard",
                    "patterns": ["\\b[A-Z]+(\\.[A-Z0-9]+)+\\b"],
                    "scopeStatementTypes": [],
                    "statementTypes": ["Standard"],
                }
            ],
            "codesAreUniqueIdentifiers": True,
            "prefixDelimiters": ["."],
            "punctuationNormalization": False,
            "whitespaceNormalization": True,
        },
        "comparisonDimensions": ["wording", "scope"],
        "educationStageMappings": [],
        "frameworkIds": [framework_id],
        "gradeLevelStatementTypes": [],
        "gradeMappings": [
            {"aliases": [f"Grade {n}", f"G{n}"], "localLabel": f"YEAR {n}", "normalizedGrades": [str(n)]}
            for n in (1, 2, 3)
        ],
        "hierarchy": {
            "allowMultiParent": True,
            "relationshipType": "hasChild",
            "rootStatementTypes": ["Domain"],
            "statementTypeOrder": ["Domain", "Cluster", "Standard"],
        },
        "knownSourceAnomalies": [
            {
                "anomalyId": "fixture_anomaly",
                "description": "The fixture's known anomaly.",
                "requiredDisclosure": "Some fixture relationships are the test suite's own.",
            }
        ],
        "languagePolicy": {
            "allowBilingualPairing": False,
            "languages": ["en"],
            "notes": [],
            "preserveSourceTerminology": True,
        },
        "localSubject": "Mathematics",
        "normalizedSubjects": ["Mathematics"],
        "profileId": framework_id,
        "profileSchemaVersion": "1.1",
        "profileVersion": PROFILE_VERSION,
        "requiredDisclosures": ["Normalized grades are retrieval facets and do not establish grade equivalence."],
        "rights": dict(RIGHTS),
        "sourceRoleCapabilities": {
            "hasOfficialActivities": False,
            "hasOfficialAssessmentGuidance": False,
            "hasOfficialResources": False,
            "roleNotes": [],
        },
        "statementTypes": [
            _statement_type("Domain", "Standard Grouping", [], None),
            _statement_type("Cluster", "Standard Grouping", ["Domain"], 1),
            standard,
        ],
        "subjectAliases": [],
        "subjectMappingNote": None,
        "subjectMappingStatus": "mapped",
        "subjectVocabulary": {
            "unmatchedValue": "Other",
            "values": ["Mathematics", "Other"],
            "vocabularyId": "learning-commons-academic-subject",
            "vocabularyVersion": "2026-07-21",
        },
    }


class SuppliedPackageWriter:
    """Writes one fixture graph as a supplied package (and its profile, bound by the SHA-256 of its bytes)."""

    def __init__(self, world: FixtureWorld) -> None:
        self.world = world

    def profile(self, framework_id: str) -> str:
        """The fixture frameworks' profile in the pipeline's own format and layout
        (``<profiles>/<id>/2.0/profile.json``, tab-indented, sorted keys), bound by the SHA-256 of its bytes."""
        document = pipeline_profile_document(framework_id)
        path = self.world.profiles_root / framework_id / PROFILE_VERSION / "profile.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes((json.dumps(document, indent="\t", sort_keys=True, ensure_ascii=False) + "\n").encode())
        return hashlib.sha256(path.read_bytes()).hexdigest()

    def write(self, graph: FixtureGraph, profile_sha256: str) -> PackageLocation:
        fid = graph.framework_id
        files: dict[str, bytes] = {}
        artifacts: dict[str, Any] = {}

        def put(role: str | None, path: str, data: bytes) -> None:
            files[path] = data
            if role is not None:
                artifacts[role] = path

        progression = [r for r in graph.relationships if r.label in PROGRESSION_LABELS]
        standards = [r for r in graph.relationships if r.label not in PROGRESSION_LABELS]
        nodes = [graph.framework, *graph.items, *graph.components]
        put("nodes", f"delivery/as_lc_lp_nodes_{fid}.jsonl", b"".join(_line(self._node(n)) for n in nodes))
        lines = [self._relationship(graph, r) for r in standards]
        lines += [self._relationship(graph, r) for r in sorted(progression, key=lambda r: (r.label, r.identifier))]
        put("relationships", f"delivery/as_lc_lp_relationships_{fid}.jsonl", b"".join(_line(x) for x in lines))
        self._standards_files(graph, put)
        if graph.components:
            self._component_files(graph, put)
        includes = ["academic_standards", *(["learning_components"] if graph.components else [])]
        additional: dict[str, str] = {}
        if progression:
            includes.append("learning_progressions")
            additional = self._progression_files(graph, progression, put, files)
        if additional:
            artifacts["additionalArtifacts"] = additional
        checksums = {path: "sha256:" + hashlib.sha256(data).hexdigest() for path, data in files.items()}
        snapshot = f"{fid}@{VERSION_TOKEN}+{_snapshot_digest(checksums)}"
        manifest = self._manifest(graph, snapshot, artifacts, checksums, includes, profile_sha256)
        directory = self.world.packages / fid / snapshot
        for path, data in {**files, "package_manifest.json": _manifest_bytes(manifest)}.items():
            target = directory / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return PackageLocation(fid, snapshot, directory)

    # -- delivery 1.2 --------------------------------------------------------------------------------------

    @staticmethod
    def _node(node: Any) -> dict[str, Any]:
        wire = node_wire(node)
        # What the pipeline's lines carry beyond the typed properties (the decoder keeps none of it).
        wire["properties"]["identifier"] = node.identifier
        if isinstance(node, ComponentNode):
            wire["properties"]["identityKey"] = f"lc:curriculum:fixture:framework:{node.identifier.replace('-', '')}"
            wire["properties"]["author"] = LLM_AUTHOR
        if isinstance(node, ItemNode):
            wire["properties"]["adoptionStatus"] = "Adopted"
            # As the pipeline delivers items: the Learning Commons classification, not the profile's facet.
            wire["properties"]["normalizedStatementType"] = (
                "Standard" if node.statement_type == "Standard" else "Standard Grouping"
            )
        return wire

    @staticmethod
    def _relationship(graph: FixtureGraph, rel: RelationshipRecord) -> dict[str, Any]:
        wire = relationship_wire(rel)
        properties = wire["properties"]
        if "unresolvedStatus" in properties:
            properties["resolutionStatus"] = properties.pop("unresolvedStatus")
        source, target = graph.node(rel.source_identifier), graph.node(rel.target_identifier)
        properties.update(
            identifier=rel.identifier,
            description=DESCRIPTIONS[rel.label],
            sourceEntity=source.label,
            targetEntity=target.label,
            sourceEntityValue=getattr(source, "case_identifier_uuid", source.identifier),
            targetEntityValue=getattr(target, "case_identifier_uuid", target.identifier),
            provider=PROVIDER,
            author=LLM_AUTHOR if rel.label != HAS_CHILD else graph.framework.name,
            license=RIGHTS["sourceLicense"],
        )
        return wire

    # -- detailed files ------------------------------------------------------------------------------------

    @staticmethod
    def _snake(node: Any) -> dict[str, Any]:
        fields = {name: getattr(node, name) for name in node.__slots__}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}

    def _standards_files(self, graph: FixtureGraph, put: Any) -> None:
        framework = {**self._snake(graph.framework), "metadata": {"pdf_name": "fixture.pdf"}}
        items = [{**self._snake(i), "metadata": {"source_page_indexes": [n]}} for n, i in enumerate(graph.items)]
        has_child = [
            {
                "identifier": r.identifier,
                "relationship_type": HAS_CHILD,
                "source_entity": r.source_label,
                "source_entity_key": "case_identifier_uuid",
                "source_entity_value": r.source_identifier,
                "target_entity": r.target_label,
                "target_entity_key": "case_identifier_uuid",
                "target_entity_value": r.target_identifier,
                "metadata": {"confidence": 0.97},
            }
            for r in graph.relationships
            if r.label == HAS_CHILD
        ]
        unresolved = {"finalization_exclusion_summary": {}, "relationship_unresolved_edges": []}
        put("standardsFramework", "detailed/as_standards_framework.json", _document(framework))
        put("standardsFrameworkItems", "detailed/as_standards_framework_items.jsonl", b"".join(map(_line, items)))
        put("relationshipsHasChild", "detailed/as_relationships_has_child.jsonl", b"".join(map(_line, has_child)))
        put(
            "academicStandardsBundle",
            "detailed/as_kg_bundle.json",
            _document({"framework": framework, "items": items, "relationships_has_child": has_child}),
        )
        put(
            "entityProvenance",
            "detailed/as_entity_provenance.json",
            _document(
                {
                    "framework": {
                        "case_identifier_uuid": graph.framework.case_identifier_uuid,
                        "pdf_name": "fixture.pdf",
                    },
                    "items": {i.identifier: {"source_page_indexes": [n]} for n, i in enumerate(graph.items)},
                    "relationships_has_child": {
                        r["identifier"]: {"relationship_type": HAS_CHILD, "metadata": r["metadata"]} for r in has_child
                    },
                    # The run's own record beside the entities' (an object of objects naming no entity).
                    "kg_run_manifest": {"inputs": {"fixture.pdf": {"pages": 1}}, "outputs": {"items": {"count": 0}}},
                }
            ),
        )
        put("unresolvedItems", "detailed/as_unresolved_items.json", _document(unresolved))
        report = {"errors": [], "passed": True, "validation_checks": ["as_bundle_validation_gate"], "object_counts": {}}
        put("validationReport", "detailed/as_lc_validation_report.json", _document(report))

    def _component_files(self, graph: FixtureGraph, put: Any) -> None:
        supports = [r for r in graph.relationships if r.label == SUPPORTS]
        put(
            "learningComponentsBundle",
            "detailed/as_lc_kg_bundle.json",
            _document({"learning_components": [self._snake(c) for c in graph.components], "supports": len(supports)}),
        )
        put(
            "learningComponentProvenance",
            "detailed/lc_entity_provenance.json",
            _document(
                {"learning_components": {c.identifier: {"description": c.description} for c in graph.components}}
            ),
        )
        put(
            "learningComponentSummary",
            "detailed/lc_generation_summary.json",
            _document({"total_lcs": len(graph.components)}),
        )
        put("learningComponentDedupGroups", "detailed/lc_dedup_groups.json", _document({"groups": []}))

    def _progression_files(
        self, graph: FixtureGraph, links: list[RelationshipRecord], put: Any, files: dict[str, bytes]
    ) -> dict[str, str]:
        provenance: dict[str, Any] = {}
        for n, rel in enumerate(sorted(links, key=lambda r: r.identifier)):
            provenance[rel.identifier] = {
                "approved_by": PROVIDER,
                "claim": {
                    "judgment": {
                        "confidence": round(0.55 + 0.1 * (n % 5), 2),
                        "decision": rel.label,
                        "direction": "first_to_second" if rel.label == BUILDS_TOWARDS else None,
                        "rationale": f"Fixture rationale {n}: the two statements share a skill.",
                        "warnings": [],
                    },
                    "source_sfi_uuid": rel.source_identifier,
                    "target_sfi_uuid": rel.target_identifier,
                },
                "model_configuration": {"model": "fixture:model"},
            }
        for label, role, path in (
            (BUILDS_TOWARDS, "learningProgressionBuildsTowards", "detailed/lp_relationships_builds_towards.jsonl"),
            (RELATES_TO, "learningProgressionRelatesTo", "detailed/lp_relationships_relates_to.jsonl"),
        ):
            lines = [
                {
                    "identifier": r.identifier,
                    "relationship_type": label,
                    "source_entity": "StandardsFrameworkItem",
                    "source_entity_key": "case_identifier_uuid",
                    "source_entity_value": r.source_identifier,
                    "target_entity": "StandardsFrameworkItem",
                    "target_entity_key": "case_identifier_uuid",
                    "target_entity_value": r.target_identifier,
                    "author": LLM_AUTHOR,
                    "provider": PROVIDER,
                    "metadata": provenance[r.identifier],
                }
                for r in sorted(links, key=lambda r: r.identifier)
                if r.label == label
            ]
            put(role, path, b"".join(map(_line, lines)))
        provenance_bytes = _document(provenance)
        put("learningProgressionProvenance", "detailed/lp_relationship_provenance.json", provenance_bytes)
        additional: dict[str, str] = {}
        partitions: dict[str, Any] = {}
        for shard in range(SHARDS):
            name = f"learningProgressionProvenanceShard{shard:02d}"
            path = f"additional/lp_relationship_provenance_shard_{shard:02d}.json"
            entries = {rid: entry for rid, entry in provenance.items() if shard_of(rid) == shard}
            data = _document(entries)
            put(None, path, data)
            additional[name] = path
            partitions[name] = {
                "artifactPath": path,
                "entryCount": len(entries),
                "sha256": "sha256:" + hashlib.sha256(data).hexdigest(),
            }
        index = {
            "formatVersion": "1.0",
            "originalProvenanceLogicalName": "learningProgressionProvenance",
            "originalProvenanceSha256": "sha256:" + hashlib.sha256(provenance_bytes).hexdigest(),
            "partitionAlgorithm": "SHA256(UTF8(relationship_id))[0] modulo 64",
            "partitionCount": SHARDS,
            "partitions": partitions,
        }
        put("learningProgressionProvenanceIndex", "detailed/lp_relationship_provenance_index.json", _document(index))
        counts = {
            "buildsTowards": sum(r.label == BUILDS_TOWARDS for r in links),
            "relatesTo": sum(r.label == RELATES_TO for r in links),
        }
        put(
            "learningProgressionFinalClaims",
            "detailed/lp_final_claims.json",
            _document({"claims": list(provenance.values())}),
        )
        put("learningProgressionSummary", "detailed/lp_generation_summary.json", _document({"decision_counts": counts}))
        put(
            "learningProgressionUnresolved",
            "detailed/lp_unresolved_items.json",
            _document({"claims": [], "total_needs_review": 0}),
        )
        put(
            "learningProgressionValidation",
            "detailed/lp_validation_report.json",
            _document({"errors": [], "passed": True}),
        )
        outputs = {path: "sha256:" + hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())}
        put(
            "learningProgressionNormalization",
            "detailed/lp_normalization_receipt.json",
            _document(
                {
                    "buildsTowardsRelationships": counts["buildsTowards"],
                    "formatVersion": "1.0",
                    "frameworkId": graph.framework_id,
                    "outputSha256": outputs,
                    "relatesToRelationships": counts["relatesTo"],
                }
            ),
        )
        return additional

    # -- manifest ------------------------------------------------------------------------------------------

    @staticmethod
    def _manifest(
        graph: FixtureGraph,
        snapshot: str,
        artifacts: dict[str, Any],
        checksums: dict[str, str],
        includes: list[str],
        profile_sha256: str,
    ) -> dict[str, Any]:
        rels = graph.relationships
        parents: dict[str, int] = {}
        for r in rels:
            if r.label == HAS_CHILD:
                parents[r.target_identifier] = parents.get(r.target_identifier, 0) + 1
        coded = sum(1 for i in graph.items if i.statement_code)
        unresolved = sum(1 for r in rels if r.unresolved_status)
        framework = graph.framework
        grades = sorted({g for i in graph.items for g in i.grade_level})
        return {
            "artifacts": artifacts,
            "capabilities": {
                "codeSearch": "none" if not coded else "complete" if coded == len(graph.items) else "partial",
                "hasDetailedProvenance": True,
                "hasLearningProgressionProvenance": "learning_progressions" in includes,
                "hasLearningProgressions": "learning_progressions" in includes,
                "hasOfficialActivities": False,
                "hasOfficialAssessmentGuidance": False,
                "hasUnresolvedRelationships": bool(unresolved),
                "multiParent": any(n > 1 for n in parents.values()),
                "textSearch": True,
            },
            "checksums": checksums,
            "counts": {
                "additionalCounts": {
                    "codedItems": coded,
                    "multiParentTargets": sum(1 for n in parents.values() if n > 1),
                    "unresolvedRelationships": unresolved,
                },
                "buildsTowardsRelationships": sum(r.label == BUILDS_TOWARDS for r in rels),
                "frameworkNodes": 1,
                "itemNodes": len(graph.items),
                "learningComponentNodes": len(graph.components),
                "relatesToRelationships": sum(r.label == RELATES_TO for r in rels),
                "relationships": len(rels),
                "supportsRelationships": sum(r.label == SUPPORTS for r in rels),
            },
            "createdAt": CREATED_AT,
            "deliverySchemaVersion": "1.2",
            "framework": {
                "adoptionStatus": "Adopted",
                "isCurrent": True,
                "issuingAuthority": "Fixture Curriculum Authority",
                "jurisdiction": framework.jurisdiction,
                "jurisdictionType": "country",
                "languages": [framework.in_language],
                "localGradesOrStages": grades,
                "localSubject": framework.academic_subject,
                "name": framework.name,
                "normalizedGrades": grades,
                "normalizedSubjects": [framework.academic_subject],
                "provider": PROVIDER,
                "sourceDocumentSha256": None,
                "sourcePublicationDate": None,
                "sourceVersion": VERSION_TOKEN,
                "subjectMappingNote": None,
                "subjectMappingStatus": "mapped",
            },
            "frameworkId": graph.framework_id,
            "graphPackageId": f"{snapshot}--academic-standards--p1",
            "graphType": "academic_standards",
            "includedGraphTypes": includes,
            "manifestVersion": "1.1",
            "packageRevision": 1,
            "profile": {
                "profileId": graph.framework_id,
                "profileVersion": PROFILE_VERSION,
                "sha256": f"sha256:{profile_sha256}",
            },
            "rights": dict(RIGHTS),
            "snapshotId": snapshot,
            "snapshotRelations": [],
            "sourceSchemaVersion": "1.0",
            "validation": {"status": "passed", "validatedAt": VALIDATED_AT},
        }


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """As the reference manifests are written: sorted keys, two-space indent, UTF-8, a final newline."""
    return (json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
