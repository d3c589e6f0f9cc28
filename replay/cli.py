"""The ``replay`` command line. Each command parses its options, calls one library
function, and hands the result to a reporter of ``replay.report.registry`` (its
``--format`` choices are that registry's keys); the exit status is the result's own
``failed``. What a library function raises maps to an exit status and a message in
one table, ``replay.console.ERRORS``; Ctrl-C, standard output and progress bars are
``replay.console``'s too. The later stages (pydantic, deepdiff, the ACP presenters)
are imported inside the commands that use them: ``replay audit`` starts in half the
time."""

from __future__ import annotations

import io
import json
import os
import socket
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

import click

from replay import __version__
from replay.check.cache import CacheRequest
from replay.check.engine import Policy
from replay.check.registry import RULES
from replay.console import Group, OutputCopy, echo, progress, shows_bar, stdout
from replay.findings import Severity
from replay.fs import FsError, Tree, append_output, write_output
from replay.goldens import GOLDENS, PENDING_FOLDER
from replay.options import (
    audit_choice_options,
    cache_options,
    folder_tree,
    jobs_option,
    limit_options,
    limits_from,
    no_color_option,
    pending_options,
    says_a_line,
    scheduler_option,
    tree_options,
    workers_asked,
)
from replay.output import gathered, json_bytes
from replay.render.choices import DEFAULT_LOCALE, DEFAULT_PROFILE, LOCALES, PROFILE_NAMES, SURFACES, Locale
from replay.render.site_layout import DEFAULT_SITE, SITE_MARKER, SITE_NAMES
from replay.report.registry import AUDIT_FORMATS, CHECK_FORMATS, CONFORMANCE_FORMATS, RULE_FORMATS, RULE_HELP_FORMATS
from replay.scenarios import SCENARIOS
from replay.style import sanitize, style_for, use_color
from replay.todo.tool import TOOL_NAME, Config, tool_schema
from replay.words import counted

if TYPE_CHECKING:
    from replay.check.audit import Audit, AuditRequest
    from replay.check.engine import AuditResult
    from replay.goldens.pending import Workflow
    from replay.goldens.select import Selection
    from replay.report.audit import AuditReporter

_RECURSION_LIMIT = 10_000

def _selection(names: tuple[str, ...]) -> Selection:
    """The goldens the selectors name (``replay.goldens.select``; not an audit's rule selection)."""
    from replay.goldens.select import Selection

    return Selection.parse(names)


def _names_scenarios(text: str, scenarios_dir: Tree) -> bool:
    """Whether ``text`` read as a selector selects a scenario (``--pending NAME`` took a
    selector for its folder)."""
    from replay.goldens.select import Selector, SelectorError
    from replay.scenarios.check import scenario_names

    try:
        selector = Selector.parse(text)
    except SelectorError:
        return False
    return any(selector.wants_scenario(name) for name in scenario_names(scenarios_dir))


def _tree_args(scenarios_dir: Tree, goldens_dir: Tree) -> tuple[str, ...]:
    """The tree options as given, when not at their default: what a suggested command repeats."""
    args: list[str] = []
    if scenarios_dir.path != Path(SCENARIOS):
        args += ["--scenarios", str(scenarios_dir)]
    if goldens_dir.path != Path(GOLDENS):
        args += ["--goldens", str(goldens_dir)]
    return tuple(args)


# -- commands --------------------------------------------------------------------------------


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__)
def main() -> None:
    """Load, audit and replay deepseek-harness session logs."""
    # A parsed log value nests at most 1024 deep (orjson's limit; deeper records are
    # A6 findings). Renderers walk values recursively, which Python 3.11 does without
    # using the C stack: allow that depth instead of crashing at 1000.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))


def _audit_request(command: str, paths: tuple[str, ...], options: dict[str, Any], jobs: int | None,
                   scheduler: str | None, write_baseline: Path | None = None,
                   fingerprints: bool = False) -> AuditRequest:
    """The audit the options ask for (``audit_choice_options``, the caps, the workers)."""
    from replay.check.audit import AuditRequest

    if jobs is not None and scheduler is not None:
        raise click.UsageError("--jobs and --scheduler exclude each other: the cluster's workers do the work")
    if options.get("no_cache") and options.get("verify_cache"):
        raise click.UsageError("--no-cache excludes --verify-cache")
    # A command without the cache's options (export) keeps none.
    cache = None if options.get("no_cache", True) else CacheRequest(options["cache_dir"], options["verify_cache"])
    return AuditRequest(
        paths, Policy(options["policy"]), limits_from(options), options["select"] or None, options["ignore"] or None,
        options["min_severity"], tuple(Severity(s) for s in options["fail_on"]), options["baseline"],
        write_baseline, fingerprints, jobs=1 if scheduler is not None else workers_asked(command, jobs),
        scheduler=scheduler, cache=cache)


