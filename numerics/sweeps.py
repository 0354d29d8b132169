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
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from numerics.descent import BatchedDescentRun, Engine, batched_gradient_descent, checkpoint_steps, resolve_engine
from numerics.losses import Objective

ChunkResult = dict[str, np.ndarray]
ChunkFunction = Callable[[Any, int], ChunkResult]
"""function(chunk spec, chunk seed) → named arrays; must be picklable (a module-level function)."""

MIN_CHUNK_RUNS = 32  # the compiled kernel is as fast per run from about 8 runs (SIMD lanes) up
CHUNK_RUN_STEPS = 2_000_000_000  # runs × steps per chunk of a descent sweep: ≈ 5 s of the compiled kernel on a
# Fig.-1-sized network, about twice what starting a pool process costs (2–6 s measured on 2 busy cores: imports and
# the kernel's load); smaller sweeps run in this process


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


def descend(chunk: DescentChunk, seed: int) -> ChunkResult:
    """One chunk of :func:`descent_sweep` (the starts are given: the seed is not needed)."""
    run = batched_gradient_descent(chunk.objective, chunk.theta0, chunk.steps, chunk.step_size,
                                   record_every=chunk.record_every, device=chunk.device, engine=chunk.engine)
    return {"theta": run.theta, "loss": run.loss.T}  # runs first, as the chunks are joined


def descent_sweep(objective: Objective, theta0: np.ndarray, steps: int, step_size: float | np.ndarray, *,
                  record_every: int = 1, engine: Engine = "auto", device: str | None = None,
                  chunk_runs: int | None = None, scheduler: str | None = None,
                  workers: int | None = None) -> BatchedDescentRun:
    """:func:`~numerics.descent.batched_gradient_descent` from every row of ``theta0``, split into chunks of rows.

    Each run's iterates do not depend on the chunking, so neither does the result. ``engine`` and ``device`` are
    resolved here (:func:`~numerics.descent.resolve_engine`; default: the compiled kernel on the CPU where it
    applies): on a GPU the runs form one chunk (the GPU batches them, and one process drives it), on the CPU chunks
    of ``chunk_runs`` rows (default: about :data:`CHUNK_RUN_STEPS` run-steps each, at least :data:`MIN_CHUNK_RUNS`
    runs; a sweep that fits in one chunk runs in this process).
    """
    theta0 = np.asarray(theta0, dtype=float)
    engine, device = resolve_engine(objective, engine, device)
    if device != "cpu":
        size = len(theta0)
    else:
        size = chunk_runs or max(MIN_CHUNK_RUNS, -(-CHUNK_RUN_STEPS // max(steps, 1)))
    per_run = np.ndim(step_size) > 0
    chunks = tuple(DescentChunk(objective, theta0[k:k + size], steps,
                                np.asarray(step_size, dtype=float)[k:k + size] if per_run else float(step_size),
                                record_every, engine, device)
                   for k in range(0, len(theta0), size))
    # the compiled kernel releases the GIL for the whole descent between checkpoints: threads beat processes there
    result = run_sweep(Sweep(descend, chunks, threads=engine == "compiled"), scheduler=scheduler, workers=workers)
    return BatchedDescentRun(np.array(checkpoint_steps(steps, record_every)), result["loss"].T, result["theta"])
