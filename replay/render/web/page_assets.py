"""The page's inline stylesheet and script, and the Content-Security-Policy that allows
exactly these two and nothing else.

The policy names the style and the script by their SHA-256 hashes, so the page's own
inline code runs from ``file://`` while any markup a log might smuggle in could neither
run a script nor load a resource: ``default-src 'none'`` refuses every fetch (images,
fonts, frames, connections), and Trusted Types refuse every HTML-string sink
(``innerHTML`` and the like), which the script never uses: it builds nodes and sets
``textContent`` only.

The script reads no log text except through the timeline's JSON data block
(``<script type="application/json">``, a data block the browser never runs).

The stylesheet and the script are real files of the package, ``page.css`` and
``page.js`` (so they can be linted and edited as what they are), read once when this
module loads; the page inlines them, each after a newline.

A site's session pages (``replay view PATH -o DIR``) are thousands of pages with the same
style and script: they link them instead, as two files of the site written once
(``SITE_STYLE``, ``SITE_SCRIPT``: named by their content's hash, so a browser or a static
host never serves a page an older copy), and their policy allows the site's own origin
(``'self'``) where a page alone names its inline code's hashes. Every text of a log is
escaped all the same, so no markup of a log can name a script or a stylesheet.
"""

from __future__ import annotations

import base64
import hashlib
import re
from importlib import resources


def _asset(name: str) -> str:
    return resources.files("replay.render.web").joinpath(name).read_text(encoding="utf-8")


CSS = "\n" + _asset("page.css")
"""The inline stylesheet: ``page.css`` (package data), after a newline."""
SCRIPT = "\n" + _asset("page.js")
"""The inline script: ``page.js`` (package data), after a newline."""


def source_hash(text: str) -> str:
    """The CSP source expression of an inline element's text: ``'sha256-…'``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


NONE = "'none'"


SELF = "'self'"


def content_security_policy(style: str = CSS, script: str | None = SCRIPT) -> str:
    """Nothing may be fetched; only this inline style and this inline script (none: no
    script at all) may apply and run."""
    return _policy(source_hash(style), source_hash(script) if script is not None else NONE)


def _policy(style_src: str, script_src: str) -> str:
    return "; ".join((
        "default-src 'none'",
        f"script-src {script_src}",
        f"style-src {style_src}",
        "base-uri 'none'",
        "form-action 'none'",
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    ))


CSP = content_security_policy()

def compact_css(text: str) -> str:
    """A stylesheet without the line breaks and indentation that only help its reader
    (a page alone, the index and the rule pages carry theirs inline)."""
    text = re.sub(r"\s*\n\s*", " ", text)
    return re.sub(r"\s*([{}])\s*|;\s+", lambda m: m.group(1) or ";", text).strip()


def compact_js(text: str) -> str:
    """A script without indentation, blank lines and whole-line comments (its lines are
    kept: no statement ever depends on how they were indented)."""
    lines = (line.strip() for line in text.splitlines())
    return "\n" + "\n".join(line for line in lines if line and not line.startswith("//"))


SESSION_CSS = compact_css(CSS + _asset("site.css") + _asset("session.css"))
"""A session page's stylesheet: the page's, the site's (``site.css``), a session page's
own (``session.css``), compacted."""
INDEX_CSS = compact_css(CSS + _asset("site.css") + _asset("index.css"))
"""The index's stylesheet: the page's, the site's, the index's own (``index.css``)."""
RULE_CSS = compact_css(CSS + _asset("site.css"))
SESSION_SCRIPT = compact_js(SCRIPT + _asset("session.js"))
"""A session page's script: the page's (panel, timeline), then ``session.js`` (search,
filters, keys, landing on ``#L25`` and ``#seq-24``), compacted."""
INDEX_SCRIPT = compact_js(_asset("index.js"))
"""The index's script: sorting, filtering and paging its rows (``index.js``)."""
SESSION_CSP = content_security_policy(SESSION_CSS, SESSION_SCRIPT)
INDEX_CSP = content_security_policy(INDEX_CSS, INDEX_SCRIPT)
RULE_CSP = content_security_policy(RULE_CSS, None)
"""A rule's page runs no script."""


def _named(stem: str, text: str, suffix: str) -> tuple[str, bytes]:
    data = text.lstrip("\n").encode("utf-8") + b"\n"
    return f"{stem}-{hashlib.sha256(data).hexdigest()[:12]}{suffix}", data


SITE_STYLE = _named("session", SESSION_CSS, ".css")
"""A site's session pages' stylesheet as a file of the site: its name (with its
content's hash) and its bytes."""
SITE_SCRIPT = _named("session", SESSION_SCRIPT, ".js")
"""A site's session pages' script as a file of the site: its name and its bytes."""
SITE_SESSION_CSP = _policy(SELF, SELF)
"""The policy of a site's session page: its style and script are the site's files (its
own origin's, ``'self'``), nothing else."""
