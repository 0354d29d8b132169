"""Behavioural tests with teeth for numerics/sweeps.py (issue 18, mutation testing): where each chunk runs, how a
descent sweep is cut into chunks and which chunks get the progress report, what the progress lines say on a
scripted clock, and the Clopper–Pearson interval and its run count against closed forms, at each edge of each
condition.

The chunking tests replace :func:`numerics.sweeps.run_sweep` (and, for the GPU branch, ``resolve_engine``) by
recording stand-ins: they are about the sweep that :func:`~numerics.sweeps.descent_sweep` builds, not about the
descent (tests/test_sweeps.py checks that the chunked descents give the whole batch's bits). The module constants
are set by monkeypatch only through their documented meaning (a chunk has ⌈CHUNK_RUN_STEPS / steps⌉ runs, at least
MIN_CHUNK_RUNS; a compiled GPU sweep has CUDA_CHUNK_RUNS runs a chunk).
"""

from __future__ import annotations

import io
import math
import os
import threading
from statistics import NormalDist
from types import SimpleNamespace

import numpy as np
import pytest

from numerics import sweeps
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.sweeps import (
    ProgressLines,
    Sweep,
    chunk_seed,
    clopper_pearson,
    concatenate,
    default_workers,
    descent_sweep,
    run_sweep,
    runs_for_width,
)


def where(spec: int, seed: int) -> dict[str, np.ndarray]:
    """A chunk that reports its spec, its seed and whether it ran on the main thread."""
    on_main = threading.current_thread() is threading.main_thread()
    return {"spec": np.array([spec]), "seed": np.array([seed], dtype=np.uint64), "main": np.array([on_main])}


def no_pool(*args, **kwargs):
    raise AssertionError("this sweep must run in this process")


def objective() -> Objective:
    X = np.array([[1.0, 0.5], [-1.0, 0.25], [0.5, -1.0]])
    return Objective(fully_connected([2, 1], "linear"), X, np.array([[1.0], [-1.0], [1.0]]), "square")


# -- seeds and the combiner ---------------------------------------------------------------------------------------
def test_chunk_seeds_are_the_first_word_of_numpys_seed_sequence() -> None:
    for seed, index in ((0, 0), (7, 3), (2**40, 99)):
        expected = int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0])
        assert chunk_seed(seed, index) == expected and 0 <= expected < 2**64


def test_concatenate_joins_every_name_of_one_or_several_chunks() -> None:
    one = concatenate([{"a": np.arange(3), "b": np.ones((1, 2))}])
    assert set(one) == {"a", "b"} and one["a"].tolist() == [0, 1, 2] and one["b"].shape == (1, 2)
    two = concatenate([{"a": np.arange(2), "b": np.zeros((1, 2))}, {"a": np.arange(1), "b": np.ones((2, 2))}])
    assert two["a"].tolist() == [0, 1, 0] and two["b"].tolist() == [[0, 0], [1, 1], [1, 1]]


# -- where the chunks run ------------------------------------------------------------------------------------------
def test_default_workers_are_the_cpus_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_workers() == len(os.sched_getaffinity(0)) >= 1
    allowed = os.sched_getaffinity(0)
    if len(allowed) > 1:  # this process restricted to one CPU: one worker, whatever other processes may use
        try:
            os.sched_setaffinity(0, {min(allowed)})
            assert default_workers() == 1
        finally:
            os.sched_setaffinity(0, allowed)
    for count, workers in ((None, 1), (3, 3)):  # no affinity on this platform: os.cpu_count(), at least 1
        monkeypatch.setattr(sweeps, "os", SimpleNamespace(cpu_count=lambda count=count: count))
        assert default_workers() == workers


def test_a_sweep_seeds_its_chunks_from_seed_0_by_default() -> None:
    assert Sweep(where, (1, 2, 3)).seeds == [chunk_seed(0, k) for k in range(3)]


@pytest.mark.parametrize("workers", [0, -1])
@pytest.mark.parametrize("threads", [False, True])
def test_fewer_than_one_worker_is_refused(monkeypatch: pytest.MonkeyPatch, workers: int, threads: bool) -> None:
    monkeypatch.setattr(sweeps, "ProcessPoolExecutor", no_pool)  # refused before any pool is asked for
    monkeypatch.setattr(sweeps, "ThreadPoolExecutor", no_pool)
    with pytest.raises(ValueError, match="workers"):
        run_sweep(Sweep(where, (1, 2), threads=threads), workers=workers)


