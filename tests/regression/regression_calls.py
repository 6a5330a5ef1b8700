"""The call table of the client-visible regression corpus: every MCP call the corpus records, in order.

One table, shared by the recorder and the test, so what is recorded is exactly what is replayed.
Calls are grouped by catalog: three fixture catalogs written by the test suite (``search``: tests/mcp's
search world; ``evidence``: tests/progressions' world; ``rights``: tests/resources' rights matrix) and the
real ``default`` catalog. Catalogs run in this order over one in-memory session each.

Arguments may hold :class:`Ref` values: read from an earlier answer at replay time (a cursor, a
``nextRequest``, a node id, a resource link), so the corpus follows what the server actually returned
instead of guessing ids, and a changed answer shows up where it changed. A call is described in the
corpus with its references, not with the values they resolved to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from kgfegmcp.mcp.tools import Specimens, example_calls
from package_factory import DAG, LC, TREE
from progression_worlds import HUGE, MESH, WIDE
from resource_worlds import DERIVATIVES_DENIED, VARIANTS, lc_ids
from standards_worlds import NOCODE, NOPREFIX, NOTEXT, SOME, TWIN
from tool_examples import default_specimens

DEFAULT = "default"
#: Catalogs of our own synthetic data: their corpus lines keep the complete answer.
FULL_RESULT_CATALOGS = frozenset({"search", "evidence", "rights"})

Kind = Literal["list", "tool", "resource", "prompt"]
_BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@dataclass(frozen=True)
class Ref:
    """A value read from an earlier answer: ``path`` walks its JSON (``$continue`` parses the
    ``Continue with:`` block, ``$json`` parses a JSON string); ``fmt`` formats it; ``edit`` tampers it."""

    key: str
    path: tuple[str | int, ...]
    fmt: str = "{}"
    edit: Literal["flip-first", "flip-last", "drop-last"] | None = None
    catalog: str | None = None

    def apply(self, value: Any) -> Any:
        """The value as the call sends it."""
        if self.edit == "flip-first":  # changes the payload: the checksum no longer matches
            value = _BASE64URL[(_BASE64URL.index(value[0]) + 1) % len(_BASE64URL)] + value[1:]
        elif self.edit == "flip-last":  # changes the padding bits or the checksum: not canonical, or altered
            value = value[:-1] + _BASE64URL[(_BASE64URL.index(value[-1]) + 1) % len(_BASE64URL)]
        elif self.edit == "drop-last":
            value = value[:-1]
        return self.fmt.format(value) if self.fmt != "{}" else value

    def describe(self) -> dict[str, Any]:
        """How the corpus shows the reference (never the value it resolves to)."""
        described: dict[str, Any] = {"key": self.key, "path": list(self.path)}
        if self.fmt != "{}":
            described["fmt"] = self.fmt
        if self.edit:
            described["edit"] = self.edit
        if self.catalog:
            described["catalog"] = self.catalog
        return described


@dataclass(frozen=True)
class Call:
    """One MCP request: a listing, a tool call, a resource read or a prompt."""

    catalog: str
    key: str
    kind: Kind
    name: str
    arguments: Any = None
    #: Resources only: send the URI exactly as written, past the client's URL normalisation.
    raw: bool = False
    #: Over a handshake-era session (protocol 2025-11-25) instead of the modern one.
    legacy: bool = False


@dataclass
class Table:
    """Builder of one catalog's calls; each method returns the key, for later references."""

    catalog: str
    calls: list[Call] = field(default_factory=list)

    def _add(self, key: str, kind: Kind, name: str, arguments: Any, **options: bool) -> str:
        assert all(c.key != key for c in self.calls), f"duplicate key {self.catalog}/{key}"
        self.calls.append(Call(self.catalog, key, kind, name, arguments, **options))
        return key

    def listing(self, what: str) -> str:
        return self._add(f"list/{what}", "list", what, None)

    def tool(self, label: str, name: str, request: Any, *, legacy: bool = False) -> str:
        """A tool call with ``{"request": request}`` (a Ref as request stands for all arguments)."""
        arguments = request if isinstance(request, Ref) else {"request": request}
        return self._add(f"tool/{name}/{label}", "tool", name, arguments, legacy=legacy)

    def tool_arguments(self, label: str, name: str, arguments: Any) -> str:
        """A tool call with arguments other than one ``request`` object (refused ones)."""
        return self._add(f"tool/{name}/{label}", "tool", name, arguments)

    def follow(self, label: str, name: str, previous: str) -> str:
        """The next page: the previous answer's ``nextRequest``, replayed unchanged."""
        return self.tool(label, name, Ref(previous, ("$continue", "nextRequest")))

    def resource(self, label: str, uri: Any, *, raw: bool = False) -> str:
        return self._add(f"resource/{label}", "resource", "read", uri, raw=raw)

    def prompt(self, label: str, name: str, arguments: dict[str, Any]) -> str:
        return self._add(f"prompt/{name}/{label}", "prompt", name, arguments)


def _listings(table: Table) -> None:
    for what in ("tools", "resources", "resource_templates", "prompts"):
        table.listing(what)


def sc(key: str, *path: str | int, fmt: str = "{}", edit: Any = None) -> Ref:
    """A reference into an earlier tool answer's structured content."""
    return Ref(key, ("structuredContent", *path), fmt=fmt, edit=edit)


def doc(key: str, *path: str | int, fmt: str = "{}") -> Ref:
    """A reference into an earlier resource read's JSON document."""
    return Ref(key, ("contents", 0, "text", "$json", *path), fmt=fmt)


def std(framework_id: str, code: str, **extra: Any) -> dict[str, Any]:
    return {"frameworkId": framework_id, "statementCode": code, **extra}


def fx(framework_id: str, snapshot_id: str = "2026-01") -> str:
    """A fixture package's resource address."""
    return f"kgfegmcp://framework/{framework_id}/snapshot/{snapshot_id}"


# -- search: the standards tools' world (tests/mcp/standards_worlds.py) ---------------------------------


