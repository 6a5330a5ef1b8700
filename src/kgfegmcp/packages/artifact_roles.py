"""Every artifact a graph package may declare, each role declared once (spec: graph-package-format.md).

A role says where its file is in the package, its media type, what reading it needs (its access
class), what its bytes are epistemically (its labels) and when a package declares it. The writer
writes these files, the manifest contract accepts these logical names, the validator requires them
and the resource layer gates and labels them: each reads this table, none restates it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal

from kgfegmcp.core.epistemic import EpistemicLabel

#: What reading a resource exposes, gated by the package's rights; the one type of every access class, in the
#: order the published ``accessClass`` enum lists them. The artifact roles use three (``standard_resource`` is
#: the class of the resource layer's per-entity families, and of an additional artifact exposed as one).
AccessClass = Literal["public_metadata", "full_text", "standard_resource", "bulk_content"]
#: When a package declares a role: always; exactly when it has learning components
#: (``counts.learningComponents.components > 0``; a package without any declares none of them); for the
#: 64 provenance parts, all of them or none (the spec's package tree draws none: they are an index of
#: ``entityProvenance`` that this server's builder adds, so one entity's provenance is read without the whole);
#: or exactly when a supplied package includes learning progressions (its link artifacts and their 64 shards).
Requirement = Literal["always", "with_components", "all_or_none", "with_progressions"]
#: A package's shape is its manifest's version: ``1.0`` as this server's builder writes it, ``1.1`` as the
#: design's construction pipeline supplies it (docs/packages.md).
PackageShape = Literal["1.0", "1.1"]

JSON: Final = "application/json"
JSONL: Final = "application/x-ndjson"

#: How many checked parts both provenance documents are split into (part = first byte of SHA-256(id) mod 64).
PROVENANCE_PARTS: Final = 64

#: How many shards a supplied package splits its progression links' provenance into (the pipeline's count).
PROGRESSION_SHARDS: Final = 64

#: ``{subject}`` in a path stands for the package's subject slug.
_SUBJECT = "{subject}"


@dataclass(frozen=True, slots=True)
class ArtifactRole:
    """One artifact a package declares: its logical name and path, and what serving it needs and says."""

    logical_name: str
    path: str
    media_type: str
    access_class: AccessClass
    labels: tuple[EpistemicLabel, ...]
    requirement: Requirement = "always"
    #: Its content includes the package's learning components, so it adds the label their generation
    #: summary gives them to its own.
    carries_components: bool = False
    #: The generic ``artifact`` resource family serves it by logical name (the parts have a family of their own).
    by_logical_name: bool = True
    #: A validation report: the validator records each verdict in it (``recording.py``).
    records_validation: bool = False
    #: The role's key in a supplied manifest (``artifacts`` map, or ``additionalArtifacts`` when ``additional``)
    #: where it is not its logical name (a role whose ``shapes`` lack ``1.1`` has none).
    supplied_name: str | None = None
    #: Which shapes hold the role.
    shapes: frozenset[PackageShape] = frozenset({"1.0", "1.1"})
    #: Declared among a supplied manifest's ``additionalArtifacts``: served only because this table is its
    #: exposure contract (an additional artifact the table does not name is never served).
    additional: bool = False

    def path_for(self, subject: str) -> str:
        """The file's path inside a package whose subject slug is ``subject``."""
        return self.path.replace(_SUBJECT, subject)


_SOURCE: tuple[EpistemicLabel, ...] = ("source_extracted",)
_DERIVED: tuple[EpistemicLabel, ...] = ("deterministic_derived",)
_INFERRED: tuple[EpistemicLabel, ...] = ("llm_inferred",)
_OURS: frozenset[PackageShape] = frozenset({"1.0"})
_SUPPLIED: frozenset[PackageShape] = frozenset({"1.1"})

_ENTITY_PROVENANCE = ArtifactRole(
    "entityProvenance", "detailed/as_entity_provenance.json", JSON, "bulk_content", _SOURCE
)


def provenance_part_name(part: int) -> str:
    """Logical name of one checked entity-provenance part."""
    return f"entityProvenancePart{part:02d}"


