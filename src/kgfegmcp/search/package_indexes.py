"""The lexical indexes of one package, built from its graph store or opened from a directory.

Standards items and learning components are indexed separately and never mixed. Each standards
document carries the item's code and text, the names of the groupings directly above it, and its
facet terms (source terms beside their normalised facets), so filters never need a second pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.search.analysis import analyzer_for
from kgfegmcp.search.text_index import TextIndex

STANDARDS = "standards"
COMPONENTS = "components"


class Facets(NamedTuple):
    """What an item is filtered by, each value as the index holds it."""

    grades: frozenset[str]
    types: frozenset[str]
    subject: str
    role: str  # standard, grouping or undeclared


def facet_term(kind: str, value: str) -> str:
    """One exact facet term of the index (``grade``, ``type``, ``subject`` or ``role`` and a value)."""
    return f"{kind}\x1f{value}"


def facet_terms(item: ItemNode, runtime: PackageRuntime) -> Facets:
    """Source terms and their normalised facets, which filters may name either way."""
    profile = runtime.profile.profile
    rule = profile.statement_type(item.statement_type)
    types = {item.statement_type, *([rule.normalized] if rule else [])}
    subject = item.academic_subject or runtime.framework.academic_subject
    return Facets(profile.grade_terms(item.grade_level), frozenset(types), subject, rule.role if rule else "undeclared")


class FacetCache:
    """Facets per item, computed once per distinct (grades, statement type, subject) and shared.

    A package has a handful of such combinations and may have a million items, so sharing saves
    both the profile lookups and one pair of frozensets per item.
    """

    def __init__(self, runtime: PackageRuntime) -> None:
        self._runtime = runtime
        self._seen: dict[tuple[tuple[str, ...], str, str | None], Facets] = {}

    def __call__(self, item: ItemNode) -> Facets:
        key = (item.grade_level, item.statement_type, item.academic_subject)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = facet_terms(item, self._runtime)
        return found

    def combinations(self) -> list[tuple[tuple[str, ...], str, str]]:
        """Each distinct (grade labels, statement type, subject) met so far, the subject as filters see it."""
        return [(grades, statement_type, facets.subject) for (grades, statement_type, _), facets in self._seen.items()]


def _index_terms(facets: Facets) -> list[str]:
    grades, types, subject, role = facets
    return [
        *(facet_term("grade", g) for g in grades),
        *(facet_term("type", t) for t in types),
        facet_term("subject", subject),
        facet_term("role", role),
    ]


def standards_document(store: GraphStore, item: ItemNode, role: str) -> tuple[str, str]:
    """An item's indexed text (its code and text) and context (its parents' names), ``role`` its facet's.

    A grouping's own text is its name and it takes no context: a heading found through the heading above it
    is noise (an achievement standard's paragraph would otherwise be the context of each of its components,
    and every component would match whatever the paragraph says).
    """
    parents = () if role == "grouping" else (store.item(p) for p in store.parents(item.identifier))
    return f"{item.statement_code or ''} {item.description}", " ".join(p.description for p in parents if p)


def _standards_documents(store: GraphStore) -> Iterator[tuple[int, str, str, list[str]]]:
    """Each item's :func:`standards_document` and its facet terms."""
    facets = FacetCache(store.runtime)
    for item in store.runtime.items:
        found = facets(item)
        yield (_position(store, item.identifier), *standards_document(store, item, found.role), _index_terms(found))


def _component_documents(store: GraphStore) -> Iterator[tuple[int, str]]:
    for component in store.runtime.components:
        yield _position(store, component.identifier), component.description


def _position(store: GraphStore, identifier: str) -> int:
    position = store.position(identifier)
    assert position is not None  # every record of the runtime is in its store
    return position


@dataclass(frozen=True, slots=True)
class PackageTextIndexes:
    """A package's standards index (when it allows text search) and component index (when it has any)."""

    standards: TextIndex | None
    components: TextIndex | None

    @staticmethod
    def expected(runtime: PackageRuntime) -> tuple[str, ...]:
        """The index names this package has, in a fixed order."""
        return (
            *((STANDARDS,) if runtime.manifest.capabilities.text_search else ()),
            *((COMPONENTS,) if runtime.components else ()),
        )

    @classmethod
    def build(cls, store: GraphStore, directory: Path | None = None) -> PackageTextIndexes:
        """Index the package in memory, or into ``directory/<name>/`` for :meth:`open`."""
        names = cls.expected(store.runtime)

        def target(name: str) -> Path | None:
            if directory is None:
                return None
            (directory / name).mkdir()
            return directory / name

        analyzer = analyzer_for(store.runtime.profile.profile.in_language)
        return cls(
            TextIndex.build(_standards_documents(store), analyzer, target(STANDARDS)) if STANDARDS in names else None,
            TextIndex.build(_component_documents(store), analyzer, target(COMPONENTS)) if COMPONENTS in names else None,
        )

    @classmethod
    def open(cls, runtime: PackageRuntime, directory: Path) -> PackageTextIndexes:
        """Serve what :meth:`build` wrote into ``directory``; ``ValueError`` when it does not fit."""
        names = cls.expected(runtime)
        present = tuple(name for name in (STANDARDS, COMPONENTS) if (directory / name).is_dir())
        if present != names:
            raise ValueError(f"derived indexes {present} differ from the package's {names}")
        return cls(
            TextIndex.open(directory / STANDARDS) if STANDARDS in names else None,
            TextIndex.open(directory / COMPONENTS) if COMPONENTS in names else None,
        )