def _notes(command: str, notes: Iterable[str]) -> None:
    """What an audit says of itself (``AuditResult.notes``), on standard error."""
    for note in notes:
        click.echo(f"replay {command}: {sanitize(note)}", err=True)


def _passed_over(command: str) -> Callable[[str, str], None]:
    return lambda path, why: click.echo(f"replay {command}: passed over {sanitize(path)}: {sanitize(why)}", err=True)


@main.command(short_help="Re-validate session logs against the harness's rules.")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--format", "fmt", type=click.Choice(list(AUDIT_FORMATS)), default="text", show_default=True,
              help="Report format.")
@audit_choice_options
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Write the findings of this audit (after --select/--ignore) as a baseline to FILE; "
                                   "the exit status is then 0.")
@click.option("--no-fold", is_flag=True, help="text: list every finding under its file (no folding of repeats).")
@click.option("--statistics", is_flag=True, help="text: only the count of each rule's findings and files.")
@click.option("-l", "--files-with-findings", "files_only", is_flag=True,
              help="text: only the paths of the logs with findings, one per line (as grep -l), for scripts.")
@no_color_option
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a JUnit XML report to this file.")
@cache_options
@jobs_option("audits")
@scheduler_option
@limit_options
def audit(paths: tuple[str, ...], fmt: str, no_fold: bool, statistics: bool, files_only: bool, no_color: bool,
          junit: Path | None, jobs: int | None, scheduler: str | None, **options: Any) -> None:
    """Re-validate session logs against the harness's load rules and durable invariants.

    PATH is a log (.jsonl or .jsonl.zstd), a folder (searched recursively for
    logs whose first line is a session header), a .tar or .tar.zst archive of logs,
    - for standard input, or a URL fsspec opens (s3://bucket/prefix, gs://…,
    https://…; needs the remote extra): one named like a log or an archive is read,
    any other searched like a folder.
    Exit status: 0 no error findings, 1 findings that fail, 2 usage error.
    """
    from replay.check import quick
    from replay.check.audit import Audit
    from replay.report.audit import AuditJunit, AuditView

    if (no_fold or statistics or files_only) and fmt != "text":
        raise click.UsageError(f"--no-fold, --statistics and --files-with-findings shape the text report, not "
                               f"--format {fmt}")
    reporting = AUDIT_FORMATS[fmt]
    silent = not says_a_line(options, jobs, scheduler)  # a record says nothing on stderr: it may answer
    request = _audit_request("audit", paths, options, jobs, scheduler, options["write_baseline"],
                             reporting.needs_fingerprints)
    run = Audit(request, _passed_over("audit"))
    shown = reporting.shows_progress and not files_only and sys.stderr.isatty()
    count = run.listed() if shown else 0  # a bar needs the count; without one, logs stream as they are found
    held = shows_bar(count, shown)
    # A terminal is never answered from a record; what a record may answer is kept as it is written.
    written = OutputCopy(quick.MAX_RECORD_BYTES) if junit is None and silent and not sys.stdout.isatty() and \
        _may_keep_run(run) else None
    out = stdout(reporting.writes_json, written)
    text = io.StringIO() if held else None  # the report waits until the bar is done
    view = AuditView(fold=not no_fold, statistics=statistics, baseline=options["baseline"] is not None,
                     files_only=files_only, summary_only=options["write_baseline"] is not None)
    reporter = reporting(text or cast(TextIO, out), style_for(sys.stdout, no_color), view)
    reporter.start()
    with progress(count, "auditing", shown) as advance:
        result = run.run(reporter.unit, finished=advance)
    reporter.finish(result)
    if text is not None:
        out.write(text.getvalue())
    out.flush()
    _notes("audit", result.notes)
    report = written.value() if written is not None else None
    if report is not None:
        _keep_run(run, result, reporter, report)
    if junit is not None:
        write_output(junit, [AuditJunit.render(result)])
    if run.baseline_written is not None:
        click.echo(f"replay audit: wrote a baseline of {counted(run.baseline_written, 'finding')} to "
                   f"{sanitize(str(options['write_baseline']))}", err=True)
        sys.exit(0)
    sys.exit(1 if result.failed else 0)


