"""What workflow instructions may say about one package, computed once when the package is served."""

from __future__ import annotations

from collections import Counter

from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.prompts.render import GradeFact, PackageFacts
from kgfegmcp.resources import uris


def package_facts(runtime: PackageRuntime) -> PackageFacts:
    """Deterministic facts about one package: manifest counts and capabilities, profile vocabulary."""
    manifest, profile = runtime.manifest, runtime.profile.profile
    # One pass: items repeat a handful of (type, grades) pairs, from which both the grades and the types count.
    pairs = Counter((item.statement_type, item.grade_level) for item in runtime.items)
    used = {label for _, labels in pairs for label in labels}
    grades = []
    for label in profile.in_grade_order(used):
        declared = profile.grade_label(label)
        grades.append(GradeFact(label, declared.facet, declared.display) if declared else GradeFact(label, None, None))
    by_type: Counter[str] = Counter()
    for (statement_type, _), count in pairs.items():
        by_type[statement_type] += count
    types: list[tuple[str, str, int]] = []
    for rule in profile.statement_types:
        if by_type.get(rule.source_type):
            types.append((rule.source_type, rule.role, by_type[rule.source_type]))
    types += [(t, "undeclared", n) for t, n in sorted(by_type.items()) if profile.statement_type(t) is None and n]
    caps = manifest.capabilities_view.to_wire()
    rights = runtime.rights
    relationships = manifest.counts.links
    return PackageFacts(
        graph_package_id=runtime.graph_package_id,
        framework_id=runtime.framework_id,
        snapshot_id=runtime.snapshot_id,
        title=manifest.title,
        framework_name=runtime.framework.name,
        in_language=runtime.framework.in_language,
        is_current=manifest.is_current,
        manifest_uri=uris.manifest_uri(runtime.framework_id, runtime.snapshot_id),
        unresolved_uri=uris.unresolved_uri(runtime.framework_id, runtime.snapshot_id),
        capabilities=tuple((name, bool(caps[name])) for name in sorted(caps)),
        standards_items=manifest.counts.items,
        statement_types=tuple(types),
        learning_components=manifest.counts.components,
        builds_towards=relationships.builds_towards,
        relates_to=relationships.relates_to,
        supports=relationships.supports,
        unresolved_items=manifest.counts.unresolved,
        code_pattern=profile.code_policy.pattern,
        grade_labels=tuple(grades),
        disclosures=tuple((d.disclosure_id, d.text) for d in profile.disclosures),
        attribution_statement=rights.attribution_statement,
        source_license=rights.source_license,
        license_uri=rights.license_uri,
    )
