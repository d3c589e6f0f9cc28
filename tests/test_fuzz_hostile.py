"""Fuzz: hostile logs and hostile trees through every command, in process.

Logs are real corpus logs mutated at the value level (any Unicode, lone surrogates and
terminal escapes included; integers far beyond 64 bits; wrong types), at the byte level
(invalid UTF-8, cuts), and sometimes packed as zstd; trees are a real scenario and its
goldens with links out of the tree, a lock path that is a folder, a link or a FIFO,
FIFOs in place of files, stray temp files, and a mutated recording; archives are
``.tar`` and ``.tar.zst`` files of hand-made member headers of every type, declaring
any size (up to 10**30 bytes), repeated, followed by a real log, bytes or nothing, and
cut anywhere.

For every command and every input: no traceback, an exit status in {0, 1, 2}, standard
output that is valid UTF-8, no control character (C0 but tab and newline, DEL, C1, bidi
controls) in a text or GitHub report or in a message, every GitHub line a workflow
command, and no file changed outside the temporary folder the run owns: not the files
links point at, and not the repository the commands run in (its ``goldens/``,
``scenarios/`` and ``.replay/``, the default trees, and no new entry at its top).

Each example runs commands, so each test asks for its own number of examples
(``tests.helpers.examples``): a quarter of the profile's for a commit ("ci": 50), and
ten times that in the scheduled run (``nox -s fuzz``: 500), which is the one that
found, on the code before issue 9, the lone-surrogate crashes, the 64-bit JSON crash
and the terminal escapes in reports; see docs/development.md for what each costs.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from replay import parallel
from replay.check import runner
from replay.cli import main
from replay.parallel import usable_cpus
from tests.helpers import ACP, CONTROLS, REPO, SURROGATES, ascii_dump, corpus_file, examples, hostile_text

# The command line raises the recursion limit (deeply nested values); raise it before
# the tests run, so that hypothesis sees no change during an example.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

BASES = [f"{ACP}/todo-write/session.jsonl", f"{ACP}/text-turn/session.jsonl", f"{ACP}/cancel/session.jsonl",
         f"{ACP}/error-finish/session.jsonl", "acp-2026-06-29/todo-plan/session.jsonl"]
SCENARIO = "recorded-parallel-plan"

# -- strategies --------------------------------------------------------------------------

ESCAPES = ["\x1b]52;c;cHduZWQ=\x07", "\x1b]8;;https://example.invalid/\x1b\\link\x1b]8;;\x1b\\", "\x1b[2J",
           "\x1b[31mred", "\x9b2J", "\x9d0;title\x9c", "\u202egnp.exe", "\u2066x\u2069", "\r\n::error::injected",
           "%0A::warning::x", "</script><script>alert(1)</script>", "\x00", "\x7f", "\t", "\u2028\u2029",
           "\ufeff", "{{cwd}}", "../../etc/passwd", "\ud800", "\udfff!"]


def _around(middle: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A short text with ``middle`` in it."""
    return st.tuples(st.text(max_size=4), middle, hostile_text(4)).map("".join)


HOSTILE_TEXT = st.one_of(
    hostile_text(12),
    _around(SURROGATES),
    _around(CONTROLS),
    st.lists(st.one_of(st.sampled_from(ESCAPES), hostile_text(4)), min_size=1, max_size=4).map(
        "".join),
)
HUGE = st.one_of(st.integers(-(10**40), 10**40), st.sampled_from([2**53, 2**63, 2**64, -(2**63) - 1, 10**400,
                                                                  -(10**400)]),
                 st.floats(allow_nan=False))
WRONG = st.one_of(st.none(), st.booleans(), st.just([]), st.just({}), st.just([None, 1, "x"]),
                  st.just({"type": "text"}), HOSTILE_TEXT, HUGE)