def json_audit_request(argv: Sequence[str]) -> AuditRequest | None:
    """The request of ``replay ARGV`` (an audit) as the command makes it, when it writes
    a JSON report a run record may answer (``None``: not so; a usage error; help): what
    an amendment trusts, not a record's copy (``replay.report.amend``). Says nothing."""
    args = list(argv[1:])
    if argv[:1] != ["audit"] or {"-h", "--help"} & set(args[:args.index("--")] if "--" in args else args):
        return None
    try:
        params = dict(audit.make_context("audit", args).params)
        if params["fmt"] != "json" or params["junit"] is not None or \
                says_a_line(params, params["jobs"], params["scheduler"]):
            return None
        return _audit_request("audit", params["paths"], params, params["jobs"], params["scheduler"],
                              params["write_baseline"], AUDIT_FORMATS["json"].needs_fingerprints)
    except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        return None


def _may_keep_run(run: Audit) -> bool:
    """Whether this audit may keep a run record: its options leave room for one, and
    its command line is the one the process was started with (``replay.check.quick``)."""
    from replay.check import quick

    return quick.command_line is not None and quick.command_line == sys.argv[1:] and run.may_keep_record()


def _keep_run(run: Audit, result: AuditResult, reporter: AuditReporter, written: bytes) -> None:
    """Keep the run record that answers this command again while nothing changed
    (``replay.check.quick``): its report as a warm audit writes it, every log from the
    cache: the report ``written``, its closing (``AuditReporter.closing``) said again
    for that count (none is kept should it not end with its closing)."""
    from replay.check import quick
    from replay.report.audit import AuditJson

    seen, cache, command_line = run.seen(result, quick.started_ns), run.cache, quick.command_line
    if seen is None or cache is None or command_line is None:
        return
    closing = reporter.closing(result)
    if not written.endswith(closing):
        return
    head = written[:len(written) - len(closing)]
    report = head + reporter.closing(replace(result, cached=len(result.reports)))
    plan = b""
    if isinstance(reporter, AuditJson) and reporter.spans:  # its logs' entries can be made again
        from replay.report.amend import plan_bytes

        plan = plan_bytes(run.request, result, reporter.spans, len(head), frozenset(cache.found))
    data = quick.record_bytes(quick.seen_bytes(seen), 1 if result.failed else 0, report, plan)
    note = cache.keep_run(quick.run_key(command_line, os.environ, os.getcwd()), data)
    _notes("audit", () if note is None else (note,))


@main.command(short_help="Run scenarios keylessly and compare every golden.")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@tree_options
@click.option("--format", "fmt", type=click.Choice(list(CHECK_FORMATS)), default="text", show_default=True,
              help="Report format; github also appends a Markdown table to $GITHUB_STEP_SUMMARY when set.")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a JUnit XML report to this file.")
@click.option("--pending", is_flag=False, flag_value=PENDING_FOLDER, default=None, metavar="[DIR]",
              help=f"Write each golden that differs or is missing, as this run made it, to DIR/<scenario>/<artefact> "
                   f"with DIR/manifest.json, for `replay review` / `accept` (DIR: {PENDING_FOLDER}). Never writes "
                   "to the goldens.")
@click.option("--full", is_flag=True, help="Show every change with values untruncated.")
@click.option("-v", "--verbose", is_flag=True, help="text: name every scenario, not only those that failed.")
@click.option("--ci", "ci_flag", is_flag=True, help="As under CI (also when $CI is set): suggest no command that "
                                                    "writes goldens.")
@no_color_option
@jobs_option("runs")
def check(names: tuple[str, ...], scenarios_dir: Tree, goldens_dir: Tree, fmt: str, junit: Path | None,
          pending: str | None, full: bool, verbose: bool, ci_flag: bool, no_color: bool, jobs: int | None) -> None:
    """Run scenarios keylessly and compare every golden (all scenarios when none is named).

    A SELECTOR is SCENARIO or SCENARIO/ARTEFACT, shell-style globs allowed. Never writes
    to the goldens; with --pending, writes what differs to DIR instead. Exit status: 0
    all goldens match, 1 a golden differs, is missing or orphaned, or a scenario fails
    to run, 2 usage error.
    """
    from replay.hints import in_ci
    from replay.report.snapshot import CheckJunit, CheckStepSummary
    from replay.scenarios.check import CheckContext, check_scenarios, selected_scenarios

    selection = _selection(names)
    if pending is not None and not Path(pending).is_dir() and _names_scenarios(pending, scenarios_dir):
        shown = sanitize(pending)
        raise click.UsageError(f"--pending {shown}: {shown} is a scenario; write `replay check {shown} --pending` "
                               "(or --pending=DIR to name a folder)")
    count = len(selected_scenarios(scenarios_dir, selection))
    context = CheckContext(str(scenarios_dir), _tree_args(scenarios_dir, goldens_dir),
                           datetime.now(UTC).astimezone(), socket.gethostname(), ci_flag or in_ci(os.environ))
    reporting = CHECK_FORMATS[fmt]
    with progress(count, "checking", reporting.shows_progress) as advance:
        report = check_scenarios(scenarios_dir, goldens_dir, selection, full=full, jobs=workers_asked("check", jobs),
                                 context=context, on_scenario=lambda r: advance(r.name),
                                 pending=None if pending is None else folder_tree(Path(pending),
                                                                                   Path(PENDING_FOLDER)))
    echo(reporting.render(report, style_for(sys.stdout, no_color), verbose), reporting.writes_json)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt == "github" and summary:
        try:  # a failure to write it is said on stderr, never the check's verdict
            append_output(Path(summary), CheckStepSummary.render(report))
        except FsError as exc:
            click.echo(f"replay check: cannot append the step summary: {sanitize(str(exc))}", err=True)
    if junit is not None:
        write_output(junit, [CheckJunit.render(report)])
    sys.exit(1 if report.failed else 0)