def test_one_worker_or_one_chunk_runs_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweeps, "ProcessPoolExecutor", no_pool)
    monkeypatch.setattr(sweeps, "ThreadPoolExecutor", no_pool)
    for sweep, workers in ((Sweep(where, (1, 2, 3), seed=4), 1), (Sweep(where, (5,), seed=4), 2),
                           (Sweep(where, (5,), seed=4, threads=True), 3), (Sweep(where, (5,), seed=4), None)):
        result = run_sweep(sweep, workers=workers)
        assert result["spec"].tolist() == list(sweep.chunks) and result["seed"].tolist() == sweep.seeds
        assert result["main"].all()


@pytest.mark.parametrize("chunks", [(1, 2), (1, 2, 3)])
def test_a_threads_sweep_with_workers_runs_on_a_thread_pool(monkeypatch: pytest.MonkeyPatch, chunks) -> None:
    monkeypatch.setattr(sweeps, "ProcessPoolExecutor", no_pool)
    sizes = []
    real = sweeps.ThreadPoolExecutor

    def pool(max_workers: int):
        sizes.append(max_workers)
        return real(max_workers=max_workers)

    monkeypatch.setattr(sweeps, "ThreadPoolExecutor", pool)
    result = run_sweep(Sweep(where, chunks, seed=9, threads=True), workers=2)
    assert sizes == [2] and not result["main"].any()
    assert result["spec"].tolist() == list(chunks) and result["seed"].tolist() == [chunk_seed(9, k)
                                                                                    for k in range(len(chunks))]


# -- how a descent sweep is chunked --------------------------------------------------------------------------------
class Recorder:
    """Stands in for run_sweep: records the sweep and its options, returns a result of the right shapes."""

    def __init__(self) -> None:
        self.sweeps: list[Sweep] = []
        self.options: list[dict] = []

    def __call__(self, sweep: Sweep, **options):
        self.sweeps.append(sweep)
        self.options.append(options)
        theta = np.concatenate([chunk.theta0 for chunk in sweep.chunks])
        checkpoints = len(sweeps.checkpoint_steps(sweep.chunks[0].steps, sweep.chunks[0].record_every))
        return {"theta": theta, "loss": np.zeros((len(theta), checkpoints))}

    @property
    def sizes(self) -> list[int]:
        return [len(chunk.theta0) for chunk in self.sweeps[-1].chunks]


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recording = Recorder()
    monkeypatch.setattr(sweeps, "run_sweep", recording)
    return recording


def starts(runs: int) -> np.ndarray:
    return np.arange(2.0 * runs).reshape(runs, 2)


def sizes_on_the_cpu(recorder: Recorder, runs: int, steps: int, **kwargs) -> list[int]:
    descent_sweep(objective(), starts(runs), steps, 0.1, engine="compiled", device="cpu", workers=1, progress=None,
                  **kwargs)
    return recorder.sizes


def test_cpu_chunks_have_about_chunk_run_steps_run_steps_and_at_least_min_chunk_runs(
        recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweeps, "CHUNK_RUN_STEPS", 1000)
    monkeypatch.setattr(sweeps, "MIN_CHUNK_RUNS", 32)
    assert sizes_on_the_cpu(recorder, 250, 10) == [100, 100, 50]  # ⌈1000 / 10⌉
    assert sizes_on_the_cpu(recorder, 100, 30) == [34, 34, 32]  # ⌈1000 / 30⌉ = 34
    assert sizes_on_the_cpu(recorder, 70, 31) == [33, 33, 4]  # ⌈1000 / 31⌉ = 33
    assert sizes_on_the_cpu(recorder, 70, 32) == [32, 32, 6]  # ⌈1000 / 32⌉ = 32
    assert sizes_on_the_cpu(recorder, 70, 100) == [32, 32, 6]  # 10 runs: raised to MIN_CHUNK_RUNS
    assert sizes_on_the_cpu(recorder, 1000, 1) == [1000]  # one step: all 1000 runs in one chunk
    assert sizes_on_the_cpu(recorder, 1500, 0) == [1000, 500]  # no steps count as one
    assert sizes_on_the_cpu(recorder, 1500, 0, chunk_runs=7)[:2] == [7, 7]
    assert sizes_on_the_cpu(recorder, 3, 10, chunk_runs=1) == [1, 1, 1]


