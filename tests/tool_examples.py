"""What the tool rows' example requests name in the default catalog, for the call tables that send them there.

EF05MA03 of Ensino Fundamental has parents, learning components and stored progression links, and EF04MA09 builds
towards it; Ensino Médio is the framework it is compared with. A learning component, a progression link and an
address to read are ids each table refers to in its own way (a placeholder it fills, or a reference it resolves).
"""

from __future__ import annotations

from typing import Any

from kgfegmcp.mcp.tools import Specimens

EF = "brazil-bncc-ensino-fundamental"
EM = "brazil-bncc-ensino-medio"


def default_specimens(component: Any, progression: Any, uri: Any) -> Specimens:
    """The default catalog's specimens, its ids given as the table refers to them."""
    return Specimens(
        framework=EF,
        other_framework=EM,
        standard={"frameworkId": EF, "statementCode": "EF05MA03"},
        earlier_standard={"frameworkId": EF, "statementCode": "EF04MA09"},
        component=component,
        progression=progression,
        query="frações",
        uri=uri,
    )
