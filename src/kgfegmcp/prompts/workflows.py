"""The nine workflows and their arguments: names, kinds, bounds and defaults.

This table is static (code, not configuration) because the MCP prompt argument lists are
declared when the server is assembled, before any configuration is read. Bounds come from the
specification's prompt-limits table; the versioned prompt configurations supply the text.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from kgfegmcp.core.limits import (
    COMPARISON_FRAMEWORKS,
    COMPARISON_MATCHES,
    LESSON_MINUTES,
    MAX_AVAILABLE_MATERIALS_CHARS,
    MAX_COMPARISON_SNAPSHOTS,
    MAX_FACET_CHARS,
    MAX_LEARNER_CONTEXT_CHARS,
    MAX_LOCAL_CONTEXT_CHARS,
    MAX_PROGRESSION_FACETS,
    MAX_REVIEW_SELECTORS,
    MAX_TOPIC_CHARS,
    MULTIGRADE_LABELS,
    PRACTICE_ITEMS,
    TARGET_WORDS,
    Bound,
)

WorkflowName = Literal[
    "teacher_guide_draft",
    "student_handbook_section",
    "multigrade_lesson_plan",
    "practice_item_set",
    "learning_progression_teaching_sequence",
    "learning_progression_support_plan",
    "learning_progression_curriculum_review",
    "administrator_alignment_review",
    "cross_framework_comparison",
]
#: The seven workflows that ``get_workflow_instructions`` also serves as a tool.
ToolWorkflowName = Literal[
    "multigrade_lesson_plan",
    "practice_item_set",
    "learning_progression_teaching_sequence",
    "learning_progression_support_plan",
    "learning_progression_curriculum_review",
    "administrator_alignment_review",
    "cross_framework_comparison",
]

#: A snapshot id is checked by its own grammar: it may take the supplied packages' ``<framework>@<year>+<hex>``.
ArgumentKind = Literal["identifier", "identifier_list", "snapshot", "snapshot_list", "text", "text_list", "integer"]


@dataclass(frozen=True, slots=True)
class ArgumentSpec:
    """One prompt argument: its MCP name, camelCase tool alias, kind and bounds."""

    name: str
    kind: ArgumentKind
    description: str
    minimum: int = 1
    maximum: int = 1
    item_max_chars: int = 0
    default: int | None = None

    @property
    def alias(self) -> str:
        """The lower-camel-case field name used by the ``get_workflow_instructions`` tool."""
        head, *rest = self.name.split("_")
        return head + "".join(part.capitalize() for part in rest)

    @property
    def is_list(self) -> bool:
        """Whether the argument is a JSON array (in a string, for MCP prompts)."""
        return self.kind in ("identifier_list", "snapshot_list", "text_list")


def _integer(name: str, what: str, bound: Bound) -> ArgumentSpec:
    """An integer argument of ``bound``, its range and default said in its description."""
    return ArgumentSpec(
        name,
        "integer",
        f"{what}, {bound.min}-{bound.max} (default {bound.default}).",
        minimum=bound.min,
        maximum=bound.max,
        default=bound.default,
    )


@dataclass(frozen=True, slots=True)
class ArgumentUse:
    """An argument as one workflow uses it."""

    spec: ArgumentSpec
    required: bool = False


@dataclass(frozen=True, slots=True)
class WorkflowSpec:
    """A workflow's public identity and argument list."""

    name: WorkflowName
    title: str
    description: str
    arguments: tuple[ArgumentUse, ...]
    #: Groups of which at least one argument must be supplied.
    at_least_one: tuple[tuple[str, ...], ...] = ()
    #: Whether ``get_workflow_instructions`` serves this workflow.
    served_as_tool: bool = True

    def argument(self, name: str) -> ArgumentUse | None:
        """The argument named ``name``, if this workflow takes it."""
        for use in self.arguments:
            if use.spec.name == name:
                return use
        return None

    @property
    def names(self) -> tuple[str, ...]:
        """Argument names in declaration order."""
        return tuple(use.spec.name for use in self.arguments)


# ---- argument catalogue (bounds from the specification's prompt-limits table, in core/limits.py) ----

