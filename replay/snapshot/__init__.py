"""Snapshots: scenarios, the keyless run, goldens, diffs, refresh, and conformance."""
