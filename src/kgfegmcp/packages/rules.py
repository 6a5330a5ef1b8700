"""Package rules past decoding: identity, endpoints, hierarchy, components, progressions, codes,
counts, capabilities, and the agreement of detailed artifacts with the delivery records."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict, deque
from typing import Any

from kgfegmcp.packages.artifacts import ArtifactReader
from kgfegmcp.packages.collector import FindingCollector, line_location
from kgfegmcp.packages.manifest import (
    MANIFEST_FILENAME,
    PART_ARTIFACTS,
    PackageManifest,
)
from kgfegmcp.packages.provenance import provenance_part_of
from kgfegmcp.packages.records import (
    BUILDS_TOWARDS,
    COMPONENT,
    HAS_CHILD,
    ITEM,
    PROGRESSION_LABELS,
    RELATES_TO,
    SUPPORTS,
    UNRESOLVED_STATUSES,
    DecodedPackage,
    FrameworkNode,
    ItemNode,
    NodeRecord,
    RelationshipLabel,
    RelationshipRecord,
    entity_key_for,
)
from kgfegmcp.profiles.model import FRAMEWORK_PARENT_TYPE, InterpretationProfile


class SemanticRules:
    """Identity, endpoint, hierarchy, component, progression, code and count rules."""

    def __init__(
        self,
        manifest: PackageManifest,
        profile: InterpretationProfile | None,
        content: DecodedPackage,
        out: FindingCollector,
    ) -> None:
        self.manifest = manifest
        self.profile = profile
        self.content = content
        self.out = out
        self.nodes: dict[str, NodeRecord] = {}

    def run(self) -> None:
        self._index_nodes()
        self._check_items()
        valid_edges = self._check_relationships()
        self._check_hierarchy(valid_edges)
        self._check_components(valid_edges)
        self._check_codes()
        self._check_counts()

    def _index_nodes(self) -> None:
        content = self.content
        all_nodes: list[NodeRecord] = []
        if content.framework is not None:
            all_nodes.append(content.framework)
        all_nodes.extend(content.items)
        all_nodes.extend(content.components)
        case_ids: set[str] = set()
        for node in all_nodes:
            if node.identifier in self.nodes:
                self.out.add(
                    "duplicate_identifier",
                    f"node identifier {node.identifier} repeats",
                    artifact="nodes",
                    location=node.identifier,
                )
                continue
            self.nodes[node.identifier] = node
            if isinstance(node, FrameworkNode | ItemNode):
                if node.case_identifier_uuid in case_ids:
                    self.out.add(
                        "duplicate_identifier",
                        f"caseIdentifierUUID {node.case_identifier_uuid} repeats",
                        artifact="nodes",
                        location=node.identifier,
                    )
                case_ids.add(node.case_identifier_uuid)
                if node.identifier != node.case_identifier_uuid:
                    self.out.add(
                        "identity_mismatch",
                        "a standards node's identifier must equal its caseIdentifierUUID",
                        artifact="nodes",
                        location=node.identifier,
                    )

    def _check_items(self) -> None:
        profile = self.profile
        if profile is None:
            return
        for item in self.content.items:
            rule = profile.statement_type(item.statement_type)
            if rule is None:
                self.out.add(
                    "unknown_statement_type",
                    f"statement type {item.statement_type!r} is not in the profile",
                    artifact="nodes",
                    location=item.identifier,
                )
            elif item.normalized_statement_type is not None and item.normalized_statement_type != rule.normalized:
                self.out.add(
                    "unknown_statement_type",
                    f"normalizedStatementType {item.normalized_statement_type!r} differs from the profile's "
                    f"{rule.normalized!r}",
                    artifact="nodes",
                    location=item.identifier,
                )
            for grade in item.grade_level:
                if profile.grade_label(grade) is None:
                    self.out.add(
                        "unknown_grade_label",
                        f"grade label {grade!r} is not in the profile",
                        artifact="nodes",
                        location=item.identifier,
                    )

    def _check_relationships(self) -> list[RelationshipRecord]:
        """Check every relationship; return the ones whose endpoints resolved correctly."""
        valid: list[RelationshipRecord] = []
        seen_ids: set[str] = set()
        seen_edges: set[tuple[str, str, str]] = set()
        allowed_links = set(self.profile.progression_labels) if self.profile else set(PROGRESSION_LABELS)
        for rel in self.content.relationships:
            where = rel.identifier
            if rel.identifier in seen_ids or rel.identifier in self.nodes:
                self.out.add(
                    "duplicate_identifier",
                    f"relationship identifier {rel.identifier} repeats",
                    artifact="relationships",
                    location=where,
                )
                continue
            seen_ids.add(rel.identifier)
            edge = (rel.label, rel.source_identifier, rel.target_identifier)
            if edge in seen_edges:
                self.out.add(
                    "duplicate_identifier",
                    f"{rel.label} edge between the same endpoints repeats",
                    artifact="relationships",
                    location=where,
                )
                continue
            seen_edges.add(edge)
            if rel.unresolved_status is not None and rel.unresolved_status not in UNRESOLVED_STATUSES:
                self.out.add(
                    "unresolved_without_status",
                    f"unresolvedStatus {rel.unresolved_status!r} is not a supported status",
                    artifact="relationships",
                    location=where,
                )
            if not self._endpoints_agree(rel):
                continue
            source = self.nodes[rel.source_identifier].label
            target = self.nodes[rel.target_identifier].label
            if rel.label == HAS_CHILD:
                if COMPONENT in (source, target):
                    self.out.add(
                        "component_in_hierarchy",
                        "a learning component appears in hasChild",
                        artifact="relationships",
                        location=where,
                    )
                    continue
                if target != ITEM:
                    self.out.add(
                        "hierarchy_edge_type",
                        "hasChild must point at a StandardsFrameworkItem",
                        artifact="relationships",
                        location=where,
                    )
                    continue
            elif rel.label == SUPPORTS:
                if source != COMPONENT or target != ITEM:
                    self.out.add(
                        "supports_direction",
                        "supports must run from a LearningComponent to an item",
                        artifact="relationships",
                        location=where,
                    )
                    continue
            else:
                if source != ITEM or target != ITEM or rel.source_identifier == rel.target_identifier:
                    self.out.add(
                        "progression_endpoint",
                        f"{rel.label} must join two distinct items of this package",
                        artifact="relationships",
                        location=where,
                    )
                    continue
                if rel.label not in allowed_links:
                    self.out.add(
                        "progression_endpoint",
                        f"the profile does not declare {rel.label} links",
                        artifact="relationships",
                        location=where,
                    )
                    continue
            if rel.support_confidence is not None and rel.label != SUPPORTS:
                self.out.add(
                    "invalid_encoding",
                    "supportConfidence belongs only to supports",
                    artifact="relationships",
                    location=where,
                )
            valid.append(rel)
        return valid

    def _endpoints_agree(self, rel: RelationshipRecord) -> bool:
        ok = True
        for side, identifier, label, key in (
            ("source", rel.source_identifier, rel.source_label, rel.source_entity_key),
            ("target", rel.target_identifier, rel.target_label, rel.target_entity_key),
        ):
            node = self.nodes.get(identifier)
            if node is None:
                self.out.add(
                    "dangling_endpoint",
                    f"{side} {identifier} is not a node of this package",
                    artifact="relationships",
                    location=rel.identifier,
                )
                ok = False
            elif node.label != label or key != entity_key_for(node.label):
                self.out.add(
                    "endpoint_key_mismatch",
                    f"{side} is a {node.label} (referenced by {entity_key_for(node.label)}), "
                    f"but the record says {label} by {key}",
                    artifact="relationships",
                    location=rel.identifier,
                )
                ok = False
        return ok

    def _check_hierarchy(self, edges: list[RelationshipRecord]) -> None:
        framework = self.content.framework
        if framework is None:
            return
        children: dict[str, list[str]] = defaultdict(list)
        parents: dict[str, list[str]] = defaultdict(list)
        for rel in edges:
            if rel.label == HAS_CHILD:
                children[rel.source_identifier].append(rel.target_identifier)
                parents[rel.target_identifier].append(rel.source_identifier)
        rules = self.profile.hierarchy if self.profile else None
        allowed = (
            {(e.parent_type, e.child_type) for e in rules.allowed_edges}
            if rules is not None and rules.allowed_edges is not None
            else None
        )
        for item in self.content.items:
            item_parents = parents.get(item.identifier, [])
            if not item_parents:
                self.out.add(
                    "parent_cardinality",
                    "item has no hasChild parent",
                    artifact="relationships",
                    location=item.identifier,
                )
            elif rules is not None and len(item_parents) > rules.max_parents:
                self.out.add(
                    "parent_cardinality",
                    f"item has {len(item_parents)} parents; the profile's {rules.rule} allows {rules.max_parents}",
                    artifact="relationships",
                    location=item.identifier,
                )
            if allowed is not None:
                for parent_id in item_parents:
                    parent = self.nodes[parent_id]
                    parent_type = parent.statement_type if isinstance(parent, ItemNode) else FRAMEWORK_PARENT_TYPE
                    if (parent_type, item.statement_type) not in allowed:
                        self.out.add(
                            "hierarchy_edge_type",
                            f"{parent_type!r} → {item.statement_type!r} is not an allowed hasChild pair",
                            artifact="relationships",
                            location=item.identifier,
                        )
        # Kahn's algorithm from the root: whatever is never released sits on or below a cycle.
        indegree = {node_id: len(p) for node_id, p in parents.items()}
        depth: dict[str, int] = {framework.identifier: 0}
        queue = deque([framework.identifier])
        released = 0
        while queue:
            node_id = queue.popleft()
            released += 1
            for child in children.get(node_id, ()):
                depth[child] = max(depth.get(child, 0), depth[node_id] + 1)
                indegree[child] -= 1
                if indegree[child] == 0:
                    queue.append(child)
        stuck = sorted(n for n, d in indegree.items() if d > 0)
        if stuck:
            self.out.add(
                "hierarchy_cycle",
                f"{len(stuck)} items sit on or below a hasChild cycle",
                artifact="relationships",
                location=stuck[0],
            )
        if rules is not None:
            deepest = max(depth.values())
            if deepest > rules.max_depth:
                too_deep = sorted(n for n, d in depth.items() if d > rules.max_depth)
                self.out.add(
                    "depth_exceeded",
                    f"hierarchy depth {deepest} exceeds the profile's maximum {rules.max_depth}",
                    artifact="relationships",
                    location=too_deep[0],
                )

    def _check_components(self, edges: list[RelationshipRecord]) -> None:
        supported = {rel.source_identifier for rel in edges if rel.label == SUPPORTS}
        for component in self.content.components:
            if component.identifier not in supported:
                self.out.add(
                    "unsupported_component",
                    "no supports relationship starts at this component",
                    artifact="relationships",
                    location=component.identifier,
                )

    def _check_codes(self) -> None:
        if self.profile is None:
            return
        policy = self.profile.code_policy
        pattern = re.compile(policy.pattern) if policy.pattern else None
        seen: dict[str, str] = {}
        for item in self.content.items:
            code = item.statement_code
            rule = self.profile.statement_type(item.statement_type)
            if code is None:
                if policy.codes_present == "allStandards" and rule is not None and rule.role == "standard":
                    self.out.add(
                        "code_policy_violation",
                        "the profile requires a code on every standard",
                        artifact="nodes",
                        location=item.identifier,
                    )
                continue
            if policy.codes_present == "none":
                self.out.add(
                    "code_policy_violation",
                    "the profile declares that items carry no codes",
                    artifact="nodes",
                    location=item.identifier,
                )
                continue
            if pattern is not None and pattern.fullmatch(code) is None:
                self.out.add(
                    "code_policy_violation",
                    f"code {code!r} does not match the profile's pattern",
                    artifact="nodes",
                    location=item.identifier,
                )
            key = code.casefold() if policy.normalization == "casefold" else code
            if policy.unique and key in seen:
                self.out.add(
                    "code_policy_violation",
                    f"code {code!r} repeats but the profile says codes are unique",
                    artifact="nodes",
                    location=item.identifier,
                )
            seen.setdefault(key, item.identifier)

    def _check_counts(self) -> None:
        content, declared = self.content, self.manifest.counts
        by_label = Counter(rel.label for rel in content.relationships)
        by_type = Counter(item.statement_type for item in content.items)
        roles = (
            Counter(
                (rule.role if (rule := self.profile.statement_type(t)) else "unknown")
                for t in (item.statement_type for item in content.items)
            )
            if self.profile
            else None
        )
        actual: list[tuple[str, object, object]] = [
            ("standards.frameworks", declared.standards.frameworks, 1 if content.framework else 0),
            ("standards.items", declared.standards.items, len(content.items)),
            (
                "standards.itemsByStatementType",
                declared.standards.items_by_statement_type,
                dict(sorted(by_type.items())),
            ),
            (
                "standards.itemsWithCode",
                declared.standards.items_with_code,
                sum(1 for i in content.items if i.statement_code is not None),
            ),
            ("learningComponents.components", declared.learning_components.components, len(content.components)),
            ("relationships.hasChild", declared.relationships.has_child, by_label[HAS_CHILD]),
            ("relationships.supports", declared.relationships.supports, by_label[SUPPORTS]),
            ("relationships.buildsTowards", declared.relationships.builds_towards, by_label[BUILDS_TOWARDS]),
            ("relationships.relatesTo", declared.relationships.relates_to, by_label[RELATES_TO]),
        ]
        if roles is not None:
            actual.append(("standards.standards", declared.standards.standards, roles["standard"]))
            actual.append(("standards.groupings", declared.standards.groupings, roles["grouping"]))
        for name, expected, found in actual:
            if expected != found:
                self.out.add(
                    "count_mismatch",
                    f"counts.{name} declares {expected}, the package has {found}",
                    location=MANIFEST_FILENAME,
                )
        self._check_capabilities(by_label)

    def _check_capabilities(self, by_label: Counter[RelationshipLabel]) -> None:
        caps, content = self.manifest.capabilities, self.content
        links = by_label[BUILDS_TOWARDS] + by_label[RELATES_TO]
        has_codes = any(i.statement_code is not None for i in content.items)
        policy = self.profile.code_policy if self.profile else None
        problems = []
        if caps.learning_components != bool(content.components):
            problems.append("learningComponents must be true exactly when the package has components")
        if caps.learning_progressions != bool(links):
            problems.append("learningProgressions must be true exactly when the package has progression links")
        if caps.text_search and not content.items:
            problems.append("textSearch needs items")
        if caps.exact_code_search and not (has_codes and (policy is None or policy.exact_search)):
            problems.append("exactCodeSearch needs codes and a profile that allows it")
        if caps.prefix_code_search and not (caps.exact_code_search and (policy is None or policy.prefix_search)):
            problems.append("prefixCodeSearch needs exactCodeSearch and a profile that allows it")
        contains = ["AcademicStandards"]
        if content.components:
            contains.append("LearningComponents")
        if links:
            contains.append("LearningProgressions")
        if list(self.manifest.graph_types.contains) != contains:
            problems.append(f"graphTypes.contains must be {contains}")
        for problem in problems:
            self.out.add("capability_mismatch", problem, location=MANIFEST_FILENAME)


class DetailedArtifactRules:
    """Detailed artifacts must agree with the delivery records they elaborate."""

    def __init__(
        self, manifest: PackageManifest, reader: ArtifactReader, content: DecodedPackage, out: FindingCollector
    ) -> None:
        self.manifest = manifest
        self.reader = reader
        self.content = content
        self.out = out

    def run(self) -> None:
        self._check_framework_document()
        self._check_item_lines()
        self._check_has_child_lines()
        self._check_bundle()
        self._check_unresolved()
        self._check_provenance()

    def _document(self, logical_name: str) -> dict[str, Any] | None:
        if not self.reader.available(logical_name):
            return None
        document = self.reader.document(logical_name)
        if document is None:
            return None
        if not isinstance(document, dict):
            self.out.add("detailed_artifact_mismatch", "expected a JSON object", artifact=logical_name)
            return None
        if document.get("graphPackageId") != self.manifest.graph_package_id:
            self.out.add("identity_mismatch", "graphPackageId differs from the manifest", artifact=logical_name)
        return document

    def _mismatch(self, logical_name: str, message: str, location: str | None = None) -> None:
        self.out.add("detailed_artifact_mismatch", message, artifact=logical_name, location=location)

    def _check_framework_document(self) -> None:
        document = self._document("standardsFramework")
        framework = self.content.framework
        if (
            document is not None
            and framework is not None
            and document.get("framework", {}).get("caseIdentifierUUID") != framework.case_identifier_uuid
        ):
            self._mismatch("standardsFramework", "framework caseIdentifierUUID differs from the nodes artifact")

    def _jsonl_ids(self, logical_name: str, key: str) -> list[str] | None:
        if not self.reader.available(logical_name):
            return None
        ids = []
        for number, line in self.reader.lines(logical_name):
            try:
                record = json.loads(line)
                ids.append(str(record[key]))
            except (ValueError, KeyError, TypeError):
                self.out.add(
                    "invalid_json_line",
                    f"not a JSON object with {key}",
                    artifact=logical_name,
                    location=line_location(number),
                )
                return None
        return ids

    def _check_item_lines(self) -> None:
        ids = self._jsonl_ids("standardsFrameworkItems", "caseIdentifierUUID")
        if ids is not None and ids != [item.case_identifier_uuid for item in self.content.items]:
            self._mismatch("standardsFrameworkItems", "items differ from the nodes artifact (ids or order)")

    def _check_has_child_lines(self) -> None:
        ids = self._jsonl_ids("relationshipsHasChild", "identifier")
        expected = [rel.identifier for rel in self.content.relationships if rel.label == HAS_CHILD]
        if ids is not None and ids != expected:
            self._mismatch("relationshipsHasChild", "hasChild records differ from the relationships artifact")

    def _check_bundle(self) -> None:
        document = self._document("academicStandardsBundle")
        if document is None:
            return
        items = document.get("items")
        if not isinstance(items, list) or [i.get("caseIdentifierUUID") for i in items if isinstance(i, dict)] != [
            item.case_identifier_uuid for item in self.content.items
        ]:
            self._mismatch("academicStandardsBundle", "bundle items differ from the nodes artifact")

    def _check_unresolved(self) -> None:
        document = self._document("unresolvedItems")
        if document is None:
            return
        entries = document.get("items")
        if not isinstance(entries, list):
            self._mismatch("unresolvedItems", "items must be a JSON array")
            return
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            where = f"items[{index}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("unresolvedId"), str):
                self._mismatch("unresolvedItems", "each entry is an object with an unresolvedId", where)
                continue
            if entry["unresolvedId"] in seen:
                self.out.add("duplicate_identifier", "unresolvedId repeats", artifact="unresolvedItems", location=where)
            seen.add(entry["unresolvedId"])
            if entry.get("status") not in UNRESOLVED_STATUSES:
                self.out.add(
                    "unresolved_without_status",
                    "unresolved entry lacks a supported status",
                    artifact="unresolvedItems",
                    location=entry["unresolvedId"],
                )
        if len(entries) != self.manifest.counts.unresolved_items:
            self.out.add(
                "count_mismatch",
                f"counts.unresolvedItems declares {self.manifest.counts.unresolved_items}, "
                f"the artifact has {len(entries)}",
                location=MANIFEST_FILENAME,
            )

    def _check_provenance(self) -> None:
        document = self._document("entityProvenance")
        if document is None:
            return
        entities = document.get("entities")
        if not isinstance(entities, dict):
            self.out.add("provenance_mismatch", "entities must be a JSON object", artifact="entityProvenance")
            return
        known = [self.content.framework.identifier] if self.content.framework else []
        known += [n.identifier for n in self.content.items]
        known += [n.identifier for n in self.content.components]
        known += [r.identifier for r in self.content.relationships]
        if self.manifest.capabilities.has_detailed_provenance:
            missing = [entity for entity in known if entity not in entities]
            if missing:
                self.out.add(
                    "provenance_mismatch",
                    f"{len(missing)} entities have no provenance",
                    artifact="entityProvenance",
                    location=missing[0],
                )
        unknown = sorted(set(entities) - set(known))
        if unknown:
            self.out.add(
                "provenance_mismatch",
                f"{len(unknown)} provenance entries name no entity",
                artifact="entityProvenance",
                location=unknown[0],
            )
        if len(entities) != self.manifest.counts.provenance_entities:
            self.out.add(
                "count_mismatch",
                f"counts.provenanceEntities declares {self.manifest.counts.provenance_entities}, "
                f"the artifact has {len(entities)}",
                location=MANIFEST_FILENAME,
            )
        expected_parts: list[dict[str, Any]] = [{} for _ in PART_ARTIFACTS]
        for entity_id, record in entities.items():
            expected_parts[provenance_part_of(entity_id)][entity_id] = record
        for index, logical_name in enumerate(PART_ARTIFACTS):
            part = self._document(logical_name)
            if part is None:
                continue
            if part.get("part") != index or part.get("entities") != expected_parts[index]:
                self.out.add(
                    "provenance_mismatch",
                    "part differs from the entities entityProvenance assigns it",
                    artifact=logical_name,
                )
