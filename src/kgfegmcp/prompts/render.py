"""Deterministic renderer: configuration + validated arguments + package facts → instruction text.

No model call, no randomness, no clock: the same configuration, catalog and arguments give the
same bytes. User-supplied text is rendered once, JSON-quoted or in a quoted block, and is never
re-interpolated, so it cannot inject placeholders or break out of its block.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from kgfegmcp.prompts.arguments import ArgumentValue, ArgumentValues
from kgfegmcp.prompts.model import CallConfig, CommonConfig, Conditions, OverlayConfig, WorkflowConfig
from kgfegmcp.prompts.repository import (
    BLOCK_ARGUMENTS,
    EACH,
    EACH_SNAPSHOT,
    PLACEHOLDER,
    SELECTOR_ARGUMENTS,
    SELECTOR_KEY,
)
from kgfegmcp.prompts.workflows import WorkflowSpec

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ABSENT = object()


@dataclass(frozen=True, slots=True)
class GradeFact:
    """A local grade label a package uses, with its normalised facet."""

    source_label: str
    facet: str | None
    display: str | None


@dataclass(frozen=True, slots=True)
class PackageFacts:
    """What the renderer may state about one package: all of it deterministic server context."""

    graph_package_id: str
    framework_id: str
    snapshot_id: str
    title: str
    framework_name: str
    in_language: str
    is_current: bool
    manifest_uri: str
    unresolved_uri: str
    capabilities: tuple[tuple[str, bool], ...]
    standards_items: int
    statement_types: tuple[tuple[str, str, int], ...]
    learning_components: int
    builds_towards: int
    relates_to: int
    supports: int
    unresolved_items: int
    code_pattern: str | None
    grade_labels: tuple[GradeFact, ...]
    disclosures: tuple[tuple[str, str], ...]
    attribution_statement: str
    source_license: str
    license_uri: str | None

    def capability(self, name: str) -> bool:
        """Whether the package declares capability ``name``."""
        return dict(self.capabilities).get(name, False)


@dataclass(frozen=True, slots=True)
class RenderInput:
    """Everything one rendering needs."""

    spec: WorkflowSpec
    common: CommonConfig
    workflow: WorkflowConfig
    values: ArgumentValues
    packages: tuple[PackageFacts, ...]
    overlays: tuple[OverlayConfig, ...]


#: The longest statement code or node id a standard selector accepts (the tools' own bound).
MAX_SELECTOR_KEY_CHARS = 256
#: Stands in for a selector given as descriptive text: the host finds the standard by search first.
SEARCH_FIRST_SELECTOR = {"nodeId": "<nodeId found by searching for the given text>"}


def selector_for(text: str) -> dict[str, str]:
    """A standard selector from the requester's text.

    UUID-shaped text is a ``nodeId``; a single token that fits the tools' bound is a ``statementCode``;
    anything else (words, a pasted statement) cannot select a standard directly, so the shape asks
    for the nodeId that a search for it finds.
    """
    if _UUID.fullmatch(text):
        return {"nodeId": text}
    if len(text) <= MAX_SELECTOR_KEY_CHARS and not any(ch.isspace() for ch in text):
        return {"statementCode": text}
    return dict(SEARCH_FIRST_SELECTOR)


def _selector_note(text: str) -> str:
    selector = selector_for(text)
    if selector == SEARCH_FIRST_SELECTOR:
        return (
            f"{_quoted(text)} is descriptive text, not a code or id: find the standard with search_standards "
            "(its key words as the query) and select it by nodeId"
        )
    return _quoted(selector)


def _quoted(value: ArgumentValue | Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _prose_value(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(_quoted(item) for item in value)
    return str(value)


class Renderer:
    """Renders one workflow; instantiate per call (it holds only that call's values)."""

    def __init__(self, data: RenderInput) -> None:
        self._data = data
        self._values: dict[str, Any] = dict(data.values)
        self._snapshot_of: dict[str, str] = {}
        packages = data.packages
        if data.spec.argument("framework_ids") is not None:
            self._values["resolved_snapshot_ids"] = tuple(dict.fromkeys(p.snapshot_id for p in packages))
            self._snapshot_of = {p.framework_id: p.snapshot_id for p in packages}
            self._values["graph_package_ids"] = tuple(p.graph_package_id for p in packages)
        else:
            self._values["graph_package_id"] = packages[0].graph_package_id
            self._values["resolved_snapshot_id"] = packages[0].snapshot_id
            self._values["framework_title"] = packages[0].title
            self._values["manifest_uri"] = packages[0].manifest_uri
            self._values["unresolved_uri"] = packages[0].unresolved_uri

    # ---- public ----

    def render(self) -> str:
        """The complete instruction text (ends with one newline)."""
        data = self._data
        lines: list[str] = []
        lines += self._header()
        lines += self._role()
        lines += self._request()
        lines += self._packages()
        for overlay in data.overlays:
            lines += self._overlay(overlay)
        lines += self._rules()
        lines += self._section("Calling the tools", list(data.common.call_convention))
        lines += self._steps()
        lines += self._deliverable()
        lines += self._attribution()
        text = "\n".join(lines).rstrip("\n") + "\n"
        return text

    # ---- sections ----

    def _header(self) -> list[str]:
        data = self._data
        versions = [f"common {data.common.version}", f"workflow {data.workflow.version}"]
        versions += [f"overlay {o.framework_id} {o.version}" for o in data.overlays]
        return [
            f"# {data.workflow.title}",
            "",
            f"Workflow `{data.spec.name}`. Instructions rendered deterministically by KGForEdGlobalMCP from versioned "
            f"prompt configuration ({'; '.join(versions)}). No model was called to produce them, and the server "
            "does not generate or check the deliverable.",
            "",
        ]

    def _role(self) -> list[str]:
        paragraphs = list(self._data.common.preamble) + [self._interpolate(p) for p in self._data.workflow.purpose]
        return self._section("Your task", paragraphs)

    def _request(self) -> list[str]:
        lines = ["## Request", ""]
        blocks: list[tuple[str, str]] = []
        for use in self._data.spec.arguments:
            name = use.spec.name
            if name not in self._data.values:
                lines.append(f"- `{name}`: not given")
                continue
            value = self._data.values[name]
            if name in BLOCK_ARGUMENTS:
                lines.append(f"- `{name}`: given (quoted below)")
                blocks.append((name, str(value)))
                continue
            if name in SELECTOR_ARGUMENTS:
                # The selector form contains the given text, so the value is shown once, as selectors.
                if isinstance(value, tuple):
                    lines.append(f"- `{name}` ({len(value)}), as standard selectors:")
                    lines += [f"  {index}. {_selector_note(item)}" for index, item in enumerate(value, start=1)]
                else:
                    lines.append(f"- `{name}`, as a standard selector: {_selector_note(str(value))}")
                continue
            lines.append(f"- `{name}`: {_quoted(value)}")
        lines.append("")
        if blocks:
            lines += [self._data.common.untrusted_input_notice, ""]
            for name, text in blocks:
                lines.append(f"### `{name}` (supplied by the requester)")
                lines.append("")
                lines += ["> " + line if line else ">" for line in text.split("\n")]
                lines.append("")
        return lines

    def _packages(self) -> list[str]:
        lines = ["## Package facts (deterministic server context)", ""]
        for facts in self._data.packages:
            if len(self._data.packages) > 1:
                lines += [f"### `{facts.graph_package_id}`", ""]
            current = "current snapshot" if facts.is_current else "not the current snapshot"
            lines.append(f"- Graph package `{facts.graph_package_id}` ({current}): {facts.title}")
            lines.append(f"- Framework: {facts.framework_name}; language of the source text: `{facts.in_language}`")
            lines.append(f"- Manifest (cite it for package identity): {facts.manifest_uri}")
            caps = ", ".join(f"{name} {'yes' if value else 'no'}" for name, value in facts.capabilities)
            lines.append(f"- Capabilities: {caps}")
            standards = [f"{t} ({n})" for t, role, n in facts.statement_types if role == "standard"]
            groupings = [f"{t} ({n})" for t, role, n in facts.statement_types if role != "standard"]
            lines.append(
                f"- {facts.standards_items} standards items. Statement types with the standard role: "
                f"{', '.join(standards) or 'none'}; groupings: {', '.join(groupings) or 'none'}"
            )
            lines.append(
                f"- Stored relationships: {facts.builds_towards} buildsTowards, {facts.relates_to} relatesTo, "
                f"{facts.supports} supports; {facts.learning_components} learning components; "
                f"{facts.unresolved_items} unresolved items kept as evidence"
            )
            if facts.code_pattern:
                lines.append(f"- Statement codes follow the pattern `{facts.code_pattern}`")
            if facts.grade_labels:
                grades = []
                for grade in facts.grade_labels:
                    extra = [part for part in (grade.facet, grade.display) if part and part != grade.source_label]
                    grades.append(f"{_quoted(grade.source_label)}" + (f" ({'; '.join(extra)})" if extra else ""))
                lines.append(f"- Local grade labels used by this package: {', '.join(grades)}")
            lines += self._unknown_grades(facts)
            if facts.disclosures:
                lines.append("- Disclosures (keep them with any output built from this package):")
                lines += [f"  - `{disclosure_id}`: {text}" for disclosure_id, text in facts.disclosures]
            lines.append("")
        return lines

    def _unknown_grades(self, facts: PackageFacts) -> list[str]:
        asked: list[tuple[str, str]] = []
        for name in ("grade_level", "grade_levels"):
            value = self._data.values.get(name)
            if isinstance(value, str):
                asked.append((f"`{name}`", value))
            elif isinstance(value, tuple):
                asked.extend((f"`{name}[{index}]`", item) for index, item in enumerate(value))
        known = {g.source_label for g in facts.grade_labels} | {g.facet for g in facts.grade_labels if g.facet}
        unknown = [where for where, label in asked if label not in known]
        if not unknown:
            return []
        return [
            f"- Requested grade value(s) {', '.join(unknown)} (see Request) match no grade label or facet of "
            f"`{facts.graph_package_id}`: a grade filter with them is refused there (invalid_request). Ask the "
            "requester which local label they mean; do not map grades across frameworks yourself."
        ]

    def _overlay(self, overlay: OverlayConfig) -> list[str]:
        lines = [
            f"## Framework guidance for `{overlay.framework_id}` (overlay {overlay.version}, language "
            f"`{overlay.language}`)",
            "",
        ]
        if overlay.terminology:
            lines.append("Terminology (keep these source terms; translate only alongside them):")
            lines += [f"- **{term.term}**: {term.meaning}" for term in overlay.terminology]
            lines.append("")
        specific = overlay.workflows.get(self._data.spec.name)
        context = [*overlay.context, *(specific.context if specific else ())]
        warnings = [*overlay.warnings, *(specific.warnings if specific else ())]
        if context:
            lines.append("Context:")
            lines += [f"- {paragraph}" for paragraph in context]
            lines.append("")
        if warnings:
            lines.append("Warnings (carry them into the deliverable where they apply):")
            lines += [f"- {paragraph}" for paragraph in warnings]
            lines.append("")
        return lines

    def _rules(self) -> list[str]:
        data = self._data
        rules = [*data.common.ground_rules, *(self._interpolate(r) for r in data.workflow.rules)]
        lines = ["## Ground rules", ""]
        lines += [f"{index}. {rule}" for index, rule in enumerate(rules, start=1)]
        lines.append("")
        if data.workflow.uses_progressions:
            lines += ["Progression evidence:", ""]
            lines += [f"- {paragraph}" for paragraph in data.common.progression_notice]
            lines.append("")
        return lines

    def _steps(self) -> list[str]:
        lines = ["## Steps", ""]
        number = 0
        for step in self._data.workflow.steps:
            if not self._applies(step):
                continue
            number += 1
            lines += [f"### Step {number}. {self._interpolate(step.title)}", "", self._interpolate(step.text), ""]
            for note in step.notes:
                lines.append(f"Note: {self._interpolate(note)}")
            if step.notes:
                lines.append("")
            for call in step.calls:
                if self._applies(call):
                    lines += self._call(call)
        return lines

    def _call(self, call: CallConfig) -> list[str]:
        item: str | None = None
        if call.for_each is not None:
            values = self._data.values.get(call.for_each)
            items = values if isinstance(values, tuple) else ()
            if not items:
                return []
            item = items[0]
            self._values[EACH] = item
            if call.for_each == "framework_ids":
                self._values[EACH_SNAPSHOT] = self._snapshot_of[item]
        purpose = self._interpolate(call.purpose)
        if call.for_each is not None:
            count = len(self._data.values[call.for_each])  # type: ignore[arg-type]
            changing = "that framework id and its snapshot" if call.for_each == "framework_ids" else "only that value"
            purpose += (
                f" Make this call once for each of the {count} value(s) of `{call.for_each}` (listed under "
                f"Request), changing {changing}; it is shown for the first."
            )
        request = self._request_value(call.request, item)
        self._values.pop(EACH, None)
        self._values.pop(EACH_SNAPSHOT, None)
        return [f"- Call `{call.tool}`: {purpose}", "", "    " + _quoted({"request": request}), ""]

    def _deliverable(self) -> list[str]:
        data = self._data
        labels = data.common.material_labels
        lines = ["## Deliverable", ""]
        lines.append("Label every part of the deliverable with the kind of material it holds:")
        lines += [f"- {labels[kind]}" for kind in ("source_evidence", "server_context", "generated")]
        lines.append("")
        for section in data.workflow.output:
            lines += [f"### {self._interpolate(section.heading)}", "", f"Material: {labels[section.material]}", ""]
            lines += [self._interpolate(section.guidance), ""]
        for overlay in data.overlays:
            specific = overlay.workflows.get(data.spec.name)
            guidance = [*overlay.output_guidance, *(specific.output_guidance if specific else ())]
            if guidance:
                lines += [f"Output guidance for `{overlay.framework_id}`:", ""]
                lines += [f"- {paragraph}" for paragraph in guidance]
                lines.append("")
        if data.workflow.checks:
            lines += ["Before you answer, check:", ""]
            lines += [f"- {self._interpolate(check)}" for check in data.workflow.checks]
            lines.append("")
        return lines

    def _attribution(self) -> list[str]:
        lines = ["## Attribution (reproduce verbatim in the deliverable)", ""]
        for facts in self._data.packages:
            lines.append(f"- `{facts.graph_package_id}`: {facts.attribution_statement}")
            licence = facts.source_license + (f" ({facts.license_uri})" if facts.license_uri else "")
            lines.append(f"  Source licence: {licence}")
        lines += ["", self._data.common.attribution_notice]
        return lines

    # ---- helpers ----

    @staticmethod
    def _section(title: str, paragraphs: list[str]) -> list[str]:
        lines = [f"## {title}", ""]
        for paragraph in paragraphs:
            lines += [paragraph, ""]
        return lines

    def _applies(self, item: Conditions) -> bool:
        values = self._data.values
        if any(name not in values for name in item.when) or any(name in values for name in item.unless):
            return False
        return all(
            all(p.capability(name) == expected for p in self._data.packages)
            for name, expected in item.capabilities.items()
        )

    def _interpolate(self, text: str) -> str:
        return PLACEHOLDER.sub(lambda match: _prose_value(self._values[match.group(1)]), text)

    def _request_value(self, template: Any, item: str | None) -> Any:
        if isinstance(template, dict):
            out: dict[str, Any] = {}
            for key, value in template.items():
                if key == SELECTOR_KEY:
                    chosen = self._values.get(value)
                    text = item if isinstance(chosen, tuple) and item is not None else chosen
                    out.update(selector_for(str(text)))
                    continue
                rendered = self._request_value(value, item)
                if rendered is not _ABSENT:
                    out[key] = rendered
            return out
        if isinstance(template, list):
            rendered_items = [self._request_value(value, item) for value in template]
            return [value for value in rendered_items if value is not _ABSENT]
        if isinstance(template, str):
            match = PLACEHOLDER.fullmatch(template)
            if match is None:
                return template
            value = self._values.get(match.group(1), _ABSENT)
            return list(value) if isinstance(value, tuple) else value
        return template


def render_instructions(data: RenderInput) -> str:
    """Render one workflow's complete instructions."""
    return Renderer(data).render()
