"""The checkout the tests run from: the one repository-root constant of every test and support module."""

from __future__ import annotations

from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
