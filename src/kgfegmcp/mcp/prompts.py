"""The nine workflow prompts as MCP prompts: thin adapters over the prompt service.

MCP prompt arguments are strings. Each prompt hands them to the service untouched, so the
strict parsing rules (JSON arrays, decimal integers, bounds, unknown names) live in one place.
Domain errors leave as ``<error_code>: <message>`` (JSON-RPC invalid params) and are logged in one
bounded line; anything unexpected is logged once with an incident id and replaced by the fixed
public prompt message. FastMCP would log either with a traceback that repeats the client's
argument names, so its own record is suppressed (:data:`~kgfegmcp.mcp.boundary.UNLOGGED`).
"""

from __future__ import annotations

import logging
from typing import Any

import mcp.types as mt
from fastmcp.exceptions import NotFoundError, PromptError
from fastmcp.prompts.base import Message, Prompt, PromptArgument, PromptResult
from fastmcp.server.dependencies import get_context
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from kgfegmcp.errors import INTERNAL_ERROR_MESSAGES, InvalidRequestError, KgfegmcpError, echo
from kgfegmcp.mcp.boundary import UNLOGGED, app_state, internal_error, log_refusal, public_cause, public_error
from kgfegmcp.mcp.request_log import open_incident
from kgfegmcp.prompts.workflows import workflow_spec

log = logging.getLogger("kgfegmcp.mcp")


class WorkflowPrompt(Prompt):
    """One workflow: renders its instructions as a single user message."""

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        """Render through the prompt service; never generates content."""
        try:
            rendered = app_state(get_context()).prompts.render_prompt(self.name, arguments)
        except KgfegmcpError as exc:
            log_refusal("prompt", self.name, exc)
            raise PromptError(exc.public_message, log_level=UNLOGGED) from public_error(exc)
        except Exception:
            incident = open_incident()
            log.exception("incident %s in prompt %s", incident, self.name)
            raise PromptError(INTERNAL_ERROR_MESSAGES["prompt"], log_level=UNLOGGED) from internal_error("prompt")
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


class PromptBoundaryMiddleware(Middleware):
    """Prompt refusals reach the wire as their public error; an unknown name is ``invalid_request``, clipped."""

    async def on_get_prompt(
        self,
        context: MiddlewareContext[mt.GetPromptRequestParams],
        call_next: CallNext[mt.GetPromptRequestParams, PromptResult],
    ) -> PromptResult:
        try:
            return await call_next(context)
        except NotFoundError:
            unknown = InvalidRequestError(
                f"Unknown prompt '{echo(context.message.name)}'.",
                hint="Call prompts/list to see the prompts this server offers.",
            )
            raise public_error(unknown) from None
        except PromptError as exc:
            raise public_cause(exc) from None
