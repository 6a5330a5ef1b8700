"""Standards search across packages: each package's index (built once with its served package), one ranking.

Ranking is deterministic: exact/derived code matches first (package order, file order), then lexical
matches by these keys (``search.text_index``), in order:

1. the grades the query named (unless grades are filtered), items of one of them first;
2. the subjects the query named (unless subjects are filtered), items of one of them first;
3. coverage: every term before only some;
4. statements before groupings (unless a statement type is filtered);
5. a match in the item's own text before a heading-only one (found through its parents' names alone);
6. the phrase before the terms apart;
7. BM25 score, then (package order, file position) as the stable tie-break.

A grade or subject named in the query and read by some package counts as missed by every row of a
package that did not read it (it cannot honour it); a key no package uses counts as met. So the
packages' rows merge in one order, and each package returns only its rows that can reach the page.

A term is matched by its lemma; a statement matching other terms that holds it only in a related form
(its root: derivations) scores a little for it. A term is matched by its root instead where the
package holds the word in no form of its own, and every term is where fewer statements than a page
holds hold the query's words in their own text (``WIDEN_BELOW``); the reading reports those words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from kgfegmcp.core.errors import UnsupportedSearchModeError
from kgfegmcp.core.notice_codes import NoticeCode
from kgfegmcp.graph.store import GraphStore
from kgfegmcp.packages.records import ItemNode
from kgfegmcp.packages.runtime import PackageRuntime
from kgfegmcp.search.analysis import Analyzer, Term
from kgfegmcp.search.code_index import CodeIndex
from kgfegmcp.search.normalize import QueryWords
from kgfegmcp.search.package_indexes import FacetCache, Facets, facet_term
from kgfegmcp.search.query import InterpretedQuery, QueryReadings, interpreter_for
from kgfegmcp.search.text_index import Coverage, Preference, RankedRow, TextIndex
from kgfegmcp.search.vocabulary import FilterVocabulary
from kgfegmcp.search.word_hints import WordHints, hinted_packages, package_word_hints

MatchType = Literal["code_exact", "code_prefix", "derived_parent_code", "text"]
#: A package where fewer statements than a page holds hold the query's words in their own text (a
#: bound read from the terms' document frequencies) is searched by their related forms instead, when that
#: finds more: ``resenha`` then finds ``resenhar``, and "alfabeto" the statements on "escrita alfabética"
#: rather than a page of statements merely filed under a heading naming the alphabet. Derivations widen
#: a query only where its words leave the page short of own-text matches, and a word's own forms still
#: score first, so they never push a word's own matches down.
WIDEN_BELOW = 10


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Facet filters; each value matches a source term or its normalised facet exactly."""

    grade_levels: frozenset[str] = frozenset()
    statement_types: frozenset[str] = frozenset()
    academic_subjects: frozenset[str] = frozenset()

    def required_terms(self) -> list[frozenset[str]]:
        """The facet-term groups an index match must satisfy (one term of each)."""
        groups = []
        for kind, values in (
            ("grade", self.grade_levels),
            ("type", self.statement_types),
            ("subject", self.academic_subjects),
        ):
            if values:
                groups.append(frozenset(facet_term(kind, v) for v in values))
        return groups


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One matching item of one package."""

    package_order: int
    item: ItemNode
    position: int
    score: float
    match_type: MatchType
    coverage: Coverage | None = None
    #: Text hits: no searched term is in the item's own text; it matched through its parents' names alone.
    heading_only: bool = False


@dataclass(frozen=True, slots=True)
class MatchCounts:
    """How many items matched: by code, by every text term, by only some terms."""

    code: int = 0
    all_terms: int = 0
    some_terms: int = 0

    @property
    def total(self) -> int:
        """Every match, each item once."""
        return self.code + self.all_terms + self.some_terms


@dataclass(frozen=True, slots=True)
class Interpretation:
    """How one group of packages read the query (packages sharing a profile read it alike)."""

    graph_package_ids: tuple[str, ...]
    query: InterpretedQuery
    grades_used: bool
    #: Searched terms none of these packages' documents holds (folded): nothing can match them there.
    unknown_terms: tuple[str, ...] = ()
    #: Each unknown term that has any, with these packages' nearest words (``search.word_hints``): shown
    #: beside it, never searched.
    hints: WordHints = ()
    #: The subjects the query named rank their items first (no subject filter was given).
    subjects_used: bool = False
    #: Searched words these packages hold in no form of their own, searched by their related forms
    #: (their root: "capital" finds "Capitalize") instead.
    related_forms: tuple[str, ...] = ()

    @property
    def searched(self) -> tuple[Term, ...]:
        """The terms as these packages searched them: each of ``related_forms`` by its root."""
        return tuple(by_related_forms(self.query.terms, self.related_forms))


def by_related_forms(terms: Sequence[Term], words: Sequence[str]) -> list[Term]:
    """``terms`` with each of ``words`` (folded, as searched) searched by its root instead."""
    return [replace(t, by_root=True) if t.exact in words else t for t in terms]


@dataclass(frozen=True, slots=True)
class PackageReading:
    """How one package read the query: what its ``Interpretation`` says, before packages that read it
    alike are grouped and the words not found get their hints."""

    graph_package_id: str
    runtime: PackageRuntime
    text: TextIndex
    analyzer: Analyzer
    query: InterpretedQuery
    unknown: tuple[str, ...]
    related: tuple[str, ...]
    grades_used: bool = False
    subjects_used: bool = False


def interpretations(read: Sequence[PackageReading]) -> list[Interpretation]:
    """One interpretation per distinct reading, in package order, each word not found with its package's
    nearest words where that package reads some of the query (``word_hints.hinted_packages``)."""
    readings: dict[tuple[InterpretedQuery, bool, bool, tuple[str, ...], WordHints, tuple[str, ...]], list[str]] = {}
    hinted = hinted_packages([(len(r.query.terms), r.unknown) for r in read])
    for r, hint in zip(read, hinted, strict=True):
        hints = package_word_hints(r.runtime, r.text, r.analyzer, r.unknown) if hint else ()
        key = (r.query, r.grades_used, r.subjects_used, r.unknown, hints, r.related)
        readings.setdefault(key, []).append(r.graph_package_id)
    return [
        Interpretation(tuple(ids), reading, used, unknown, hints, subjects_used=subjects, related_forms=related)
        for (reading, used, subjects, unknown, hints, related), ids in readings.items()
    ]


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """The first ``needed`` hits in final order, the exact counts, warnings and how the query was read."""

    hits: list[SearchHit]
    counts: MatchCounts
    warnings: list[SearchWarning]
    interpretations: list[Interpretation]

    @property
    def total(self) -> int:
        """Every match, each item once."""
        return self.counts.total


@dataclass(frozen=True, slots=True)
class SearchWarning:
    """A capability or evidence limitation met while searching."""

    code: NoticeCode
    message: str
    graph_package_id: str


class PackageSearchIndex:
    """Text and code indexes of one package (standards items only, never components)."""

    def __init__(self, store: GraphStore, text: TextIndex | None) -> None:
        runtime = store.runtime
        self.store = store
        self.runtime = runtime
        self.text = text
        #: The most this package can match: every match is one item, found by code or by text.
        self.documents = len(runtime.items)
        policy = runtime.profile.profile.code_policy
        caps = runtime.manifest.capabilities_view
        self.codes = (
            CodeIndex(
                ((i.statement_code, store.item_order(i.identifier)) for i in runtime.items if i.statement_code),
                policy.normalization,
            )
            if caps.exact_code_search and policy.exact_search
            else None
        )
        facets = FacetCache(runtime)
        # Items hold the node positions right after the framework's, so a list indexed by position
        # holds each item's (shared) facets for a pointer apiece.
        self._facets: list[Facets | None] = [None, *(facets(i) for i in runtime.items)]
        #: The filter values this package's items carry (what a filter may name and still match).
        self.vocabulary = FilterVocabulary.of(runtime.profile.profile, facets.combinations())
        self.interpreter = interpreter_for(runtime.profile.profile)
        self.statement_preference = Preference(frozenset({facet_term("role", "standard")}))

        self.prefix_allowed = bool(self.codes is not None and caps.prefix_code_search and policy.prefix_search)
        self.partial_codes = policy.codes_present != "allStandards"
        self.derived_separator = policy.derived_parent_separator

    @staticmethod
    def grade_preference(source_labels: Sequence[str]) -> Preference:
        """Items of any of these grades first."""
        return Preference(frozenset(facet_term("grade", g) for g in source_labels))

    @staticmethod
    def subject_preference(subjects: Sequence[str]) -> Preference:
        """Items of any of these academic subjects (as the items carry them) first."""
        return Preference(frozenset(facet_term("subject", s) for s in subjects))

    def facets(self, position: int) -> Facets:
        """The facets of the item at ``position``."""
        found = self._facets[position]
        assert found is not None  # only item positions are ever asked for
        return found

    def passes(self, position: int, filters: SearchFilters) -> bool:
        """Whether the item at ``position`` satisfies every facet filter."""
        grades, types, subject, _ = self.facets(position)
        return (
            (not filters.grade_levels or bool(grades & filters.grade_levels))
            and (not filters.statement_types or bool(types & filters.statement_types))
            and (not filters.academic_subjects or subject in filters.academic_subjects)
        )

    def serves(self, mode: str, code_match: str) -> bool:
        """Whether this package can answer ``mode`` (with ``code_match``) at all."""
        code = self.prefix_allowed if code_match == "prefix" else self.codes is not None
        if mode == "text":
            return self.text is not None
        if mode == "code":
            return code
        return self.text is not None or code

    def item_at(self, position: int) -> ItemNode:
        node = self.store.node_at(position)
        assert isinstance(node, ItemNode)
        return node


def require_servable(
    indexes: Sequence[PackageSearchIndex], mode: Literal["auto", "text", "code"], code_match: str
) -> None:
    """``unsupported_search_mode`` when not one selected package can serve the mode at all.

    Where some can, the others are reported per package as search warnings instead: an empty page
    that only warns would hide that the request could never have matched anything.
    """
    if any(index.serves(mode, code_match) for index in indexes):
        return
    wanted = {"text": "lexical text search", "code": "statement-code search", "auto": "text or code search"}
    what = "prefix code search" if mode == "code" and code_match == "prefix" else wanted[mode]
    raise UnsupportedSearchModeError(
        f"None of the {len(indexes)} selected package(s) supports {what}.",
        hint="Call get_capabilities for what each package supports, then choose another searchMode or codeMatch, "
        "or select packages that support it.",
    )


def find_standards(
    indexes: Sequence[PackageSearchIndex],
    query: QueryWords,
    mode: Literal["auto", "text", "code"],
    code_match: Literal["exact", "prefix"],
    filters: SearchFilters,
    needed: int,
) -> SearchOutcome:
    """The first ``needed`` hits in final order, the exact total and sorted warnings.

    Each package's index returns only the rows that can reach the first ``needed`` places, with
    facet filters applied inside the index, and totals come from its count, so a page costs
    little however many documents match.
    """
    warnings: list[SearchWarning] = []
    required = filters.required_terms()
    code_hits: list[SearchHit] = []
    text_rows: list[tuple[dict[str, bool], float, int, int, RankedRow]] = []
    all_terms = some_terms = 0
    read: list[PackageReading] = []
    readings = QueryReadings(query)
    for order, index in enumerate(indexes):
        package_codes: list[SearchHit] = []
        if mode in ("code", "auto"):
            found = _code(order, index, query.text, mode, code_match, warnings)
            package_codes = [hit for hit in found if index.passes(hit.position, filters)]
            code_hits.extend(package_codes)
        if mode == "code":
            continue
        if index.text is None:
            warnings.append(
                SearchWarning(
                    NoticeCode.TEXT_SEARCH_UNAVAILABLE,
                    "This package does not support lexical text search.",
                    index.runtime.graph_package_id,
                )
            )
            continue
        reading = readings.by(index.interpreter, subjects=index.vocabulary.subjects)
        grades_used = bool(reading.grades) and not filters.grade_levels
        subjects_used = bool(reading.subjects) and not filters.academic_subjects
        related = index.text.related(reading.terms)
        terms = by_related_forms(reading.terms, related)
        # Every preference keeps its place in every package's key, whether used there or not.
        leading: dict[str, Preference] = {}
        if grades_used:
            leading["grade"] = index.grade_preference(reading.grades)
        if subjects_used:
            leading["subject"] = index.subject_preference(reading.subjects)
        within = [] if filters.statement_types else [index.statement_preference]
        page = index.text.ranked(terms, needed + len(package_codes), required, within, list(leading.values()))
        widened = _by_related_forms(terms)
        if (
            widened != terms
            and index.text.own_text_bound(terms) < WIDEN_BELOW
            and index.text.roots_reach_further(terms)
        ):
            wide = index.text.ranked(widened, needed + len(package_codes), required, within, list(leading.values()))
            if wide.all_terms + wide.some_terms > page.all_terms + page.some_terms:
                terms, page = widened, wide
                related = tuple(t.exact for t in widened if t.by_root)
        unknown = tuple(word for word in index.text.absent(reading.terms) if word not in related)
        read.append(
            PackageReading(
                index.runtime.graph_package_id,
                index.runtime,
                index.text,
                index.interpreter.analyzer,
                reading,
                unknown,
                related,
                grades_used,
                subjects_used,
            )
        )
        for row in page.rows:
            text_rows.append(
                (dict(zip(leading, row.leading_unmet, strict=True)), -row.rank_score, order, row.position, row)
            )
        claimed_all, claimed_some = index.text.coverage_counts(terms, [hit.position for hit in package_codes], required)
        all_terms += page.all_terms - claimed_all
        some_terms += page.some_terms - claimed_some
    claimed = {(h.package_order, h.position) for h in code_hits}
    # A grade or subject the query names, read in some package, is missed by every row of a package that
    # could not read it: "5 ano" ranks Ensino Fundamental's 5º ano first, not a Japanese item matching "5".
    named = {"grade": any(r.grades_used for r in read), "subject": any(r.subjects_used for r in read)}
    text_rows.sort(key=lambda entry: (_stratum(entry[0], entry[4], named), *entry[1:4]))
    text_hits: list[SearchHit] = []
    for _, _, order, position, row in text_rows:
        if len(code_hits) + len(text_hits) >= needed:
            break
        if (order, position) in claimed:
            continue
        item = indexes[order].item_at(position)
        text_hits.append(SearchHit(order, item, position, row.score, "text", row.coverage, row.heading_only))
    warnings.sort(key=lambda w: (w.graph_package_id, w.code, w.message))
    return SearchOutcome(
        [*code_hits, *text_hits][:needed],
        MatchCounts(len(code_hits), all_terms, some_terms),
        warnings,
        interpretations(read),
    )


def _stratum(missed: dict[str, bool], row: RankedRow, named: dict[str, bool]) -> tuple[object, ...]:
    """A row's keys across packages, before its score (the module's ranking keys 1 to 6): the grade and
    subject named, then the row's own keys after its leading preferences (every package of a request has
    the same preferences)."""
    return (missed.get("grade", named["grade"]), missed.get("subject", named["subject"]), *row.stratum()[1:])


def _by_related_forms(terms: list[Term]) -> list[Term]:
    """Every term that has a root searched by it (a root's documents hold the word's own forms too)."""
    return by_related_forms(terms, [t.exact for t in terms if t.root and not t.exact_only])


def _code(
    order: int,
    index: PackageSearchIndex,
    query: str,
    mode: str,
    code_match: str,
    warnings: list[SearchWarning],
) -> list[SearchHit]:
    package_id = index.runtime.graph_package_id
    if index.codes is None:
        if mode == "code":
            warnings.append(
                SearchWarning(
                    NoticeCode.CODE_SEARCH_UNAVAILABLE, "This package does not support code search.", package_id
                )
            )
        return []
    if index.partial_codes and mode == "code":
        warnings.append(
            SearchWarning(
                NoticeCode.PARTIAL_CODE_COVERAGE,
                "Not every item in this package carries a code; code search cannot find the others.",
                package_id,
            )
        )
    if code_match == "prefix":
        if not index.prefix_allowed:
            warnings.append(
                SearchWarning(
                    NoticeCode.CODE_PREFIX_UNAVAILABLE, "This package does not allow prefix code search.", package_id
                )
            )
            return []
        return [SearchHit(order, index.item_at(p), p, 0.0, "code_prefix") for p in index.codes.prefix(query)]
    positions = index.codes.exact(query)
    if len(positions) > 1:
        warnings.append(
            SearchWarning(
                NoticeCode.MULTIPLE_CODE_MATCHES,
                f"The code matches {len(positions)} items in this package; select one by nodeId.",
                package_id,
            )
        )
    if positions or mode != "code":
        return [SearchHit(order, index.item_at(p), p, 0.0, "code_exact") for p in positions]
    return _derived_parent(order, index, query, warnings)


def _derived_parent(
    order: int, index: PackageSearchIndex, query: str, warnings: list[SearchWarning]
) -> list[SearchHit]:
    separator = index.derived_separator
    assert index.codes is not None
    package_id = index.runtime.graph_package_id
    if not separator or separator not in query.strip():
        return []
    parent_code = query.strip().rsplit(separator, 1)[0]
    positions = index.codes.exact(parent_code)
    if not positions:
        warnings.append(
            SearchWarning(
                NoticeCode.DERIVED_PARENT_CODE_NOT_FOUND,
                f"No item has the code {query.strip()!r}, nor its derived parent code {parent_code!r}.",
                package_id,
            )
        )
        return []
    if len(positions) > 1:
        warnings.append(
            SearchWarning(
                NoticeCode.DERIVED_PARENT_CODE_MULTIPLE,
                f"The derived parent code {parent_code!r} matches {len(positions)} items.",
                package_id,
            )
        )
    return [SearchHit(order, index.item_at(p), p, 0.0, "derived_parent_code") for p in positions]
