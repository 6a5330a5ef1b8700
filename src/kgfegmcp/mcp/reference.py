"""The public tool reference (docs/tools.md), rendered from the registered surface itself.

Names, order, descriptions, request fields and result fields come from each tool's row
(:data:`kgfegmcp.mcp.tools.TOOLS`), so the page cannot drift from the code; a test compares the committed page
with this output.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from fastmcp import Client, FastMCP
from fastmcp.apps.config import UI_MIME_TYPE
from pydantic import BaseModel

from kgfegmcp import __version__
from kgfegmcp.core.models import canonical_bytes
from kgfegmcp.mcp.curriculum_map import MAP_URI
from kgfegmcp.mcp.probes import Readiness
from kgfegmcp.mcp.register import PROMPTS, register
from kgfegmcp.mcp.tools import TOOLS, Tool
from kgfegmcp.resources.families import FAMILIES

RESULTS_SECTION = """## Results

Every tool answers with `structuredContent` (its fields are listed under each tool above) and text.
The progression tools, `read_evidence` and `get_workflow_instructions` give the complete canonical JSON
of that content as their text; every other tool gives a deterministic summary (catalog and search
pages add the `Continue with:` block). A host gives its model one view or the other, so each alone is
enough to cite: every statement, heading and component an answer returns is given whole in both (never
clipped), with its code, statement type, grade labels and an id the follow-up tools take, and each
cited package's licence and attribution statement verbatim. Clients of protocol versions before 2025-06-18 get no
`structuredContent` and no `resource_link` blocks, but the canonical JSON as one more text block, so the
text carries every citation field in every era. Answers are compact, because a host pays for every byte:
each value is said once, and what an answer leaves out is one link or one call away.

Every tool declares an `outputSchema`, generated from the model its `structuredContent` is built from, and
every result validates against it (JSON Schema 2020-12, an object at the root). A field is there exactly
when it has a value: never `null` (except a page's `nextCursor`, always sent and `null` on the last page
with `hasMore: false`, as the spec asks; and the values of `validation`, `codePolicy` and the statistics'
rows by statement type and by grade, where the profile or the manifest declares nothing), and no
undeclared field ever appears (`additionalProperties: false`). The schemas are listed with every `$ref`
inlined. With them `tools/list` is FULL_BYTES bytes of compact JSON (BARE_BYTES without); a client of a protocol
version before 2025-06-18 is listed no `outputSchema`, as its results carry no `structuredContent`. A
refused call is an `isError` result without `structuredContent`, which clients do not validate.

