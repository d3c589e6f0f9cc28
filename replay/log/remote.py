"""Logs where they live: any URL fsspec opens (``s3://``, ``gs://``, ``az://``,
``memory://``, ``http(s)://``, chained ``tar://…::s3://…``, …).

**What a URL names.** A URL whose name ends like a log (``*.jsonl``, ``*.jsonl.zstd``)
or an archive of logs (``*.tar``, ``*.tar.zst``) is that object, taken as given, as a
named file is: nothing is fetched to decide. Any other URL is looked at without
reading a body: an object store lists it (a prefix, or one object); an HTTP server
is asked for it and, when it answers with an HTML page, the page is a listing whose
links are followed (``SEARCH_*`` bound the search), else it is one object, left
unread until it is audited. Below a prefix, every object named like a log or an
archive is found, sorted by location, the logs marked *discovered*.

**Reading.** A log is opened as a stream (HTTP: one request, never fetched whole;
an object store: blocks of ``BLOCK`` bytes), through the same reader and caps as a
local file. Every backend gets connect and read timeouts (``CONNECT_SECONDS``,
``READ_SECONDS``) and one object at most ``OBJECT_SECONDS``; ``REPLAY_NETWORK_TIMEOUTS``
sets them (``replay.urls``). What goes wrong with one object (a timeout, a
refused request, a body cut short) is an ``OSError`` saying so in words, which the
reader makes the log's ``IO`` finding, as for a local file it cannot read; what
makes a URL on the command line unusable as a whole (no connection, a name the
backend rejects, a listing that fails) is a ``NetworkError``: a usage error.

**Names.** A unit found at a URL is named by ``replay.urls.redact`` of its URL (no
userinfo, no secret parameter values): that name is what every report, baseline
and message shows; the ``RemoteFile`` keeps the real URL, only to open it.

Credentials and endpoints come from where fsspec and its backends look for them
(environment, config files; ``FSSPEC_S3_ENDPOINT_URL`` and the like). fsspec and
its cloud backends are the optional extra ``remote``: they are imported only
when a URL is given, and their absence is a usage error naming it.
"""

from __future__ import annotations

import contextlib
import io
import posixpath
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any, BinaryIO, TypeVar
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

from replay.extras import MissingExtra, install_hint, require
from replay.log.bounded import BLOCK
from replay.log.reader import Opener, Source
from replay.log.source import ARCHIVE_SUFFIXES, LOG_SUFFIXES, STORED_NAMES, Archive, PassedOver, Unit, ignore
from replay.urls import NetworkError, network_timeout, redact, scrub
from replay.words import by_count, counted

T = TypeVar("T")

CONNECT_SECONDS = 10.0
"""Most time to open a connection to a server."""
READ_SECONDS = 30.0
"""Most time a server may stay silent while an answer is awaited (the read timeout)."""
OBJECT_SECONDS = 600.0
"""Most time to read one object (a log, an archive, a link page) from end to end."""
SEARCH_SECONDS = 300.0
"""Most time to search one URL (an object store's listing, an HTTP server's link pages)."""
SEARCH_DEPTH = 16
"""Most levels of folders (link pages) below a URL that its search goes down."""
SEARCH_PAGES = 1_000
"""Most HTTP link pages one URL's search reads."""
SEARCH_OBJECTS = 100_000
"""Most logs and archives one URL's search keeps."""
PAGE_BYTES = 8 << 20
"""Most bytes read of one HTTP link page."""
BACKEND_ATTEMPTS = 2
"""Tries of one request to an object store (the backend's retries)."""

_HTML = ("text/html", "application/xhtml+xml")
_NAMED_UNITS = LOG_SUFFIXES + ARCHIVE_SUFFIXES


@dataclass(frozen=True, slots=True)
class Timeouts:
    """The network time limits of one command (seconds), read once where the command
    starts and carried with each object to the process that opens it."""

    connect: float = CONNECT_SECONDS
    read: float = READ_SECONDS
    object: float = OBJECT_SECONDS
    search: float = SEARCH_SECONDS

    @classmethod
    def from_environment(cls) -> Timeouts:
        """The limits, as ``REPLAY_NETWORK_TIMEOUTS`` sets them (``replay.urls``)."""
        return cls(network_timeout("connect", CONNECT_SECONDS), network_timeout("read", READ_SECONDS),
                   network_timeout("object", OBJECT_SECONDS), network_timeout("search", SEARCH_SECONDS))


