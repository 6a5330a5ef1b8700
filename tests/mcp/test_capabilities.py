"""The capabilities a client is told at ``initialize``: only what holds.

The surface is fixed at start-up (nothing is added or removed while serving) and stateless HTTP has
no channel to notify on, so no list is ever said to change.
"""

from __future__ import annotations

from kgfegmcp.bootstrap import AppState
from served_apps import SERVED


async def test_capabilities_claim_no_list_changes(fixture_state: AppState) -> None:
    async with SERVED.client(fixture_state, mode="legacy") as client:  # the initialize handshake
        assert client.initialize_result is not None
        capabilities = client.initialize_result.capabilities
    assert capabilities.tools is not None and capabilities.tools.list_changed is not True
    assert capabilities.prompts is not None and capabilities.prompts.list_changed is not True
    assert capabilities.resources is not None and capabilities.resources.list_changed is not True
