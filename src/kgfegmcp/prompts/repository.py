"""Loads and checks the versioned prompt configurations against the accepted catalog.

Layout under the prompts root (``KGFEGMCP_PROMPTS_DIR``, default the shipped ``kgfegmcp/shipped/prompts``)::

    common/<version>.json                      rules shared by every workflow
    workflows/<workflow>/<version>.json        one generic configuration per workflow (all nine required)
    overlays/<framework-id>/<version>.json     optional framework guidance
    README.md                                  documentation (ignored)

The highest version in each folder is the one rendered; every version present is validated.
Anything malformed or unexpected stops start-up with ``prompt_configuration_error``: configuration
is never half-applied. An overlay for a framework the accepted catalog does not serve (not in the
package root, or excluded) is validated all the same, then skipped with one log line: one prompts
root serves any subset of the catalog.
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from kgfegmcp.core.errors import PromptConfigurationError
from kgfegmcp.core.package_files import PackageFile, PackageFileError, PackageJsonError, parse_package_json
from kgfegmcp.prompts.model import (
    PROMPT_CONFIG_VERSION_PATTERN,
    CallConfig,
    CommonConfig,
    OverlayConfig,
    StepConfig,
    WorkflowConfig,
)
from kgfegmcp.prompts.workflows import WORKFLOW_NAMES, WORKFLOWS, WorkflowSpec

MAX_CONFIG_BYTES = 1024 * 1024
COMMON_DIR = "common"
WORKFLOWS_DIR = "workflows"
OVERLAYS_DIR = "overlays"
ALLOWED_TOP_LEVEL = frozenset({COMMON_DIR, WORKFLOWS_DIR, OVERLAYS_DIR, "README.md"})

PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
SELECTOR_KEY = "$selector"
_REQUEST_KEY = re.compile(r"^[a-z][A-Za-z0-9]{0,63}$")
#: Long free-text arguments: shown once in their own quoted block, never interpolated.
BLOCK_ARGUMENTS = frozenset({"local_context", "available_materials", "learner_context"})
#: Arguments that name a standard and can become a ``statementCode`` / ``nodeId`` selector.
SELECTOR_ARGUMENTS = frozenset({"standard", "target_standard", "standards"})
#: Values the renderer computes for single-package and multi-package workflows.
SINGLE_PACKAGE_DERIVED = frozenset(
    {"graph_package_id", "resolved_snapshot_id", "framework_title", "manifest_uri", "unresolved_uri"}
)
#: Inside a ``forEach`` call: the current value of the list argument (and, over ``framework_ids``,
#: the snapshot resolved for that framework).
EACH = "each"
EACH_SNAPSHOT = "each_snapshot"
MULTI_PACKAGE_DERIVED = frozenset({"resolved_snapshot_ids", "graph_package_ids"})
_HINT = "Correct the named prompt configuration file (the shipped prompts' README.md describes the layout)."

M = TypeVar("M", bound=BaseModel)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PromptRegistry:
    """The configurations one server lifespan renders: immutable once loaded."""

    common: CommonConfig
    workflows: dict[str, WorkflowConfig]
    overlays: dict[str, OverlayConfig]

    def overlay(self, framework_id: str) -> OverlayConfig | None:
        """The overlay for ``framework_id``, if one is configured."""
        return self.overlays.get(framework_id)


def _error(message: str) -> PromptConfigurationError:
    return PromptConfigurationError(message, hint=_HINT)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def derived_names(spec: WorkflowSpec) -> frozenset[str]:
    """Placeholders the renderer supplies itself for this workflow."""
    return MULTI_PACKAGE_DERIVED if spec.argument("framework_ids") else SINGLE_PACKAGE_DERIVED


class PromptConfigRepository:
    """Read-only loader of one prompts root."""

    def __init__(self, root: Path) -> None:
        self._root = root

    @property
    def root(self) -> Path:
        """The prompts root directory."""
        return self._root

    def load(self, framework_ids: Iterable[str], excluded_framework_ids: Iterable[str] = ()) -> PromptRegistry:
        """Validate everything under the root; keep the overlays of the accepted framework ids.

        An overlay for any other framework is validated just the same (a malformed one still stops
        start-up), then skipped, so an operator can serve a subset of the catalog, or have the
        invalid-package policy exclude a package, with the shipped prompts root. The skip is logged
        as a warning: a misspelt overlay folder is skipped too, and should not go unnoticed.
        ``excluded_framework_ids`` (discovered but not accepted) only words that line.
        """
        known = frozenset(framework_ids)
        excluded = frozenset(excluded_framework_ids) - known
        if not self._root.is_dir() or self._root.is_symlink():
            raise _error("The prompts directory does not exist or is not a directory.")
        for entry in sorted(self._root.iterdir()):
            if entry.name.startswith("."):
                continue
            if entry.name not in ALLOWED_TOP_LEVEL:
                raise _error(f"Unexpected entry {entry.name!r} in the prompts directory.")
        common = self._latest(self._root / COMMON_DIR, CommonConfig, COMMON_DIR)
        workflows_root = self._root / WORKFLOWS_DIR
        workflows: dict[str, WorkflowConfig] = {}
        for folder in self._folders(workflows_root, WORKFLOWS_DIR):
            if folder.name not in WORKFLOWS:
                raise _error(f"{WORKFLOWS_DIR}/{folder.name} is not one of the nine workflows.")
            config = self._latest(folder, WorkflowConfig, f"{WORKFLOWS_DIR}/{folder.name}")
            if config.workflow != folder.name:
                raise _error(f"{WORKFLOWS_DIR}/{folder.name} holds a configuration for workflow {config.workflow!r}.")
            check_workflow(config, f"{WORKFLOWS_DIR}/{folder.name}")
            workflows[folder.name] = config
        missing = [name for name in WORKFLOW_NAMES if name not in workflows]
        if missing:
            raise _error(f"No generic configuration for workflow(s) {', '.join(missing)}.")
        overlays: dict[str, OverlayConfig] = {}
        overlays_root = self._root / OVERLAYS_DIR
        if overlays_root.exists() or overlays_root.is_symlink():
            for folder in self._folders(overlays_root, OVERLAYS_DIR):
                where = f"{OVERLAYS_DIR}/{folder.name}"
                overlay = self._latest(folder, OverlayConfig, where)
                if overlay.framework_id != folder.name:
                    raise _error(f"{where} declares frameworkId {overlay.framework_id!r}.")
                _check_prose_free(overlay, where)
                if overlay.framework_id not in known:
                    if overlay.framework_id in excluded:
                        reason = "is excluded from the catalog"
                    else:
                        reason = "has no package under KGFEGMCP_GRAPH_PACKAGES_DIR"
                    log.warning(
                        "skipped prompt overlay %s: framework %s %s (the overlay is valid; it applies once served)",
                        folder.resolve(),
                        overlay.framework_id,
                        reason,
                    )
                    continue
                overlays[folder.name] = overlay
        ordered = {name: workflows[name] for name in WORKFLOW_NAMES}
        return PromptRegistry(common=common, workflows=ordered, overlays=dict(sorted(overlays.items())))

    def _folders(self, root: Path, where: str) -> Iterator[Path]:
        if not root.is_dir() or root.is_symlink():
            raise _error(f"{where}/ is missing or not a directory.")
        for entry in sorted(root.iterdir()):
            if entry.name.startswith("."):
                continue
            if not entry.is_dir() or entry.is_symlink():
                raise _error(f"Unexpected file {where}/{entry.name}: expected one folder per name.")
            yield entry

    def _latest(self, folder: Path, model: type[M], where: str) -> M:
        if not folder.is_dir() or folder.is_symlink():
            raise _error(f"{where}/ is missing or not a directory.")
        loaded: dict[str, M] = {}
        for entry in sorted(folder.iterdir()):
            if entry.name.startswith("."):
                continue
            version = entry.name.removesuffix(".json")
            if (
                not entry.name.endswith(".json")
                or re.fullmatch(PROMPT_CONFIG_VERSION_PATTERN, version) is None
                or not entry.is_file()
                or entry.is_symlink()
            ):
                raise _error(f"Unexpected entry {where}/{entry.name}: expected <major>.<minor>.json files.")
            document = _parse(entry, model, f"{where}/{entry.name}")
            if getattr(document, "version", None) != version:
                raise _error(f"{where}/{entry.name} declares version {getattr(document, 'version', None)!r}.")
            loaded[version] = document
        if not loaded:
            raise _error(f"{where}/ holds no configuration version.")
        return loaded[max(loaded, key=_version_key)]


def _parse(path: Path, model: type[M], where: str) -> M:
    """One configuration file, read as a package file is (regular, bounded, strict JSON), as ``model``."""
    try:
        with PackageFile.open(path.parent, path.name) as handle:
            if handle.size > MAX_CONFIG_BYTES:
                raise _error(f"{where} exceeds {MAX_CONFIG_BYTES} bytes.")
            data = handle.read_all()
    except PackageFileError as exc:
        raise _error(f"{where} {exc.reason}.") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _error(f"{where} is not UTF-8 text.") from None
    try:
        parse_package_json(data)
    except PackageJsonError as exc:
        raise _error(f"{where} is malformed: the document {exc}.") from None
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        problems = []
        for item in exc.errors()[:10]:
            field = ".".join(str(part) for part in item["loc"]) or "(document)"
            problems.append(f"{field}: {item['msg']}")
        raise _error(f"{where} is malformed: " + "; ".join(problems)) from None


def check_workflow(config: WorkflowConfig, where: str) -> None:
    """Check every placeholder, condition and request template against the workflow's arguments."""
    spec = WORKFLOWS[config.workflow]
    derived = derived_names(spec)
    required = {use.spec.name for use in spec.arguments if use.required or use.spec.default is not None}
    always = frozenset(required) | derived
    for index, paragraph in enumerate([*config.purpose, *config.rules, *config.checks]):
        _check_prose(paragraph, spec, always, f"{where}: text {index}")
    for index, section in enumerate(config.output):
        for paragraph in (section.heading, section.guidance):
            _check_prose(paragraph, spec, always, f"{where}: output[{index}]")
    for index, step in enumerate(config.steps):
        label = f"{where}: steps[{index}]"
        step_present = _check_conditions(step, spec, always, label)
        for paragraph in (step.title, step.text, *step.notes):
            _check_prose(paragraph, spec, step_present, label)
        for call_index, call in enumerate(step.calls):
            call_label = f"{label}.calls[{call_index}]"
            call_present = _check_conditions(call, spec, step_present, call_label)
            each = _each_names(call)
            call_present |= each
            _check_prose(call.purpose, spec, call_present, call_label)
            _check_call(call, spec, derived | each, call_present, call_label)


