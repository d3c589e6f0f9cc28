"""The shape of the package: one direction of flow, and an architecture page (docs/architecture.md) that tells the truth
about the tree.

The import graph is built from the source (every ``import`` and ``from … import`` of a
``replay`` module, wherever it stands: inside a function or under ``TYPE_CHECKING``
too, since a deferred import is still a dependency)."""

from __future__ import annotations

import ast
import functools
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

from tests.helpers import REPO

PACKAGE = REPO / "replay"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The replay modules a file imports (``from replay.x import y`` counts ``replay.x.y``
    when that is a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "replay")
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}: relative import"
            if node.module.split(".")[0] == "replay":
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules)
    return found


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Module → the replay modules it imports (read once per test session)."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: _imports(path, modules) for name, path in paths.items()}


def _child(module: str, package: str) -> str | None:
    """The direct child of ``package`` that holds ``module`` (``None`` if outside)."""
    if not module.startswith(package + "."):
        return None
    return f"{package}.{module[len(package) + 1:].split('.')[0]}"


def level_graph(graph: Mapping[str, Iterable[str]], package: str) -> dict[str, set[str]]:
    """The import graph between the direct children of ``package`` (its modules and
    subpackages, each taken whole)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for source, targets in graph.items():
        a = _child(source, package)
        for target in targets:
            b = _child(target, package)
            if a is not None and b is not None and a != b:
                edges[a].add(b)
    return edges


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        part.append(top)
                        if top == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    graph = {"replay.check.registry": {"replay.todo.rules"}, "replay.todo.rules": {"replay.check.rules"}}
    assert cycles(level_graph(graph, "replay")) == [["replay.check", "replay.todo"]]


def _packages() -> list[str]:
    return sorted(_module_name(p) for p in PACKAGE.rglob("__init__.py"))


@pytest.mark.parametrize("package", _packages())
def test_no_import_cycle_between_the_parts_of_a_package(package: str) -> None:
    assert cycles(level_graph(import_graph(), package)) == []


def test_the_flow_has_one_direction() -> None:
    edges = level_graph(import_graph(), "replay")
    importers = {source for source, targets in edges.items() if "replay.cli" in targets}
    assert importers == {"replay.__main__"}  # nothing but `python -m replay` imports the CLI
    order = ["replay.log", "replay.check", "replay.project", "replay.render", "replay.view", "replay.export",
             "replay.goldens", "replay.scenarios", "replay.report"]
    for i, stage in enumerate(order):
        assert not edges.get(stage, set()) & set(order[i + 1:]), f"{stage} imports a later stage"
    assert edges["replay.check"] >= {"replay.todo"} and "replay.check" not in edges.get("replay.todo", set())


RENDER_MAY_NOT_IMPORT = (
    # files, streams and processes: the edges
    "os", "io", "pathlib", "shutil", "tempfile", "signal", "subprocess", "socket", "mmap", "fcntl", "multiprocessing",
    "webbrowser", "replay.fs", "replay.output", "replay.console", "replay.terminal", "replay.parallel",
    "replay.cluster", "replay.signals", "replay.view",
    # the readers of files, folders, archives and URLs
    "replay.log.source", "replay.log.reader", "replay.log.discover", "replay.log.harness", "replay.log.remote",
    "replay.log.archive", "replay.log.bounded", "replay.log.walk", "replay.log.zstd",
    # the audit itself (its findings and the rule catalogue are data a page shows; running one is not)
    "replay.check.engine", "replay.check.audit", "replay.check.runner", "replay.check.baseline",
    "replay.check.explain", "replay.check.cache",
)


def _every_import(path: Path) -> set[str]:
    """Every module a file imports, the standard library's too (``from a.b import c``: ``a.b``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def test_rendering_is_pure() -> None:
    """``replay.render`` opens no file, handles no signal and runs no audit: it is
    functions of events (and of an audit's result); ``replay.view`` opens the logs,
    runs the audit and writes the pages."""
    found = sorted(f"{path.relative_to(REPO)}: {name}" for path in sorted((PACKAGE / "render").rglob("*.py"))
                   for name in _every_import(path)
                   if any(name == banned or name.startswith(banned + ".") for banned in RENDER_MAY_NOT_IMPORT))
    assert found == []


