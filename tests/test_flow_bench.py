"""``verify bench flow-fields`` pieces: the per-evaluation comparison agrees to rounding (field) and to
finite-difference accuracy (Jacobian), the figure comparison of two claim runs, and the whole benchmark through the
CLI at tiny size. Timings are not asserted (benchmarks, not timed tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.cli import main
from verify.flow_bench import _figure_difference, bench_evaluations


def test_evaluations_agree() -> None:
    rows = bench_evaluations(10)
    assert len(rows) == 8
    for row in rows.values():
        assert row["field"]["max_relative_difference"] < 1e-12
        assert row["jacobian"]["max_relative_difference"] < 1e-5  # forward differences against the analytic one
        assert row["field"]["generic_cpu_us"] > 0 and row["field"]["compiled_cpu_us"] > 0


def test_figure_difference_compares_shared_numeric_figures() -> None:
    a = {"evidence": {"x": {"figures": {"cost": 8.0, "seconds": 1.0, "nfev": 10.0}}, "y": {"figures": {"r": 1.0}}}}
    b = {"evidence": {"x": {"figures": {"cost": 8.0 + 8e-6, "seconds": 9.0, "nfev": 99.0}}}}
    assert _figure_difference(a, b) == pytest.approx(1e-6, rel=1e-5)  # seconds and evaluation counts ignored


def test_bench_flow_fields_tiny(tmp_path: Path) -> None:
    target = tmp_path / "bench.json"
    assert main(["bench", "flow-fields", "--size", "tiny", "--json", str(target)]) == 0
    (result,) = json.loads(target.read_text())["results"]
    stats = result["statistics"]
    assert result["name"] == "flow-fields" and result["goal_met"] is None
    assert stats["same_verdicts"] and stats["per_claim"]["margin.fig1"]["verdict"] == "confirmed"
    assert stats["field_max_relative_difference"] < 1e-12
