"""Optional dependencies, imported only by the feature that needs them: a missing one
is a ``MissingExtra`` that names the extra to install (the CLI's usage error, exit 2)."""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtra(Exception):
    """An optional dependency is not installed; the message names the extra."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """``module``, imported; ``MissingExtra`` saying ``purpose`` needs ``replay[extra]``."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{purpose} needs {module}: pip install 'replay[{extra}]'") from None
