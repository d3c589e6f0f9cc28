"""Hostile URLs: HTTP servers on the loopback that this module starts (an endless body,
a trickle, silence, redirect loops, redirects elsewhere, ever-deeper link pages, 500s),
an S3 endpoint where nothing listens, a bucket name S3 refuses, and credentials in URLs.

Each is a finding for one object (as a local file that cannot be read is) or a usage
error for the URL as a whole, in words, never a traceback; every read is under the
caps and the time limits (``REPLAY_NETWORK_TIMEOUTS`` makes them short here); finding
what a URL names reads no body; and no credential reaches any output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from replay.cli import main
from replay.log import remote
from replay.log.remote import PAGE_BYTES, SEARCH_DEPTH
from tests.helpers import REPO, TODO_WRITE, dump, index_of, records
from tests.loopback import Handler, Served, closed_port, http_server, silent_port

pytest.importorskip("fsspec", reason="fsspec is the remote extra")
pytest.importorskip("aiohttp", reason="aiohttp (fsspec's HTTP backend) is not installed")

HANG_GUARD = 60
"""Seconds a command in a subprocess may take before the test calls it hung (the
limits under test are a few seconds)."""


@pytest.fixture(scope="module")
def log() -> bytes:
    """A real log with one error finding (T5 on line 21)."""
    recs = records(TODO_WRITE)
    recs[index_of(recs, "todo/write")]["data"]["todos"][0]["status"] = "bogus"
    return dump(recs)


def _audit(*args: str, env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(main, ["audit", *args], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _run(*args: str, timeouts: str) -> subprocess.CompletedProcess[str]:
    """``replay audit ARGS`` in a process of its own (a hang cannot hold the test),
    with ``REPLAY_NETWORK_TIMEOUTS=timeouts``."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "REPLAY_NETWORK_TIMEOUTS": timeouts}
    return subprocess.run([sys.executable, "-m", "replay", "audit", *args], capture_output=True, text=True,
                          timeout=HANG_GUARD, env=env)


def _files(result: Result | subprocess.CompletedProcess[str]) -> list[tuple[str, str, list[tuple[str, str]]]]:
    return [(f["path"], f["status"], [(x["rule"], x["message"]) for x in f["findings"]])
            for f in json.loads(result.stdout)["files"]]


def _usage(result: Result | subprocess.CompletedProcess[str]) -> str:
    """The one line a usage error ends with."""
    text = result.output if isinstance(result, Result) else result.stderr
    assert "Traceback" not in text
    return text.rstrip("\n").splitlines()[-1]


# -- an endless body ---------------------------------------------------------------------


ENDLESS_BUDGET = 256 << 20
"""What the endless server sends at most before it cuts the connection (so that code
that reads it whole ends, and fails the test, instead of filling the memory)."""


