"""``verify bench``: ibverify's engines against plain baselines, measured side by side in one run.

Benchmarks, not tests: their figures depend on the machine and its load (recorded with every result). CI runs them
at ``--size tiny`` only, to prove that they work and that baseline and ibverify agree.

* ``fig1``: paper 000's Fig. 1 (288 GD runs of a 2-2-2 ReLU network). Baseline: a plain vectorized numpy loop,
  one sequence of array operations per step over all runs. ibverify: :func:`run_fig1` (a sweep over the compiled
  kernel, on the device ``--device`` names or, by default, the one its cost model picks; where a GPU is present
  and the device is left to ``auto``, both devices are timed and shown side by side, with a check that they give
  the same bits). Same starts; the converged fractions are compared by a binomial test.
  Below the paper's size the horizon T = 300 is kept with fewer, larger steps (the same statistics), and both times
  are also given scaled to the paper's 3·10⁶ epochs (per-step costs do not depend on the step size; ibverify's
  fixed cost, compiling or loading the kernel, is timed apart and not scaled).
* ``gf-long``: gradient flow of a depth-3 linear network with the exponential loss to t = 1e12, on the log clock
  (:mod:`numerics.flows`); baseline: the same flow on the real clock.
* ``threads``: a compiled-kernel descent sweep (1152 runs) on two threads against one thread, same bits.
* ``tensor-descent``: the GD of ``tensor.exp.classification`` (paper 002, Sec. 6: linear tensor networks, exponential
  loss, η = 5e-4): the numpy reference one run at a time against the compiled kernel (the runs of a network batched),
  on the same runs, with wall and CPU time and the largest difference of their iterates and losses at the
  checkpoints; and the kernel on the claim's whole workload (36 runs at that size's steps; 2·10⁶ at paper size).
* ``flow-fields``: compiled flow fields (:mod:`numerics.compiled_fields`) against the generic backend, per field
  evaluation and per margin claim, CPU and wall time, same verdicts (:mod:`verify.flow_bench`).
* ``suite-quick``: ``verify run --profile quick`` in a subprocess (no baseline; the goal is a wall and a CPU time):
  every claim on 2 workers at ``paper`` size, paper 000's claims at ``reduced``, one claim at ``tiny``; its store's
  claim index built before the timing, as a user's store holds it.

Every result has wall and CPU seconds on both sides (CPU: this process's threads and the worker processes it waited
for), the CPU ratio beside the wall one, and the 1-minute load before and after.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rich.table import Table

Size = Literal["tiny", "reduced", "paper"]
SIZES: tuple[Size, ...] = ("tiny", "reduced", "paper")
BENCH_SEED = 20240601  # the starts of every benchmark
SIGNIFICANCE = 0.01  # the statistics agree when a two-sided binomial test does not reject at this level


@dataclass(frozen=True)
class BenchResult:
    name: str
    size: str
    workload: str
    baseline: str  # what the baseline computes ("" when the benchmark has none)
    baseline_seconds: float | None  # minimum over the repeats
    ibverify_seconds: float  # minimum over the repeats
    goal: str
    goal_met: bool | None  # None: the goal is stated for another size
    statistics: dict[str, Any] = field(default_factory=dict)  # agreement of the two results, and what they computed
    load_average: tuple[float, float] = (0.0, 0.0)  # 1-minute load before and after
    # CPU seconds of the same calls (this process's threads and the worker processes it waited for): robust where
    # the machine is shared, unlike the wall times
    baseline_cpu_seconds: float | None = None
    ibverify_cpu_seconds: float | None = None

    @property
    def ratio(self) -> float | None:
        """Baseline time over ibverify's time (wall)."""
        return None if self.baseline_seconds is None else self.baseline_seconds / self.ibverify_seconds

    @property
    def cpu_ratio(self) -> float | None:
        """Baseline CPU time over ibverify's."""
        if self.baseline_cpu_seconds is None or not self.ibverify_cpu_seconds:
            return None
        return self.baseline_cpu_seconds / self.ibverify_cpu_seconds

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio, "cpu_ratio": self.cpu_ratio}


