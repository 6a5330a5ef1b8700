"""Graph packages: manifest, closed-tree loader, delivery decoder, validator, lifecycle, writer."""
