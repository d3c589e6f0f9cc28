"""JUnit XML, the one writer every JUnit reporter (``--junit``) uses: suites of test
cases, a case failing (or erring) with a type, a message and a body. It writes what
Jenkins, GitLab and GitHub's JUnit readers take: totals on ``<testsuites>``;
``time``, ``timestamp`` and ``hostname`` on a suite; ``classname``, ``name``, ``time``
and ``file`` on a case (each when known), and a case that could not run as an
``<error>``, not a ``<failure>``. The document is UTF-8 and well-formed whatever the
text holds: every text passes the one sanitizer (``replay.style.sanitize``, newlines
kept), which shows a C0 control, DEL, a C1 or bidi control and U+FFFE/U+FFFF (none of
which a person should meet raw in a CI page, and the C0 controls and noncharacters XML
1.0 cannot carry at all) as a visible ``\\xNN`` / ``\\uNNNN`` escape, and a lone
surrogate as U+FFFD."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal
from xml.etree import ElementTree as ET

from replay.output import utf8
from replay.style import sanitize


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


def xml_text(text: str) -> str:
    """``text`` as the report shows it, well-formed XML (see the module docstring)."""
    return sanitize(text, keep_newlines=True)


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