def cpu_seconds() -> float:
    """CPU seconds so far of this process (all threads) and of the child processes it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@dataclass(frozen=True)
class Timing:
    wall: float  # the fastest of the repeated calls, seconds
    cpu: float  # that call's CPU seconds (:func:`cpu_seconds`)
    value: Any  # the last call's value


def _best_time(task: Callable[[], Any], repeat: int) -> Timing:
    """Wall and CPU time of the fastest of ``repeat`` calls, and the last call's value."""
    best, best_cpu, value = np.inf, np.inf, None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), cpu_seconds()
        value = task()
        wall, cpu = time.perf_counter() - start, cpu_seconds() - start_cpu
        if wall < best:
            best, best_cpu = wall, cpu
    return Timing(best, best_cpu, value)


# -- fig1 --------------------------------------------------------------------------------------------------------
FIG1_PROTOCOLS: dict[str, tuple[int, float, int]] = {  # size: (runs, step size, epochs); all at horizon T = 300
    "tiny": (96, 3e-2, 10_000),
    "reduced": (288, 1e-2, 30_000),
    "paper": (288, 1e-4, 3_000_000),
}


def numpy_fig1_descent(theta0: np.ndarray, steps: int, step_size: float) -> tuple[np.ndarray, np.ndarray]:
    """(final θ, final loss) of the Fig. 1 protocol as a plain vectorized numpy loop: per step, one sequence of
    array operations over all runs (W, V: runs × 2 × 2; σ'(0) = 0)."""
    from verify.workloads import fig1_data

    X, Y = fig1_data()
    W = theta0[:, :4].reshape(-1, 2, 2).copy()  # rows w_i
    V = theta0[:, 4:].reshape(-1, 2, 2).copy()  # V[:, o, i]
    for _ in range(steps):
        Z = W @ X.T  # runs × hidden × samples
        active = Z > 0
        H = Z * active
        E = V @ H - Y.T  # residuals, one column per sample
        grad_V = E @ H.transpose(0, 2, 1)
        grad_W = ((V.transpose(0, 2, 1) @ E) * active) @ X
        W -= step_size * grad_W
        V -= step_size * grad_V
    H = np.maximum(W @ X.T, 0.0)
    loss = 0.5 * np.sum((V @ H - Y.T) ** 2, axis=(1, 2))
    return np.concatenate([W.reshape(-1, 4), V.reshape(-1, 4)], axis=1), loss


def fig1_devices(device: str | None, runs: int, epochs: int) -> tuple[str, list[str]]:
    """(the device ``device`` resolves to for this workload, the devices to time): both, CPU first, where the
    device is left to ``auto`` and a GPU is present (the table then shows them side by side), else that one."""
    from numerics.cuda_descent import availability
    from numerics.descent import resolve_engine
    from numerics.losses import Objective
    from numerics.sweeps import default_workers
    from verify.workloads import fig1_data, fig1_network

    objective = Objective(fig1_network(), *fig1_data(), "square")
    chosen = resolve_engine(objective, "auto", device, runs=runs, steps=epochs, cores=default_workers())[1]
    both = device in (None, "auto") and availability().gpu
    return chosen, ["cpu", "cuda"] if both else [chosen]


