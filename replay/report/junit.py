"""JUnit XML, the one writer every JUnit reporter (``--junit``) uses: suites of test
cases, a case failing (or erring) with a type, a message and a body. It writes what
Jenkins, GitLab and GitHub's JUnit readers take: totals on ``<testsuites>``;
``time``, ``timestamp`` and ``hostname`` on a suite; ``classname``, ``name``, ``time``
and ``file`` on a case (each when known), and a case that could not run as an
``<error>``, not a ``<failure>``. The document is UTF-8 and well-formed whatever the
text holds: a character XML 1.0 cannot carry (a C0 control but tab, newline and
carriage return; U+FFFE, U+FFFF) is written as a visible ``\\xNN`` / ``\\uNNNN``
escape, a lone surrogate as U+FFFD."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from xml.etree import ElementTree as ET

from replay.output import utf8


@dataclass(frozen=True)
class Case:
    name: str
    failure: str | None = None
    """The failure's one-line message; ``None`` for a passing case."""
    details: str = ""
    kind: Literal["failure", "error"] = "failure"
    """``error``: the test could not run at all (JUnit's distinction)."""
    type: str | None = None
    time: float | None = None
    file: str | None = None


@dataclass
class Suite:
    name: str
    cases: list[Case] = field(default_factory=list)
    time: float | None = None
    timestamp: str | None = None
    """ISO 8601, when the suite started."""
    hostname: str | None = None


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _legal(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids made visible (see the module docstring)."""
    return _NOT_XML.sub(_legal, text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _count(cases: list[Case], kind: str) -> int:
    return sum(1 for c in cases if c.failure is not None and c.kind == kind)


def junit_xml(title: str, suites: list[Suite], time: float | None = None) -> bytes:
    every = [c for s in suites for c in s.cases]
    root = ET.Element("testsuites", name=xml_text(title), tests=str(len(every)), failures=str(_count(every, "failure")),
                      errors=str(_count(every, "error")))
    if time is not None:
        root.set("time", _seconds(time))
    for suite in suites:
        node = ET.SubElement(root, "testsuite", name=xml_text(suite.name), tests=str(len(suite.cases)),
                             failures=str(_count(suite.cases, "failure")), errors=str(_count(suite.cases, "error")))
        for key, value in (("time", None if suite.time is None else _seconds(suite.time)),
                           ("timestamp", suite.timestamp), ("hostname", suite.hostname)):
            if value is not None:
                node.set(key, xml_text(value))
        for case in suite.cases:
            element = ET.SubElement(node, "testcase", classname=xml_text(suite.name), name=xml_text(case.name))
            if case.time is not None:
                element.set("time", _seconds(case.time))
            if case.file is not None:
                element.set("file", xml_text(case.file))
            if case.failure is not None:
                outcome = ET.SubElement(element, case.kind)
                if case.type is not None:
                    outcome.set("type", xml_text(case.type))
                outcome.set("message", xml_text(case.failure))
                outcome.text = xml_text(case.details)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode", xml_declaration=False)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + utf8(body) + b"\n"
