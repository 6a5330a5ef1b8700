"""The epistemic vocabulary: how each claim a result carries was produced (one table, the spec's eight labels).

The rights page separates retrieved source evidence, deterministic server output and model inference;
every label a tool answer or resource document carries comes from :data:`EpistemicLabel`. Learning
components are labelled from a declared :class:`ComponentProduction` (a profile's or a package's
generation summary): the server never guesses how components were produced.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from pydantic import Field

from kgfegmcp.models import ContractModel

EpistemicLabel = Literal[
    "source_asserted",
    "source_extracted",
    "deterministic_derived",
    "accepted_derived",
    "human_reviewed",
    "retrieval_candidate",
    "llm_inferred",
    "unresolved",
]
#: Every label, in the spec's order.
EPISTEMIC_LABELS: tuple[EpistemicLabel, ...] = get_args(EpistemicLabel)

#: Standards text as published (``source_extracted`` only where a builder cut it from a larger text).
STANDARD_TEXT: EpistemicLabel = "source_asserted"
#: Standards a comparison retrieved as candidates: the tool asserts retrieval, not alignment.
COMPARISON_CANDIDATE: Final = "retrieval_candidate"
#: A reference whose target the package does not hold.
UNRESOLVED_REFERENCE: EpistemicLabel = "unresolved"
#: A document or answer the server builds from accepted state.
SERVER_BUILT: EpistemicLabel = "deterministic_derived"

ProductionMethod = Literal["curated", "model_generated"]


class ComponentProduction(ContractModel):
    """How a package's learning components were produced: declared by a profile or a generation summary."""

    method: ProductionMethod
    reviewed: bool = Field(description="Whether people reviewed model-generated components before release.")
    source: str = Field(min_length=1, max_length=200, description="Who curated or generated the components.")


def component_label(production: ComponentProduction) -> EpistemicLabel:
    """Curated components are asserted by their named source; model output is ``llm_inferred`` until reviewed."""
    if production.method == "curated":
        return "source_asserted"
    return "human_reviewed" if production.reviewed else "llm_inferred"