def bench_fig1(size: Size, repeat: int = 1, device: str | None = None) -> BenchResult:
    from scipy.stats import binomtest

    from verify.workloads import (
        CONVERGENCE_THRESHOLD,
        PAPER_EPOCHS,
        fig1_initialization,
        run_fig1,
    )

    runs, step_size, epochs = FIG1_PROTOCOLS[size]
    theta0 = fig1_initialization(np.random.default_rng(BENCH_SEED), runs)  # run_fig1's starts for this seed
    chosen, devices = fig1_devices(device, runs, epochs)
    load = os.getloadavg()[0]
    baseline = _best_time(lambda: numpy_fig1_descent(theta0, epochs, step_size), repeat)
    baseline_seconds, baseline_loss = baseline.wall, baseline.value[1]
    # ibverify's fixed cost (compiling or loading the kernel, or starting CUDA) apart from the descent's, which
    # alone grows with the epochs: their sum is a fresh process's time, and only the descent is scaled to the paper
    timings = {}
    for where in devices:
        setup = _best_time(lambda: run_fig1(1, step_size, runs, BENCH_SEED, where, progress=None), 1)
        descent = _best_time(lambda: run_fig1(epochs, step_size, runs, BENCH_SEED, where, progress=None), repeat)
        timings[where] = (setup, descent)
    setup, descent = timings[chosen]
    setup_seconds, descent_seconds, stats = setup.wall, descent.wall, descent.value
    ibverify_seconds = setup_seconds + descent_seconds
    baseline_converged = baseline_loss < CONVERGENCE_THRESHOLD
    fraction = float(np.mean(baseline_converged))
    p_value = float(binomtest(stats.converged_count, runs, fraction).pvalue)
    ratio = baseline_seconds / ibverify_seconds
    scale = PAPER_EPOCHS / epochs
    by_device: dict[str, Any] = {}
    for where, (each_setup, each_descent) in timings.items():
        by_device |= {f"{where}_engine": each_descent.value.engine,
                      f"{where}_seconds": each_setup.wall + each_descent.wall,
                      f"{where}_setup_seconds": each_setup.wall,
                      f"{where}_seconds_scaled_to_paper_epochs": each_setup.wall + each_descent.wall * scale}
    if len(timings) == 2:  # the kernel computes every run the same way on both devices (square loss: same bits)
        cpu, cuda = timings["cpu"][1].value, timings["cuda"][1].value
        by_device["same_bits_cpu_cuda"] = bool(np.array_equal(cpu.final_loss, cuda.final_loss)
                                               and np.array_equal(cpu.singular_values, cuda.singular_values))
    return BenchResult(
        "fig1", size, f"{runs} GD runs, step {step_size:g}, {epochs} epochs (T = {step_size * epochs:g})",
        "numpy loop, one vectorized op sequence per step", baseline_seconds, ibverify_seconds,
        "≥ 50× faster on the CPU at paper size, same statistics",
        ratio >= 50 and p_value >= SIGNIFICANCE if size == "paper" and stats.engine.endswith("(cpu)") else None,
        {"engine": stats.engine, "ibverify_setup_seconds": setup_seconds,
         "baseline_seconds_scaled_to_paper_epochs": baseline_seconds * scale,
         "ibverify_seconds_scaled_to_paper_epochs": setup_seconds + descent_seconds * scale,
         "baseline_converged": int(baseline_converged.sum()),
         "ibverify_converged": stats.converged_count, "binomial_p_value": p_value,
         "statistics_agree": p_value >= SIGNIFICANCE,
         "same_outcome_runs": int(np.sum(baseline_converged == stats.converged)),
         "max_final_loss_difference": float(np.max(np.abs(baseline_loss - stats.final_loss))), **by_device},
        (load, os.getloadavg()[0]), baseline.cpu, setup.cpu + descent.cpu)


# -- gf-long -----------------------------------------------------------------------------------------------------
GF_RUNS = {"tiny": 1, "reduced": 3, "paper": 10}
GF_END = 1e12


def bench_gf_long(size: Size, repeat: int = 1, device: str | None = None) -> BenchResult:
    """Per-run time of the log-clock flow (the device is not used: flows run in scipy on the CPU)."""
    from numerics.flows import GradientFlow
    from numerics.losses import Objective
    from numerics.networks import fully_connected

    rng = np.random.default_rng(BENCH_SEED)
    X = rng.standard_normal((8, 3))
    y = np.sign(X @ np.array([1.0, -0.5, 0.25]))
    network = fully_connected([3, 3, 3, 1], "linear")
    flow = GradientFlow(Objective(network, X, y, "exponential"))
    starts = 0.5 * rng.standard_normal((GF_RUNS[size], network.n_params))

    def solve_all(clock: str) -> list:
        return [flow.solve(theta0, GF_END, clock=clock) for theta0 in starts]

    load = os.getloadavg()[0]
    log, real = _best_time(lambda: solve_all("log"), repeat), _best_time(lambda: solve_all("real"), repeat)
    log_seconds, log_runs, real_seconds, real_runs = log.wall, log.value, real.wall, real.value
    log_loss = np.array([float(flow.objective.log_value(run.final)) for run in log_runs])
    real_loss = np.array([float(flow.objective.log_value(run.final)) for run in real_runs])
    per_run = log_seconds / len(starts)
    return BenchResult(
        "gf-long", size, f"{len(starts)} flows of a depth-3 linear net (3-3-3-1), exp loss, to t = {GF_END:g}",
        "the same flows on the real clock (LSODA)", real_seconds, log_seconds, "< 1 s per run", per_run < 1.0,
        {"seconds_per_run": per_run, "rhs_evaluations_per_run": float(np.mean([r.nfev for r in log_runs])),
         "all_completed": all(r.status.value == "completed" for r in log_runs),
         "final_log_loss": float(np.mean(log_loss)),
         "max_relative_log_loss_difference": float(np.max(np.abs(log_loss - real_loss) / np.abs(real_loss)))},
        (load, os.getloadavg()[0]), real.cpu, log.cpu)


