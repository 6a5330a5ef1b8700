"""The probes a balancer polls: ``/readyz`` is 503 until the lifespan has built the catalog, then names only
the catalog's identity; ``/healthz`` answers throughout. Driven through the real ASGI app (httpx's ASGI
transport), with the lifespan run by hand so the not-yet-ready window can be observed."""

from __future__ import annotations

import httpx2 as httpx

from default_catalog_ids import DEFAULT_PACKAGES
from kgfegmcp.app import create_app
from kgfegmcp.core.config import BackendSettings


async def test_readiness_is_503_until_the_catalog_is_built(default_settings: BackendSettings) -> None:
    app = create_app(settings=default_settings).http_app(path="/mcp", transport="http", stateless_http=True)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        starting = await client.get("/readyz")
        assert starting.status_code == 503 and starting.json() == {"status": "starting"}
        assert (await client.get("/healthz")).json() == {"status": "alive"}
        async with app.router.lifespan_context(app):
            ready = await client.get("/readyz")
            document = ready.json()
            assert (
                ready.status_code == 200
                and document["status"] == "ready"
                and document["packages"] == len(DEFAULT_PACKAGES)
            )
            assert set(document) == {"status", "catalogFingerprint", "packages"}
            assert str(default_settings.graph_packages_dir) not in ready.text
