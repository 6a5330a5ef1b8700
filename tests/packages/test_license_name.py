"""A package's licence by name: read from a Creative Commons licence URI, otherwise the package's own words."""

from __future__ import annotations

import pytest

from kgfegmcp.core.rights import RightsPolicy, license_name

SOURCE_LICENSE = "Data licensed by the publisher under its own terms; see the source."


def rights(license_uri: str | None) -> RightsPolicy:
    return RightsPolicy(
        source_license=SOURCE_LICENSE,
        license_uri=license_uri,
        attribution_statement="Attribution.",
        review_status="approved",
        allow_standard_resources=True,
        allow_full_text=True,
        allow_bulk_resource=False,
        allow_generated_derivatives="allowed",
    )


@pytest.mark.parametrize(
    ("uri", "name"),
    [
        ("https://creativecommons.org/licenses/by/4.0/", "CC BY 4.0"),
        ("http://creativecommons.org/licenses/by/3.0/us/", "CC BY 3.0 US"),
        ("https://creativecommons.org/licenses/by-nc-sa/4.0/legalcode", "CC BY-NC-SA 4.0"),
        ("https://creativecommons.org/licenses/by/2.5/br", "CC BY 2.5 BR"),
        ("https://creativecommons.org/publicdomain/zero/1.0/", "CC0 1.0"),
    ],
)
def test_a_creative_commons_uri_gives_the_licence_name(uri: str, name: str) -> None:
    assert license_name(rights(uri)) == name


@pytest.mark.parametrize(
    "uri",
    [
        None,
        "https://example.org/licenses/by/4.0/",
        "https://creativecommons.org/licenses/by/4.0/deed.pt",  # not the licence URI itself: never guessed
        "https://creativecommons.org/publicdomain/unknown/1.0/",
        "https://creativecommons.org.evil.example/licenses/by/4.0/",
    ],
)
def test_anything_else_keeps_the_source_licence_verbatim(uri: str | None) -> None:
    assert license_name(rights(uri)) == SOURCE_LICENSE
