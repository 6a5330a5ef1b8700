"""What changed between two validated snapshots of one framework: statements, hierarchy, progression links.

Curriculum teams publish a framework as successive snapshots and need to see what a new one changes.
A snapshot is compared only once ``packages validate`` recorded it ``passed``, and only as the bytes that
pass judged: identity, closed tree, every artifact's SHA-256 against the manifest, the manifest against
its seal, and the profile binding are checked, and the delivery is decoded by the strict decoder (the
validator's ``verify_recorded_pass``). The rules themselves are re-derived only when the pass was recorded
by another validator version; ``packages validate OLD NEW`` re-derives them on demand, read-only.

Statements are matched by CASE identifier first, then by statement code where that code names exactly
one statement in each whole snapshot; a code shared by several statements is reported, never used to
guess. Hierarchy and links are compared in matched terms, so a statement that only got a new identifier
is one change, not a removal, an addition and a churn of its links.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from kgfegmcp.core.errors import InvalidComparisonSelectionError, PackageValidationError
from kgfegmcp.core.models import ContractModel, canonical_bytes
from kgfegmcp.packages.manifest import MANIFEST_FILENAME, PackageManifest
from kgfegmcp.packages.package_lock import package_lock
from kgfegmcp.packages.records import HAS_CHILD, PROGRESSION_LABELS, DecodedPackage, FrameworkNode, ItemNode
from kgfegmcp.packages.tree import PackageLocation
from kgfegmcp.packages.validator import PackageValidator, ValidationOutcome

MatchedBy = Literal["caseIdentifierUUID", "statementCode"]
ComparedField = Literal["caseIdentifierUUID", "statementCode", "description", "gradeLevel", "statementType"]
FieldValue = str | tuple[str, ...] | None

#: Stands for the framework root in matched parent and endpoint keys (items are 0.. on the new side).
_ROOT = -1
#: Relationships the diff reads: the hierarchy and the progression links (learning components are not compared).
_COMPARED_LABELS = frozenset({HAS_CHILD, *PROGRESSION_LABELS})


class Statement(ContractModel):
    """A statement as a curriculum team reads it: identifier, code, type, grades and text."""

    case_identifier_uuid: str = Field(alias="caseIdentifierUUID")
    statement_code: str | None
    statement_type: str
    grade_level: tuple[str, ...]
    description: str


class NodeRef(ContractModel):
    """A parent or link endpoint: an item, or the framework root (named by the framework's name)."""

    kind: Literal["framework", "item"]
    case_identifier_uuid: str = Field(alias="caseIdentifierUUID")
    statement_code: str | None
    description: str


class FieldChange(ContractModel):
    """One compared field of a matched statement, old → new (grades compare as a set)."""

    field: ComparedField
    old: FieldValue
    new: FieldValue


class ChangedStatement(ContractModel):
    """A matched statement whose identifier, code, text, grades or type differ."""

    matched_by: MatchedBy
    old: Statement
    new: Statement
    changes: tuple[FieldChange, ...]


class MovedStatement(ContractModel):
    """A matched statement whose hasChild parents (compared as matched statements) differ."""

    matched_by: MatchedBy
    old: NodeRef
    new: NodeRef
    old_parents: tuple[NodeRef, ...]
    new_parents: tuple[NodeRef, ...]


class ProgressionLink(ContractModel):
    """A buildsTowards or relatesTo link, with the side's own relationship id and endpoints."""

    label: str
    relationship_id: str
    source: NodeRef
    target: NodeRef


class AmbiguousCode(ContractModel):
    """A code carried by unmatched statements on both sides that does not name one statement on each."""

    statement_code: str
    old_statements: int
    new_statements: int
    unmatched_old: tuple[NodeRef, ...]
    unmatched_new: tuple[NodeRef, ...]


class SnapshotIdentity(ContractModel):
    """Which validated package one side of the diff is."""

    graph_package_id: str
    snapshot_id: str
    manifest_sha256: str
    statements: int
    progression_links: int


class DiffSummary(ContractModel):
    """How many of each kind of difference, and how the statements were matched."""

    matched_by_identifier: int
    matched_by_code: int
    added: int
    removed: int
    changed: int
    moved: int
    links_added: int
    links_removed: int
    ambiguous_codes: int


class SnapshotDiff(ContractModel):
    """Everything that differs between two snapshots of one framework, in a deterministic order."""

    framework_id: str
    old: SnapshotIdentity
    new: SnapshotIdentity
    summary: DiffSummary
    added: tuple[Statement, ...]
    removed: tuple[Statement, ...]
    changed: tuple[ChangedStatement, ...]
    moved: tuple[MovedStatement, ...]
    links_added: tuple[ProgressionLink, ...]
    links_removed: tuple[ProgressionLink, ...]
    ambiguous_codes: tuple[AmbiguousCode, ...]

    @property
    def has_differences(self) -> bool:
        """Whether any statement, parent or progression link differs (ambiguity implies added/removed)."""
        return bool(self.added or self.removed or self.changed or self.moved or self.links_added or self.links_removed)

    def to_json_bytes(self) -> bytes:
        """Canonical JSON (sorted keys, no insignificant whitespace, camelCase, nulls kept) and a newline.

        The same inputs give the same bytes. Compact, because the C encoder writes a diff of 100,000
        statements in a second where indenting takes many.
        """
        return canonical_bytes(self.model_dump(mode="json", by_alias=True)) + b"\n"


@dataclass(frozen=True, slots=True)
class VerifiedSnapshot:
    """One package that passed the gate: its manifest and decoded delivery records."""

    manifest: PackageManifest
    manifest_sha256: str
    framework: FrameworkNode
    content: DecodedPackage


# -- loading ---------------------------------------------------------------------------------------


def _error_codes(outcome: ValidationOutcome) -> str:
    codes = sorted({f.code for f in outcome.findings if f.severity == "error"} | set(outcome.omitted))
    return ", ".join(codes) or "no findings recorded"


def load_verified_snapshot(location: PackageLocation, validator: PackageValidator) -> VerifiedSnapshot:
    """A package the gate accepts as recorded ``passed``; ``package_validation_error`` for anything else.

    Pending packages are refused too: a snapshot is compared once ``packages validate`` accepted it,
    so the diff never describes bytes that might still fail.
    """
    with package_lock(location.path, shared=True):  # never in the middle of a recording
        outcome = validator.verify_recorded_pass(location)
    where = f"{location.graph_package_id} ({location.path})"
    if outcome.manifest is None:
        raise PackageValidationError(
            f"{where} is not a readable graph package ({_error_codes(outcome)}).",
            hint="Pass a snapshot directory <framework-id>/<snapshot-id>/ that holds a package_manifest.json.",
        )
    status = outcome.manifest.validation.status
    if status == "pending":
        raise PackageValidationError(
            f"{where} is pending: it has not been validated, and only passed packages are compared.",
            hint=f"Run `kgfegmcp packages validate {location.path}` first.",
        )
    if status != "passed":
        raise PackageValidationError(
            f"{where} is {status}: a package that failed validation is never compared.",
            hint="Rebuild it (`kgfegmcp packages build`) and run `kgfegmcp packages validate` on it.",
        )
    if not outcome.passed or outcome.content is None or outcome.content.framework is None:
        raise PackageValidationError(
            f"{where} is recorded passed but no longer validates ({_error_codes(outcome)}).",
            hint="Restore its validated files, or rebuild it and run `kgfegmcp packages validate` on it.",
        )
    assert outcome.manifest_sha256 is not None
    return VerifiedSnapshot(outcome.manifest, outcome.manifest_sha256, outcome.content.framework, outcome.content)


def diff_packages(
    old: PackageLocation,
    new: PackageLocation,
    validator: PackageValidator,
) -> SnapshotDiff:
    """Verify both packages, refuse two different frameworks, and compare them."""
    for location in (old, new):
        if not (location.path / MANIFEST_FILENAME).is_file():
            raise PackageValidationError(
                f"{location.path} is not a graph package: it has no {MANIFEST_FILENAME}.",
                hint="Pass two snapshot directories <framework-id>/<snapshot-id>/ of one framework.",
            )
    if old.framework_id != new.framework_id:
        raise _different_frameworks(old.graph_package_id, new.graph_package_id)
    return compare_snapshots(load_verified_snapshot(old, validator), load_verified_snapshot(new, validator))


def _different_frameworks(old: str, new: str) -> InvalidComparisonSelectionError:
    return InvalidComparisonSelectionError(
        f"{old} and {new} are snapshots of different frameworks; a diff compares two snapshots of one framework.",
        hint="Pass two snapshot directories of the same <framework-id>/ folder.",
    )


# -- comparing -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Side:
    """One snapshot's items by position, with hasChild parents and progression links as positions."""

    framework: FrameworkNode
    items: Sequence[ItemNode]
    parents: list[list[int]]
    links: list[tuple[str, int, int, str]]

    @classmethod
    def of(cls, snapshot: VerifiedSnapshot) -> _Side:
        content = snapshot.content
        position = {item.identifier: index for index, item in enumerate(content.items)}
        position[snapshot.framework.identifier] = _ROOT
        parents: list[list[int]] = [[] for _ in content.items]
        links: list[tuple[str, int, int, str]] = []
        for rel in content.relationships:
            if rel.label not in _COMPARED_LABELS:
                continue
            source, target = position.get(rel.source_identifier), position.get(rel.target_identifier)
            if source is None or target is None or target == _ROOT:
                # The rules a recorded pass vouches for exclude this; a hand-sealed package may not.
                raise PackageValidationError(
                    f"{snapshot.manifest.graph_package_id}: {rel.label} relationship {rel.identifier} does not "
                    "join statements of the package, though it is recorded passed.",
                    hint=f"Run `kgfegmcp packages validate` on {snapshot.manifest.graph_package_id} to re-derive "
                    "every rule, and rebuild it.",
                )
            if rel.label == HAS_CHILD:
                parents[target].append(source)
            else:
                links.append((rel.label, source, target, rel.identifier))
        return cls(snapshot.framework, content.items, parents, links)

    def ref(self, index: int) -> NodeRef:
        if index == _ROOT:
            return NodeRef(
                kind="framework",
                case_identifier_uuid=self.framework.case_identifier_uuid,
                statement_code=None,
                description=self.framework.name,
            )
        item = self.items[index]
        return NodeRef(
            kind="item",
            case_identifier_uuid=item.case_identifier_uuid,
            statement_code=item.statement_code,
            description=item.description,
        )

    def statement(self, index: int) -> Statement:
        item = self.items[index]
        return Statement(
            case_identifier_uuid=item.case_identifier_uuid,
            statement_code=item.statement_code,
            statement_type=item.statement_type,
            grade_level=item.grade_level,
            description=item.description,
        )


@dataclass(slots=True)
class _Matching:
    """Old position → new position (or -1), how each pair matched, and the codes left ambiguous."""

    old_to_new: list[int]
    new_to_old: list[int]
    by_code: set[int]
    ambiguous: list[tuple[str, int, int, list[int], list[int]]]

    def new_key(self, old_index: int) -> int:
        """An old position in new-side terms: the root, the matched new position, or a key no new item has."""
        if old_index == _ROOT:
            return _ROOT
        matched = self.old_to_new[old_index]
        return matched if matched >= 0 else -2 - old_index


def _match(old: _Side, new: _Side) -> _Matching:
    new_by_uuid = {item.case_identifier_uuid: index for index, item in enumerate(new.items)}
    old_to_new = [-1] * len(old.items)
    new_to_old = [-1] * len(new.items)
    for index, item in enumerate(old.items):
        found = new_by_uuid.get(item.case_identifier_uuid)
        if found is not None:
            old_to_new[index], new_to_old[found] = found, index
    old_codes = Counter(item.statement_code for item in old.items if item.statement_code is not None)
    new_codes = Counter(item.statement_code for item in new.items if item.statement_code is not None)
    unmatched_old = _unmatched_by_code(old.items, old_to_new)
    unmatched_new = _unmatched_by_code(new.items, new_to_old)
    by_code: set[int] = set()
    ambiguous: list[tuple[str, int, int, list[int], list[int]]] = []
    for code in sorted(unmatched_old.keys() & unmatched_new.keys()):
        if old_codes[code] == 1 and new_codes[code] == 1:
            (old_index,), (new_index,) = unmatched_old[code], unmatched_new[code]
            old_to_new[old_index], new_to_old[new_index] = new_index, old_index
            by_code.add(old_index)
        else:
            ambiguous.append((code, old_codes[code], new_codes[code], unmatched_old[code], unmatched_new[code]))
    return _Matching(old_to_new, new_to_old, by_code, ambiguous)


def _unmatched_by_code(items: Sequence[ItemNode], matched: list[int]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(items):
        if matched[index] < 0 and item.statement_code is not None:
            found[item.statement_code].append(index)
    return found


def _field_changes(old: ItemNode, new: ItemNode) -> tuple[FieldChange, ...]:
    changes: list[FieldChange] = []
    pairs: tuple[tuple[ComparedField, FieldValue, FieldValue], ...] = (
        ("caseIdentifierUUID", old.case_identifier_uuid, new.case_identifier_uuid),
        ("statementCode", old.statement_code, new.statement_code),
        ("description", old.description, new.description),
        ("statementType", old.statement_type, new.statement_type),
    )
    for name, before, after in pairs:
        if before != after:
            changes.append(FieldChange(field=name, old=before, new=after))
    if set(old.grade_level) != set(new.grade_level):
        changes.append(FieldChange(field="gradeLevel", old=old.grade_level, new=new.grade_level))
    return tuple(changes)


def _ref_order(ref: NodeRef) -> tuple[bool, str, str, str]:
    """Framework root first, then coded statements by code, then the rest by text; identifier breaks ties."""
    return (ref.kind == "item", ref.statement_code or "\uffff", ref.description, ref.case_identifier_uuid)


def _statement_order(statement: Statement) -> tuple[str, str, str]:
    return (statement.statement_code or "\uffff", statement.description, statement.case_identifier_uuid)


def _sorted_refs(refs: Iterable[NodeRef]) -> tuple[NodeRef, ...]:
    return tuple(sorted(refs, key=_ref_order))


def compare_snapshots(old_snapshot: VerifiedSnapshot, new_snapshot: VerifiedSnapshot) -> SnapshotDiff:
    """The diff of two verified snapshots; linear in their size apart from sorting what differs."""
    framework_id = old_snapshot.manifest.framework_id
    if new_snapshot.manifest.framework_id != framework_id:
        raise _different_frameworks(old_snapshot.manifest.graph_package_id, new_snapshot.manifest.graph_package_id)
    old, new = _Side.of(old_snapshot), _Side.of(new_snapshot)
    matching = _match(old, new)

    added = sorted((new.statement(j) for j, i in enumerate(matching.new_to_old) if i < 0), key=_statement_order)
    removed = sorted((old.statement(i) for i, j in enumerate(matching.old_to_new) if j < 0), key=_statement_order)
    changed: list[ChangedStatement] = []
    moved: list[MovedStatement] = []
    for i, j in enumerate(matching.old_to_new):
        if j < 0:
            continue
        matched_by: MatchedBy = "statementCode" if i in matching.by_code else "caseIdentifierUUID"
        changes = _field_changes(old.items[i], new.items[j])
        if changes:
            changed.append(
                ChangedStatement(matched_by=matched_by, old=old.statement(i), new=new.statement(j), changes=changes)
            )
        if {matching.new_key(p) for p in old.parents[i]} != set(new.parents[j]):
            moved.append(
                MovedStatement(
                    matched_by=matched_by,
                    old=old.ref(i),
                    new=new.ref(j),
                    old_parents=_sorted_refs(old.ref(p) for p in old.parents[i]),
                    new_parents=_sorted_refs(new.ref(p) for p in new.parents[j]),
                )
            )
    changed.sort(key=lambda entry: _statement_order(entry.new))
    moved.sort(key=lambda entry: _ref_order(entry.new))

    old_links = {(label, matching.new_key(s), matching.new_key(t)): (s, t, rid) for label, s, t, rid in old.links}
    new_links = {(label, s, t): (s, t, rid) for label, s, t, rid in new.links}
    links_added = _links(new, new_links, new_links.keys() - old_links.keys())
    links_removed = _links(old, old_links, old_links.keys() - new_links.keys())

    ambiguous = tuple(
        AmbiguousCode(
            statement_code=code,
            old_statements=old_count,
            new_statements=new_count,
            unmatched_old=_sorted_refs(old.ref(i) for i in old_indexes),
            unmatched_new=_sorted_refs(new.ref(j) for j in new_indexes),
        )
        for code, old_count, new_count, old_indexes, new_indexes in matching.ambiguous
    )
    matched = sum(1 for j in matching.old_to_new if j >= 0)
    return SnapshotDiff(
        framework_id=framework_id,
        old=_identity(old_snapshot, len(old.items), len(old.links)),
        new=_identity(new_snapshot, len(new.items), len(new.links)),
        summary=DiffSummary(
            matched_by_identifier=matched - len(matching.by_code),
            matched_by_code=len(matching.by_code),
            added=len(added),
            removed=len(removed),
            changed=len(changed),
            moved=len(moved),
            links_added=len(links_added),
            links_removed=len(links_removed),
            ambiguous_codes=len(ambiguous),
        ),
        added=tuple(added),
        removed=tuple(removed),
        changed=tuple(changed),
        moved=tuple(moved),
        links_added=links_added,
        links_removed=links_removed,
        ambiguous_codes=ambiguous,
    )


def _links(
    side: _Side, links: dict[tuple[str, int, int], tuple[int, int, str]], keys: Iterable[tuple[str, int, int]]
) -> tuple[ProgressionLink, ...]:
    found = []
    for key in keys:
        source, target, relationship_id = links[key]
        found.append(
            ProgressionLink(
                label=key[0], relationship_id=relationship_id, source=side.ref(source), target=side.ref(target)
            )
        )
    return tuple(sorted(found, key=_link_order))


def _link_order(link: ProgressionLink) -> tuple[object, ...]:
    return (link.label, _ref_order(link.source), _ref_order(link.target), link.relationship_id)


def _identity(snapshot: VerifiedSnapshot, statements: int, links: int) -> SnapshotIdentity:
    return SnapshotIdentity(
        graph_package_id=snapshot.manifest.graph_package_id,
        snapshot_id=snapshot.manifest.snapshot_id,
        manifest_sha256=snapshot.manifest_sha256,
        statements=statements,
        progression_links=links,
    )
