"""The nine workflow prompts as MCP prompts: thin adapters over the prompt service.

MCP prompt arguments are strings. Each prompt hands them to the service untouched, so the
strict parsing rules (JSON arrays, decimal integers, bounds, unknown names) live in one place.
What rendering raises is judged by the error boundary
(:class:`~kgfegmcp.mcp.boundary.ErrorBoundary`, which guards each prompt's renderer where
``register.py`` declares it): domain errors leave as ``<error_code>: <message>``, anything else is an
incident, masked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastmcp.prompts.base import Message, Prompt, PromptArgument, PromptResult
from fastmcp.server.dependencies import get_context
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from kgfegmcp.mcp.boundary import app_state
from kgfegmcp.prompts.workflows import WorkflowSpec

#: Renders workflow ``name`` for the client's raw ``arguments``: the instructions text.
RenderText = Callable[[str, dict[str, Any] | None], str]


def render_workflow(name: str, arguments: dict[str, Any] | None) -> str:
    """The instructions of workflow ``name`` for ``arguments``, from the prompt service; never generated."""
    return app_state(get_context()).prompts.render_prompt(name, arguments).text


class WorkflowPrompt(Prompt):
    """One workflow: renders its instructions as a single user message."""

    render_text: SkipJsonSchema[RenderText] = Field(exclude=True)

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        """Render through the prompt service; never generates content."""
        return PromptResult([Message(self.render_text(self.name, arguments))], description=self.title)


def workflow_prompt(spec: WorkflowSpec, render_text: RenderText) -> WorkflowPrompt:
    """The MCP prompt for workflow ``spec``, with its declared argument list, rendered by ``render_text``."""
    return WorkflowPrompt(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        arguments=[
            PromptArgument(name=use.spec.name, description=use.spec.description, required=use.required)
            for use in spec.arguments
        ],
        render_text=render_text,
    )
