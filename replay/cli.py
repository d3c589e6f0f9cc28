"""The ``replay`` command line: each command parses its options, runs a stage and
hands the result to a reporter of ``replay.report.registry`` (its ``--format``
choices are that registry's keys). Nothing here decides anything a library caller
could not: what fails a run is the result's own ``failed``."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import socket
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO, TypeVar, cast

import click

from replay.check.engine import AuditResult, LogReport, Policy, failing_severities
from replay.check.registry import RULES
from replay.check.runner import audit_units
from replay.check.selection import Selection, SelectionError, audit_selection, find_config
from replay.cluster import SCHEDULER_SECONDS
from replay.extras import MissingExtra
from replay.findings import Severity
from replay.fs import FsError, Tree, within, write_output
from replay.goldens import PENDING_FOLDER
from replay.log.discover import discover, path_exists, shown_path
from replay.log.event import Event
from replay.log.header import looks_like
from replay.log.reader import Limits, LogRead, iter_events, read_log
from replay.log.source import Unit, file_source, stdin_source
from replay.output import OutputError, TextOut, json_bytes
from replay.parallel import MAX_JOBS, fewer_gc_passes, usable_cpus, workers_for
from replay.report.audit import AuditJunit, AuditView, log_text
from replay.report.registry import (
    AUDIT_FORMATS,
    CHECK_FORMATS,
    CONFORMANCE_FORMATS,
    RULE_FORMATS,
    RULE_HELP_FORMATS,
)
from replay.style import sanitize, style_for, use_color
from replay.todo.plan import SeqOutOfRange, plan_at, standing_plan
from replay.todo.tool import TOOL_NAME, Config, tool_schema
from replay.urls import NetworkError

if TYPE_CHECKING:
    from replay.goldens.pending import Workflow
    from replay.goldens.select import Selection as GoldenSelection
    from replay.render.acp.profiles import Profile
    from replay.render.acp.translate import Mode

T = TypeVar("T")

# The snapshot and render stages (pydantic, deepdiff, the ACP presenters) are imported
# inside the commands that use them: `replay audit` starts in half the time.

_DEFAULT_LIMITS = Limits()
_RECURSION_LIMIT = 10_000
_PROGRESS_MIN_FILES = 4


def _wants_progress(shows_progress: bool, count: int) -> bool:
    """A progress bar on stderr: for a format that has one, on a terminal, for a long run."""
    return shows_progress and count >= _PROGRESS_MIN_FILES and sys.stderr.isatty()


@contextmanager
def _progress(items: Iterable[T], length: int, label: str, shown: bool,
              describe: Callable[[T | None], str] | None = None) -> Iterator[Iterable[T]]:
    """``items``, through a progress bar on stderr when ``shown``."""
    if not shown:
        yield items
        return
    with click.progressbar(items, length=length, label=label, file=sys.stderr, item_show_func=describe) as bar:
        yield bar


@contextmanager
def _stopping(command: str) -> Iterator[None]:
    """Ctrl-C ends the command with exit status 130 and one line, no traceback (the
    workers are already stopped and reaped); a missing extra or an unreachable
    cluster or URL is a usage error."""
    from replay.cluster import ClusterError
    from replay.parallel import WorkersFailed

    try:
        yield
    except KeyboardInterrupt:
        click.echo(f"replay {command}: interrupted", err=True)
        sys.exit(130)
    except (MissingExtra, ClusterError, WorkersFailed, NetworkError) as exc:
        raise click.UsageError(sanitize(str(exc))) from None



def stdout() -> TextOut:
    """Standard output as a text stream that writes UTF-8 (a lone surrogate as U+FFFD)
    and turns a write that fails into ``OutputError``."""
    sys.stdout.flush()
    return TextOut(getattr(sys.stdout, "buffer", None) or _TextOnly(sys.stdout))


def echo(text: str) -> None:
    """Write a report to standard output (see ``stdout``)."""
    out = stdout()
    out.write(text)
    out.flush()


class _TextOnly:
    """A text-only standard output (one replaced by a caller) taking UTF-8 bytes."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode("utf-8"))

    def flush(self) -> None:
        self.stream.flush()


BROKEN_PIPE = 128 + signal.SIGPIPE
"""The exit status when standard output's reader went away (``… | head``): what a
shell reports for grep there."""


def _flush_stdout() -> None:
    """Standard output flushed and checked: whatever the size of the report, an output
    that cannot be written is found here, not in the interpreter's last flush."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        raise OutputError(f"standard output: cannot write ({exc.strerror or exc})", exc.errno == errno.EPIPE) \
            from None


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        """An output that cannot be written is exit 1, with the path and the OS error;
        a reader of standard output that went away ends the command quietly. Ctrl-C
        before a command's work starts (a slow URL, a long listing) is exit 130, as
        during it (``_stopping``), not click's exit 1."""
        try:
            try:
                return super().invoke(ctx)
            finally:
                _flush_stdout()
        except BrokenPipeError:  # a write that did not go through TextOut (click.echo)
            _silence_stdout()
            ctx.exit(BROKEN_PIPE)
        except OutputError as exc:
            if exc.broken_pipe:
                _silence_stdout()
                ctx.exit(BROKEN_PIPE)
            click.echo(f"replay: {sanitize(str(exc))}", err=True)
            _silence_stdout()
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo(f"replay {ctx.invoked_subcommand}: interrupted", err=True)
            ctx.exit(130)


