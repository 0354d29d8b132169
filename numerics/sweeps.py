"""Sweeps: many independent chunks of one computation, run in this process, on a local process pool or on a
Dask cluster, with the same results everywhere.

A :class:`Sweep` is a picklable function of (chunk spec, seed) → dict of arrays, the chunk specs, a sweep seed and a
combiner. Chunk k receives the seed :func:`chunk_seed` (sweep seed, k): it depends on the sweep's seed and the chunk's
index only, never on which worker runs the chunk or when, and the results are combined in chunk order. So a sweep
gives bit-identical results

* in this process (one chunk, or ``workers=1``),
* on a local pool of ``workers`` processes (the default: one per CPU; spawn context, since CUDA and BLAS thread pools
  do not survive fork),
* on a Dask distributed cluster (``scheduler="tcp://host:8786"``), started with Dask's own tools:
  ``dask scheduler`` on one machine and ``dask worker tcp://host:8786`` on each machine that computes (each needs
  ibverify and its dependencies installed, as the chunk functions are imported there by name).

:func:`descent_sweep` is the sweep of batched gradient descent from given starts, split by rows.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from numerics.descent import (
    BatchedDescentRun,
    Engine,
    Progress,
    batched_gradient_descent,
    checkpoint_steps,
    resolve_engine,
)
from numerics.losses import Objective

ChunkResult = dict[str, np.ndarray]
ChunkFunction = Callable[[Any, int], ChunkResult]
"""function(chunk spec, chunk seed) → named arrays; must be picklable (a module-level function)."""

MIN_CHUNK_RUNS = 32  # the compiled kernel is as fast per run from about 8 runs (SIMD lanes) up
CHUNK_RUN_STEPS = 2_000_000_000  # runs × steps per chunk of a descent sweep: ≈ 5 s of the compiled kernel on a
# Fig.-1-sized network, about twice what starting a pool process costs (2–6 s measured on 2 busy cores: imports and
# the kernel's load); smaller sweeps run in this process


def cpu_chunk_runs(steps: int) -> int:
    """Rows per chunk of a CPU descent sweep by default: about :data:`CHUNK_RUN_STEPS` run-steps, at least
    :data:`MIN_CHUNK_RUNS` runs. The chunks are what runs in parallel (threads or processes)."""
    return max(MIN_CHUNK_RUNS, -(-CHUNK_RUN_STEPS // max(steps, 1)))


def chunk_seed(seed: int, index: int) -> int:
    """The seed of chunk ``index`` of a sweep with seed ``seed`` (a 64-bit integer, from numpy's SeedSequence)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0])


def concatenate(results: Sequence[ChunkResult]) -> ChunkResult:
    """The default combiner: each named array concatenated over the chunks along its first axis."""
    return {key: np.concatenate([result[key] for result in results]) for key in results[0]}


@dataclass(frozen=True)
class Sweep:
    """A computation split into independent chunks: ``function(chunk, seed)`` per chunk, then ``combine``."""

    function: ChunkFunction
    chunks: tuple[Any, ...]  # one picklable spec per chunk
    seed: int = 0
    combine: Callable[[list[ChunkResult]], Any] = concatenate
    threads: bool = False  # the chunks spend their time in code that releases the GIL: run them on threads

    @property
    def seeds(self) -> list[int]:
        return [chunk_seed(self.seed, index) for index in range(len(self.chunks))]


def default_workers() -> int:
    """CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def run_sweep(sweep: Sweep, *, scheduler: str | None = None, workers: int | None = None) -> Any:
    """Run every chunk and combine the results in chunk order.

    ``scheduler``: the address of a Dask distributed scheduler (the chunks then run on its workers); otherwise a
    local spawn pool of ``workers`` processes (default :func:`default_workers`), or this process when there is one
    chunk or one worker. A sweep marked ``threads`` (its chunks run a compiled kernel that releases the GIL) runs
    locally on ``workers`` threads instead: no worker imports or kernel loads, and the same bits as one thread.
    """
    if not sweep.chunks:
        raise ValueError("a sweep needs at least one chunk")
    seeds = sweep.seeds
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if scheduler is not None:
        results = _on_dask(sweep, seeds, scheduler)
    elif workers == 1 or len(sweep.chunks) == 1:
        results = [sweep.function(spec, seed) for spec, seed in zip(sweep.chunks, seeds)]
    elif sweep.threads:
        with ThreadPoolExecutor(max_workers=min(workers, len(sweep.chunks))) as pool:
            results = list(pool.map(sweep.function, sweep.chunks, seeds))
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(sweep.chunks)), initializer=_one_thread_per_worker,
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(pool.map(sweep.function, sweep.chunks, seeds))
    return sweep.combine(results)


def _one_thread_per_worker() -> None:
    """The pool's processes are the parallelism: their BLAS and torch run single-threaded (no oversubscription)."""
    from threadpoolctl import threadpool_limits

    os.environ["OMP_NUM_THREADS"] = "1"  # read by torch when a chunk first imports it
    threadpool_limits(1)


def _on_dask(sweep: Sweep, seeds: list[int], scheduler: str) -> list[ChunkResult]:
    from distributed import Client

    with Client(scheduler, set_as_default=False) as client:
        futures = client.map(sweep.function, sweep.chunks, seeds, pure=False)
        return client.gather(futures)


# -- gradient descent from given starts ------------------------------------------------------------------------
CUDA_CHUNK_RUNS = 1 << 22  # runs per chunk of a GPU sweep (4·10⁶: a few hundred MB of state for the largest
# networks the kernel takes); the chunks run one after the other in this process, which drives the GPU


@dataclass(frozen=True)
class DescentChunk:
    """One chunk of a descent sweep: the objective, its rows of θ0, the steps and the engine."""

    objective: Objective
    theta0: np.ndarray  # this chunk's rows of θ0
    steps: int
    step_size: float | np.ndarray  # one, or one per row of ``theta0``
    record_every: int
    engine: str  # resolved by the submitting process, so that every worker computes the same way
    device: str
    progress: Progress | None = None  # in this process or its threads only (a progress report does not pickle)


def descend(chunk: DescentChunk, seed: int) -> ChunkResult:
    """One chunk of :func:`descent_sweep` (the starts are given: the seed is not needed)."""
    run = batched_gradient_descent(chunk.objective, chunk.theta0, chunk.steps, chunk.step_size,
                                   record_every=chunk.record_every, device=chunk.device, engine=chunk.engine,
                                   progress=chunk.progress)
    return {"theta": run.theta, "loss": run.loss.T}  # runs first, as the chunks are joined


def descent_sweep(objective: Objective, theta0: np.ndarray, steps: int, step_size: float | np.ndarray, *,
                  record_every: int = 1, engine: Engine = "auto", device: str | None = None,
                  chunk_runs: int | None = None, scheduler: str | None = None, workers: int | None = None,
                  progress: str | Progress | None = "descent sweep") -> BatchedDescentRun:
    """:func:`~numerics.descent.batched_gradient_descent` from every row of ``theta0``, split into chunks of rows.

    ``engine`` and ``device`` are resolved here (:func:`~numerics.descent.resolve_engine`; default: the compiled
    kernel where it applies, on the device its cost model picks for runs × steps). The kernels (CPU and GPU) and the
    reference compute every run alone, so their results do not depend on the chunking, bit for bit; batched torch
    does not promise that (its vectorized exp and reductions depend on a run's place in the batch). On the CPU the
    chunks have ``chunk_runs`` rows (default: about :data:`CHUNK_RUN_STEPS` run-steps each, at least
    :data:`MIN_CHUNK_RUNS` runs; a sweep that fits in one chunk runs in this process); on a GPU ``chunk_runs``
    (default :data:`CUDA_CHUNK_RUNS`) rows a chunk, run in this process unless a ``scheduler`` is given.
    ``progress``: a label for lines on stderr while a long sweep runs (:class:`ProgressLines`; silent for one that
    ends within seconds), a callable told the run-steps done, or None.
    """
    theta0 = np.asarray(theta0, dtype=float)
    cores = default_workers() if workers is None else workers
    engine, device = resolve_engine(objective, engine, device, runs=len(theta0), steps=steps, cores=cores)
    if device != "cpu":
        size = chunk_runs or (CUDA_CHUNK_RUNS if engine == "compiled" else len(theta0))
        workers = 1 if scheduler is None else workers  # one process drives the GPU
    else:
        size = chunk_runs or cpu_chunk_runs(steps)
    size = max(size, 1)
    threads = engine == "compiled" and device == "cpu"
    chunk_count = -(-len(theta0) // size)
    local = scheduler is None and (threads or workers == 1 or chunk_count <= 1)
    report = ProgressLines(progress, len(theta0) * steps) if isinstance(progress, str) else progress
    per_run = np.ndim(step_size) > 0
    chunks = tuple(DescentChunk(objective, theta0[k:k + size], steps,
                                np.asarray(step_size, dtype=float)[k:k + size] if per_run else float(step_size),
                                record_every, engine, device, report if local else None)
                   for k in range(0, len(theta0), size))
    # the compiled kernel releases the GIL for the whole descent between checkpoints: threads beat processes there
    result = run_sweep(Sweep(descend, chunks, threads=threads), scheduler=scheduler, workers=workers)
    return BatchedDescentRun(np.array(checkpoint_steps(steps, record_every)), result["loss"].T, result["theta"])


class ProgressLines:
    """Progress of a long computation as lines on stderr: ``label: 42% of 3e+12 run-steps, 12 s, about 17 s left``.

    Silent for the first ``quiet`` seconds (a short sweep prints nothing), then a line at most every ``every``
    seconds; thread-safe (the chunks of a kernel sweep report from their threads)."""

    def __init__(self, label: str, total: int, every: float = 10.0, quiet: float = 10.0,
                 stream: TextIO | None = None) -> None:
        self.label, self.total, self.every, self.quiet = label, max(int(total), 1), every, quiet
        self.stream = stream
        self.done = 0
        self.start = self.last = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self, amount: int) -> None:
        with self._lock:
            self.done += int(amount)
            now = time.monotonic()
            if now - self.start < self.quiet or now - self.last < self.every:
                return
            self.last = now
            share, elapsed = min(self.done / self.total, 1.0), now - self.start
            left = elapsed * (1 - share) / share if share > 0 else float("inf")
            print(f"{self.label}: {share:.0%} of {self.total:.3g} run-steps, {elapsed:.0f} s, about {left:.0f} s "
                  "left", file=self.stream or sys.stderr, flush=True)


# -- Monte Carlo estimates ---------------------------------------------------------------------------------------
def clopper_pearson(successes: int, trials: int, confidence: float = 0.999) -> tuple[float, float]:
    """The exact (Clopper–Pearson) two-sided confidence interval of a binomial proportion: it covers the true
    probability with probability at least ``confidence`` (beta quantiles; [0, ·] at 0 successes, [·, 1] at all)."""
    from scipy.stats import beta

    if not 0 <= successes <= trials or trials < 1:
        raise ValueError("need 0 ≤ successes ≤ trials and trials ≥ 1")
    if not 0 < confidence < 1:
        raise ValueError(f"a confidence is in (0, 1), not {confidence}")
    tail = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(beta.ppf(tail, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(1 - tail, successes + 1, trials - successes))
    return low, high


def runs_for_width(width: float, confidence: float = 0.999) -> int:
    """Runs that make a Clopper–Pearson interval at most ``width`` wide whatever the probability (the normal
    approximation at p = 1/2, 2·z·√(1/4n) ≤ width, plus 1 %: the exact interval is slightly wider)."""
    from scipy.stats import norm

    if not 0 < width <= 1 or not 0 < confidence < 1:
        raise ValueError(f"an interval of a probability is in (0, 1] wide at a confidence in (0, 1), not width {width} "
                         f"at {confidence}")
    z = float(norm.ppf(1 - (1 - confidence) / 2))
    return int(np.ceil(1.01 * (z / width) ** 2))
