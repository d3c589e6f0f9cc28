"""A finding's copies: ``Finding.with_severity`` (made as its fields, the damage's hot
path) is ``dataclasses.replace`` of the same finding, whatever it holds."""

from __future__ import annotations

import dataclasses
import pickle

from hypothesis import given
from hypothesis import strategies as st

from replay.findings import Finding, Severity

_TEXT = st.none() | st.text(max_size=20)
_FIELDS = {"rule": st.text(max_size=4), "severity": st.sampled_from(list(Severity)), "message": st.text(max_size=40),
           "line": st.none() | st.integers(), "seq": st.none() | st.integers(), "type": _TEXT, "tail": st.booleans(),
           "group": _TEXT, "fingerprint": _TEXT, "events": st.integers(1, 10**6)}
_FINDINGS = st.builds(Finding, **_FIELDS)


def test_every_field_of_a_finding_is_drawn() -> None:
    """A field added to ``Finding`` is one these properties must draw (else a copy that
    forgets it would pass them)."""
    assert list(_FIELDS) == [f.name for f in dataclasses.fields(Finding)]


@given(_FINDINGS)
def test_a_finding_pickles_as_itself(found: Finding) -> None:
    back = pickle.loads(pickle.dumps(found))
    assert [getattr(back, f.name) for f in dataclasses.fields(Finding)] == \
        [getattr(found, f.name) for f in dataclasses.fields(Finding)]


@given(_FINDINGS, st.sampled_from(list(Severity)), _TEXT)
def test_a_finding_with_another_severity_is_its_replace(found: Finding, severity: Severity,
                                                        message: str | None) -> None:
    want = dataclasses.replace(found, severity=severity, message=found.message if message is None else message)
    got = found.with_severity(severity, message)
    assert got == want and [getattr(got, f.name) for f in dataclasses.fields(Finding)] == \
        [getattr(want, f.name) for f in dataclasses.fields(Finding)]
