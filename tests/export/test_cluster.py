"""``replay export --scheduler``: on a Dask cluster (a 2-worker ``LocalCluster`` on the
loopback), the workers write their own Parquet parts into the export's staging folder
(a local folder they share here), and the tables are those of one process."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from replay.check.audit import AuditRequest
from replay.export.run import ExportRequest, export
from replay.export.schema import TABLES
from tests.helpers import corpus_root

pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed", reason="dask[distributed] (the dask extra) is not installed")
pq = pytest.importorskip("pyarrow.parquet", reason="the export extra (pyarrow) is not installed")


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  host="127.0.0.1") as spawned:
        yield spawned


def test_a_cluster_export_is_the_export_of_one_process(local_cluster: Any, tmp_path: Path) -> None:
    root = corpus_root() / "acp-2026-07-23"
    if not root.is_dir():
        pytest.skip(f"the shared corpus {root} is absent (set REPLAY_CORPUS)")
    alone, on_cluster = tmp_path / "alone", tmp_path / "cluster"
    export(ExportRequest(AuditRequest((str(root),), jobs=1), str(alone), events=True, row_group=40))
    result = export(ExportRequest(AuditRequest((str(root),), scheduler=local_cluster.scheduler_address),
                                  str(on_cluster), events=True, row_group=40))
    assert result.rows["sessions"] > 20
    for table in TABLES:
        assert pq.read_table(on_cluster / f"{table}.parquet").to_pylist() == \
            pq.read_table(alone / f"{table}.parquet").to_pylist(), table
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone", "cluster"]