@main.command(short_help="Rewrite the goldens that changed, keylessly.")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@tree_options
@click.option("--prune", is_flag=True, help="Delete orphaned golden files (no artefact produces them).")
@click.option("--dry-run", is_flag=True, help="Write nothing; show what would change, with its changes (exit 1 when "
                                                "something would).")
@click.option("--full", is_flag=True, help="--dry-run: show every change with values untruncated.")
@no_color_option
@jobs_option("runs")
def refresh(names: tuple[str, ...], scenarios_dir: Tree, goldens_dir: Tree, prune: bool, dry_run: bool, full: bool,
            no_color: bool, jobs: int | None) -> None:
    """Rewrite the goldens that changed, keylessly: the scenario's script or recording
    plays the model, the tools run for real. Byte-identical goldens are not touched.

    A SELECTOR is SCENARIO or SCENARIO/ARTEFACT, shell-style globs allowed (all when
    none). Exit status: 0 done (--dry-run: nothing would change), 1 a scenario failed
    to run or the tree is locked (--dry-run: something would change), 2 usage error.
    """
    from replay.report.snapshot import RefreshText
    from replay.scenarios.check import refresh_scenarios

    result = refresh_scenarios(scenarios_dir, goldens_dir, _selection(names), prune=prune, dry_run=dry_run,
                               full=full, jobs=workers_asked("refresh", jobs))
    echo(RefreshText.render(result, style_for(sys.stdout, no_color)))
    sys.exit(1 if result.failed else 0)


def _workflow(pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree) -> Workflow:
    from replay.scenarios.names import workflow

    return workflow(pending_dir, goldens_dir, scenarios_dir)


@main.command(short_help="Go through the pending goldens, one key each.")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@pending_options
@click.option("--full", is_flag=True, help="Show every change with values untruncated.")
@no_color_option
def review(names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree, full: bool,
           no_color: bool) -> None:
    """Go through the pending goldens one by one: the changes accepting each would
    make, then one key: a accept, r reject, s skip, q quit, ? help (A, R, S: this one
    and all after it). Needs a terminal. Exit status: 0 done, 1 an accept was refused
    (its golden changed since), 2 usage error or no terminal, 130 Ctrl-C.
    """
    from replay.goldens import QUIT
    from replay.goldens.pending import Decision, EntryView
    from replay.goldens.review import KEYS
    from replay.goldens.review import review as run_review
    from replay.report.snapshot import REVIEW_HELP, REVIEW_KEYS, PendingText, entry_text
    from replay.terminal import read_key

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        click.echo("replay review: needs a terminal (it asks one key per pending golden); off a terminal, use "
                   "`replay accept [SELECTOR...]` or `replay reject [SELECTOR...]`", err=True)
        sys.exit(2)
    style = style_for(sys.stdout, no_color)

    def ask(view: EntryView, position: str) -> str:
        echo(entry_text(view, position, style))
        while True:
            click.echo(f"{REVIEW_KEYS} > ", nl=False)
            try:
                key = read_key()
            except EOFError:  # the end of input (^D, a closed terminal): as quitting
                click.echo("")
                return QUIT
            click.echo(key if key.isprintable() else "")
            if key in KEYS:
                return key
            if key == "?":
                click.echo(REVIEW_HELP, nl=False)
            else:
                click.echo(f"not a key here: {sanitize(repr(key))} (? for help)")

    def told(decision: Decision) -> None:
        if decision.action == "refused":
            click.echo(style.paint("red", "refused: ") + sanitize(decision.reason))

    result = run_review(_workflow(pending_dir, scenarios_dir, goldens_dir), ask, _selection(names), full=full,
                        told=told)
    echo(PendingText.render(result, style))
    sys.exit(1 if result.failed else 0)