# -- threads -----------------------------------------------------------------------------------------------------
THREAD_EPOCHS = {"tiny": 30_000, "reduced": 300_000, "paper": 3_000_000}
THREAD_RUNS = 1152


def bench_threads(size: Size, repeat: int = 1, device: str | None = None) -> BenchResult:
    """A kernel sweep (compiled descent of a 2-2-2 ReLU net, square loss) on one thread against two threads:
    wall and CPU time, and the bits of both results (the device is not used: the kernel runs on the CPU)."""
    from numerics.losses import Objective
    from numerics.networks import fully_connected
    from numerics.sweeps import descent_sweep

    rng = np.random.default_rng(BENCH_SEED)
    network = fully_connected([2, 2, 2], "relu")
    objective = Objective(network, rng.standard_normal((2, 2)), rng.standard_normal((2, 2)), "square")
    theta0 = 1e-2 * rng.standard_normal((THREAD_RUNS, network.n_params))
    epochs = THREAD_EPOCHS[size]

    def sweep(workers: int) -> Any:
        return descent_sweep(objective, theta0, epochs, 1e-4, record_every=epochs, chunk_runs=THREAD_RUNS // 8,
                             engine="compiled", workers=workers)

    sweep(1)  # compiles or loads the kernel, outside the timings
    load = os.getloadavg()[0]
    one_thread, two_threads = _best_time(lambda: sweep(1), repeat), _best_time(lambda: sweep(2), repeat)
    one_seconds, one_cpu, one = one_thread.wall, one_thread.cpu, one_thread.value
    two_seconds, two_cpu, two = two_threads.wall, two_threads.cpu, two_threads.value
    speedup = one_seconds / two_seconds
    return BenchResult(
        "threads", size, f"{THREAD_RUNS} GD runs × {epochs} epochs of a 2-2-2 ReLU net, compiled kernel, 2 threads",
        "the same sweep on one thread", one_seconds, two_seconds, "≥ 1.8× on 2 idle cores, same bits",
        speedup >= 1.8 and bool(np.array_equal(one.theta, two.theta)) if size == "paper" else None,
        {"speedup": speedup, "same_bits": bool(np.array_equal(one.theta, two.theta) and
                                               np.array_equal(one.loss, two.loss)),
         "cpu_seconds_one_thread": one_cpu, "cpu_seconds_two_threads": two_cpu}, (load, os.getloadavg()[0]),
        one_cpu, two_cpu)


# -- tensor-descent ----------------------------------------------------------------------------------------------
TENSOR_X = np.array([[1.0, 2.0], [0.0, -3.0]])  # tensor.exp.classification's two points
TENSOR_Y = np.array([1.0, -1.0])
TENSOR_STEP, TENSOR_PAPER_STEPS, TENSOR_PAPER_RUNS = 5e-4, 2_000_000, 36  # the paper's GD; 4 starts × 3 α × 3 nets
TENSOR_SCALES = (1.0, 0.5, 0.01)  # α: the starts are α·θ̄, θ̄ standard normal
TENSOR_CHECKPOINTS = 200  # as the claim records them
TENSOR_PROTOCOLS: dict[str, tuple[int, int, int]] = {  # size: (compared runs per network, their steps,
    "tiny": (1, 10_000, 10_000),                         # steps of the kernel's 36-run workload)
    "reduced": (3, 50_000, TENSOR_PAPER_STEPS),
    "paper": (1, TENSOR_PAPER_STEPS, TENSOR_PAPER_STEPS),  # the reference: ≈ 60–80 s a run
}