def _provenance_part(part: int) -> ArtifactRole:
    """One checked part: it indexes both provenance documents and carries the class and labels of
    ``entityProvenance`` (reading all 64 in turn returns it whole)."""
    return replace(
        _ENTITY_PROVENANCE,
        logical_name=provenance_part_name(part),
        path=f"detailed/entity_provenance_parts/as_entity_provenance_part_{part:02d}.json",
        requirement="all_or_none",
        by_logical_name=False,
        shapes=_OURS,
    )


def progression_shard_name(shard: int) -> str:
    """Logical name of one provenance shard of a supplied package's progression links."""
    return f"learningProgressionProvenanceShard{shard:02d}"


def _progression_role(
    name: str, path: str, media_type: str, access: AccessClass, labels: tuple[EpistemicLabel, ...]
) -> ArtifactRole:
    """One artifact of the learning-progression collection a supplied package carries (its own names)."""
    return ArtifactRole(name, path, media_type, access, labels, requirement="with_progressions", shapes=_SUPPLIED)


def _progression_shard(shard: int) -> ArtifactRole:
    """One shard of the links' provenance: the links whose id's SHA-256 starts with a byte that is ``shard``
    mod 64, so one link's evidence is read without the whole map."""
    name = progression_shard_name(shard)
    return replace(
        _progression_role(
            name, f"additional/lp_relationship_provenance_shard_{shard:02d}.json", JSON, "full_text", _INFERRED
        ),
        additional=True,
    )


#: Every role, in the order a manifest declares them: the standards side, the 64 provenance parts,
#: then the learning-component collection.
ARTIFACT_ROLES: tuple[ArtifactRole, ...] = (
    ArtifactRole(
        "nodes", "delivery/as_lc_nodes_{subject}.jsonl", JSONL, "bulk_content", _SOURCE, carries_components=True
    ),
    ArtifactRole("relationships", "delivery/as_lc_relationships_{subject}.jsonl", JSONL, "bulk_content", _SOURCE),
    ArtifactRole("relationshipsHasChild", "detailed/as_relationships_has_child.jsonl", JSONL, "bulk_content", _SOURCE),
    ArtifactRole("standardsFramework", "detailed/as_standards_framework.json", JSON, "bulk_content", _SOURCE),
    ArtifactRole(
        "standardsFrameworkItems", "detailed/as_standards_framework_items.jsonl", JSONL, "bulk_content", _SOURCE
    ),
    ArtifactRole("academicStandardsBundle", "detailed/as_kg_bundle.json", JSON, "bulk_content", _SOURCE),
    _ENTITY_PROVENANCE,
    ArtifactRole(
        "unresolvedItems", "detailed/as_unresolved_items.json", JSON, "full_text", ("source_extracted", "unresolved")
    ),
    ArtifactRole(
        "validationReport",
        "detailed/as_validation_report.json",
        JSON,
        "public_metadata",
        _DERIVED,
        records_validation=True,
    ),
    *(_provenance_part(part) for part in range(PROVENANCE_PARTS)),
    ArtifactRole(
        "learningComponentBundle",
        "detailed/as_lc_kg_bundle.json",
        JSON,
        "bulk_content",
        _SOURCE,
        requirement="with_components",
        carries_components=True,
        supplied_name="learningComponentsBundle",
    ),
    ArtifactRole(
        "lcDedupGroups",
        "detailed/lc_dedup_groups.json",
        JSON,
        "full_text",
        _DERIVED,
        requirement="with_components",
        supplied_name="learningComponentDedupGroups",
    ),
    ArtifactRole(
        "lcEntityProvenance",
        "detailed/lc_entity_provenance.json",
        JSON,
        "bulk_content",
        _SOURCE,
        requirement="with_components",
        carries_components=True,
        supplied_name="learningComponentProvenance",
    ),
    ArtifactRole(
        "lcGenerationSummary",
        "detailed/lc_generation_summary.json",
        JSON,
        "public_metadata",
        _DERIVED,
        requirement="with_components",
        supplied_name="learningComponentSummary",
    ),
    ArtifactRole(
        "lcValidationReport",
        "detailed/as_lc_validation_report.json",
        JSON,
        "public_metadata",
        _DERIVED,
        requirement="with_components",
        records_validation=True,
        shapes=_OURS,
    ),
    # The learning-progression collection of a supplied package: its links as the pipeline wrote them, their
    # model judgements, and the receipts of how they were made and checked.
    _progression_role(
        "learningProgressionBuildsTowards",
        "detailed/lp_relationships_builds_towards.jsonl",
        JSONL,
        "bulk_content",
        _INFERRED,
    ),
    _progression_role(
        "learningProgressionRelatesTo", "detailed/lp_relationships_relates_to.jsonl", JSONL, "bulk_content", _INFERRED
    ),
    _progression_role(
        "learningProgressionFinalClaims", "detailed/lp_final_claims.json", JSON, "bulk_content", _INFERRED
    ),
    _progression_role(
        "learningProgressionProvenance", "detailed/lp_relationship_provenance.json", JSON, "bulk_content", _INFERRED
    ),
    _progression_role(
        "learningProgressionProvenanceIndex",
        "detailed/lp_relationship_provenance_index.json",
        JSON,
        "public_metadata",
        _DERIVED,
    ),
    _progression_role(
        "learningProgressionNormalization", "detailed/lp_normalization_receipt.json", JSON, "public_metadata", _DERIVED
    ),
    _progression_role(
        "learningProgressionSummary", "detailed/lp_generation_summary.json", JSON, "public_metadata", _DERIVED
    ),
    _progression_role(
        "learningProgressionUnresolved",
        "detailed/lp_unresolved_items.json",
        JSON,
        "full_text",
        ("llm_inferred", "unresolved"),
    ),
    _progression_role(
        "learningProgressionValidation", "detailed/lp_validation_report.json", JSON, "public_metadata", _DERIVED
    ),
    *(_progression_shard(shard) for shard in range(PROGRESSION_SHARDS)),
)

