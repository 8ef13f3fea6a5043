"""The batch benchmark's fault run as a (slow) test: a folder with 5 % corrupt files and a 20-page PDF at
600 dpi; every good page processed, every bad one reported, peak memory of the whole batch under 1 GB."""
from __future__ import annotations

import pytest

from scanner.batch import bench


@pytest.mark.slow
def test_fault_run_loses_nothing_and_stays_under_a_gigabyte(capsys):
    code = bench.main(["--skip-throughput", "--fault-images", "40"])
    out = capsys.readouterr().out
    assert "good pages processed: 58 of 58" in out and "bad files reported: 2 of 2" in out, out
    assert code == 0, out  # 0 also means the peak resident memory stayed under 1024 MB
