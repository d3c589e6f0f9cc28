"""A finding's copies: ``Finding.with_severity`` (made as its fields, the damage's hot
path) is ``dataclasses.replace`` of the same finding, whatever it holds."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from replay.findings import Finding, Severity

_TEXT = st.none() | st.text(max_size=20)
_FINDINGS = st.builds(Finding, st.text(max_size=4), st.sampled_from(list(Severity)), st.text(max_size=40),
                      st.none() | st.integers(), st.none() | st.integers(), _TEXT, st.booleans(), _TEXT, _TEXT,
                      st.integers(1, 10**6))


@given(_FINDINGS, st.sampled_from(list(Severity)), _TEXT)
def test_a_finding_with_another_severity_is_its_replace(found: Finding, severity: Severity,
                                                        message: str | None) -> None:
    want = dataclasses.replace(found, severity=severity, message=found.message if message is None else message)
    got = found.with_severity(severity, message)
    assert got == want and [getattr(got, f.name) for f in dataclasses.fields(Finding)] == \
        [getattr(want, f.name) for f in dataclasses.fields(Finding)]