def _decide(command: str, names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree,
            no_color: bool) -> None:
    from replay.goldens.pending import accept, reject
    from replay.report.snapshot import PendingText

    result = (accept if command == "accept" else reject)(_workflow(pending_dir, scenarios_dir, goldens_dir),
                                                         _selection(names))
    echo(PendingText.render(result, style_for(sys.stdout, no_color)))
    sys.exit(1 if result.failed else 0)


@main.command(name="accept", short_help="Write pending goldens over the goldens.")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@pending_options
@no_color_option
def accept_command(names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree,
                   no_color: bool) -> None:
    """Write pending goldens over the goldens (all, or those the selectors name: SCENARIO
    or SCENARIO/ARTEFACT, globs allowed), each atomically under the refresh lock.

    A pending golden whose golden changed since it was made is refused, so one from an
    old CI run never overwrites newer work. Exit status: 0 done, 1 something was
    refused, 2 usage error (a selector that selects nothing).
    """
    _decide("accept", names, pending_dir, scenarios_dir, goldens_dir, no_color)


@main.command(name="reject", short_help="Drop pending goldens.")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@pending_options
@no_color_option
def reject_command(names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree,
                   no_color: bool) -> None:
    """Drop pending goldens (all, or those the selectors name); the goldens are not touched."""
    _decide("reject", names, pending_dir, scenarios_dir, goldens_dir, no_color)


@main.command(short_help="Replay a session log through acp, stdio or web.")
@click.argument("surface", type=click.Choice(SURFACES))
@click.argument("path", metavar="PATH")
@click.option("--live/--load", default=True, help="acp: the live stream (default) or the session/load replay.")
@click.option("--normalize", is_flag=True, help="acp: write the goldens' placeholders for volatile values.")
@click.option("--terminal-output/--no-terminal-output", default=None,
              help="acp: the client's terminal capability (default: from the folder's input.json, else off).")
@click.option("--profile", type=click.Choice([*PROFILE_NAMES, "auto"]), default=DEFAULT_PROFILE, show_default=True,
              help="acp: which generation of the harness's ACP agent to render as: 2026-07, the editor projection "
                   "(tool cards, plans, titles, every delta); 2026-08, the automation transport (final message "
                   "chunks and permission requests only); auto, the one the log's generation says.")
@click.option("--locale", type=click.Choice(LOCALES), default=DEFAULT_LOCALE, show_default=True, help="web: strings.")
@click.option("--html", is_flag=True, help="web: a self-contained HTML page instead of the golden text.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of standard output.")
@click.option("--no-color", is_flag=True, help="stdio: no colour codes even on a terminal.")
@limit_options
def render(surface: str, path: str, output: Path | None, no_color: bool, **options: Any) -> None:
    """Replay a session log through a renderer: acp, stdio or web.

    PATH is a session log, - for standard input, or a harness scenario folder
    (input.json + session.jsonl); child logs contribute nothing to the parent's stream.
    """
    from replay.view.surface import RenderRequest, as_text
    from replay.view.surface import render as render_surface

    to_terminal = output is None and sys.stdout.isatty()
    limits = limits_from(options)
    chunks = render_surface(RenderRequest(
        cast(Any, surface), path, limits, color=use_color(sys.stdout, no_color) if output is None else False,
        terminal=to_terminal, **options))
    if output is not None:
        write_output(output, chunks)  # bytes as they are: a page is never decoded to be encoded again
        return
    text = as_text(chunks)
    if to_terminal and surface != "stdio":  # stdio sanitizes its content itself, keeping its own codes
        text = (sanitize(chunk, keep_newlines=True) for chunk in text)
    out = stdout()
    for chunk in gathered(text):
        out.write(chunk)
    out.flush()


def _one_page(paths: tuple[str, ...], output: str | None) -> bool:
    """Whether ``replay view`` makes one page (one log, ``-o`` naming no folder) or a site."""
    from replay.log.discover import is_url, local_path
    from replay.log.source import ARCHIVE_SUFFIXES

    if len(paths) != 1 or (output is not None and (os.path.isdir(output) or output.endswith(("/", os.sep)))):
        return False
    path = local_path(paths[0])
    return path == "-" or (not is_url(path) and not os.path.isdir(path) and not path.endswith(ARCHIVE_SUFFIXES))


@main.command(short_help="Browse session logs: a static site, or one page.")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("-o", "--output", type=click.Path(), default=None, metavar="DIR|FILE",
              help=f"The site's folder (default: {DEFAULT_SITE}/); for one log, the page's file (default: a "
                   "temporary file).")
@click.option("--locale", type=click.Choice(LOCALES), default=DEFAULT_LOCALE, show_default=True,
              help="The language of every label.")
