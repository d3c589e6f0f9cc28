from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from replay.check.cache import CACHE_ENV
from replay.fs import NO_FSYNC

# Bytecode caches are written for the suite even where PYTHONDONTWRITEBYTECODE is set
# (as some CI images do): the suite starts some 150 interpreters (`python -m replay`
# as a user runs it), and each would compile replay from source again, about half its
# start-up. The caches go to the checkout's own __pycache__ folders (ignored by git).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

pytest_plugins = ["pytester"]  # the pytest plugin's tests run their inner sessions in process

# Hypothesis profiles (HYPOTHESIS_PROFILE; "ci" when CI is set, else "dev"). A test whose
# examples cost much asks for a number of its own, given as the "ci" one and scaled to
# the profile by tests.helpers.examples; "fuzz" (`nox -s fuzz`) runs ten times "ci".
settings.register_profile("ci", max_examples=200, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("fuzz", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True, scope="session")
def _no_fsync() -> Iterator[None]:
    """No fsync in the suite (its files are thrown away; a kill leaves the same files
    with or without one): the tests of durability remove it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(NO_FSYNC, "1")
        yield


@pytest.fixture(autouse=True, scope="module")
def _audit_cache_per_module(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A module's fixtures (set up before any test's) their own audit cache too."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("module-audit-cache")))
        yield


@pytest.fixture(autouse=True)
def _audit_cache_per_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test its own audit cache (``replay audit`` and ``replay view`` keep one by
    default, below the working directory, which for many tests is the checkout): a
    cache never leaks from one test, or one xdist worker, to another, nor into the
    checkout. The tests of the cache name their own folders."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("audit-cache")))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` run first (in their collection order, then the rest in
    theirs): under ``-n auto`` a long test then overlaps the short ones instead of being
    the last thing a worker does while the others idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