- **Each package once, by number.** An answer names every package it drew from once: `package` (one
  package) or `packages` (several; a record's `package` is the entry's `number`, 1, 2, ... in answer order,
  left out when there is one; the text says "package 2" for the same entry; a search page lists the
  packages its hits come from, and its `interpretation` every package searched). A package entry is
  `number`, `graphPackageId` (`<frameworkId>@<snapshotId>`), `uri` (the package resource: its disclosures
  in full, rights, every artifact with its SHA-256), `manifestUri`, `builtFrom` (the files the answer was
  built from: the nodes, relationships and entityProvenance artifacts by a 12-digit SHA-256 prefix,
  `lcEntityProvenance` too in component answers, and the bound profile as `<profileId> <version> <prefix>`;
  the manifest holds the full values), `license` (the licence by name: `CC BY 4.0` from a Creative Commons
  `licenseUri`, otherwise the rights' `sourceLicense` verbatim), `attribution` (the rights'
  `attributionStatement` verbatim: keep it with anything cited), `disclosureIds` and `labels`; a package
  served under the operator's rights decision adds `operatorReview`, the review state served and when the
  operator decided (`"approved (2026-03-02T09:15:00Z)"`; the text adds a `Rights:` line); answers
  carrying progression links add `linkProvenance`, `<uri>/learning-progression/{relationshipId}`: replace
  `{relationshipId}` with a link's id to read that link with its provenance record (`read_evidence` or
  `resources/read`). `list_frameworks`, `get_framework` and `get_capabilities` entries are package
  entries. The answers drawn by the curriculum map add `grades` (every grade label the answer's standards
  carry, once, in the order the package's profile declares its grades: `{"label": "03", "display": "Grade
  3"}`, the display being the label where the profile declares none) and `holds` (`progressionLinks`,
  `learningComponents`: whether the package has any at all). The text gives each package once, on one
  `Package <number>:` line (id, licence, labels, link, manifest, built-from files, disclosure ids), its
  attribution verbatim on the next (`get_standard_context` and `get_learning_components_for_standard` add a
  line of the answer's grades and one of what the package holds).
- **Epistemic labels once, per package.** `labels.standards` says how the package's standards text is
  stated (`source_asserted`, or `source_extracted` where a builder cut it from a larger text) and
  `labels.links`, in answers carrying progression links, how its resolved links are (as the profile's
  `claimLabels` declare, held to every entity's provenance at validation; `llm_inferred` for a package whose
  links a language model made, each link then carrying the model's `judgement`: `confidence` and
  `rationale`). Component answers add
  `components`: `production` (`curated` or `model_generated`), `epistemicStatus` (`source_asserted`:
  asserted by the named curator; `llm_inferred`; `human_reviewed`) and `source`, from the package's
  generation summary. A link or notice the source left unresolved carries `epistemicStatus: unresolved`;
  comparison answers say `candidateStatus: retrieval_candidate`. The text repeats the labels on each
  package line.
- **Disclosures once, short.** The text names each package's disclosure ids and says once to read them at
  the package's link; the full texts are in `get_framework` and the package resource, not in answers.
- **One URI rule.** Records carry ids, not addresses: a standard is at `<uri>/standard/<nodeId>`, a
  learning component at `<uri>/learning-component/<nodeId>`, a relationship at `<uri>/relationship/<id>`,
  a stored progression link at `<uri>/learning-progression/<id>`; an entity's provenance is its address +
  `/provenance`; the unresolved report is `<uri>/unresolved`. The standard or component an answer is
  about carries its own `uri` (and a `resource_link` to it).
- **Standard records** hold what a citation needs, in the package's own terms: `nodeId`, `statementCode`,
  `statementType` (the source type), `gradeLevels` (the source labels) and `description`; `isCurrent`
  appears (as `false`) only for an item the source retires, `codeSelects` (as `false`) only when another
  item of its package shares its code (or the package has no code lookup), so only its `nodeId` selects
  it. A search hit is such a record with its `rank`, `score` and `coverage` (text hits) or `matchType`
  (code hits). Every summary line of a standard is `[code] text (statementType; grade labels; nodeId
  <id>)`, with `package <number>` when the answer has several packages; search hits and comparison
  candidates leave the node id out where the code selects the standard (every standard selector takes
  `statementCode`), and a search says how its hits matched once above each run of like hits.
  `get_standard_context` describes each node once: the standard, `parents`, `children`, `ancestors` and
  `descendants` (beyond depth 1, each with its `depth`), and `pathNodes` (the nodes its `rootPaths` name
  that no other list describes); the paths are node ids. A comparison describes each heading its
  candidates sit under once per framework (`contextNodes`, with grade labels), and a candidate's `context`
  names them by node id.
- **Progression results** list every standard once (`standards`; a traversal's `nodes`, each with its
  `depth`) and refer to them by node id, each with its code: a link is `relationshipId`, `linkType`,
  `sourceNodeId`, `sourceStatementCode`, `targetNodeId`, `targetStatementCode`; a traversal lists each
  followed link under the node it was followed from (`followed`: `relationshipId`, `linkType`, `to`,
  `toStatementCode`, and `direction` only when it ran both ways); a path's `steps` are its standards from
  start to end, each `nodeId`, `statementCode`, `gradeLevels` (and `codeSelects: false` where the code alone
  does not select it).
- **Learning-component answers** say who authored and licensed the components once (`attributions`; a
  component's `attribution` is its index there), verbatim in both views. A search hit names the first
  standards the component supports (`supportedStandards`: `nodeId`, `statementCode`, `gradeLevels`, in
  `get_standards_for_learning_component`'s order) and counts them all (`supportsCount`); `get_learning_component`
  names each standard of its `supports` links by node id, code and grade labels.

What records leave out, and where it is:
"""

HEADER = (
    "# Tools, resources and prompts\n\n"
    "<!-- Generated by scripts/generate_tools_doc.py from kgfegmcp.mcp.register; do not edit by hand. -->\n\n"
    "Every tool takes one argument, `request`, with exactly these lower-camel-case fields: unknown fields, "
    'snake_case names and wrongly typed values (`"25"` for 25, `"true"` for true) are refused with '
    "`invalid_request`, never coerced. Optional fields are left out rather than sent as `null`. Each rule that "
    "involves more than one field is stated in the description of the fields it involves and, where JSON Schema can "
    "state it, in the published `inputSchema` too (`oneOf`, `dependentRequired`, `if`/`then`); `distinct` means "
    "`uniqueItems`.\n"
)


MAP_SECTION = """
## The curriculum map (MCP Apps view)

`MAP_URI` (`MAP_MIME`, extension `io.modelcontextprotocol/ui`): one self-contained HTML document that a
host rendering MCP Apps shows beside the answers of the tools marked "Drawn by the curriculum map" above.
It draws only the tool's `structuredContent` (so it shows no text the package's rights withhold) and asks for
more only through the host, with the same tools and bounds a model has; where the host proxies resource reads,
it reads each package resource once for the language its statements are marked in. Its `_meta.ui.csp` declares no
domain: it reaches no network. It is no curriculum evidence and has no package or rights. The links and the
resource are listed to a client that declares the extension (under `extensions` or `experimental`), and to
one whose capabilities the server cannot know (stateless HTTP before 2026-07-28); a client whose declared
capabilities lack it is listed neither. Tool results are the same for every client.

What it shows:

- **Grade columns** in the order of the package block's `grades` (the profile's order), headed by their
  `display` names. Each standard shows its code and the start of its statement; a grouping shows its text.
  The columns share the map area's width (144 to 240 px each; 116 to 200 px below 720 px, where the details go
  below the map): where they all fit, every standard is in view; where they cannot, the map area scrolls and
  opens with the focus standard (a path's destination) in full view.
- **Links drawn as lines** between their two standards: `buildsTowards` with an arrowhead, `relatesTo`
  dashed, with a legend. Roles are relative to the focus standard (comes before it, builds on it, relates to
  it), in words and marks as well as colour; a standard with links the answer does not return says how many.
- **Paths as chains**: each path of `find_learning_progression_paths` is an ordered chain from start to
  destination; choosing one marks its standards and links on the map.
- **A side panel**: hovering or focusing a standard shows its full statement beside the map; selecting keeps
  it there, with buttons that load a new answer (hierarchy, progressions, learning components, traverse
  onwards). Progressions and components are offered only where the package block's `holds` says the package
  has them; a host that offers no tool calls gets no such button, and the panel says why.
- **Hierarchy as navigation** (`get_standard_context`): the root paths, the children, and the siblings (the
  other children of the first parent, from one `get_standard_context` call on that parent through the host;
  on a failed call, or a host without tool calls, the view says so). Each is a standard to select and open.
- **Host features where offered**: fullscreen (`ui/request-display-mode`), the selected standard sent to the
  model as context (`ui/update-model-context`), attribution links opened by the host (`ui/open-link`).
  Without them the view works and offers none of them.

Package text is set as text, never markup, each in a bidirectional isolate; the document declares its own
Content-Security-Policy.
"""


def _type_text(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_type_text(option) for option in schema["anyOf"] if option.get("type") != "null")
    if "enum" in schema:
        return " \\| ".join(json.dumps(value) for value in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    if schema.get("type") == "array":
        return f"array of {_type_text(schema.get('items', {}))}"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return str(schema.get("type", "object"))


def _bounds_text(schema: dict[str, Any]) -> str:
    parts = []
    for option in [schema, *schema.get("anyOf", [])]:
        for key, label in (
            ("minimum", "≥"),
            ("maximum", "≤"),
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
            ("minItems", "items ≥"),
            ("maxItems", "items ≤"),
        ):
            if key in option:
                parts.append(f"{label} {option[key]}")
        if option.get("uniqueItems"):
            parts.append("distinct")
        if option.get("type") == "array" and option.get("items"):
            item_bounds = _bounds_text(option["items"])
            if item_bounds:
                parts.append(f"each: {item_bounds}")
    return "; ".join(p for p in dict.fromkeys(parts) if p)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _branch_rows(schema: dict[str, Any]) -> list[str]:
    """A table of the ``oneOf`` branches selected by ``workflow``: what each requires and what else it takes."""
    branches = [b for b in schema.get("oneOf", []) if "const" in b.get("properties", {}).get("workflow", {})]
    if not branches:
        return []
    rows = ["| workflow | requires | also takes |", "|---|---|---|"]
    for branch in branches:
        required = [name for name in branch["required"] if name != "workflow"]
        needs = [f"`{name}`" for name in required]
        needs += ["one of " + " or ".join(f"`{o['required'][0]}`" for o in branch.get("anyOf", []))] * bool(
            branch.get("anyOf")
        )
        takes = [f"`{name}`" for name in branch["properties"] if name != "workflow" and name not in required]
        rows.append(f"| `{branch['properties']['workflow']['const']}` | {', '.join(needs)} | {', '.join(takes)} |")
    return ["Each workflow takes only its own fields:\n", *rows, ""]


#: What compact records leave out, and where a client finds it (rendered as a table).
LEFT_OUT: tuple[tuple[str, str], ...] = (
    (
        "`caseIdentifierUUID`",
        "equal to `nodeId` for every item (validation refuses a package where it is not); selectors still accept it",
    ),
    (
        "grade `facet` and `display`; statement-type `normalized` and `role`",
        "the profile resource (`<uri>/profile`, public), `get_framework_statistics`, the standard resource",
    ),
    (
        "`academicSubject`, `inLanguage`, `notes`, `caseIdentifierURI`",
        "`get_standard`; the standard resource",
    ),
    (
        "`sourceLocation`: the file and page(s) printing a standard, for a package read page by page (its "
        "profile declares `pageLocators`: the NaCCA PDFs)",
        "`get_standard` (text: `Printed in: FILE, page 28 (printed page 6).`); the standard's provenance",
    ),
    (
        "`epistemicStatus` (`source_asserted` for standards text)",
        "the standard resource (document and `_meta`)",
    ),
    (
        "`graphPackageId` per record; `frameworkId`, `snapshotId`",
        "the answer's package entry; `graphPackageId` is `<frameworkId>@<snapshotId>`",
    ),
    (
        "`uri`, `provenanceUri`, `relationshipUri`, `componentUri`, `standardUri` per record",
        "the URI rule",
    ),
    (
        "full disclosure texts",
        "`get_framework`; the package resource (`uri`)",
    ),
    (
        "full artifact SHA-256s and the file list",
        "the manifest (`<uri>/manifest`; `manifestUri` in catalog entries); the package resource",
    ),
    (
        "a component's `license`, `attributionStatement`, `author`, `provider`",
        "the answer's `attributions`",
    ),
    (
        "a component's `tags`, `inLanguage`",
        "`get_learning_component`; the component resource",
    ),
    (
        "`page.limit`, `page.returned` of catalog and search pages",
        "the request; the length of the page's list",
    ),
    (
        "the parents among `ancestors`, the children among `descendants` (`get_standard_context`)",
        "`parents`, `children` (depth 1)",
    ),
    (
        "a comparison candidate's parent chain as records",
        "the framework section's `contextNodes` (the chain is node ids)",
    ),
    (
        "a progression link's counterpart record, a traversal link's origin",
        "`standards` (or `nodes`); the node a `followed` link is listed under",
    ),
    (
        "a path's `rank` and `length`; a frontier node's `depth`",
        "its position in `paths` and its `relationshipIds`; the node's `depth` in `nodes`",
    ),
)


def _left_out_rows() -> list[str]:
    return ["| left out | where |", "|---|---|", *(f"| {what} | {where} |" for what, where in LEFT_OUT), ""]


def _result_line(model: type[BaseModel]) -> str:
    """The top-level fields of a tool's structured content, in order."""
    fields = [info.alias or field for field, info in model.model_fields.items()]
    return "Result: " + ", ".join(f"`{field}`" for field in fields) + ".\n"


async def _listing(tools: Sequence[Tool[Any, Any]]) -> dict[str, Any]:
    # tools/list needs no catalog: the registered surface alone, as a current client receives it.
    server = FastMCP(name="kgfegmcp", version=__version__, dereference_schemas=False)
    register(server, Readiness(), tools)
    async with Client(server) as client:
        listed = await client.list_tools_mcp()
    dumped: dict[str, Any] = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def listing_bytes(tools: Sequence[Tool[Any, Any]] = TOOLS) -> tuple[int, int]:
    """The bytes of the ``tools/list`` result (compact UTF-8 JSON) with every ``outputSchema`` and without them
    (what a client before 2025-06-18 is listed), measured rather than written down so the page cannot drift."""
    listed = asyncio.run(_listing(tools))
    without = {**listed, "tools": [{k: v for k, v in tool.items() if k != "outputSchema"} for tool in listed["tools"]]}
    # Compact JSON weighs the same whatever the key order, so the canonical encoding measures it.
    return len(canonical_bytes(listed)), len(canonical_bytes(without))


def render_reference(tools: Sequence[Tool[Any, Any]] = TOOLS) -> str:
    """The whole page, deterministic: of every public tool, or of the rows a test gives."""
    lines = [HEADER, f"## Tools ({len(tools)})\n"]
    for tool in tools:
        schema = tool.request.model_json_schema(by_alias=True)
        required = set(schema.get("required", []))
        lines.append(f"### `{tool.name}`\n")
        lines.append(tool.description + "\n")
        lines.append("| field | type | required | default | bounds | description |")
        lines.append("|---|---|---|---|---|---|")
        for field, spec in schema.get("properties", {}).items():
            default = "" if field in required or spec.get("default") is None else json.dumps(spec["default"])
            lines.append(
                f"| `{field}` | {_type_text(spec)} | {'yes' if field in required else 'no'} | {default} | "
                f"{_bounds_text(spec)} | {_cell(spec.get('description', ''))} |"
            )
        lines.append("")
        lines.extend(_branch_rows(schema))
        lines.append(_result_line(tool.result))
        if tool.draws_map:
            lines.append(f"Drawn by the curriculum map (`{MAP_URI}`) in hosts that render MCP Apps.\n")
    listed, bare = listing_bytes(tools)
    lines.append(RESULTS_SECTION.replace("FULL_BYTES", f"{listed:,}").replace("BARE_BYTES", f"{bare:,}"))
    lines.extend(_left_out_rows())
    lines.append(f"## Resources (1 + {len(FAMILIES) - 1} templates)\n")
    lines.extend(f"- `{family.template}`" for family in FAMILIES)
    lines.append(MAP_SECTION.replace("MAP_URI", MAP_URI).replace("MAP_MIME", UI_MIME_TYPE))
    lines.append(f"## Prompts ({len(PROMPTS)})\n")
    lines.extend(f"- `{name}`" for name in PROMPTS)
    return "\n".join(lines).rstrip() + "\n"
