"""A CASE ``CFPackage`` as read: pydantic models of the CASE 1.0 and 1.1 JSON bindings.

Publishers' packages differ in a few known ways, and each is accepted as what it is, never coerced:

- ``educationLevel`` (CFItem) and ``subject`` (CFDocument) as one string or a list of strings (the
  CASE 1.0 binding allows both; a string is one value and is never split);
- ``CFPackageURI`` (CFDocument) as a URI string or a link object ``{title, identifier, uri}``;
- ``null`` or no member at all for an optional field;
- what CASE 1.1 adds: ``caseVersion`` and ``frameworkType`` (CFDocument), ``subject``/``subjectURI``
  on items, ``notes`` on associations, ``targetType`` on node links, ``CFRubrics`` and ``extensions``.

Any other type is a ``manifest_build_error`` naming the field (``CFItems[3].educationLevel must be a
string or a list of strings, not number``). Members that neither version defines are not read; their
names are kept (:meth:`~kgfegmcp.sources.case.reader.CasePackageReader.unknown_fields`) so the build
reports them instead of losing them silently. The models are filled record by record by
:mod:`kgfegmcp.sources.case.reader`.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
#: Wire names of the JSON types, for messages about a value of the wrong type.
_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "number"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def json_type(value: object) -> str:
    """The JSON type name of a decoded value (``null``, ``boolean``, ``number``, …)."""
    if value is None:
        return "null"
    for python_type, name in _JSON_TYPES:
        if isinstance(value, python_type):
            return name
    return type(value).__name__


def _one_or_many_strings(value: object) -> object:
    """Admit a string or a list of strings (kept in the shape the source used); refuse the rest in one error."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(entry, str) for entry in value):
        return value
    raise PydanticCustomError(
        "case_strings", "must be a string or a list of strings, not {found}", {"found": _found(value)}
    )


def _found(value: object) -> str:
    if isinstance(value, list):
        odd = next((entry for entry in value if not isinstance(entry, str)), None)
        return f"an array holding a {json_type(odd)}"
    return json_type(value)


class LinkUri(BaseModel):
    """CASE ``LinkURI``: a reference to another CASE object (members optional here; checked where used)."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    title: str | None = None
    identifier: str | None = None
    uri: str | None = None


class NodeLink(LinkUri):
    """CASE ``LinkGenURI``: an association's origin or destination (1.1 adds ``targetType``)."""

    target_type: str | None = Field(None, alias="targetType")


def _uri_or_link(value: object) -> object:
    """``CFPackageURI``: admit a URI string (seen from some publishers) or the specified link object."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict) and all(
        isinstance(value.get(key), str | None) for key in ("title", "identifier", "uri")
    ):
        return value
    raise PydanticCustomError(
        "case_link",
        "must be a URI string or a link object with string title, identifier and uri, not {found}",
        {"found": json_type(value)},
    )


# The check runs first and names the accepted shapes once; the plain union then only builds the value.
OneOrManyStrings = Annotated[str | list[str] | None, BeforeValidator(_one_or_many_strings)]
UriOrLink = Annotated[str | LinkUri | None, BeforeValidator(_uri_or_link)]


class CaseRecord(BaseModel):
    """Strict types, CASE member names; unknown members kept aside (``model_extra``), never read."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    def unknown_members(self) -> list[str]:
        """Names of members neither CASE version defines, in source order."""
        return list(self.model_extra or {})


class CaseDocument(CaseRecord):
    """``CFDocument`` (``CFPckgDocument``): the framework."""

    identifier: str | None = None
    uri: str | None = None
    creator: str | None = None
    title: str | None = None
    last_change_date_time: str | None = Field(None, alias="lastChangeDateTime")
    official_source_url: str | None = Field(None, alias="officialSourceURL")
    publisher: str | None = None
    description: str | None = None
    subject: OneOrManyStrings = None
    subject_uri: list[LinkUri] | None = Field(None, alias="subjectURI")
    language: str | None = None
    version: str | None = None
    adoption_status: str | None = Field(None, alias="adoptionStatus")
    status_start_date: str | None = Field(None, alias="statusStartDate")
    status_end_date: str | None = Field(None, alias="statusEndDate")
    license_uri: LinkUri | None = Field(None, alias="licenseURI")
    notes: str | None = None
    package_uri: UriOrLink = Field(None, alias="CFPackageURI")
    framework_type: str | None = Field(None, alias="frameworkType")
    case_version: str | None = Field(None, alias="caseVersion")
    extensions: dict[str, Any] | None = None

    @property
    def subjects(self) -> list[str]:
        """Non-blank subjects, whichever shape the source used."""
        values = [self.subject] if isinstance(self.subject, str) else self.subject or []
        return [value for value in values if value.strip()]