# -- backends ----------------------------------------------------------------------------


def _protocols(url: str) -> list[str]:
    """The protocols of a (possibly chained) URL, outermost first."""
    return [bit.partition("://")[0] if "://" in bit else bit for bit in url.split("::")]


def _client_timeout(timeouts: Timeouts, total: float | None = None) -> Any:
    aiohttp: Any = require("aiohttp", "remote", "reading http(s):// URLs")
    return aiohttp.ClientTimeout(total=total or timeouts.object, sock_connect=timeouts.connect,
                                 sock_read=timeouts.read)


def _options(protocol: str, timeouts: Timeouts, configured: dict[str, Any]) -> dict[str, Any]:
    """The storage options that put a backend under the time limits (merged over what
    fsspec's configuration already says of it)."""
    def merged(key: str, ours: dict[str, Any]) -> dict[str, Any]:
        theirs = configured.get(key)
        return {key: {**(theirs if isinstance(theirs, dict) else {}), **ours}}

    if protocol in ("http", "https"):
        return merged("client_kwargs", {"timeout": _client_timeout(timeouts)})
    if protocol in ("s3", "s3a"):
        return merged("config_kwargs", {"connect_timeout": timeouts.connect, "read_timeout": timeouts.read,
                                        "retries": {"total_max_attempts": BACKEND_ATTEMPTS, "mode": "standard"}})
    if protocol in ("gs", "gcs"):
        return merged("session_kwargs", {"timeout": _client_timeout(timeouts)})
    return {}


def filesystem(url: str, timeouts: Timeouts | None = None) -> tuple[Any, str]:
    """The filesystem of a URL and the path within it, under the time limits.
    ``MissingExtra`` when fsspec or the backend of the URL's scheme is not installed,
    ``NetworkError`` when fsspec cannot make sense of the URL."""
    fsspec: Any = require("fsspec", "remote", "reading URLs")
    limits = timeouts or Timeouts()
    options = {p: _options(p, limits, fsspec.config.conf.get(p, {})) for p in _protocols(url)}
    try:
        fs, path = fsspec.core.url_to_fs(url, **{p: o for p, o in options.items() if o})
    except ImportError as exc:
        raise MissingExtra(f"reading {url.partition('://')[0]}:// URLs needs a backend fsspec could not import "
                           f"({exc}): {install_hint('remote')}") from None
    except Exception as exc:  # an unknown protocol, a URL the backend cannot parse
        raise NetworkError(f"{redact(url)}: not a URL replay can read ({_detail(exc, url)})") from None
    return fs, path


def _is_http(fs: Any) -> bool:
    protocol = fs.protocol
    return bool(set(protocol if isinstance(protocol, tuple | list) else (protocol,)) & {"http", "https"})


# -- errors in words ---------------------------------------------------------------------


