"""What ``answer_sizes.py`` prints: the bytes of every answer and where they go, the tool definitions, the
sweeps, and before/after tables of two result files (a value a file lacks prints as —)."""

from __future__ import annotations

from typing import Any

from answer_sizes_measure import clip


def num(value: Any) -> str:
    return f"{value:,}" if isinstance(value, int) else ("—" if value is None else str(value))


def table(rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def print_sizes(report: dict[str, Any], fields: int) -> None:
    print(f"code {report['code']}  root {report['root']}  protocol {report['protocolVersion']}")
    rows = [["call", "n", "text", "struct", "links", "other", "total", "note"]]
    for e in report["calls"]:
        b = e.get("bytes") or {}
        note = e["error"] if not e["ok"] else (e.get("stop") or "")
        if e["ok"] and e.get("repeated", {}).get("textIsStructuredJson"):
            note = (note + "; text = structured JSON").lstrip("; ")
        rows.append(
            [e["label"], num(e.get("n")), num(b.get("text")), num(b.get("structured")), num(b.get("links")),
             num(b.get("other")), num(b.get("total")), note]
        )  # fmt: skip
    print(table(rows, {1, 2, 3, 4, 5, 6}))
    print_views(report)
    print_definitions(report)
    print("\nrepeated per answer (bytes): disclosure/rights in structured + Disclosure: text lines; package")
    print("identity blocks + Package text lines; graphPackageId fields; snapshot URI prefixes; duplicate strings")
    rows = [["call", "discl+rights", "package", "graphPkgId", "snapshot prefix", "dup strings"]]
    for e in report["calls"]:
        if not e["ok"]:
            continue
        r = e["repeated"]
        rows.append(
            [e["label"],
             f"{num(r['disclosureRightsStructured'])} + {num(r['disclosureTextLines'])}",
             f"{num(r['packageIdentityStructured'])} + {num(r['packageTextLines'])}",
             f"{r['graphPackageIdFields']}x {num(r['graphPackageIdBytes'])}",
             f"{r['snapshotPrefixOccurrences']}x {num(r['snapshotPrefixBytes'])}",
             num(r["duplicateStringBytes"])]
        )  # fmt: skip
    print(table(rows, {1, 2, 3, 4, 5}))
    if report.get("acrossCalls"):
        print("\nlong strings recurring across answers (answers x bytes):")
        for item in report["acrossCalls"][:6]:
            print(f"  {item['answers']:>2} x {item['bytes']:>4}  {clip(item['string'], 88)}")
    if fields:
        print(f'\nlargest fields of the structured content (top {fields}; bytes of "key":value, lists folded):')
        for e in report["calls"]:
            if not e["ok"]:
                continue
            top = list(e["fields"]["topLevel"].items())[:fields]
            leaves = list(e["fields"]["leaves"].items())[:fields]
            print(f"  {e['label']}")
            print("    top-level: " + ", ".join(f"{k} {v:,}" for k, v in top))
            print("    leaves:    " + ", ".join(f"{k} {v:,}" for k, v in leaves))
    sweeps = report.get("sweeps")
    if sweeps:
        print("\nsearch_standards, every teacher query at limit 10 (bytes: median / p90 / max):")
        for name, row in sweeps["search"].items():
            total, text = row["total"], row["text"]
            print(
                f"  {name:<14} total {total['median']:,} / {total['p90']:,} / {total['max']:,}; "
                f"text {text['median']:,} / {text['p90']:,} / {text['max']:,}; "
                f"over 6 KB {row['over6KB']} of {row['answers']}, text over 2.5 KB {row['textOver2500']}"
            )
            for over in row["overAnswers"][:5]:
                print(
                    f"    {over['total']:>6,} B = statement texts {over['statementTexts']:,} + rest {over['rest']:,}"
                    f"  {over['query']!r}"
                )
            for view, spent in row.get("beyond", {}).items():
                outside = row["overLeanBound"][view]
                print(
                    f"    {view} view beyond statements and attributions {spent['median']:,} / {spent['p90']:,} / "
                    f"{spent['max']:,}; 10-hit answers over the leanness bound: {len(outside)} of "
                    f"{row['tenHitAnswers']}"
                )
                for o in outside[:5]:
                    print(f"      {o['beyond']:,} > {o['bound']:,} B ({o['packages']} packages)  {o['query']!r}")
        print("\ntraverse_learning_progressions at its defaults from every EF standard:")
        for direction, row in sweeps["traversal"].items():
            cut = row["byteLimitLinksReturned"]
            print(
                f"  {direction:<5} {row['starts']} starts; stops {row['stops']}; "
                + (f"byte_limit after {min(cut)}-{max(cut)} links" if cut else "never byte_limit")
            )


def view_cell(entry: dict[str, Any] | None, view: str, key: str = "overhead") -> Any:
    """One view-cost value of an answer, ``None`` when the file or answer has none (older files)."""
    views = (entry or {}).get("views") or {}
    return (views.get(view) or {}).get(key)


def view_count(entry: dict[str, Any] | None) -> Any:
    """The statements an answer returns, ``None`` when the file or answer has no count (older files)."""
    return ((entry or {}).get("views") or {}).get("statements")


def print_views(report: dict[str, Any]) -> None:
    print("\nevidence and overhead per answer (bytes; overhead = view - statement texts - licence and attribution")
    print("texts the view holds verbatim; the leanness bounds for 10 statements: text 2,100, structured 3,700):")
    rows = [["call", "stmts", "stmt text", "text", "text beyond", "(rights)", "struct", "struct beyond", "(rights)"]]
    for e in report["calls"]:
        if not e["ok"]:
            continue
        v, b = e.get("views") or {}, e.get("bytes") or {}
        rows.append(
            [e["label"], num(v.get("statements")), num(v.get("statementBytes")), num(b.get("text")),
             num(view_cell(e, "text")), num(view_cell(e, "text", "rightsBytes")), num(b.get("structured")),
             num(view_cell(e, "structured")), num(view_cell(e, "structured", "rightsBytes"))]
        )  # fmt: skip
    print(table(rows, {1, 2, 3, 4, 5, 6, 7, 8}))


def print_definitions(report: dict[str, Any]) -> None:
    definitions = report.get("toolDefinitions")
    if not definitions:
        return
    print("\ntool definitions a model reads (name + description + inputSchema, compact JSON) and outputSchema:")
    rows = [["tool", "definition", "description", "inputSchema", "outputSchema"]]
    for t in definitions["tools"]:
        rows.append(
            [t["name"], num(t["definition"]), num(t["description"]), num(t["inputSchema"]), num(t["outputSchema"])]
        )
    rows.append(["all tools", num(definitions["total"]), "", "", num(definitions["outputSchemaTotal"])])
    print(table(rows, {1, 2, 3, 4}))


def ratio(after: Any, before: Any) -> str:
    if not isinstance(after, int) or not isinstance(before, int) or before == 0:
        return "—"
    return f"{after / before:.2f}x"


def print_compare(before: dict[str, Any], after: dict[str, Any]) -> None:
    print(f"before: {before.get('code')}\nafter:  {after.get('code')}")
    old = {e["label"]: e for e in before["calls"]}
    new = {e["label"]: e for e in after["calls"]}
    labels = [e["label"] for e in after["calls"]] + [k for k in old if k not in new]
    rows = [["call", "text before→after", "struct before→after", "links before→after", "total before", "total after",
             "ratio", "note"]]  # fmt: skip
    sums = [0, 0]
    for label in labels:
        b, a = old.get(label), new.get(label)
        bb, ab = (b or {}).get("bytes") or {}, (a or {}).get("bytes") or {}
        notes = [f"{side}: {e['error']}" for side, e in (("before", b), ("after", a)) if e and not e["ok"]]
        notes += [f"missing {side}" for side, e in (("before", b), ("after", a)) if e is None]
        if isinstance(bb.get("total"), int) and isinstance(ab.get("total"), int):
            sums[0] += bb["total"]
            sums[1] += ab["total"]
        rows.append(
            [label,
             f"{num(bb.get('text'))}→{num(ab.get('text'))}",
             f"{num(bb.get('structured'))}→{num(ab.get('structured'))}",
             f"{num(bb.get('links'))}→{num(ab.get('links'))}",
             num(bb.get("total")), num(ab.get("total")), ratio(ab.get("total"), bb.get("total")), "; ".join(notes)]
        )  # fmt: skip
    rows.append(
        ["all calls measured on both sides", "", "", "", num(sums[0]), num(sums[1]), ratio(sums[1], sums[0]), ""]
    )
    print(table(rows, {1, 2, 3, 4, 5, 6}))
    print("\nbeyond statement, licence and attribution texts (bytes, before→after; — where a file has no value):")
    rows = [["call", "stmts before→after", "text beyond", "struct beyond"]]
    for label in labels:
        b, a = old.get(label), new.get(label)
        rows.append(
            [label,
             f"{num(view_count(b))}→{num(view_count(a))}",
             f"{num(view_cell(b, 'text'))}→{num(view_cell(a, 'text'))}",
             f"{num(view_cell(b, 'structured'))}→{num(view_cell(a, 'structured'))}"]
        )  # fmt: skip
    print(table(rows, {1, 2, 3}))
    before_defs = {t["name"]: t for t in (before.get("toolDefinitions") or {}).get("tools", [])}
    after_defs = {t["name"]: t for t in (after.get("toolDefinitions") or {}).get("tools", [])}
    print("\ntool definitions (bytes, before→after; — where a file has no value):")
    rows = [["tool", "definition", "outputSchema"]]
    for name in list(after_defs) + [n for n in before_defs if n not in after_defs]:
        bd, ad = before_defs.get(name, {}), after_defs.get(name, {})
        rows.append(
            [name, f"{num(bd.get('definition'))}→{num(ad.get('definition'))}",
             f"{num(bd.get('outputSchema'))}→{num(ad.get('outputSchema'))}"]
        )  # fmt: skip
    bt, at = before.get("toolDefinitions") or {}, after.get("toolDefinitions") or {}
    rows.append(
        ["all tools", f"{num(bt.get('total'))}→{num(at.get('total'))}",
         f"{num(bt.get('outputSchemaTotal'))}→{num(at.get('outputSchemaTotal'))}"]
    )  # fmt: skip
    print(table(rows, {1, 2}))
