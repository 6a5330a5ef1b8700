"""One assembled FastMCP server per catalog state, shared by every test of the session.

Assembling the server (registering 19 tools, 15 resources and 9 prompts, generating their schemas) costs
far more than a test's calls; the server holds no per-connection state, so each test connects its own
in-memory client to the one server built for its world. Tests that assemble a server on purpose (a patched
registry, a broken service) still call ``create_app`` themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastmcp import Client, FastMCP

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import AppState


class ServedApps:
    """The server of each state, built on first use (states are immutable and live for the session)."""

    def __init__(self) -> None:
        # Keyed by identity, holding the state too so that its id cannot be reused by another object.
        self._apps: dict[int, tuple[AppState, FastMCP]] = {}

    def app(self, state: AppState) -> FastMCP:
        held = self._apps.get(id(state))
        if held is None:
            held = self._apps[id(state)] = (state, create_app(state))
        return held[1]

    @asynccontextmanager
    async def client(self, state: AppState, **options: Any) -> AsyncIterator[Client[Any]]:
        """FastMCP's in-memory client, connected for one test to the shared server of ``state``."""
        async with Client(self.app(state), **options) as client:
            yield client


#: The session's servers. A module-level object, not a fixture, so that helpers called from hypothesis
#: examples (which cannot take function-scoped fixtures) share it too.
SERVED = ServedApps()
