"""The base of the checks that compare a detailed artifact with the delivery records it elaborates."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import ValidationError

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.package_files import PackageJsonError, parse_package_json
from kgfegmcp.packages.artifacts import OnEntry, StreamedDocument
from kgfegmcp.packages.checks.base import PackageCheck
from kgfegmcp.packages.collector import line_location
from kgfegmcp.packages.records import FrameworkNode, ItemNode, NodeRecord, RelationshipRecord

#: What :meth:`DetailedArtifactCheck.document` and ``mismatch`` may emit: a check using them declares these.
DOCUMENT_CODES: tuple[FindingCode, ...] = (FindingCode.DETAILED_ARTIFACT_MISMATCH, FindingCode.IDENTITY_MISMATCH)
#: What :meth:`DetailedArtifactCheck.line_ids` and ``line_records`` may emit.
LINE_CODES: tuple[FindingCode, ...] = (FindingCode.INVALID_JSON_LINE,)
#: What :meth:`DetailedArtifactCheck.differs` emits.
CARRIED_CODES: tuple[FindingCode, ...] = (FindingCode.CROSS_ARTIFACT_MISMATCH,)

Model = TypeVar("Model", bound=ContractModel)


class DetailedArtifactCheck(PackageCheck):
    """Reads detailed artifacts through the package's one artifact reader (which verifies their bytes)."""

    def document(self, logical_name: str) -> dict[str, Any] | None:
        """A present JSON object artifact of this package, or ``None`` (with a finding when it is not one)."""
        reader = self.context.reader
        if not reader.available(logical_name):
            return None
        document = reader.document(logical_name)
        if document is None:
            return None
        if not isinstance(document, dict):
            self.out.add(FindingCode.DETAILED_ARTIFACT_MISMATCH, "expected a JSON object", artifact=logical_name)
            return None
        self._check_identity(logical_name, document)
        return document

    def model_document(self, logical_name: str, model: type[Model]) -> Model | ValidationError | None:
        """A present artifact as ``model`` (or why it is not one), read and parsed once per package.

        Several checks read the same small documents (the generation summary); the first to ask reads
        and verifies the bytes, and each decides what a shape error means for it.
        """
        models = self.context.models
        if logical_name not in models:
            document = self.document(logical_name)
            try:
                models[logical_name] = None if document is None else model.model_validate(document, strict=False)
            except ValidationError as exc:
                models[logical_name] = exc
        parsed = models[logical_name]
        assert parsed is None or isinstance(parsed, (model, ValidationError))
        return parsed

    def streamed(
        self,
        logical_name: str,
        streams: Mapping[str, OnEntry],
        *,
        whole: frozenset[str] = frozenset(),
    ) -> StreamedDocument | None:
        """As :meth:`document`, for artifacts that grow with the package: each member named in ``streams``
        goes to its callback entry by entry instead of being held (``ArtifactReader.streamed_document``;
        small members named in ``whole`` are kept). A streamed member that repeats at the top level is a
        mismatch here (``json.loads`` would silently keep the last)."""
        reader = self.context.reader
        if not reader.available(logical_name):
            return None
        document = reader.streamed_document(logical_name, streams, whole=whole)
        if document is None:
            return None
        if not document.is_object:
            self.out.add(FindingCode.DETAILED_ARTIFACT_MISMATCH, "expected a JSON object", artifact=logical_name)
            return None
        self._check_identity(logical_name, document.members)
        repeated = sorted(member for member, count in document.counts.items() if count > 1)
        if repeated:
            self.mismatch(logical_name, f"the top-level member {repeated[0]} repeats")
            return None
        return document

    def _check_identity(self, logical_name: str, members: dict[str, Any]) -> None:
        # This server's detailed documents name their package; a supplied package's name none.
        if self.manifest.shape == "1.0" and members.get("graphPackageId") != self.manifest.graph_package_id:
            self.out.add(
                FindingCode.IDENTITY_MISMATCH, "graphPackageId differs from the manifest", artifact=logical_name
            )

    def mismatch(self, logical_name: str, message: str, location: str | None = None) -> None:
        """Report that ``logical_name`` disagrees with the delivery records."""
        self.out.add(FindingCode.DETAILED_ARTIFACT_MISMATCH, message, artifact=logical_name, location=location)

    def line_ids(self, logical_name: str, key: str) -> list[str] | None:
        """``key`` of every line of a present JSONL artifact, or ``None`` (with a finding at a bad line)."""
        ids: list[str] = []
        return ids if self.line_records(logical_name, key, lambda _, record: ids.append(str(record[key]))) else None

    def line_records(self, logical_name: str, key: str, on_record: Callable[[int, dict[str, Any]], None]) -> bool:
        """Hand each line of a present JSONL artifact to ``on_record`` with its position, as a JSON object
        holding ``key``; ``False`` when the artifact is absent or a line is not one (with a finding)."""
        reader = self.context.reader
        if not reader.available(logical_name):
            return False
        for position, (number, line) in enumerate(reader.lines(logical_name)):
            try:
                record = parse_package_json(line)
                problem = None if isinstance(record, dict) and key in record else f"not a JSON object with {key}"
            except PackageJsonError as exc:
                problem = f"the line {exc}"
            if problem is not None:
                self.out.add(
                    FindingCode.INVALID_JSON_LINE, problem, artifact=logical_name, location=line_location(number)
                )
                return False
            on_record(position, record)
        return reader.complete(logical_name)  # the reader reported what cut it short

    def checksum_failed(self, logical_name: str) -> bool:
        """Whether reading ``logical_name`` already found bytes other than the manifest's (reading it
        again, to name a difference, would only report that twice)."""
        return any(f.code == FindingCode.CHECKSUM_MISMATCH and f.artifact == logical_name for f in self.out.findings)

    def differs(
        self,
        entity: NodeRecord | RelationshipRecord | str,
        field: str,
        artifact: str,
        reference: str,
        reference_field: str | None = None,
    ) -> None:
        """Report that ``entity``'s ``field`` in ``artifact`` differs from what ``reference`` carries.

        The message names the entity, the field and both artifacts, never the texts themselves (the
        report is public metadata, the texts may not be).
        """
        identifier = entity if isinstance(entity, str) else entity.identifier
        theirs = f"{reference_field} in {reference}" if reference_field else reference
        self.out.add(
            FindingCode.CROSS_ARTIFACT_MISMATCH,
            f"{self._entity_name(entity)}: {field} in {artifact} differs from {theirs}",
            artifact=artifact,
            location=identifier,
        )

    def _entity_name(self, entity: NodeRecord | RelationshipRecord | str) -> str:
        if isinstance(entity, str):
            return "entity"
        if isinstance(entity, RelationshipRecord):
            return f"{entity.label} relationship"
        if isinstance(entity, ItemNode):
            rule = self.profile.statement_type(entity.statement_type) if self.profile else None
            kind = rule.role if rule else "item"
            return f"{kind} {entity.statement_code}" if entity.statement_code else kind
        return "framework" if isinstance(entity, FrameworkNode) else "component"
