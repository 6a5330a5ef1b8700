"""The CFPackage a CASE package is built from: its reader, where its bytes came from, and how entities cite them.

This is the CASE importer's source model (what its *read* step yields): every provenance record of the
package names the same input (file name or URL) and the SHA-256 of the bytes read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from kgfegmcp.sources.case.document import CaseDocument
from kgfegmcp.sources.case.reader import CasePackageReader
from kgfegmcp.sources.graph_builder import Provenance


@dataclass(frozen=True, slots=True)
class CaseInputOrigin:
    """Where the CFPackage bytes came from: a local file (by name) or a publisher's CASE API URL.

    Provenance names it (every entity's ``dataset`` and ``locator``, the manifest's source dataset),
    so an accepted package says which bytes it was built from.
    """

    label: str
    dataset_name: str
    file_name: str | None = None
    url: str | None = None
    retrieved_url: str | None = None
    hint: str | None = None

    @classmethod
    def file(cls, path: Path) -> CaseInputOrigin:
        """A file given to ``packages build --source case``; provenance keeps its name, never its path."""
        return cls(label=f"CASE input {path.name}", dataset_name=path.name, file_name=path.name)

    @classmethod
    def fetched(cls, url: str, retrieved_url: str, hint: str | None = None) -> CaseInputOrigin:
        """A CFPackage fetched from ``url`` (answered by ``retrieved_url`` after redirects)."""
        name = "CFPackages/" + (url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "package")
        return cls(
            label=f"CASE response from {url}",
            dataset_name=name[:256],
            url=url,
            retrieved_url=retrieved_url if retrieved_url != url else None,
            hint=hint,
        )

    def where(self) -> dict[str, str]:
        """The locator member naming the input (``file`` or ``url``)."""
        return {"file": self.file_name} if self.file_name is not None else {"url": self.url or ""}


def no_deadline() -> None:
    """The checkpoint of a build no deadline bounds (``packages build``)."""


@dataclass(frozen=True, slots=True)
class CaseDataset:
    """One CFPackage being read (:class:`CasePackageReader`) and the origin of its bytes.

    ``checkpoint`` is called before every read of the file and between the steps of the mapping: a
    fetch's deadline, which raises once it has passed, so that the build shares the download's bound.
    """

    reader: CasePackageReader
    origin: CaseInputOrigin
    checkpoint: Callable[[], None] = no_deadline

    @classmethod
    def read(
        cls, stream: IO[bytes], origin: CaseInputOrigin, checkpoint: Callable[[], None] = no_deadline
    ) -> CaseDataset:
        """Open the CFPackage in ``stream`` (seekable: it is read once per pass) with its first pass."""
        return cls(CasePackageReader(stream, origin.label, origin.hint, checkpoint=checkpoint), origin, checkpoint)

    @property
    def document(self) -> CaseDocument:
        """The CFDocument (the reader refuses a package without one)."""
        document = self.reader.document
        assert document is not None
        return document

    @property
    def label(self) -> str:
        """How messages name the input."""
        return self.origin.label

    @property
    def sha256(self) -> str:
        """SHA-256 of every byte read."""
        return self.reader.sha256

    def dataset_ref(self) -> dict[str, str]:
        """Which bytes a provenance record refers to."""
        dataset = {"name": "CASE CFPackage", **self.origin.where(), "sha256": self.sha256}
        if self.origin.retrieved_url is not None:
            dataset["retrievedUrl"] = self.origin.retrieved_url
        return dataset

    def provenance(self, **locator: Any) -> Provenance:
        """A source-asserted provenance record; ``locator`` members that are ``None`` are left out."""
        return {
            "epistemicStatus": "source_asserted",
            "dataset": self.dataset_ref(),
            "locator": {**self.origin.where(), **{k: v for k, v in locator.items() if v is not None}},
        }
