"""The options several commands share, declared once: the caps, the folders (opened as
confined trees), the workers, what an audit reports and fails on, and the audit cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from replay.check.cache import CACHE_ENV, CACHE_FOLDER
from replay.check.engine import Policy
from replay.cluster import SCHEDULER_SECONDS
from replay.findings import Severity
from replay.fs import Tree
from replay.goldens import GOLDENS, PENDING_FOLDER
from replay.log.reader import Limits
from replay.parallel import MAX_JOBS, usable_cpus, workers_for
from replay.scenarios import SCENARIOS

_DEFAULT_LIMITS = Limits()
SEVERITY_CHOICES = [s.value for s in Severity]


def _options(*options: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(f: Any) -> Any:
        for option in reversed(options):
            f = option(f)
        return f
    return apply


limit_options = _options(
    click.option("--max-record-bytes", type=click.IntRange(min=1), default=_DEFAULT_LIMITS.max_record_bytes,
                 show_default=True, help="Largest single record read; a longer one is a finding."),
    click.option("--max-log-bytes", "max_log_bytes", type=click.IntRange(min=1),
                 default=_DEFAULT_LIMITS.max_log_bytes, show_default=True,
                 help="Most bytes read from one log (file, standard input, FIFO; a zstd log's plaintext: the "
                      "decompression-bomb guard); more is a finding."),
    click.option("--max-decompressed-bytes", "old_max_log_bytes", type=click.IntRange(min=1), default=None,
                 hidden=True),  # the old name of --max-log-bytes: still accepted, with a line that says so
)


def limits_from(options: dict[str, Any]) -> Limits:
    old = options.pop("old_max_log_bytes")
    if old is not None:
        click.echo("replay: --max-decompressed-bytes is deprecated: it is --max-log-bytes now", err=True)
    return Limits(max_record_bytes=options.pop("max_record_bytes"),
                  max_log_bytes=old if old is not None else options.pop("max_log_bytes"))


def folder_tree(path: Path, own: Path) -> Tree:
    """A tree option's folder: the repo's own (``own``, its default, typed or not) is
    opened without following a link at any level; another folder the user named is
    theirs (the links in its path are followed). Nothing below either is trusted."""
    return Tree.found(path) if path == own else Tree.named(path)


def _tree(ctx: click.Context, param: click.Parameter, value: Path | None) -> Tree | None:
    if value is None:
        return None
    assert isinstance(param, click.Option) and param.default is not None
    return folder_tree(Path(value), Path(str(param.default)))


def _tree_option(name: str, default: str, what: str) -> Callable[[Any], Any]:
    return click.option(f"--{name}", f"{name}_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=Path(default), show_default=True, callback=_tree, help=what)


tree_options = _options(_tree_option("scenarios", SCENARIOS, "Folder of scenario folders."),
                        _tree_option("goldens", GOLDENS, "Folder of golden folders."))
pending_options = _options(
    click.option("--pending", "pending_dir", type=click.Path(file_okay=False, path_type=Path),
                 default=Path(PENDING_FOLDER), show_default=True, callback=_tree,
                 help="The pending goldens (from `replay check --pending`, or a CI job's artefact)."),
    tree_options)
no_color_option = click.option("--no-color", is_flag=True, help="No colour even on a terminal.")


def _jobs(ctx: click.Context, param: click.Parameter, jobs: int | None) -> int | None:
    """``--jobs``: a whole number from 1 to ``MAX_JOBS``."""
    if jobs is not None and jobs < 1:
        raise click.BadParameter(f"{jobs}: at least 1 (1 runs in this process)", ctx, param)
    if jobs is not None and jobs > MAX_JOBS:
        raise click.BadParameter(f"{jobs}: at most {MAX_JOBS} worker processes (and replay never starts more than "
                                 f"the usable CPUs: {usable_cpus()} here)", ctx, param)
    return jobs


def jobs_option(what: str) -> Callable[[Any], Any]:
    return click.option(
        "--jobs", "-j", type=int, callback=_jobs, default=None,
        help=f"Worker processes (default: the usable CPUs; 1 {what} in this process; at most {MAX_JOBS}, and never "
             "more than the usable CPUs). The results are the same for any number.")


def says_a_line(options: dict[str, Any], jobs: int | None, scheduler: str | None) -> bool:
    """Whether the options say a line on standard error as they are taken (the old
    name of ``--max-log-bytes``, ``--jobs`` past the usable CPUs): what a run record,
    which says none, may not answer (``replay.check.quick``). Before ``limits_from``."""
    return options.get("old_max_log_bytes") is not None or \
        (jobs is not None and scheduler is None and workers_for(jobs) < jobs)


def workers_asked(command: str, jobs: int | None) -> int:
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



audit_choice_options = _options(
    click.option("--select", multiple=True, metavar="RULES",
                 help="Report only these rules: ids (A6, D1) or series (T, B), comma-separated or repeated. "
                      "[default: every rule, or the select of [tool.replay.audit] in pyproject.toml]"),
    click.option("--ignore", multiple=True, metavar="RULES",
                 help="Do not report these rules (ids or series); a more specific --select wins."),
    click.option("--min-severity", type=click.Choice(SEVERITY_CHOICES), default=None,
                 help="Report only findings this severe or more (policy < warning < error). [default: policy]"),
    click.option("--policy", type=click.Choice([p.value for p in Policy]), default=Policy.PARALLEL.value,
                 show_default=True,
                 help="todo_write policy for the what-if (P1); 'single' reports parallel in_progress items."),
    click.option("--fail-on", type=click.Choice(SEVERITY_CHOICES), multiple=True,
                 help="Severities that make the exit code 1 (errors always do). Repeatable."),
    click.option("--baseline", "baseline", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 metavar="FILE", help="Report only findings not in this baseline (matched by file, rule and the "
                                      "fingerprint of the record, not by line)."),
)
"""What an audit reports and what fails it: ``replay audit``'s and ``replay view``'s."""
cache_options = _options(
    click.option("--no-cache", is_flag=True, help="Neither read nor write the audit cache: read every log."),
    click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None, envvar=CACHE_ENV,
                 metavar="DIR", help=f"The audit cache's folder. [default: {CACHE_FOLDER}/ below the working "
                                     f"directory, or ${CACHE_ENV}]"),
    click.option("--verify-cache", is_flag=True,
                 help="Read every cached log again and reuse its report only if its bytes are unchanged (a "
                      "periodic full check in CI)."),
)
"""The audit cache's options: ``replay audit``'s and ``replay view``'s."""
scheduler_option = click.option(
    "--scheduler", default=None, metavar="ADDRESS",
    help="Run on the Dask cluster of this scheduler (tcp://host:8786) instead of local processes; its workers read "
         f"the logs themselves (needs the dask extra). Given up on (exit 2) when it does not answer within "
         f"{SCHEDULER_SECONDS:g} s.")
