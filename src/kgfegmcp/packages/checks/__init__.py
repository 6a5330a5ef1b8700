"""The package checks of the validation gate: small rule families, each declaring its finding codes.

``checklist.PACKAGE_CHECKS`` is the order they run in; ``context.CheckContext`` is what they share.
"""