def search_calls() -> list[Call]:
    t = Table("search")
    _listings(t)
    # list_frameworks
    t.tool("all", "list_frameworks", {})
    p1 = t.tool("paged-1", "list_frameworks", {"limit": 2})
    p2 = t.follow("paged-2", "list_frameworks", p1)
    t.follow("paged-3", "list_frameworks", p2)
    nc = t.tool("non-current-1", "list_frameworks", {"includeNonCurrent": True, "limit": 1})
    t.follow("non-current-2", "list_frameworks", nc)
    t.tool("tree-current", "list_frameworks", {"frameworkIds": [TREE]})
    t.tool("tree-all", "list_frameworks", {"frameworkIds": [TREE], "includeNonCurrent": True})
    t.tool("progressions", "list_frameworks", {"graphTypes": ["LearningProgressions"]})
    t.tool(
        "components-and-progressions", "list_frameworks", {"graphTypes": ["LearningComponents", "AcademicStandards"]}
    )
    t.tool("jurisdiction", "list_frameworks", {"jurisdiction": "Fixture Land", "limit": 3})
    t.tool("subject-language", "list_frameworks", {"academicSubject": "Mathematics", "inLanguage": "en", "limit": 4})
    t.tool("no-match", "list_frameworks", {"jurisdiction": "Atlantis"})
    t.tool("twins", "list_frameworks", {"frameworkIds": [TWIN], "limit": 1})
    t.tool("limit-zero", "list_frameworks", {"limit": 0})
    t.tool("limit-string", "list_frameworks", {"limit": "2"})
    t.tool("unknown-field", "list_frameworks", {"frameworkId": TREE})
    t.tool("snake-case", "list_frameworks", {"include_non_current": True})
    t.tool("bad-cursor-form", "list_frameworks", {"limit": 2, "cursor": "not a cursor!"})
    t.tool("bad-cursor-garbage", "list_frameworks", {"limit": 2, "cursor": "AAAAAAAAAAAAAAAAAAAAAAAA"})
    t.tool("tampered-cursor", "list_frameworks", {"limit": 2, "cursor": sc(p1, "page", "nextCursor", edit="flip-last")})
    t.tool("altered-cursor", "list_frameworks", {"limit": 2, "cursor": sc(p1, "page", "nextCursor", edit="flip-first")})
    t.tool(
        "truncated-cursor", "list_frameworks", {"limit": 2, "cursor": sc(p1, "page", "nextCursor", edit="drop-last")}
    )
    t.tool("cursor-other-request", "list_frameworks", {"limit": 3, "cursor": sc(p1, "page", "nextCursor")})
    t.tool_arguments("no-request", "list_frameworks", {})
    t.tool_arguments("extra-argument", "list_frameworks", {"request": {}, "other": 1})
    t.tool_arguments("request-not-object", "list_frameworks", {"request": "all"})
    t.tool_arguments("unknown-tool", "no_such_tool", {"request": {}})
    # get_framework
    t.tool("tree", "get_framework", {"frameworkId": TREE})
    t.tool("tree-old-snapshot", "get_framework", {"frameworkId": TREE, "snapshotId": "2025-01"})
    t.tool("notext", "get_framework", {"frameworkId": NOTEXT})
    t.tool("twin-ambiguous", "get_framework", {"frameworkId": TWIN})
    t.tool("twin-snapshot", "get_framework", {"frameworkId": TWIN, "snapshotId": "2026-02"})
    t.tool("unknown-framework", "get_framework", {"frameworkId": "no-such-framework"})
    t.tool("unknown-snapshot", "get_framework", {"frameworkId": TREE, "snapshotId": "1999-01"})
    t.tool("id-too-short", "get_framework", {"frameworkId": "ab"})
    t.tool("missing-id", "get_framework", {})
    # get_capabilities
    t.tool("all", "get_capabilities", {})
    t.tool("lc", "get_capabilities", {"frameworkId": LC})
    t.tool("nocode", "get_capabilities", {"frameworkId": NOCODE})
    t.tool("noprefix", "get_capabilities", {"frameworkId": NOPREFIX})
    t.tool("snapshot-without-framework", "get_capabilities", {"snapshotId": "2026-01"})
    t.tool("twin-ambiguous", "get_capabilities", {"frameworkId": TWIN})
    # get_framework_statistics
    t.tool("lc", "get_framework_statistics", {"frameworkId": LC})
    t.tool("tree", "get_framework_statistics", {"frameworkId": TREE})
    t.tool("some", "get_framework_statistics", {"frameworkId": SOME})
    t.tool("unknown-framework", "get_framework_statistics", {"frameworkId": "no-such-framework"})
    # search_standards
    t.tool("count", "search_standards", {"query": "count"})
    s1 = t.tool("paged-1", "search_standards", {"query": "count number", "frameworkIds": [TREE, DAG], "limit": 1})
    s2 = t.follow("paged-2", "search_standards", s1)
    t.follow("paged-3", "search_standards", s2)
    t.tool("notext-warning", "search_standards", {"query": "fraction", "frameworkIds": [NOTEXT, TREE]})
    t.tool("notext-code", "search_standards", {"query": "NF.1", "frameworkIds": [NOTEXT, TREE]})
    t.tool("notext-only", "search_standards", {"query": "fraction", "frameworkIds": [NOTEXT], "searchMode": "text"})
    t.tool("code-prefix", "search_standards", {"query": "NBT", "searchMode": "code", "codeMatch": "prefix"})
    t.tool("code-exact-some", "search_standards", {"query": "nbt.a.1", "searchMode": "code", "frameworkIds": [SOME]})
    t.tool(
        "code-prefix-noprefix",
        "search_standards",
        {"query": "NBT.A", "searchMode": "code", "codeMatch": "prefix", "frameworkIds": [NOPREFIX]},
    )
    t.tool("code-nocode", "search_standards", {"query": "NBT.1", "searchMode": "code", "frameworkIds": [NOCODE]})
    t.tool(
        "code-nocode-and-tree",
        "search_standards",
        {"query": "NBT.1", "searchMode": "code", "frameworkIds": [NOCODE, TREE]},
    )
    t.tool("grade", "search_standards", {"query": "count", "gradeLevels": ["grade-2"]})
    t.tool("grade-label", "search_standards", {"query": "count", "gradeLevels": ["1"], "frameworkIds": [TREE]})
    t.tool("statement-type", "search_standards", {"query": "place value", "statementTypes": ["Cluster"]})
    t.tool("subject", "search_standards", {"query": "count", "academicSubjects": ["Mathematics"], "limit": 3})
    t.tool("accents", "search_standards", {"query": "frações", "frameworkIds": [TREE, DAG, LC]})
    t.tool("old-snapshot", "search_standards", {"query": "count", "snapshotIds": ["2025-01"]})
    t.tool(
        "two-snapshots",
        "search_standards",
        {"query": "count", "frameworkIds": [TREE], "snapshotIds": ["2025-01", "2026-01"]},
    )
    t.tool("no-hits", "search_standards", {"query": "zzyzxqv"})
    t.tool("twin-ambiguous", "search_standards", {"query": "count", "frameworkIds": [TWIN]})
    t.tool("duplicate-frameworks", "search_standards", {"query": "x", "frameworkIds": [TREE, TREE]})
    t.tool("empty-query", "search_standards", {"query": ""})
    t.tool("blank-query", "search_standards", {"query": "   "})
    t.tool("long-query", "search_standards", {"query": "a" * 513})
    t.tool("too-many-tokens", "search_standards", {"query": " ".join(f"word{i}" for i in range(33))})
    t.tool("prefix-without-code-mode", "search_standards", {"query": "NBT", "codeMatch": "prefix"})
    t.tool("unknown-framework", "search_standards", {"query": "count", "frameworkIds": ["no-such-framework"]})
    t.tool(
        "cursor-other-tool",
        "search_standards",
        {"query": "count number", "frameworkIds": [TREE, DAG], "limit": 1, "cursor": sc(p1, "page", "nextCursor")},
    )
    t.tool(
        "cursor-changed-query",
        "search_standards",
        {"query": "count", "frameworkIds": [TREE, DAG], "limit": 1, "cursor": sc(s1, "page", "nextCursor")},
    )
    t.tool("legacy-session", "search_standards", {"query": "count", "frameworkIds": [TREE], "limit": 2}, legacy=True)
    # get_standard
    gs = t.tool("tree-code", "get_standard", std(TREE, "NBT.A.1"))
    t.tool("dag-shared", "get_standard", std(DAG, "NF.2"))
    t.tool("casefolded-code", "get_standard", std(TREE, "nbt.a.1"))
    t.tool("node-id", "get_standard", {"frameworkId": TREE, "nodeId": sc(gs, "standard", "nodeId")})
    t.tool("case-uuid", "get_standard", {"frameworkId": TREE, "caseIdentifierUUID": sc(gs, "standard", "nodeId")})
    t.tool("some-ambiguous", "get_standard", std(SOME, "nbt.a.1"))
    t.tool("noprefix-exact-normalisation", "get_standard", std(NOPREFIX, "nbt.a.1"))
    t.tool("noprefix", "get_standard", std(NOPREFIX, "NBT.A.1"))
    t.tool("nocode-by-code", "get_standard", std(NOCODE, "NBT.1"))
    t.tool("twin-ambiguous", "get_standard", std(TWIN, "NBT.1"))
    t.tool("twin-snapshot", "get_standard", std(TWIN, "NBT.1", snapshotId="2026-02"))
    t.tool("old-snapshot", "get_standard", std(TREE, "NF.1", snapshotId="2025-01"))
    t.tool("unknown-code", "get_standard", std(TREE, "NBT.Z.9"))
    t.tool("no-selector", "get_standard", {"frameworkId": TREE})
    t.tool("two-selectors", "get_standard", {"frameworkId": TREE, "statementCode": "NBT.1", "nodeId": "x"})
    t.tool("legacy-session", "get_standard", std(DAG, "NF.2"), legacy=True)
    # get_standard_context
    ctx = t.tool("dag-shared", "get_standard_context", std(DAG, "NF.2"))
    t.tool("one-path", "get_standard_context", std(DAG, "NF.2", maxPaths=1))
    t.tool("path-occurrences", "get_standard_context", std(DAG, "NF.2", maxPathNodeOccurrences=5))
    t.tool("one-node", "get_standard_context", std(DAG, "NF.2", maxNodes=1, maxPaths=1))
    t.tool("no-depth", "get_standard_context", std(DAG, "NF.2", childDepth=0, ancestorDepth=0))
    t.tool(
        "domain-children",
        "get_standard_context",
        {"frameworkId": DAG, "nodeId": sc(ctx, "parents", 0, "nodeId"), "childDepth": 2},
    )
    t.tool("max-nodes-zero", "get_standard_context", std(DAG, "NF.2", maxNodes=0))
    t.tool("child-depth-too-deep", "get_standard_context", std(DAG, "NF.2", childDepth=65))
    # compare_framework_evidence
    t.tool("tree-dag", "compare_framework_evidence", {"query": "count", "frameworkIds": [TREE, DAG]})
    t.tool(
        "one-match",
        "compare_framework_evidence",
        {"query": "fraction", "frameworkIds": [TREE, DAG, LC], "maxMatchesPerFramework": 1},
    )
    t.tool(
        "grades",
        "compare_framework_evidence",
        {"query": "count", "frameworkIds": [TREE, LC], "gradeLevels": ["grade-2"]},
    )
    t.tool(
        "framework-grades",
        "compare_framework_evidence",
        {
            "query": "count",
            "frameworkIds": [TREE, LC],
            "frameworkGradeLevels": [{"frameworkId": LC, "gradeLevels": ["1"]}],
        },
    )
    t.tool(
        "code-partial",
        "compare_framework_evidence",
        {"query": "NBT.1", "searchMode": "code", "frameworkIds": [TREE, NOCODE]},
    )
    t.tool(
        "code-none",
        "compare_framework_evidence",
        {"query": "NBT.1", "searchMode": "code", "frameworkIds": [NOCODE, NOTEXT]},
    )
    t.tool(
        "snapshots",
        "compare_framework_evidence",
        {"query": "count", "frameworkIds": [TREE, TWIN], "snapshotIds": ["2025-01", "2026-02"]},
    )
    t.tool("one-framework", "compare_framework_evidence", {"query": "count", "frameworkIds": [TREE]})
    t.tool(
        "grades-for-unlisted",
        "compare_framework_evidence",
        {
            "query": "count",
            "frameworkIds": [TREE, DAG],
            "frameworkGradeLevels": [{"frameworkId": LC, "gradeLevels": ["1"]}],
        },
    )
    t.tool(
        "unknown-framework",
        "compare_framework_evidence",
        {"query": "count", "frameworkIds": [TREE, "no-such-framework"]},
    )
    # learning components
    lc = t.tool("partition", "search_learning_components", {"query": "partition"})
    c1 = t.tool("paged-1", "search_learning_components", {"query": "parts hundreds", "frameworkIds": [LC], "limit": 1})
    t.follow("paged-2", "search_learning_components", c1)
    t.tool("no-components", "search_learning_components", {"query": "fractions", "frameworkIds": [DAG]})
    t.tool("empty-query", "search_learning_components", {"query": ""})
    component = sc(lc, "hits", 0, "nodeId")
    t.tool("lc", "get_learning_component", {"frameworkId": LC, "nodeId": component})
    t.tool("standard-id", "get_learning_component", {"frameworkId": LC, "nodeId": sc(gs, "standard", "nodeId")})
    t.tool(
        "unknown-id", "get_learning_component", {"frameworkId": LC, "nodeId": "00000000-0000-5000-8000-000000000000"}
    )
    t.tool("nf1", "get_learning_components_for_standard", std(LC, "NF.1"))
    t.tool("nf2-limit-1", "get_learning_components_for_standard", std(LC, "NF.2", limit=1))
    t.tool("no-components", "get_learning_components_for_standard", std(DAG, "NF.1"))
    t.tool("component-as-standard", "get_learning_components_for_standard", {"frameworkId": LC, "nodeId": component})
    t.tool("lc", "get_standards_for_learning_component", {"frameworkId": LC, "nodeId": component})
    t.tool("limit-1", "get_standards_for_learning_component", {"frameworkId": LC, "nodeId": component, "limit": 1})
    t.tool(
        "limit-too-high", "get_standards_for_learning_component", {"frameworkId": LC, "nodeId": component, "limit": 101}
    )
    # progressions over fixture-lc
    gp = t.tool("nbt-a-1", "get_standard_progressions", std(LC, "NBT.A.1"))
    t.tool("incoming", "get_standard_progressions", std(LC, "NBT.A.1", direction="in"))
    t.tool("relates-to", "get_standard_progressions", std(LC, "NF.1", linkTypes=["relatesTo"]))
    t.tool("no-progressions", "get_standard_progressions", std(DAG, "NF.1"))
    t.tool("all", "search_learning_progressions", {"frameworkId": LC})
    t.tool(
        "grade",
        "search_learning_progressions",
        {"frameworkId": LC, "gradeLevels": ["grade-2"], "linkTypes": ["buildsTowards"]},
    )
    t.tool("text", "search_learning_progressions", {"frameworkId": LC, "query": "count"})
    t.tool("unknown-grade", "search_learning_progressions", {"frameworkId": LC, "gradeLevels": ["grade-99"]})
    t.tool("no-progressions", "search_learning_progressions", {"frameworkId": TREE})
    t.tool(
        "link", "get_learning_progression", {"frameworkId": LC, "progressionId": sc(gp, "links", 0, "relationshipId")}
    )
    t.tool("unknown", "get_learning_progression", {"frameworkId": LC, "progressionId": "no-such-link"})
    t.tool("out", "traverse_learning_progressions", std(LC, "NBT.1"))
    t.tool("both-depth-1", "traverse_learning_progressions", std(LC, "NBT.A.2", direction="both", maxDepth=1))
    t.tool("both-one-edge", "traverse_learning_progressions", std(LC, "NBT.A.2", direction="both", maxEdges=1))
    t.tool("max-depth-zero", "traverse_learning_progressions", std(LC, "NBT.1", maxDepth=0))
    t.tool("path", "find_learning_progression_paths", {"from": std(LC, "NBT.1"), "to": std(LC, "NBT.A.2")})
    t.tool("no-path", "find_learning_progression_paths", {"from": std(LC, "NF.2"), "to": std(LC, "NBT.1")})
    t.tool("same-standard", "find_learning_progression_paths", {"from": std(LC, "NBT.1"), "to": std(LC, "NBT.1")})
    t.tool("across-packages", "find_learning_progression_paths", {"from": std(LC, "NBT.1"), "to": std(DAG, "NF.2")})
    # read_evidence
    standard_uri = sc(gs, "standard", "uri")
    e1 = t.tool("standard-window-1", "read_evidence", {"uri": standard_uri, "windowBytes": 200})
    t.tool(
        "standard-window-2",
        "read_evidence",
        {"uri": standard_uri, "windowBytes": 200, "cursor": sc(e1, "page", "nextCursor")},
    )
    t.tool(
        "window-changed",
        "read_evidence",
        {"uri": standard_uri, "windowBytes": 201, "cursor": sc(e1, "page", "nextCursor")},
    )
    t.tool("catalog", "read_evidence", {"uri": "kgfegmcp://catalog"})
    t.tool("not-an-address", "read_evidence", {"uri": "https://example.org/standard"})
    t.tool("unknown-framework", "read_evidence", {"uri": "kgfegmcp://framework/no-such-framework"})
    t.tool("window-too-small", "read_evidence", {"uri": "kgfegmcp://catalog", "windowBytes": 3})
    # get_workflow_instructions
    t.tool(
        "practice",
        "get_workflow_instructions",
        {"workflow": "practice_item_set", "frameworkId": TREE, "topic": "count"},
    )
    t.tool(
        "comparison",
        "get_workflow_instructions",
        {"workflow": "cross_framework_comparison", "frameworkIds": [TREE, DAG], "topic": "fractions"},
    )
    t.tool(
        "sequence",
        "get_workflow_instructions",
        {
            "workflow": "learning_progression_teaching_sequence",
            "frameworkId": LC,
            "standard": "NBT.1",
            "targetStandard": "NBT.A.2",
        },
    )
    t.tool("missing-topic", "get_workflow_instructions", {"workflow": "practice_item_set", "frameworkId": TREE})
    t.tool(
        "foreign-field",
        "get_workflow_instructions",
        {"workflow": "practice_item_set", "frameworkId": TREE, "topic": "count", "frameworkIds": [TREE, DAG]},
    )
    t.tool(
        "unknown-workflow",
        "get_workflow_instructions",
        {"workflow": "teacher_guide_draft", "frameworkId": TREE, "topic": "count"},
    )
    t.tool(
        "unknown-framework",
        "get_workflow_instructions",
        {"workflow": "practice_item_set", "frameworkId": "no-such-framework", "topic": "count"},
    )
    # resources (fixture-lc: full text and standard resources, bulk denied)
    t.resource("catalog", "kgfegmcp://catalog")
    t.resource("framework", f"kgfegmcp://framework/{TREE}")
    t.resource("framework-twin", f"kgfegmcp://framework/{TWIN}")
    t.resource("snapshot", fx(LC))
    t.resource("snapshot-non-current", fx(TREE, "2025-01"))
    t.resource("manifest", f"{fx(LC)}/manifest")
    t.resource("validation", f"{fx(LC)}/validation")
    t.resource("profile", f"{fx(NOCODE)}/profile")
    t.resource("unresolved", f"{fx(LC)}/unresolved")
    sr = t.resource("standard", sc(gs, "standard", "uri"))
    t.resource("standard-provenance", sc(gs, "standard", "uri", fmt="{}/provenance"))
    t.resource("standard-parent-from-document", doc(sr, "parentNodeIds", 0, fmt=fx(TREE) + "/standard/{}"))
    t.resource("manifest-from-document", doc(sr, "package", "manifestUri"))
    t.resource("standard-of-other-snapshot", sc(gs, "standard", "nodeId", fmt=fx(TREE, "2025-01") + "/standard/{}"))
    t.resource("relationship", sc(gp, "links", 0, "relationshipId", fmt=fx(LC) + "/relationship/{}"))
    t.resource("learning-component", sc(lc, "hits", 0, "nodeId", fmt=fx(LC) + "/learning-component/{}"))
    t.resource(
        "learning-component-provenance", sc(lc, "hits", 0, "nodeId", fmt=fx(LC) + "/learning-component/{}/provenance")
    )
    t.resource("learning-progression", sc(gp, "links", 0, "relationshipId", fmt=fx(LC) + "/learning-progression/{}"))
    t.resource("provenance-part-bulk-denied", f"{fx(LC)}/provenance-part/07")
    t.resource("artifact-validation-report", f"{fx(LC)}/artifact/validationReport")
    t.resource("artifact-nodes-bulk-denied", f"{fx(LC)}/artifact/nodes")
    t.resource("unknown-framework", "kgfegmcp://framework/no-such-framework")
    t.resource("unknown-snapshot", fx(LC, "2099-01"))
    t.resource("unknown-snapshot-manifest", f"{fx(LC, '2099-01')}/manifest")
    t.resource("unknown-snapshot-validation", f"{fx(TWIN, '2026-03')}/validation")
    t.resource("unknown-snapshot-profile", f"{fx(NOCODE, '2025-01')}/profile")
    t.resource("twin-standard", sc(gs, "standard", "nodeId", fmt=fx(TWIN, "2026-02") + "/standard/{}"))
    # prompts (generic configurations, fixture packages)
    t.prompt("tree", "teacher_guide_draft", {"framework_id": TREE, "topic": "count"})
    t.prompt("tree", "student_handbook_section", {"framework_id": TREE, "topic": "place value", "grade_level": "2"})
    t.prompt("tree", "multigrade_lesson_plan", {"framework_id": TREE, "topic": "count", "grade_levels": '["1", "2"]'})
    t.prompt("tree", "practice_item_set", {"framework_id": TREE, "topic": "count", "practice_count": "3"})
    t.prompt(
        "lc",
        "learning_progression_teaching_sequence",
        {"framework_id": LC, "standard": "NBT.1", "target_standard": "NBT.A.2"},
    )
    t.prompt("lc", "learning_progression_support_plan", {"framework_id": LC, "topic": "fractions"})
    t.prompt("lc", "learning_progression_curriculum_review", {"framework_id": LC, "standards": '["NBT.1", "NF.1"]'})
    t.prompt("lc", "administrator_alignment_review", {"framework_id": LC})
    t.prompt("tree-dag", "cross_framework_comparison", {"framework_ids": json.dumps([TREE, DAG]), "topic": "fractions"})
    t.prompt("missing-topic", "practice_item_set", {"framework_id": TREE})
    t.prompt("twin-ambiguous", "teacher_guide_draft", {"framework_id": TWIN, "topic": "count"})
    t.prompt("unknown-prompt", "no_such_prompt", {"framework_id": TREE})
    t.prompt(
        "word-count-too-low",
        "student_handbook_section",
        {"framework_id": TREE, "topic": "count", "target_word_count": "149"},
    )
    t.prompt("no-standards", "learning_progression_curriculum_review", {"framework_id": LC, "standards": "[]"})
    t.prompt(
        "control-character",
        "multigrade_lesson_plan",
        {"framework_id": TREE, "topic": "count\u0007", "grade_levels": '["1", "2"]'},
    )
    return t.calls