def test_descent_sweeps_record_every_step_by_default(recorder: Recorder) -> None:
    run = descent_sweep(objective(), starts(2), 3, 0.1, engine="compiled", device="cpu", progress=None)
    assert run.steps.tolist() == [0, 1, 2, 3] and recorder.sweeps[-1].chunks[0].record_every == 1


def test_an_empty_sweep_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweeps, "resolve_engine", lambda *args, **kwargs: ("torch", "cuda"))
    with pytest.raises(ValueError, match="chunk"):
        descent_sweep(objective(), np.zeros((0, 2)), 10, 0.1, progress=None)


def test_gpu_chunks_and_workers(recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sweeps, "CUDA_CHUNK_RUNS", 4)
    for engine, sizes in (("compiled", [4, 4, 2]), ("torch", [10])):
        monkeypatch.setattr(sweeps, "resolve_engine", lambda *args, engine=engine, **kwargs: (engine, "cuda"))
        run = descent_sweep(objective(), starts(10), 5, 0.1, workers=3, progress=None)
        assert recorder.sizes == sizes and run.theta.shape == (10, 2)
        assert recorder.options[-1] == {"scheduler": None, "workers": 1}  # one process drives the GPU
        assert recorder.sweeps[-1].threads is False
        descent_sweep(objective(), starts(10), 5, 0.1, workers=3, scheduler="tcp://x:1", progress=None)
        assert recorder.options[-1] == {"scheduler": "tcp://x:1", "workers": 3}
        descent_sweep(objective(), starts(10), 5, 0.1, chunk_runs=3, workers=3, progress=None)
        assert recorder.sizes == [3, 3, 3, 1]


