"""The RightsPolicy contract shared by interpretation profiles and package manifests."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.text_safety import safe_text

ReviewStatus = Literal["approved", "provisional_operator_approved", "restricted", "review_required", "unreviewed"]
REVIEW_STATUSES: tuple[ReviewStatus, ...] = (
    "approved",
    "provisional_operator_approved",
    "restricted",
    "review_required",
    "unreviewed",
)
#: Only these states count as reviewed for rights-gated content.
REVIEWED_STATES: frozenset[str] = frozenset({"approved", "provisional_operator_approved"})
#: How far each review state opens a package, lowest first: ``restricted`` is a decision to withhold, then no
#: review at all, a review asked for, and the two reviewed states. A manifest may state its profile's state or a
#: lower one (narrowing); only the operator's decision raises it.
REVIEW_ORDER: dict[str, int] = {
    "restricted": 0,
    "unreviewed": 1,
    "review_required": 2,
    "provisional_operator_approved": 3,
    "approved": 4,
}

#: Whether hosts may run generated-derivative workflows on a package: only ``allowed`` lets them. ``prohibited``
#: is the supplied packages' word for ``denied``; ``review_required`` is undecided, so closed until decided.
GeneratedDerivatives = Literal["allowed", "denied", "prohibited", "review_required"]
#: How far each derivatives policy opens a package, lowest first (``denied`` and ``prohibited`` are one word).
DERIVATIVES_ORDER: dict[str, int] = {"denied": 0, "prohibited": 0, "review_required": 1, "allowed": 2}
#: The allow flags, by attribute and wire name: each may be narrowed (false where its profile says true).
ALLOW_FLAGS: tuple[tuple[str, str], ...] = (
    ("allow_standard_resources", "allowStandardResources"),
    ("allow_full_text", "allowFullText"),
    ("allow_bulk_resource", "allowBulkResource"),
)

#: A Creative Commons licence or public-domain tool URI: kind, version and optional jurisdiction port.
_CC_URI = re.compile(
    r"https?://creativecommons\.org/(?P<family>licenses|publicdomain)/(?P<kind>[a-z-]+)/(?P<version>\d+(?:\.\d+)?)"
    r"(?:/(?P<port>[a-z]{2}(?:-[a-z]{2})?))?(?:/(?:legalcode(?:\.[a-z-]+)?)?)?",
    re.IGNORECASE,
)
_CC_TOOLS = {"zero": "CC0", "mark": "Public Domain Mark"}


class RightsPolicy(ContractModel):
    """Source rights metadata plus the operator's exposure decisions."""

    source_license: str = Field(min_length=1, max_length=4000)
    license_uri: str | None = Field(None, max_length=2000)
    attribution_statement: str = Field(min_length=1, max_length=8000)
    review_status: ReviewStatus
    allow_standard_resources: bool
    allow_full_text: bool
    allow_bulk_resource: bool
    allow_generated_derivatives: GeneratedDerivatives

    @model_validator(mode="after")
    def _bulk_needs_text(self) -> RightsPolicy:
        if self.allow_bulk_resource and not (self.allow_full_text and self.allow_standard_resources):
            raise ValueError("allowBulkResource requires allowFullText and allowStandardResources")
        return self

    @property
    def is_reviewed(self) -> bool:
        """Whether rights-gated content may be considered at all."""
        return self.review_status in REVIEWED_STATES

    def full_text_denial(self) -> str | None:
        """Why these rights do not permit a statement's full text, or ``None`` when they do.

        The one rule for full text, shared by the resource gate and every tool answer: reviewed rights
        (``approved`` or ``provisional_operator_approved``) and ``allowFullText``.
        """
        if not self.is_reviewed:
            return f"the package's rights review status is {self.review_status!r}, not approved"
        if not self.allow_full_text:
            return "the package's rights do not allow full text (allowFullText is false)"
        return None


def rights_beyond(claimed: RightsPolicy, granted: RightsPolicy) -> list[tuple[str, str]]:
    """Each field where ``claimed`` is wider than ``granted`` allows, as ``(wire name, why)``; empty when it is not.

    The rule a manifest's rights are held to against its bound profile's default rights: every allow flag,
    the review state and the derivatives policy may be narrower, never wider; the source licence, licence URI
    and attribution are the profile's own words (``granted`` with its text made package-safe, as every build
    writes it), never replaced.
    """
    wider: list[tuple[str, str]] = []
    for attribute, name in ALLOW_FLAGS:
        if getattr(claimed, attribute) and not getattr(granted, attribute):
            wider.append((name, "is true where the profile grants false"))
    if REVIEW_ORDER[claimed.review_status] > REVIEW_ORDER[granted.review_status]:
        wider.append(("reviewStatus", f"is {claimed.review_status!r}, above the profile's {granted.review_status!r}"))
    if DERIVATIVES_ORDER[claimed.allow_generated_derivatives] > DERIVATIVES_ORDER[granted.allow_generated_derivatives]:
        wider.append(
            (
                "allowGeneratedDerivatives",
                f"is {claimed.allow_generated_derivatives!r}, wider than the profile's "
                f"{granted.allow_generated_derivatives!r}",
            )
        )
    for attribute, name in (
        ("source_license", "sourceLicense"),
        ("license_uri", "licenseUri"),
        ("attribution_statement", "attributionStatement"),
    ):
        stated, own = getattr(claimed, attribute), getattr(granted, attribute)
        if stated != (safe_text(own) if own is not None else None):
            wider.append((name, "differs from the profile's"))
    return wider


def license_name(rights: RightsPolicy) -> str:
    """The licence a citation names: ``CC BY 4.0`` from a Creative Commons ``licenseUri``, else ``sourceLicense``.

    Only a URI that names a Creative Commons licence or public-domain tool is read (licences by kind and
    version, with a jurisdiction port in capitals: ``…/by/3.0/us/`` is ``CC BY 3.0 US``); anything else
    keeps the package's own words verbatim, so no licence is ever guessed.
    """
    match = _CC_URI.fullmatch(rights.license_uri or "")
    if match is None:
        return rights.source_license
    kind, version, port = match["kind"].lower(), match["version"], match["port"]
    if match["family"].lower() == "publicdomain":
        if kind not in _CC_TOOLS:
            return rights.source_license
        name = f"{_CC_TOOLS[kind]} {version}"
    else:
        name = f"CC {kind.upper()} {version}"
    return f"{name} {port.upper()}" if port else name
