"""What the default catalog holds, written once for every test that names it: each graph package, in the
order discovery and ``list_frameworks`` give them (by framework id)."""

from __future__ import annotations

DEFAULT_PACKAGES: tuple[str, ...] = (
    "australia-acara-v9-mathematics@mrac-2023-07",
    "brazil-bncc-computacao@dados-2026-07-1",
    "brazil-bncc-educacao-infantil@dados-2026-07-1",
    "brazil-bncc-ensino-fundamental@dados-2026-07-1",
    "brazil-bncc-ensino-medio@dados-2026-07-1",
    "japan-mext-course-of-study-elementary@82v11",
    "japan-mext-course-of-study-lower-secondary@83v11",
    "japan-mext-course-of-study-upper-secondary@84v10",
    "us-ccss-ela-literacy-grades-2-4@chiron-0-1-0",
)
DEFAULT_FRAMEWORKS: tuple[str, ...] = tuple(package.split("@")[0] for package in DEFAULT_PACKAGES)
