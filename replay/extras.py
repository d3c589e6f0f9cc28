"""Optional dependencies, imported only by the feature that needs them: a missing one
is a ``MissingExtra`` whose message is the command that installs the extra, as it works
from where replay came from (``installed_from``; the CLI's usage error, exit 2)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

from replay.hints import DISTRIBUTION, LOCK, Checkout, install_command


class MissingExtra(Exception):
    """An optional dependency is not installed; the message says how to install the extra."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``module``, imported; ``MissingExtra`` saying ``purpose`` needs the extra ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(missing(module, extra, purpose)) from None


def missing(module: str, extra: str, purpose: str) -> str:
    """What to say when ``module``, of the extra ``extra``, is not installed."""
    return f"{purpose} needs {module}: {install_hint(extra)}"


def install_hint(extra: str) -> str:
    """The command that installs the extra ``extra`` into this installation."""
    return install_command(extra, installed_from(), sys.executable, Path.cwd())


def installed_from() -> Checkout | None:
    """The checkout this replay was installed from, by pip's record of the install
    (``direct_url.json``), or None: installed from the package index or a wheel file,
    not installed at all (a source tree on ``sys.path``), or from a folder that is no
    longer a project. The install is the first on ``sys.path`` that an installer wrote
    (``INSTALLER``): a build's ``*.egg-info`` in the current folder is not one."""
    try:
        import importlib.metadata  # only now: it imports the e-mail and archive modules

        installed = (dist for dist in importlib.metadata.distributions(name=DISTRIBUTION)
                     if dist.read_text("INSTALLER") is not None)
        dist = next(installed, None)
        found = local_folder(None if dist is None else dist.read_text("direct_url.json"))
        if found is None or not (found[0] / "pyproject.toml").is_file():
            return None
        return Checkout(found[0], found[1], (found[0] / LOCK).is_file())
    except (OSError, ValueError):  # unreadable, not UTF-8, or a name no file can have
        return None


def local_folder(record: str | None) -> tuple[Path, bool] | None:
    """The folder a ``direct_url.json`` (PEP 610) says a distribution was installed from,
    and whether the install was editable; None when it names anything else (an archive,
    a repository, a remote URL) or is not such a record."""
    try:
        doc = json.loads(record or "")
    except ValueError:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("url"), str) or not isinstance(doc.get("dir_info"), dict):
        return None
    url = urlsplit(doc["url"])
    if url.scheme != "file" or url.netloc not in ("", "localhost") or not url.path.startswith("/"):
        return None
    from urllib.request import url2pathname  # only now: it imports HTTP and TLS

    return Path(url2pathname(url.path)), doc["dir_info"].get("editable") is True
