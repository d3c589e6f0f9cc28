"""replay: load, audit, replay and snapshot-test deepseek-harness session logs."""

__version__ = "0.1.0"
"""The version, defined here only: the package's metadata (pyproject.toml), ``replay --version``
and the pending manifests read it."""
