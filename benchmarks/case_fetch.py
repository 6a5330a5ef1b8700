"""Peak memory of `kgfegmcp packages fetch` (fetch + build + write) per item, next to validating the result.

Run: .venv/bin/python benchmarks/case_fetch.py [--items 180000] [--shape full|lean] [--gzip] [--listing]
         [--code after=src --code before=/tmp/before/src]
         [--scratch /tmp/kgfegmcp-case-fetch] [--out benchmarks/results/case_fetch.json]

It writes one generated CASE 1.0 CFPackage of --items CFItems (framework → domains → clusters →
standards, an ``isChildOf`` per item, a ``precedes`` chain through each cluster, an ``isRelatedTo`` per
ten standards) and serves it from a local HTTP server on 127.0.0.1. ``full`` records carry the members
publishers send (uri, CFItemTypeURI, CFDocumentURI, lastChangeDateTime, sequenceNumber …); ``lean``
only what the adapter needs, about the shape of ``tests/case_export.py``. With ``--gzip`` the server
sends the body gzip-compressed (``Content-Encoding: gzip``, compressed once into the scratch folder);
with ``--listing`` the fetch goes the way a user with only the provider's address goes: the API root
``…/ims/case/v1p0`` with ``--document <id>``, through a ``CFDocuments`` listing of three documents.

For each ``--code NAME=SRC`` (a source tree; several run side by side, in the order given, in one run),
a fresh process puts SRC first on ``sys.path``, imports the command line, notes its resident size
(VmRSS), runs ``packages fetch`` against the server, and reports its peak (VmHWM): the peak over the
imports, per CFItem, is the build's memory per item. Then a fresh process validates the package that
fetch wrote, measured as ``benchmarks/scale.py`` measures the validator (VmHWM over VmRSS after the
imports, per item), so the two bounds are compared on the same package. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

from scale import status_kib, validate_peak

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent
NAMESPACE = uuid.UUID("6f3a0d4e-3c1b-4f7e-9a55-0b1d2c3e4f50")
API_ROOT = "/ims/case/v1p0"
PACKAGE_PATH = API_ROOT + "/CFPackages/"
CHANGED = "2025-01-15T08:00:00+00:00"
WORDS = [
    *("describe", "compare", "explain", "measure", "model", "number", "fraction", "pattern", "evidence"),
    *("energy", "matter", "system", "interpret", "argue", "represent", "relation", "cause", "effect"),
    *("text", "reader", "author", "structure", "claim", "data"),
]


# -- the generated CFPackage ---------------------------------------------------------------------


def _id(*parts: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(map(str, parts))))


def _statement(index: int) -> str:
    words = [WORDS[(index * 7 + k * 3) % len(WORDS)] for k in range(8 + index % 9)]
    return f"Students {' '.join(words)} ({index})."


def generate(path: Path, items: int, shape: str) -> str:
    """Write the CFPackage to ``path`` record by record; returns the document identifier."""
    full = shape == "full"
    doc = _id("document")
    doc_link = {"title": "Generated CASE benchmark framework", "identifier": doc, "uri": f"https://case.test/{doc}"}
    domains = max(1, items // 1000)
    clusters = domains * 10
    standards = items - domains - clusters
    grades = ["KG", "01", "02", "03", "04", "05", "06", "07", "08"]

    def link(identifier: str, title: str) -> dict[str, str]:
        found = {"title": title, "identifier": identifier}
        return {**found, "uri": f"https://case.test/{identifier}"} if full else found

    def item(identifier: str, kind: str, code: str, text: str, grade: str | None) -> dict[str, Any]:
        record: dict[str, Any] = {
            "identifier": identifier,
            "fullStatement": text,
            "humanCodingScheme": code,
            "CFItemType": kind,
        }
        if grade is not None:
            record["educationLevel"] = [grade]
        if full:
            record.update(
                uri=f"https://case.test/{identifier}",
                CFItemTypeURI=link(_id("type", kind), kind),
                CFDocumentURI=doc_link,
                language="en",
                lastChangeDateTime=CHANGED,
            )
        return record

    def association(number: int, kind: str, origin: dict[str, str], destination: dict[str, str]) -> dict[str, Any]:
        identifier = _id("association", number)
        record: dict[str, Any] = {
            "identifier": identifier,
            "associationType": kind,
            "originNodeURI": origin,
            "destinationNodeURI": destination,
        }
        if full:
            record.update(
                uri=f"https://case.test/{identifier}",
                CFDocumentURI=doc_link,
                sequenceNumber=number % 50,
                lastChangeDateTime=CHANGED,
            )
        return record

    document: dict[str, Any] = {
        "identifier": doc,
        "uri": doc_link["uri"],
        "creator": "Benchmark Board",
        "title": doc_link["title"],
        "lastChangeDateTime": CHANGED,
        "version": "1.0",
        "language": "en",
        "subject": ["Mathematics"],
        "adoptionStatus": "Draft",
    }
    count = 0
    with path.open("w", encoding="utf-8") as out:
        out.write('{"CFDocument": ' + json.dumps(document) + ', "CFItems": [')
        links: list[tuple[str, str, str]] = []  # kind, origin, destination (identifiers)
        titles: dict[str, str] = {}

        def emit(record: dict[str, Any]) -> None:
            nonlocal count
            out.write(("," if count else "") + "\n" + json.dumps(record))
            count += 1

        for d in range(domains):
            domain = _id("domain", d)
            titles[domain] = f"D{d}"
            emit(item(domain, "Domain", f"D{d}", f"Domain {d}: {_statement(d)}", None))
            links.append(("isChildOf", domain, doc))
            per_cluster = standards // clusters + (1 if d < standards % clusters else 0)
            for c in range(10):
                cluster = _id("cluster", d, c)
                titles[cluster] = f"D{d}.C{c}"
                emit(item(cluster, "Cluster", f"D{d}.C{c}", f"Cluster {c}: {_statement(d * 10 + c)}", None))
                links.append(("isChildOf", cluster, domain))
                previous = None
                for s in range(per_cluster):
                    number = count
                    standard = _id("standard", d, c, s)
                    code = f"D{d}.C{c}.{s + 1}"
                    emit(item(standard, "Standard", code, _statement(number), grades[(d + c) % len(grades)]))
                    links.append(("isChildOf", standard, cluster))
                    if previous is not None:
                        links.append(("precedes", previous, standard))
                    if s % 10 == 5:
                        links.append(("isRelatedTo", standard, _id("cluster", (d + 1) % domains, c)))
                    previous = standard
        out.write('\n], "CFAssociations": [')
        for number, (kind, origin, destination) in enumerate(links):
            origin_link = link(origin, titles.get(origin, "statement"))
            target = doc_link if destination == doc else link(destination, titles.get(destination, "statement"))
            out.write(("," if number else "") + "\n" + json.dumps(association(number, kind, origin_link, target)))
        out.write("\n]}\n")
    return doc


# -- the server ----------------------------------------------------------------------------------


def serve(body: Path, package: str, encoding: str | None, listing: bytes) -> tuple[ThreadingHTTPServer, str]:
    """A server on 127.0.0.1 streaming ``body`` (Content-Length framed) at the package's CASE address.

    ``encoding`` is the body's Content-Encoding (the file is already compressed); ``listing`` is the
    ``CFDocuments`` answer at the API root.
    """

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == API_ROOT + "/CFDocuments":
                self._send(listing, None)
                return
            if self.path != PACKAGE_PATH + package:
                self.send_error(404)
                return
            with body.open("rb") as stream:
                self._send(stream, encoding)

        def _send(self, content: bytes | IO[bytes], content_encoding: str | None) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            if content_encoding:
                self.send_header("Content-Encoding", content_encoding)
            size = len(content) if isinstance(content, bytes) else body.stat().st_size
            self.send_header("Content-Length", str(size))
            self.end_headers()
            if isinstance(content, bytes):
                self.wfile.write(content)
            else:
                shutil.copyfileobj(content, self.wfile, 1 << 20)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def listing_of(package: str) -> bytes:
    """A ``CFDocuments`` listing naming the generated framework between two others."""
    documents = [{"identifier": _id("other", n), "title": f"Another framework {n}", "version": "1.0"} for n in range(2)]
    generated = {"identifier": package, "title": "Generated CASE benchmark framework", "version": "1.0"}
    return json.dumps({"CFDocuments": [documents[0], generated, documents[1]]}).encode("utf-8")


def compressed(body: Path) -> Path:
    """``body`` gzip-compressed beside it (once), streamed through ``gzip``."""
    target = body.with_suffix(body.suffix + ".gz")
    if not target.exists():
        with body.open("rb") as source, gzip.open(target, "wb", compresslevel=6) as sink:
            shutil.copyfileobj(source, sink, 1 << 20)
    return target


# -- children (each in its own process) ----------------------------------------------------------


def child_fetch(url: str, document: str, out: Path, profiles: Path) -> dict[str, Any]:
    import kgfegmcp.cli as cli

    for module in ("kgfegmcp.packages.writer", "kgfegmcp.sources.case", "kgfegmcp.sources.case.provider"):
        importlib.import_module(module)  # the command imports them itself: before the baseline, they are not counted

    baseline = status_kib("VmRSS")
    started = time.perf_counter()
    arguments = ["packages", "fetch", "--case-url", url, "--out", str(out), "--profiles-dir", str(profiles)]
    arguments += ["--document", document] if document else []
    cli.app([*arguments, "--max-bytes", str(512 * 1024 * 1024)], standalone_mode=False)
    return {"seconds": time.perf_counter() - started, "baselineKiB": baseline, "peakKiB": status_kib("VmHWM")}


def child_validate(root: Path, profiles: Path) -> dict[str, Any]:
    return validate_peak(root, profiles)  # as benchmarks/scale.py measures the validator


def run_child(source: Path, role: str, *arguments: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", role, *arguments]
    done = subprocess.run(command, check=False, capture_output=True, text=True, env=env, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"{role} child ({source}) failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def per_item(result: dict[str, Any], items: int) -> float:
    return round((result["peakKiB"] - result["baselineKiB"]) / items, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=180_000)
    parser.add_argument("--shape", choices=("full", "lean"), default="full")
    parser.add_argument("--gzip", action="store_true", help="send the body gzip-compressed")
    parser.add_argument("--listing", action="store_true", help="fetch through the API root's CFDocuments listing")
    parser.add_argument("--code", action="append", help="NAME=SRC: a source tree to measure (default after=src)")
    parser.add_argument("--profiles", type=Path, default=REPOSITORY / "src" / "kgfegmcp" / "shipped" / "profiles")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/kgfegmcp-case-fetch"))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "case_fetch.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "fetch":
        url, document, out, profiles = args.arguments
        print(json.dumps(child_fetch(url, document, Path(out), Path(profiles))))
        return
    if args.child == "validate":
        root, profiles = args.arguments
        print(json.dumps(child_validate(Path(root), Path(profiles))))
        return

    codes = [entry.split("=", 1) for entry in (args.code or [f"after={REPOSITORY / 'src'}"])]
    args.scratch.mkdir(parents=True, exist_ok=True)
    body = args.scratch / f"cfpackage-{args.shape}-{args.items}.json"
    package = _id("document")
    if not body.exists():
        started = time.perf_counter()
        generate(body, args.items, args.shape)
        print(f"generated {body} ({body.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.1f} s")
    served = compressed(body) if args.gzip else body
    server, base = serve(served, package, "gzip" if args.gzip else None, listing_of(package))
    url, document = (base + API_ROOT, package) if args.listing else (base + PACKAGE_PATH + package, "")
    rows = []
    try:
        for name, source in codes:
            root = args.scratch / f"packages-{name}"
            shutil.rmtree(root, ignore_errors=True)
            fetched = run_child(Path(source).resolve(), "fetch", url, document, str(root), str(args.profiles))
            validated = run_child(Path(source).resolve(), "validate", str(root), str(args.profiles))
            written = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
            row = {
                "code": name,
                "source": str(source),
                "fetch": fetched,
                "fetchPeakKiBPerItem": per_item(fetched, args.items),
                "validate": validated,
                "validatePeakKiBPerItem": per_item(validated, args.items),
                "packageBytes": written,
            }
            rows.append(row)
            print(
                f"{name}: fetch+build+write {fetched['seconds']:.1f} s, peak {fetched['peakKiB'] / 1024:.0f} MiB "
                f"({row['fetchPeakKiBPerItem']} KiB/item over {fetched['baselineKiB'] / 1024:.0f} MiB of imports); "
                f"validate {validated['seconds']:.1f} s, peak {row['validatePeakKiBPerItem']} KiB/item "
                f"(passed: {validated['passed']}); package {written / 1e6:.0f} MB"
            )
    finally:
        server.shutdown()
    result = {
        "machine": platform.platform(),
        "python": platform.python_version(),
        "items": args.items,
        "shape": args.shape,
        "bodyBytes": body.stat().st_size,
        "sentBytes": served.stat().st_size,
        "gzip": args.gzip,
        "listing": args.listing,
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
