"""``verify bench`` at the tiny size: the command runs, its JSON has the figures, and baseline and ibverify agree.
Timings are not asserted (benchmarks, not timed tests)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from numerics.descent import batched_gradient_descent
from numerics.losses import Objective
from verify.bench import numpy_fig1_descent
from verify.cli import main
from verify.workloads import fig1_data, fig1_initialization, fig1_network

FIELDS = {"name", "size", "workload", "baseline", "baseline_seconds", "ibverify_seconds", "ratio", "goal", "goal_met",
          "statistics", "load_average", "baseline_cpu_seconds", "ibverify_cpu_seconds", "cpu_ratio"}


def test_numpy_baseline_is_the_same_descent() -> None:
    X, Y = fig1_data()
    theta0 = 0.5 * fig1_initialization(np.random.default_rng(2), 6) / 1e-4  # radius 0.5: kinks are crossed
    theta, loss = numpy_fig1_descent(theta0, 400, 0.05)
    reference = batched_gradient_descent(Objective(fig1_network(), X, Y, "square"), theta0, 400, 0.05,
                                         record_every=400, engine="compiled")
    assert np.max(np.abs(theta - reference.theta)) < 1e-12 and np.max(np.abs(loss - reference.loss[-1])) < 1e-12


def test_best_time_separates_cpu_from_waiting() -> None:
    """A sleeping call takes wall time and almost no CPU; a busy one takes both, about equally."""
    import time

    from verify.bench import _best_time

    asleep = _best_time(lambda: time.sleep(0.2), 2)
    assert asleep.wall >= 0.2 and asleep.cpu < 0.05 and asleep.value is None

    def busy() -> int:
        end = time.process_time() + 0.2
        while time.process_time() < end:
            pass
        return 7

    working = _best_time(busy, 1)
    assert working.cpu >= 0.2 and working.wall >= 0.2 * 0.99 and working.value == 7


def test_bench_fig1_and_gf_long(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "bench.json"
    assert main(["bench", "fig1", "gf-long", "--size", "tiny", "--json", str(target)]) == 0
    report = json.loads(target.read_text())
    assert report["size"] == "tiny" and report["machine"]["cores"] >= 1 and report["machine"]["cpu"]
    fig1, flow = report["results"]
    assert set(fig1) == FIELDS and set(flow) == FIELDS
    assert fig1["name"] == "fig1"
    assert fig1["ratio"] == pytest.approx(fig1["baseline_seconds"] / fig1["ibverify_seconds"])
    for result in (fig1, flow):  # CPU time beside wall time, both sides
        assert result["baseline_cpu_seconds"] > 0 and result["ibverify_cpu_seconds"] > 0
        assert result["cpu_ratio"] == pytest.approx(result["baseline_cpu_seconds"] / result["ibverify_cpu_seconds"])
    assert fig1["goal_met"] is None  # the 50× goal is stated at the paper's size
    stats = fig1["statistics"]
    assert stats["statistics_agree"] and stats["binomial_p_value"] >= 0.01
    assert stats["baseline_converged"] == stats["ibverify_converged"] > 0 and stats["same_outcome_runs"] == 96
    assert stats["engine"] == "compiled (cpu)"  # auto, by cost: a tiny workload runs on the CPU, GPU or not
    from numerics.cuda_descent import availability

    if availability().gpu:  # both devices side by side, the same bits (square loss)
        assert stats["same_bits_cpu_cuda"] and stats["cuda_seconds"] > 0 and stats["cpu_seconds"] > 0
    else:
        assert "cuda_seconds" not in stats and stats["cpu_engine"] == "compiled (cpu)"
    assert flow["name"] == "gf-long" and flow["statistics"]["all_completed"] and flow["goal_met"] is not None
    assert flow["statistics"]["max_relative_log_loss_difference"] < 1e-6  # log clock and real clock agree
    out = capsys.readouterr().out
    assert "verify bench --size tiny" in out and "fig1" in out and "gf-long" in out


@pytest.mark.parametrize("arguments, message", [
    (["fig2"], "unknown benchmark 'fig2'"),
    (["fig1", "--repeat", "0"], "--repeat must be at least 1"),
    (["--size", "huge"], "invalid choice: 'huge'"),
])
def test_bench_rejects_bad_input_in_one_line(arguments: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cuda_is_refused_where_there_is_none(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    assert main(["bench", "fig1", "--device", "cuda"]) == 2
    assert capsys.readouterr().err.strip() == "verify: error: --device cuda: no CUDA device is available"


@pytest.mark.slow  # ≈ 10 s: a `verify run` subprocess imports every claim module
def test_bench_suite_quick(tmp_path: Path) -> None:
    target = tmp_path / "bench.json"
    assert main(["bench", "suite-quick", "--size", "tiny", "--json", str(target)]) == 0
    (suite,) = json.loads(target.read_text())["results"]
    assert suite["baseline_seconds"] is None and suite["ratio"] is None and suite["ibverify_seconds"] > 0
    assert suite["statistics"]["claims"] == suite["statistics"]["as_expected"] == 1
    # the subprocess's CPU, which a sleeping parent does not have: counted from the children it waited for
    assert suite["ibverify_cpu_seconds"] > 0.5 and suite["cpu_ratio"] is None


def test_bench_threads_gives_the_same_bits(tmp_path: Path) -> None:
    target = tmp_path / "bench.json"
    assert main(["bench", "threads", "--size", "tiny", "--json", str(target)]) == 0
    result = json.loads(target.read_text())["results"][0]
    assert result["name"] == "threads" and result["statistics"]["same_bits"] and result["goal_met"] is None
    assert result["statistics"]["cpu_seconds_one_thread"] > 0
    assert result["baseline_cpu_seconds"] == result["statistics"]["cpu_seconds_one_thread"]


def test_bench_tensor_descent(capsys: pytest.CaptureFixture[str]) -> None:
    """The reference and the compiled kernel on the same runs (tiny: 3 runs × 10⁴ steps), as one JSON document."""
    assert main(["bench", "tensor-descent", "--size", "tiny", "--json", "-"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["results"]
    assert set(result) == FIELDS and result["name"] == "tensor-descent" and result["goal_met"] is None
    stats = result["statistics"]
    assert stats["runs_compared"] == 3 and stats["agree_to_1e-10"]
    assert stats["max_relative_iterate_difference"] < 1e-12 and stats["max_relative_loss_difference"] < 1e-12
    assert stats["baseline_cpu_seconds"] > 0 and stats["ibverify_cpu_seconds_36_runs"] > 0