@click.option("--open", "open_browser", is_flag=True, help="Also open the index (or the page) in a web browser.")
@click.option("--force", is_flag=True, help=f"Write the site into a folder that is not empty and has no "
                                            f"{SITE_MARKER} (a site replay wrote). A site replaces "
                                            f"{', '.join(SITE_NAMES)} and nothing else; it is refused, with or "
                                            "without --force, when those hold a file replay did not write, or when "
                                            "the folder holds the logs to read.")
@audit_choice_options
@cache_options
@jobs_option("audits")
@scheduler_option
@limit_options
def view(paths: tuple[str, ...], output: str | None, locale: str, open_browser: bool, force: bool,
         jobs: int | None, scheduler: str | None, **options: Any) -> None:
    """Browse session logs: a static site of every log under the paths (an index of
    the sessions, one page per session with the audit's findings at their events),
    or, for one log, its page alone.

    PATH is what `replay audit` takes (a log, a folder, an archive, - or a URL), and
    the logs are found and audited exactly as it does. One log without -o DIR/ is its
    page alone (the site's page of it, without the site's links), written to a
    temporary file (or -o FILE); its path is printed. Otherwise the site goes to -o DIR
    (default replay-site/) and the index's path is printed. Exit status: 0 written and
    the audit passed, 1 the audit failed (the site or page is written all the same) or
    an output could not be written, 2 usage error.
    """
    if _one_page(paths, output):
        from replay.view.surface import PageRequest, build_page

        if force or jobs is not None or scheduler is not None:
            raise click.UsageError("--jobs, --scheduler and --force belong to a site: name a folder, several logs, "
                                   "or -o DIR/")
        page = build_page(PageRequest(_audit_request("view", paths, options, 1, None),
                                      Path(output) if output else None, cast(Locale, locale)))
        echo(f"{sanitize(str(page.page))}\n")
        _notes("view", page.audit.notes)
        _viewed(page.audit, page.page, open_browser)
        return
    from replay.check.explain import rule_help
    from replay.report.rules import help_text
    from replay.view.site import SiteRequest, build_site

    request = _audit_request("view", paths, options, jobs, scheduler)
    site = folder_tree(Path(output) if output is not None else Path(DEFAULT_SITE), Path(DEFAULT_SITE))
    result = build_site(SiteRequest(request, site, cast(Locale, locale), force,
                                    lambda rule: help_text(rule_help(rule))),
                        _passed_over("view"))
    echo(f"{sanitize(str(result.index))}\n")
    _notes("view", result.audit.notes)
    _viewed(result.audit, result.index, open_browser)


def _viewed(audit: AuditResult, page: Path, open_browser: bool) -> None:
    """The end of ``replay view``: the page or index opened when asked (or why not), and
    the exit status of the audit, said when it is 1."""
    if open_browser:
        import webbrowser  # only now: it brings the subprocess modules

        try:
            opened = webbrowser.open(page.resolve().as_uri())
        except webbrowser.Error:
            opened = False
        if not opened:
            click.echo(f"replay view: could not open a web browser; open {sanitize(str(page))} in one", err=True)
    if audit.failed:
        click.echo(f"replay view: exit 1: {_failure(audit)} (the pages show the findings at their events)", err=True)
        sys.exit(1)


def _failure(audit: AuditResult) -> str:
    """Why an audit failed, in a few words: the logs with failing findings, and those not read."""
    summary = audit.summary
    failing = sum(1 for r in audit.reports if r.status != "unreadable"
                  and any(f.severity in audit.failing for f in r.findings))
    severities = " or ".join(s.value for s in Severity if s in audit.failing)
    parts = []
    if failing:
        parts.append(f"{counted(failing, 'log')} with {severities} findings")
    if summary.unreadable:
        parts.append(f"{counted(summary.unreadable, 'log')} not read whole")
    return "the audit found " + " and ".join(parts) if parts else "the audit failed"


@main.command(short_help="Export sessions as tables (Parquet, DuckDB) or traces (OTLP).")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("-o", "--output", required=True, metavar="DIR|FILE.duckdb|URL",
              help="A folder of Parquet files (one per table), a DuckDB database (a name ending in .duckdb), or a "
                   "URL fsspec writes to (s3://bucket/prefix; Parquet or OTLP; needs the remote extra).")
@click.option("--format", "fmt", type=click.Choice(["parquet", "duckdb", "otlp"]), default=None,
              help="What to write. [default: duckdb for a name ending in .duckdb, else parquet]")
@click.option("--events", is_flag=True, help="Also the events table: one row per event (seq, type, turn, step, "
                                             "time, line).")
@click.option("--with-content", is_flag=True, help="otlp: the messages, arguments and results as span attributes "
                                                   "(left out by default).")
