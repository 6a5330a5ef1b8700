"""The parts of ``scripts/fuzz.py``: the server it fuzzes, the hostile requests it sends and the invariants it
checks, and the ``package-tampering`` class (damaged and forged packages against the three gates)."""
