"""The accepted catalog: immutable package runtimes and selectors."""

from kgfegmcp.catalog.catalog import AcceptedCatalog, ExcludedPackage, PackageRuntime
from kgfegmcp.catalog.loader import CatalogLoader

__all__ = ["AcceptedCatalog", "CatalogLoader", "ExcludedPackage", "PackageRuntime"]
