"""The nginx.conf around the operator's site file (``deploy/nginx/kgfegmcp.conf``, included verbatim).

The multi-host test and ``benchmarks/http_load.py`` both run nginx this way; only the upstream's
servers, its keep-alive and the access log differ between them.
"""

from __future__ import annotations

from pathlib import Path

SITE = Path(__file__).resolve().parents[2] / "deploy" / "nginx" / "kgfegmcp.conf"
TEMP_KINDS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def nginx_conf(
    directory: Path, servers: list[str], upstream_options: list[str], access_log: str = "access_log off"
) -> str:
    """One worker (one round-robin state), runtime files under ``directory``, upstream ``kgfegmcp``, the site.

    ``servers`` are the upstream's ``server`` arguments; ``upstream_options`` its other directives
    (``keepalive 32``); ``access_log`` the logging directive (a ``log_format`` line may precede it).
    """
    for kind in TEMP_KINDS:
        (directory / kind).mkdir(exist_ok=True)
    temp = "".join(f"    {kind}_temp_path {directory}/{kind};\n" for kind in TEMP_KINDS)
    upstream = "".join(f"        server {server};\n" for server in servers)
    upstream += "".join(f"        {option};\n" for option in upstream_options)
    return (
        f"# Generated around {SITE.name} (included verbatim).\n"
        "worker_processes 1;\n"
        "daemon off;\n"
        f"pid {directory}/nginx.pid;\n"
        f"error_log {directory}/error.log warn;\n"
        "events { worker_connections 1024; }\n"
        "http {\n"
        f"{temp}"
        f"    {access_log};\n"
        "    upstream kgfegmcp {\n"
        f"{upstream}"
        "    }\n"
        f"    include {SITE};\n"
        "}\n"
    )
