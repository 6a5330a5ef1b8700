"""Stateless Streamable HTTP entry point (hosted deployments). No registration or domain logic here."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

from starlette.middleware import Middleware as ASGIMiddleware

from kgfegmcp.app import create_app
from kgfegmcp.bootstrap import build_serving_state
from kgfegmcp.core.config import BackendSettings, load_settings
from kgfegmcp.core.entry_boundary import run_entry_point
from kgfegmcp.core.logging_setup import configure_logging
from kgfegmcp.http_transport.auth import BearerChallenge, auth_provider, require_auth_for_public_bind
from kgfegmcp.http_transport.hosts import WellFormedHostAndOrigin, needs_check
from kgfegmcp.http_transport.limits import HttpLimits, RequestBodyCap, descriptor_cap, limited_h11_protocol
from kgfegmcp.mcp.warm_up import warm_up

log = logging.getLogger("kgfegmcp.http")


class AnnounceOnce:
    """uvicorn's ``callback_notify``: says once that the server accepts connections.

    uvicorn calls it from its main loop, whose first tick runs once the listening sockets are open, then
    every ``timeout_notify`` seconds; only the first call announces. So the URL is never printed before a
    client can connect to it, nor when the port cannot be bound.
    """

    def __init__(self, announce: Callable[[], None]) -> None:
        self._announce: Callable[[], None] | None = announce

    async def __call__(self) -> None:
        if self._announce is not None:
            announce, self._announce = self._announce, None
            announce()


def serve_http(settings: BackendSettings) -> None:
    """Build the catalog first (fail fast), then serve stateless Streamable HTTP."""
    configure_logging(settings.log_level, settings.log_format)
    auth = auth_provider(settings)
    if require_auth_for_public_bind(settings, auth):
        log.warning(
            "serving %s WITHOUT authentication (KGFEGMCP_ALLOW_UNAUTHENTICATED_PUBLIC_BIND): anyone who can reach "
            "this address can read every package",
            settings.http_host,
        )
    state = build_serving_state(settings)
    limits = HttpLimits(
        header_timeout=settings.http_header_timeout_seconds,
        body_timeout=settings.http_body_timeout_seconds,
        write_timeout=settings.http_write_timeout_seconds,
        max_connections=descriptor_cap(
            settings.http_max_connections, explicit="http_max_connections" in settings.model_fields_set
        ),
    )
    url = f"http://{settings.http_host}:{settings.http_port}{settings.http_path}"
    announce = AnnounceOnce(
        lambda: log.info(
            "serving %d packages at %s (stateless Streamable HTTP), accepting connections; connect an MCP client "
            "to it, for example: %s list %s",
            len(state.catalog.packages),
            url,
            Path(sys.executable).parent / "fastmcp",
            url,
        )
    )
    server = create_app(state, auth=auth)
    warm_up(server)  # the first client request must not pay for what FastMCP sets up on first use
    server.run(
        transport="http",
        host=settings.http_host,
        port=settings.http_port,
        path=settings.http_path,
        stateless_http=True,
        # Set here, never from FastMCP's own FASTMCP_JSON_RESPONSE: the answer's framing is ours to declare.
        json_response=settings.http_json_response,
        host_origin_protection="auto",  # a loopback-bound server refuses foreign Host/Origin (DNS rebinding)
        allowed_hosts=settings.http_allowed_hosts,  # e.g. the public name a same-host proxy keeps in Host
        allowed_origins=settings.http_allowed_origins,
        show_banner=False,
        middleware=[
            # A 401 says how to send the token, to a person and to a client (http_auth.py).
            *([ASGIMiddleware(BearerChallenge, mcp_path=settings.http_path)] if auth is not None else []),
            # FastMCP matches the allowed hosts and origins with fnmatch: only a well-formed Host or Origin may
            # be served, so what it matched is whole DNS labels (http_hosts.py).
            ASGIMiddleware(
                WellFormedHostAndOrigin,
                check_host=needs_check(settings.http_allowed_hosts),
                check_origin=needs_check(settings.http_allowed_origins),
            ),
            ASGIMiddleware(RequestBodyCap, max_bytes=settings.http_max_body_bytes),
        ],
        uvicorn_config={
            # uvicorn installs no handlers of its own: its records reach the one handler configure_logging set.
            "log_config": None,
            "log_level": settings.log_level.lower(),
            "http": limited_h11_protocol(limits),  # header/body/write timeouts, the connection cap (http_limits.py)
            "timeout_keep_alive": settings.http_keepalive_timeout_seconds,
            "callback_notify": announce,  # the URL, once the sockets listen
        },
    )


def main() -> None:
    """``python -m kgfegmcp.http_transport.server``: settings from the environment."""
    run_entry_point(lambda: serve_http(load_settings()), "The server")


if __name__ == "__main__":
    main()