# -- evidence: progressions, components and comparison (tests/progressions/progression_worlds.py) --------------


def progression_calls() -> list[Call]:
    t = Table("evidence")
    t.tool("all", "list_frameworks", {})
    t.tool("all", "get_capabilities", {})
    t.tool("wide", "get_framework_statistics", {"frameworkId": WIDE})
    t.tool("mesh", "get_framework_statistics", {"frameworkId": MESH})
    # get_standard_progressions: pages, ceilings, directions
    w1 = t.tool("wide-paged-1", "get_standard_progressions", std(WIDE, "WIDE.S", limit=3))
    w2 = t.tool(
        "wide-paged-2", "get_standard_progressions", std(WIDE, "WIDE.S", limit=3, cursor=sc(w1, "page", "nextCursor"))
    )
    t.tool(
        "wide-paged-3", "get_standard_progressions", std(WIDE, "WIDE.S", limit=3, cursor=sc(w2, "page", "nextCursor"))
    )
    t.tool("wide-byte-limit", "get_standard_progressions", std(WIDE, "WIDE.S", limit=100))
    t.tool("wide-target-in", "get_standard_progressions", std(WIDE, "WIDE.T", direction="in", limit=3))
    t.tool("lc-nf2", "get_standard_progressions", std(LC, "NF.2"))
    t.tool("mesh-both", "get_standard_progressions", std(MESH, "MESH.10", linkTypes=["buildsTowards", "relatesTo"]))
    t.tool("huge-too-large", "get_standard_progressions", std(HUGE, "NBT.1"))
    t.tool("huge-fits", "get_standard_progressions", std(HUGE, "NF.1", linkTypes=["buildsTowards"]))
    t.tool("dag-none", "get_standard_progressions", std(DAG, "NF.1"))
    t.tool(
        "cursor-other-request",
        "get_standard_progressions",
        std(WIDE, "WIDE.S", limit=4, cursor=sc(w1, "page", "nextCursor")),
    )
    t.tool(
        "cursor-other-tool",
        "search_learning_progressions",
        {"frameworkId": WIDE, "limit": 3, "cursor": sc(w1, "page", "nextCursor")},
    )
    t.tool("bad-direction", "get_standard_progressions", std(LC, "NF.2", direction="sideways"))
    t.tool("empty-link-types", "get_standard_progressions", std(LC, "NF.2", linkTypes=[]))
    t.tool(
        "component-id",
        "get_standard_progressions",
        {"frameworkId": LC, "nodeId": "00000000-0000-5000-8000-000000000000"},
    )
    # search_learning_progressions
    m1 = t.tool(
        "mesh-paged-1",
        "search_learning_progressions",
        {"frameworkId": MESH, "gradeLevels": ["grade-2"], "query": "measurement", "limit": 7},
    )
    m2 = t.tool(
        "mesh-paged-2",
        "search_learning_progressions",
        {
            "frameworkId": MESH,
            "gradeLevels": ["grade-2"],
            "query": "measurement",
            "limit": 7,
            "cursor": sc(m1, "page", "nextCursor"),
        },
    )
    t.tool(
        "mesh-paged-3",
        "search_learning_progressions",
        {
            "frameworkId": MESH,
            "gradeLevels": ["grade-2"],
            "query": "measurement",
            "limit": 7,
            "cursor": sc(m2, "page", "nextCursor"),
        },
    )
    t.tool(
        "mesh-relates", "search_learning_progressions", {"frameworkId": MESH, "linkTypes": ["relatesTo"], "limit": 5}
    )
    t.tool("wide", "search_learning_progressions", {"frameworkId": WIDE, "limit": 30})
    t.tool("huge-too-large", "search_learning_progressions", {"frameworkId": HUGE, "linkTypes": ["buildsTowards"]})
    t.tool("unknown-subject", "search_learning_progressions", {"frameworkId": LC, "academicSubjects": ["Astronomy"]})
    t.tool("limit-zero", "search_learning_progressions", {"frameworkId": LC, "limit": 0})
    t.tool("no-progressions", "search_learning_progressions", {"frameworkId": DAG})
    # get_learning_progression
    lcp = t.tool("lc-links", "get_standard_progressions", std(LC, "NBT.A.2"))
    hp = t.tool("huge-links", "get_standard_progressions", std(HUGE, "NF.2"))
    t.tool(
        "lc", "get_learning_progression", {"frameworkId": LC, "progressionId": sc(lcp, "links", 0, "relationshipId")}
    )
    t.tool(
        "lc-relates",
        "get_learning_progression",
        {"frameworkId": LC, "progressionId": sc(lcp, "links", 1, "relationshipId")},
    )
    t.tool(
        "huge", "get_learning_progression", {"frameworkId": HUGE, "progressionId": sc(hp, "links", 0, "relationshipId")}
    )
    t.tool(
        "other-package",
        "get_learning_progression",
        {"frameworkId": DAG, "progressionId": sc(lcp, "links", 0, "relationshipId")},
    )
    t.tool(
        "unknown",
        "get_learning_progression",
        {"frameworkId": LC, "progressionId": "00000000-0000-5000-8000-000000000000"},
    )
    # traverse_learning_progressions: bounded and truncated
    t.tool("lc-out", "traverse_learning_progressions", std(LC, "NBT.1", direction="out"))
    t.tool("lc-both", "traverse_learning_progressions", std(LC, "NBT.A.2", direction="both"))
    t.tool("wide-out", "traverse_learning_progressions", std(WIDE, "WIDE.S", direction="out"))
    t.tool("wide-in-edges-3", "traverse_learning_progressions", std(WIDE, "WIDE.T", direction="in", maxEdges=3))
    t.tool("mesh-both-edges-5", "traverse_learning_progressions", std(MESH, "MESH.0", direction="both", maxEdges=5))
    t.tool("mesh-both-depth-2", "traverse_learning_progressions", std(MESH, "MESH.0", direction="both", maxDepth=2))
    t.tool(
        "mesh-nodes-4", "traverse_learning_progressions", std(MESH, "MESH.20", maxNodes=4, linkTypes=["buildsTowards"])
    )
    t.tool(
        "mesh-relates-in",
        "traverse_learning_progressions",
        std(MESH, "MESH.30", direction="in", linkTypes=["relatesTo"], maxDepth=3),
    )
    t.tool(
        "mesh-deep", "traverse_learning_progressions", std(MESH, "MESH.0", direction="both", maxDepth=12, maxNodes=250)
    )
    t.tool("huge-too-large", "traverse_learning_progressions", std(HUGE, "NBT.1"))
    t.tool("max-edges-too-high", "traverse_learning_progressions", std(LC, "NBT.1", maxEdges=101))
    # find_learning_progression_paths
    t.tool(
        "wide-byte-limit",
        "find_learning_progression_paths",
        {"from": std(WIDE, "WIDE.S"), "to": std(WIDE, "WIDE.T"), "maxPaths": 20},
    )
    t.tool(
        "wide-two",
        "find_learning_progression_paths",
        {"from": std(WIDE, "WIDE.S"), "to": std(WIDE, "WIDE.T"), "maxPaths": 2},
    )
    t.tool(
        "mesh-more-paths",
        "find_learning_progression_paths",
        {"from": std(MESH, "MESH.50"), "to": std(MESH, "MESH.72"), "maxPaths": 5},
    )
    t.tool(
        "mesh-shallow",
        "find_learning_progression_paths",
        {"from": std(MESH, "MESH.50"), "to": std(MESH, "MESH.72"), "maxDepth": 3},
    )
    t.tool(
        "mesh-one-path", "find_learning_progression_paths", {"from": std(MESH, "MESH.0"), "to": std(MESH, "MESH.16")}
    )
    t.tool(
        "mesh-none-within-2",
        "find_learning_progression_paths",
        {"from": std(MESH, "MESH.0"), "to": std(MESH, "MESH.16"), "maxDepth": 2},
    )
    t.tool(
        "huge-too-large", "find_learning_progression_paths", {"from": std(HUGE, "NBT.1"), "to": std(HUGE, "NBT.A.2")}
    )
    t.tool(
        "to-by-case-uuid",
        "find_learning_progression_paths",
        {"from": std(LC, "NBT.1"), "to": {"frameworkId": LC, "caseIdentifierUUID": sc(lcp, "standards", 0, "nodeId")}},
    )
    t.tool("missing-to", "find_learning_progression_paths", {"from": std(LC, "NBT.1")})
    # components and comparison
    t.tool("nf1", "get_learning_components_for_standard", std(LC, "NF.1"))
    t.tool("no-components", "get_learning_components_for_standard", std(DAG, "NF.1"))
    cs1 = t.tool("paged-1", "search_learning_components", {"query": "partition whole parts", "limit": 1})
    t.follow("paged-2", "search_learning_components", cs1)
    lcc = t.tool("lc-only", "search_learning_components", {"query": "partition whole parts", "frameworkIds": [LC]})
    t.tool(
        "component-standards",
        "get_standards_for_learning_component",
        {"frameworkId": LC, "nodeId": sc(lcc, "hits", 0, "nodeId")},
    )
    t.tool(
        "component-of-other-package",
        "get_standards_for_learning_component",
        {"frameworkId": LC, "nodeId": sc(cs1, "hits", 0, "nodeId")},
    )
    t.tool(
        "standard-as-component",
        "get_standards_for_learning_component",
        {"frameworkId": LC, "nodeId": sc(lcp, "standards", 0, "nodeId")},
    )
    t.tool("wide-mesh", "compare_framework_evidence", {"query": "quantities", "frameworkIds": [WIDE, MESH, LC]})
    t.tool(
        "framework-grades",
        "compare_framework_evidence",
        {
            "query": "fraction",
            "frameworkIds": [LC, DAG],
            "frameworkGradeLevels": [{"frameworkId": DAG, "gradeLevels": ["grade-3"]}],
        },
    )
    t.tool(
        "framework-grades-twice",
        "compare_framework_evidence",
        {
            "query": "count",
            "frameworkIds": [LC, WIDE],
            "frameworkGradeLevels": [
                {"frameworkId": WIDE, "gradeLevels": ["2"]},
                {"frameworkId": WIDE, "gradeLevels": ["1"]},
            ],
        },
    )
    t.tool(
        "nine-frameworks",
        "compare_framework_evidence",
        {"query": "count", "frameworkIds": [f"fixture-n{i}" for i in range(9)]},
    )
    # read_evidence over a progression resource, and a workflow over progressions
    t.tool(
        "progression",
        "read_evidence",
        {"uri": sc(lcp, "links", 0, "relationshipId", fmt=fx(LC) + "/learning-progression/{}")},
    )
    t.tool(
        "huge-standard-window",
        "read_evidence",
        {"uri": sc(hp, "standards", 0, "nodeId", fmt=fx(HUGE) + "/standard/{}"), "windowBytes": 64},
    )
    t.tool(
        "support-plan",
        "get_workflow_instructions",
        {"workflow": "learning_progression_support_plan", "frameworkId": WIDE, "standard": "WIDE.S"},
    )
    t.tool(
        "curriculum-review",
        "get_workflow_instructions",
        {"workflow": "learning_progression_curriculum_review", "frameworkId": MESH, "standards": ["MESH.1", "MESH.2"]},
    )
    t.tool(
        "review-no-standards",
        "get_workflow_instructions",
        {"workflow": "learning_progression_curriculum_review", "frameworkId": MESH},
    )
    t.resource("mesh-unresolved", f"{fx(MESH)}/unresolved")
    t.resource(
        "wide-learning-progression", sc(w1, "links", 0, "relationshipId", fmt=fx(WIDE) + "/learning-progression/{}")
    )
    t.prompt(
        "wide",
        "learning_progression_teaching_sequence",
        {"framework_id": WIDE, "standard": "WIDE.S", "target_standard": "WIDE.T"},
    )
    t.prompt(
        "mesh",
        "learning_progression_curriculum_review",
        {"framework_id": MESH, "standards": '["MESH.1", "MESH.2", "MESH.3"]'},
    )
    t.prompt("no-standard-or-topic", "learning_progression_support_plan", {"framework_id": LC})
    t.prompt(
        "bad-duration",
        "learning_progression_teaching_sequence",
        {"framework_id": LC, "standard": "NBT.1", "lesson_duration_minutes": "05"},
    )
    return t.calls


