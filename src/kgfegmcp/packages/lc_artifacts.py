"""The learning-component collection of a package: the shapes of its documents.

Components are kept apart from standards at every level (spec: graph-package-format.md, "Learning
components"), so they get their own detailed artifacts (their roles are declared in ``artifact_roles``).
How the components were produced is declared once, in the generation summary, and read from there by
everything that labels components.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import Field, model_validator

from kgfegmcp.core.epistemic import ProductionMethod
from kgfegmcp.core.models import ContractModel


class GeneratorModel(ContractModel):
    """The model that generated components (only for ``production == "model_generated"``)."""

    name: str = Field(min_length=1, max_length=256)
    version: str | None = Field(None, max_length=128)


class ComponentSourceVersion(ContractModel):
    """The exact source the components were extracted or generated from."""

    name: str = Field(min_length=1, max_length=256)
    version: str = Field(min_length=1, max_length=64)
    dataset: str | None = Field(None, max_length=256)
    path: str | None = Field(None, max_length=512)


class GenerationCounts(ContractModel):
    """Counts the validator recomputes from the package (they must match exactly)."""

    components: int = Field(ge=0)
    supports: int = Field(ge=0, description="supports relationships from these components.")
    supported_items: int = Field(ge=0, description="Distinct standards items the components support.")
    dedup_groups: int = Field(ge=0)
    components_in_dedup_groups: int = Field(ge=0)


class GenerationSummary(ContractModel):
    """``lcGenerationSummary``: how the package's learning components were produced.

    ``production`` is the fact component labels are read from: ``model_generated`` components are
    ``llm_inferred`` unless ``human_reviewed`` is recorded; ``curated`` components are asserted by
    ``curator`` through ``source``.
    """

    graph_package_id: str = Field(max_length=193)
    production: ProductionMethod
    human_reviewed: bool
    curator: str | None = Field(None, min_length=1, max_length=256)
    curator_uri: str | None = Field(None, max_length=2000)
    generator: GeneratorModel | None = None
    source: ComponentSourceVersion
    method: str = Field(min_length=1, max_length=2000, description="How components were obtained, in prose.")
    counts: GenerationCounts

    @model_validator(mode="after")
    def _production_is_described(self) -> GenerationSummary:
        if self.production == "curated" and (self.curator is None or self.generator is not None):
            raise ValueError("curated components name their curator and no generator model")
        if self.production == "model_generated" and self.generator is None:
            raise ValueError("model-generated components name their generator model")
        return self


class ComponentProduction(ContractModel):
    """What a source adapter declares about its components; the writer adds identity and counts."""

    production: ProductionMethod
    human_reviewed: bool
    curator: str | None = None
    curator_uri: str | None = None
    generator: GeneratorModel | None = None
    source: ComponentSourceVersion
    method: str = Field(min_length=1, max_length=2000)


class DedupGroup(ContractModel):
    """Components whose texts are identical once normalised (``normalized_text``)."""

    normalized_text: str = Field(min_length=1)
    component_identifiers: tuple[str, ...] = Field(min_length=2)


Normalization = Literal["nfkc-casefold-whitespace-punctuation"]
NORMALIZATION: Normalization = "nfkc-casefold-whitespace-punctuation"


class DedupGroups(ContractModel):
    """``lcDedupGroups``: no component is in two groups; every id is a component of this package."""

    graph_package_id: str = Field(max_length=193)
    normalization: Normalization
    groups: tuple[DedupGroup, ...]


_PUNCTUATION = re.compile(r"[^\w\s]", re.UNICODE)
_SPACE = re.compile(r"\s+")


def normalized_text(text: str) -> str:
    """NFKC, case-folded, punctuation dropped, whitespace collapsed: texts equal here say the same."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", _PUNCTUATION.sub(" ", folded)).strip()


def dedup_groups(components: Iterable[tuple[str, str]]) -> list[DedupGroup]:
    """Groups of two or more (identifier, text) pairs with the same normalised text, sorted by text."""
    by_text: dict[str, list[str]] = {}
    for identifier, text in components:
        key = normalized_text(text)
        if key:
            by_text.setdefault(key, []).append(identifier)
    return [
        DedupGroup(normalized_text=key, component_identifiers=tuple(sorted(ids)))
        for key, ids in sorted(by_text.items())
        if len(ids) > 1
    ]


def grouped_twice(groups: Sequence[DedupGroup]) -> list[str]:
    """Component ids that appear in more than one group (or twice in one), sorted."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for group in groups:
        for identifier in group.component_identifiers:
            (repeated if identifier in seen else seen).add(identifier)
    return sorted(repeated)
