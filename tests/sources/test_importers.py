"""The importer template: every registered source follows it, and its steps run in order around an open source."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kgfegmcp.core.errors import ConfigurationError, ManifestBuildError
from kgfegmcp.packages.writer import PackageContent
from kgfegmcp.profiles.repository import ProfileRepository
from kgfegmcp.sources import SOURCE_IMPORTERS, load_importer
from kgfegmcp.sources.importer import ProgressCallback, SourceImporter


@pytest.mark.parametrize("name", sorted(SOURCE_IMPORTERS))
def test_every_registered_source_is_an_importer_under_its_own_name(name: str) -> None:
    importer = load_importer(name)
    assert isinstance(importer, SourceImporter)
    assert importer.name == name


def test_an_unknown_source_names_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="Use one of: asn, bncc, case, ccss, mext-code-table, nacca-pdf"):
        load_importer("edufi")


@pytest.mark.parametrize("name", ["bncc", "ccss"])
def test_importers_of_installed_data_refuse_an_input_file(name: str, tmp_path: Path, profiles_root: Path) -> None:
    steps: list[str] = []
    with pytest.raises(ManifestBuildError, match=f"The {name} source reads .*; it takes no input file"):
        load_importer(name).build(tmp_path / "input.json", ProfileRepository(profiles_root), steps.append)
    assert steps == []  # refused before anything is read


class _Recording(SourceImporter[list[str]]):
    """Records when its source opens and closes, and what its map step sees."""

    name = "recording"

    def __init__(self) -> None:
        self.events: list[str] = []

    @contextmanager
    def read(self, source_input: Path | None, report: ProgressCallback) -> Iterator[list[str]]:
        report("reading")
        self.events.append("open")
        try:
            yield self.events
        finally:
            self.events.append("closed")

    def map(self, source: list[str], profiles: ProfileRepository, report: ProgressCallback) -> list[PackageContent]:
        report("mapping")
        source.append("mapped while open")
        return []


def test_build_maps_the_source_while_it_is_open_then_closes_it(profiles_root: Path) -> None:
    importer, steps = _Recording(), []
    assert importer.build(None, ProfileRepository(profiles_root), steps.append) == []
    assert importer.events == ["open", "mapped while open", "closed"]
    assert steps == ["reading", "mapping"]
