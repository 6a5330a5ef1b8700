"""Interpretation profiles: curriculum semantics as versioned data, not code."""

from kgfegmcp.profiles.model import InterpretationProfile, ProfileRef
from kgfegmcp.profiles.repository import LoadedProfile, ProfileRepository

__all__ = ["InterpretationProfile", "LoadedProfile", "ProfileRef", "ProfileRepository"]
