"""Reading and the event model: bytes (files, folders, stdin, zstd) to one normalized
event view, with line numbers kept and every storage rule (A1–A9, B3, B4, C1) judged
where the reader meets it."""
