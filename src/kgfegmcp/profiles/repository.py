"""Loads versioned profiles from ``<root>/<profile-id>/<version>.json`` and hashes them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from kgfegmcp.core.errors import ProfileValidationError, filesystem_error
from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.core.identifiers import identifier_problem
from kgfegmcp.core.models import sha256_hex
from kgfegmcp.core.package_files import PackageFile, PackageFileError, PackageJsonError, parse_package_json
from kgfegmcp.core.staged_files import staged_beside
from kgfegmcp.profiles.model import PROFILE_VERSION_PATTERN, InterpretationProfile, ProfileRef
from kgfegmcp.profiles.pipeline_profile import PipelineProfile, is_pipeline_profile

MAX_PROFILE_BYTES = 1024 * 1024
#: The file name of a profile in the construction pipeline's layout, ``<profile-id>/<version>/profile.json``.
PIPELINE_PROFILE_FILE = "profile.json"


@dataclass(frozen=True, slots=True)
class LoadedProfile:
    """A validated profile with the SHA-256 of the exact bytes it was read from."""

    profile: InterpretationProfile
    sha256: str

    @property
    def ref(self) -> ProfileRef:
        """The binding a manifest records for this profile."""
        return ProfileRef(profile_id=self.profile.profile_id, version=self.profile.version, sha256=self.sha256)


@dataclass(frozen=True, slots=True)
class DerivedProfile(LoadedProfile):
    """A profile a build derived from its source and stored in the profiles root, for the operator to review.

    ``derivation`` says what each part was derived from, as (part, how) pairs; ``written`` is false when
    the same bytes were already there (an earlier build of the same vocabulary).
    """

    path: Path
    written: bool
    derivation: tuple[tuple[str, str], ...]


def parse_profile(data: bytes, source: str = "profile") -> InterpretationProfile:
    """Validate profile bytes, this server's or the construction pipeline's (read as this server's); the error
    names every offending field, or the key the JSON repeats."""
    try:
        document = parse_package_json(data)
    except PackageJsonError as exc:
        raise ProfileValidationError(
            f"Profile {source} is invalid: the document {exc}.", hint="Correct the profile file."
        ) from None
    try:
        if is_pipeline_profile(document):
            return PipelineProfile.model_validate_json(data).interpretation()
        return InterpretationProfile.model_validate_json(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            field = ".".join(str(part) for part in error["loc"]) or "(document)"
            problems.append(f"{field}: {error['msg']}")
        raise ProfileValidationError(
            f"Profile {source} is invalid: " + "; ".join(problems[:20]),
            hint="Correct the named fields in the profile file.",
        ) from None


class ProfileRepository:
    """The profiles root, then the root of derived profiles; each file is read and validated once.

    A build stores what it derives in the derived root (the profiles root when there is none); a profile
    of the profiles root wins over a derived one of the same id and version.
    """

    def __init__(self, root: Path, derived_root: Path | None = None) -> None:
        self._root = root
        self._derived_root = derived_root
        self._cache: dict[tuple[str, str], LoadedProfile] = {}

    @property
    def root(self) -> Path:
        """The profiles root directory."""
        return self._root

    @property
    def roots(self) -> tuple[Path, ...]:
        """Where profiles are looked up, in order."""
        return (self._root,) if self._derived_root is None else (self._root, self._derived_root)

    def path_of(self, profile_id: str, version: str) -> Path:
        """The file of one profile version (see :meth:`_located`)."""
        root, relative = self._located(profile_id, version)
        return root / relative

    def _located(self, profile_id: str, version: str) -> tuple[Path, str]:
        """The root and relative path of one profile version: in the first root that holds it, this server's
        layout (``<id>/<version>.json``) before the pipeline's (``<id>/<version>/profile.json``), else where the
        profiles root would hold it in this server's layout."""
        layouts = (f"{profile_id}/{version}.json", f"{profile_id}/{version}/{PIPELINE_PROFILE_FILE}")
        found = ((root, relative) for root in self.roots for relative in layouts if (root / relative).is_file())
        return next(found, (self._root, layouts[0]))

    def load(self, profile_id: str, version: str) -> LoadedProfile:
        """Load one exact profile version; raise ``profile_validation_error`` when unusable."""
        key = (profile_id, version)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if identifier_problem(profile_id, "profile id") or not re.fullmatch(PROFILE_VERSION_PATTERN, version):
            raise ProfileValidationError(f"No valid profile reference {profile_id}/{version}.")
        try:
            root, relative = self._located(profile_id, version)
            with PackageFile.open(root, relative) as handle:
                if handle.size > MAX_PROFILE_BYTES:
                    raise ProfileValidationError(f"Profile {profile_id}/{version} exceeds 1 MiB.")
                data = handle.read_all()
        except PackageFileError as exc:
            if exc.code == FindingCode.MISSING_ARTIFACT:
                raise ProfileValidationError(
                    f"Profile {profile_id} version {version} does not exist.",
                    hint="Add it as <profile-id>/<version>.json under the profiles directory (KGFEGMCP_PROFILES_DIR).",
                ) from None
            raise ProfileValidationError(
                f"Profile file {profile_id}/{version}.json {exc.reason}.",
                hint="Make it a readable regular file under the profiles directory (KGFEGMCP_PROFILES_DIR).",
            ) from None
        profile = parse_profile(data, f"{profile_id}/{version}")
        if profile.profile_id != profile_id or profile.version != version:
            raise ProfileValidationError(
                f"Profile file {profile_id}/{version}.json declares "
                f"profileId={profile.profile_id!r} version={profile.version!r}.",
                hint="Make profileId and version match the file's location.",
            )
        loaded = LoadedProfile(profile=profile, sha256=sha256_hex(data))
        self._cache[key] = loaded
        return loaded

    def store(self, data: bytes) -> tuple[LoadedProfile, Path, bool]:
        """Add the profile file ``data`` at ``<profile-id>/<version>.json``; ``(profile, path, written)``.

        A file already there is never replaced: the same bytes are taken as they are (``written`` false),
        other bytes are refused. The file appears whole or not at all (written aside, then linked).
        """
        profile = parse_profile(data, "to store")
        key = (profile.profile_id, profile.version)
        store_root = self.roots[-1]
        path = store_root / profile.profile_id / f"{profile.version}.json"
        action = f"Could not write profile {profile.profile_id}/{profile.version} under {store_root}"
        written = False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with staged_beside(path, data, f".{profile.version}.") as staging:
                try:
                    os.link(staging, path)
                    written = True
                except FileExistsError:
                    pass
        except OSError as exc:
            raise filesystem_error(exc, action) from None
        if not written:
            self._cache.pop(key, None)
            existing = self.load(*key)
            if existing.sha256 != sha256_hex(data):
                raise ProfileValidationError(
                    f"Profile {profile.profile_id}/{profile.version} already exists in {store_root} with other "
                    "content; a profile file is never replaced.",
                    hint="Move that file aside if nothing is bound to it, then build again.",
                )
        loaded = LoadedProfile(profile=profile, sha256=sha256_hex(data))
        self._cache[key] = loaded
        return loaded, path, written

    def list_refs(self) -> list[tuple[str, str]]:
        """Every ``(profile_id, version)`` present on disk in any root, sorted."""
        found: set[tuple[str, str]] = set()
        for root in self.roots:
            if root.is_dir():
                for folder in root.iterdir():
                    if folder.is_dir():
                        found.update((folder.name, f.stem) for f in folder.glob("*.json"))
                        found.update((folder.name, f.parent.name) for f in folder.glob(f"*/{PIPELINE_PROFILE_FILE}"))
        return sorted(found)