def test_the_engine_is_resolved_for_the_given_workers_or_every_cpu(recorder: Recorder,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def resolve(objective, engine, device, *, runs, steps, cores):
        seen.append((runs, steps, cores))
        return "compiled", "cpu"

    monkeypatch.setattr(sweeps, "resolve_engine", resolve)
    descent_sweep(objective(), starts(6), 5, 0.1, workers=3, progress=None)
    descent_sweep(objective(), starts(6), 5, 0.1, progress=None)
    assert seen == [(6, 5, 3), (6, 5, default_workers())]
    assert recorder.sweeps[-1].threads is True and recorder.options[-1]["workers"] is None


def test_only_compiled_cpu_sweeps_run_on_threads(recorder: Recorder) -> None:
    for engine, threads in (("compiled", True), ("torch", False), ("reference", False)):
        descent_sweep(objective(), starts(4), 5, 0.1, engine=engine, device="cpu", progress=None)
        assert recorder.sweeps[-1].threads is threads


@pytest.mark.parametrize(("engine", "workers", "chunk_runs", "scheduler", "local"), [
    ("compiled", 2, 2, None, True),  # threads
    ("compiled", 2, 2, "tcp://x:1", False),  # a cluster: the report does not travel
    ("torch", 1, 2, None, True),  # one worker: this process
    ("torch", 2, 2, None, False),  # a process pool, 3 chunks
    ("torch", 3, 3, None, False),  # a process pool, 2 chunks
    ("torch", 2, 6, None, True),  # one chunk: this process
    ("torch", 2, 6, "tcp://x:1", False),
    ("torch", 1, 2, "tcp://x:1", False),
])
def test_the_progress_report_reaches_the_chunks_that_run_here(recorder: Recorder, engine: str, workers: int,
                                                             chunk_runs: int, scheduler, local: bool) -> None:
    seen: list[int] = []
    callback = seen.append
    descent_sweep(objective(), starts(6), 5, 0.1, engine=engine, device="cpu", workers=workers,
                  chunk_runs=chunk_runs, scheduler=scheduler, progress=callback)
    assert all(chunk.progress is (callback if local else None) for chunk in recorder.sweeps[-1].chunks)
    assert len(recorder.sweeps[-1].chunks) == -(-6 // chunk_runs)


def test_a_progress_label_makes_progress_lines_over_all_run_steps(recorder: Recorder) -> None:
    descent_sweep(objective(), starts(6), 7, 0.1, engine="compiled", device="cpu", workers=2, chunk_runs=4,
                  progress="my sweep")
    reports = {id(chunk.progress) for chunk in recorder.sweeps[-1].chunks}
    report = recorder.sweeps[-1].chunks[0].progress
    assert len(reports) == 1 and isinstance(report, ProgressLines)
    assert report.label == "my sweep" and report.total == 6 * 7


# -- progress lines on a scripted clock ----------------------------------------------------------------------------
class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def lines(monkeypatch: pytest.MonkeyPatch, total: int, **kwargs) -> tuple[ProgressLines, Clock, io.StringIO]:
    clock, stream = Clock(1000.0), io.StringIO()
    monkeypatch.setattr(sweeps, "time", SimpleNamespace(monotonic=clock))
    return ProgressLines("sweep", total, stream=stream, **kwargs), clock, stream


def test_progress_lines_wait_quiet_seconds_then_every_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    report, clock, stream = lines(monkeypatch, 100, every=2.0, quiet=3.0)
    clock.now = 1002.999
    report(10)
    assert stream.getvalue() == ""
    clock.now = 1003.0  # quiet seconds over: a line
    report(10)
    assert stream.getvalue() == "sweep: 20% of 100 run-steps, 3 s, about 12 s left\n"
    clock.now = 1004.999
    report(10)
    assert stream.getvalue().count("\n") == 1
    clock.now = 1005.0  # every seconds since the last line
    report(40)
    assert stream.getvalue().splitlines()[-1] == "sweep: 70% of 100 run-steps, 5 s, about 2 s left"


def test_progress_lines_default_to_ten_quiet_seconds_and_a_line_every_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    report, clock, stream = lines(monkeypatch, 100)
    clock.now = 1009.99
    report(1)
    assert stream.getvalue() == ""
    clock.now = 1010.0
    report(1)
    clock.now = 1019.99
    report(1)
    assert stream.getvalue().count("\n") == 1
    clock.now = 1020.0
    report(1)
    assert stream.getvalue().count("\n") == 2
    for quiet_by_default in (True, False):  # each default alone: the other one short
        report, clock, stream = lines(monkeypatch, 100, **({"every": 1.0} if quiet_by_default else {"quiet": 0.0}))
        clock.now = 1009.99
        report(1)
        assert stream.getvalue() == ""
        clock.now = 1010.0
        report(1)
        assert stream.getvalue().count("\n") == 1


def test_progress_lines_estimate_the_time_left_from_the_share_done(monkeypatch: pytest.MonkeyPatch) -> None:
    report, clock, stream = lines(monkeypatch, 400, every=0.0, quiet=0.0)
    clock.now = 1012.0
    report(100)  # a quarter in 12 s: 12 · (3/4) / (1/4) = 36 s left
    clock.now = 1030.0
    report(500)  # past the total: 100 %, nothing left
    assert stream.getvalue().splitlines() == ["sweep: 25% of 400 run-steps, 12 s, about 36 s left",
                                              "sweep: 100% of 400 run-steps, 30 s, about 0 s left"]


@pytest.mark.parametrize(("total", "counted", "after_one", "left"), [(0, 1, 100, 0), (1, 1, 100, 0), (2.9, 2, 50, 5)])
def test_progress_lines_count_at_least_one_run_step(monkeypatch: pytest.MonkeyPatch, total, counted: int,
                                                    after_one: int, left: int) -> None:
    report, clock, stream = lines(monkeypatch, total, every=0.0, quiet=0.0)
    clock.now = 1005.0
    report(0)
    assert stream.getvalue() == f"sweep: 0% of {counted} run-steps, 5 s, about inf s left\n"
    report(1)
    assert stream.getvalue().splitlines()[-1] == f"sweep: {after_one}% of {counted} run-steps, 5 s, about {left} s left"


# -- the binomial interval against closed forms --------------------------------------------------------------------
@pytest.mark.parametrize(("successes", "trials"), [(-1, 5), (6, 5), (0, 0), (1, 0), (0, -1), (-1, -1)])
def test_clopper_pearson_refuses_impossible_counts(successes: int, trials: int) -> None:
    with pytest.raises(ValueError, match="trials"):
        clopper_pearson(successes, trials)


def test_clopper_pearson_in_closed_form() -> None:
    """Beta(k, n − k + 1) and Beta(k + 1, n − k) quantiles where they have closed forms: at k = 0 the upper end
    1 − (α/2)^(1/n), at k = n the lower end (α/2)^(1/n), at n = 2, k = 1 the ends 1 − √(1 − α/2) and √(1 − α/2)."""
    for confidence in (0.5, 0.9, 0.999):
        tail = (1 - confidence) / 2
        for n in (1, 2, 5):
            assert clopper_pearson(0, n, confidence) == pytest.approx((0.0, 1 - tail ** (1 / n)), abs=1e-12)
            assert clopper_pearson(n, n, confidence) == pytest.approx((tail ** (1 / n), 1.0), abs=1e-12)
        low, high = clopper_pearson(1, 2, confidence)
        assert (low, high) == pytest.approx((1 - math.sqrt(1 - tail), math.sqrt(1 - tail)), abs=1e-12)
    assert clopper_pearson(0, 1) == pytest.approx((0.0, 1 - 0.0005), abs=1e-12)  # default confidence 0.999
    assert clopper_pearson(1, 1) == pytest.approx((0.0005, 1.0), abs=1e-12)


def test_clopper_pearson_interior_counts_use_both_beta_quantiles() -> None:
    from scipy.stats import beta

    # k = 1 of n = 3 at 90 %: Beta(1, 3) has cdf 1 − (1 − p)³ and Beta(2, 2) has cdf 3p² − 2p³
    low, high = clopper_pearson(1, 3, 0.9)
    assert 1 - (1 - low) ** 3 == pytest.approx(0.05, abs=1e-12)
    assert 3 * high**2 - 2 * high**3 == pytest.approx(0.95, abs=1e-12)
    low, high = clopper_pearson(2, 3, 0.9)  # the mirror image
    assert (low, high) == pytest.approx((1 - clopper_pearson(1, 3, 0.9)[1], 1 - clopper_pearson(1, 3, 0.9)[0]))
    assert clopper_pearson(3, 7, 0.8) == pytest.approx((beta.ppf(0.1, 3, 5), beta.ppf(0.9, 4, 4)), abs=1e-12)


def test_runs_for_width_is_the_normal_approximation_plus_one_percent() -> None:
    for width, confidence in ((0.1, 0.95), (0.003, 0.999), (0.05, 0.5)):
        z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
        assert runs_for_width(width, confidence) == math.ceil(1.01 * (z / width) ** 2)
    z = NormalDist().inv_cdf(1 - 0.001 / 2)  # the default confidence 0.999
    assert runs_for_width(0.01) == math.ceil(1.01 * (z / 0.01) ** 2)
    assert runs_for_width(0.1, 0.95) == 388  # ⌈1.01 · (1.959964 / 0.1)²⌉ = ⌈387.99⌉


def test_a_pool_worker_runs_its_blas_on_one_thread(monkeypatch) -> None:
    """The spawn pool's initializer limits every loaded BLAS/OpenMP pool to one thread and tells torch so."""
    import threadpoolctl

    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    before = threadpoolctl.threadpool_info()
    try:
        threadpoolctl.threadpool_limits(2)  # more than one to start from, also in a process pinned to one CPU
        sweeps._one_thread_per_worker()
        assert os.environ["OMP_NUM_THREADS"] == "1"
        assert {pool["num_threads"] for pool in threadpoolctl.threadpool_info()} == {1}
    finally:
        for pool in before:
            threadpoolctl.threadpool_limits(pool["num_threads"], user_api=pool["user_api"])


@pytest.mark.parametrize("confidence", [0.0, -0.5, 1.0, 1.5])
def test_a_confidence_outside_the_open_unit_interval_is_refused(confidence: float) -> None:
    """Confidences 0 and 1 are the edges (an interval of no coverage, and the whole of [0, 1]): refused like
    anything outside, by both the interval and the run count."""
    with pytest.raises(ValueError, match=f"not {confidence}"):
        clopper_pearson(1, 2, confidence)
    with pytest.raises(ValueError, match=f"at {confidence}"):
        runs_for_width(0.1, confidence)


def test_runs_for_width_accepts_the_whole_unit_interval_and_nothing_wider() -> None:
    """A width of 1 (any interval of a probability fits) is allowed: ⌈1.01·z²⌉ runs, z = Φ⁻¹(0.9995); 0 and a
    width above 1 are refused."""
    z = 3.2905267314919255
    assert runs_for_width(1.0) == math.ceil(1.01 * z**2) == 11
    for width in (0.0, 1.0 + 1e-12):
        with pytest.raises(ValueError, match=f"not width {width}"):
            runs_for_width(width)