def _each_names(call: CallConfig) -> frozenset[str]:
    if call.for_each is None:
        return frozenset()
    return frozenset({EACH, EACH_SNAPSHOT}) if call.for_each == "framework_ids" else frozenset({EACH})


def _check_conditions(
    item: StepConfig | CallConfig, spec: WorkflowSpec, present: frozenset[str], where: str
) -> frozenset[str]:
    for name in (*item.when, *item.unless):
        if spec.argument(name) is None:
            raise _error(f"{where} has a condition on {name!r}, which {spec.name} does not take.")
    return present | frozenset(item.when)


def _check_prose(text: str, spec: WorkflowSpec, present: frozenset[str], where: str) -> None:
    for name in PLACEHOLDER.findall(text):
        if name in BLOCK_ARGUMENTS:
            raise _error(f"{where} interpolates {name!r}; long context arguments are shown in their own block.")
        if name not in present:
            known = spec.argument(name) is not None
            reason = "is optional and not guarded by 'when'" if known else "is not an argument or derived value"
            raise _error(f"{where} uses placeholder {{{{{name}}}}}, which {reason}.")
    if "{{" in PLACEHOLDER.sub("", text):
        raise _error(f"{where} has a malformed placeholder.")


def _check_call(
    call: CallConfig, spec: WorkflowSpec, derived: frozenset[str], present: frozenset[str], where: str
) -> None:
    if call.for_each is not None:
        use = spec.argument(call.for_each)
        if use is None or not use.spec.is_list:
            raise _error(f"{where} forEach {call.for_each!r} is not a list argument of {spec.name}.")

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == SELECTOR_KEY:
                    use = spec.argument(item) if isinstance(item, str) and item in SELECTOR_ARGUMENTS else None
                    if use is None:
                        raise _error(f"{where} {path}.$selector must name a standard argument of {spec.name}.")
                    if use.spec.is_list and call.for_each != item:
                        raise _error(f"{where} {path}.$selector over the list {item!r} needs forEach {item!r}.")
                    if not use.spec.is_list and item not in present:
                        raise _error(f"{where} {path}.$selector uses optional {item!r} without 'when'.")
                    continue
                if _REQUEST_KEY.fullmatch(key) is None:
                    raise _error(f"{where} {path} has a request field {key!r} that is not lower camel case.")
                walk(item, f"{path}.{key}")
        elif isinstance(value, list):
            for position, item in enumerate(value):
                walk(item, f"{path}[{position}]")
        elif isinstance(value, str) and "{{" in value:
            match = PLACEHOLDER.fullmatch(value)
            if match is None:
                raise _error(f"{where} {path}: a request value is either exactly one placeholder or literal text.")
            name = match.group(1)
            if name in BLOCK_ARGUMENTS or (spec.argument(name) is None and name not in derived):
                raise _error(f"{where} {path} uses placeholder {value}, which cannot appear in a request.")

    walk(call.request, "request")


def _check_prose_free(overlay: OverlayConfig, where: str) -> None:
    """Overlay text is plain data: it is never interpolated, so a placeholder there is a mistake."""
    texts = [*overlay.context, *overlay.warnings, *overlay.output_guidance]
    texts += [t.term for t in overlay.terminology] + [t.meaning for t in overlay.terminology]
    for part in overlay.workflows.values():
        texts += [*part.context, *part.warnings, *part.output_guidance]
    if any("{{" in text for text in texts):
        raise _error(f"{where} contains a '{{{{' placeholder; overlay text is not interpolated.")


def copy_generic_configs(source: Path, target: Path) -> Path:
    """Copy ``common/`` and ``workflows/`` but no overlays from ``source`` into ``target``.

    For a catalog that serves none of the overlays' frameworks (test fixtures): it would start with
    them too, but log one skipped overlay per framework on every start.
    """
    target.mkdir(parents=True, exist_ok=True)
    for name in (COMMON_DIR, WORKFLOWS_DIR):
        shutil.copytree(source / name, target / name)
    return target
