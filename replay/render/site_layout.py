"""The names of the session browser's site (``replay view PATH -o DIR``), said once: a
leaf, so the command line reads them without loading the site's builder
(``replay.view.site``)."""

from __future__ import annotations

DEFAULT_SITE = "replay-site"
"""Where the site goes when ``-o`` is not given."""
SITE_MARKER = ".replay-site"
"""The file that marks a folder as a site ``replay view`` wrote (a rebuild may replace it)."""
INDEX = "index.html"
SESSIONS = "sessions"
"""The folder of the session pages: one folder in it per folder of logs."""
RULES_FOLDER = "rules"
"""The folder of the rule pages (``replay rules ID``'s text)."""
STAGING = ".replay-site-build-"
"""The hidden folder of the site's folder a site is written into before it is published."""
OLD = ".replay-site-old-"
"""The hidden folder of the site's folder the folders a new site replaces are moved into."""
SITE_NAMES = (INDEX, f"{SESSIONS}/", f"{RULES_FOLDER}/", SITE_MARKER)
"""The names a site replaces in its folder, as ``--help`` says them."""