# -- rights: the rights matrix and extra artifacts (tests/resources/resource_worlds.py) -----------------


IDS = lc_ids()
#: One snapshot per review state and flag set worth showing (not the whole 25 x 30 matrix).
RIGHTS_SNAPSHOTS = (
    "approved-111",
    "approved-110",
    "approved-010",
    "provisional-operator-approved-100",
    "restricted-111",
    "review-required-110",
    "unreviewed-000",
)
assert {v.snapshot_id for v in VARIANTS} >= set(RIGHTS_SNAPSHOTS)
#: family → path below the snapshot address.
FAMILIES = {
    "snapshot": "",
    "validation": "/validation",
    "profile": "/profile",
    "unresolved": "/unresolved",
    "standard": f"/standard/{IDS.standard}",
    "standard-provenance": f"/standard/{IDS.standard}/provenance",
    "relationship": f"/relationship/{IDS.has_child}",
    "relationship-supports": f"/relationship/{IDS.supports}",
    "learning-component": f"/learning-component/{IDS.component}",
    "learning-component-provenance": f"/learning-component/{IDS.component}/provenance",
    "learning-progression": f"/learning-progression/{IDS.builds_towards}",
    "learning-progression-relates": f"/learning-progression/{IDS.relates_to}",
    "provenance-part": "/provenance-part/07",
    "artifact-nodes": "/artifact/nodes",
    "artifact-unresolved-items": "/artifact/unresolvedItems",
    "artifact-teacher-notes": "/artifact/teacherNotes",
    "artifact-source-extract": "/artifact/sourceExtract",
}
#: Well-formed-looking addresses that are not canonical (tests/resources/test_hostile_uris.py), sent raw.
HOSTILE = {
    "dot-dot": "/standard/../manifest",
    "dot-dot-escape": "/../../../../etc/passwd",
    "encoded-dot-dot": "/standard/%2e%2e",
    "encoded-slash": f"/standard/{IDS.standard}%2Fprovenance",
    "encoded-letter": "/artifact/%6Eodes",
    "trailing-slash": "/manifest/",
    "double-slash": "//manifest",
    "uppercase-word": "/MANIFEST",
    "whitespace": f"/standard/ {IDS.standard}",
    "fragment": f"/standard/{IDS.standard}#provenance",
    "query": "/manifest?format=raw",
    "one-digit-part": "/provenance-part/7",
    "part-out-of-range": "/provenance-part/64",
    "artifact-with-dot": "/artifact/nodes.jsonl",
    "overlong-node-id": "/standard/" + "a" * 257,
    "id-with-colon": f"/standard/urn:{IDS.standard}",
    "provenance-of-relationship": f"/relationship/{IDS.has_child}/provenance",
}
HOSTILE_ABSOLUTE = {
    "file-uri": "file:///etc/passwd",
    "absolute-path": "/etc/passwd",
    "uppercase-scheme": "KGFEGMCP://catalog",
    "empty-after-scheme": "kgfegmcp://",
    "unknown-family": "kgfegmcp://packages",
    "framework-without-id": "kgfegmcp://framework",
    "trailing-slash-catalog": "kgfegmcp://catalog/",
    "encoded-absolute-path": "kgfegmcp://framework/%2Fetc%2Fpasswd",
    "other-scheme": f"https://example.org/framework/{LC}",
}


