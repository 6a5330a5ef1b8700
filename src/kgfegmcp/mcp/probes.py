"""Liveness and readiness for a load balancer: ``/healthz`` and ``/readyz``, outside authentication.

They say only what a balancer needs: the process answers, and whether the catalog is served, with its
fingerprint and package count. No path, setting or package content ever appears.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse

from kgfegmcp.bootstrap import AppState


@dataclass(slots=True)
class Readiness:
    """The state the server serves once it is built (before that: not ready)."""

    state: AppState | None = None

    async def healthz(self, request: Request) -> JSONResponse:
        """Liveness: the process answers HTTP."""
        return JSONResponse({"status": "alive"})

    async def readyz(self, request: Request) -> JSONResponse:
        """Readiness: 200 with the catalog's identity once it is served, 503 until then."""
        if self.state is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        catalog = self.state.catalog
        return JSONResponse(
            {"status": "ready", "catalogFingerprint": catalog.fingerprint, "packages": len(catalog.packages)}
        )
