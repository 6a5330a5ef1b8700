"""A table of stable codes, each member declared with what it means: ``NAME = "wire_value", "description"``."""

from __future__ import annotations

from enum import StrEnum
from typing import Self


class DescribedCode(StrEnum):
    """A code table's base: a member's value is its stable wire string, and ``description`` what it means."""

    description: str

    def __new__(cls, value: str, description: str) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member