def _silence_stdout() -> None:
    """Standard output pointed at /dev/null: what is still buffered for a stream that
    failed is dropped, so the interpreter's last flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _check_paths(paths: Iterable[str]) -> None:
    for raw in paths:
        try:
            found = path_exists(raw)
        except (MissingExtra, NetworkError) as exc:
            raise click.UsageError(sanitize(str(exc))) from None
        if not found:
            raise click.BadParameter(f"{sanitize(shown_path(raw))}: no such file or directory", param_hint="PATH")


def _jobs(ctx: click.Context, param: click.Parameter, jobs: int | None) -> int | None:
    """``--jobs``: a whole number from 1 to ``MAX_JOBS``."""
    if jobs is not None and jobs < 1:
        raise click.BadParameter(f"{jobs}: at least 1 (1 runs in this process)", ctx, param)
    if jobs is not None and jobs > MAX_JOBS:
        raise click.BadParameter(f"{jobs}: at most {MAX_JOBS} worker processes (and replay never starts more than "
                                 f"the usable CPUs: {usable_cpus()} here)", ctx, param)
    return jobs


def _workers(command: str, jobs: int | None) -> int:
    """The worker processes for ``--jobs`` (the usable CPUs when not given); asking
    for more than the usable CPUs is said once on stderr."""
    if jobs is None:
        return usable_cpus()
    used = workers_for(jobs)
    if used < jobs:
        click.echo(f"replay {command}: --jobs {jobs}: " + (
            f"running at most {used} worker processes, as many as the usable CPUs" if used > 1 else
            "running in this process, as this machine has 1 usable CPU"), err=True)
    return used


def _limits(max_record_bytes: int, max_log_bytes: int) -> Limits:
    return Limits(max_record_bytes=max_record_bytes, max_log_bytes=max_log_bytes)


_limit_options = [
    click.option("--max-record-bytes", type=click.IntRange(min=1), default=_DEFAULT_LIMITS.max_record_bytes,
                 show_default=True, help="Largest single record read; a longer one is a finding."),
    click.option("--max-log-bytes", "--max-decompressed-bytes", "max_log_bytes", type=click.IntRange(min=1),
                 default=_DEFAULT_LIMITS.max_log_bytes, show_default=True,
                 help="Most bytes read from one log (file, standard input, FIFO; a zstd log's plaintext: the "
                      "decompression-bomb guard); more is a finding."),
]


def limit_options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_limit_options):
        f = option(f)
    return f


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="replay")
def main() -> None:
    """Load, audit and replay deepseek-harness session logs."""
    # A parsed log value nests at most 1024 deep (orjson's limit; deeper records are
    # A6 findings). Renderers walk values recursively, which Python 3.11 does without
    # using the C stack: allow that depth instead of crashing at 1000.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))


@main.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--format", "fmt", type=click.Choice(list(AUDIT_FORMATS)), default="text",
              show_default=True, help="Report format.")
@click.option("--select", multiple=True, metavar="RULES",
              help="Report only these rules: ids (A6, D1) or series (T, B), comma-separated or repeated. "
                   "[default: every rule, or the select of [tool.replay.audit] in pyproject.toml]")
@click.option("--ignore", multiple=True, metavar="RULES",
              help="Do not report these rules (ids or series); a more specific --select wins.")
@click.option("--min-severity", type=click.Choice(["error", "warning", "policy"]), default=None,
              help="Report only findings this severe or more (policy < warning < error). [default: policy]")
@click.option("--policy", type=click.Choice([p.value for p in Policy]), default=Policy.PARALLEL.value,
              show_default=True,
              help="todo_write policy for the what-if (P1); 'single' reports parallel in_progress items.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "policy"]), multiple=True,
              help="Severities that make the exit code 1 (errors always do). Repeatable.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Report only findings not in this baseline (matched by file, rule and the "
                                   "fingerprint of the record, not by line).")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Write the findings of this audit (after --select/--ignore) as a baseline to FILE; "
                                   "the exit status is then 0.")
@click.option("--no-fold", is_flag=True, help="text: list every finding under its file (no folding of repeats).")
@click.option("--statistics", is_flag=True, help="text: only the count of each rule's findings and files.")
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
@click.option("--junit", "junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a JUnit XML report to this file.")
@click.option("--jobs", "-j", type=int, callback=_jobs, default=None,
              help=f"Worker processes (default: the usable CPUs; 1 audits in this process; at most {MAX_JOBS}, and "
                   "never more than the usable CPUs). The report is the same for any number.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on the Dask cluster of this scheduler (tcp://host:8786) instead of local processes; its "
                   "workers read the logs themselves (needs replay[dask]). Given up on (exit 2) when it does not "
                   f"answer within {SCHEDULER_SECONDS:g} s.")
@limit_options
def audit(paths: tuple[str, ...], fmt: str, select: tuple[str, ...], ignore: tuple[str, ...],
          min_severity: str | None, policy: str, fail_on: tuple[str, ...], baseline_file: Path | None,
          write_baseline: Path | None, no_fold: bool, statistics: bool, no_color: bool, junit: Path | None,
          jobs: int | None, scheduler: str | None, max_record_bytes: int, max_log_bytes: int) -> None:
    """Re-validate session logs against the harness's load rules and durable invariants.

    PATH is a log (.jsonl or .jsonl.zstd), a folder (searched recursively for
    logs whose first line is a session header), a .tar or .tar.zst archive of logs,
    - for standard input, or a URL fsspec opens (s3://bucket/prefix, gs://…,
    https://…; needs replay[remote]): one named like a log or an archive is read,
    any other searched like a folder.
    Exit status: 0 no error findings, 1 findings that fail, 2 usage error.
    """
    from replay.check.baseline import Baseline, BaselineError, baseline_bytes, read_baseline

    if jobs is not None and scheduler is not None:
        raise click.UsageError("--jobs and --scheduler exclude each other: the cluster's workers do the work")
    _check_paths(paths)
    if (no_fold or statistics) and fmt != "text":
        raise click.UsageError(f"--no-fold and --statistics shape the text report, not --format {fmt}")
    selection = _audit_selection(select, ignore, min_severity)
    try:
        baseline = read_baseline(baseline_file) if baseline_file is not None else Baseline()
    except BaselineError as exc:
        raise click.BadParameter(sanitize(str(exc)), param_hint="--baseline") from None
    reporting = AUDIT_FORMATS[fmt]
    limits = _limits(max_record_bytes, max_log_bytes)
    passed_over: list[tuple[str, str]] = []

    def pass_over(path: str, why: str) -> None:
        passed_over.append((path, why))
        click.echo(f"replay audit: passed over {sanitize(path)}: {why}", err=True)

    units: Iterable[Unit] = discover(paths, pass_over, limits.max_log_bytes)
    count = 0
    if reporting.shows_progress and sys.stderr.isatty():
        units = list(units)  # a bar needs the count; without one, logs stream as they are found
        count = len(units)
    shown = _wants_progress(reporting.shows_progress, count)
    out = stdout()
    held = io.StringIO() if shown else None  # the report waits until the bar is done
    view = AuditView(fold=not no_fold, statistics=statistics, baseline=baseline_file is not None)
    reporter = reporting(held or cast(TextIO, out), style_for(sys.stdout, no_color), view)
    reports: list[LogReport] = []
    selected: list[LogReport] = []  # before the baseline: what --write-baseline writes
    reporter.start()
    fingerprints = baseline_file is not None or write_baseline is not None or reporting.needs_fingerprints
    results = audit_units(units, Policy(policy), limits, fingerprints, jobs=_workers("audit", jobs),
                          scheduler=scheduler, passed_over=pass_over)
    describe: Callable[[LogReport | None], str] = lambda r: sanitize(r.path[-40:]) if r else ""  # noqa: E731
    with _stopping("audit"), fewer_gc_passes(), _progress(results, count, "auditing", shown, describe) as bar:
        for judged in bar:
            report = selection.apply(judged)
            if write_baseline is not None:
                selected.append(report)
            report = baseline.apply(report)
            reports.append(report)
            reporter.unit(report)
    if not reports:
        raise click.UsageError("no session logs found in the given paths")
    result = AuditResult(reports, failing_severities(Severity(s) for s in fail_on), baseline.matched,
                         tuple(passed_over))
    reporter.finish(result)
    if held is not None:
        out.write(held.getvalue())
    out.flush()
    if junit is not None:
        write_output(junit, [AuditJunit.render(result)])
    if write_baseline is not None:
        write_output(write_baseline, [baseline_bytes(selected)])
        total = sum(len(r.findings) for r in selected)
        click.echo(f"replay audit: wrote a baseline of {total} finding(s) to {sanitize(str(write_baseline))}", err=True)
        sys.exit(0)
    sys.exit(1 if result.failed else 0)


def _audit_selection(select: tuple[str, ...], ignore: tuple[str, ...], min_severity: str | None) -> Selection:
    """The command line's choice over the nearest [tool.replay.audit] table's."""
    try:
        return audit_selection(select or None, ignore or None, min_severity, find_config())
    except SelectionError as exc:
        raise click.UsageError(sanitize(str(exc))) from None


SCENARIOS = "scenarios"
GOLDENS = "goldens"


def _folder_tree(path: Path, own: Path) -> Tree:
    """A tree option's folder: the repo's own (``own``, its default, typed or not) is
    opened without following a link at any level; another folder the user named is
    theirs (the links in its path are followed). Nothing below either is trusted."""
    return Tree.found(path) if path == own else Tree.named(path)


def _tree(ctx: click.Context, param: click.Parameter, value: Path | None) -> Tree | None:
    if value is None:
        return None
    assert isinstance(param, click.Option) and param.default is not None
    return _folder_tree(Path(value), Path(str(param.default)))


_tree_options = [
    click.option("--scenarios", "scenarios_dir", type=click.Path(file_okay=False, path_type=Path),
                 default=Path(SCENARIOS), show_default=True, callback=_tree, help="Folder of scenario folders."),
    click.option("--goldens", "goldens_dir", type=click.Path(file_okay=False, path_type=Path),
                 default=Path(GOLDENS), show_default=True, callback=_tree, help="Folder of golden folders."),
]


def tree_options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_tree_options):
        f = option(f)
    return f


def _selection(names: tuple[str, ...]) -> GoldenSelection:
    """The goldens the selectors name (``replay.goldens.select``; not an audit's rule selection)."""
    from replay.goldens.select import Selection as GoldenSelection
    from replay.goldens.select import SelectorError

    try:
        return GoldenSelection.parse(names)
    except SelectorError as exc:
        raise click.BadParameter(sanitize(str(exc)), param_hint="SELECTOR") from None


def _scenario_names(scenarios_dir: Tree, selection: GoldenSelection, command: str) -> list[str]:
    from replay.goldens.select import SelectorError
    from replay.goldens.store import StoreError
    from replay.scenarios.check import selected_scenarios

    try:
        selected = selected_scenarios(scenarios_dir, selection)
    except SelectorError as exc:
        raise click.BadParameter(sanitize(str(exc)), param_hint="SELECTOR") from None
    except StoreError as exc:
        _fail(command, exc)
    if not selected:
        raise click.UsageError(f"no scenarios in {sanitize(str(scenarios_dir))} (a scenario is a folder with "
                               "scenario.json)")
    return selected


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


def _fail(command: str, message: object) -> NoReturn:
    click.echo(f"replay {command}: {sanitize(str(message))}", err=True)
    sys.exit(1)


def _append_step_summary(text: str) -> None:
    """Append to GitHub's job summary file, when the job has one; a failure to write it
    is said on stderr, never the check's verdict."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        click.echo(f"replay check: cannot append the step summary to {sanitize(str(target))} "
                   f"({exc.strerror or exc})", err=True)




_jobs_option = click.option(
    "--jobs", "-j", type=int, callback=_jobs, default=None,
    help=f"Worker processes (default: the usable CPUs; 1 runs in this process; at most {MAX_JOBS}, and never more "
         "than the usable CPUs). The results are the same for any number.")


@main.command()
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@tree_options
@click.option("--format", "fmt", type=click.Choice(list(CHECK_FORMATS)), default="text", show_default=True,
              help="Report format; github also appends a Markdown table to $GITHUB_STEP_SUMMARY when set.")
@click.option("--junit", "junit", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a JUnit XML report to this file.")
@click.option("--pending", "pending", is_flag=False, flag_value=PENDING_FOLDER, default=None, metavar="[DIR]",
              help=f"Write each golden that differs or is missing, as this run made it, to DIR/<scenario>/<artefact> "
                   f"with DIR/manifest.json, for `replay review` / `accept` (DIR: {PENDING_FOLDER}). Never writes "
                   "to the goldens.")
@click.option("--full", is_flag=True, help="Show every change with values untruncated.")
@click.option("--ci", "ci_flag", is_flag=True, help="As under CI (also when $CI is set): suggest no command that "
                                                    "writes goldens.")
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
@_jobs_option
def check(names: tuple[str, ...], scenarios_dir: Tree, goldens_dir: Tree, fmt: str, junit: Path | None,
          pending: str | None, full: bool, ci_flag: bool, no_color: bool, jobs: int | None) -> None:
    """Run scenarios keylessly and compare every golden (all scenarios when none is named).

    A SELECTOR is SCENARIO or SCENARIO/ARTEFACT, shell-style globs allowed. Never writes
    to the goldens; with --pending, writes what differs to DIR instead. Exit status: 0
    all goldens match, 1 a golden differs, is missing or orphaned, or a scenario fails
    to run, 2 usage error.
    """
    from replay.goldens.pending import PendingError, PendingWriter, checked_scope
    from replay.goldens.store import GoldenStore
    from replay.hints import in_ci
    from replay.report.snapshot import CheckJunit, CheckStepSummary
    from replay.scenarios.check import (
        CheckContext,
        CheckReport,
        PendingWritten,
        check_scenario,
        orphan_scenarios,
        render_scenarios,
    )
    from replay.scenarios.names import pending_store

    selection = _selection(names)
    selected = _scenario_names(scenarios_dir, selection, "check")
    try:
        goldens_dir.check_root()  # a linked root is refused before anything runs
    except FsError as exc:
        _fail("check", exc)
    shown_pending = sanitize(pending or "")
    if pending is not None and not Path(pending).is_dir() and _names_scenarios(pending, scenarios_dir):
        raise click.UsageError(f"--pending {shown_pending}: {shown_pending} is a scenario; write `replay check "
                               f"{shown_pending} --pending` (or --pending=DIR to name a folder)")
    if pending is not None and any(within(Path(pending), tree.path) for tree in (goldens_dir, scenarios_dir)):
        raise click.UsageError(f"--pending {shown_pending}: inside the golden or scenario tree; pending goldens go "
                               f"elsewhere (the default is {PENDING_FOLDER})")
    reporting = CHECK_FORMATS[fmt]
    store = GoldenStore(goldens_dir)
    shown = _wants_progress(reporting.shows_progress, len(selected))
    written = None
    started = datetime.now(UTC).astimezone()
    try:
        with ExitStack() as stack:
            writer = None
            if pending is not None:
                folder = pending_store(_folder_tree(Path(pending), Path(PENDING_FOLDER)), scenarios_dir)
                stack.enter_context(folder.lock())
                folder.manifest()  # an untrusted manifest is refused before anything runs
                writer = PendingWriter(folder)
            # Workers from a fresh interpreter when a pending folder's lock is held here.
            runs = render_scenarios(scenarios_dir, selected, jobs=_workers("check", jobs), fork=writer is None)
            with _stopping("check"), _progress(runs, len(selected), "checking", shown) as done:
                results = [check_scenario(scenarios_dir, store, name, selection=selection, full=full, pending=writer,
                                          rendered=run) for name, run in done]
            if selection.everything:
                results.extend(orphan_scenarios(scenarios_dir, store))
            if writer is not None:
                count = writer.commit(checked_scope(selection, selected))
                written = PendingWritten(str(pending), count, pending == PENDING_FOLDER)
    except PendingError as exc:
        _fail("check", exc)
    context = CheckContext(str(scenarios_dir), _tree_args(scenarios_dir, goldens_dir), started,
                           socket.gethostname(), ci_flag or in_ci(os.environ), written)
    report = CheckReport(str(goldens_dir), results, context)
    echo(reporting.render(report, style_for(sys.stdout, no_color)))
    if fmt == "github":
        _append_step_summary(CheckStepSummary.render(report))
    if junit is not None:
        write_output(junit, [CheckJunit.render(report)])
    sys.exit(1 if report.failed else 0)


@main.command()
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@tree_options
@click.option("--prune", is_flag=True, help="Delete orphaned golden files (no artefact produces them).")
@click.option("--dry-run", is_flag=True, help="Write nothing; show what would change, with its changes (exit 1 when "
                                                "something would).")
@click.option("--full", is_flag=True, help="--dry-run: show every change with values untruncated.")
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
@_jobs_option
def refresh(names: tuple[str, ...], scenarios_dir: Tree, goldens_dir: Tree, prune: bool, dry_run: bool, full: bool,
            no_color: bool, jobs: int | None) -> None:
    """Rewrite the goldens that changed, keylessly: the scenario's script or recording
    plays the model, the tools run for real. Byte-identical goldens are not touched.

    A SELECTOR is SCENARIO or SCENARIO/ARTEFACT, shell-style globs allowed (all when
    none). Exit status: 0 done (--dry-run: nothing would change), 1 a scenario failed
    to run or the tree is locked (--dry-run: something would change), 2 usage error.
    """
    from replay.goldens.store import StoreError, StoreLocked
    from replay.report.snapshot import RefreshText
    from replay.scenarios.check import refresh_scenarios

    selection = _selection(names)
    _scenario_names(scenarios_dir, selection, "refresh")
    try:
        with _stopping("refresh"):
            result = refresh_scenarios(scenarios_dir, goldens_dir, selection, prune=prune, dry_run=dry_run, full=full,
                                       jobs=_workers("refresh", jobs))
    except (StoreLocked, StoreError) as exc:
        _fail("refresh", exc)
    echo(RefreshText.render(result, style_for(sys.stdout, no_color)))
    sys.exit(1 if result.failed else 0)


_pending_options = [
    click.option("--pending", "pending_dir", type=click.Path(file_okay=False, path_type=Path),
                 default=Path(PENDING_FOLDER), show_default=True, callback=_tree,
                 help="The pending goldens (from `replay check --pending`, or a CI job's artefact)."),
    *_tree_options,
]


def pending_options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_pending_options):
        f = option(f)
    return f


def _workflow(pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree) -> Workflow:
    from replay.scenarios.names import workflow

    return workflow(pending_dir, goldens_dir, scenarios_dir)


@main.command()
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@pending_options
@click.option("--full", is_flag=True, help="Show every change with values untruncated.")
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
def review(names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree, full: bool,
           no_color: bool) -> None:
    """Go through the pending goldens one by one: the changes accepting each would
    make, then one key: a accept, r reject, s skip, q quit, ? help (A, R, S: this one
    and all after it). Needs a terminal. Exit status: 0 done, 1 an accept was refused
    (its golden changed since), 2 usage error or no terminal.
    """
    from replay.goldens.pending import Decision, EntryView, PendingError
    from replay.goldens.review import KEYS
    from replay.goldens.review import review as run_review
    from replay.goldens.select import SelectorError
    from replay.report.snapshot import REVIEW_HELP, REVIEW_KEYS, PendingText, entry_text

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
                key = _read_key()
            except EOFError:  # the end of input (^D, a closed terminal): as quitting
                click.echo("")
                return "q"
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

    workflow = _workflow(pending_dir, scenarios_dir, goldens_dir)
    try:
        with _stopping("review"):
            result = run_review(workflow, ask, _selection(names), full=full, told=told)
    except SelectorError as exc:
        raise click.BadParameter(sanitize(str(exc)), param_hint="SELECTOR") from None
    except PendingError as exc:
        _fail("review", exc)
    echo(PendingText.render(result, style))
    sys.exit(1 if result.failed else 0)


def _read_key() -> str:
    """One key from the terminal on stdin. Not click.getchar: it enters raw mode with
    TCSAFLUSH, which throws away a key typed before the prompt was read. ``EOFError``
    at the end of input (^D, NUL, a terminal gone), ``KeyboardInterrupt`` for ^C."""
    import select
    import termios
    import tty

    fd = sys.stdin.fileno()
    try:
        before = termios.tcgetattr(fd)
    except termios.error:
        raise EOFError from None
    try:
        tty.setraw(fd, termios.TCSANOW)
        data = os.read(fd, 1)
        while data and (data[0] >= 0x80 or data == b"\x1b") and select.select([fd], [], [], 0.02)[0]:
            data += os.read(fd, 1)  # the rest of a UTF-8 character or of an escape sequence
            if data[0] < 0x80 and len(data) > 8:
                break
    except OSError:  # EIO: the terminal is gone
        raise EOFError from None
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, before)
    if data == b"\x03":
        raise KeyboardInterrupt
    if data in (b"", b"\x04", b"\x00"):
        raise EOFError
    return data.decode("utf-8", "replace")


def _decide(command: str, names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree,
            no_color: bool) -> NoReturn:
    from replay.goldens.pending import PendingError, accept, reject
    from replay.goldens.select import SelectorError
    from replay.report.snapshot import PendingText

    workflow = _workflow(pending_dir, scenarios_dir, goldens_dir)
    try:
        result = (accept if command == "accept" else reject)(workflow, _selection(names))
    except SelectorError as exc:
        raise click.BadParameter(sanitize(str(exc)), param_hint="SELECTOR") from None
    except PendingError as exc:
        _fail(command, exc)
    echo(PendingText.render(result, style_for(sys.stdout, no_color)))
    sys.exit(1 if result.failed else 0)


@main.command(name="accept")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@pending_options
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
def accept_command(names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree,
                   no_color: bool) -> None:
    """Write pending goldens over the goldens (all, or those the selectors name: SCENARIO
    or SCENARIO/ARTEFACT, globs allowed), each atomically under the refresh lock.

    A pending golden whose golden changed since it was made is refused, so one from an
    old CI run never overwrites newer work. Exit status: 0 done, 1 something was
    refused, 2 usage error (a selector that selects nothing).
    """
    _decide("accept", names, pending_dir, scenarios_dir, goldens_dir, no_color)


@main.command(name="reject")
@click.argument("names", nargs=-1, metavar="[SELECTOR]...")
@pending_options
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
def reject_command(names: tuple[str, ...], pending_dir: Tree, scenarios_dir: Tree, goldens_dir: Tree,
                   no_color: bool) -> None:
    """Drop pending goldens (all, or those the selectors name); the goldens are not touched."""
    _decide("reject", names, pending_dir, scenarios_dir, goldens_dir, no_color)


def _read_or_exit(path: str, limits: Limits) -> tuple[LogRead, bool]:
    """The log to read (see ``_render_input``); exits 1 with a message when its first
    line is not a session header."""
    _check_paths([path])
    log, terminal = _render_input(path, limits)
    if not log.is_session_log:
        shown = sanitize(shown_path(path))
        what = (f"it looks like {looks_like(log.header.record)}" if log.header is not None
                else f"not a readable session log (run `replay audit {shown}` for why)")
        click.echo(f"{shown}: {sanitize(what)}", err=True)
        sys.exit(1)
    return log, terminal


def _render_input(path: str, limits: Limits) -> tuple[LogRead, bool]:
    """A log (file or -), or a harness scenario folder: its primary log and the client's
    terminal capability from input.json."""
    from replay.scenarios.harness import is_scenario_folder, load_harness_scenario

    if path == "-":
        return read_log(stdin_source(cap=limits.max_log_bytes), limits), False
    folder = Path(path)
    if folder.is_dir():
        if not is_scenario_folder(folder):
            raise click.BadParameter(f"{sanitize(path)}: a folder must hold a session.jsonl (a harness scenario "
                                     "folder)", param_hint="PATH")
        scenario = load_harness_scenario(folder)
        return read_log(file_source(scenario.primary_log, cap=limits.max_log_bytes), limits), \
            scenario.terminal_output
    return read_log(file_source(folder, cap=limits.max_log_bytes), limits), False


@main.command()
@click.argument("surface", type=click.Choice(["acp", "stdio", "web"]))
@click.argument("path", metavar="PATH")
@click.option("--live/--load", default=True, help="acp: the live stream (default) or the session/load replay.")
@click.option("--normalize", is_flag=True, help="acp: write the goldens' placeholders for volatile values.")
@click.option("--terminal-output/--no-terminal-output", default=None,
              help="acp: the client's terminal capability (default: from the folder's input.json, else off).")
@click.option("--profile", type=click.Choice(["2026-07", "2026-08", "auto"]), default="2026-07", show_default=True,
              help="acp: which generation of the harness's ACP agent to render as: 2026-07, the editor projection "
                   "(tool cards, plans, titles, every delta); 2026-08, the automation transport (final message "
                   "chunks and permission requests only); auto, the one the log's generation says.")
@click.option("--locale", type=click.Choice(["en", "zh"]), default="en", show_default=True, help="web: strings.")
@click.option("--html", is_flag=True, help="web: a self-contained HTML page instead of the golden text.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write to this file instead of standard output.")
@click.option("--no-color", is_flag=True, help="stdio: no colour codes even on a terminal.")
@limit_options
def render(surface: str, path: str, live: bool, normalize: bool, terminal_output: bool | None, profile: str,
           locale: str, html: bool, output: Path | None, no_color: bool, max_record_bytes: int,
           max_log_bytes: int) -> None:
    """Replay a session log through a renderer: acp, stdio or web.

    PATH is a session log, - for standard input, or a harness scenario folder
    (input.json + session.jsonl); child logs contribute nothing to the parent's stream.
    """
    from replay.render.acp import render_acp
    from replay.render.acp.profiles import DEFAULT_PROFILE, PROFILES, detect_profile
    from replay.render.acp.stream import normalized_lines
    from replay.render.stdio import render_stdio
    from replay.render.web import html_chunks, web_golden

    log, folder_terminal = _read_or_exit(path, _limits(max_record_bytes, max_log_bytes))
    assert log.header is not None
    passes = _passes(log)
    to_terminal = output is None and sys.stdout.isatty()
    chunks: Iterable[str]
    if surface == "acp":
        session_id = log.header.id or ""
        terminal = folder_terminal if terminal_output is None else terminal_output
        mode: Mode = "live" if live else "load"
        chosen: Profile
        if profile == "auto":
            chosen = detect_profile(passes()) or DEFAULT_PROFILE  # stops at the first telling event
        else:
            chosen = "2026-08" if profile == "2026-08" else "2026-07"
        if mode == "load" and not PROFILES[chosen].has_load:
            raise click.UsageError(f"the {chosen} ACP agent has no session/load; render it --live")
        if normalize:
            lines = normalized_lines(passes(), session_id=session_id, header_cwd=log.header.cwd, mode=mode,
                                     profile=chosen, terminal_output=terminal)
            chunks = (part for line in lines for part in (line, "\n"))
        else:
            frames = render_acp(passes(), session_id=session_id, mode=mode, profile=chosen,
                                terminal_output=terminal, cwd=log.header.cwd)
            chunks = _json_lines(frames)
    elif surface == "stdio":
        chunks = render_stdio(passes(), color=use_color(sys.stdout, no_color) if output is None else False,
                              terminal=to_terminal)
    elif html:
        chunks = html_chunks(passes, locale=locale)
    else:
        chunks = [web_golden(passes(), locale) + "\n"]
    if output is None:
        if to_terminal and surface != "stdio":  # stdio sanitizes its content itself, keeping its own codes
            chunks = (sanitize(chunk, keep_newlines=True) for chunk in chunks)
        out = stdout()
        for chunk in chunks:
            out.write(chunk)
        out.flush()
    else:
        write_output(output, chunks)


def _json_lines(frames: Iterable[object]) -> Iterator[str]:
    """Each frame as a ``JSON.stringify`` line; a long one in pieces, never joined."""
    from replay.jsjson import dump_parts

    for frame in frames:
        parts = dump_parts(frame)
        if sum(map(len, parts)) < 1 << 20:
            yield "".join(parts) + "\n"
        else:
            yield from parts
            yield "\n"


def _passes(log: LogRead) -> Callable[[], Iterator[Event]]:
    """Fresh iterations of a log's events: the log already open first, then the
    source read again (a stream was kept in a spool) for each later pass."""
    opened = [log]

    def events() -> Iterator[Event]:
        current = opened.pop() if opened else read_log(log.source, log.limits)
        return iter_events(current.items())

    return events


@main.command()
@click.argument("path", metavar="PATH")
@click.option("--locale", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("--open", "open_browser", is_flag=True, help="Also open the page in a web browser.")
@limit_options
def view(path: str, locale: str, open_browser: bool, max_record_bytes: int, max_log_bytes: int) -> None:
    """Write a self-contained HTML page of a session (transcript, tool rows, plan panel,
    plan timeline) to a temporary file and print its path."""
    import tempfile
    import webbrowser

    from replay.render.web import html_chunks

    log, _ = _read_or_exit(path, _limits(max_record_bytes, max_log_bytes))
    page = html_chunks(_passes(log), locale=locale)
    try:
        fd, name = tempfile.mkstemp(prefix="replay-view-", suffix=".html")
    except OSError as exc:
        raise OutputError(f"{tempfile.gettempdir()}: cannot write the page ({exc.strerror or exc})") from None
    os.close(fd)
    try:
        write_output(Path(name), page)
    except BaseException:
        os.unlink(name)
        raise
    click.echo(name)
    if open_browser:
        webbrowser.open(Path(name).as_uri())


@main.command()
@click.argument("roots", nargs=-1, required=True, metavar="CORPUS_DIR...",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(CONFORMANCE_FORMATS)), default="text", show_default=True)
@click.option("--profile", type=click.Choice(["2026-07", "2026-08"]), default=None,
              help="Render every scenario as this generation of the harness's ACP agent (default: per corpus "
                   "folder, the generation its logs were written in).")
def conformance(roots: tuple[Path, ...], fmt: str, profile: str | None) -> None:
    """Render every harness scenario under the roots (acp, live and load, normalized) and
    compare the streams with its goldens; exit 1 when a scored scenario differs.
    Scenarios with replay.override.json are derived by a keyless run with the override
    as the model (in a temporary folder) and counted apart, as are slash-command prompts."""
    from replay.scenarios.conformance import run_conformance

    chosen: Profile | None = None if profile is None else "2026-08" if profile == "2026-08" else "2026-07"
    report = run_conformance(roots, profile=chosen)
    if not report.scenarios:
        raise click.UsageError("no harness scenario folders with a stdout golden under the given roots")
    out = stdout()
    out.write(CONFORMANCE_FORMATS[fmt].render(report))
    out.flush()
    sys.exit(1 if report.failed else 0)


@main.command()
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

        click.echo(shipped_schema(), nl=False)
        return
    if policy is None:
        raise click.UsageError("`replay schema todo_write` needs --policy parallel|single: the policy is a choice")
    config = Config(allow_parallel_in_progress=Policy(policy) is Policy.PARALLEL)
    click.echo(json.dumps(tool_schema(config), indent=2, ensure_ascii=False))


@main.command()
@click.argument("name")
@click.option("--from-log", "from_log", type=click.Path(exists=True, path_type=Path), default=None,
              metavar="PATH", help="Import a harness session (a session.jsonl[.zstd], or a harness scenario folder "
                                   "with its children, input.json and replay.override.json) as a recorded scenario.")
@click.option("--force", is_flag=True, help="--from-log: import even when the audit finds errors (and say so).")
@click.option("--use-override", is_flag=True,
              help="--from-log: let the harness folder's replay.override.json play the model it scripts (the agent's, "
                   "or the session-title model's), as the harness's keyless suite does.")
@click.option("--locale", type=click.Choice(["en", "zh"]), default="en", show_default=True,
              help="--from-log: the web renderer's locale (harness logs do not record one).")
@click.option("--scenarios", "scenarios_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder of scenario folders.  [default: scenarios]")
@click.option("--no-color", is_flag=True, help="No colour even on a terminal.")
def new(name: str, from_log: Path | None, force: bool, use_override: bool, locale: str, scenarios_dir: Path | None,
        no_color: bool) -> None:
    """Create scenarios/NAME: a scaffold (a scripted model with one todo_write call
    and a closing text), or with --from-log the import of a real harness session,
    whose recording plays the model. Never overwrites a scenario.

    Exit status: 0 created, 1 the audit of the log to import found errors (nothing
    written), 2 usage error (the name is taken, the input is not a log).
    """
    if from_log is None and (force or use_override or locale != "en"):
        raise click.UsageError("--force, --use-override and --locale belong to an import (--from-log PATH)")
    from replay.report.scenario import new_text
    from replay.scenarios.importer import ImportRefused, NewScenarioError, import_log, scaffold

    root = _folder_tree(scenarios_dir if scenarios_dir is not None else Path(SCENARIOS), Path(SCENARIOS))
    out = stdout()
    style = style_for(sys.stdout, no_color)
    try:
        if from_log is not None:
            result = import_log(root, name, from_log, force=force, locale=locale, use_override=use_override)
        else:
            result = scaffold(root, name)
    except NewScenarioError as exc:
        raise click.UsageError(sanitize(str(exc))) from None
    except FsError as exc:
        _fail("new", exc)
    except ImportRefused as exc:
        out.write("".join(log_text(r, style) for r in exc.reports))
        out.flush()
        click.echo(f"replay new: {sanitize(str(exc))}", err=True)
        sys.exit(1)
    if result.forced:
        out.write("".join(log_text(r, style) for r in result.forced))
    out.write(new_text(result, scenarios_dir))
    out.flush()


@main.command()
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
    echo(reporting.render(helps, style_for(sys.stdout)))


@main.command()
@click.argument("path", metavar="PATH")
@click.option("--at", "at", type=int, default=None, metavar="SEQ",
              help="The plan in force right after the event with this seq.")
@limit_options
def plan(path: str, at: int | None, max_record_bytes: int, max_log_bytes: int) -> None:
    """Print the standing plan (the todos projection) of one log as JSON; null when none."""
    log, _ = _read_or_exit(path, _limits(max_record_bytes, max_log_bytes))
    events = iter_events(log.items())
    try:
        todos = standing_plan(events) if at is None else plan_at(events, at)
    except SeqOutOfRange as exc:
        raise click.BadParameter(sanitize(str(exc)), param_hint="--at") from None
    out = stdout()
    out.write_bytes(json_bytes(todos) + b"\n")
    out.flush()
