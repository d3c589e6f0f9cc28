"""Scenario running: the scenario format and its keyless run, the artefacts rendered
from a run (one producer per golden file), check and refresh against the golden
engine, the import of harness sessions, and conformance with the harness's goldens."""

SCENARIOS = "scenarios"
"""The folder of scenario folders, in a project (``replay check`` and the pytest plugin's default)."""
