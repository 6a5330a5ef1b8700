"""The epistemic vocabulary: how each claim a result carries was produced (one table, the spec's eight labels).

The rights page separates retrieved source evidence, deterministic server output and model inference;
every label a tool answer or resource document carries comes from :data:`EpistemicLabel`. Standards
and links are labelled as the profile declares (:class:`ClaimLabels`), learning components as the
package's generation summary declares: the server never guesses how a claim was produced.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from pydantic import Field

from kgfegmcp.core.models import ContractModel

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

#: Standards a comparison retrieved as candidates: the tool asserts retrieval, not alignment.
COMPARISON_CANDIDATE: Final = "retrieval_candidate"
#: A reference whose target the package does not hold.
UNRESOLVED_REFERENCE: Final = "unresolved"
#: A document or answer the server builds from accepted state.
SERVER_BUILT: EpistemicLabel = "deterministic_derived"

#: How a collection of learning components came to be (declared by its generation summary).
ProductionMethod = Literal["curated", "model_generated"]

#: What a source can say about its own text: published as is, or cut by a builder from a larger text.
SourceLabel = Literal["source_asserted", "source_extracted"]
#: What a package's progression links are: its source's (as its profile declares), or a model's judgement
#: (a supplied package's links, made by its pipeline's language model).
LinkLabel = Literal["source_asserted", "source_extracted", "llm_inferred"]


class ClaimLabels(ContractModel):
    """How a profile's packages state their standards and progression links, declared once (never guessed).

    Validation holds every entity's provenance to these labels, so an answer can say them once per
    package instead of once per record.
    """

    standards: SourceLabel = Field("source_asserted", description="Standards text and the hierarchy around it.")
    progression_links: SourceLabel = Field(
        "source_asserted", description="buildsTowards and relatesTo links that resolve inside the package."
    )


def component_label(method: ProductionMethod, human_reviewed: bool) -> EpistemicLabel:
    """Curated components are asserted by their named source; model output is ``llm_inferred`` until reviewed."""
    if method == "curated":
        return "source_asserted"
    return "human_reviewed" if human_reviewed else "llm_inferred"