FRAMEWORK_ID = ArgumentSpec(
    "framework_id", "identifier", "Framework id of one accepted package (see list_frameworks), e.g. a lowercase id."
)
SNAPSHOT_ID = ArgumentSpec(
    "snapshot_id", "snapshot", "Exact snapshot id; omit to use the framework's unique current snapshot."
)
FRAMEWORK_IDS = ArgumentSpec(
    "framework_ids",
    "identifier_list",
    f"JSON array of {COMPARISON_FRAMEWORKS.min}-{COMPARISON_FRAMEWORKS.max} distinct framework ids, "
    'e.g. ["framework-a", "framework-b"].',
    minimum=COMPARISON_FRAMEWORKS.min,
    maximum=COMPARISON_FRAMEWORKS.max,
)
SNAPSHOT_IDS = ArgumentSpec(
    "snapshot_ids",
    "snapshot_list",
    f"JSON array of at most {MAX_COMPARISON_SNAPSHOTS} distinct snapshot ids, each an accepted snapshot of one "
    "listed framework, at most one per framework; frameworks without one use their unique current snapshot.",
    minimum=1,
    maximum=MAX_COMPARISON_SNAPSHOTS,
)
TOPIC = ArgumentSpec(
    "topic",
    "text",
    f"Topic, skill or statement code to work on (at most {MAX_TOPIC_CHARS} characters), in the framework's language.",
    maximum=MAX_TOPIC_CHARS,
)
STANDARD = ArgumentSpec(
    "standard",
    "text",
    f"One standard: its statement code, or its nodeId / caseIdentifierUUID (at most {MAX_TOPIC_CHARS} characters).",
    maximum=MAX_TOPIC_CHARS,
)
TARGET_STANDARD = ArgumentSpec(
    "target_standard",
    "text",
    f"Optional end point of the sequence: statement code or nodeId (at most {MAX_TOPIC_CHARS} characters).",
    maximum=MAX_TOPIC_CHARS,
)
STANDARDS = ArgumentSpec(
    "standards",
    "text_list",
    f"JSON array of 1-{MAX_REVIEW_SELECTORS} distinct standard selectors (statement codes or nodeIds), "
    f'e.g. ["CODE.1", "CODE.2"]; each at most {MAX_TOPIC_CHARS} characters.',
    maximum=MAX_REVIEW_SELECTORS,
    item_max_chars=MAX_TOPIC_CHARS,
)
GRADE_LEVEL = ArgumentSpec(
    "grade_level",
    "text",
    f"One local grade label or normalised grade facet of the package (at most {MAX_FACET_CHARS} characters).",
    maximum=MAX_FACET_CHARS,
)
GRADE_LEVELS = ArgumentSpec(
    "grade_levels",
    "text_list",
    f"JSON array of at most {MAX_PROGRESSION_FACETS} distinct local grade labels or grade facets of the package.",
    maximum=MAX_PROGRESSION_FACETS,
    item_max_chars=MAX_FACET_CHARS,
)
ACADEMIC_SUBJECTS = ArgumentSpec(
    "academic_subjects",
    "text_list",
    f"JSON array of at most {MAX_PROGRESSION_FACETS} distinct academic subjects, as the package names them.",
    maximum=MAX_PROGRESSION_FACETS,
    item_max_chars=MAX_FACET_CHARS,
)
PRACTICE_COUNT = _integer("practice_count", "Number of practice items", PRACTICE_ITEMS)
LESSON_DURATION_MINUTES = _integer(
    "lesson_duration_minutes", "Length of one lesson or session in minutes", LESSON_MINUTES
)
TARGET_WORD_COUNT = _integer("target_word_count", "Approximate length of the generated text in words", TARGET_WORDS)
MATCHES_PER_FRAMEWORK = _integer(
    "matches_per_framework", "Candidate standards retrieved independently in each framework", COMPARISON_MATCHES
)
LOCAL_CONTEXT = ArgumentSpec(
    "local_context",
    "text",
    f"School, network or programme context to take into account (at most {MAX_LOCAL_CONTEXT_CHARS} characters).",
    maximum=MAX_LOCAL_CONTEXT_CHARS,
)
AVAILABLE_MATERIALS = ArgumentSpec(
    "available_materials",
    "text",
    f"Materials, space and equipment available (at most {MAX_AVAILABLE_MATERIALS_CHARS} characters).",
    maximum=MAX_AVAILABLE_MATERIALS_CHARS,
)
LEARNER_CONTEXT = ArgumentSpec(
    "learner_context",
    "text",
    f"Who the learners are and what they already know or find hard (at most {MAX_LEARNER_CONTEXT_CHARS} "
    "characters); no personal data.",
    maximum=MAX_LEARNER_CONTEXT_CHARS,
)

ALL_ARGUMENTS: tuple[ArgumentSpec, ...] = (
    FRAMEWORK_ID,
    SNAPSHOT_ID,
    FRAMEWORK_IDS,
    SNAPSHOT_IDS,
    TOPIC,
    STANDARD,
    TARGET_STANDARD,
    STANDARDS,
    GRADE_LEVEL,
    GRADE_LEVELS,
    ACADEMIC_SUBJECTS,
    PRACTICE_COUNT,
    LESSON_DURATION_MINUTES,
    TARGET_WORD_COUNT,
    MATCHES_PER_FRAMEWORK,
    LOCAL_CONTEXT,
    AVAILABLE_MATERIALS,
    LEARNER_CONTEXT,
)

MULTIGRADE_LEVELS = replace(
    GRADE_LEVELS,
    description=f"JSON array of {MULTIGRADE_LABELS.min}-{MULTIGRADE_LABELS.max} distinct local grade labels taught "
    f'together, e.g. ["label-1", "label-2"] (each at most {MAX_FACET_CHARS} characters).',
    minimum=MULTIGRADE_LABELS.min,
    maximum=MULTIGRADE_LABELS.max,
)