def rights_calls() -> list[Call]:
    t = Table("rights")
    t.tool("all", "list_frameworks", {"includeNonCurrent": True, "limit": 5})
    t.tool("lc-approved", "get_framework", {"frameworkId": LC, "snapshotId": "approved-111"})
    t.tool("lc-ambiguous", "get_framework", {"frameworkId": LC})
    t.tool("lc-unreviewed", "get_capabilities", {"frameworkId": LC, "snapshotId": "unreviewed-000"})
    t.resource("catalog", "kgfegmcp://catalog")
    t.resource("framework", f"kgfegmcp://framework/{LC}")
    t.resource("approved-111/manifest", fx(LC, "approved-111") + "/manifest")
    t.resource("unreviewed-000/manifest", fx(LC, "unreviewed-000") + "/manifest")
    for snapshot in RIGHTS_SNAPSHOTS:
        for family, suffix in FAMILIES.items():
            t.resource(f"{snapshot}/{family}", fx(LC, snapshot) + suffix)
    base = fx(LC, "approved-111")
    for name in (
        "operatorNotes",
        "binaryFigure",
        "operatorLog",
        "validationReport",
        "entityProvenancePart07",
        "secrets",
    ):
        t.resource(f"approved-111/artifact-{name}", f"{base}/artifact/{name}")
    t.resource("standard-of-another-package", f"{base}/standard/{IDS.tree_standard}")
    t.resource("component-in-standard-template", f"{base}/standard/{IDS.component}")
    t.resource("has-child-in-progression-template", f"{base}/learning-progression/{IDS.has_child}")
    t.resource("uppercase-node-id", f"{base}/standard/{IDS.standard.upper()}")
    t.resource("tree-standard", f"{fx(TREE)}/standard/{IDS.tree_standard}")
    t.resource("derivatives-denied-manifest", f"{fx(DAG, DERIVATIVES_DENIED)}/manifest")
    for label, suffix in HOSTILE.items():
        t.resource(f"hostile/{label}", base + suffix, raw=True)
    for label, uri in HOSTILE_ABSOLUTE.items():
        t.resource(f"hostile/{label}", uri, raw=True)
    t.resource("normalised/dot-dot", f"{base}/standard/../manifest")
    t.resource("normalised/uppercase-scheme", "KGFEGMCP://catalog")
    # read_evidence: windows over multi-byte text, the same gates as a read, binary refused
    notes = f"{base}/artifact/operatorNotes"
    n1 = t.tool("notes-window-1", "read_evidence", {"uri": notes, "windowBytes": 7})
    n2 = t.tool(
        "notes-window-2", "read_evidence", {"uri": notes, "windowBytes": 7, "cursor": sc(n1, "page", "nextCursor")}
    )
    t.tool("notes-window-3", "read_evidence", {"uri": notes, "windowBytes": 7, "cursor": sc(n2, "page", "nextCursor")})
    t.tool("notes-whole", "read_evidence", {"uri": notes, "windowBytes": 32768})
    t.tool(
        "notes-tampered-cursor",
        "read_evidence",
        {"uri": notes, "windowBytes": 7, "cursor": sc(n1, "page", "nextCursor", edit="flip-last")},
    )
    t.tool(
        "notes-cursor-other-uri",
        "read_evidence",
        {"uri": f"{base}/manifest", "windowBytes": 7, "cursor": sc(n1, "page", "nextCursor")},
    )
    t.tool("control-text-small-window", "read_evidence", {"uri": f"{base}/artifact/controlNotes", "windowBytes": 64})
    t.tool("control-text-ceiling", "read_evidence", {"uri": f"{base}/artifact/controlNotes", "windowBytes": 32768})
    t.tool("binary", "read_evidence", {"uri": f"{base}/artifact/binaryFigure"})
    t.tool("bulk-denied", "read_evidence", {"uri": fx(LC, "approved-110") + "/artifact/nodes"})
    t.tool("unreviewed-standard", "read_evidence", {"uri": fx(LC, "unreviewed-000") + f"/standard/{IDS.standard}"})
    t.tool("hostile-dot-dot", "read_evidence", {"uri": f"{base}/standard/../manifest"})
    t.tool("hostile-overlong", "read_evidence", {"uri": f"{base}/standard/" + "a" * 3000})
    t.tool("window-too-large", "read_evidence", {"uri": notes, "windowBytes": 32769})
    # generated derivatives denied: prompts and workflow instructions refuse
    t.tool(
        "derivatives-denied",
        "get_workflow_instructions",
        {"workflow": "practice_item_set", "frameworkId": DAG, "topic": "fractions"},
    )
    t.tool(
        "restricted-ok",
        "get_workflow_instructions",
        {"workflow": "practice_item_set", "frameworkId": LC, "snapshotId": "restricted-111", "topic": "fractions"},
    )
    t.prompt("derivatives-denied", "practice_item_set", {"framework_id": DAG, "topic": "fractions"})
    t.prompt("derivatives-denied", "teacher_guide_draft", {"framework_id": DAG, "topic": "fractions"})
    t.prompt(
        "derivatives-denied", "cross_framework_comparison", {"framework_ids": json.dumps([DAG, TREE]), "topic": "count"}
    )
    t.prompt(
        "unreviewed",
        "student_handbook_section",
        {"framework_id": LC, "snapshot_id": "unreviewed-000", "topic": "count"},
    )
    t.prompt("lc-ambiguous", "administrator_alignment_review", {"framework_id": LC})
    return t.calls


