"""The golden engine: goldens on disk (store), pending goldens and their review, the
selectors, the diff, and the comparison of produced bytes with goldens. It knows
nothing of harness logs or scenarios' contents: names are checked through a policy
the caller gives (``replay.scenarios`` gives the producers' names)."""

GOLDENS = "goldens"
"""The folder of golden folders, in a project (``replay check`` and the pytest plugin's default)."""
PENDING_FOLDER = ".replay/pending"
"""Where ``replay check --pending`` (and the pytest plugin under CI) puts pending goldens,
and where ``review``, ``accept`` and ``reject`` look for them, unless told otherwise."""
DECISIONS = {"a": "accept", "r": "reject", "s": "skip"}
"""``replay review``'s keys that decide a pending golden; in capitals, for it and every
one after it."""
QUIT = "q"
"""``replay review``'s key that leaves the rest pending."""
