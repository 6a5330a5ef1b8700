"""The nine workflow prompts as MCP prompts: thin adapters over the prompt service.

MCP prompt arguments are strings. Each prompt hands them to the service untouched, so the
strict parsing rules (JSON arrays, decimal integers, bounds, unknown names) live in one place.
Domain errors leave as ``<error_code>: <message>``; anything unexpected is logged with an
incident id and replaced by the fixed public prompt message.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastmcp.exceptions import PromptError
from fastmcp.prompts.base import Message, Prompt, PromptArgument, PromptResult
from fastmcp.server.dependencies import get_context

from kgfegmcp.errors import INTERNAL_ERROR_MESSAGES, KgfegmcpError
from kgfegmcp.mcp.boundary import app_state
from kgfegmcp.prompts.workflows import workflow_spec

log = logging.getLogger("kgfegmcp.mcp")


class WorkflowPrompt(Prompt):
    """One workflow: renders its instructions as a single user message."""

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        """Render through the prompt service; never generates content."""
        try:
            rendered = app_state(get_context()).prompts.render_prompt(self.name, arguments)
        except KgfegmcpError as exc:
            if exc.details:
                log.info("%s: %s", exc.code, exc.details)
            raise PromptError(exc.public_message, log_level=logging.INFO) from None
        except Exception:
            incident = uuid.uuid4().hex[:12]
            log.exception("incident %s in prompt %s", incident, self.name)
            raise PromptError(INTERNAL_ERROR_MESSAGES["prompt"]) from None
        return PromptResult([Message(rendered.text)], description=self.title)


def workflow_prompt(name: str) -> WorkflowPrompt:
    """The MCP prompt for workflow ``name``, with its declared argument list."""
    spec = workflow_spec(name)
    return WorkflowPrompt(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        arguments=[
            PromptArgument(name=use.spec.name, description=use.spec.description, required=use.required)
            for use in spec.arguments
        ],
    )
