from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]  # the pytest plugin's tests run their inner sessions in process

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=60, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` run first (in their collection order, then the rest in
    theirs): under ``-n 2`` a long test then overlaps the short ones instead of being
    the last thing a worker does while the other one idles."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
