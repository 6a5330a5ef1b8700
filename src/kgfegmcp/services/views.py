"""Result models shared by services: package identity, standards records and views, warnings.

Two shapes of a standard. Tool answers carry a compact :class:`StandardRecord`: what a citation
needs (node id, code, source statement type, source grade labels, text), and each answer names its
packages once (:class:`PackageRef`: id, links, the files it was built from, disclosure ids). The
resource documents keep the full :class:`StandardView` (normalised facets and roles beside the
source terms, CASE identifiers, epistemic status) and :class:`PackageIdentity`. Every entity URI an
answer leaves out follows one rule from its package's ``uri`` (:func:`entity_uri`). Nothing here
merges curricula or drops the package a value came from.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.epistemic import EpistemicLabel, LinkLabel, ProductionMethod, SourceLabel, component_label
from kgfegmcp.core.notice_codes import NoticeCode
from kgfegmcp.core.rights import license_name
from kgfegmcp.packages.lc_artifacts import ComponentProduction
from kgfegmcp.packages.records import FrameworkNode, ItemNode
from kgfegmcp.packages.supplied_provenance import PROVENANCE
from kgfegmcp.resources import uris

#: Hex digits of each SHA-256 an answer names (the manifest holds the full values).
SHA256_PREFIX = 12


def _field_value(field: core_schema.ModelField) -> CoreSchema:
    """The schema of a field's value, its default (if any) unwrapped."""
    value = field["schema"]
    return value["schema"] if value["type"] == "default" else value


def _may_be_none(field: core_schema.ModelField) -> bool:
    """Whether the field's value can be ``None`` (and so be left out of the wire)."""
    return _field_value(field)["type"] in ("nullable", "any")


