"""The RightsPolicy contract shared by interpretation profiles and package manifests."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from kgfegmcp.core.models import ContractModel

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

#: Whether hosts may run generated-derivative workflows on a package: only ``allowed`` lets them. ``prohibited``
#: is the supplied packages' word for ``denied``; ``review_required`` is undecided, so closed until decided.
GeneratedDerivatives = Literal["allowed", "denied", "prohibited", "review_required"]

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
