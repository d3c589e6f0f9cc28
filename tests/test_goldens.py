"""The repo's goldens through the pytest plugin: `pytest --snapshot-update` refreshes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from replay.scenarios.check import scenario_names
from tests.helpers import REPO


@pytest.mark.parametrize("scenario", scenario_names(REPO / "scenarios"))
def test_scenario_goldens(scenario: str, replay_scenario: Callable[[str], dict[str, bytes]],
                          replay_snapshot: Any) -> None:
    for name, data in replay_scenario(scenario).items():
        assert data == replay_snapshot(name=f"{scenario}/{name}")
