"""The rule registry: every rule declared once, beside the code that emits it, and
collected; findings cite rules by their constant, never by a string."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import replay
from replay.check.engine import B7, INTERNAL
from replay.check.registry import RULES, rule_kind, rule_order
from replay.findings import Rule, Severity
from replay.log.header import A1, C1
from replay.log.scan import A6
from replay.todo.rules import P1

PACKAGE = Path(replay.__file__).parent


def _modules() -> list[str]:
    names = [".".join(("replay", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
             for p in PACKAGE.rglob("*.py")]
    return sorted(n for n in names if n not in ("replay.__main__", "replay.pytest_plugin"))


def test_every_rule_constant_of_the_package_is_registered_once() -> None:
    declared: dict[str, Rule] = {}
    for name in _modules():
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, Rule):
                assert declared.setdefault(value.id, value) is value, f"{value.id} is declared twice"
    assert declared == dict(RULES)


def test_rules_are_declared_where_they_fire() -> None:
    """No module spells a rule id as a string to make a finding: ``Finding("A6", …)``
    or ``_err("A6", …)`` would hide the rule from a search for its constant."""
    quoted_id = re.compile(r'''["'](?:A|B|C|D|T|P)\d+["']''')
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "Rule"):
                for arg in node.args:
                    source = ast.unparse(arg)
                    assert not quoted_id.fullmatch(source), f"{path}:{node.lineno}: rule id {source} as a string"


def test_only_a_rule_makes_a_finding() -> None:
    """Findings are made by their rule (``A6.error(...)``), so each cites a declared
    rule; besides ``Rule`` itself (and ``restored``, the audit cache's copy of a finding
    it kept), only the fold of many findings of one rule into a count (the pass's and
    the engine's judgement of damage) makes one, copying the rule of the findings it counts."""
    makers = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Finding":
                makers.add(path.relative_to(PACKAGE).as_posix())
    assert makers == {"findings.py", "check/engine.py", "check/passes.py"}


def test_listing_order_kinds_and_domains() -> None:
    ids = list(RULES)
    assert ids[:4] == ["INTERNAL", "IO", "LIMIT", "A1"]
    assert ids[ids.index("A9"):ids.index("B3") + 1] == ["A9", "A10", "B3"]  # by number, then series
    assert ids.index("D17") < ids.index("T1") < ids.index("P1")
    assert ids == sorted(ids, key=rule_order)
    assert (RULES["C1"], RULES["B7"], RULES["INTERNAL"], RULES["A6"], RULES["P1"]) == (C1, B7, INTERNAL, A6, P1)
    assert (C1.kind, C1.domain, B7.domain, A1.domain) == ("format", "session", "session", "storage")
    assert [rule_kind(r) for r in ("D4", "T3", "P1", "A1", "ZZ9")] == [
        "invariant", "invariant", "policy", "format", "format"]


def test_a_rule_makes_its_findings() -> None:
    f = A6.error("bad", 3, 2, "x/y", tail=True)
    assert (f.rule, f.severity, f.message, f.line, f.seq, f.type, f.tail, f.group) == (
        "A6", Severity.ERROR, "bad", 3, 2, "x/y", True, None)
    w = B7.warning("open", 9, group="g")
    assert (w.rule, w.severity, w.line, w.group) == ("B7", Severity.WARNING, 9, "g")
    p = P1.finding(Severity.POLICY, "what if", 4)
    assert (p.rule, p.severity, p.line) == ("P1", Severity.POLICY, 4)
