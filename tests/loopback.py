"""Hostile servers on the loopback, started by the test that uses them (port 0, so
tests under xdist never share a port): an HTTP server whose routes a test writes, a
port that accepts connections and never answers, and a port where nothing listens."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Route = Callable[["Handler"], None]


@dataclass
class Served:
    """What the server saw: each request's path and headers, and the body bytes sent
    (in all, and by path)."""

    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    body_bytes: int = 0
    by_path: dict[str, int] = field(default_factory=dict)
    lock: threading.Condition = field(default_factory=threading.Condition)
    stop: threading.Event = field(default_factory=threading.Event)
    active: int = 0
    """Requests being answered now."""

    def sent(self, n: int, path: str = "") -> None:
        with self.lock:
            self.body_bytes += n
            self.by_path[path] = self.by_path.get(path, 0) + n

    def idle(self, timeout: float = 120.0) -> None:
        """Wait until no request is being answered: what a count says is then final,
        however slowly a loaded machine runs the server's threads."""
        with self.lock:
            if not self.lock.wait_for(lambda: self.active == 0, timeout):
                raise AssertionError(f"the server still answers {self.active} request(s) after {timeout:g} s")


class Handler(BaseHTTPRequestHandler):
    routes: dict[str, Route]
    served: Served
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        return None

    def _route(self) -> None:
        self.served.requests.append((self.command, self.path, dict(self.headers.items())))
        path = self.path.partition("?")[0]
        route = self.routes.get(path) or next(
            (r for prefix, r in self.routes.items() if prefix.endswith("*") and path.startswith(prefix[:-1])), None)
        if route is None:
            self.reply(404, b"not found")
            return
        with self.served.lock:
            self.served.active += 1
        try:
            with contextlib.suppress(ConnectionError, OSError):
                route(self)
        finally:
            with self.served.lock:
                self.served.active -= 1
                self.served.lock.notify_all()

    do_GET = do_HEAD = _route

    def reply(self, status: int, body: bytes = b"", content_type: str = "application/octet-stream",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
            self.served.sent(len(body), self.path.partition("?")[0])

    def redirect(self, location: str) -> None:
        self.reply(302, b"", headers={"Location": location})

    def page(self, links: list[str]) -> None:
        """An HTML page of links (a listing, as web servers make them)."""
        body = "".join(f'<a href="{link}">{link}</a>\n' for link in links)
        self.reply(200, f"<html><body>\n{body}</body></html>\n".encode(), "text/html; charset=utf-8")

    def stream(self, chunk: bytes, pause: float = 0.0, budget: int | None = None, first: bytes = b"") -> None:
        """A body of unknown length and type (no Content-Length, no Content-Type: it
        ends when the connection closes): ``first``, then ``chunk`` again and again,
        ``pause`` seconds apart, until the client goes, the test ends, or ``budget``
        bytes were sent (then the connection is cut)."""
        self.send_response(200)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if self.command == "HEAD":
            return
        self.wfile.write(first)
        sent = 0
        while not self.served.stop.is_set() and (budget is None or sent < budget):
            self.wfile.write(chunk)
            self.served.sent(len(chunk), self.path.partition("?")[0])
            sent += len(chunk)
            if pause:
                time.sleep(pause)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        return None  # a client that hangs up (as replay does at a cap) is no error of the test's


@contextlib.contextmanager
def http_server(routes: dict[str, Route]) -> Iterator[tuple[str, Served]]:
    """``http://127.0.0.1:PORT`` serving ``routes`` (a path, or a prefix ending in
    ``*``), and what it served."""
    served = Served()
    handler = type("RouteHandler", (Handler,), {"routes": routes, "served": served})
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        served.stop.set()
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel completes them) and never says a
    word: nothing ever reads from or writes to them."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def closed_port() -> int:
    """A port nothing listens on (bound, then let go)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