class WireJsonSchema(GenerateJsonSchema):
    """The JSON Schema of :meth:`ResultModel.to_wire`: exactly what a client can receive, compactly.

    ``to_wire`` leaves out every ``None`` field, so a field is on the wire exactly when its value is not
    ``None``: a field that cannot be ``None`` is required, one that can is optional and never ``null``.
    Defaults say nothing a client can use about an output, and titles repeat the property names: both
    are left out. Model and enum docstrings are written for this code's readers and left out too (every byte of
    ``tools/list`` costs a host tokens); the field descriptions written for clients are kept.
    """

    def model_field_schema(self, schema: core_schema.ModelField) -> JsonSchemaValue:
        value = _field_value(schema)
        return self.generate_inner(value["schema"] if value["type"] == "nullable" else value)

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        if field["type"] != "model-field":
            return super().field_is_required(field, total)
        return not _may_be_none(field)

    def field_title_should_be_set(
        self,
        schema: CoreSchema
        | core_schema.ModelField
        | core_schema.DataclassField
        | core_schema.TypedDictField
        | core_schema.ComputedField,
    ) -> bool:
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        json_schema = super().model_schema(schema)
        json_schema.pop("title", None)
        json_schema.pop("description", None)
        # The deliberate exception to "never null": a field sent as null rather than left out.
        for name in getattr(schema["cls"], "SENT_AS_NULL", ()):
            alias = to_camel(name)
            json_schema["properties"][alias] = {"anyOf": [json_schema["properties"][alias], {"type": "null"}]}
            json_schema["required"] = [*json_schema.get("required", []), alias]
        return json_schema

    def generate(self, schema: CoreSchema, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        json_schema = super().generate(schema, mode)
        # An enum's name and docstring, like a model's, are for this code's readers; its values are the contract.
        for definition in json_schema.get("$defs", {}).values():
            if "enum" in definition:
                definition.pop("title", None)
                definition.pop("description", None)
        return json_schema


class ResultModel(BaseModel):
    """camelCase on the wire; built by services only; exactly the declared fields."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True, frozen=True, extra="forbid"
    )

    @classmethod
    def of_fields(cls, source: object) -> Self:
        """The view of a record from a layer below (a search's counts or warnings) holding the same fields by
        name: one generic step, so a field added to both is carried without a copy to keep in step."""
        return cls.model_validate(source, from_attributes=True)

    def to_wire(self) -> dict[str, Any]:
        """JSON-ready structured content (``None`` fields kept out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    @classmethod
    def wire_schema(cls) -> dict[str, Any]:
        """The JSON Schema every :meth:`to_wire` result of this model validates against (a tool's ``outputSchema``)."""
        return cls.model_json_schema(by_alias=True, mode="serialization", schema_generator=WireJsonSchema)


class ArtifactRef(ResultModel):
    """One file a result was built from."""

    logical_name: str
    sha256: str


class ProfileBinding(ResultModel):
    """The interpretation profile a package is bound to."""

    profile_id: str
    version: str
    sha256: str


class PackageIdentity(ResultModel):
    """Short package identity: the four files a result was built from, and the manifest link."""

    graph_package_id: str
    framework_id: str
    snapshot_id: str
    manifest_uri: str
    nodes: ArtifactRef
    relationships: ArtifactRef
    entity_provenance: ArtifactRef
    profile: ProfileBinding


class DisclosureView(ResultModel):
    """A profile disclosure shown with results."""

    disclosure_id: str
    text: str


class ResultWarning(ResultModel):
    """A warning is evidence: keep it with the result it qualifies."""

    code: NoticeCode
    message: str
    graph_package_id: str | None = None


class GradeView(ResultModel):
    """A local grade label with its normalised facet."""

    source_label: str
    facet: str | None = None
    display: str | None = None


class StatementTypeView(ResultModel):
    """A source statement type with its normalised form and role."""

    source_type: str
    normalized: str | None = None
    role: Literal["standard", "grouping"] | None = None


class StandardView(ResultModel):
    """One published standards item, in its own package's terms."""

    graph_package_id: str
    node_id: str
    case_identifier_uuid: str = Field(alias="caseIdentifierUUID")
    case_identifier_uri: str | None = Field(None, alias="caseIdentifierURI")
    statement_code: str | None = None
    description: str
    statement_type: StatementTypeView
    grade_levels: list[GradeView]
    academic_subject: str | None = None
    in_language: str
    is_current: bool
    notes: str | None = None
    uri: str
    provenance_uri: str
    epistemic_status: SourceLabel = Field(description="As the package's profile declares its standards.")


class BuiltFrom(ResultModel):
    """The four files an answer was built from, each by a SHA-256 prefix (the manifest has the full values)."""

    nodes: str = Field(description="SHA-256 prefix of the nodes artifact.")
    relationships: str = Field(description="SHA-256 prefix of the relationships artifact.")
    entity_provenance: str = Field(description="SHA-256 prefix of the entityProvenance artifact.")
    lc_entity_provenance: str | None = Field(None, description="SHA-256 prefix of lcEntityProvenance.")
    profile: str = Field(description="The bound interpretation profile: '<profileId> <version> <SHA-256 prefix>'.")


class ComponentsLabel(ResultModel):
    """How one package's learning components were produced, said once per package (never guessed)."""

    production: ProductionMethod
    epistemic_status: EpistemicLabel = Field(
        description="source_asserted (curated), llm_inferred (model-generated) or human_reviewed."
    )
    source: str = Field(description="The curator or generator.")


def components_label(summary: ComponentProduction) -> ComponentsLabel:
    """The declared production of a package's components and the label it gives them."""
    generator = summary.generator.name if summary.generator is not None else None
    return ComponentsLabel(
        production=summary.production,
        epistemic_status=component_label(summary.production, summary.human_reviewed),
        source=summary.curator or generator or summary.source.name,
    )


class AnswerLabels(ResultModel):
    """Epistemic labels of this package's standards and resolved links in the answer."""

    # Said once per package (a record carries its own label only when it is unresolved); the schema
    # stays bare because every tool's outputSchema repeats it.
    standards: SourceLabel
    links: LinkLabel | None = None


class TextWithheld(ResultModel):
    """Why this package's statement text is left out of every record of the answer (said once per package)."""

    code: Literal[NoticeCode.FULL_TEXT_NOT_PERMITTED]
    reason: str


def text_withheld(package: ServedPackage) -> TextWithheld | None:
    """The notice an answer carries for a package whose rights withhold full text; ``None`` when they permit it."""
    reason = package.rights.full_text_denial()
    if reason is None:
        return None
    return TextWithheld(
        code=NoticeCode.FULL_TEXT_NOT_PERMITTED,
        reason=f"Statement text is withheld because {reason}; codes, statement types, grade labels and ids are given.",
    )


def operator_review(package: ServedPackage) -> str | None:
    """What an answer says of the operator's rights decision for ``package`` (kept outside the package, in the
    operator's rights file): the review state it is served with and when the operator decided, as
    ``approved (2026-01-05T10:00:00Z)``; ``None`` when its manifest's rights stand. One string, not an object:
    every tool's outputSchema repeats the package block."""
    decision = package.operator_decision
    if decision is None:
        return None
    return f"{package.rights.review_status} ({decision.decided_at})"


def permitted_text(package: ServedPackage, text: str) -> str | None:
    """``text`` (a statement's or a component's) when the package's rights permit full text, else ``None``.

    Every record builder takes its text through here, so no answer can carry text its rights withhold.
    """
    return text if package.rights.full_text_denial() is None else None


#: Where a stored progression link's provenance is, by rule (``{relationshipId}`` replaced by the link's id).
LINK_PROVENANCE_RULE = "/learning-progression/{relationshipId}"

#: What an answer says of its package's progression links: ``carried`` when the answer carries links (their
#: label, and where a link's provenance is), ``held`` when it describes a package that has links whole (their
#: label only: where a link's provenance is, is said by the answers that carry links).
LinkMention = Literal["carried", "held"]


class PackageRef(ResultModel):
    """One package, named once per answer: records refer to it by ``number`` instead of repeating it.

    ``uri`` is the package resource (full disclosures, rights, every artifact with its SHA-256); every
    entity an answer names by id is at ``uri`` + ``/standard/{nodeId}``, ``/learning-component/{nodeId}``,
    ``/relationship/{id}`` or ``/learning-progression/{id}``, a standard's or component's provenance at that
    URI + ``/provenance`` (a relationship's is inside its document). ``license`` and ``attribution`` are
    what a citation of the package's evidence must carry.
    """

    # Most fields stay bare: every tool's outputSchema repeats this block (docs/tools.md explains them).
    number: int
    graph_package_id: str = Field(description="'<frameworkId>@<snapshotId>'.")
    uri: str = Field(description="The package resource.")
    manifest_uri: str
    built_from: BuiltFrom
    license: str
    attribution: str
    disclosure_ids: list[str] = Field(
        description="The profile's disclosures that qualify this package's evidence; full text at uri or get_framework."
    )
    labels: AnswerLabels
    text_withheld: TextWithheld | None = Field(
        None, description="Only when rights withhold statement text (its records then have no description)."
    )
    operator_review: str | None = None  # "<reviewStatus> (<decidedAt>)", only under an operator's rights decision
    link_provenance: str | None = None  # "<uri>/learning-progression/{relationshipId}", with links

    @classmethod
    def of(
        cls,
        package: ServedPackage,
        number: int = 1,
        /,
        *,
        links: LinkMention | None = None,
        cites_components: bool = False,
        **extra: Any,
    ) -> Self:
        """The compact identity an answer carries once per package (its ``number``-th), with the labels of what
        it carries and the licence and attribution a citation needs; a subclass's own fields are ``extra``.

        ``links``: what the answer says of the package's progression links (:data:`LinkMention`).
        ``cites_components``: the answer carries learning components, so it cites their provenance artifact.
        """
        manifest = package.manifest
        profile = manifest.profile
        declared = package.profile.profile.claim_labels
        uri = uris.snapshot_uri(manifest.framework_id, manifest.snapshot_id)
        return cls(
            number=number,
            graph_package_id=manifest.graph_package_id,
            uri=uri,
            manifest_uri=uris.manifest_uri(manifest.framework_id, manifest.snapshot_id),
            built_from=BuiltFrom(
                nodes=_sha_prefix(package, "nodes"),
                relationships=_sha_prefix(package, "relationships"),
                entity_provenance=_sha_prefix(package, "entityProvenance"),
                lc_entity_provenance=_sha_prefix(package, "lcEntityProvenance") if cites_components else None,
                profile=f"{profile.profile_id} {profile.version} {profile.sha256[:SHA256_PREFIX]}",
            ),
            license=license_name(package.rights),
            attribution=package.rights.attribution_statement,
            disclosure_ids=list(dict.fromkeys(d.disclosure_id for d in package.profile.profile.disclosures)),
            labels=AnswerLabels(standards=declared.standards, links=link_label(package) if links else None),
            text_withheld=text_withheld(package),
            operator_review=operator_review(package),
            link_provenance=uri + LINK_PROVENANCE_RULE if links == "carried" else None,
            **extra,
        )


class StandardRecord(ResultModel):
    """A standard as a citation needs it, in its own package's terms.

    Source statement type and source grade labels only: their normalised facets, displays and roles
    are in the package's profile (``get_framework_statistics``, the ``…/profile`` resource), the rest
    of the item in ``get_standard`` and its resource. ``caseIdentifierUUID`` is left out: validation
    guarantees it equals ``nodeId`` for every item.
    """

    node_id: str
    statement_code: str | None = None
    statement_type: str
    grade_levels: list[str]
    description: str | None = None  # absent only under its package's textWithheld
    is_current: Literal[False] | None = Field(
        None, description="Present (false) only when the source retires the item."
    )
    code_selects: Literal[False] | None = Field(
        None, description="Present (false) when statementCode alone does not select the item: select it by nodeId."
    )

    @classmethod
    def of(cls, package: ServedPackage, item: ItemNode, /, **extra: Any) -> Self:
        """``item`` as a citation needs it: source terms only, its text only where the package's rights permit
        it; a subclass's own fields are ``extra`` (so every record is built once, straight from the item).

        A code that another item of the package shares (or a package without code lookup) is flagged, so an
        answer can cite by code wherever a code selects and by node id where it does not.
        """
        code = item.statement_code
        return cls(
            node_id=item.identifier,
            statement_code=code,
            statement_type=item.statement_type,
            grade_levels=list(item.grade_level),
            description=permitted_text(package, item.description),
            is_current=None if item.is_current else False,
            code_selects=False if code is not None and not code_selects(package, code) else None,
            **extra,
        )


class LinkedStandardRecord(StandardRecord):
    """A record with its resource link, for the standard an answer is about."""

    uri: str = Field(description="The standard resource; its provenance is this URI + '/provenance'.")

    @classmethod
    def of(cls, package: ServedPackage, item: ItemNode, /, **extra: Any) -> Self:
        """An item's record with its resource link."""
        uri = uris.standard_uri(package.framework_id, package.snapshot_id, item.identifier)
        return super().of(package, item, uri=uri, **extra)


class StandardRef(ResultModel):
    """A standard named where an answer only refers to it (a path step, a standard a component supports): its
    code and grade labels beside its node id, so following it needs no lookup (its text is in its record)."""

    node_id: str
    statement_code: str | None = None
    grade_levels: list[str]
    code_selects: Literal[False] | None = Field(
        None, description="Present (false) when statementCode alone does not select the item: select it by nodeId."
    )

    @classmethod
    def of(cls, package: ServedPackage, item: ItemNode) -> Self:
        """``item`` by its node id, code and source grade labels (flagged where the code alone does not select)."""
        code = item.statement_code
        return cls(
            node_id=item.identifier,
            statement_code=code,
            grade_levels=list(item.grade_level),
            code_selects=False if code is not None and not code_selects(package, code) else None,
        )


class SourceLocation(ResultModel):
    """Where a source document read page by page prints a standard: what a citation of its page needs."""

    document: str = Field(description="The source file's name (its SHA-256 is in the provenance).")
    pages: list[int] = Field(description="1-based pages of the file, as a PDF viewer counts them.")
    printed_pages: list[str] | None = Field(None, description="The page numbers printed on those pages.")

    @classmethod
    def of(cls, provenance: dict[str, Any] | None) -> SourceLocation | None:
        """The location a provenance record's locator states (``file`` and ``pages``), or ``None``."""
        locator = provenance.get("locator") if provenance else None
        if not isinstance(locator, dict):
            return None
        document, pages, printed = locator.get("file"), locator.get("pages"), locator.get("printedPages")
        if not isinstance(document, str) or not isinstance(pages, list) or not pages:
            return None
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in pages):
            return None
        printed_ok = isinstance(printed, list) and printed and all(isinstance(p, str) for p in printed)
        return cls(document=document, pages=pages, printed_pages=printed if printed_ok else None)


class StandardDetailView(LinkedStandardRecord):
    """One standard with the item details a record leaves out, and its resource link."""

    academic_subject: str | None = None
    in_language: str
    notes: str | None = None
    case_identifier_uri: str | None = Field(None, alias="caseIdentifierURI")
    source_location: SourceLocation | None = Field(
        None, description="Only for a source read page by page (a PDF): the file and page(s) that print it."
    )

    @classmethod
    def of(cls, package: ServedPackage, item: ItemNode, /, **extra: Any) -> Self:
        """An item's record plus its details and resource link."""
        return super().of(
            package,
            item,
            academic_subject=item.academic_subject or package.framework.academic_subject,
            in_language=item.in_language,
            notes=permitted_text(package, item.notes) if item.notes is not None else None,
            case_identifier_uri=item.case_identifier_uri,
            **extra,
        )


class FrameworkRootRef(ResultModel):
    """The framework root as a hierarchy node (its resource is the package's ``uri``)."""

    node_id: str
    name: str
    kind: Literal["framework"] = "framework"


def package_identity(package: ServedPackage) -> PackageIdentity:
    """The identity block every result carries."""
    manifest = package.manifest

    def ref(logical_name: str) -> ArtifactRef:
        entry = manifest.artifact(logical_name)
        assert entry is not None  # guaranteed by validation
        return ArtifactRef(logical_name=logical_name, sha256=entry.sha256)

    return PackageIdentity(
        graph_package_id=manifest.graph_package_id,
        framework_id=manifest.framework_id,
        snapshot_id=manifest.snapshot_id,
        manifest_uri=uris.manifest_uri(manifest.framework_id, manifest.snapshot_id),
        nodes=ref("nodes"),
        relationships=ref("relationships"),
        entity_provenance=ref("entityProvenance"),
        profile=ProfileBinding(
            profile_id=manifest.profile.profile_id, version=manifest.profile.version, sha256=manifest.profile.sha256
        ),
    )


def disclosures(package: ServedPackage) -> list[DisclosureView]:
    """The bound profile's disclosures, in profile order."""
    return [DisclosureView(disclosure_id=d.disclosure_id, text=d.text) for d in package.profile.profile.disclosures]


def standard_view(package: ServedPackage, item: ItemNode) -> StandardView:
    """An item with its source terms and normalised facets side by side."""
    profile = package.profile.profile
    rule = profile.statement_type(item.statement_type)
    grades = []
    for label in item.grade_level:
        declared = profile.grade_label(label)
        grades.append(
            GradeView(
                source_label=label,
                facet=declared.facet if declared else None,
                display=declared.display if declared else None,
            )
        )
    fid, sid = package.framework_id, package.snapshot_id
    return StandardView(
        graph_package_id=package.graph_package_id,
        node_id=item.identifier,
        case_identifier_uuid=item.case_identifier_uuid,
        case_identifier_uri=item.case_identifier_uri,
        statement_code=item.statement_code,
        description=item.description,
        statement_type=StatementTypeView(
            source_type=item.statement_type,
            normalized=rule.normalized if rule else item.normalized_statement_type,
            role=rule.role if rule else None,
        ),
        grade_levels=grades,
        academic_subject=item.academic_subject or package.framework.academic_subject,
        in_language=item.in_language,
        is_current=item.is_current,
        notes=item.notes,
        uri=uris.standard_uri(fid, sid, item.identifier),
        provenance_uri=uris.standard_provenance_uri(fid, sid, item.identifier),
        epistemic_status=profile.claim_labels.standards,
    )


def _sha_prefix(package: ServedPackage, logical_name: str) -> str:
    entry = package.manifest.artifact(logical_name)
    assert entry is not None  # guaranteed by validation
    return entry.sha256[:SHA256_PREFIX]


class ComponentPackageRef(PackageRef):
    """A package of an answer carrying learning components, with how its components were produced."""

    components: ComponentsLabel | None = None  # absent when the package has no components

    @classmethod
    def of(cls, package: ServedPackage, number: int = 1, /, **extra: Any) -> Self:
        """A package's compact identity, its components' label, and the component provenance it cites."""
        production = declared_production(package)
        return super().of(package, number, cites_components=production is not None, components=production, **extra)


def link_label(package: ServedPackage) -> LinkLabel:
    """What ``package``'s progression links are: the label of the progression evidence it declares (a
    supplied package's model judgements: ``llm_inferred``), else what its profile declares of its links."""
    if package.manifest.artifact(PROVENANCE) is not None:
        return "llm_inferred"  # as the role table labels that evidence: a model's judgement of each link
    return package.profile.profile.claim_labels.progression_links


def declared_production(package: ServedPackage) -> ComponentsLabel | None:
    """How ``package``'s components were produced, from its generation summary; ``None`` without components.

    Validation requires a generation summary of every package with components, so this never guesses.
    """
    summary = package.runtime.component_generation
    return components_label(summary) if summary is not None else None


class PagePackages:
    """The packages one page of hits comes from, named once each; hits refer to them by number.

    A page lists only the packages its hits come from (an empty page lists every searched package, so
    the answer still names what was searched); numbers are left out of hits when one package is listed.
    """

    def __init__(self, searched: list[ServedPackage], orders: list[int]) -> None:
        used = sorted(set(orders)) or list(range(len(searched)))
        self._number = {order: position for position, order in enumerate(used, start=1)}
        self.used = [searched[order] for order in used]

    def numbered(self) -> list[tuple[int, ServedPackage]]:
        """Each listed package with its number (1, 2, ... in answer order)."""
        return list(enumerate(self.used, start=1))

    def number(self, order: int) -> int | None:
        """The number of the hit's package; None when the page names one package."""
        return self._number[order] if len(self.used) > 1 else None


def entity_uri(package_uri: str, family: str, identifier: str) -> str:
    """The one URI rule of compact answers: ``<package uri>/<family>/<id>`` (see :class:`PackageRef`)."""
    return f"{package_uri}/{family}/{identifier}"


def code_selects(package: ServedPackage, code: str) -> bool:
    """Whether ``code`` alone selects one item of ``package`` (as ``statementCode`` in a standard selector)."""
    codes = package.standards_index.codes
    return codes is not None and len(codes.exact(code)) == 1


def framework_root_ref(framework: FrameworkNode) -> FrameworkRootRef:
    """The root node of a package's hierarchy, compactly."""
    return FrameworkRootRef(node_id=framework.identifier, name=framework.name)