def _use(spec: ArgumentSpec, required: bool = False) -> ArgumentUse:
    return ArgumentUse(spec, required)


WORKFLOWS: dict[str, WorkflowSpec] = {
    spec.name: spec
    for spec in (
        WorkflowSpec(
            "teacher_guide_draft",
            "Teacher guide draft",
            "Instructions for drafting a teacher guide on one topic from retrieved standards, their hierarchy and "
            "progression evidence, with citations and the package's attribution.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(TOPIC, True),
                _use(GRADE_LEVEL),
                _use(TARGET_WORD_COUNT),
                _use(LOCAL_CONTEXT),
            ),
            served_as_tool=False,
        ),
        WorkflowSpec(
            "student_handbook_section",
            "Student handbook section",
            "Instructions for writing a learner-facing handbook section grounded in retrieved standards, keeping "
            "source evidence apart from generated explanation.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(TOPIC, True),
                _use(GRADE_LEVEL),
                _use(TARGET_WORD_COUNT),
                _use(LEARNER_CONTEXT),
            ),
            served_as_tool=False,
        ),
        WorkflowSpec(
            "multigrade_lesson_plan",
            "Multigrade lesson plan",
            "Instructions for planning one lesson for several grades taught together, using each grade's own "
            "standards and the stored progression links between them.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(TOPIC, True),
                _use(MULTIGRADE_LEVELS, True),
                _use(LESSON_DURATION_MINUTES),
                _use(AVAILABLE_MATERIALS),
                _use(LOCAL_CONTEXT),
            ),
        ),
        WorkflowSpec(
            "practice_item_set",
            "Practice item set",
            "Instructions for writing a small set of practice items, each tied to a cited standard, with answer "
            "notes; the items are generated material, never source content.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(TOPIC, True),
                _use(GRADE_LEVEL),
                _use(PRACTICE_COUNT),
                _use(LEARNER_CONTEXT),
            ),
        ),
        WorkflowSpec(
            "learning_progression_teaching_sequence",
            "Learning-progression teaching sequence",
            "Instructions for ordering teaching around one standard from stored buildsTowards and relatesTo links, "
            "requested separately, with bounded traversal and path evidence.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(STANDARD),
                _use(TOPIC),
                _use(TARGET_STANDARD),
                _use(GRADE_LEVELS),
                _use(LESSON_DURATION_MINUTES),
                _use(AVAILABLE_MATERIALS),
                _use(LOCAL_CONTEXT),
            ),
            at_least_one=(("standard", "topic"),),
        ),
        WorkflowSpec(
            "learning_progression_support_plan",
            "Learning-progression support plan",
            "Instructions for a support plan for learners who struggle with one standard: stored prior links, "
            "supporting learning components and related standards, each cited.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(STANDARD),
                _use(TOPIC),
                _use(GRADE_LEVELS),
                _use(LEARNER_CONTEXT),
                _use(LOCAL_CONTEXT),
            ),
            at_least_one=(("standard", "topic"),),
        ),
        WorkflowSpec(
            "learning_progression_curriculum_review",
            "Learning-progression curriculum review",
            "Instructions for reviewing a set of standards (a unit or course) against the package's stored "
            "progression links: order, missing prior links and unresolved references.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(STANDARDS, True),
                _use(GRADE_LEVELS),
                _use(ACADEMIC_SUBJECTS),
                _use(LOCAL_CONTEXT),
            ),
        ),
        WorkflowSpec(
            "administrator_alignment_review",
            "Administrator alignment review",
            "Instructions for reviewing a local programme against one framework's standards; alignment judgements "
            "are the host's own and are labelled as such.",
            (
                _use(FRAMEWORK_ID, True),
                _use(SNAPSHOT_ID),
                _use(STANDARDS),
                _use(TOPIC),
                _use(GRADE_LEVELS),
                _use(ACADEMIC_SUBJECTS),
                _use(LOCAL_CONTEXT),
            ),
        ),
        WorkflowSpec(
            "cross_framework_comparison",
            "Cross-framework comparison",
            "Instructions for comparing how 2-8 frameworks treat one topic from independently retrieved candidates; "
            "the server creates no alignment, equivalence or score across frameworks.",
            (
                _use(FRAMEWORK_IDS, True),
                _use(SNAPSHOT_IDS),
                _use(TOPIC, True),
                _use(MATCHES_PER_FRAMEWORK),
                _use(GRADE_LEVELS),
                _use(LOCAL_CONTEXT),
            ),
        ),
    )
}

WORKFLOW_NAMES: tuple[str, ...] = tuple(WORKFLOWS)
TOOL_WORKFLOW_NAMES: tuple[str, ...] = tuple(name for name, spec in WORKFLOWS.items() if spec.served_as_tool)
