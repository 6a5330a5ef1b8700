"""The one table of warning and notice codes a successful answer can carry, with what each means.

A warning or notice is evidence kept with the answer it qualifies, never a refusal (those are the error codes of
:mod:`kgfegmcp.core.errors`). Emitters name a member here, never a string, and the result models type their
``code`` with :class:`NoticeCode`, so every tool's output schema lists the codes. docs/errors.md documents each
with this description (``tests/test_error_codes_doc.py`` compares the two).
"""

from __future__ import annotations

from kgfegmcp.core.described_codes import DescribedCode


class NoticeCode(DescribedCode):
    """Every warning and notice code; a member's value is its stable wire string."""

    # Search (search_standards; compare_framework_evidence passes them on per framework).
    TEXT_SEARCH_UNAVAILABLE = (
        "text_search_unavailable",
        "a selected package does not support lexical text search; it took no part in the text search",
    )
    CODE_SEARCH_UNAVAILABLE = (
        "code_search_unavailable",
        "a selected package does not support statement-code search; it took no part in the code search",
    )
    CODE_PREFIX_UNAVAILABLE = (
        "code_prefix_unavailable",
        "a selected package does not allow prefix code search; it took no part in the prefix search",
    )
    PARTIAL_CODE_COVERAGE = (
        "partial_code_coverage",
        "not every item of the package carries a code, so a code search cannot find the others",
    )
    MULTIPLE_CODE_MATCHES = (
        "multiple_code_matches",
        "the code matches several items of one package; select one by nodeId",
    )
    DERIVED_PARENT_CODE_NOT_FOUND = (
        "derived_parent_code_not_found",
        "no item has the code, nor the parent code the package's code policy derives from it",
    )
    DERIVED_PARENT_CODE_MULTIPLE = (
        "derived_parent_code_multiple",
        "the parent code derived from the code matches several items",
    )
    # compare_framework_evidence, per framework.
    CODE_SEARCH_UNSUPPORTED = (
        "code_search_unsupported",
        "the framework does not support statement-code search: only its text was searched (`auto`), or nothing "
        "(`code`); said instead of `code_search_unavailable`",
    )
    CONTEXT_INCOMPLETE = (
        "context_incomplete",
        "some candidates sit under several parents and one parent chain is shown for each; get_standard_context "
        "gives every root path",
    )
    NO_MATCHES = (
        "no_matches",
        "no standard of the framework matched the query and filters: the words did not match there, which does "
        "not mean the framework lacks the idea",
    )
    UNRESOLVED_EVIDENCE_PRESENT = (
        "unresolved_evidence_present",
        "unresolved references of the package concern the candidates shown (each candidate's "
        "unresolvedReferences, the package's unresolved resource)",
    )
    # search_learning_components.
    LEARNING_COMPONENTS_UNAVAILABLE = (
        "learning_components_unavailable",
        "a selected package has no learning components; it was not searched",
    )
    # The progression tools: judgement warnings about the links returned.
    MODEL_LINK_JUDGEMENT = (
        "model_link_judgement",
        "the links were made by a language model in the pipeline that built the package, not by the "
        "curriculum's publisher: hypotheses to check, their confidence the model's",
    )
    STORED_LINK_JUDGEMENT = (
        "stored_link_judgement",
        "the links are the source's own pedagogical judgement, returned exactly as the package stores them",
    )
    RELATES_TO_UNORDERED = (
        "relates_to_unordered",
        "relatesTo links record that two standards are related, not an order of learning",
    )
    # The progression tools: coverage notices about what the package cannot hold or could not resolve.
    UNRESOLVED_REFERENCE = (
        "unresolved_reference",
        "the source cites something the package could not resolve to one of its standards: kept as unresolved "
        "evidence, not as a link",
    )
    NO_PROGRESSION_LINKS = (
        "no_progression_links",
        "the package stores no learning-progression links: an empty result says nothing about how its standards relate",
    )
    LINK_TYPE_NOT_STORED = (
        "link_type_not_stored",
        "the package does not store links of a requested type; none can appear in the result",
    )
    # Every answer carrying statement text (in the package block's textWithheld).
    FULL_TEXT_NOT_PERMITTED = (
        "full_text_not_permitted",
        "the package's rights withhold statement text: records carry codes, statement types, grade labels and ids only",
    )