VALUE_OPS = st.one_of(
    st.tuples(st.just("shown"), st.integers(0, 10**6), HOSTILE_TEXT),
    st.tuples(st.just("text"), st.integers(0, 10**6), HOSTILE_TEXT),
    st.tuples(st.just("number"), st.integers(0, 10**6), HUGE),
    st.tuples(st.just("type"), st.integers(0, 10**6), WRONG),
    st.tuples(st.just("seq"), st.integers(0, 10**6), HUGE),
)
BYTE_OPS = st.tuples(st.sampled_from(["insert", "cut"]), st.integers(0, 10**9),
                     st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\x1b[2J", b"\n", b"\x00", b"\xc2\x9b", b"\r"]))


SHOWN = frozenset({"text", "texts", "content", "title", "name", "arguments", "args", "argumentsDelta", "status",
                   "reason", "turn", "callId", "toolCallId"})
"""Keys whose values the renderers and reports show: the ``shown`` mutation aims there."""


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path, value


def _set(root: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        root = root[key]
    root[path[-1]] = value


def _mutate(recs: list[Any], ops: list[tuple[str, int, Any]]) -> None:
    for kind, at, value in ops:
        rec = recs[at % len(recs)]
        value = copy.deepcopy(value)  # a value may be drawn twice: never share it
        if kind == "seq":
            if isinstance(rec, dict) and rec is not recs[0]:
                rec["seq"] = value
            continue
        wanted = {"text": str, "shown": str, "number": int | float}.get(kind, object)
        leaves = [(p, v) for p, v in _leaves(rec) if p and isinstance(v, wanted) and not isinstance(v, bool)
                  and (kind != "shown" or SHOWN.intersection(k for k in p if isinstance(k, str)))]
        if leaves:
            _set(rec, leaves[(at // 7) % len(leaves)][0], value)


def _damage(data: bytes, ops: list[tuple[str, int, bytes]]) -> bytes:
    buf = bytearray(data)
    for kind, at, blob in ops:
        where = at % (len(buf) + 1)
        if kind == "insert":
            buf[where:where] = blob
        else:
            del buf[max(where, len(buf) // 2):]  # cut the second half somewhere
    return bytes(buf)


LOGS = st.tuples(
    st.sampled_from(BASES),
    st.lists(VALUE_OPS, min_size=1, max_size=4),
    st.lists(BYTE_OPS, max_size=2),
    st.sampled_from(["session.jsonl", "session.jsonl", "session.jsonl.zstd", "x\udcff\u202e.jsonl",
                     "a b\x1b[2J.jsonl"]),
)
"""``(base log, value mutations, byte damage, file name)``: drawn as the recipe, so a
failing example prints as one."""


def _build(recipe: tuple[str, list[tuple[str, int, Any]], list[tuple[str, int, bytes]], str]) -> tuple[str, bytes]:
    """``(file name, bytes)`` of the mutated log (zstd frames for a ``.zstd`` name)."""
    base, ops, damage, name = recipe
    recs = [orjson.loads(line) for line in corpus_file(base).read_bytes().split(b"\n") if line]
    _mutate(recs, ops)
    data = _damage(ascii_dump(recs), damage)
    if name.endswith(".zstd"):
        lines = data.split(b"\n")
        cctx = zstandard.ZstdCompressor(write_checksum=True)
        data = cctx.compress(lines[0] + b"\n") + cctx.compress(b"\n".join(lines[1:]))
    return name, data


# -- assertions --------------------------------------------------------------------------

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
if os.environ.get("FUZZ_NO_CONTROL"):  # while developing: look for crashes only
    CONTROL = re.compile("\uffff")
GITHUB_LINE = re.compile(r"::(error|warning|notice)( [^:]*)?::")


FINDINGS_LOG = os.environ.get("FUZZ_FINDINGS")
"""Diagnostics: with ``FUZZ_FINDINGS=FILE``, a failing check is appended to FILE (one
line: the check, the command, what was wrong) instead of failing the example, so one
run shows every kind of bug the examples reach (how issue 9's rows were shown to be
found on the old code)."""


def _fail(check: str, args: list[str], detail: str) -> None:
    if FINDINGS_LOG is None:
        raise AssertionError(f"{check}: replay {' '.join(args)}: {detail}")
    with open(FINDINGS_LOG, "a", encoding="utf-8", errors="backslashreplace") as fh:
        fh.write(f"{check}\t{args[0]} {args[1] if len(args) > 2 else ''}\t{detail[:200]!r}\n")


def _run(args: list[str], *, report: str | None = None) -> str:
    """Run one command in process; return its standard output, checked. ``report``
    (``text`` or ``github``) asks for the control-character checks of a report."""
    return _checked(CliRunner().invoke(main, args), args, report=report)


def _checked(result: Result, args: list[str], *, report: str | None = None) -> str:
    """``result``'s standard output, after ``_run``'s checks."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        if FINDINGS_LOG is None:
            raise result.exception  # where it was raised tells one bug from another
        _fail("exception", args, f"{type(result.exception).__name__}: {result.exception}")
        return ""
    if result.exit_code not in (0, 1, 2):
        _fail("exit status", args, str(result.exit_code))
    try:
        out = result.stdout_bytes.decode("utf-8")  # strictly valid UTF-8
        err = result.stderr_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail("not UTF-8", args, str(exc))
        return ""
    if "Traceback" in out + err:
        _fail("traceback", args, err[-200:])
    found = CONTROL.search(err)
    if found is not None:
        _fail("control character in a message", args, repr(found.group()))
    if report is not None:
        found = CONTROL.search(out)
        if found is not None:
            _fail(f"control character in the {report} report", args, repr(found.group()) + " in " + repr(
                out[max(0, found.start() - 40):found.end() + 10]))
    if report == "github":
        for line in out.split("\n")[:-1]:  # the runner reads lines at \n
            if not GITHUB_LINE.match(line):
                _fail("GitHub line that is not a workflow command", args, line)
    return out


def _check_file(path: Path, what: str, args: list[str]) -> None:
    """A page or a JUnit report: valid UTF-8, no control character (XML 1.0 cannot
    carry them; the page shows log text to a person)."""
    if not path.exists():
        return
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail(f"{what} not UTF-8", args, str(exc))
        return
    found = CONTROL.search(text)
    if found is not None:
        _fail(f"control character in {what}", args, repr(found.group()))


def _snapshot(root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st_ = path.lstat()
            out[str(path)] = (st_.st_mode, st_.st_size, st_.st_mtime_ns,
                              os.readlink(path) if path.is_symlink() else None)
    return out


_CACHES = frozenset({".hypothesis", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".nox"})
"""Entries at the repository's top that the test tools themselves write."""


def _repo_snapshot() -> dict[str, Any]:
    """The repository (and the working directory, where relative defaults such as
    ``goldens`` and ``.replay/pending`` land): its default trees, file by file, and
    the names at its top."""
    out: dict[str, Any] = {}
    for root in {REPO, Path.cwd()}:
        for tree in ("goldens", "scenarios", ".replay"):
            out.update(_snapshot(root / tree))
        out[f"{root}/*"] = sorted(name for name in os.listdir(root)
                                  if name not in _CACHES and not name.startswith(".coverage"))
    return out


class Sandbox:
    """A temp root for one example: ``work/`` (what the commands may change) and
    ``outside/`` (precious files links point at). ``seal()`` once the example is set
    up: from then on nothing outside ``work/`` may change, neither in ``outside/`` nor
    in the repository the commands run in (``_repo_snapshot``). Temporary files
    (``view``'s page, spools) go inside the root."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="replay-fuzz-"))
        self.work, self.outside = self.root / "work", self.root / "outside"
        self.work.mkdir()
        self.outside.mkdir()
        (self.outside / "precious.txt").write_text("precious\n")
        (self.outside / "web.expected.txt").write_text("SECRET\n")
        (self.outside / ".tmp-1-0").write_text("a temp-named precious file\n")
        (self.root / "tmp").mkdir()
        self.sealed: dict[str, Any] | None = None

    def seal(self) -> None:
        self.sealed = {**_snapshot(self.outside), **_repo_snapshot()}

    def check(self) -> None:
        assert self.sealed is not None
        now = {**_snapshot(self.outside), **_repo_snapshot()}
        changed = sorted(key for key in self.sealed.keys() | now.keys() if self.sealed.get(key) != now.get(key))
        assert now == self.sealed, f"changed outside the sandbox's work folder: {changed}"


@contextlib.contextmanager
def _sandbox() -> Iterator[Sandbox]:
    box = Sandbox()
    old_tempdir = tempfile.tempdir
    tempfile.tempdir = str(box.root / "tmp")
    try:
        yield box
        box.check()
    finally:
        tempfile.tempdir = old_tempdir
        shutil.rmtree(box.root, ignore_errors=True)


LOG_COMMANDS: list[tuple[list[str], str | None]] = [
    (["audit", "--no-color"], "text"),
    (["audit", "--format", "github"], "github"),
    (["audit", "--format", "json", "--junit", "{junit}"], None),
    (["audit", "--format", "sarif", "--write-baseline", "{baseline}"], None),
    (["audit", "--no-color", "--baseline", "{baseline}"], "text"),
    (["render", "acp"], None),
    (["render", "acp", "--load", "--normalize"], None),
    (["render", "stdio"], None),
    (["render", "web"], None),
    (["render", "web", "--html", "-o", "{page}"], None),
    (["plan"], None),
    (["plan", "--at", "20"], None),
    (["view"], None),
    (["export", "-o", "{export}", "--events"], None),
    (["export", "-o", "{database}"], None),
    (["export", "--format", "otlp", "-o", "{traces}"], None),
]


@settings(max_examples=examples(50), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(recipe=LOGS)
def test_every_command_survives_a_hostile_log(recipe: Any) -> None:
    name, data = _build(recipe)
    with _sandbox() as box:
        work = box.work
        path = work / name
        path.write_bytes(data)
        box.seal()
        for args, report in LOG_COMMANDS:
            argv = [a.replace("{junit}", str(work / "junit.xml")).replace("{page}", str(work / "page.html"))
                    .replace("{baseline}", str(work / "baseline.json")).replace("{export}", str(work / "export"))
                    .replace("{database}", str(work / "export.duckdb")).replace("{traces}", str(work / "traces"))
                    for a in args]
            out = _run([*argv, str(path)], report=report)
            if args[0] == "view" and out.strip():
                _check_file(Path(out.strip()), "the page", args)
        _check_file(work / "page.html", "the page", ["render", "web", "--html"])
        _check_file(work / "junit.xml", "JUnit XML", ["audit", "--junit"])
        _check_export(work / "export", data)
        # The log as a harness scenario folder (with its input.json and golden), imported
        # as a scenario and rendered by conformance.
        harness = work / "harness" / "case"
        shutil.copytree(corpus_file(recipe[0]).parent, harness)
        (harness / "session.jsonl").write_bytes(data if not name.endswith(".zstd") else _build(
            (recipe[0], recipe[1], recipe[2], "session.jsonl"))[1])
        _run(["new", "imported", "--from-log", str(path), "--force", "--scenarios", str(work / "scenarios")],
             report="text")
        _run(["conformance", str(work / "harness")], report="text")
        _run(["conformance", "--format", "json", str(work / "harness")])


def _check_export(folder: Path, data: bytes) -> None:
    """The export's strings are the log's, exactly: its header's (a lone surrogate, which
    UTF-8 cannot hold, as U+FFFD)."""
    pq = pytest.importorskip("pyarrow.parquet", reason="the export extra (pyarrow) is not installed")
    # Only the columns compared: a hostile time past year 9999 is a valid timestamp that
    # Python's datetime (to_pylist) cannot hold.
    rows = pq.read_table(folder / "sessions.parquet", columns=["cwd", "session_id"]).to_pylist()
    assert len(rows) == 1
    try:
        # Decoded as the harness decodes a record (UTF-8 with replacement: three bytes of an
        # encoded surrogate are three U+FFFD), not as json.loads decodes bytes (surrogatepass).
        header = json.loads(data.split(b"\n", 1)[0].decode("utf-8", "replace"))
    except ValueError:
        return  # a damaged or compressed header: nothing to compare
    for key, column in (("cwd", "cwd"), ("id", "session_id")):
        value = header.get(key) if isinstance(header, dict) else None
        if isinstance(value, str) and rows[0][column] is not None:
            assert rows[0][column] == value.encode("utf-16", "surrogatepass").decode("utf-16", "replace"), key


# -- hostile trees -----------------------------------------------------------------------

TREE_OPS = st.sampled_from([
    "golden folder links out", "golden file links out", "lock is a folder", "lock links out", "lock is a FIFO",
    "golden is a FIFO", "scenario links out", "scenario.json links out", "scenario.json is a FIFO",
    "stray temp files", "orphan folder", "golden is a folder", "pending folder links out",
    "goldens root links out", "scenarios root links out", ".replay links out", "pending root links out",
])


def _tree_op(op: str, repo: Path, outside: Path) -> None:
    goldens, scenarios = repo / "goldens", repo / "scenarios"
    golden = goldens / SCENARIO / "web.expected.txt"
    spec = scenarios / SCENARIO / "scenario.json"
    if op == "golden folder links out":
        (goldens / "elsewhere").symlink_to(outside, target_is_directory=True)
    elif op == "golden file links out" and golden.is_file() and not golden.is_symlink():
        golden.unlink()
        golden.symlink_to(outside / "web.expected.txt")
    elif op == "lock is a folder" and not os.path.lexists(goldens / ".refresh.lock"):
        (goldens / ".refresh.lock").mkdir()
    elif op == "lock links out" and not os.path.lexists(goldens / ".refresh.lock"):
        (goldens / ".refresh.lock").symlink_to(outside / "lock-target")
    elif op == "lock is a FIFO" and not os.path.lexists(goldens / ".refresh.lock"):
        os.mkfifo(goldens / ".refresh.lock")
    elif op == "golden is a FIFO" and golden.is_file() and not golden.is_symlink():
        golden.unlink()
        os.mkfifo(golden)
    elif op == "golden is a folder" and golden.is_file() and not golden.is_symlink():
        golden.unlink()
        golden.mkdir()
    elif op == "scenario links out" and not (scenarios / SCENARIO).is_symlink():
        shutil.move(scenarios / SCENARIO, outside / "scenario-copy")
        (scenarios / SCENARIO).symlink_to(outside / "scenario-copy", target_is_directory=True)
    elif op == "scenario.json links out" and spec.is_file() and not spec.is_symlink():
        shutil.copy(spec, outside / "scenario.json")
        spec.unlink()
        spec.symlink_to(outside / "scenario.json")
    elif op == "scenario.json is a FIFO" and spec.is_file() and not spec.is_symlink():
        spec.unlink()
        os.mkfifo(spec)
    elif op == "stray temp files" and (goldens / SCENARIO).is_dir():
        (goldens / SCENARIO / ".tmp-1-deadbeef").write_text("init's, alive: kept\n")
        (goldens / SCENARIO / ".tmp-zz").write_text("not ours: kept\n")
    elif op == "pending folder links out":
        (repo.parent / "pending").mkdir(exist_ok=True)
        (repo.parent / "pending" / SCENARIO).symlink_to(outside, target_is_directory=True)
    elif op in ("goldens root links out", "scenarios root links out"):
        root = goldens if op.startswith("goldens") else scenarios
        if root.is_dir() and not root.is_symlink():
            shutil.move(root, outside / f"{root.name}-copy")
            root.symlink_to(outside / f"{root.name}-copy", target_is_directory=True)
    elif op == ".replay links out" and not os.path.lexists(repo / ".replay"):
        (outside / "dot-replay" / "pending").mkdir(parents=True)
        (repo / ".replay").symlink_to(outside / "dot-replay", target_is_directory=True)
    elif op == "pending root links out" and not os.path.lexists(repo / ".replay"):
        (outside / "pending-copy").mkdir()
        (repo / ".replay").mkdir()
        (repo / ".replay" / "pending").symlink_to(outside / "pending-copy", target_is_directory=True)
    elif op == "orphan folder":
        (goldens / "gone\x1b[2J\u202e").mkdir(exist_ok=True)
        (goldens / "gone\x1b[2J\u202e" / "stdout.expected.jsonl").write_text("{}\n")


TREE_COMMANDS: list[tuple[list[str], str | None]] = [
    (["check", "--no-color"], "text"),
    (["check", "--format", "github"], "github"),
    (["check", "--format", "json", "--junit", "{junit}"], None),
    (["check", "--no-color", "--pending={pending}"], "text"),
    (["accept", "--no-color", "--pending", "{pending}"], "text"),
    (["refresh", "--dry-run", "--no-color"], "text"),
    (["refresh", "--no-color"], "text"),
    (["refresh", "--prune", "--no-color"], "text"),
    (["check", "--no-color", SCENARIO], "text"),
    (["reject", "--no-color", "--pending", "{pending}"], "text"),
]


@settings(max_examples=examples(50), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ops=st.lists(TREE_OPS, max_size=4, unique=True), recipe=st.one_of(st.none(), LOGS), defaults=st.booleans())
def test_every_tree_command_survives_a_hostile_tree(ops: list[str], recipe: Any, defaults: bool) -> None:
    """Run on trees named on the command line, or (``defaults``) on the default
    folders of the working directory, where a root that is a link is refused."""
    log = _build(recipe) if recipe is not None else None
    with _sandbox() as box, contextlib.ExitStack() as stack:
        work, outside = box.work, box.outside
        repo = work / "repo"
        shutil.copytree(REPO / "scenarios" / SCENARIO, repo / "scenarios" / SCENARIO)
        shutil.copytree(REPO / "goldens" / SCENARIO, repo / "goldens" / SCENARIO)
        if log is not None and not log[0].endswith(".zstd"):
            (repo / "scenarios" / SCENARIO / "session.jsonl").write_bytes(log[1])
        for op in ops:
            if defaults or ("root" not in op and not op.startswith(".replay")):  # a root named is the user's
                _tree_op(op, repo, outside)
        box.seal()
        tree = ["--scenarios", str(repo / "scenarios"), "--goldens", str(repo / "goldens")]
        pending = str(work / "pending")
        if defaults:
            stack.enter_context(contextlib.chdir(repo))
            tree, pending = [], ".replay/pending"
        for args, report in TREE_COMMANDS:
            argv = [a.replace("{junit}", str(work / "junit.xml")).replace("{pending}", pending) for a in args]
            _run([*argv, *tree], report=report)
        _run(["new", "fresh", *tree[:2]], report="text")
        _check_file(work / "junit.xml", "JUnit XML", ["check", "--junit"])


@pytest.mark.parametrize(("args", "report"), [
    (["audit", "-"], "text"), (["audit", "--format", "github", "-"], "github"), (["render", "stdio", "-"], None),
    (["plan", "-"], None), (["view", "-"], None)])
def test_standard_input_is_a_hostile_log_too(args: list[str], report: str | None) -> None:
    data = ascii_dump([{"type": "session", "version": 0, "id": "s\ud800", "createdAt": 0, "delegationDepth": 0},
                    {"type": "session/title", "seq": 10**30, "time": -1, "data": {"title": "\x1b]52;c;eA==\x07"}}])
    with _sandbox() as box:
        box.seal()
        result = CliRunner().invoke(main, args, input=data)
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert result.exit_code in (0, 1)
        result.stdout_bytes.decode("utf-8")
        out = _checked(result, args, report=report)  # what the siblings check of every command
        if args[0] == "view":
            page = Path(out.strip())
            assert page.parent == box.root / "tmp" and page.is_file(), out
            _check_file(page, "the page", args)
            html = page.read_text(encoding="utf-8")
            assert "<title>\\x1b]52;c;eA==\\x07</title>" in html  # the title, escaped


# -- hostile archives --------------------------------------------------------------------

MEMBER_TYPES = [tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.FIFOTYPE, tarfile.DIRTYPE,
                tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK,
                tarfile.GNUTYPE_SPARSE, b"V", b"?"]
MEMBER_NAMES = ["logs/a.jsonl", "logs/b.jsonl.zstd", "x.bin", "../up.jsonl", "/abs.jsonl", "d/",
                "x\x1b[2J\u202e.jsonl", "n" * 5000 + ".jsonl"]
DECLARED = st.one_of(st.integers(0, 3000), st.sampled_from([2**31, 3 << 30, 2**33 + 1, 10**12, 2**63, 2**88 - 1,
                                                           10**30]))
ARCHIVES = st.tuples(
    st.lists(st.tuples(st.sampled_from(MEMBER_TYPES), st.sampled_from(MEMBER_NAMES), DECLARED,
                       st.sampled_from(["the log", "the log", "log", "bytes", "nothing"]), st.integers(1, 40)),
             min_size=1, max_size=5),
    st.one_of(st.none(), st.integers(0, 10**9)),
    st.booleans(),
    st.sampled_from([[], ["--max-log-bytes", "6000"]]),
)
"""``(members as (type, name, declared size, what follows, times), cut, compressed,
caps)``: the members' headers declare their size whatever follows them, but for "the
log" (a real log, its size declared)."""


def _archive(recipe: tuple[list[tuple[bytes, str, int, str, int]], int | None, bool, list[str]]) -> tuple[str, bytes]:
    members, cut, compressed, _ = recipe
    log = corpus_file(BASES[0]).read_bytes()
    out = bytearray()
    for kind, name, declared, follows, times in members:
        size = len(log) if follows == "the log" else declared
        info = tarfile.TarInfo(name)
        info.type, info.size = kind, size
        head = info.tobuf(format=tarfile.PAX_FORMAT if size >= 2**88 else tarfile.GNU_FORMAT)
        data = {"the log": log, "log": log, "bytes": bytes(range(256)) * 8, "nothing": b""}[follows][:size]
        out += (head + data + bytes(-len(data) % tarfile.BLOCKSIZE)) * times
    out += bytes(2 * tarfile.BLOCKSIZE)
    if cut is not None:
        del out[cut % (len(out) + 1):]
    if compressed:
        return "hostile.tar.zst", zstandard.ZstdCompressor().compress(bytes(out))
    return "hostile.tar", bytes(out)


@settings(max_examples=examples(50), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(recipe=ARCHIVES)
def test_an_audit_survives_a_hostile_archive(recipe: Any) -> None:
    """Whatever the headers declare, the audit ends (the sizes are checked before
    anything is read for them) with reports under the archive's name: its logs, and at
    most one finding of its own (IO or LIMIT), never a bug of ours."""
    name, data = _archive(recipe)
    with _sandbox() as box:
        path = box.work / name
        path.write_bytes(data)
        box.seal()
        _run(["audit", "--no-color", *recipe[3], str(path)], report="text")
        args = ["audit", "--format", "json", *recipe[3], str(path)]
        result = CliRunner().invoke(main, args)
        out = _checked(result, args)
        if result.exit_code == 2:  # no session log in it, and nothing wrong with it
            assert "no session logs found" in result.stderr
            return
        for report in orjson.loads(out)["files"]:
            assert report["path"] == str(path) or report["path"].startswith(f"{path}/"), report["path"]
            assert "INTERNAL" not in [f["rule"] for f in report["findings"]], report
            if report["path"] == str(path):
                assert report["status"] == "unreadable" and [f["rule"] in ("IO", "LIMIT") for f in
                                                             report["findings"]] == [True], report


# -- hostile folders to import -------------------------------------------------------------

IMPORT_BASES = ["sessions-2026-08-20/examples_headless-agent_tests_snapshots/ralph-loop",
                "acp-2026-07-23/todo-plan", "acp-2026-06-29/subagent-spawn"]
IMPORT_OPS = st.sampled_from([
    "session.jsonl links out", "session.jsonl is a FIFO", "session.jsonl is a folder", "a child links out",
    "a child is a FIFO", "override links out", "override is a FIFO", "input.json links out", "input.json is a FIFO",
    "a zstd twin links out", "the folder is empty",
])
SECRET = b"aws_secret_access_key = hunter2-FUZZ\n"


def _import_op(op: str, folder: Path, outside: Path) -> None:
    (outside / "credentials").write_bytes(SECRET)
    names = {"session.jsonl": "session.jsonl", "a child": "session.1.jsonl", "override": "replay.override.json",
             "input.json": "input.json", "a zstd twin": "session.jsonl.zstd"}
    subject, _, what = op.partition(" links out") if op.endswith("links out") else op.partition(" is a ")
    if op == "the folder is empty":
        for entry in folder.iterdir():
            entry.unlink() if not entry.is_dir() else shutil.rmtree(entry)
        return
    target = folder / names[subject]
    if target.is_dir():
        shutil.rmtree(target)
    else:
        target.unlink(missing_ok=True)
    if op.endswith("links out"):
        target.symlink_to(outside / "credentials")
    elif what == "FIFO":
        os.mkfifo(target)
    else:
        target.mkdir()


@settings(max_examples=examples(50), suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(base=st.sampled_from(IMPORT_BASES), ops=st.lists(IMPORT_OPS, max_size=3, unique=True),
       flags=st.sampled_from([[], ["--force"], ["--force", "--use-override"]]))
def test_an_import_of_a_hostile_folder_copies_only_what_is_inside(base: str, ops: list[str],
                                                                  flags: list[str]) -> None:
    """Links, FIFOs and folders in place of a harness folder's files: the import never
    hangs, never copies what a link points at, never leaves a link, a half-made scenario
    or a hidden staging folder behind."""
    with _sandbox() as box:
        folder = box.work / "source"
        shutil.copytree(corpus_file(base), folder)
        for op in ops:
            _import_op(op, folder, box.outside)
        box.seal()
        scenarios = box.work / "scenarios"
        _run(["new", "imported", "--from-log", str(folder), *flags, "--scenarios", str(scenarios)], report="text")
        if scenarios.exists():
            found = list(scenarios.rglob("*"))
            assert not any(p.is_symlink() for p in found), found
            assert all(not p.name.startswith(".") for p in found), found  # no staging folder left
            assert SECRET not in b"".join(p.read_bytes() for p in found if p.is_file())
            made = scenarios / "imported"
            assert not made.exists() or (made / "scenario.json").is_file()


# -- extreme option values ---------------------------------------------------------------


@pytest.mark.parametrize("command", [["audit", "{log}"], ["check"], ["refresh", "--dry-run"]])
@pytest.mark.parametrize(("jobs", "why"), [
    ("0", "0: at least 1 (1 runs in this process)"),
    ("10000", "10000: at most 1024 worker processes (and replay never starts more than the usable CPUs: {cpus} here)"),
    (str(10**12), f"{10**12}: at most 1024 worker processes (and replay never starts more than the usable CPUs: "
                  "{cpus} here)"),
    (str(10**23), f"{10**23}: at most 1024 worker processes (and replay never starts more than the usable CPUs: "
                  "{cpus} here)"),
])
def test_an_absurd_number_of_jobs_is_a_usage_error(command: list[str], jobs: str, why: str) -> None:
    log = str(corpus_file(BASES[0]))
    result = CliRunner().invoke(main, [*(a.replace("{log}", log) for a in command), "--jobs", jobs])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (f"Error: Invalid value for '--jobs' / '-j': "
                                              f"{why.replace('{cpus}', str(usable_cpus()))}")


def test_more_jobs_than_cpus_or_work_start_no_more_workers_and_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--jobs 64`` runs as many worker processes as the usable CPUs and says so once;
    fewer batches of work than that start as many workers as batches, silently. The
    report is the one of ``--jobs 1``."""
    started: list[int] = []
    pool = parallel._Pool.__init__

    def counted(self: Any, work: Any, jobs: int, lost: Any, fork: bool) -> None:
        started.append(jobs)
        pool(self, work, jobs, lost, fork)

    monkeypatch.setattr(parallel._Pool, "__init__", counted)
    monkeypatch.setattr(runner, "BATCH_UNITS", 2)
    logs = [str(corpus_file(base)) for base in BASES]  # five logs: three batches
    alone = CliRunner().invoke(main, ["audit", "--no-cache", "--jobs", "1", "--format", "json", *logs])
    cpus = usable_cpus()
    result = CliRunner().invoke(main, ["audit", "--no-cache", "--jobs", "64", "--format", "json", *logs])
    assert started == ([min(cpus, 3)] if cpus > 1 else [])
    assert (result.exit_code, result.stdout_bytes) == (alone.exit_code, alone.stdout_bytes)
    assert result.stderr == f"replay audit: --jobs 64: {_running(cpus)}\n"
    started.clear()
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 8)
    result = CliRunner().invoke(main, ["audit", "--no-cache", "--jobs", "8", "--format", "json", *logs])
    assert (result.exit_code, result.stdout_bytes, result.stderr) == (alone.exit_code, alone.stdout_bytes, "")
    assert started == [3]


def _running(cpus: int) -> str:
    return (f"running at most {cpus} worker processes, as many as the usable CPUs" if cpus > 1 else
            "running in this process, as this machine has 1 usable CPU")


def test_check_and_refresh_say_when_they_run_fewer_workers_than_asked(tmp_path: Path) -> None:
    shutil.copytree(REPO / "scenarios" / SCENARIO, tmp_path / "scenarios" / SCENARIO)
    shutil.copytree(REPO / "goldens" / SCENARIO, tmp_path / "goldens" / SCENARIO)
    trees = ["--scenarios", str(tmp_path / "scenarios"), "--goldens", str(tmp_path / "goldens")]
    for command in (["check"], ["refresh", "--dry-run"]):
        result = CliRunner().invoke(main, [*command, *trees, "--jobs", "64"])
        assert result.exit_code == 0, result.output
        assert result.stderr == f"replay {command[0]}: --jobs 64: {_running(usable_cpus())}\n"
