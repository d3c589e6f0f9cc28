"""What ``replay render``, ``replay view`` and ``replay plan`` do around the pure
renderers of ``replay.render``: logs opened, audited and read, pages and sites
written (through ``replay.fs``), signals handled. ``replay.render`` itself opens no
file and runs no audit; this package is where its input comes from and its output goes."""
