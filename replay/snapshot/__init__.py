"""Snapshots: scenarios, the keyless run, goldens, diffs, refresh, and conformance."""

PENDING_FOLDER = ".replay/pending"
"""Where ``replay check --pending`` (and the pytest plugin under CI) puts pending goldens,
and where ``review``, ``accept`` and ``reject`` look for them, unless told otherwise."""
