"""What the load sends: request bodies per operation over real ids of the catalog, each first answered in
process by the services, and the order each client takes them in."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from kgfegmcp.core.config import SHIPPED_PROFILES_DIR, SHIPPED_PROMPTS_DIR

TEACHER_QUERIES = Path(__file__).resolve().parent / "queries" / "teacher_queries.json"
OPERATIONS = (
    "search_standards",
    "get_standard",
    "get_standard_context",
    "traverse_learning_progressions",
    "resources/read",
)
PER_OPERATION = 400  # distinct requests per operation (at most), drawn with --seed


def rpc(method: str, params: dict[str, Any]) -> bytes:
    """One JSON-RPC request body (id 1: every stateless exchange stands alone)."""
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def tool_call(name: str, request: dict[str, Any]) -> bytes:
    """A ``tools/call`` body; every tool takes one argument, ``request``."""
    return rpc("tools/call", {"name": name, "arguments": {"request": request}})


def build_workload(root: Path, seed: int, scratch: Path) -> dict[str, list[bytes]]:
    """Request bodies per operation over real ids, each first answered in process by the services.

    A request the services refuse (a standard whose rights withhold its resource, say) is dropped here, so
    any failure under load is the server's, not the workload's.
    """
    from kgfegmcp.bootstrap import build_app_state
    from kgfegmcp.core.config import load_settings
    from kgfegmcp.graph.progressions import LABEL_ORDER
    from kgfegmcp.resources.uris import standard_uri
    from kgfegmcp.services.requests import (
        GetStandardContextRequest,
        GetStandardRequest,
        SearchStandardsRequest,
        TraverseLearningProgressionsRequest,
    )

    settings = load_settings(
        {
            "graph_packages_dir": root,
            "profiles_dir": SHIPPED_PROFILES_DIR,
            "prompts_dir": SHIPPED_PROMPTS_DIR,
            "cache_dir": scratch / "workload-cache",
        }
    )
    state = build_app_state(settings)
    rng = random.Random(seed)
    candidates: dict[str, list[tuple[Callable[[], object], bytes]]] = {name: [] for name in OPERATIONS}
    for query in json.loads(TEACHER_QUERIES.read_text(encoding="utf-8")):
        request = {"query": query["query"], "frameworkIds": [query["frameworkId"]], "limit": 10}
        model = SearchStandardsRequest.model_validate(request)
        candidates["search_standards"].append(
            (partial(state.standards.search_standards, model), tool_call("search_standards", request))
        )
    directions = itertools.cycle(("out", "in", "both"))
    for package in state.catalog.packages:
        store = package.store
        codes = Counter(item.statement_code for item in package.items if item.statement_code)
        for item in package.items:
            framework = package.framework_id
            if item.statement_code and codes[item.statement_code] == 1:
                request = {"frameworkId": framework, "statementCode": item.statement_code}
                model_s = GetStandardRequest.model_validate(request)
                candidates["get_standard"].append(
                    (partial(state.standards.get_standard, model_s), tool_call("get_standard", request))
                )
            by_node = {"frameworkId": framework, "nodeId": item.identifier}
            model_c = GetStandardContextRequest.model_validate(by_node)
            candidates["get_standard_context"].append(
                (partial(state.standards.get_standard_context, model_c), tool_call("get_standard_context", by_node))
            )
            linked = any(store.outgoing(item.identifier, k) or store.incoming(item.identifier, k) for k in LABEL_ORDER)
            if linked:
                traversal = {**by_node, "direction": next(directions)}
                model_t = TraverseLearningProgressionsRequest.model_validate(traversal)
                candidates["traverse_learning_progressions"].append(
                    (
                        partial(state.progressions.traverse_learning_progressions, model_t),
                        tool_call("traverse_learning_progressions", traversal),
                    )
                )
            uri = standard_uri(framework, package.snapshot_id, item.identifier)
            candidates["resources/read"].append(
                (partial(state.resources.read_uri, uri), rpc("resources/read", {"uri": uri}))
            )
    workload: dict[str, list[bytes]] = {}
    for name, pairs in candidates.items():
        chosen = rng.sample(pairs, min(PER_OPERATION, len(pairs)))
        kept = []
        for answer, body in chosen:
            try:
                answer()
            except Exception:  # a refusal: not a request the load should send
                continue
            kept.append(body)
        if not kept:
            raise SystemExit(f"no {name} request is answered in process: is the default catalog built?")
        workload[name] = kept
    return workload


class Plan:
    """Which request each client sends next: operations in turn, each operation's requests in turn."""

    def __init__(self, workload: dict[str, list[bytes]]) -> None:
        self.names = list(workload)
        self.bodies = workload
        self.positions = {name: itertools.count() for name in workload}

    def sequence(self, client: int) -> Iterator[tuple[str, bytes]]:
        """Client ``client``'s endless sequence, starting at its own operation."""
        for turn in itertools.count(client):
            name = self.names[turn % len(self.names)]
            bodies = self.bodies[name]
            yield name, bodies[next(self.positions[name]) % len(bodies)]