#: Each role by its logical name.
ARTIFACT_ROLE: Mapping[str, ArtifactRole] = {role.logical_name: role for role in ARTIFACT_ROLES}

#: The validation reports, in manifest order.
VALIDATION_REPORTS: tuple[str, ...] = tuple(role.logical_name for role in ARTIFACT_ROLES if role.records_validation)
#: The logical names of the 64 provenance parts, part 00 first.
PROVENANCE_PART_ARTIFACTS: tuple[str, ...] = tuple(provenance_part_name(part) for part in range(PROVENANCE_PARTS))
#: The logical names of the learning-component collection (declared iff the package has components).
COMPONENT_ARTIFACTS: tuple[str, ...] = tuple(
    role.logical_name for role in ARTIFACT_ROLES if role.requirement == "with_components"
)

#: The logical names of a supplied package's learning-progression collection (declared iff it includes them).
PROGRESSION_ARTIFACTS: tuple[str, ...] = tuple(
    role.logical_name for role in ARTIFACT_ROLES if role.requirement == "with_progressions"
)

_AT_PATH: tuple[tuple[re.Pattern[str], ArtifactRole], ...] = tuple(
    (re.compile(re.escape(role.path).replace(re.escape(_SUBJECT), "[^/]+")), role) for role in ARTIFACT_ROLES
)


def role_at(path: str) -> ArtifactRole | None:
    """The role whose file ``path`` is (any subject slug), or ``None`` for a path no role has."""
    return next((role for pattern, role in _AT_PATH if pattern.fullmatch(path)), None)


def declared_roles(components: int) -> tuple[ArtifactRole, ...]:
    """The roles this server's builder declares for a package with ``components`` learning components (the
    provenance parts included), in manifest order."""
    return tuple(
        role
        for role in ARTIFACT_ROLES
        if "1.0" in role.shapes and (role.requirement != "with_components" or components)
    )


def required_roles(
    shape: PackageShape, components: int, declared: Collection[str], progressions: bool = False
) -> tuple[ArtifactRole, ...]:
    """The roles a package of ``shape`` that declares ``declared`` must declare: every ``always`` role, the
    learning-component collection when it has components, all 64 provenance parts once it declares any, and
    the progression collection with its 64 shards when a supplied package includes learning progressions."""
    parts = any(name in declared for name in PROVENANCE_PART_ARTIFACTS)
    return tuple(
        role
        for role in ARTIFACT_ROLES
        if shape in role.shapes
        and (
            role.requirement == "always"
            or (role.requirement == "with_components" and components)
            or (role.requirement == "all_or_none" and parts)
            or (role.requirement == "with_progressions" and progressions)
        )
    )


#: Each role a supplied manifest may declare, by the key it declares it under.
SUPPLIED_ROLE: Mapping[str, ArtifactRole] = {
    role.supplied_name or role.logical_name: role for role in ARTIFACT_ROLES if "1.1" in role.shapes
}
