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
names are kept (:meth:`CasePackage.unknown_fields`) so the build reports them instead of losing them
silently.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from kgfegmcp.errors import ManifestBuildError, echo, problem_list

#: A ``\\u`` escape of a UTF-16 surrogate (paired escapes are text; a lone one is not).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
#: Wire names of the JSON types, for messages about a value of the wrong type.
_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "number"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)
#: What a standard pydantic error type means for a CASE member.
_EXPECTED: Mapping[str, str] = {
    "string_type": "a string",
    "int_type": "an integer",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
}


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


class _CaseRecord(BaseModel):
    """Strict types, CASE member names; unknown members kept aside (``model_extra``), never read."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    def unknown_members(self) -> list[str]:
        """Names of members neither CASE version defines, in source order."""
        return list(self.model_extra or {})


class CaseDocument(_CaseRecord):
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


class CaseItem(_CaseRecord):
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


class CaseAssociation(_CaseRecord):
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


class CasePackage(_CaseRecord):
    """``CFPackage``: one CFDocument with its items, associations and definitions."""

    document: CaseDocument = Field(alias="CFDocument")
    items: list[CaseItem] | None = Field(None, alias="CFItems")
    associations: list[CaseAssociation] | None = Field(None, alias="CFAssociations")
    definitions: CaseDefinitions | None = Field(None, alias="CFDefinitions")
    rubrics: list[Any] | None = Field(None, alias="CFRubrics")
    extensions: dict[str, Any] | None = None

    def unknown_fields(self) -> dict[str, int]:
        """``collection.member`` → how many records carry it, for members neither CASE version defines."""
        found: Counter[str] = Counter(f"CFPackage.{name}" for name in self.unknown_members())
        found.update(f"CFDocument.{name}" for name in self.document.unknown_members())
        for collection, records in (("CFItems", self.items or []), ("CFAssociations", self.associations or [])):
            for record in records:
                found.update(f"{collection}.{name}" for name in record.unknown_members())
        return dict(sorted(found.items()))


def _path(location: Sequence[int | str]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _problem(error: Mapping[str, Any]) -> str:
    where = _path(error["loc"])
    if error["type"] == "missing":
        return f"{where} is required"
    expected = _EXPECTED.get(error["type"])
    if expected is not None:
        return f"{where} must be {expected}, not {json_type(error.get('input'))}"
    return f"{where} {error['msg']}"


def parse_cf_package(data: bytes, label: str, hint: str | None = None) -> CasePackage:
    """The CFPackage in ``data`` (UTF-8 JSON, optionally wrapped as ``{"CFPackage": …}``).

    ``label`` names the input in messages (``CASE input x.json``); ``hint`` is the next action for
    input that is not JSON or not a CFPackage at all. Everything fails as ``manifest_build_error``.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ManifestBuildError(f"{label} is not UTF-8 text ({exc.reason}).", hint=hint) from None
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ManifestBuildError(
            f"{label} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}).", hint=hint
        ) from None
    except RecursionError:
        # json.loads recurses once per level; a CFPackage is a few levels deep, so this is not one.
        raise ManifestBuildError(
            f"{label} is JSON nested too deeply to decode; a CASE CFPackage is only a few levels deep.", hint=hint
        ) from None
    except ValueError:  # not a syntax error: the only other refusal is an integer over the digit limit
        raise ManifestBuildError(
            f"{label} holds a JSON number with more than {sys.get_int_max_str_digits()} digits.", hint=hint
        ) from None
    if _SURROGATE_ESCAPE.search(text):
        # "\ud800" decodes to a lone surrogate, which is not text and could not be written to the package;
        # escaped pairs (an emoji written as two escapes) are fine, and re-encoding tells the two apart.
        try:
            json.dumps(decoded, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ManifestBuildError(
                f"{label} holds a \\u escape of a lone surrogate, which is not text.", hint=hint
            ) from None
    if isinstance(decoded, dict) and isinstance(decoded.get("CFPackage"), dict):
        decoded = decoded["CFPackage"]
    if not isinstance(decoded, dict) or not isinstance(decoded.get("CFDocument"), dict):
        names = sorted(decoded)[:8] if isinstance(decoded, dict) else []
        members = f" with members {', '.join(echo(name) for name in names)}" if names else ""
        found = f"a JSON object{members}" if isinstance(decoded, dict) else f"a JSON {json_type(decoded)}"
        raise ManifestBuildError(f"{label} is not a CFPackage: it has no CFDocument object (found {found}).", hint=hint)
    try:
        package = CasePackage.model_validate(decoded)
    except ValidationError as exc:
        problems = [_problem(error) for error in exc.errors(include_url=False)]
        raise ManifestBuildError(
            f"{label} has {len(problems)} member(s) of a type CASE 1.0/1.1 does not allow: {problem_list(problems)}.",
            hint="Ask the publisher to correct the CFPackage; the build never converts a value to another type.",
        ) from None
    document = package.document
    if not (document.identifier or "").strip() or not (document.title or "").strip():
        raise ManifestBuildError(f"{label}: the CFDocument needs an identifier and a title.")
    return package
