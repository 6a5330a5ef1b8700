"""What deriving a profile, or binding the operator's, does the same whatever the source document.

A CASE package and an ASN document without an operator's profile get one derived from what was built
(:mod:`kgfegmcp.sources.case.derived_profile`, :mod:`kgfegmcp.sources.asn.derived_profile`). How codes and
the hierarchy are described, how the file is checked and stored, and how an operator's profile that lacks the
document's vocabulary is refused do not depend on the source; only the names of its fields do, so each says them.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError, echo
from kgfegmcp.core.models import canonical_bytes, pretty_json_bytes
from kgfegmcp.packages.hierarchy_depths import depths_from_root
from kgfegmcp.packages.records import HAS_CHILD, ItemNode, RelationshipRecord
from kgfegmcp.profiles.model import InterpretationProfile
from kgfegmcp.profiles.repository import MAX_PROFILE_BYTES, DerivedProfile, LoadedProfile, ProfileRepository

MAX_SHAPES = 12
MAX_PATTERN_CHARS = 512
#: The code policy of a profile's first step (codes not looked at yet).
OPEN_CODE_POLICY: dict[str, Any] = {
    "codesPresent": "some",
    "unique": False,
    "normalization": "casefold",
    "exactSearch": True,
    "prefixSearch": True,
}
#: The code policy of a package without codes.
NO_CODES: dict[str, Any] = {
    "codesPresent": "none",
    "unique": False,
    "normalization": "exact",
    "exactSearch": False,
    "prefixSearch": False,
}
#: A code's character runs: ASCII capitals, small letters, digits, or any other single character.
_CODE_RUNS = re.compile(r"(?P<upper>[A-Z]+)|(?P<lower>[a-z]+)|(?P<digit>[0-9]+)|.", re.DOTALL)
_RUN_PATTERNS = {"upper": "[A-Z]+", "lower": "[a-z]+", "digit": "[0-9]+"}


#: What the second step may add to a profile's first: a code pattern (each character escaped at most
#: 6 bytes long) and the members of the code policy and hierarchy that say it.
_SECOND_STEP_BYTES = 6 * MAX_PATTERN_CHARS + 1024


class UniqueSlugs:
    """Slugs made unique in the order they are claimed: one already taken gets the first free ``-2``, ``-3`` …

    The next number to try is kept per slug, so the values that share a slug cost one try each rather
    than one per value before them (a profile of thousands of similar types is derived in linear time).
    """

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self._taken = set(taken)
        self._following: dict[str, int] = {}
        self.tries = 0  # candidates looked up so far (what the work grows with)

    def claim(self, slug: str) -> str:
        """``slug``, or its first free numbered form; taken from now on."""
        candidate, number = slug, self._following.get(slug, 2)
        self.tries += 1
        while candidate in self._taken:
            candidate, number = f"{slug}-{number}", number + 1
            self.tries += 1
        self._following[slug] = number
        self._taken.add(candidate)
        return candidate


def refuse_oversized_profile(wire: Mapping[str, Any], framework_id: str, *, final: bool = False) -> None:
    """``manifest_build_error`` when the derived profile would be larger than a profile may be.

    A profile over :data:`~kgfegmcp.profiles.repository.MAX_PROFILE_BYTES` is never loaded, so a package
    bound to it could never be validated: the build is refused before it writes anything. The first step
    (``final`` false) counts the room the second step may still take.
    """
    size = len(pretty_json_bytes(wire)) + (0 if final else _SECOND_STEP_BYTES)
    if size <= MAX_PROFILE_BYTES:
        return
    types = len(wire.get("statementTypes", ()))
    levels = len(wire.get("gradeLabels", ()))
    fits = types * MAX_PROFILE_BYTES // size
    raise ManifestBuildError(
        f"Cannot derive a profile for {framework_id}: its {types:,} statement types and {levels:,} grade labels "
        f"need about {size:,} bytes of profile, and a profile holds at most {MAX_PROFILE_BYTES:,} bytes (about "
        f"{fits:,} statement types of these lengths); a package bound to it could never be validated, so nothing "
        "was written.",
        hint="Ask the publisher for the framework with fewer distinct statement types (CFItemType), or in "
        "smaller documents.",
    )


def code_shape(code: str) -> str:
    """The code as a pattern of its character runs: ``K.CC.1`` → ``[A-Z]+\\.[A-Z]+\\.[0-9]+``."""
    return "".join(
        _RUN_PATTERNS.get(run.lastgroup or "") or re.escape(run.group()) for run in _CODE_RUNS.finditer(code)
    )


def code_policy(items: list[ItemNode], roles: Mapping[str, str], field: str) -> tuple[dict[str, Any], str]:
    """Whether items carry codes (every standard, some, none), whether they repeat, and their shapes.

    ``field`` names where the codes came from (``humanCodingScheme``, ``asn:statementNotation``) in the basis.
    """
    codes = [item.statement_code for item in items if item.statement_code is not None]
    standards = [item for item in items if roles[item.statement_type] == "standard"]
    if not codes:
        return NO_CODES, f"no item has a {field} (of {len(items)}): codesPresent none, no code search"
    every_standard = bool(standards) and all(item.statement_code is not None for item in standards)
    folded = Counter(code.casefold() for code in codes)
    exact = len(set(codes))
    normalization = "casefold" if len(folded) == exact else "exact"
    keys = folded if normalization == "casefold" else Counter(codes)
    unique = all(count == 1 for count in keys.values())
    shapes = sorted({code_shape(code) for code in codes})
    joined = "|".join(f"(?:{shape})" for shape in shapes) if len(shapes) > 1 else shapes[0]
    pattern = joined if len(shapes) <= MAX_SHAPES and len(joined) <= MAX_PATTERN_CHARS else None
    policy: dict[str, Any] = {
        "codesPresent": "allStandards" if every_standard else "some",
        "unique": unique,
        "normalization": normalization,
        "exactSearch": True,
        "prefixSearch": True,
    }
    if pattern is not None:
        policy["pattern"] = pattern
    coded_standards = sum(1 for item in standards if item.statement_code is not None)
    basis = (
        f"{field} on {len(codes)} of {len(items)} items ({coded_standards} of {len(standards)} standards): "
        f"codesPresent {policy['codesPresent']}; {'unique' if unique else 'repeated'} codes, compared "
        f"{'ignoring case' if normalization == 'casefold' else 'exactly (two differ only by case)'}; "
        + (f"pattern {pattern}" if pattern is not None else f"no pattern ({len(shapes)} shapes)")
    )
    return policy, basis


def has_child_edges(relationships: Iterable[RelationshipRecord]) -> tuple[dict[str, list[str]], Counter[str]]:
    """Each node's children and each node's number of parents, from the ``hasChild`` edges."""
    children: dict[str, list[str]] = defaultdict(list)
    parents: Counter[str] = Counter()
    for rel in relationships:
        if rel.label == HAS_CHILD:
            children[rel.source_identifier].append(rel.target_identifier)
            parents[rel.target_identifier] += 1
    return children, parents


def hierarchy_shape(children: Mapping[str, list[str]], parents: Counter[str], root_id: str) -> dict[str, Any]:
    """Rule, depth and parents as the built package has them (the longest path from the root, as validated)."""
    most_parents = max(parents.values(), default=1)
    depth, _stuck = depths_from_root(root_id, children, parents)
    deepest = max(depth.values(), default=1)
    return {
        "rule": "tree" if most_parents <= 1 else "multiParentDag",
        "maxDepth": min(max(deepest, 1), 64),
        "maxParents": min(max(most_parents, 1), 64),
    }


def validated(wire: Mapping[str, Any]) -> InterpretationProfile:
    """The profile a derived wire form stands for; a derivation that breaks the model fails here, at build."""
    return InterpretationProfile.model_validate_json(canonical_bytes(wire))


@dataclass(frozen=True, slots=True)
class DerivedProfileFile:
    """The derived profile's file bytes and what each part was derived from (for the operator's review)."""

    data: bytes
    derivation: tuple[tuple[str, str], ...]

    def store(self, profiles: ProfileRepository) -> DerivedProfile:
        """Written to the profiles root (kept when the same bytes are there) and bound like any other profile."""
        loaded, path, written = profiles.store(self.data)
        return DerivedProfile(
            profile=loaded.profile, sha256=loaded.sha256, path=path, written=written, derivation=self.derivation
        )


def refuse_undeclared(
    source: str,
    profile: LoadedProfile,
    types: Counter[str],
    grades: Counter[str],
    names: tuple[str, str],
    derived_from: str,
    counted: str = "",
) -> None:
    """``manifest_build_error`` naming every statement type and level the operator's profile does not declare.

    ``names`` are the source's words for the two (``CFItemType``, ``educationLevel``); ``derived_from`` is what a
    derived profile would be read from, should the operator remove theirs; ``counted`` follows each count
    (`` items``).
    """
    if not types and not grades:
        return
    rules = profile.profile
    problems = [
        f"{name} values " + ", ".join(f"{echo(value)!r} ({n}{counted})" for value, n in sorted(counts.items())[:20])
        for name, counts in zip(names, (types, grades), strict=True)
        if counts
    ]
    raise ManifestBuildError(
        f"{source} uses {' and '.join(problems)} that profile {rules.profile_id}/{rules.version} does not declare.",
        hint=f"Declare them in {rules.profile_id}/{rules.version}.json (the profile named after the framework in "
        "your profiles directory, KGFEGMCP_PROFILES_DIR or --profiles-dir) with whether each type is a standard or "
        f"a grouping, or remove that profile so that the build derives one from {derived_from}.",
    )