def tensor_objectives() -> dict[str, Any]:
    """The claim's three networks (2-layer fully connected of width 2, diagonal, full-length convolutional) on its
    data with the exponential loss."""
    from numerics.losses import Objective
    from numerics.tensor_network import convolutional_tensor, diagonal_tensor, fully_connected_tensor

    networks = {"fully connected": fully_connected_tensor([2, 2]), "diagonal": diagonal_tensor(2, 2),
                "convolutional": convolutional_tensor(2, [2])}
    return {name: Objective(network, TENSOR_X, TENSOR_Y, "exponential") for name, network in networks.items()}


def tensor_starts(objectives: dict[str, Any], per_network: int, seed: int = BENCH_SEED) -> dict[str, np.ndarray]:
    """``per_network`` starts a network (rows), α cycling through :data:`TENSOR_SCALES` (shifted per network)."""
    rng = np.random.default_rng(seed)
    return {name: np.array([TENSOR_SCALES[(i + k) % len(TENSOR_SCALES)] * rng.standard_normal(o.model.n_params)
                            for k in range(per_network)]) for i, (name, o) in enumerate(objectives.items())}


def reference_tensor_descent(objectives: dict[str, Any], starts: dict[str, np.ndarray],
                             steps: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Network → (iterates runs × checkpoints × parameters, losses runs × checkpoints): the numpy reference
    (:func:`numerics.descent.gradient_descent`), one run at a time, as the claim's paper profile ran before."""
    from numerics.descent import gradient_descent

    out = {}
    for name, objective in objectives.items():
        runs = [gradient_descent(objective, theta0, steps, TENSOR_STEP, record_every=steps // TENSOR_CHECKPOINTS)
                for theta0 in starts[name]]
        out[name] = (np.array([run.theta for run in runs]), np.array([run.loss for run in runs]))
    return out


def compiled_tensor_descent(objectives: dict[str, Any], starts: dict[str, np.ndarray],
                            steps: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The same from the compiled kernel, the runs of a network advancing together (as the claim runs them)."""
    from numerics.descent import batched_gradient_descent

    out = {}
    for name, objective in objectives.items():
        run = batched_gradient_descent(objective, starts[name], steps, TENSOR_STEP,
                                       record_every=max(steps // TENSOR_CHECKPOINTS, 1), record_iterates=True,
                                       engine="compiled")
        out[name] = (run.iterates.transpose(1, 0, 2), run.loss.T)
    return out


def bench_tensor_descent(size: Size, repeat: int = 1, device: str | None = None) -> BenchResult:
    """Reference against compiled kernel on the same runs, then the kernel on the claim's 36 runs (the device is not
    used: both run on the CPU)."""
    per_network, steps, workload_steps = TENSOR_PROTOCOLS[size]
    objectives = tensor_objectives()
    starts = tensor_starts(objectives, per_network)
    runs = per_network * len(objectives)
    load = os.getloadavg()[0]
    setup = _best_time(lambda: compiled_tensor_descent(objectives, starts, 1), 1)  # compiling or loading the kernels
    baseline = _best_time(lambda: reference_tensor_descent(objectives, starts, steps), repeat)
    ibverify = _best_time(lambda: compiled_tensor_descent(objectives, starts, steps), repeat)
    setup_seconds, setup_cpu = setup.wall, setup.cpu
    baseline_seconds, baseline_cpu, reference = baseline.wall, baseline.cpu, baseline.value
    ibverify_seconds, ibverify_cpu, compiled = ibverify.wall, ibverify.cpu, ibverify.value
    iterate_gap = max(float(np.max(np.abs(reference[name][0] - compiled[name][0])
                                   / np.max(np.abs(reference[name][0]), axis=2, keepdims=True)))
                      for name in objectives)
    loss_gap = max(float(np.max(np.abs(reference[name][1] - compiled[name][1]) / reference[name][1]))
                   for name in objectives)
    final_loss = max(float(np.max(compiled[name][1][:, -1])) for name in objectives)
    workload = tensor_starts(objectives, TENSOR_PAPER_RUNS // len(objectives))  # 12 starts a network
    workload_run = _best_time(lambda: compiled_tensor_descent(objectives, workload, workload_steps), repeat)
    workload_seconds, workload_cpu = workload_run.wall, workload_run.cpu
    scale = TENSOR_PAPER_RUNS / runs * workload_steps / steps  # the reference's cost is per run and step
    agree = iterate_gap < 1e-10 and loss_gap < 1e-10
    return BenchResult(
        "tensor-descent", size, f"{runs} GD runs (fully connected, diagonal, convolutional 2-layer tensor networks, "
        f"exp loss, η = {TENSOR_STEP:g}), {steps} steps, {TENSOR_CHECKPOINTS} checkpoints; then the claim's "
        f"{TENSOR_PAPER_RUNS} runs ({workload_steps} steps)", "numpy reference, one run at a time", baseline_seconds,
        setup_seconds + ibverify_seconds, f"{TENSOR_PAPER_RUNS} runs × 2·10⁶ steps in < 60 s, iterates as the "
        "reference's to 1e-10", setup_seconds + workload_seconds < 60 and agree if size == "paper" else None,
        {"runs_compared": runs, "baseline_cpu_seconds": baseline_cpu, "ibverify_cpu_seconds": ibverify_cpu,
         "ibverify_setup_seconds": setup_seconds, "ibverify_setup_cpu_seconds": setup_cpu,
         "max_relative_iterate_difference": iterate_gap, "max_relative_loss_difference": loss_gap,
         "agree_to_1e-10": agree, "max_final_loss": final_loss, "workload_steps": workload_steps,
         f"ibverify_seconds_{TENSOR_PAPER_RUNS}_runs": workload_seconds,
         f"ibverify_cpu_seconds_{TENSOR_PAPER_RUNS}_runs": workload_cpu,
         f"baseline_seconds_{TENSOR_PAPER_RUNS}_runs_estimated": baseline_seconds * scale,
         f"baseline_cpu_seconds_{TENSOR_PAPER_RUNS}_runs_estimated": baseline_cpu * scale},
        (load, os.getloadavg()[0]), baseline_cpu, setup_cpu + ibverify_cpu)


# -- suite-quick -------------------------------------------------------------------------------------------------
SUITE_GOAL_SECONDS = 600.0  # the whole suite's wall time on 2 cores
SUITE_GOAL_CPU_SECONDS = 60.0  # and its CPU time (the runner and its workers)
SUITE_SELECTIONS: dict[str, tuple[list[str], int]] = {  # size: (`verify run` selection, workers)
    "tiny": (["rank.exp.fig1"], 1),  # one claim: a pool would only add its start-up
    "reduced": (["--paper", "rank"], 2),
    "paper": ([], 2),
}


def bench_suite_quick(size: Size, repeat: int = 1, device: str | None = None) -> BenchResult:
    """The quick profile (of the claims :data:`SUITE_SELECTIONS` picks) in a subprocess with its own store, whose
    claim index is built before the timing starts (as a user's store holds it after any earlier command)."""
    selection, jobs = SUITE_SELECTIONS[size]
    with tempfile.TemporaryDirectory(prefix="ibverify-bench-") as folder:
        results = Path(folder, "results.json")
        command = [sys.executable, "-m", "verify.cli", "--store", folder, "run", *selection, "--profile", "quick",
                   "--jobs", str(jobs), "--json", str(results), *(["--device", device] if device else [])]

        def run_suite() -> dict[str, Any]:
            done = subprocess.run(command, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1])
            if done.returncode not in (0, 1):  # 1: some verdict differs from the expected one, still a timing
                raise RuntimeError(f"verify run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
            return json.loads(results.read_text())

        # the store's claim index built first, untimed, as any earlier `verify list` or run of the user's left it
        subprocess.run([sys.executable, "-m", "verify.cli", "--store", folder, "list"], capture_output=True,
                       cwd=Path(__file__).resolve().parents[1], check=False)
        load = os.getloadavg()[0]
        timing = _best_time(run_suite, repeat)
    seconds, run = timing.wall, timing.value
    as_expected = sum(r["verdict"] == r["expected"] for r in run["results"])
    return BenchResult(
        "suite-quick", size, " ".join(["verify run", *selection, "--profile quick", f"--jobs {jobs}",
                                       f"({len(run['results'])} claims)"]), "", None, seconds,
        f"≤ {SUITE_GOAL_SECONDS / 60:g} min on 2 cores and ≤ {SUITE_GOAL_CPU_SECONDS:g} CPU-s (whole suite)",
        seconds <= SUITE_GOAL_SECONDS and timing.cpu <= SUITE_GOAL_CPU_SECONDS if size == "paper" else None,
        {"claims": len(run["results"]), "as_expected": as_expected,
         "runner_wall_seconds": run["provenance"]["wall_seconds"]}, (load, os.getloadavg()[0]), None, timing.cpu)


def bench_flow_fields(size: Size, repeat: int = 1, device: str | None = None) -> BenchResult:
    from verify.flow_bench import bench_flow_fields as bench

    return bench(size, repeat, device)


BENCHMARKS: dict[str, Callable[[Size, int, str | None], BenchResult]] = {  # (size, repeat, device)
    "fig1": bench_fig1, "gf-long": bench_gf_long, "threads": bench_threads, "tensor-descent": bench_tensor_descent,
    "flow-fields": bench_flow_fields, "suite-quick": bench_suite_quick}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run_benchmarks(names: Sequence[str], size: Size, repeat: int = 1, device: str | None = None,
                   on_result: Callable[[BenchResult], None] | None = None) -> dict[str, Any]:
    """The named benchmarks at one size, each side timed ``repeat`` times (minimum kept), with the machine;
    ``device`` for the descent engines (default ``auto``: by cost; ``fig1`` then times both devices where a GPU is
    present).

    Imports are done before timing (a process pays them once); compiling or loading a kernel is timed.
    """
    import numba  # noqa: F401
    import torch  # noqa: F401

    results = []
    for name in names:
        results.append(BENCHMARKS[name](size, repeat, device))
        if on_result:
            on_result(results[-1])
    return {"machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "platform": platform.platform(),
                        "python": platform.python_version()},
            "size": size, "repeat": repeat, "results": [r.to_json() for r in results]}


def bench_table(report: dict[str, Any]) -> Table:
    machine = report["machine"]
    table = Table(title=f"verify bench --size {report['size']} ({machine['cpu']}, {machine['cores']} cores)")
    for column in ("benchmark", "workload", "baseline", "baseline s (CPU s)", "ibverify s (CPU s)",
                   "ratio (CPU)", "goal", "met"):
        table.add_column(column, overflow="fold")

    def seconds(wall: float | None, cpu: float | None) -> str:
        return "-" if wall is None else f"{wall:.2f}" + ("" if cpu is None else f" ({cpu:.2f})")

    def ratio(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}×"

    for r in report["results"]:
        ibverify = seconds(r["ibverify_seconds"], r["ibverify_cpu_seconds"])
        if {"cpu_seconds", "cuda_seconds"} <= set(r["statistics"]):  # both devices, side by side
            ibverify = f"{r['statistics']['cpu_seconds']:.2f} (cpu) · {r['statistics']['cuda_seconds']:.2f} (cuda)"
        table.add_row(r["name"], r["workload"], r["baseline"] or "-",
                      seconds(r["baseline_seconds"], r["baseline_cpu_seconds"]), ibverify,
                      ratio(r["ratio"]) + ("" if r["cpu_ratio"] is None else f" ({ratio(r['cpu_ratio'])})"),
                      r["goal"], {True: "[green]yes[/]", False: "[red]no[/]", None: "n/a"}[r["goal_met"]])
    return table


def statistics_lines(report: dict[str, Any]) -> list[str]:
    """One line per benchmark: what both sides computed, how they agree, and the load while timing."""
    lines = []
    for r in report["results"]:
        figures = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r["statistics"].items()
                            if not isinstance(v, dict))  # nested tables: in the JSON only
        lines.append(f"{r['name']}: {figures}; load {r['load_average'][0]:.1f} → {r['load_average'][1]:.1f}")
    return lines
