"""CCSS ELA/Literacy from the SQLite file shipped in ``chiron-common-core-standards``.

Only the ``standards`` table of ``chiron_standards/data/standards.db`` is read, through a
read-only SQLite URI; the package's code (and its embedding/network dependencies) is never
imported. Every row becomes one item with its ASN hierarchy (``parent_id``), code, grade and
corestandards.org URL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgfegmcp.core.errors import ManifestBuildError
from kgfegmcp.core.identifiers import stable_uuid
from kgfegmcp.packages.manifest import SourceDataset, SourceInfo, UpstreamChecksum
from kgfegmcp.packages.records import HAS_CHILD, FrameworkNode
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources.graph_builder import PackageGraphBuilder, Provenance, identifier_from
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter, refuse_input
from kgfegmcp.sources.installed import InstalledFile, read_installed
from kgfegmcp.sources.registry_sources import CHIRON

DISTRIBUTION = CHIRON.distribution
IMPORT_NAME = CHIRON.import_name
INSTALL_HINT = CHIRON.install_hint
DB_PATH = "chiron_standards/data/standards.db"
PROFILE_ID = "us-ccss-ela-literacy"
PROFILE_VERSION = "2.1"
FRAMEWORK_PREFIX = "us-ccss-ela-literacy"
SUBJECT = "ELA"
LANGUAGE = "en"
PACKAGE_URI = "https://pypi.org/project/chiron-common-core-standards/"
PROJECT_URI = "https://github.com/JovannyEspinal/chiron-common-core-standards"
STANDARD_SET_API = "https://commonstandardsproject.com/api/v1/standard_sets/"
AUTHOR = "National Governors Association Center for Best Practices and Council of Chief State School Officers"
PROVIDER = "Common Standards Project / Achievement Standards Network (via chiron-common-core-standards)"
FRAMEWORK_NAME = "Common Core State Standards for English Language Arts & Literacy"
COLUMNS = (
    "id",
    "notation_short",
    "notation_full",
    "description",
    "grade",
    "subject",
    "jurisdiction",
    "set_id",
    "depth",
    "position",
    "parent_id",
    "statement_label",
    "source_url",
)
#: ASN rows without a statement label are headings; their depth says which kind.
HEADING_TYPES = {0: "Strand", 1: "Cluster"}
PLACEHOLDER = "Placeholder"


def _statement_type(row: Mapping[str, Any]) -> str:
    label = row["statement_label"]
    if label:
        return str(label)
    if row["notation_short"] is None and int(row["depth"]) in HEADING_TYPES:
        return HEADING_TYPES[int(row["depth"])]
    if row["notation_short"] is None:
        return PLACEHOLDER
    raise ManifestBuildError(f"{DB_PATH}: row {row['id']} has a code but no statement label; its type is unknown.")


def read_rows(installed: InstalledFile) -> list[dict[str, Any]]:
    """Rows of the ``standards`` table in document order (grade set, then position)."""
    uri = installed.path.resolve().as_uri() + "?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise ManifestBuildError(f"{DB_PATH} cannot be opened read-only: {exc}") from None
    try:
        connection.row_factory = sqlite3.Row
        available = {str(r["name"]) for r in connection.execute("PRAGMA table_info(standards)")}
        missing = [c for c in COLUMNS if c not in available]
        if missing:
            raise ManifestBuildError(
                f"{DB_PATH} of {DISTRIBUTION} {installed.version} lacks standards columns {missing}.",
                hint=f"Install the pinned version ({INSTALL_HINT}).",
            )
        query = f"SELECT {', '.join(COLUMNS)} FROM standards ORDER BY grade, set_id, position, id"
        return [dict(row) for row in connection.execute(query)]
    except sqlite3.Error as exc:
        raise ManifestBuildError(f"{DB_PATH} cannot be read: {exc}") from None
    finally:
        connection.close()


@dataclass(frozen=True, slots=True)
class CcssDataset:
    """The verified ``standards`` rows of one installed chiron release, and how entities cite them."""

    installed: InstalledFile
    rows: list[dict[str, Any]]

    @classmethod
    def load(cls) -> CcssDataset:
        """Read the SQLite data file (verified against its wheel RECORD); refuse an empty one."""
        installed = read_installed(IMPORT_NAME, DISTRIBUTION, DB_PATH, INSTALL_HINT)
        rows = read_rows(installed)
        if not rows:
            raise ManifestBuildError(f"{DB_PATH} of {DISTRIBUTION} {installed.version} has no standards.")
        return cls(installed, rows)

    def dataset_ref(self) -> dict[str, str]:
        """Which dataset release a provenance record refers to."""
        return {"name": DISTRIBUTION, "version": self.installed.version}

    def locator(self, row: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        """Where one row is in the data file."""
        return {
            "datasetFile": DB_PATH,
            "table": "standards",
            "rowId": row["id"],
            "standardSet": row["set_id"],
            "standardSetUri": f"{STANDARD_SET_API}{row['set_id']}",
            "position": row["position"],
            **extra,
        }

    def provenance(self, row: Mapping[str, Any], **extra: Any) -> Provenance:
        """A source-asserted provenance record of one row (``extra`` adds to its locator)."""
        return {
            "epistemicStatus": "source_asserted",
            "dataset": self.dataset_ref(),
            "locator": self.locator(row, **extra),
        }


class CcssSource(SourceImporter[CcssDataset]):
    """``--source ccss``: one English package of CCSS ELA/Literacy statements with their hierarchy."""

    name = "ccss"

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[CcssDataset]:
        """Read the installed SQLite data file."""
        refuse_input(self.name, source_input, "the installed chiron-common-core-standards data file")
        report("reading the chiron-common-core-standards SQLite file")
        yield CcssDataset.load()

    def map(self, source: CcssDataset, profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        """One package content, of every row."""
        report("building the CCSS ELA package")
        return [map_package(source, profiles)]


def map_package(dataset: CcssDataset, profiles: ProfileRepository) -> PackageContent:
    """Every row an item under its ASN parent (a row whose parent is missing hangs from the root, reported)."""
    installed, rows = dataset.installed, dataset.rows
    subjects = {str(r["subject"]) for r in rows}
    if subjects != {SUBJECT}:
        raise ManifestBuildError(
            f"{DB_PATH} holds subjects {sorted(subjects)}; this importer and its profile cover {SUBJECT} only."
        )
    grades = sorted({str(r["grade"]) for r in rows})
    span = f"{int(grades[0])}" if len(grades) == 1 else f"{int(grades[0])}-{int(grades[-1])}"
    framework_id = identifier_from(f"{FRAMEWORK_PREFIX}-grades-{span}", "framework id")
    snapshot_id = identifier_from(f"chiron-{installed.version}", "snapshot id")
    profile = profiles.load(PROFILE_ID, PROFILE_VERSION)
    rights = profile.profile.default_rights
    jurisdictions = sorted({str(r["jurisdiction"]) for r in rows})
    title = f"{FRAMEWORK_NAME} (grades {span.replace('-', ' to ')})"
    root = stable_uuid(framework_id, "framework")
    builder = PackageGraphBuilder(
        framework_id,
        profile,
        FrameworkNode(
            identifier=root,
            case_identifier_uuid=root,
            name=title,
            jurisdiction="; ".join(jurisdictions),
            academic_subject=SUBJECT,
            in_language=LANGUAGE,
            author=AUTHOR,
            provider=PROVIDER,
            license=rights.source_license,
            attribution_statement=rights.attribution_statement,
            case_identifier_uri="http://www.corestandards.org/ELA-Literacy/",
        ),
        {
            "epistemicStatus": "source_asserted",
            "dataset": dataset.dataset_ref(),
            "locator": {
                "datasetFile": DB_PATH,
                "table": "standards",
                "standardSets": sorted({r["set_id"] for r in rows}),
            },
        },
    )
    ids: dict[str, str] = {}
    for row in rows:
        provenance = dataset.provenance(row)
        if row["source_url"]:
            provenance["locator"]["sourceUrl"] = row["source_url"]
        ids[str(row["id"])] = builder.add_item(
            f"asn/{row['id']}",
            description=str(row["description"]),
            statement_type=_statement_type(row),
            provenance=provenance,
            grades=[str(row["grade"])],
            statement_code=row["notation_short"] or None,
            academic_subject=SUBJECT,
            in_language=LANGUAGE,
            case_identifier_uri=row["source_url"] or None,
            details={
                "asn": {
                    "id": row["id"],
                    "notationFull": row["notation_full"],
                    "statementLabel": row["statement_label"],
                    "depth": row["depth"],
                    "standardSet": row["set_id"],
                    "position": row["position"],
                }
            },
        )
    for row in rows:
        child = ids[str(row["id"])]
        parent_key = row["parent_id"]
        edge = dataset.provenance(row, field="parent_id")
        if parent_key is None:
            builder.link(HAS_CHILD, builder.root_id, child, edge)
        elif str(parent_key) in ids:
            builder.link(HAS_CHILD, ids[str(parent_key)], child, edge)
        else:
            builder.link(HAS_CHILD, builder.root_id, child, edge, unresolved_status="unresolvedRootFallback")
            builder.add_unresolved(
                f"parent/{row['id']}",
                {
                    "status": "unresolvedRootFallback",
                    "reference": str(parent_key),
                    "sourceEntityId": child,
                    "sourceText": str(row["description"]),
                    "reason": "parent_id names no row of the standards table; the statement hangs from the root",
                    "locator": dataset.locator(row, field="parent_id"),
                },
            )
    source = SourceInfo(
        name=DISTRIBUTION,
        version=installed.version,
        uri=PROJECT_URI,
        upstream_checksums=(
            (UpstreamChecksum(file=DB_PATH, algorithm="sha256", value=installed.record_sha256),)
            if installed.record_sha256
            else ()
        ),
        datasets=(
            SourceDataset(
                name=DISTRIBUTION,
                version=installed.version,
                uri=f"{PACKAGE_URI}{installed.version}/",
                license="data CC BY 3.0 US (ASN via the Common Standards Project); CCSS © 2010 NGA Center/CCSSO; "
                "code Apache-2.0",
                role="CCSS ELA/Literacy statements, hierarchy, codes and URLs (SQLite standards table only)",
            ),
        ),
    )
    return builder.content(
        snapshot_id=snapshot_id, title=title, subject_slug="ela-literacy", source=source, rights=rights
    )