class CaseItem(CaseRecord):
    """``CFItem`` (``CFPckgItem``): one statement."""

    identifier: str | None = None
    full_statement: str | None = Field(None, alias="fullStatement")
    alternative_label: str | None = Field(None, alias="alternativeLabel")
    item_type: str | None = Field(None, alias="CFItemType")
    uri: str | None = None
    human_coding_scheme: str | None = Field(None, alias="humanCodingScheme")
    list_enumeration: str | None = Field(None, alias="listEnumeration")
    abbreviated_statement: str | None = Field(None, alias="abbreviatedStatement")
    concept_keywords: list[str] | None = Field(None, alias="conceptKeywords")
    concept_keywords_uri: LinkUri | None = Field(None, alias="conceptKeywordsURI")
    notes: str | None = None
    subject: list[str] | None = None
    subject_uri: list[LinkUri] | None = Field(None, alias="subjectURI")
    language: str | None = None
    education_level: OneOrManyStrings = Field(None, alias="educationLevel")
    item_type_uri: LinkUri | None = Field(None, alias="CFItemTypeURI")
    license_uri: LinkUri | None = Field(None, alias="licenseURI")
    status_start_date: str | None = Field(None, alias="statusStartDate")
    status_end_date: str | None = Field(None, alias="statusEndDate")
    last_change_date_time: str | None = Field(None, alias="lastChangeDateTime")
    document_uri: LinkUri | None = Field(None, alias="CFDocumentURI")
    extensions: dict[str, Any] | None = None

    @property
    def education_levels(self) -> list[str]:
        """Distinct education levels in source order; a string is one level (never split)."""
        values = [self.education_level] if isinstance(self.education_level, str) else self.education_level or []
        return list(dict.fromkeys(values))


class CaseAssociation(CaseRecord):
    """``CFAssociation`` (``CFPckgAssociation``): a typed link between two nodes."""

    identifier: str | None = None
    association_type: str | None = Field(None, alias="associationType")
    sequence_number: int | None = Field(None, alias="sequenceNumber")
    uri: str | None = None
    origin: NodeLink | None = Field(None, alias="originNodeURI")
    destination: NodeLink | None = Field(None, alias="destinationNodeURI")
    grouping_uri: LinkUri | None = Field(None, alias="CFAssociationGroupingURI")
    last_change_date_time: str | None = Field(None, alias="lastChangeDateTime")
    notes: str | None = None
    document_uri: LinkUri | None = Field(None, alias="CFDocumentURI")
    extensions: dict[str, Any] | None = None


class CaseLicense(BaseModel):
    """``CFLicense``: the licence text a document's ``licenseURI`` points at."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    identifier: str | None = None
    title: str | None = None
    license_text: str | None = Field(None, alias="licenseText")


class CaseDefinitions(BaseModel):
    """``CFDefinitions``: only the licences are read."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    licenses: list[CaseLicense] | None = Field(None, alias="CFLicenses")


def nonblank(value: Any) -> str | None:
    """A non-blank string, verbatim; anything else is absent."""
    return value if isinstance(value, str) and value.strip() else None


def canonical_uuid(value: str) -> str | None:
    """Lowercase hyphenated UUID, or ``None`` when ``value`` is not one."""
    if isinstance(value, str) and _CANONICAL_UUID.fullmatch(value):
        return value  # already canonical (most CASE identifiers): no need to parse it
    try:
        return str(uuid.UUID(value.strip()))
    except (ValueError, AttributeError):
        return None
