"""Path logic of the ACP cards: title relativization and the terminal cwd.

Paths are judged in the world of the session cwd: a drive-letter cwd (``C:\\…``) uses
Windows rules, anything else POSIX rules, like Node's ``path`` on each platform. A
path beginning with the fixture placeholder ``{{cwd}}`` stands for the session cwd.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from types import ModuleType

from replay.log.values import CWD_PLACEHOLDER

_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def _flavour(cwd: str) -> ModuleType:
    return ntpath if _DRIVE.match(cwd) else posixpath


def expand(path: str, cwd: str | None) -> str:
    """``{{cwd}}`` / ``{{cwd}}/rest`` → the session cwd (when there is one)."""
    if cwd is not None and (path == CWD_PLACEHOLDER or path.startswith(CWD_PLACEHOLDER + "/")
                            or path.startswith(CWD_PLACEHOLDER + "\\")):
        return cwd + path[len(CWD_PLACEHOLDER):]
    return path


def relative_inside(path: str, cwd: str | None) -> str | None:
    """The form of ``path`` relative to ``cwd`` when ``path`` is absolute and strictly
    inside it; ``None`` otherwise (relative path, the cwd itself, or outside it)."""
    if cwd is None:
        return None
    flavour = _flavour(cwd)
    full = expand(path, cwd)
    if not flavour.isabs(full) or not flavour.isabs(cwd):
        return None
    try:
        rel = flavour.relpath(flavour.normpath(full), flavour.normpath(cwd))
    except ValueError:  # different drives
        return None
    if rel in ("", ".", "..") or rel.startswith(".." + flavour.sep) or flavour.isabs(rel):
        return None
    return str(rel)


def relativize_title(title: str, path: str | None, cwd: str | None) -> str:
    """Replace every occurrence of ``path`` in ``title`` by its cwd-relative form."""
    if path is None or not path:
        return title
    rel = relative_inside(path, cwd)
    return title if rel is None else title.replace(path, rel)


def terminal_cwd(view_cwd: str | None, cwd: str | None) -> str | None:
    """The cwd a terminal card reports: the view's when absolute, a relative one
    resolved against the session cwd (or passed through without one), else the
    session cwd."""
    if view_cwd is None:
        return cwd
    if cwd is None:
        return view_cwd
    flavour = _flavour(cwd)
    full = expand(view_cwd, cwd)
    if flavour.isabs(full):
        return full
    return str(flavour.normpath(flavour.join(cwd, full)))
