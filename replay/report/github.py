"""GitHub Actions workflow commands (``::error file=…,line=…,title=…::message``), the
one writer of annotations for every report. Values are sanitized first (newlines kept,
then encoded as the command syntax requires), so log text cannot inject a command or
drive the CI log's terminal."""

from __future__ import annotations

from replay.style import sanitize


def _data(text: str) -> str:
    return sanitize(text, keep_newlines=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, message: str, *, file: str | None = None, line: int | None = None,
               title: str | None = None) -> str:
    """One workflow command line (no newline); ``level`` is error, warning or notice."""
    props = []
    if file is not None:
        props.append(f"file={_property(file)}")
    if line is not None:
        props.append(f"line={line}")
    if title is not None:
        props.append(f"title={_property(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}"
