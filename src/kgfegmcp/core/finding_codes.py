"""The one table of validation finding codes: each code's stable wire value and what it means.

Emitters never spell a code as a string: they name a member here and declare, beside their code,
the members they may emit (the package checks as a class attribute, the other steps of the gate as
a module-level tuple). A collector refuses any code its emitter did not declare.
"""

from __future__ import annotations

from collections.abc import Collection

from kgfegmcp.core.described_codes import DescribedCode


class FindingCode(DescribedCode):
    """Every finding code a validation report can carry; a member's value is its stable wire string."""

    @classmethod
    def named(cls, value: str) -> FindingCode:
        """The member whose wire value is ``value``; ``ValueError`` when no code has it.

        A lookup, not a scan: a decoder names the code of every bad line it meets through it.
        """
        member = cls._value2member_map_.get(value)
        if member is None:
            raise ValueError(f"{value!r} is not a finding code")
        return member  # type: ignore[return-value]

    IDENTITY_MISMATCH = "identity_mismatch", "Package, framework, snapshot or root identity disagrees."
    INVALID_MANIFEST = "invalid_manifest", "The manifest is not valid JSON or breaks the manifest contract."
    MISSING_ARTIFACT = "missing_artifact", "A declared or required artifact is absent."
    UNDECLARED_ENTRY = "undeclared_entry", "A file or directory in the package is not declared by the manifest."
    INTERRUPTED_RECORDING = (
        "interrupted_recording",
        "A killed `packages validate` left a state half-recorded; validating the package again finishes "
        "or rolls it back.",
    )
    UNSAFE_PATH = (
        "unsafe_path",
        "A path escapes the package, is absolute, uses backslashes, or is a symlink or special file.",
    )
    CASE_COLLISION = "case_collision", "Two names differ only by letter case."
    CHECKSUM_MISMATCH = "checksum_mismatch", "An artifact's bytes differ from its declared SHA-256 or size."
    UNREADABLE_FILE = (
        "unreadable_file",
        "A package file cannot be opened or read (permission denied, an I/O error); nothing in it is trusted.",
    )
    PROFILE_BINDING_MISMATCH = (
        "profile_binding_mismatch",
        "The bound interpretation profile is missing or its SHA-256 differs.",
    )
    COUNT_MISMATCH = "count_mismatch", "A manifest count differs from the delivered records."
    CAPABILITY_MISMATCH = (
        "capability_mismatch",
        "A declared capability is not supported by the package content or profile.",
    )
    DUPLICATE_IDENTIFIER = "duplicate_identifier", "An identifier occurs more than once."
    DANGLING_ENDPOINT = "dangling_endpoint", "A relationship endpoint does not resolve to a node."
    ENDPOINT_KEY_MISMATCH = (
        "endpoint_key_mismatch",
        "A relationship's endpoint keys or labels disagree with its endpoints.",
    )
    HIERARCHY_CYCLE = "hierarchy_cycle", "The hasChild hierarchy contains a cycle."
    PARENT_CARDINALITY = "parent_cardinality", "An item has no parent, or more parents than the profile allows."
    HIERARCHY_EDGE_TYPE = "hierarchy_edge_type", "A hasChild edge joins statement types the profile does not allow."
    DEPTH_EXCEEDED = "depth_exceeded", "The hierarchy is deeper than the profile allows."
    COMPONENT_IN_HIERARCHY = "component_in_hierarchy", "A learning component appears in the hasChild hierarchy."
    SUPPORTS_DIRECTION = "supports_direction", "A supports relationship does not run from a component to an item."
    UNSUPPORTED_COMPONENT = (
        "unsupported_component",
        "A learning component is not reached by any supports relationship.",
    )
    PROGRESSION_ENDPOINT = "progression_endpoint", "A progression link does not join two items of this package."
    CODE_POLICY_VIOLATION = "code_policy_violation", "Statement codes break the profile's code policy."
    UNKNOWN_STATEMENT_TYPE = (
        "unknown_statement_type",
        "An item's statement type is not in the profile's vocabulary.",
    )
    UNKNOWN_GRADE_LABEL = "unknown_grade_label", "An item's grade label is not in the profile's grade labels."
    INVALID_RIGHTS_POLICY = "invalid_rights_policy", "The manifest's rights policy is invalid or inconsistent."
    RIGHTS_EXCEED_PROFILE = (
        "rights_exceed_profile",
        "The manifest's rights are wider than its bound profile's default rights (an allow flag, the review state or "
        "the derivatives policy), or its source licence, licence URI or attribution differ from the profile's: a "
        "manifest may only narrow them; the operator's rights file widens them.",
    )
    INVALID_ENCODING = "invalid_encoding", "A delivery property or line is not encoded as schema 1.1 requires."
    INVALID_LABEL = "invalid_label", "A node or relationship label is missing, unknown or ambiguous."
    MISSING_PROPERTY = "missing_property", "A delivery record lacks a required property."
    INVALID_JSON_LINE = "invalid_json_line", "A delivery line is not one JSON object of the expected envelope."
    UNRESOLVED_WITHOUT_STATUS = (
        "unresolved_without_status",
        "Unresolved evidence carries no supported unresolved status.",
    )
    PROVENANCE_MISMATCH = (
        "provenance_mismatch",
        "Entity provenance or its parts disagree with the package entities.",
    )
    DETAILED_ARTIFACT_MISMATCH = (
        "detailed_artifact_mismatch",
        "A detailed artifact disagrees with the delivery records.",
    )
    CROSS_ARTIFACT_MISMATCH = (
        "cross_artifact_mismatch",
        "An entity's field in one artifact differs from the same field in another artifact carrying it.",
    )
    LC_ARTIFACT_MISMATCH = (
        "lc_artifact_mismatch",
        "A learning-component artifact is malformed, names no component of the package, or is declared "
        "by a package without components.",
    )
    LC_DEDUP_OVERLAP = "lc_dedup_overlap", "A learning component belongs to more than one dedup group."
    LC_GENERATION_COUNT_MISMATCH = (
        "lc_generation_count_mismatch",
        "The learning-component generation summary's counts differ from the package.",
    )
    EPISTEMIC_LABEL_MISMATCH = (
        "epistemic_label_mismatch",
        "An entity's provenance states an epistemic status other than the one its profile or the package's "
        "generation summary declares.",
    )
    VALIDATION_STATE_MISMATCH = (
        "validation_state_mismatch",
        "The recorded validation state does not match the package.",
    )
    UNSAFE_TEXT = (
        "unsafe_text",
        "Text holds control characters (C0 but TAB, LF and CR; DEL; C1) or bidirectional embeddings, overrides or "
        "isolates, which rewrite a terminal or make a code or label read as another: at build each is replaced "
        "and counted per member (warning); in a package not built here the validator refuses it (error).",
    )
    DIRECTIONAL_MARK_IN_CODE = (
        "directional_mark_in_code",
        "A statement code or grade label holds an implicit directional mark (LRM U+200E, RLM U+200F, ALM U+061C): "
        "invisible, it makes the label read as another string where a host shows it (warning: the package is "
        "served; a bidirectional override, embedding or isolate there is unsafe_text).",
    )
    SOURCE_TEXT_DIFFERENCE = "source_text_difference", "A secondary source's text differs from the verified source."
    SOURCE_MAPPING_GAP = "source_mapping_gap", "A source element could not be represented and was reported."
    SOURCE_VARIANT_ACCEPTED = (
        "source_variant_accepted",
        "A source member in a known variant form whose meaning is certain (a pre-standard name, a URI string for "
        "a link, a missing or null member) was read as the standard member it stands for, and reported.",
    )
    SOURCE_CODE_OUTSIDE_PARENT = (
        "source_code_outside_parent",
        "A statement's code does not extend the code or numbered heading it is printed under (an indicator "
        "outside its content standard, a content standard under another sub-strand); it is placed as printed.",
    )
    SOURCE_CODE_GAP = "source_code_gap", "A number is skipped in a sequence of source codes."
    SOURCE_CODE_REPEATED = (
        "source_code_repeated",
        "A source code is printed for two different statements; both are kept, the later one under its own key.",
    )
    SOURCE_COUNTS = (
        "source_counts",
        "What the build read from its source, counted per statement type and grade, to compare with the "
        "document's own counts.",
    )
    PROFILE_DERIVED = (
        "profile_derived",
        "The package binds a profile the build derived from its own source; the finding lists what was derived, "
        "for the operator to review.",
    )


class UndeclaredFindingCodeError(ValueError):
    """An emitter produced a code it did not declare: a defect in this code base, never in a package."""


def require_declared(code: str, declared: Collection[str], emitter: str) -> None:
    """Refuse ``code`` unless ``emitter`` declared it, so every code stays listed where it is emitted."""
    if code not in declared:
        raise UndeclaredFindingCodeError(
            f"{emitter} emitted finding code {str(code)!r}, which it does not declare (declared: {sorted(declared)})"
        )