def _causes(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found and len(found) < 8:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _named(exc: BaseException, *names: str) -> bool:
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def _detail(exc: BaseException, url: str, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    text = scrub(text, url)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(exc: BaseException, url: str, timeouts: Timeouts, whole: str, limit: float) -> str:
    """What went wrong, in words, with no credential in them. ``whole`` says what
    the overall time ``limit`` was for (``read the object``, ``search the URL``)."""
    chain = _causes(exc)
    for e in chain:
        if _named(e, "ConnectionTimeoutError", "ConnectTimeoutError"):
            return f"no connection within {timeouts.connect:g} s"
        if _named(e, "SocketTimeoutError", "ReadTimeoutError", "ServerTimeoutError"):
            return f"the server sent nothing for {timeouts.read:g} s"
        if _named(e, "TooManyRedirects"):
            return "too many redirects (a redirect loop?)"
        status = getattr(e, "status", None)
        if _named(e, "ClientResponseError") and isinstance(status, int):
            return f"the server answered {status} {_detail(Exception(getattr(e, 'message', '')), url)}".rstrip()
        if _named(e, "ClientConnectorError", "EndpointConnectionError", "ConnectionRefusedError",
                  "ClientConnectorDNSError", "ServerDisconnectedError"):
            return f"cannot connect ({_detail(e, url)})"
        if _named(e, "ParamValidationError"):  # "Parameter validation failed:\nInvalid bucket name "x": …"
            reasons = str(e).splitlines()[1:] or [str(e)]
            return f"the storage's client refuses the request ({_detail(Exception(reasons[0].split(': ')[0]), url)})"
        if _named(e, "NoCredentialsError", "PartialCredentialsError"):
            return f"no credentials for it ({_detail(e, url)})"
    if any(isinstance(e, TimeoutError) or _named(e, "FSTimeoutError") for e in chain):
        return f"could not {whole} within {limit:g} s"
    if isinstance(exc, FileNotFoundError):
        return "no such object"
    if isinstance(exc, PermissionError):
        return f"access denied ({_detail(exc, url)})"
    return f"{type(exc).__name__}: {_detail(exc, url)}"


class _Late(Exception):
    """A backend call that did not finish within its time."""


def _within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, given at most ``seconds``: a call still running then is left to
    finish on its own (in a daemon thread, which cannot keep the command alive) and
    ``_Late`` is raised. Whatever ``call`` raises is raised here."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as exc:  # handed to the caller's thread
            box.append((False, exc))

    worker = threading.Thread(target=run, name="replay-url", daemon=True)
    worker.start()
    worker.join(max(seconds, 0.0))
    if not box:
        raise _Late
    ok, value = box[0]
    if not ok:
        raise value
    result: T = value
    return result


# -- HTTP: one request at a time, on fsspec's session ------------------------------------


@dataclass(slots=True)
class _Answer:
    final_url: str
    page: bytes | None
    """The body of an HTML page (a listing); ``None`` for anything else, left unread."""


class _TooLargePage(Exception):
    pass


def _http_get(fs: Any, url: str, timeouts: Timeouts, total: float, read_page: bool) -> _Answer:
    """Ask for ``url``; read its body only when it is an HTML page (at most
    ``PAGE_BYTES``) and ``read_page``. ``FileNotFoundError`` for 404 and 410;
    an aiohttp error for any other status of 400 or more."""
    from fsspec.asyn import sync

    async def ask() -> _Answer:
        session = await fs.set_session()
        limits = _client_timeout(timeouts, total)
        async with session.get(fs.encode_url(url), timeout=limits, **fs.kwargs) as answer:
            if answer.status in (404, 410):
                raise FileNotFoundError(url)
            answer.raise_for_status()
            kind = answer.headers.get("Content-Type", "").partition(";")[0].strip().lower()
            if not read_page or kind not in _HTML:
                return _Answer(str(answer.url), None)  # the body is never read: closing drops it
            body = bytearray()
            async for chunk in answer.content.iter_chunked(1 << 16):
                body += chunk
                if len(body) > PAGE_BYTES:
                    raise _TooLargePage
            return _Answer(str(answer.url), bytes(body))

    answer: _Answer = sync(fs.loop, ask)
    return answer


def _http_stream(fs: Any, url: str) -> BinaryIO:
    """The body of ``url`` as a stream: one request, read as it comes."""
    from fsspec.asyn import sync
    from fsspec.implementations.http import HTTPStreamFile

    session = sync(fs.loop, fs.set_session)
    stream: BinaryIO = HTTPStreamFile(fs, url, mode="rb", loop=fs.loop, session=session, **fs.kwargs)
    return stream


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(value for name, value in attrs if name == "href" and value)


def _links(page: bytes) -> list[str]:
    parser = _Links()
    with contextlib.suppress(Exception):  # a broken page has the links read so far
        parser.feed(page.decode("utf-8", "replace"))
        parser.close()
    return parser.hrefs


def _with_userinfo(link: str, asked: str) -> str:
    """``link`` with the userinfo of ``asked`` when it points at the same server (a
    server's redirect and its links do not repeat the credentials)."""
    have, want = urlsplit(link), urlsplit(asked)
    if want.username is None or "@" in have.netloc or (have.scheme, have.hostname, have.port) != (
            want.scheme, want.hostname, want.port):
        return link
    return urlunsplit(have._replace(netloc=want.netloc))


# -- the search --------------------------------------------------------------------------


def _object_name(location: str) -> str:
    """The last part of a location's path (an HTTP URL's query left out)."""
    first = location.split("::")[0]
    if first.startswith(("http://", "https://")):
        first = urlsplit(first).path
    return posixpath.basename(first)


def named_as_unit(location: str) -> bool:
    """Whether a location is named like a log or an archive of logs."""
    return _object_name(location).endswith(_NAMED_UNITS)


@dataclass
class _Search:
    """One URL's search, under its bounds; what it leaves out is told to ``passed_over``."""

    url: str
    timeouts: Timeouts
    passed_over: PassedOver
    started: float = field(default_factory=time.monotonic)

    @property
    def shown(self) -> str:
        return redact(self.url)

    def remaining(self) -> float:
        return self.timeouts.search - (time.monotonic() - self.started)

    def fail(self, exc: BaseException) -> NetworkError:
        return self.unusable(describe(exc, self.url, self.timeouts, "search the URL", self.timeouts.search))

    def unusable(self, why: str) -> NetworkError:
        return NetworkError(f"{self.shown}: {why}; check the URL, the network and the credentials")

    def late(self) -> NetworkError:
        return self.unusable(f"could not search the URL within {self.timeouts.search:g} s")

    def call(self, call: Callable[[], T], passes: Callable[[Exception], bool] = lambda exc: False) -> T:
        """A backend call for the URL itself: its failure is the URL's (but for the
        errors that ``passes``, raised as they are)."""
        try:
            return _within(self.remaining(), call)
        except _Late:
            raise self.late() from None
        except (MissingExtra, NetworkError):
            raise
        except Exception as exc:
            if passes(exc):
                raise
            raise self.fail(exc) from None

    def listing(self, fs: Any, root: str) -> list[tuple[str, int | None]]:
        """An object store's (or any non-HTTP backend's) objects below ``root``, or the
        URL itself when it names one object."""
        if not self.call(lambda: fs.isdir(root)):
            return [(self.url, None)]
        listing: dict[str, dict[str, Any]] = self.call(lambda: fs.find(root, detail=True))
        prefix = self.url.rstrip("/")
        base = root.rstrip("/")
        found: list[tuple[str, int | None]] = []
        deeper = 0
        for name, info in listing.items():
            if info.get("type") != "file" or not name.startswith(base + "/"):
                continue
            below = name[len(base) + 1:]
            if below.count("/") >= SEARCH_DEPTH:
                deeper += 1
                continue
            if named_as_unit(name):
                size = info.get("size")
                found.append((prefix + name[len(base):], size if isinstance(size, int) else None))
        if deeper:
            self.passed_over(self.shown, f"{counted(deeper, 'object')} more than {SEARCH_DEPTH} levels below it "
                                         "were not searched (name a deeper URL to audit them)")
        if len(found) > SEARCH_OBJECTS:
            found.sort(key=lambda item: redact(item[0]))
            self.too_many()
            del found[SEARCH_OBJECTS:]
        return found

    def too_many(self) -> None:
        self.passed_over(self.shown, f"the search keeps at most {SEARCH_OBJECTS} logs and archives: the rest were "
                                     "not audited (name a narrower URL)")

    def http(self, fs: Any) -> list[tuple[str, int | None]]:
        """The logs and archives an HTTP URL's link pages lead to (breadth first, at
        most ``SEARCH_DEPTH`` levels and ``SEARCH_PAGES`` pages, in ``SEARCH_SECONDS``),
        or the URL itself when it is not a page."""
        first = self._page(self.url, root=True)
        if first is None:
            return [(self.url, None)]
        final, hrefs = first
        top = urlsplit(final)
        folder = top.path if top.path.endswith("/") else top.path.rsplit("/", 1)[0] + "/"
        seen = {urldefrag(final)[0], urldefrag(self.url)[0]}
        objects: set[str] = set()
        queue: deque[tuple[str, str, list[str]]] = deque([(final, self.url, hrefs)])
        pages = 1
        deeper = unread = 0
        stopped = more = False
        while queue:
            base, asked, links = queue.popleft()
            for href in links:
                link = _with_userinfo(urldefrag(urljoin(base, href))[0], asked)
                where = urlsplit(link)
                if (where.scheme, where.hostname, where.port) != (top.scheme, top.hostname, top.port) or \
                        not where.path.startswith(folder) or link in seen:
                    continue
                seen.add(link)
                if where.path.endswith("/"):
                    if where.path[len(folder):].count("/") > SEARCH_DEPTH:
                        deeper += 1
                    elif stopped or pages >= SEARCH_PAGES:
                        unread += 1
                    elif self.remaining() <= 0:
                        stopped = True
                        unread += 1
                    else:
                        pages += 1
                        page = self._page(link)
                        if page is not None:
                            queue.append((page[0], link, page[1]))
                elif named_as_unit(link):
                    if len(objects) < SEARCH_OBJECTS:
                        objects.add(link)
                    else:
                        more = True
        if deeper:
            self.passed_over(self.shown, f"{counted(deeper, 'link page')} more than {SEARCH_DEPTH} levels below "
                                         "it were not searched (name a deeper URL to audit them)")
        if unread:
            why = (f"the search stopped after {self.timeouts.search:g} s" if stopped else
                   f"the search reads at most {SEARCH_PAGES} link pages")
            self.passed_over(self.shown, f"{why}: {counted(unread, 'more link page')} "
                                         f"{by_count(unread, 'was|were')} not searched "
                                         "(name a narrower URL)")
        if more:
            self.too_many()
        return [(location, None) for location in objects]

    def _page(self, url: str, root: bool = False) -> tuple[str, list[str]] | None:
        """A link page's final URL and links; ``None`` when ``url`` is not a page (the
        root then names one object; a link, nothing to search). A page that cannot be
        read is the URL's failure for the root, passed over for a link."""
        try:
            fs, _ = filesystem(url, self.timeouts)
            answer = _http_get(fs, url, self.timeouts, max(min(self.timeouts.object, self.remaining()), 0.001),
                               read_page=True)
        except (MissingExtra, NetworkError):
            raise
        except Exception as exc:
            if isinstance(exc, _TooLargePage):
                why = f"the link page is larger than {PAGE_BYTES} bytes"
            else:
                why = describe(exc, url, self.timeouts, "search the URL", self.timeouts.search)
            if root:
                raise self.unusable(why) from None
            self.passed_over(redact(url), f"the link page cannot be read ({why})")
            return None
        if answer.page is None:
            return None
        return _with_userinfo(answer.final_url, url), _links(answer.page)


# -- objects -----------------------------------------------------------------------------


class _Guarded(io.RawIOBase):
    """An object's stream, under its time limit, whose every failure is an
    ``OSError`` saying what happened in words."""

    def __init__(self, stream: BinaryIO, url: str, timeouts: Timeouts, deadline: float, seekable: bool) -> None:
        super().__init__()
        self._stream = stream
        self._url = url
        self._timeouts = timeouts
        self._deadline = deadline
        self._seekable = seekable

    def _failed(self, exc: BaseException) -> OSError:
        return OSError(describe(exc, self._url, self._timeouts, "read the object", self._timeouts.object))

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._seekable

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if time.monotonic() > self._deadline:
            raise OSError(f"could not read the object within {self._timeouts.object:g} s")
        try:
            data = self._stream.read(len(buffer))
        except Exception as exc:
            raise self._failed(exc) from None
        n = len(data)
        memoryview(buffer).cast("B")[:n] = data
        return n

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if not self._seekable:
            raise io.UnsupportedOperation("seek")
        try:
            return int(self._stream.seek(offset, whence))
        except Exception as exc:
            raise self._failed(exc) from None

    def tell(self) -> int:
        return int(self._stream.tell())

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(Exception):
                self._stream.close()
        super().close()


@dataclass(frozen=True, slots=True)
class RemoteFile(Opener):
    """An object at a URL (the real one, credentials and all: only to open it).
    ``twin`` says whether the other encoding of the same session exists beside it,
    when the listing that found it already knows."""

    url: str
    known_size: int | None = None
    twin: bool | None = None
    timeouts: Timeouts = Timeouts()

    def __call__(self) -> BinaryIO:
        deadline = time.monotonic() + self.timeouts.object
        try:
            fs, path = filesystem(self.url, self.timeouts)
            http = _is_http(fs)
            stream = _http_stream(fs, path) if http else fs.open(path, "rb", block_size=BLOCK,
                                                                 cache_type="readahead")
        except Exception as exc:  # a missing extra too: in a worker, it is this object's finding
            why = str(exc) if isinstance(exc, MissingExtra | NetworkError) else \
                describe(exc, self.url, self.timeouts, "read the object", self.timeouts.object)
            raise OSError(why) from None
        return io.BufferedReader(_Guarded(stream, self.url, self.timeouts, deadline, seekable=not http), BLOCK)

    def size(self) -> int | None:
        return self.known_size

    def travels(self) -> bool:
        return "memory://" not in self.url

    def exists(self, location: str) -> bool:
        """Whether ``location`` (a name as reports show it: the twin of this object's
        name, for rule A10) exists; ``False`` when that cannot be known."""
        twin = _twin_of(redact(self.url))
        if location == twin and self.twin is not None:
            return self.twin
        real = _twin_of(self.url) if location == twin else location
        if real is None:
            return False
        try:
            fs, path = filesystem(real, self.timeouts)
            return bool(_within(self.timeouts.object, lambda: fs.exists(path)))
        except Exception:  # not known: A10 says nothing of it
            return False


VALIDATORS = ("ETag", "Content-MD5", "Digest")
"""What an HTTP server's answer may say that identifies an object's bytes (a weak
``W/`` ETag does not; nor does ``Last-Modified``, to the second)."""


def validator(opener: RemoteFile) -> str | None:
    """What identifies the bytes of the object now, for the audit cache: over HTTP, its
    size and its ETag, Content-MD5 or Digest (a HEAD request); elsewhere, fsspec's
    ``ukey`` when the filesystem has one of its own (an object store's ETag or
    checksum). ``None`` when there is none, or it cannot be asked in time."""
    try:
        fs, path = filesystem(opener.url, opener.timeouts)
        if _is_http(fs):
            info: dict[str, Any] = _within(opener.timeouts.object, lambda: fs.info(path))
            found = [f"{name}: {info[name]}" for name in VALIDATORS
                     if isinstance(info.get(name), str) and info[name] and not info[name].startswith("W/")]
            return f"size {info.get('size')}; " + "; ".join(found) if found else None
        spec: Any = require("fsspec", "remote", "reading URLs")
        if type(fs).ukey is spec.spec.AbstractFileSystem.ukey:
            return None  # a digest of whatever the listing says (the time, the size): not the bytes
        return str(_within(opener.timeouts.object, lambda: fs.ukey(path)))
    except Exception:  # not known: the object is audited, not looked up
        return None


def _twin_of(location: str) -> str | None:
    folder, name = posixpath.split(location)
    other = STORED_NAMES.get(name)
    return f"{folder}/{other}" if other else None


def url_exists(url: str) -> bool:
    """Whether a URL on the command line names something: ``False`` when the storage
    says there is nothing there; ``NetworkError`` when it cannot be asked (no
    connection, no answer in time, a name it rejects)."""
    timeouts = Timeouts.from_environment()
    search = _Search(url, timeouts, ignore)
    fs, path = filesystem(url, timeouts)
    if _is_http(fs):
        def ask() -> bool:
            _http_get(fs, path, timeouts, timeouts.object, read_page=False)
            return True
    else:
        def ask() -> bool:
            return bool(fs.exists(path))
    def answered(exc: Exception) -> bool:
        """The storage answered: there is nothing there, or (for an object named on the
        command line) it answered with an error that reading it will report (an HTTP
        status, a refusal), as a local file that cannot be read is an IO finding."""
        return isinstance(exc, FileNotFoundError) or (named_as_unit(url) and (
            _named(exc, "ClientResponseError") or isinstance(exc, PermissionError)))

    try:
        return search.call(ask, answered)
    except FileNotFoundError:
        return False
    except Exception as exc:
        if answered(exc):
            return True
        raise


def discover_url(url: str, passed_over: PassedOver = ignore) -> Iterator[Unit]:
    """The logs and archives at a URL: below it when it is a prefix or a page of
    links, else the object itself (taken as given, as a named file is)."""
    timeouts = Timeouts.from_environment()
    if named_as_unit(url):
        yield _unit(url, None, False, None, timeouts)
        return
    search = _Search(url, timeouts, passed_over)
    fs, root = filesystem(url, timeouts)
    found = search.http(fs) if _is_http(fs) else search.listing(fs, root)
    if found == [(url, None)]:
        yield _unit(url, None, False, None, timeouts)
        return
    found.sort(key=lambda item: redact(item[0]))
    names = {location for location, _ in found}
    for location, size in found:
        twin = _twin_of(location)
        yield _unit(location, size, True, twin in names if twin else None, timeouts)


def _unit(location: str, size: int | None, discovered: bool, twin: bool | None, timeouts: Timeouts) -> Unit:
    opener = RemoteFile(location, size, twin, timeouts)
    shown = redact(location)
    if _object_name(location).endswith(ARCHIVE_SUFFIXES):
        return Archive(shown, opener)
    return Source(shown, opener, is_file=True, discovered=discovered)


__all__ = ["NetworkError", "RemoteFile", "Timeouts", "discover_url", "filesystem", "url_exists", "validator"]