# -- default: the real catalog (digests only in the corpus) --------------------------------------------

EF = "brazil-bncc-ensino-fundamental"
EI = "brazil-bncc-educacao-infantil"
EM = "brazil-bncc-ensino-medio"
CO = "brazil-bncc-computacao"
CCSS = "us-ccss-ela-literacy-grades-2-4"
EF_SNAPSHOT = "dados-2026-07-1"
CCSS_SNAPSHOT = "chiron-0-1-0"
EF_PACKAGE = f"kgfegmcp://framework/{EF}/snapshot/{EF_SNAPSHOT}"


def default_calls() -> list[Call]:
    t = Table(DEFAULT)
    _listings(t)
    # catalog tools
    t.tool("all", "list_frameworks", {})
    l1 = t.tool("paged-1", "list_frameworks", {"limit": 2})
    l2 = t.follow("paged-2", "list_frameworks", l1)
    t.follow("paged-3", "list_frameworks", l2)
    t.tool("progressions", "list_frameworks", {"graphTypes": ["LearningProgressions"]})
    t.tool("portuguese", "list_frameworks", {"inLanguage": "pt-BR"})
    t.tool("ccss", "list_frameworks", {"frameworkIds": [CCSS]})
    t.tool(
        "cursor-of-fixture-catalog",
        "list_frameworks",
        {
            "limit": 2,
            "cursor": Ref(
                "tool/list_frameworks/paged-1", ("structuredContent", "page", "nextCursor"), catalog="search"
            ),
        },
    )
    for framework in (EF, EI, EM, CO, CCSS):
        t.tool(framework, "get_framework", {"frameworkId": framework})
    t.tool("ef-snapshot", "get_framework", {"frameworkId": EF, "snapshotId": EF_SNAPSHOT})
    t.tool("unknown-framework", "get_framework", {"frameworkId": "no-such-framework"})
    t.tool("all", "get_capabilities", {})
    t.tool("ccss", "get_capabilities", {"frameworkId": CCSS})
    t.tool("ei", "get_capabilities", {"frameworkId": EI, "snapshotId": EF_SNAPSHOT})
    for framework in (EF, EI, EM, CO, CCSS):
        t.tool(framework, "get_framework_statistics", {"frameworkId": framework})
    # search_standards
    s1 = t.tool("fracoes-paged-1", "search_standards", {"query": "fracoes", "limit": 4})
    s2 = t.follow("fracoes-paged-2", "search_standards", s1)
    t.follow("fracoes-paged-3", "search_standards", s2)
    t.tool("fracoes-all", "search_standards", {"query": "fracoes", "limit": 100})
    t.tool("fracoes-accented", "search_standards", {"query": "frações", "frameworkIds": [EF], "limit": 5})
    t.tool(
        "leitura-grade", "search_standards", {"query": "leitura de textos", "gradeLevels": ["ef-ano-03"], "limit": 10}
    )
    t.tool(
        "filters",
        "search_standards",
        {
            "query": "fracoes",
            "frameworkIds": [EF],
            "gradeLevels": ["6º ano", "ef-ano-07"],
            "statementTypes": ["Habilidade"],
            "limit": 2,
        },
    )
    t.tool("code-ccr", "search_standards", {"query": "CCR.R.1", "searchMode": "code"})
    t.tool(
        "code-prefix", "search_standards", {"query": "EF0", "searchMode": "code", "codeMatch": "prefix", "limit": 50}
    )
    t.tool("code-auto", "search_standards", {"query": "EF05MA03"})
    t.tool("reading", "search_standards", {"query": "reading", "limit": 20})
    t.tool("bilingual", "search_standards", {"query": "leitura reading", "limit": 100})
    t.tool(
        "main-idea", "search_standards", {"query": "main idea of a text", "frameworkIds": [CCSS], "gradeLevels": ["3"]}
    )
    t.tool("algoritmos", "search_standards", {"query": "algoritmos", "frameworkIds": [CO]})
    t.tool("corpo-gestos", "search_standards", {"query": "corpo gestos movimentos", "frameworkIds": [EI]})
    t.tool("funcoes-em", "search_standards", {"query": "funções", "frameworkIds": [EM], "limit": 10})
    t.tool("stop-word", "search_standards", {"query": "de", "limit": 100})
    t.tool("no-hits", "search_standards", {"query": "zzyzxqv"})
    t.tool("prefix-without-code-mode", "search_standards", {"query": "EF05", "codeMatch": "prefix"})
    t.tool("too-many-tokens", "search_standards", {"query": " ".join(f"palavra{i}" for i in range(33))})
    t.tool(
        "cursor-other-query",
        "search_standards",
        {"query": "frações", "limit": 4, "cursor": sc(s1, "page", "nextCursor")},
    )
    t.tool(
        "tampered-cursor",
        "search_standards",
        {"query": "fracoes", "limit": 4, "cursor": sc(s1, "page", "nextCursor", edit="flip-last")},
    )
    t.tool("legacy-session", "search_standards", {"query": "fracoes", "limit": 3}, legacy=True)
    # standards
    gs = t.tool("ef05ma04", "get_standard", std(EF, "EF05MA04"))
    t.tool("ef05ma04-casefolded", "get_standard", std(EF, "ef05ma04"))
    t.tool("node-id", "get_standard", {"frameworkId": EF, "nodeId": sc(gs, "standard", "nodeId")})
    t.tool("case-uuid", "get_standard", {"frameworkId": EF, "caseIdentifierUUID": sc(gs, "standard", "nodeId")})
    rl = t.tool("rl-2-1", "get_standard", std(CCSS, "RL.2.1"))
    t.tool("ef07ci12-six-parents", "get_standard", std(EF, "EF07CI12"))
    t.tool("ei01cg01", "get_standard", std(EI, "EI01CG01"))
    t.tool("ccr-ambiguous", "get_standard", std(CCSS, "CCR.R.1"))
    t.tool("unknown-code", "get_standard", std(EF, "EF99ZZ99"))
    t.tool("wrong-framework", "get_standard", std(EM, "EF05MA04"))
    t.tool("no-selector", "get_standard", {"frameworkId": EF})
    t.tool("legacy-session", "get_standard", std(CCSS, "RL.3.1"), legacy=True)
    cx = t.tool("ef07ci12", "get_standard_context", std(EF, "EF07CI12", childDepth=3))
    t.tool("ef07ci12-bounded", "get_standard_context", std(EF, "EF07CI12", maxPaths=3, maxNodes=4))
    t.tool("ef05ma04", "get_standard_context", std(EF, "EF05MA04"))
    t.tool("ef07ci12-paths-2", "get_standard_context", std(EF, "EF07CI12", maxPaths=2))
    t.tool("ef07ci12-occurrences", "get_standard_context", std(EF, "EF07CI12", maxPathNodeOccurrences=12))
    t.tool("ef07ci12-nodes-8", "get_standard_context", std(EF, "EF07CI12", maxNodes=8))
    t.tool(
        "parent-deep",
        "get_standard_context",
        {"frameworkId": EF, "nodeId": sc(cx, "parents", 0, "nodeId"), "childDepth": 64},
    )
    t.tool("rl-3-1", "get_standard_context", std(CCSS, "RL.3.1"))
    t.tool("ancestor-depth-too-deep", "get_standard_context", std(EF, "EF05MA04", ancestorDepth=65))
    # comparison
    t.tool("fracoes-ef-em", "compare_framework_evidence", {"query": "frações", "frameworkIds": [EF, EM]})
    t.tool(
        "leitura-ef-ccss",
        "compare_framework_evidence",
        {"query": "leitura reading", "frameworkIds": [EF, CCSS], "maxMatchesPerFramework": 3},
    )
    t.tool(
        "framework-grades",
        "compare_framework_evidence",
        {
            "query": "texto",
            "frameworkIds": [EF, CCSS],
            "frameworkGradeLevels": [{"frameworkId": CCSS, "gradeLevels": ["3"]}],
            "gradeLevels": ["3º ano"],
        },
    )
    t.tool(
        "all-five",
        "compare_framework_evidence",
        {"query": "algoritmos", "frameworkIds": [EF, EI, EM, CO, CCSS], "maxMatchesPerFramework": 2},
    )
    t.tool("code", "compare_framework_evidence", {"query": "EF05MA03", "searchMode": "code", "frameworkIds": [EF, CO]})
    t.tool("duplicate-frameworks", "compare_framework_evidence", {"query": "texto", "frameworkIds": [EF, EF]})
    # learning components (Mapa de Foco)
    cs = t.tool("fracoes", "search_learning_components", {"query": "frações", "limit": 5})
    c1 = t.tool(
        "equivalentes-paged-1",
        "search_learning_components",
        {"query": "frações equivalentes", "frameworkIds": [EF], "limit": 2},
    )
    t.follow("equivalentes-paged-2", "search_learning_components", c1)
    t.tool("ccss-none", "search_learning_components", {"query": "reading", "frameworkIds": [CCSS]})
    component = sc(cs, "hits", 0, "nodeId")
    t.tool("first-hit", "get_learning_component", {"frameworkId": EF, "nodeId": component})
    t.tool("standard-id", "get_learning_component", {"frameworkId": EF, "nodeId": sc(gs, "standard", "nodeId")})
    lcs = t.tool("ef05ma03", "get_learning_components_for_standard", std(EF, "EF05MA03"))
    t.tool("ef05ma03-limit-2", "get_learning_components_for_standard", std(EF, "EF05MA03", limit=2))
    t.tool("ef05ma04", "get_learning_components_for_standard", std(EF, "EF05MA04"))
    t.tool("ccss", "get_learning_components_for_standard", std(CCSS, "RL.3.1"))
    t.tool(
        "first-support",
        "get_standards_for_learning_component",
        {"frameworkId": EF, "nodeId": sc(lcs, "supports", 0, "component", "nodeId")},
    )
    t.tool("search-hit", "get_standards_for_learning_component", {"frameworkId": EF, "nodeId": component})
    t.tool("unknown", "get_standards_for_learning_component", {"frameworkId": EF, "nodeId": "no-such-component"})
    # progressions (Mapa de Foco, bncc-dados alignments)
    gp = t.tool("ef05ma03", "get_standard_progressions", std(EF, "EF05MA03"))
    t.tool("ef05ma03-relates", "get_standard_progressions", std(EF, "EF05MA03", linkTypes=["relatesTo"]))
    t.tool("ef05ma03-in", "get_standard_progressions", std(EF, "EF05MA03", direction="in"))
    p1 = t.tool("ef05ma03-paged-1", "get_standard_progressions", std(EF, "EF05MA03", limit=1))
    t.tool(
        "ef05ma03-paged-2",
        "get_standard_progressions",
        std(EF, "EF05MA03", limit=1, cursor=sc(p1, "page", "nextCursor")),
    )
    t.tool("ei01cg01", "get_standard_progressions", std(EI, "EI01CG01"))
    t.tool("ccss-none", "get_standard_progressions", std(CCSS, "RL.3.1"))
    sp1 = t.tool("ef-paged-1", "search_learning_progressions", {"frameworkId": EF, "limit": 5})
    t.tool(
        "ef-paged-2",
        "search_learning_progressions",
        {"frameworkId": EF, "limit": 5, "cursor": sc(sp1, "page", "nextCursor")},
    )
    t.tool(
        "ef-grade-text",
        "search_learning_progressions",
        {"frameworkId": EF, "gradeLevels": ["5º ano"], "query": "frações", "limit": 10},
    )
    t.tool(
        "ei-builds", "search_learning_progressions", {"frameworkId": EI, "linkTypes": ["buildsTowards"], "limit": 10}
    )
    t.tool("unknown-grade", "search_learning_progressions", {"frameworkId": EF, "gradeLevels": ["grade-99"]})
    t.tool("ccss-none", "search_learning_progressions", {"frameworkId": CCSS})
    t.tool(
        "first-link",
        "get_learning_progression",
        {"frameworkId": EF, "progressionId": sc(gp, "links", 0, "relationshipId")},
    )
    t.tool(
        "last-link",
        "get_learning_progression",
        {"frameworkId": EF, "progressionId": sc(gp, "links", -1, "relationshipId")},
    )
    t.tool("unknown", "get_learning_progression", {"frameworkId": EF, "progressionId": "no-such-link"})
    t.tool("ef05ma03-out", "traverse_learning_progressions", std(EF, "EF05MA03"))
    t.tool("ef05ma03-both-depth-2", "traverse_learning_progressions", std(EF, "EF05MA03", direction="both", maxDepth=2))
    t.tool("ef05ma03-both-edges-3", "traverse_learning_progressions", std(EF, "EF05MA03", direction="both", maxEdges=3))
    t.tool("ef05ma03-nodes-2", "traverse_learning_progressions", std(EF, "EF05MA03", direction="both", maxNodes=2))
    t.tool(
        "ef04ma09-deep", "traverse_learning_progressions", std(EF, "EF04MA09", maxDepth=12, maxNodes=250, maxEdges=100)
    )
    t.tool("ei01cg01-in", "traverse_learning_progressions", std(EI, "EI01CG01", direction="in"))
    t.tool("bad-direction", "traverse_learning_progressions", std(EF, "EF05MA03", direction="up"))
    t.tool("ei-chain", "find_learning_progression_paths", {"from": std(EI, "EI01CG01"), "to": std(EI, "EI03CG01")})
    t.tool(
        "ef-paths",
        "find_learning_progression_paths",
        {"from": std(EF, "EF04MA09"), "to": std(EF, "EF05MA04"), "maxPaths": 5},
    )
    t.tool("ef-reverse", "find_learning_progression_paths", {"from": std(EF, "EF05MA04"), "to": std(EF, "EF04MA09")})
    t.tool(
        "across-frameworks", "find_learning_progression_paths", {"from": std(EF, "EF05MA03"), "to": std(EI, "EI01CG01")}
    )
    t.tool(
        "max-paths-too-high",
        "find_learning_progression_paths",
        {"from": std(EI, "EI01CG01"), "to": std(EI, "EI03CG01"), "maxPaths": 21},
    )
    # read_evidence
    ev1 = t.tool("standard-window-1", "read_evidence", {"uri": sc(gs, "standard", "uri"), "windowBytes": 256})
    t.tool(
        "standard-window-2",
        "read_evidence",
        {"uri": sc(gs, "standard", "uri"), "windowBytes": 256, "cursor": sc(ev1, "page", "nextCursor")},
    )
    t.tool("manifest", "read_evidence", {"uri": sc(gs, "package", "uri", fmt="{}/manifest")})
    t.tool("bulk-denied", "read_evidence", {"uri": sc(gs, "package", "uri", fmt="{}/artifact/nodes")})
    t.tool("not-an-address", "read_evidence", {"uri": "kgfegmcp:/catalog"})
    # workflows
    t.tool(
        "practice",
        "get_workflow_instructions",
        {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"},
    )
    t.tool(
        "multigrade",
        "get_workflow_instructions",
        {
            "workflow": "multigrade_lesson_plan",
            "frameworkId": EF,
            "topic": "frações",
            "gradeLevels": ["4º ano", "5º ano"],
        },
    )
    t.tool(
        "sequence",
        "get_workflow_instructions",
        {"workflow": "learning_progression_teaching_sequence", "frameworkId": EF, "standard": "EF05MA03"},
    )
    t.tool(
        "support",
        "get_workflow_instructions",
        {"workflow": "learning_progression_support_plan", "frameworkId": EF, "topic": "frações"},
    )
    t.tool(
        "review",
        "get_workflow_instructions",
        {
            "workflow": "learning_progression_curriculum_review",
            "frameworkId": EF,
            "standards": ["EF05MA03", "EF05MA04"],
        },
    )
    t.tool("admin", "get_workflow_instructions", {"workflow": "administrator_alignment_review", "frameworkId": CCSS})
    t.tool(
        "comparison",
        "get_workflow_instructions",
        {"workflow": "cross_framework_comparison", "frameworkIds": [EF, CO], "topic": "algoritmos"},
    )
    t.tool(
        "bad-grades",
        "get_workflow_instructions",
        {"workflow": "multigrade_lesson_plan", "frameworkId": EF, "topic": "frações", "gradeLevels": ["4º ano"]},
    )
    t.tool("no-workflow", "get_workflow_instructions", {"frameworkId": EF, "topic": "frações"})
    # resources (links read from the answers above)
    package = sc(gs, "package", "uri")
    cat = t.resource("catalog", "kgfegmcp://catalog")
    t.resource("framework-from-catalog", doc(cat, "frameworks", 0, "uri"))
    t.resource("manifest-from-catalog", doc(cat, "packages", -1, "manifestUri"))
    for framework in (EF, CCSS):
        t.resource(f"framework-{framework}", f"kgfegmcp://framework/{framework}")
    t.resource("snapshot", package)
    t.resource("snapshot-ccss", f"kgfegmcp://framework/{CCSS}/snapshot/{CCSS_SNAPSHOT}")
    t.resource("manifest", sc(gs, "package", "uri", fmt="{}/manifest"))
    t.resource("validation", sc(gs, "package", "uri", fmt="{}/validation"))
    t.resource("profile", sc(gs, "package", "uri", fmt="{}/profile"))
    t.resource("unresolved", sc(gs, "package", "uri", fmt="{}/unresolved"))
    sr = t.resource("standard", sc(gs, "standard", "uri"))
    t.resource("standard-provenance", sc(gs, "standard", "uri", fmt="{}/provenance"))
    t.resource("standard-parent-from-document", doc(sr, "parentNodeIds", 0, fmt=EF_PACKAGE + "/standard/{}"))
    t.resource("standard-ccss", sc(rl, "standard", "uri"))
    t.resource("relationship", sc(lcs, "supports", 0, "relationshipId", fmt=EF_PACKAGE + "/relationship/{}"))
    t.resource(
        "learning-component", sc(lcs, "supports", 0, "component", "nodeId", fmt=EF_PACKAGE + "/learning-component/{}")
    )
    t.resource(
        "learning-component-provenance",
        sc(lcs, "supports", 0, "component", "nodeId", fmt=EF_PACKAGE + "/learning-component/{}/provenance"),
    )
    t.resource(
        "learning-progression", sc(gp, "links", 0, "relationshipId", fmt=EF_PACKAGE + "/learning-progression/{}")
    )
    t.resource("provenance-part-bulk-denied", sc(gs, "package", "uri", fmt="{}/provenance-part/07"))
    t.resource("artifact-validation-report", sc(gs, "package", "uri", fmt="{}/artifact/validationReport"))
    t.resource("artifact-unresolved-items", sc(gs, "package", "uri", fmt="{}/artifact/unresolvedItems"))
    t.resource("artifact-nodes-bulk-denied", sc(gs, "package", "uri", fmt="{}/artifact/nodes"))
    t.resource(
        "component-in-standard-template", sc(lcs, "supports", 0, "component", "nodeId", fmt=EF_PACKAGE + "/standard/{}")
    )
    t.resource("unknown-framework", "kgfegmcp://framework/no-such-framework")
    t.resource("hostile-dot-dot", f"kgfegmcp://framework/{EF}/snapshot/{EF_SNAPSHOT}/standard/../manifest", raw=True)
    t.resource("hostile-file", "file:///etc/passwd", raw=True)
    # prompts
    t.prompt("ef", "teacher_guide_draft", {"framework_id": EF, "topic": "frações"})
    t.prompt("ccss", "teacher_guide_draft", {"framework_id": CCSS, "topic": "main idea of a text", "grade_level": "3"})
    t.prompt("ef", "student_handbook_section", {"framework_id": EF, "topic": "frações"})
    t.prompt(
        "ef", "multigrade_lesson_plan", {"framework_id": EF, "topic": "frações", "grade_levels": '["4º ano", "5º ano"]'}
    )
    t.prompt("ef", "practice_item_set", {"framework_id": EF, "topic": "frações"})
    t.prompt(
        "ccss", "practice_item_set", {"framework_id": CCSS, "topic": "main idea of a text", "practice_count": "10"}
    )
    t.prompt("ef", "learning_progression_teaching_sequence", {"framework_id": EF, "standard": "EF05MA03"})
    t.prompt("ef", "learning_progression_support_plan", {"framework_id": EF, "standard": "EF05MA03"})
    t.prompt(
        "ef", "learning_progression_curriculum_review", {"framework_id": EF, "standards": '["EF05MA03", "EF05MA04"]'}
    )
    t.prompt("ef", "administrator_alignment_review", {"framework_id": EF})
    t.prompt("ef-co", "cross_framework_comparison", {"framework_ids": json.dumps([EF, CO]), "topic": "algoritmos"})
    t.prompt("bad-integer", "practice_item_set", {"framework_id": EF, "topic": "frações", "practice_count": "five"})
    t.prompt("bad-list", "multigrade_lesson_plan", {"framework_id": EF, "topic": "frações", "grade_levels": "4º ano"})
    t.prompt("unknown-argument", "practice_item_set", {"framework_id": EF, "topic": "frações", "colour": "blue"})
    t.prompt("unknown-framework", "teacher_guide_draft", {"framework_id": "no-such-framework", "topic": "frações"})
    t.prompt("one-framework", "cross_framework_comparison", {"framework_ids": json.dumps([EF]), "topic": "algoritmos"})
    specimens = default_specimens(
        component=sc(lcs, "supports", 0, "component", "nodeId"),
        progression=sc(gp, "links", 0, "relationshipId"),
        uri=f"{EF_PACKAGE}/manifest",
    )
    examples(t, specimens)
    return t.calls


def examples(t: Table, specimens: Specimens) -> None:
    """For each tool the table never calls (a new one): its example request, then the same refused, so the corpus
    answers and refuses every tool."""
    for name, request in example_calls(specimens, besides={call.name for call in t.calls if call.kind == "tool"}):
        t.tool("example", name, request)
        t.tool("example-unknown-field", name, {**request, "notAField": 1})


def _table() -> dict[str, tuple[Call, ...]]:
    return {
        "search": tuple(search_calls()),
        "evidence": tuple(progression_calls()),
        "rights": tuple(rights_calls()),
        DEFAULT: tuple(default_calls()),
    }


#: catalog → its calls, in replay order.
CALLS: dict[str, tuple[Call, ...]] = _table()