def test_the_purity_test_sees_a_deferred_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from replay.fs import Tree\n    import os.path\n", encoding="utf-8")
    assert {"replay.fs", "replay.fs.Tree", "os.path"} <= _every_import(module)


def test_every_banned_module_of_the_purity_test_exists() -> None:
    """A module renamed or moved would silently leave the list (and rendering free to import it again)."""
    import importlib.util

    missing = [name for name in RENDER_MAY_NOT_IMPORT if importlib.util.find_spec(name) is None]
    assert missing == []


ARCHITECTURE = REPO / "docs" / "architecture.md"


def _layout_tree() -> tuple[set[str], set[str]]:
    """The paths the layout block of docs/architecture.md names: those under ``replay/`` and the others."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text.split("## Layout\n", 1)[1].split("```\n", 2)[1]
    listed: set[str] = set()
    trail: list[str] = []
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0, f"layout: odd indentation: {line!r}"
        level = indent // 2
        assert level <= len(trail), f"layout: {line!r} is indented under nothing"
        trail = [*trail[:level], line.split()[0]]
        listed.add("".join(trail))
    inside = {p for p in listed if p.startswith("replay/")}
    return inside, listed - inside


def test_the_documented_layout_is_the_tree() -> None:
    inside, outside = _layout_tree()
    tree = {"replay/"}
    for path in PACKAGE.rglob("*"):
        if "__pycache__" in path.parts or path.name == "__init__.py":
            continue
        relative = path.relative_to(REPO).as_posix()
        if path.is_dir():
            tree.add(relative + "/")
        elif path.suffix in (".py", ".js", ".css", ".json", ".toml"):
            tree.add(relative)
    assert sorted(inside - tree) == [], "docs/architecture.md lists what does not exist"
    assert sorted(tree - inside) == [], "docs/architecture.md's layout omits these"
    assert all((REPO / p).exists() for p in outside), outside


GOLDEN_ENGINE_MAY_NOT_IMPORT = ("replay.log", "replay.check", "replay.render", "replay.agent", "replay.todo",
                                "replay.project", "replay.scenarios")


def test_the_golden_engine_knows_nothing_of_harness_logs_or_scenarios() -> None:
    """``replay.goldens`` (store, pending, review, select, diff, compare) is the snapshot
    engine alone, as insta's library is apart from cargo-insta: scenario running uses
    it, never the other way round."""
    edges = level_graph(import_graph(), "replay")
    assert not edges.get("replay.goldens", set()) & set(GOLDEN_ENGINE_MAY_NOT_IMPORT)
    assert "replay.goldens" in edges.get("replay.scenarios", set())


_COMMANDS = re.compile(r"\breplay (audit|check|refresh|review|accept|reject|new|render|view|export|plan|conformance|"
                       r"schema|rules|diff|completion)\b")


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    """The string literals of a module that are not docstrings (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value


def test_no_library_message_spells_a_command_itself() -> None:
    """Every command a message suggests is spelt by ``replay.hints`` (a renamed command
    or option is one change there); the command line (its commands and shared options) spells its own."""
    found = [f"{path.relative_to(REPO)}:{line}: {text!r}" for path in sorted(PACKAGE.rglob("*.py"))
             if path.name not in ("cli.py", "options.py", "hints.py")
             for line, text in _strings(path) if _COMMANDS.search(text)]
    assert found == []


def test_every_error_in_the_exit_table_is_a_class_that_exists() -> None:
    """``replay.console.ERRORS`` is keyed by where a class is defined; a class moved to
    another module would silently fall out of the table (and exit with a traceback)."""
    import importlib

    from replay.console import ERRORS

    missing = []
    for key in ERRORS:
        module, _, name = key.rpartition(".")
        found = getattr(importlib.import_module(module), name, None)
        if not (isinstance(found, type) and issubclass(found, Exception) and found.__module__ == module):
            missing.append(key)
    assert missing == []



MAX_MODULE_LINES = 800
"""The most lines a module of ``replay/`` may have: one a reader can hold."""


def test_no_module_is_longer_than_a_reader_can_hold() -> None:
    long = sorted(f"{path.relative_to(REPO)}: {n} lines" for path in PACKAGE.rglob("*.py")
                  if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES)
    assert long == []
