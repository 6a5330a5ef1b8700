"""The resource families, declared once: one entry each (one resource and fourteen templates, docs/resources.md).

An entry names the family, its URI template, what the resource listing says of it and the access
class the rights policy requires. The canonical URIs (``uris.py``), the address parser
(``addresses.py``), the family access table (``policy.py``), the MCP handlers and registrations
(``mcp/resources.py``, ``mcp/register.py``) and the documents' snapshot listing are all read from
this table; the resource service holds one document builder per family. Adding a family is one entry
here and its builder there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from kgfegmcp.packages.artifact_roles import ARTIFACT_ROLE, AccessClass

SCHEME = "kgfegmcp://"
#: Every package-level family's prefix (the snapshot resource itself).
SNAPSHOT_TEMPLATE = f"{SCHEME}framework/{{framework_id}}/snapshot/{{snapshot_id}}"

#: The variable a keyed template carries after the snapshot's ids.
KeyName = Literal["node_id", "relationship_id", "part", "logical_name"]


class Family(StrEnum):
    """The resource families: one resource and fourteen templates."""

    CATALOG = "catalog"
    FRAMEWORK = "framework"
    SNAPSHOT = "snapshot"
    MANIFEST = "manifest"
    VALIDATION = "validation"
    PROFILE = "profile"
    UNRESOLVED = "unresolved"
    STANDARD = "standard"
    STANDARD_PROVENANCE = "standard_provenance"
    RELATIONSHIP = "relationship"
    LEARNING_COMPONENT = "learning_component"
    LEARNING_COMPONENT_PROVENANCE = "learning_component_provenance"
    LEARNING_PROGRESSION = "learning_progression"
    PROVENANCE_PART = "provenance_part"
    ARTIFACT = "artifact"


_VARIABLE = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True, slots=True)
class ResourceFamily:
    """One family: how its URIs are spelled, what the listing says, and what the rights policy asks."""

    family: Family
    template: str
    description: str
    access: AccessClass | None  # None: the class of the artifact addressed (the closed artifact policy)

    @property
    def name(self) -> str:
        """The MCP resource (template) name."""
        return self.family.value

    @property
    def variables(self) -> tuple[str, ...]:
        """The template's variables, in order."""
        return tuple(_VARIABLE.findall(self.template))

    @property
    def key(self) -> KeyName | None:
        """The variable after the package's ids, for keyed families."""
        extra = [v for v in self.variables if v not in ("framework_id", "snapshot_id")]
        return extra[0] if extra else None  # type: ignore[return-value]

    @property
    def words(self) -> tuple[str, ...]:
        """The address segments after the snapshot's (``{key}`` where the key goes); ``()`` for the snapshot."""
        if not self.template.startswith(SNAPSHOT_TEMPLATE):
            return ()
        tail = self.template[len(SNAPSHOT_TEMPLATE) :].strip("/")
        return tuple(tail.split("/")) if tail else ()

    def uri(self, framework_id: str = "", snapshot_id: str = "", key: str = "") -> str:
        """The canonical URI of one resource of this family."""
        values = {"framework_id": framework_id, "snapshot_id": snapshot_id, self.key or "": key}
        return _VARIABLE.sub(lambda match: values[match.group(1)], self.template)


#: The listed order (docs/resources.md): the catalog resource, then the fourteen templates.
FAMILIES: tuple[ResourceFamily, ...] = (
    ResourceFamily(
        Family.CATALOG,
        f"{SCHEME}catalog",
        "Every accepted package (framework, snapshot, title, links) and the catalog fingerprint.",
        "public_metadata",
    ),
    ResourceFamily(
        Family.FRAMEWORK,
        f"{SCHEME}framework/{{framework_id}}",
        "One framework family: its accepted snapshots and which are current.",
        "public_metadata",
    ),
    ResourceFamily(
        Family.SNAPSHOT,
        SNAPSHOT_TEMPLATE,
        "One graph package: identity, counts, capabilities, rights and what each resource family allows.",
        "public_metadata",
    ),
    ResourceFamily(
        Family.MANIFEST,
        f"{SNAPSHOT_TEMPLATE}/manifest",
        "The package manifest, exact retained bytes (public metadata).",
        "public_metadata",
    ),
    # A family that serves one artifact's bytes carries that artifact's class.
    ResourceFamily(
        Family.VALIDATION,
        f"{SNAPSHOT_TEMPLATE}/validation",
        "The validation report, exact retained bytes (public metadata).",
        ARTIFACT_ROLE["validationReport"].access_class,
    ),
    ResourceFamily(
        Family.PROFILE,
        f"{SNAPSHOT_TEMPLATE}/profile",
        "The interpretation profile the package is bound to, exact bytes checked by SHA-256.",
        "public_metadata",
    ),
    ResourceFamily(
        Family.UNRESOLVED,
        f"{SNAPSHOT_TEMPLATE}/unresolved",
        "The unresolved-items report (reviewed rights + allowFullText).",
        ARTIFACT_ROLE["unresolvedItems"].access_class,
    ),
    ResourceFamily(
        Family.STANDARD,
        f"{SNAPSHOT_TEMPLATE}/standard/{{node_id}}",
        "One standards item with its hierarchy neighbours (standard-resource rights).",
        "standard_resource",
    ),
    ResourceFamily(
        Family.STANDARD_PROVENANCE,
        f"{SNAPSHOT_TEMPLATE}/standard/{{node_id}}/provenance",
        "Provenance of one standards item, read from its one checked part (standard-resource rights).",
        "standard_resource",
    ),
    ResourceFamily(
        Family.RELATIONSHIP,
        f"{SNAPSHOT_TEMPLATE}/relationship/{{relationship_id}}",
        "One relationship of any label with its provenance from one checked part (standard-resource rights).",
        "standard_resource",
    ),
    ResourceFamily(
        Family.LEARNING_COMPONENT,
        f"{SNAPSHOT_TEMPLATE}/learning-component/{{node_id}}",
        "One learning component with the standards it supports (standard-resource rights).",
        "standard_resource",
    ),
    ResourceFamily(
        Family.LEARNING_COMPONENT_PROVENANCE,
        f"{SNAPSHOT_TEMPLATE}/learning-component/{{node_id}}/provenance",
        "Provenance of one learning component, read from its one checked part (standard-resource rights).",
        "standard_resource",
    ),
    ResourceFamily(
        Family.LEARNING_PROGRESSION,
        f"{SNAPSHOT_TEMPLATE}/learning-progression/{{relationship_id}}",
        "One stored buildsTowards/relatesTo link with its provenance (standard-resource rights).",
        "standard_resource",
    ),
    # A part carries the class of the artifact it is part of: reading all 64 returns the whole file.
    # One entity's provenance stays readable through the standard, component and relationship families.
    ResourceFamily(
        Family.PROVENANCE_PART,
        f"{SNAPSHOT_TEMPLATE}/provenance-part/{{part}}",
        "One checked entity-provenance part (00-63), exact retained bytes (standard-resource rights).",
        ARTIFACT_ROLE["entityProvenance"].access_class,
    ),
    ResourceFamily(
        Family.ARTIFACT,
        f"{SNAPSHOT_TEMPLATE}/artifact/{{logical_name}}",
        "One declared artifact by logical name, under the closed artifact access-class policy.",
        None,
    ),
)

FAMILY: dict[Family, ResourceFamily] = {spec.family: spec for spec in FAMILIES}