def _socket_buffers() -> int:
    """The most a loopback connection's kernel buffers can hold, sent but not yet read
    (the largest receive and send buffers autotuning may grow to): bytes a server has
    "sent" that the client never asked for."""
    total = 0
    for name in ("tcp_rmem", "tcp_wmem"):
        try:
            total += int(Path(f"/proc/sys/net/ipv4/{name}").read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            total += 32 << 20
    return total


def test_an_endless_body_is_read_under_the_cap_and_not_at_all_to_find_it() -> None:
    """``stream.jsonl`` names an object: nothing is fetched to find it. ``stream`` is
    asked for, and its body (not a page of links) is left unread until it is audited.
    Both are read under ``--max-log-bytes``: a LIMIT finding, and the server has sent
    little more than the cap."""
    cap = 1_000_000

    def endless(h: Handler) -> None:
        h.stream(b"x" * 65536, budget=ENDLESS_BUDGET)

    with http_server({"/stream.jsonl": endless, "/stream": endless}) as (base, served):
        for name in ("stream.jsonl", "stream"):
            result = _audit("--format", "json", "--max-log-bytes", str(cap), f"{base}/{name}")
            assert result.exit_code == 1
            assert _files(result) == [(f"{base}/{name}", "unreadable", [(
                "LIMIT", f"the log exceeds the reader's limit of {cap} bytes and was not read (raise --max-log-bytes "
                         "if this is a real log)")])]
            served.idle()  # the server's thread has seen the client go: its count is final
            # The cap, what the kernel's buffers hold, and the client's read-ahead: far below the budget.
            assert served.by_path[f"/{name}"] < cap + _socket_buffers() + (16 << 20) < ENDLESS_BUDGET


_PEAK = """
import runpy, sys
sys.argv = ["replay", *sys.argv[1:]]
try:
    runpy.run_module("replay", run_name="__main__")
finally:
    with open("/proc/self/status") as status:
        print("peak", next(line.split()[1] for line in status if line.startswith("VmHWM:")), file=sys.stderr)
"""
"""``replay`` that tells its peak resident memory (kB) on its last line: this process's
own (``getrusage`` would count the memory of the process that started it)."""


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak memory from /proc")
def test_an_endless_body_is_audited_in_little_memory(log: bytes) -> None:
    """300 MB of an endless body (a session header, then lines of junk) read to
    ``--max-log-bytes``: the process's peak resident memory stays far below it."""
    cap = 300_000_000
    header = log.split(b"\n", 1)[0] + b"\n"

    with http_server({"/stream": lambda h: h.stream(b"x" * 65535 + b"\n", first=header, budget=cap + (100 << 20))}) as (
            base, _):
        done = subprocess.run([sys.executable, "-c", _PEAK, "audit", "--format", "json", "--max-log-bytes", str(cap),
                               f"{base}/stream"], capture_output=True, text=True, timeout=HANG_GUARD,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 1, done.stderr
    assert ("LIMIT", f"the log exceeds the reader's limit of {cap} bytes and was not read (raise --max-log-bytes if "
                     "this is a real log)") in _files(done)[0][2]
    peak_kb = int(done.stderr.rsplit("peak ", 1)[1])
    assert peak_kb < 150_000, peak_kb


# -- time limits -------------------------------------------------------------------------


@pytest.mark.slow
def test_a_trickling_body_ends_at_the_time_limit_of_one_object(log: bytes) -> None:
    """A byte now and then keeps every read timeout at bay: the object's own time
    limit ends it, as an IO finding for it; the other logs are audited."""
    with http_server({"/trickle.jsonl": lambda h: h.stream(b"{", pause=0.05),
                      "/good.jsonl": lambda h: h.reply(200, log)}) as (base, _):
        done = _run("--format", "json", f"{base}/trickle.jsonl", f"{base}/good.jsonl",
                    timeouts="read=20,object=1")
    assert done.returncode == 1, done.stderr
    assert _files(done)[0] == (f"{base}/trickle.jsonl", "unreadable", [
        ("IO", "the file cannot be read: could not read the object within 1 s")])
    assert [(path, status) for path, status, _ in _files(done)[1:]] == [(f"{base}/good.jsonl", "findings")]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["x.jsonl", "logs/"])
def test_a_server_that_never_answers_is_a_usage_error_after_the_read_timeout(name: str) -> None:
    with silent_port() as port:
        done = _run(f"http://127.0.0.1:{port}/{name}", timeouts="read=1")
    assert done.returncode == 2
    assert _usage(done) == (f"Error: http://127.0.0.1:{port}/{name}: the server sent nothing for 1 s; check the "
                            "URL, the network and the credentials")
    assert done.stdout == ""


def test_a_closed_port_is_a_usage_error_not_a_missing_file() -> None:
    port = closed_port()
    result = _audit(f"http://127.0.0.1:{port}/logs/")
    assert result.exit_code == 2
    assert _usage(result) == (
        f"Error: http://127.0.0.1:{port}/logs/: cannot connect (Cannot connect to host 127.0.0.1:{port} "
        f"ssl:default [Connect call failed ('127.0.0.1', {port})]); check the URL, the network and the credentials")


# -- answers that are errors -------------------------------------------------------------


def test_a_server_error_is_a_finding_for_an_object_and_a_usage_error_for_a_search(log: bytes) -> None:
    with http_server({"/broken.jsonl": lambda h: h.reply(500, b"boom"), "/good.jsonl": lambda h: h.reply(200, log),
                      "/broken/": lambda h: h.reply(500, b"boom")}) as (base, _):
        result = _audit("--format", "json", f"{base}/broken.jsonl", f"{base}/good.jsonl")
        assert result.exit_code == 1
        assert _files(result)[0] == (f"{base}/broken.jsonl", "unreadable", [
            ("IO", "the file cannot be read: the server answered 500 Internal Server Error")])
        assert _files(result)[1][:2] == (f"{base}/good.jsonl", "findings")
        result = _audit(f"{base}/broken/")
        assert result.exit_code == 2
        assert _usage(result) == (f"Error: {base}/broken/: the server answered 500 Internal Server Error; check the "
                                  "URL, the network and the credentials")
        result = _audit(f"{base}/missing.jsonl")
        assert result.exit_code == 2
        assert _usage(result) == f"Error: Invalid value for PATH: {base}/missing.jsonl: no such file or directory"


def test_a_redirect_loop_is_a_finding_for_the_object_and_a_usage_error_for_a_search() -> None:
    with http_server({"/loop.jsonl": lambda h: h.redirect("/loop.jsonl"),
                      "/loop/": lambda h: h.redirect("/loop/")}) as (base, _):
        result = _audit("--format", "json", f"{base}/loop.jsonl")
        assert result.exit_code == 1
        assert _files(result) == [(f"{base}/loop.jsonl", "unreadable", [
            ("IO", "the file cannot be read: too many redirects (a redirect loop?)")])]
        result = _audit(f"{base}/loop/")
        assert result.exit_code == 2
        assert _usage(result) == (f"Error: {base}/loop/: too many redirects (a redirect loop?); check the URL, the "
                                  "network and the credentials")


def test_a_redirect_elsewhere_is_followed_without_the_credentials(log: bytes) -> None:
    """The log is read where the redirect leads (under the same caps), reported under
    the name it was asked by, and the other server never sees the credentials."""
    other: dict[str, str] = {}
    with http_server({"/session.jsonl": lambda h: h.reply(200, log),
                      "/endless.jsonl": lambda h: h.stream(b"y" * 65536, budget=ENDLESS_BUDGET)}) as (there, seen), \
            http_server({"/away.jsonl": lambda h: h.redirect(f"{other['there']}/session.jsonl"),
                         "/flood.jsonl": lambda h: h.redirect(f"{other['there']}/endless.jsonl")}) as (here, _):
        other["there"] = there
        asked = here.replace("http://", "http://alice:hunter2@")
        result = _audit("--format", "json", "--max-log-bytes", "1000000", f"{asked}/away.jsonl",
                        f"{asked}/flood.jsonl")
    shown = here.replace("http://", "http://***@")
    assert result.exit_code == 1
    files = _files(result)
    assert [(path, status) for path, status, _ in files] == [(f"{shown}/away.jsonl", "findings"),
                                                             (f"{shown}/flood.jsonl", "unreadable")]
    assert [rule for rule, _ in files[0][2]] == ["T5"]
    assert [rule for rule, _ in files[1][2]] == ["LIMIT"]
    assert seen.requests and all("Authorization" not in headers for _, _, headers in seen.requests)
    assert "hunter2" not in result.output


# -- link pages --------------------------------------------------------------------------


GIVE_UP_DEPTH = 40
"""How deep the server's pages go (a search without a bound would stop there, and fail)."""


def test_ever_deeper_link_pages_are_searched_to_the_depth_bound(log: bytes) -> None:
    """Each page holds a log and a link one level deeper: the search reads
    ``SEARCH_DEPTH`` levels below the URL, says so once, and audits what it found."""
    def deeper(h: Handler) -> None:
        path = h.path.partition("?")[0]
        if not path.endswith("/"):
            h.reply(200, log)
        elif path.count("/") - 2 < GIVE_UP_DEPTH:
            h.page(["d/", "session.jsonl", "../session.jsonl", "/elsewhere/session.jsonl", "notes.txt"])
        else:
            h.page([])

    with http_server({"/top/*": deeper}) as (base, served):
        result = _audit("--format", "json", f"{base}/top/")
    assert result.exit_code == 1
    found = [path for path, _, _ in _files(result)]
    assert found == sorted(f"{base}/top/{'d/' * level}session.jsonl" for level in range(SEARCH_DEPTH + 1))
    pages = {path for method, path, _ in served.requests if path.endswith("/")}
    assert sorted(pages) == sorted(f"/top/{'d/' * level}" for level in range(SEARCH_DEPTH + 1))
    assert json.loads(result.stdout)["passed_over"] == [{"path": f"{base}/top/", "reason": (
        f"1 link page more than {SEARCH_DEPTH} levels below it were not searched (name a deeper URL to audit "
        "them)")}]
    assert result.stderr.splitlines() == [
        f"replay audit: passed over {base}/top/: 1 link page more than {SEARCH_DEPTH} levels below it were not "
        "searched (name a deeper URL to audit them)"]


def test_link_pages_that_fail_are_passed_over_and_the_rest_audited(log: bytes) -> None:
    with http_server({"/logs/": lambda h: h.page(["a/", "b/", "c/", "huge/"]),
                      "/logs/a/": lambda h: h.page(["session.jsonl"]),
                      "/logs/a/session.jsonl": lambda h: h.reply(200, log),
                      "/logs/b/": lambda h: h.reply(500, b"no"),
                      "/logs/c/": lambda h: h.redirect("/logs/c/"),
                      "/logs/huge/": lambda h: h.reply(200, b"<a>" * (PAGE_BYTES // 3 + 1), "text/html")}) as (
            base, _):
        result = _audit("--format", "json", f"{base}/logs/")
    assert result.exit_code == 1
    assert [path for path, _, _ in _files(result)] == [f"{base}/logs/a/session.jsonl"]
    assert json.loads(result.stdout)["passed_over"] == [
        {"path": f"{base}/logs/b/", "reason": "the link page cannot be read (the server answered 500 Internal Server "
                                              "Error)"},
        {"path": f"{base}/logs/c/", "reason": "the link page cannot be read (too many redirects (a redirect loop?))"},
        {"path": f"{base}/logs/huge/", "reason": f"the link page cannot be read (the link page is larger than "
                                                 f"{PAGE_BYTES} bytes)"}]


def test_a_search_reads_so_many_pages_and_keeps_so_many_logs(log: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounds on link pages and on logs (lowered here) end a broad search, each
    said once; an object store's listing is cut at the same number of logs."""
    monkeypatch.setattr(remote, "SEARCH_PAGES", 3)
    monkeypatch.setattr(remote, "SEARCH_OBJECTS", 4)
    with http_server({"/logs/": lambda h: h.page([f"{n}/" for n in range(6)]),
                      "/logs/*": lambda h: h.page(["a.jsonl", "b.jsonl"]) if h.path.endswith("/") else
                      h.reply(200, log)}) as (base, _):
        result = _audit("--format", "json", f"{base}/logs/")
    assert [path for path, _, _ in _files(result)] == [f"{base}/logs/{n}/{name}.jsonl" for n in (0, 1)
                                                       for name in "ab"]
    assert json.loads(result.stdout)["passed_over"] == [
        {"path": f"{base}/logs/", "reason": "the search reads at most 3 link pages: 4 more link pages were not "
                                            "searched (name a narrower URL)"}]
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    memory.pipe({f"/bounded-search/{n}.jsonl": log for n in range(6)})
    try:
        result = _audit("--format", "json", "memory://bounded-search")
    finally:
        memory.rm("/bounded-search", recursive=True)
    assert [path for path, _, _ in _files(result)] == [f"memory://bounded-search/{n}.jsonl" for n in range(4)]
    assert json.loads(result.stdout)["passed_over"] == [
        {"path": "memory://bounded-search", "reason": "the search keeps at most 4 logs and archives: the rest were "
                                                      "not audited (name a narrower URL)"}]


# -- S3 ----------------------------------------------------------------------------------


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """S3 settings as fsspec's configuration (``FSSPEC_S3_*``) would give them."""
    pytest.importorskip("s3fs", reason="s3fs (the remote extra) is not installed")
    import fsspec.config

    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(name, value)
    settings: dict[str, Any] = {}
    monkeypatch.setitem(fsspec.config.conf, "s3", settings)
    yield settings


@pytest.mark.parametrize("url", ["s3://logs/2026/", "s3://logs/2026/session.jsonl"])
def test_an_s3_endpoint_where_nothing_listens_is_a_usage_error(s3: dict[str, Any], url: str) -> None:
    port = closed_port()
    s3["endpoint_url"] = f"http://127.0.0.1:{port}"
    result = _audit(url)
    assert result.exit_code == 2
    asked = url.removeprefix("s3://").rstrip("/")  # the first request: is there such an object?
    assert _usage(result) == (f'Error: {url}: cannot connect (Could not connect to the endpoint URL: '
                              f'"http://127.0.0.1:{port}/{asked}"); check the URL, the network and the credentials')


def test_a_bucket_name_s3_refuses_is_a_usage_error(s3: dict[str, Any]) -> None:
    s3["endpoint_url"] = f"http://127.0.0.1:{closed_port()}"  # refused before anything is sent
    result = _audit("s3://Bad_Bucket!/x")
    assert result.exit_code == 2
    assert _usage(result) == ('Error: s3://Bad_Bucket!/x: the storage\'s client refuses the request (Invalid bucket '
                              'name "Bad_Bucket!"); check the URL, the network and the credentials')


# -- credentials -------------------------------------------------------------------------


SECRETS = ("hunter2", "alice", "AKIDEXAMPLE", "s1gnature", "t0ken-value", "k3y-value")


@pytest.fixture
def with_credentials(log: bytes) -> Iterator[tuple[str, str, Served]]:
    """A server that wants alice's password, holding a listing of two logs with
    findings; the URL of the listing with the credentials, and as shown."""
    def private(h: Handler) -> None:
        path = h.path.partition("?")[0]
        if h.headers.get("Authorization") != "Basic YWxpY2U6aHVudGVyMg==":  # alice:hunter2
            h.reply(401, b"who are you?", headers={"WWW-Authenticate": 'Basic realm="logs"'})
        elif path == "/logs/":
            h.page(["a/session.jsonl", "b/session.jsonl?token=t0ken-value&x=1", "broken/?key=k3y-value"])
        elif path.endswith("/"):
            h.reply(500, b"no")
        else:
            h.reply(200, log)

    with http_server({"/logs/*": private}) as (base, served):
        asked = base.replace("http://", "http://alice:hunter2@") + "/logs/?sig=s1gnature&api_key=k3y-value&page=1"
        shown = base.replace("http://", "http://***@") + "/logs/?sig=***&api_key=***&page=1"
        yield asked, shown, served


def _no_secret(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_credentials_in_a_url_reach_no_report(with_credentials: tuple[str, str, Served], fmt: str,
                                              tmp_path: Path) -> None:
    asked, shown, _ = with_credentials
    signed = asked.replace("/logs/?", "/logs/a/session.jsonl?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=s1gnature&")
    junit = tmp_path / "junit.xml"
    result = _audit("--format", fmt, "--junit", str(junit), asked, signed)
    assert result.exit_code == 1
    _no_secret(result.stdout, result.stderr, junit.read_text())
    base = shown.partition("/logs/")[0]
    names = [f"{base}/logs/a/session.jsonl", f"{base}/logs/b/session.jsonl?token=***&x=1",
             f"{base}/logs/a/session.jsonl?X-Amz-Credential=***&X-Amz-Signature=***&sig=***&api_key=***&page=1"]
    if fmt == "json":
        assert [path for path, _, _ in _files(result)] == names
    elif fmt == "sarif":
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in json.loads(result.stdout)["runs"][0]["results"]]
        assert uris == names
    elif fmt == "github":
        for name in names:
            assert f"file={name.replace(':', '%3A')}," in result.stdout
    else:
        for name in names:
            assert name in result.stdout
    assert all(f'name="{name}"' in junit.read_text().replace("&amp;", "&") for name in names)
    assert result.stderr == (f"replay audit: passed over {base}/logs/broken/?key=***: the link page cannot be read "
                             "(the server answered 500 Internal Server Error)\n")


def test_a_baseline_written_with_credentials_matches_a_run_with_others(with_credentials: tuple[str, str, Served],
                                                                         tmp_path: Path) -> None:
    """A baseline names logs as reports do (no credentials): a later run with other
    credentials, or a URL signed again, matches it."""
    asked, shown, _ = with_credentials
    baseline = tmp_path / "baseline.json"
    result = _audit("--write-baseline", str(baseline), asked)
    assert result.exit_code == 0
    _no_secret(baseline.read_text(), result.output)
    entries = orjson.loads(baseline.read_bytes())["findings"]
    base = shown.partition("/logs/")[0]
    assert [(e["file"], e["rule"]) for e in entries] == [(f"{base}/logs/a/session.jsonl", "T5"),
                                                         (f"{base}/logs/b/session.jsonl?token=***&x=1", "T5")]
    again = asked.replace("s1gnature", "another-signature").replace("k3y-value", "another-key")
    result = _audit("--format", "json", "--baseline", str(baseline), again)
    assert result.exit_code == 0
    assert [(path, findings) for path, _, findings in _files(result)] == [
        (f"{base}/logs/a/session.jsonl", []), (f"{base}/logs/b/session.jsonl?token=***&x=1", [])]


def test_credentials_reach_no_message(with_credentials: tuple[str, str, Served]) -> None:
    asked, shown, _ = with_credentials
    base = shown.partition("/logs/")[0]
    missing = asked.replace("/logs/?", "/nothing/?")
    result = _audit(missing)
    assert result.exit_code == 2
    assert _usage(result) == (f"Error: Invalid value for PATH: {base}/nothing/?sig=***&api_key=***&page=1: no such "
                              "file or directory")
    wrong = asked.replace("hunter2", "hunter3")
    result = _audit(wrong)
    assert result.exit_code == 2
    assert _usage(result) == (f"Error: {shown}: the server answered 401 Unauthorized; check the URL, the network "
                              "and the credentials")


def test_the_progress_bar_shows_no_credentials(with_credentials: tuple[str, str, Served], tmp_path: Path) -> None:
    """On a terminal, the bar names each log as the report does."""
    import pty

    asked, _, _ = with_credentials
    parent, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    with subprocess.Popen([sys.executable, "-m", "replay", "audit", asked, asked, asked], stdout=subprocess.PIPE,
                          stderr=child, env=env) as proc:
        os.close(child)
        shown = b""
        deadline = time.monotonic() + HANG_GUARD
        while time.monotonic() < deadline:
            try:
                chunk = os.read(parent, 1 << 16)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            shown += chunk
        out, _ = proc.communicate(timeout=HANG_GUARD)
    os.close(parent)
    assert b"auditing" in shown and b"logs/b/session.jsonl" in shown
    _no_secret(shown.decode(errors="replace"), out.decode())