@audit_choice_options
@jobs_option("audits and exports")
@scheduler_option
@limit_options
def export(paths: tuple[str, ...], output: str, fmt: str | None, events: bool, with_content: bool,
           jobs: int | None, scheduler: str | None, **options: Any) -> None:
    """Export session logs as tables to query (Parquet files or a DuckDB database) or as
    OpenTelemetry GenAI traces (--format otlp).

    PATH is what `replay audit` takes, and the logs are found and audited exactly as
    it does. The tables are sessions, turns, steps, tool_calls, plans and findings
    (and events with --events); docs/reference/export-schema.md lists every column.
    Prints where the export is and how many rows each table has. Exit status: 0
    written and the audit passed, 1 the audit failed (the export is written all the
    same) or an output could not be written, 2 usage error.
    """
    from replay.export.request import ExportRequest
    from replay.export.run import export as run_export

    request = _audit_request("export", paths, options, jobs, scheduler)
    result = run_export(ExportRequest(request, output, cast(Any, fmt), events, with_content), _passed_over("export"))
    echo(f"{sanitize(result.out)}\n")
    echo("".join(f"{name}: {counted(rows, 'row')}\n" for name, rows in result.rows.items()))
    sys.exit(1 if result.audit.failed else 0)


@main.command(short_help="Compare rendered ACP streams with harness goldens.")
@click.argument("roots", nargs=-1, required=True, metavar="CORPUS_DIR...",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(CONFORMANCE_FORMATS)), default="text", show_default=True)
@click.option("--profile", type=click.Choice(PROFILE_NAMES), default=None,
              help="Render every scenario as this generation of the harness's ACP agent (default: per corpus "
                   "folder, the generation its logs were written in).")
def conformance(roots: tuple[Path, ...], fmt: str, profile: str | None) -> None:
    """Render every harness scenario under the roots (acp, live and load, normalized) and
    compare the streams with its goldens; exit 1 when a scored scenario differs.
    Scenarios with replay.override.json are derived by a keyless run with the override
    as the model (in a temporary folder) and counted apart, as are slash-command prompts."""
    from replay.scenarios.conformance import run_conformance

    report = run_conformance(roots, profile=cast(Any, profile))
    if not report.scenarios:
        raise click.UsageError("no harness scenario folders with a stdout golden under the given roots")
    echo(CONFORMANCE_FORMATS[fmt].render(report), CONFORMANCE_FORMATS[fmt].writes_json)
    sys.exit(1 if report.failed else 0)


@main.command(short_help="Print the todo_write tool entry or the scenario schema.")
@click.argument("what", metavar="todo_write|scenario", type=click.Choice([TOOL_NAME, "scenario"]))
@click.option("--policy", type=click.Choice([p.value for p in Policy]), default=None,
              help="todo_write (required): parallel: allowParallelInProgress=true; single: at most one in_progress.")
def schema(what: str, policy: str | None) -> None:
    """Print a schema as JSON: the model-facing todo_write entry {name, description,
    parameters}, or the JSON Schema of scenario.json (what its "$schema" points at)."""
    if what == "scenario":
        if policy is not None:
            raise click.UsageError("--policy belongs to `replay schema todo_write`")
        from replay.scenarios.scenario import shipped_schema

        echo(shipped_schema())
        return
    if policy is None:
        raise click.UsageError("`replay schema todo_write` needs --policy parallel|single: the policy is a choice")
    config = Config(allow_parallel_in_progress=Policy(policy) is Policy.PARALLEL)
    echo(json.dumps(tool_schema(config), indent=2, ensure_ascii=False) + "\n")


@main.command(short_help="Create a scenario: a scaffold, or a session imported.")
@click.argument("name")
@click.option("--from-log", "from_log", type=click.Path(exists=True, path_type=Path), default=None,
              metavar="PATH", help="Import a harness session (a session.jsonl[.zstd], or a harness scenario folder "
                                   "with its children, input.json and replay.override.json) as a recorded scenario.")
@click.option("--force", is_flag=True, help="--from-log: import even when the audit finds errors (and say so).")
@click.option("--use-override", is_flag=True,
              help="--from-log: let the harness folder's replay.override.json play the model it scripts (the agent's, "
                   "or the session-title model's), as the harness's keyless suite does.")
@click.option("--locale", type=click.Choice(LOCALES), default=DEFAULT_LOCALE, show_default=True,
              help="--from-log: the web renderer's locale (harness logs do not record one).")
