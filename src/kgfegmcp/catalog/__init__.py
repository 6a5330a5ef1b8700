"""The accepted catalog: one served package per accepted package, and the selectors that return them."""

from kgfegmcp.catalog.catalog import AcceptedCatalog, ExcludedPackage
from kgfegmcp.catalog.loader import CatalogLoader
from kgfegmcp.catalog.served import PackageServer, ServedPackage

__all__ = ["AcceptedCatalog", "CatalogLoader", "ExcludedPackage", "PackageServer", "ServedPackage"]
