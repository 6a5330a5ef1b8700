"""Prompt service: validated arguments + accepted catalog + prompt configurations → instructions.

The nine MCP prompts and the ``get_workflow_instructions`` tool both come through here, so a tool
caller receives exactly the text the native prompt renders. Nothing is generated: rendering is a
deterministic function of the configuration, the selected packages and the arguments.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from kgfegmcp.catalog.catalog import AcceptedCatalog
from kgfegmcp.catalog.served import ServedPackage
from kgfegmcp.core.errors import (
    InvalidComparisonSelectionError,
    KgfegmcpError,
    PromptAccessDeniedError,
    PromptRenderingError,
    WorkflowInstructionsTooLargeError,
)
from kgfegmcp.core.limits import MAX_RENDERED_BYTES
from kgfegmcp.core.rendering import RESULT_MAX_BYTES, RESULT_MAX_CHARS, rendered_size
from kgfegmcp.prompts.arguments import ArgumentValues, parse_prompt_arguments, validate_arguments
from kgfegmcp.prompts.render import RenderInput, render_instructions
from kgfegmcp.prompts.repository import PromptRegistry
from kgfegmcp.prompts.workflows import WORKFLOWS, WorkflowSpec
from kgfegmcp.services.views import PackageIdentity, ResultModel, TextWithheld, package_identity, text_withheld
from kgfegmcp.services.workflow_request import GetWorkflowInstructionsRequest


class AttributionView(ResultModel):
    """The attribution a deliverable built from one package must carry."""

    graph_package_id: str
    attribution_statement: str
    source_license: str
    license_uri: str | None = None
    text_withheld: TextWithheld | None = None  # the tools give this package's standards without their text


class OverlayVersion(ResultModel):
    """One framework overlay used in a rendering."""

    framework_id: str
    version: str


class ConfigurationVersions(ResultModel):
    """Which prompt configuration versions produced the text."""

    common: str
    workflow: str
    overlays: list[OverlayVersion]


class WorkflowInstructionsResult(ResultModel):
    """The complete instructions of one workflow, exactly as its native prompt renders them."""

    workflow: str
    native_prompt: str
    title: str
    packages: list[PackageIdentity]
    attribution: list[AttributionView]
    configuration: ConfigurationVersions
    instructions: str
    instructions_bytes: int
    instructions_sha256: str


@dataclass(frozen=True, slots=True)
class RenderedWorkflow:
    """One rendering and what it was built from."""

    spec: WorkflowSpec
    values: ArgumentValues
    packages: tuple[ServedPackage, ...]
    configuration: ConfigurationVersions
    text: str

    @property
    def size(self) -> int:
        """UTF-8 bytes of the text."""
        return len(self.text.encode("utf-8"))


class PromptService:
    """Renders workflow instructions for the accepted catalog with the loaded configurations."""

    def __init__(self, catalog: AcceptedCatalog, registry: PromptRegistry) -> None:
        self.catalog = catalog
        self.registry = registry

    # ---- the two public paths ----

    def render_prompt(self, name: str, raw_arguments: Mapping[str, object] | None) -> RenderedWorkflow:
        """A native prompt: string arguments parsed strictly; above 64 KiB is ``prompt_rendering_error``."""
        spec = WORKFLOWS[name]
        rendered = self._render(spec, parse_prompt_arguments(spec, raw_arguments))
        if rendered.size > MAX_RENDERED_BYTES:
            raise PromptRenderingError(
                _too_large_message(rendered.size), hint=_SHRINK_HINT, details={"workflow": name, "bytes": rendered.size}
            )
        return rendered

    def workflow_instructions(self, request: GetWorkflowInstructionsRequest) -> WorkflowInstructionsResult:
        """The tool: the same text as the native prompt, or ``workflow_instructions_too_large``."""
        spec = WORKFLOWS[request.workflow]
        rendered = self._render(spec, validate_arguments(spec, request.argument_values()))
        if rendered.size > MAX_RENDERED_BYTES:
            raise WorkflowInstructionsTooLargeError(_too_large_message(rendered.size), hint=_SHRINK_HINT)
        result = WorkflowInstructionsResult(
            workflow=spec.name,
            native_prompt=spec.name,
            title=self.registry.workflows[spec.name].title,
            packages=[package_identity(p) for p in rendered.packages],
            attribution=[
                AttributionView(
                    graph_package_id=p.graph_package_id,
                    attribution_statement=p.rights.attribution_statement,
                    source_license=p.rights.source_license,
                    license_uri=p.rights.license_uri,
                    text_withheld=text_withheld(p),
                )
                for p in rendered.packages
            ],
            configuration=rendered.configuration,
            instructions=rendered.text,
            instructions_bytes=rendered.size,
            instructions_sha256=hashlib.sha256(rendered.text.encode("utf-8")).hexdigest(),
        )
        # The text block is the canonical JSON of the structured content: both copies count.
        size = rendered_size(result.to_wire())
        if not size.fits:
            raise WorkflowInstructionsTooLargeError(
                f"The complete result would be {size.chars} characters / {size.bytes} bytes (text plus "
                f"structured content), above the {RESULT_MAX_CHARS}-character / {RESULT_MAX_BYTES}-byte "
                "tool-result ceiling; it is not clipped.",
                hint=_SHRINK_HINT + " Clients that support prompts can use the native prompt instead.",
            )
        return result

    # ---- shared ----

    def _render(self, spec: WorkflowSpec, values: ArgumentValues) -> RenderedWorkflow:
        packages = self._select(spec, values)
        for package in packages:
            derivatives = package.rights.allow_generated_derivatives
            if derivatives != "allowed":
                raise PromptAccessDeniedError(
                    f"The rights policy of package {package.graph_package_id} does not allow generated-derivative "
                    f"workflows (allowGeneratedDerivatives is {derivatives!r}).",
                    hint="Use the evidence tools and resources directly; they are governed by their own rights gates.",
                )
        common = self.registry.common
        workflow = self.registry.workflows[spec.name]
        overlays = tuple(
            overlay
            for overlay in (self.registry.overlay(fid) for fid in dict.fromkeys(p.framework_id for p in packages))
            if overlay is not None
        )
        data = RenderInput(
            spec=spec,
            common=common,
            workflow=workflow,
            values=values,
            packages=tuple(p.prompt_facts for p in packages),
            overlays=overlays,
        )
        try:
            text = render_instructions(data)
        except KgfegmcpError:
            raise
        except (KeyError, ValueError, TypeError) as exc:
            raise PromptRenderingError(
                f"The {spec.name} instructions could not be rendered from the loaded configuration.",
                details={"error": type(exc).__name__},
            ) from None
        configuration = ConfigurationVersions(
            common=common.version,
            workflow=workflow.version,
            overlays=[OverlayVersion(framework_id=o.framework_id, version=o.version) for o in overlays],
        )
        return RenderedWorkflow(spec, values, packages, configuration, text)

    def _select(self, spec: WorkflowSpec, values: ArgumentValues) -> tuple[ServedPackage, ...]:
        framework_id = values.get("framework_id")
        if isinstance(framework_id, str):
            snapshot_id = values.get("snapshot_id")
            return (self.catalog.resolve(framework_id, snapshot_id if isinstance(snapshot_id, str) else None),)
        framework_ids = values.get("framework_ids")
        snapshot_ids = values.get("snapshot_ids")
        assert isinstance(framework_ids, tuple)
        wanted = snapshot_ids if isinstance(snapshot_ids, tuple) else ()
        # Same selection rule as compare_framework_evidence: a snapshot id pins every selected framework
        # that has it, must pin at least one, and no framework may be pinned twice.
        pinned: dict[str, str] = {}
        for snapshot_id in wanted:
            owners = [fid for fid in framework_ids if self.catalog.by_snapshot(fid, snapshot_id) is not None]
            if not owners:
                raise InvalidComparisonSelectionError(
                    f"snapshotId {snapshot_id!r} is not an accepted snapshot of any selected framework.",
                    hint="Each snapshot id must pin one of the frameworks named in framework_ids.",
                )
            for owner in owners:
                if owner in pinned:
                    raise InvalidComparisonSelectionError(
                        f"snapshot_ids pin framework {owner!r} twice; compare one snapshot per framework.",
                        hint="Keep one snapshot id per framework.",
                    )
                pinned[owner] = snapshot_id
        return tuple(self.catalog.resolve(fid, pinned.get(fid)) for fid in framework_ids)


_SHRINK_HINT = "Shorten local_context, available_materials or learner_context, or pass fewer selectors or facets."


def _too_large_message(size: int) -> str:
    return (
        f"The rendered instructions would be {size} bytes, above the {MAX_RENDERED_BYTES}-byte limit; "
        "instructions are never clipped."
    )
