"""What the command shows of a URL, and the one override of its network time limits.

**Credentials never leave the command.** A URL may carry them: userinfo
(``https://user:password@host/…``) and the parameters of a signed or token URL
(``?X-Amz-Signature=…``, ``?sig=…``, ``?token=…``). ``redact`` is how every URL is
shown — the name a log or archive found at a URL carries in every report, baseline
and message — with the userinfo replaced by ``***`` and the value of every secret
parameter by ``***``; the URL itself is kept only to open it. Because the secret
parts are gone from the name, a log reached with other credentials (or a freshly
signed URL) has the same name, so its findings match the same baseline entries.
``scrub`` does the same to free text (a backend's error message quoting the URL).

``REPLAY_NETWORK_TIMEOUTS`` sets the network time limits of one run, each by its name
(``connect=5,read=10,object=120,search=60,scheduler=10``: seconds; any left out keeps
its default): the URL limits of ``replay.log.remote`` and the Dask scheduler's of
``replay.cluster``. Read once, where a command starts its network work.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from urllib.parse import unquote

SECRET_WORDS = ("sig", "token", "key", "secret", "pass", "pwd", "credential", "auth", "x-amz-", "x-goog-")
"""A URL parameter whose name contains one of these (case-insensitive) is a secret:
``sig``, ``signature``, ``X-Amz-Signature``, ``token``, ``access_token``,
``X-Amz-Security-Token``, ``key``, ``api_key``, ``password``, ``secret``,
``X-Amz-Credential``, ``Authorization``… Every ``X-Amz-*`` and ``X-Goog-*`` parameter
is redacted, so that a URL signed again (a new date, a new expiry) keeps its name."""
HIDDEN = "***"
"""What a secret is shown as."""
TIMEOUT_ENV = "REPLAY_NETWORK_TIMEOUTS"
"""The environment variable that sets network time limits by name (seconds)."""
TIMEOUT_NAMES = ("connect", "read", "object", "search", "scheduler")
"""The limits it may set."""

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*)@")
_PARAMETER = re.compile(r"(?P<lead>[?&;#](?P<name>[^=&;#\s]*)=)(?P<value>[^&;#\s]*)")


class NetworkError(Exception):
    """A URL, or a network service, that cannot be used at all (unreachable, refused,
    malformed): a usage error. The message names it (redacted) and says why."""


def is_url(path: str) -> bool:
    """A URL fsspec opens (``scheme://…``, or a chained ``a::b`` URL), not a local path."""
    scheme, sep, _ = path.partition("://")
    if sep and scheme and all(c.isalnum() or c in "+-." for c in scheme):
        return True
    return "::" in path


def secret_parameter(name: str) -> bool:
    lowered = unquote(name).lower()
    return any(word in lowered for word in SECRET_WORDS)


def _hide_parameter(match: re.Match[str]) -> str:
    if match["value"] and secret_parameter(match["name"]):
        return match["lead"] + HIDDEN
    return match[0]


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it hidden: userinfo and the
    values of secret parameters (see ``SECRET_WORDS``)."""
    if "@" in text:
        text = _USERINFO.sub(lambda m: f"{m['scheme']}{HIDDEN}@" if m["userinfo"] else m[0], text)
    if "=" in text:
        text = _PARAMETER.sub(_hide_parameter, text)
    return text


def secrets_of(url: str) -> list[str]:
    """The secret strings of a URL (its userinfo's parts, its secret parameters'
    values), as written and percent-decoded, longest first: what ``scrub`` hides
    wherever a message repeats them outside the URL."""
    found: set[str] = set()
    for match in _USERINFO.finditer(url):
        userinfo = match["userinfo"]
        for part in (userinfo, *userinfo.split(":")):
            found.update((part, unquote(part)))
    for match in _PARAMETER.finditer(url):
        if secret_parameter(match["name"]):
            found.update((match["value"], unquote(match["value"])))
    return sorted((s for s in found if len(s) >= 3), key=len, reverse=True)


def scrub(text: str, url: str) -> str:
    """Free text that may quote ``url`` (a backend's error): every URL in it redacted,
    and the secrets of ``url`` hidden wherever else they appear."""
    text = redact(text)
    for secret in secrets_of(url):
        text = text.replace(secret, HIDDEN)
    return text


def network_timeout(name: str, default: float, environ: Mapping[str, str] | None = None) -> float:
    """The time limit ``name`` (one of ``TIMEOUT_NAMES``): as ``REPLAY_NETWORK_TIMEOUTS``
    sets it, else ``default``. ``NetworkError`` when the variable is not a list of
    ``name=seconds`` with known names and positive numbers."""
    assert name in TIMEOUT_NAMES
    raw = (os.environ if environ is None else environ).get(TIMEOUT_ENV, "")
    found = default
    for item in raw.split(","):
        if not item.strip():
            continue
        key, sep, text = item.partition("=")
        key = key.strip()
        try:
            value = float(text) if sep else math.nan
        except ValueError:
            value = math.nan
        if key not in TIMEOUT_NAMES or not (value > 0 and math.isfinite(value)):
            raise NetworkError(f"{TIMEOUT_ENV}={raw!r}: {item.strip()!r} is not NAME=SECONDS, with NAME one of "
                               f"{', '.join(TIMEOUT_NAMES)} and SECONDS a positive number")
        if key == name:
            found = value
    return found
