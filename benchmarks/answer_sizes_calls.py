"""The calls ``answer_sizes.py`` measures, and the identifiers their requests need, looked up through the same
client first (those lookups are not measured)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastmcp import Client

from answer_sizes_measure import error_code
from kgfegmcp.mcp.tools import example_calls
from tool_examples import default_specimens

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"
CCSS = "us-ccss-ela-literacy-grades-2-4"


@dataclass(frozen=True)
class Ref:
    """A value looked up through the client before the call (not measured).

    ``kind``: ``node`` (nodeId) or ``uri`` (resource address) of the standard with ``code``; ``component``
    (nodeId of the first learning component supporting it); ``progression`` (relationship id of its first
    stored progression link).
    """

    kind: str
    framework: str
    code: str


def ef(code: str) -> dict[str, str]:
    """A standard selector in Ensino Fundamental."""
    return {"frameworkId": EF, "statementCode": code}


#: (label, request): the tool is the label's first word; each request is sent as ``{"request": request}``.
#: Labels are unique and key --compare.
OWN_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_frameworks", {}),
    ("get_framework EF", {"frameworkId": EF}),
    ("get_capabilities", {}),
    ("get_framework_statistics EF", {"frameworkId": EF}),
    ("search_standards frações EF limit 10", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("search_standards 'main idea' CCSS limit 10", {"query": "main idea", "frameworkIds": [CCSS], "limit": 10}),
    ("search_standards frações every package", {"query": "frações"}),
    ("get_standard EF05MA03", {"frameworkId": EF, "nodeId": Ref("node", EF, "EF05MA03")}),
    ("get_standard_context EF05MA03", {"frameworkId": EF, "nodeId": Ref("node", EF, "EF05MA03")}),
    ("compare_framework_evidence EF+EM", {"query": "leitura texto", "frameworkIds": [EF, EM]}),
    ("search_learning_components frações", {"query": "frações", "frameworkIds": [EF], "limit": 10}),
    ("get_learning_component", {"frameworkId": EF, "nodeId": Ref("component", EF, "EF01CI01")}),
    ("get_learning_components_for_standard EF01CI01", {"frameworkId": EF, "statementCode": "EF01CI01"}),
    ("get_standards_for_learning_component", {"frameworkId": EF, "nodeId": Ref("component", EF, "EF01CI01")}),
    ("get_standard_progressions EF01CI03", {"frameworkId": EF, "statementCode": "EF01CI03"}),
    ("search_learning_progressions frações", {"frameworkId": EF, "query": "frações"}),
    ("get_learning_progression", {"frameworkId": EF, "progressionId": Ref("progression", EF, "EF01CI03")}),
    # At the defaults EF01CI03 is traversed completely; EF01MA05 stops at byte_limit (the size ceiling).
    ("traverse_learning_progressions EF01CI03", {"frameworkId": EF, "statementCode": "EF01CI03"}),
    ("traverse_learning_progressions EF01MA05", {"frameworkId": EF, "statementCode": "EF01MA05"}),
    ("find_learning_progression_paths EF01MA05>EF04MA03", {"from": ef("EF01MA05"), "to": ef("EF04MA03")}),
    ("read_evidence standard EF05MA03", {"uri": Ref("uri", EF, "EF05MA03")}),
    ("get_workflow_instructions practice", {"workflow": "practice_item_set", "frameworkId": EF, "topic": "frações"}),
)  # fmt: skip
#: What a tool's example request names in the default catalog.
SPECIMENS = default_specimens(
    component=Ref("component", EF, "EF05MA03"),
    progression=Ref("progression", EF, "EF05MA03"),
    uri=Ref("uri", EF, "EF05MA03"),
)
#: The calls above, then the example of each tool they do not measure (a new tool's).
CALLS = OWN_CALLS + tuple(
    (f"{tool} example", request)
    for tool, request in example_calls(SPECIMENS, besides={label.split()[0] for label, _ in OWN_CALLS})
)


class Resolver:
    """Looks ``Ref`` values up through the client (cached; these calls are not measured)."""

    def __init__(self, client: Client[Any]) -> None:
        self.client = client
        self.cache: dict[Ref, str] = {}

    async def structured(self, tool: str, request: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool_mcp(tool, {"request": request})
        data = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        if data.get("isError") or not isinstance(data.get("structuredContent"), dict):
            texts = [b.get("text", "") for b in data.get("content") or [] if b.get("type") == "text"]
            raise LookupError(f"{tool}: {error_code(texts)}")
        return data["structuredContent"]

    async def standard(self, ref: Ref) -> dict[str, Any]:
        try:
            found = await self.structured(
                "search_standards",
                {"query": ref.code, "frameworkIds": [ref.framework], "searchMode": "code", "limit": 1},
            )
            hits = [
                h["standard"] for h in found.get("hits", []) if h.get("standard", {}).get("statementCode") == ref.code
            ]
            if hits:
                return hits[0]
        except (LookupError, KeyError, TypeError):
            pass
        return (await self.structured("get_standard", {"frameworkId": ref.framework, "statementCode": ref.code}))[
            "standard"
        ]

    async def resolve(self, ref: Ref) -> str:
        if ref not in self.cache:
            if ref.kind == "node":
                value = (await self.standard(ref))["nodeId"]
            elif ref.kind == "uri":  # get_standard names the standard's resource in every version
                found = await self.structured("get_standard", {"frameworkId": ref.framework, "statementCode": ref.code})
                value = found["standard"]["uri"]
            elif ref.kind == "component":
                found = await self.structured(
                    "get_learning_components_for_standard",
                    {"frameworkId": ref.framework, "statementCode": ref.code, "limit": 1},
                )
                value = found["supports"][0]["component"]["nodeId"]
            elif ref.kind == "progression":
                found = await self.structured(
                    "get_standard_progressions", {"frameworkId": ref.framework, "statementCode": ref.code, "limit": 1}
                )
                value = found["links"][0]["relationshipId"]
            else:
                raise LookupError(f"unknown reference kind {ref.kind!r}")
            self.cache[ref] = value
        return self.cache[ref]

    async def fill(self, value: Any) -> Any:
        if isinstance(value, Ref):
            return await self.resolve(value)
        if isinstance(value, dict):
            return {k: await self.fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [await self.fill(v) for v in value]
        return value


def failed(label: str, tool: str, request: Any, error: str) -> dict[str, Any]:
    def plain(value: Any) -> Any:
        if isinstance(value, Ref):
            return f"<{value.kind} of {value.code}>"
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return {"label": label, "tool": tool, "request": plain(request), "ok": False, "error": error, "bytes": None}