@click.option("--scenarios", "scenarios_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help=f"Folder of scenario folders.  [default: {SCENARIOS}]")
@no_color_option
def new(name: str, from_log: Path | None, force: bool, use_override: bool, locale: str, scenarios_dir: Path | None,
        no_color: bool) -> None:
    """Create scenarios/NAME: a scaffold (a scripted model with one todo_write call
    and a closing text), or with --from-log the import of a real harness session,
    whose recording plays the model. Never overwrites a scenario.

    Exit status: 0 created, 1 the audit of the log to import found errors, or the
    imported scenario would not run (nothing written), 2 usage error (the name is
    taken, the input is not a log).
    """
    from replay.report.audit import log_text
    from replay.report.scenario import new_text
    from replay.scenarios.importer import ImportRefused, import_log, scaffold

    if from_log is None and (force or use_override or locale != DEFAULT_LOCALE):
        raise click.UsageError("--force, --use-override and --locale belong to an import (--from-log PATH)")
    root = folder_tree(scenarios_dir if scenarios_dir is not None else Path(SCENARIOS), Path(SCENARIOS))
    out = stdout()
    style = style_for(sys.stdout, no_color)
    try:
        result = scaffold(root, name) if from_log is None else \
            import_log(root, name, from_log, force=force, locale=locale, use_override=use_override)
    except ImportRefused as exc:
        out.write("".join(log_text(r, style) for r in exc.reports))  # what the audit found, then the error
        out.flush()
        raise
    out.write("".join(log_text(r, style) for r in result.forced) + new_text(result, scenarios_dir))
    out.flush()


@main.command(short_help="List the audit's rules, or explain some.")
@click.argument("names", nargs=-1, metavar="[RULE]...")
@click.option("--format", "fmt", type=click.Choice(list(RULE_FORMATS)), default="text", show_default=True)
def rules(names: tuple[str, ...], fmt: str) -> None:
    """List every rule the audit applies (id, kind, owning domain, what it checks), or
    explain the named ones: what each checks, an example of a bad record with what the
    audit says of it, and what today's harness does with such a log."""
    from replay.check.explain import rule_help

    wanted = [n.strip().upper() for n in names]
    unknown = [n for n, w in zip(names, wanted, strict=True) if w not in RULES]
    if unknown:
        raise click.BadParameter(f"{unknown[0]!r} is not a rule id (`replay rules` lists them)", param_hint="RULE")
    helps = [rule_help(w) for w in (wanted or list(RULES))]
    reporting = RULE_HELP_FORMATS[fmt] if names else RULE_FORMATS[fmt]
    echo(reporting.render(helps, style_for(sys.stdout)), reporting.writes_json)


@main.command(short_help="Compare two logs or goldens, record by record.")
@click.argument("a", metavar="A", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("b", metavar="B", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--normalize", is_flag=True, help="Zero the volatile values (createdAt, time, time0, dt) on both "
                                                "sides, as goldens have them: a harness log against a session golden.")
@click.option("--full", is_flag=True, help="Show every change with values untruncated.")
@no_color_option
@limit_options
def diff(a: Path, b: Path, fmt: str, normalize: bool, full: bool, no_color: bool, **options: Any) -> None:
    """Compare two session logs or goldens as `replay check` compares goldens: records
    aligned, one line per change at its line of A, seq shifts folded.

    Exit status: 0 the same, 1 different, 2 usage error.
    """
    from replay.report.snapshot import diff_json, diff_text
    from replay.scenarios.compare_logs import diff_logs

    result = diff_logs(a, b, normalize=normalize, full=full, limits=limits_from(options))
    echo(diff_json(result) if fmt == "json" else diff_text(result, style_for(sys.stdout, no_color)), fmt == "json")
    sys.exit(0 if result.same else 1)


@main.command(short_help="Print the standing plan of a log as JSON.")
@click.argument("path", metavar="PATH")
@click.option("--at", "at", type=int, default=None, metavar="SEQ",
              help="The plan in force right after the event with this seq.")
@limit_options
def plan(path: str, at: int | None, **options: Any) -> None:
    """Print the standing plan (the todos projection) of one log as JSON; null when none."""
    from replay.view.surface import plan_of

    out = stdout(writes_json=True)
    out.write_bytes(json_bytes(plan_of(path, at, limits_from(options))) + b"\n")
    out.flush()


@main.command(short_help="Print the shell completion script.")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the completion script for SHELL: commands, options, choices and file
    paths complete on Tab. For bash, add `eval "$(replay completion bash)"` to
    ~/.bashrc (zsh: ~/.zshrc; fish: `replay completion fish | source` in
    ~/.config/fish/config.fish)."""
    from click.shell_completion import get_completion_class

    completer = get_completion_class(shell)
    assert completer is not None  # the choice holds only the shells click knows
    echo(completer(main, {}, "replay", "_REPLAY_COMPLETE").source())
