"""The public limits of requests: one table the request models and ``get_capabilities`` both read.

Every bound a client must meet (spec: errors-cursors-limits; the prompt limits) is written here once. The
request models declare it in their published schemas from here, the services enforce the limits JSON Schema
cannot state from here, and ``get_capabilities`` reports them from here, so changing a bound changes all
three together (``tests/services/test_capability_limits.py`` checks the answer against the models).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bound:
    """An integer (or a length) a request may give: its least and greatest value, and the value a field takes
    when it is left out (``None`` where it has none)."""

    min: int
    max: int
    default: int | None = None

    def __post_init__(self) -> None:
        if not self.min <= self.max or (self.default is not None and not self.min <= self.default <= self.max):
            raise ValueError(f"inconsistent bound {self}")


# ---- identifiers (they name directories and appear in URIs: narrow on purpose) ----

IDENTIFIER_MIN_LENGTH = 3
IDENTIFIER_MAX_LENGTH = 96
#: The version part of a supplied snapshot id (``<framework-id>@<version>+<hex>``) and its digest prefix.
VERSION_MAX_LENGTH = 64
SNAPSHOT_DIGEST_MAX_LENGTH = 64
SNAPSHOT_MAX_LENGTH = IDENTIFIER_MAX_LENGTH + 1 + VERSION_MAX_LENGTH + 1 + SNAPSHOT_DIGEST_MAX_LENGTH
#: A node id, a CASE identifier or a progression link's relationship id.
MAX_NODE_ID_CHARS = 256
#: A filter value: a grade label, a statement type, a subject, a catalog facet.
MAX_FACET_CHARS = 128

# ---- search and catalog ----

#: ``limit`` of list_frameworks, search_standards and search_learning_components.
PAGE_LIMIT = Bound(1, 100, 25)
TEXT_QUERY_CHARS = Bound(1, 512)
#: Normalised tokens (distinct words after accent and case folding; Han, kana and Hangul count per pair).
MAX_QUERY_TOKENS = 32
#: A statement code a request may name (also the longest code a CASE import keeps).
CODE_QUERY_CHARS = Bound(1, 256)
#: frameworkIds / snapshotIds of the catalog and search tools.
MAX_SELECTORS = 64
#: gradeLevels, statementTypes, academicSubjects arrays.
MAX_FACETS = 64
MAX_CURSOR_CHARS = 4096

# ---- get_standard_context ----

CONTEXT_ANCESTOR_DEPTH = Bound(0, 64, 16)
CONTEXT_CHILD_DEPTH = Bound(0, 64, 1)
CONTEXT_NODES = Bound(1, 2000, 250)
CONTEXT_PATHS = Bound(1, 1000, 128)
CONTEXT_PATH_NODE_OCCURRENCES = Bound(1, 100_000, 8192)

# ---- learning components and progressions (spec: "Progression limits") ----

#: ``limit`` of get_learning_components_for_standard and get_standards_for_learning_component.
COMPONENT_LINKS = Bound(1, 100, 50)
#: ``limit`` of get_standard_progressions and search_learning_progressions.
PROGRESSION_PAGE = Bound(1, 100, 25)
#: Candidates examined per page of those two tools.
MAX_PROGRESSION_CANDIDATES = 5_000
TRAVERSAL_DEPTH = Bound(1, 12, 8)
TRAVERSAL_NODES = Bound(1, 250, 100)
TRAVERSAL_EDGES = Bound(1, 100, 100)
PATH_DEPTH = Bound(1, 12, 6)
PATHS = Bound(1, 20, 3)
#: Work and path queue admissions per traversal or path search.
MAX_QUEUE_ADMISSIONS = 5_000

# ---- comparison (spec: "Comparison limits"; the comparison prompt takes the same) ----

COMPARISON_FRAMEWORKS = Bound(2, 8)
MAX_COMPARISON_SNAPSHOTS = 8
COMPARISON_MATCHES = Bound(1, 10, 5)

# ---- read_evidence ----

#: A window always holds at least one whole UTF-8 character (at most 4 bytes), so reading advances.
EVIDENCE_WINDOW_BYTES = Bound(4, 32_768, 16_384)
MAX_EVIDENCE_URI_CHARS = 2048

# ---- workflow prompts and get_workflow_instructions (spec: "Prompt limits") ----

#: Largest rendered instructions, in UTF-8 bytes; anything larger fails rather than being clipped.
MAX_RENDERED_BYTES = 64 * 1024
#: A topic, a standard selector or a target standard.
MAX_TOPIC_CHARS = 512
#: gradeLevels and academicSubjects of the progression prompts.
MAX_PROGRESSION_FACETS = 32
MAX_REVIEW_SELECTORS = 20
#: Grade labels taught together (multigrade_lesson_plan).
MULTIGRADE_LABELS = Bound(2, 8)
PRACTICE_ITEMS = Bound(1, 10, 5)
LESSON_MINUTES = Bound(10, 240, 45)
TARGET_WORDS = Bound(150, 1500, 500)
MAX_LOCAL_CONTEXT_CHARS = 4000
MAX_AVAILABLE_MATERIALS_CHARS = 2000
MAX_LEARNER_CONTEXT_CHARS = 2000
