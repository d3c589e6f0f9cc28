"""The code table (``replay.check.registry.CODES``) held to the code: a rule on the
table is named by the code of what the table says emits it, and a module names only
the rules the table gives to an emitter it belongs to."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import replay
from replay.check import registry
from replay.check.registry import CHECKERS, CODES, RULES
from replay.findings import Rule

PACKAGE = Path(replay.__file__).parent


def _module(path: Path) -> ModuleType:
    name = ".".join(("replay", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    return importlib.import_module(name)


def _named(module: ModuleType) -> set[str]:
    """The rules a module's code names (a ``Rule`` constant read, not its declaration)."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = getattr(module, node.id, None)
            if isinstance(value, Rule):
                found.add(value.id)
    return found


def _modules() -> list[ModuleType]:
    paths = sorted(PACKAGE.rglob("*.py"))
    return [_module(p) for p in paths if p.name != "__main__.py" and p != Path(registry.__file__)]


def test_every_rule_on_the_table_is_named_by_its_emitter() -> None:
    for rule_id, code in CODES.items():
        if code.emitter is None:
            continue
        assert any(rule_id in _named(m) for m in code.emitter.modules), \
            f"{rule_id} is on the table under {code.emitter.name}, whose code never names it"


def test_a_module_names_only_the_rules_of_its_emitters() -> None:
    for module in _modules():
        owned = {rule_id for rule_id, code in CODES.items()
                 if code.emitter is not None and module in code.emitter.modules}
        stray = _named(module) - owned
        assert not stray, f"{module.__name__} names {sorted(stray)}, which the table gives to another emitter"


def test_a_rule_nothing_emits_is_named_nowhere_and_has_no_example() -> None:
    silent = {rule_id for rule_id, code in CODES.items() if code.emitter is None}
    assert silent == {"D10", "D11", "D15", "D16", "D17"}
    for module in _modules():
        assert not _named(module) & silent, module.__name__
    assert all(not RULES[r].examples for r in silent)


def test_the_table_holds_each_declared_rule_once_and_its_checkers() -> None:
    declared = {r.id for m in _modules() for r in registry.declared_rules(m)}
    assert declared == set(CODES) == set(RULES)
    assert [c.__name__ for c in CHECKERS] == ["CoreChecker", "TodoChecker", "SingleActivePolicy"]
