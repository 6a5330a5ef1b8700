"""One assembled FastMCP server per catalog state, shared by every test of the session.

Assembling the server (registering every tool, resource and prompt, generating their schemas) costs
far more than a test's calls; the server holds no per-connection state, so each test connects its own
in-memory client to the one server built for its world. Tests that assemble a server on purpose (a patched
registry, a broken service) still call ``create_app`` themselves.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastmcp import Client, FastMCP
from mcp.client.session import ClientSession
from mcp.types import ListToolsResult, PaginatedRequestParams

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState


class ServedApps:
    """The server of each state, built on first use (states are immutable and live for the session)."""

    def __init__(self) -> None:
        # Keyed by identity, holding the state too so that its id cannot be reused by another object.
        self._apps: dict[int, tuple[AppState, FastMCP]] = {}
        # The complete tool listing each server gave a client, by protocol version.
        self._listings: dict[tuple[int, str | None], ListToolsResult] = {}

    def app(self, state: AppState) -> FastMCP:
        held = self._apps.get(id(state))
        if held is None:
            held = self._apps[id(state)] = (state, create_app(state))
        return held[1]

    @asynccontextmanager
    async def client(self, state: AppState, **options: Any) -> AsyncIterator[Client[Any]]:
        """FastMCP's in-memory client, connected for one test to the shared server of ``state``.

        The client checks every tool result against the ``outputSchema`` its session last listed, and lists
        the tools itself before its first check: four fifths of a one-call test's CPU. The server's listing
        never changes, so a session is given the complete listing the same server gave an earlier session of
        the same protocol version, as a listing of its own would give it; a test that lists still asks.
        """
        async with Client(self.app(state), **options) as client:
            self._share_listing(id(state), client.session)
            yield client

    def _share_listing(self, key: int, session: ClientSession) -> None:
        shared = (key, session._negotiated_version)
        listed = self._listings.get(shared)
        if listed is not None:
            session._absorb_tool_listing(listed.model_copy(), complete=True)
            return
        list_tools = session.list_tools

        async def list_and_keep(*, params: PaginatedRequestParams | None = None) -> ListToolsResult:
            result = await list_tools(params=params)
            if params is None and result.next_cursor is None:
                self._listings.setdefault(shared, result.model_copy())
            return result

        session.list_tools = list_and_keep  # type: ignore[method-assign]


#: The session's servers. A module-level object, not a fixture, so that helpers called from hypothesis
#: examples (which cannot take function-scoped fixtures) share it too.
SERVED = ServedApps()


def _share_compiled_output_validators() -> None:
    """Let every client session of the test process share the SDK's compiled output-schema validators.

    The MCP client checks each tool's output schema against the JSON Schema metaschema and compiles a
    validator for it once per session; with a fresh session per test, that compile was about half of the
    CPU an in-process tool test spends. Shared by the schema's exact content, every result is still
    validated against the schema its own session listed, and a schema the SDK refuses is never cached.
    """
    compile_for_session = getattr(ClientSession, "_output_schema_validator", None)
    if compile_for_session is None:  # an SDK without it validates as it always does
        return
    compiled: dict[str, Any] = {}

    def shared(session: ClientSession, name: str, output_schema: dict[str, Any]) -> Any:
        key = json.dumps(output_schema, sort_keys=True)
        validator = compiled.get(key)
        if validator is None:
            validator = compiled[key] = compile_for_session(session, name, output_schema)
        return validator

    ClientSession._output_schema_validator = shared  # type: ignore[method-assign]


_share_compiled_output_validators()
