"""An accepted package's decoded content: what the validation gate hands on to be served."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kgfegmcp.core.errors import CatalogError
from kgfegmcp.core.models import sha256_hex
from kgfegmcp.core.operator_rights import OperatorDecision
from kgfegmcp.core.package_files import PackageFileError, read_package_file
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.packages.lc_artifacts import (
    ComponentProduction,
    ComponentSourceVersion,
    GenerationSummary,
    GeneratorModel,
)
from kgfegmcp.packages.manifest import PackageManifest, SuppliedFramework
from kgfegmcp.packages.records import ComponentNode, FrameworkNode, ItemNode
from kgfegmcp.packages.relationship_table import RelationshipTable
from kgfegmcp.packages.supplied_provenance import LinkJudgement, link_judgements
from kgfegmcp.packages.validator import Gate
from kgfegmcp.profiles.repository import LoadedProfile


@dataclass(frozen=True, slots=True)
class PackageRuntime:
    """One accepted package: manifest, bound profile and decoded delivery records."""

    path: Path
    manifest: PackageManifest
    profile: LoadedProfile
    framework: FrameworkNode
    items: tuple[ItemNode, ...]
    components: tuple[ComponentNode, ...]
    relationships: RelationshipTable
    accepted_from: Literal["passed", "pending"]
    manifest_sha256: str
    gate: Gate = "every_rule"
    component_generation: ComponentProduction | None = None
    """How this package's learning components were produced (``lcGenerationSummary``, or what a supplied
    package's pipeline always does); ``None`` without components. Component labels are read from here:
    ``production``, ``human_reviewed``, ``curator``."""
    link_judgements: Mapping[str, LinkJudgement] = field(default_factory=dict)
    """The model's judgement of each progression link, by link id, where the package records one (a supplied
    package's progression provenance); empty otherwise."""
    operator_decision: OperatorDecision | None = None
    """The operator's rights decision for this package (``KGFEGMCP_OPERATOR_RIGHTS_FILE``), or ``None``."""
    rights: RightsPolicy = field(init=False)
    """The rights the package is served under: the manifest's (validated no wider than its profile's), with
    what the operator's decision states in their place. Every gate and answer reads these, never
    ``manifest.rights``."""

    def __post_init__(self) -> None:
        decision, rights = self.operator_decision, self.manifest.rights
        object.__setattr__(self, "rights", rights if decision is None else decision.apply(rights))

    @property
    def graph_package_id(self) -> str:
        """``<framework-id>@<snapshot-id>``."""
        return self.manifest.graph_package_id

    @property
    def framework_id(self) -> str:
        """The framework family id."""
        return self.manifest.framework_id

    @property
    def snapshot_id(self) -> str:
        """The exact snapshot id."""
        return self.manifest.snapshot_id


def _validated_bytes(path: Path, manifest: PackageManifest, logical_name: str) -> bytes | None:
    """An accepted package's artifact, its bytes checked against the manifest again (``None`` when undeclared).

    ``catalog_error`` (for the operator: it names the file) when it is no longer the validated file.
    """
    entry = manifest.artifact(logical_name)
    if entry is None:
        return None
    try:
        data = read_package_file(path, entry.path, expected_bytes=entry.bytes)
    except PackageFileError as exc:
        raise CatalogError(
            f"{manifest.graph_package_id}: {logical_name} ({path / entry.path}) {exc.reason} "
            f"({exc.code}) after validation."
        ) from None
    if sha256_hex(data) != entry.sha256:
        raise CatalogError(f"{manifest.graph_package_id}: {logical_name} changed after validation.")
    return data


def read_generation_summary(path: Path, manifest: PackageManifest) -> ComponentProduction | None:
    """How the accepted package's components were produced: its ``lcGenerationSummary`` (checked again); for a
    supplied package, what its pipeline does to every package."""
    if manifest.artifact("lcGenerationSummary") is None:
        return None
    source = manifest.source
    if isinstance(source, SuppliedFramework):
        # The pipeline's summary counts its model calls but names no model: its components are model output
        # that nobody reviewed (the spec: a learning component is model-generated content).
        return ComponentProduction(
            production="model_generated",
            human_reviewed=False,
            generator=GeneratorModel(name=f"{source.provider or source.issuing_authority or 'supplier'} pipeline"),
            source=ComponentSourceVersion(name=source.name, version=source.source_version or "unversioned"),
            method="Decomposed from the standards items by the supplying pipeline's language-model workflow.",
        )
    data = _validated_bytes(path, manifest, "lcGenerationSummary")
    assert data is not None
    summary = GenerationSummary.model_validate_json(data, strict=False)
    return ComponentProduction.model_validate(
        summary.model_dump(include=set(ComponentProduction.model_fields)), strict=False
    )


def read_link_judgements(path: Path, manifest: PackageManifest) -> Mapping[str, LinkJudgement]:
    """The accepted package's progression-link judgements from its provenance map (checked again); empty when
    the package records none."""
    data = _validated_bytes(path, manifest, "learningProgressionProvenance")
    return link_judgements(json.loads(data)) if data is not None else {}
