"""The confined tree: the one package that opens, lists, reads, writes and deletes files
in folders replay does not trust, and writes the outputs a user names.

A golden tree, a scenario tree, a pending folder or a harness folder to import may
come from a pull request or a downloaded CI artefact, so nothing in them is trusted:

* **Nothing is followed or written through a symbolic link below a tree's root**:
  every folder and file is opened relative to its parent's descriptor with
  ``O_NOFOLLOW``; a link is refused with its path and why.
* **The root itself** is trusted only when the user named it (``--goldens DIR``,
  ``--pending DIR``): then the links in the path they typed are followed, as any
  command follows the paths it is given. A root replay finds on its own (the default
  ``goldens``, ``scenarios``, ``.replay/pending`` below the working directory) is
  opened one component at a time without following a link, root included: a
  committed ``goldens -> ../elsewhere`` is refused, never written through.
* **Reads are bounded** and of regular files only (opened non-blocking: a FIFO cannot
  hang a command); a larger file is refused.
* **Writes are atomic**: a temporary file ``.tmp-<pid>-<random>`` beside the target,
  fsynced, renamed over it; a new file gets 0666 less the umask, a replaced one keeps
  its mode. Cleanup removes only the temporary files of this process or of a dead one.
  (``REPLAY_TEST_NO_FSYNC=1`` skips the fsyncs: the test suite's knob, ``NO_FSYNC``.)
* **What is published whole is committed in one step** (``Commit``): staged under names
  no reader looks at, then moved into place by the steps of a journal, SIGINT and SIGTERM
  held meanwhile; a run killed half-way leaves the journal, and ``recover`` (called first
  by every command that publishes into the tree) finishes it. ``FAULT`` is the test
  suite's hook that kills, signals or fills the disk of the process at a named step.

What a file is and what an OS error means are said by ``replay.describe``;
``FsError`` messages name the path and say what to do.
"""

from replay.fs.commit import ASIDE_PREFIX, JOURNAL_PREFIX, LEFTOVER_PREFIXES, MAX_JOURNAL_BYTES, Commit, Step, recover
from replay.fs.faults import FAULT, fault, signals_held
from replay.fs.outputs import append_output, write_output, write_temporary
from replay.fs.tree import (
    NO_FSYNC,
    TEMP_PREFIX,
    Entry,
    FsError,
    Locked,
    Tree,
    Written,
    abandoned,
    check_name,
    not_a_folder,
    read_named,
    within,
    write_atomically,
)

__all__ = [
    "ASIDE_PREFIX", "FAULT", "JOURNAL_PREFIX", "LEFTOVER_PREFIXES", "MAX_JOURNAL_BYTES", "NO_FSYNC", "TEMP_PREFIX",
    "Commit", "Entry", "FsError", "Locked", "Step", "Tree", "Written", "abandoned", "append_output", "check_name",
    "fault", "not_a_folder", "read_named", "recover", "signals_held", "within", "write_atomically", "write_output",
    "write_temporary",
]
