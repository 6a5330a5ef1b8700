"""The entity views of resource documents: a relationship or a learning component with every address it has.

Resource documents are self-contained (each names its package and carries full URIs), unlike the
compact tool answers, which refer to their package once.
"""

from __future__ import annotations

from typing import Any

from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.packages.records import COMPONENT, ITEM, PROGRESSION_LABELS, ComponentNode, NodeLabel, RelationshipRecord
from kgfegmcp.resources import uris


def node_uri(package: ServedPackage, label: NodeLabel, node_id: str) -> str:
    fid, sid = package.framework_id, package.snapshot_id
    if label == ITEM:
        return uris.standard_uri(fid, sid, node_id)
    if label == COMPONENT:
        return uris.learning_component_uri(fid, sid, node_id)
    return uris.snapshot_uri(fid, sid)


def relationship_view(package: ServedPackage, rel: RelationshipRecord) -> dict[str, Any]:
    fid, sid = package.framework_id, package.snapshot_id
    view: dict[str, Any] = {
        "graphPackageId": package.graph_package_id,
        "relationshipId": rel.identifier,
        "label": rel.label,
        "sourceNodeId": rel.source_identifier,
        "sourceLabel": rel.source_label,
        "sourceEntityKey": rel.source_entity_key,
        "sourceUri": node_uri(package, rel.source_label, rel.source_identifier),
        "targetNodeId": rel.target_identifier,
        "targetLabel": rel.target_label,
        "targetEntityKey": rel.target_entity_key,
        "targetUri": node_uri(package, rel.target_label, rel.target_identifier),
        "relationshipUri": uris.relationship_uri(fid, sid, rel.identifier),
    }
    if rel.label in PROGRESSION_LABELS:
        view["learningProgressionUri"] = uris.learning_progression_uri(fid, sid, rel.identifier)
    if rel.support_confidence is not None:
        view["supportConfidence"] = rel.support_confidence
    if rel.unresolved_status is not None:
        view["unresolvedStatus"] = rel.unresolved_status
    return view


def component_view(package: ServedPackage, component: ComponentNode) -> dict[str, Any]:
    fid, sid = package.framework_id, package.snapshot_id
    view: dict[str, Any] = {
        "graphPackageId": package.graph_package_id,
        "nodeId": component.identifier,
        "description": component.description,
        "inLanguage": component.in_language,
        "tags": list(component.tags),
        "uri": uris.learning_component_uri(fid, sid, component.identifier),
        "provenanceUri": uris.learning_component_provenance_uri(fid, sid, component.identifier),
    }
    optional = {
        "academicSubject": component.academic_subject,
        "author": component.author,
        "provider": component.provider,
        "license": component.license,
        "attributionStatement": component.attribution_statement,
    }
    view.update({key: value for key, value in optional.items() if value is not None})
    return view
