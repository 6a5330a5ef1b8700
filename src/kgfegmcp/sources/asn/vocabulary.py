"""The shipped ASN data: the generic vocabulary and the table of known publishers.

ASN is one schema for many publishers, so what differs between them is data, never a branch in code:

- ``shipped/asn/vocabulary.json``: which ``asn:statementLabel`` values are supporting material folded into
  their parent's notes (``noteLabels``), the type of a statement without a label, which text predicate
  holds a statement's text, the roles of common labels and the ASN education levels, and the parts of a
  profile derived from a document (rights, disclosures);
- ``shipped/asn/publishers.json``: publishers recognised by the IRIs of their documents (a regular
  expression with named groups), each with its framework and snapshot id templates, its names and rights,
  and its own labels and education levels (ACARA's MRAC: ``australia-acara-v9-{subject}@mrac-{year}-{month}``).
"""

from __future__ import annotations

import re
import string
from functools import cache
from typing import Annotated, Literal, TypeVar

from pydantic import Field, ValidationError, model_validator

from kgfegmcp.core.config import SHIPPED_DIR
from kgfegmcp.core.errors import ConfigurationError
from kgfegmcp.core.models import ContractModel
from kgfegmcp.core.rights import RightsPolicy
from kgfegmcp.profiles.model import Disclosure, SearchFacet
from kgfegmcp.sources.layout_files import Regex

ASN_DATA_DIR = SHIPPED_DIR / "asn"
#: Which predicate holds a statement's text: ASN's ``dcterms:description`` or MRAC's ``dcterms:title``.
TextPredicate = Literal["description", "title"]
#: What a publisher's id and title templates may name besides the named groups of its IRI pattern.
TEMPLATE_FIELDS = frozenset({"subject", "subjectTitle"})
_Model = TypeVar("_Model", bound=ContractModel)


class LabelRole(ContractModel):
    """The role statements of one ``asn:statementLabel`` have in a profile derived for their document."""

    source_type: str = Field(min_length=1, max_length=128)
    role: Literal["standard", "grouping"]


class EducationLevel(ContractModel):
    """A known education level IRI and the grade label a derived profile gives it."""

    iri: str = Field(min_length=1, max_length=2000)
    source_label: str = Field(min_length=1, max_length=64)
    facet: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)
    display: str = Field(min_length=1, max_length=128)
    order: int = Field(ge=0, le=1000)
    aliases: tuple[Annotated[str, Field(min_length=1, max_length=64)], ...] = ()


class PublisherRights(ContractModel):
    """The rights a publisher states outside its documents (its terms of use)."""

    source_license: str = Field(min_length=1, max_length=4000)
    license_uri: str | None = Field(None, max_length=2000)
    attribution_statement: str = Field(min_length=1, max_length=8000)


class Publisher(ContractModel):
    """One publisher of ASN documents, recognised by the IRI of a document's top node."""

    publisher_id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    name: str = Field(min_length=1, max_length=256)
    iri_pattern: Regex
    framework_id: str = Field(min_length=1, max_length=200)
    snapshot_id: str = Field(min_length=1, max_length=200)
    title: str = Field(min_length=1, max_length=400)
    version: str = Field(min_length=1, max_length=64)
    jurisdiction: str = Field(min_length=1, max_length=256)
    author: str = Field(min_length=1, max_length=256)
    provider: str = Field(min_length=1, max_length=256)
    uri: str | None = Field(None, max_length=2000)
    dataset_name: str = Field(min_length=1, max_length=256)
    text_predicates: tuple[TextPredicate, ...] | None = Field(None, min_length=1)
    #: Labels whose ``asn:statementNotation`` is an internal key, not a code a teacher searches: kept in source
    #: details, not given as the statement code.
    uncoded_labels: tuple[str, ...] = ()
    rights: PublisherRights | None = None
    statement_types: tuple[LabelRole, ...] = ()
    education_levels: tuple[EducationLevel, ...] = ()

    @model_validator(mode="after")
    def _templates_name_known_fields(self) -> Publisher:
        known = TEMPLATE_FIELDS | set(re.compile(self.iri_pattern).groupindex)
        for name in ("framework_id", "snapshot_id", "title", "version"):
            for _text, field, _spec, _conversion in string.Formatter().parse(getattr(self, name)):
                if field is not None and field not in known:
                    raise ValueError(f"{name} names {{{field}}}, which neither the IRI pattern nor the document gives")
        return self

    def fields(self, iri: str) -> dict[str, str] | None:
        """The named groups of ``iri`` when this publisher's pattern matches it, else ``None``."""
        match = re.match(self.iri_pattern, iri)
        return None if match is None else {k: v for k, v in match.groupdict().items() if v is not None}


class PublisherTable(ContractModel):
    """``shipped/asn/publishers.json``."""

    publishers: tuple[Publisher, ...]


class DerivedProfileParts(ContractModel):
    """What a profile derived from an ASN document takes from the vocabulary rather than the document."""

    in_language: str = Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
    search_facets: tuple[SearchFacet, ...] = ()
    rights: RightsPolicy
    disclosures: tuple[Disclosure, ...] = ()


class AsnVocabulary(ContractModel):
    """``shipped/asn/vocabulary.json``."""

    note_labels: tuple[str, ...]
    default_statement_type: str = Field(min_length=1, max_length=128)
    text_predicates: tuple[TextPredicate, ...] = Field(min_length=1)
    statement_types: tuple[LabelRole, ...]
    education_levels: tuple[EducationLevel, ...]
    derived_profile: DerivedProfileParts


def _load(name: str, model: type[_Model]) -> _Model:
    path = ASN_DATA_DIR / name
    try:
        return model.model_validate_json(path.read_bytes())
    except OSError:
        raise ConfigurationError(f"The shipped ASN data file {name} cannot be read.") from None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(document)'}: {error['msg']}" for error in exc.errors()[:10]
        )
        raise ConfigurationError(f"The shipped ASN data file {name} is invalid: {problems}") from None


@cache
def load_vocabulary() -> AsnVocabulary:
    """The shipped ASN vocabulary (read once)."""
    return _load("vocabulary.json", AsnVocabulary)


@cache
def load_publishers() -> PublisherTable:
    """The shipped table of known ASN publishers (read once)."""
    return _load("publishers.json", PublisherTable)


def match_publisher(iri: str | None) -> tuple[Publisher, dict[str, str]] | None:
    """The first publisher whose IRI pattern matches ``iri``, with the pattern's named groups."""
    if iri is None:
        return None
    for publisher in load_publishers().publishers:
        fields = publisher.fields(iri)
        if fields is not None:
            return publisher, fields
    return None
