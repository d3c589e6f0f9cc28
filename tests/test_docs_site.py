"""The documentation site's references are generated from the code, never retyped.

The CLI reference (docs/reference/cli.md) is mkdocs-click's directive on ``replay.cli:main``:
rendered as the site's build renders it, it says each command's help as click has it, and a
help text changed in the code changes the page. The rule reference is made by the build's hook
(docs/hooks/rule_pages.py) from the rule catalogue: a page per rule, what ``replay rules
--format markdown ID`` prints, and a rule whose words change in the code changes its page.
Nothing under docs/ holds either. ``nox -s docs`` builds the whole site strictly.
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import re
import shlex
from types import ModuleType

import click
import markdown
import pytest
import yaml

from replay.check.registry import RULES
from replay.cli import main
from replay.report.rules import rule_markdown
from tests.helpers import REPO

DOCS = REPO / "docs"
CONFIG = REPO / "mkdocs.yml"


def _hook() -> ModuleType:
    """The build's hook module, loaded from its file as MkDocs loads it."""
    spec = importlib.util.spec_from_file_location("rule_pages", DOCS / "hooks" / "rule_pages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cli_page() -> str:
    """docs/reference/cli.md rendered with the Markdown extensions mkdocs.yml names (mkdocs-click's
    directive among them), as text."""
    extensions = [e if isinstance(e, str) else next(iter(e)) for e in _config()["markdown_extensions"]]
    assert "mkdocs-click" in extensions
    page = markdown.markdown((DOCS / "reference" / "cli.md").read_text(encoding="utf-8"),
                             extensions=[e for e in extensions if e != "toc"])
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _config() -> dict[str, object]:
    class Loader(yaml.SafeLoader):
        pass

    # mkdocs.yml may hold MkDocs' own tags (!ENV, !relative); none matters here.
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    config = yaml.load(CONFIG.read_text(encoding="utf-8"), Loader=Loader)
    assert isinstance(config, dict)
    return config


def test_the_cli_page_holds_only_the_directive_and_no_command_s_words() -> None:
    source = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert "::: mkdocs-click\n    :module: replay.cli\n    :command: main\n    :prog_name: replay\n" in source
    for command in main.commands.values():
        assert command.help is not None and command.help.split("\n")[0] not in source, command.name


def test_the_cli_reference_says_every_command_s_help_as_click_has_it() -> None:
    page = _cli_page()
    words = " ".join(page.split())
    context = click.Context(main, info_name="replay")
    for name, command in main.commands.items():
        assert f"replay {name}" in page
        # the first paragraph of the help, in its words (Markdown makes `code` of backticks)
        assert " ".join((command.help or "").split("\n\n")[0].replace("`", "").split()) in words, name
        for param in command.get_params(context):
            if isinstance(param, click.Option):
                assert all((f in page) != param.hidden for f in param.opts), (name, param.opts)
    assert "--max-decompressed-bytes" not in page  # a hidden alias stays out of the reference


def test_a_help_text_changed_in_the_code_changes_the_cli_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    changed = "Compare two sessions; this sentence exists only in this test."
    assert changed not in _cli_page()
    monkeypatch.setattr(main.commands["diff"], "help", changed)
    assert changed in _cli_page()


def test_the_rule_reference_is_a_page_per_rule_of_the_catalogue() -> None:
    hook = _hook()
    pages = hook.pages()
    assert list(pages) == [hook.INDEX, *(f"reference/rules/{rule_id}.md" for rule_id in RULES)]
    for rule in RULES.values():
        assert pages[hook.rule_path(rule.id)] == rule_markdown(rule)
        assert f"| [{rule.id}]({rule.id}.md) | {rule.kind} | {rule.domain} |" in pages[hook.INDEX]
    assert not (DOCS / "reference" / "rules").exists()  # nothing of it is written under docs/


def test_a_rule_s_words_changed_in_the_code_change_its_page(monkeypatch: pytest.MonkeyPatch) -> None:
    hook = _hook()
    changed = "Every seq is checked; this sentence exists only in this test."
    assert changed not in hook.pages()[hook.rule_path("A7")]
    rules = dict(RULES)
    rules["A7"] = dataclasses.replace(RULES["A7"], explanation=changed)
    monkeypatch.setattr(hook, "RULES", rules)
    assert changed in hook.pages()[hook.rule_path("A7")]


def test_the_nav_gets_a_page_per_rule_where_it_names_the_rule_index() -> None:
    hook = _hook()
    nav = hook._expand(_config()["nav"])
    [reference] = [entry["Reference"] for entry in nav if "Reference" in entry]
    [rules] = [entry["Audit rules"] for entry in reference if "Audit rules" in entry]
    assert rules == [hook.INDEX, *({rule_id: f"reference/rules/{rule_id}.md"} for rule_id in RULES)]


def test_every_page_under_docs_is_in_the_nav() -> None:
    """A page the nav leaves out is a warning of the strict build; this says which, sooner."""
    listed: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str):
            listed.append(node)
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for item in node.values():
                walk(item)

    walk(_config()["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(p for p in listed if not p.startswith("reference/rules/")) == pages


def test_the_readme_links_only_what_the_checkout_holds() -> None:
    """The README is read on the repository's page, where the site's generated pages do not exist."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert "docs/tutorial.md" in targets
    assert [t for t in targets if "://" not in t and not (REPO / t).is_file()] == []


def test_the_presenter_how_to_runs_as_written(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """docs/how-to/presenter.md's script, verbatim, from the checkout's root: it prints what the page says."""
    page = (DOCS / "how-to" / "presenter.md").read_text(encoding="utf-8")
    script = page.split("## Try it on a log\n", 1)[1].split("```python\n", 1)[1].split("```\n", 1)[0]
    [said] = re.findall(r"^It prints `(.*?)`", page, flags=re.MULTILINE)
    monkeypatch.chdir(REPO)
    exec(compile(script, "presenter.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == said + "\n"


def _documented_command_lines() -> list[tuple[str, list[str]]]:
    """Every ``replay …`` command line of the README's and the pages' code blocks (shell, CI
    configurations), up to a shell operator; the synopses (``[OPTION]``, ``a|b``, ``ARG...``) left out."""
    found = []
    for page in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```(?:sh|yaml|groovy)\n(.*?)```", text, flags=re.DOTALL):
            for line in block.splitlines():
                command = re.search(r"(?:^|[\s'/])replay (\S.*)$", line)
                if command is None or line.lstrip().startswith("#"):
                    continue
                argv = shlex.split(re.split(r"\s(?:&&|\|\||>|\|)\s", command[1])[0].rstrip("'"), comments=True)
                if argv and not any(a.startswith("[") or "|" in a or a.endswith("...") for a in argv):
                    found.append((page.relative_to(REPO).as_posix(), argv))
    return found


def test_every_documented_command_line_parses() -> None:
    """Each command line the documentation shows names a command and options that exist, with
    values they take (a path the page names need not exist here)."""
    lines = _documented_command_lines()
    assert len(lines) > 40 and {argv[0] for _, argv in lines} >= {"check", "review", "accept", "audit", "new", "view"}
    for page, argv in lines:
        command = main.commands.get(argv[0])
        assert command is not None, (page, argv)
        try:
            command.make_context(f"replay {argv[0]}", argv[1:]).close()
        except click.BadParameter as error:
            param = error.param
            assert param is not None and isinstance(param.type, click.Path) and param.type.exists, (page, argv, error)
            assert "does not exist" in error.format_message(), (page, argv, error)
        except click.ClickException as error:
            raise AssertionError(f"{page}: replay {shlex.join(argv)}: {error.format_message()}") from None
