"""Running claims: one claim in isolation, or many with a process pool, with provenance recorded."""

from __future__ import annotations

import gc
import multiprocessing
import os
import platform
import subprocess
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from verify.claim import Claim, ConclusionResult, Context, Evidence, Profile, Verdict, decide
from verify.registry import ClaimRef, get

DEFAULT_SEED = 20240601
# What every pool worker imports before its first claim (about 4 CPU-seconds: sympy, scipy, cvxpy, numba). A fork
# server imports them once and forks each worker from itself; spawned workers would each import them again. Not
# torch (one claim uses it) and nothing that starts CUDA or thread pools: a fork keeps only the forking thread.
WORKER_PRELOAD = ("numpy", "scipy.integrate", "scipy.linalg", "scipy.optimize", "scipy.stats", "sympy", "mpmath",
                  "flint", "cvxpy", "numba", "numerics.compiled_fields", "numerics.kkt", "numerics.symbolic",
                  "verify.claim", "verify.registry")
# A claim-running process allocates millions of short-lived sympy and numpy objects: CPython's default collection
# threshold (700 allocations) runs the cyclic collector thousands of times per quick run; sympy's default cache
# (1000 entries) drops expressions the exact certificates ask for again. Measured together: −5 % CPU in a quick run
# (docs/sweeps.md).
GC_THRESHOLDS = (20_000, 20, 20)
SYMPY_CACHE_SIZE = "20000"
TRACKED_LIBRARIES = ("ibverify", "numpy", "scipy", "sympy", "mpmath", "cvxpy", "clarabel", "python-flint",
                     "torch", "typst", "matplotlib")


@dataclass(frozen=True)
class ClaimResult:
    id: str
    verdict: Verdict
    expected: Verdict
    seconds: float
    evidence: tuple[Evidence, ...]
    claim: dict[str, Any] | None = None  # the claim's description at run time (report input)
    conclusions: tuple[ConclusionResult, ...] = ()

    @property
    def ok(self) -> bool:
        return self.verdict is self.expected and all(c.ok for c in self.conclusions)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "verdict": self.verdict.value, "expected": self.expected.value,
                "seconds": round(self.seconds, 4), "conclusions": [c.to_json() for c in self.conclusions],
                "evidence": [e.to_json() for e in self.evidence], "claim": self.claim}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ClaimResult:
        return ClaimResult(id=data["id"], verdict=Verdict(data["verdict"]), expected=Verdict(data["expected"]),
                           seconds=float(data["seconds"]),
                           evidence=tuple(Evidence.from_json(e) for e in data["evidence"]),
                           claim=data.get("claim"),
                           conclusions=tuple(ConclusionResult.from_json(c) for c in data.get("conclusions", ())))


@dataclass(frozen=True)
class RunResults:
    provenance: dict[str, Any]
    results: tuple[ClaimResult, ...]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {"provenance": self.provenance, "results": [r.to_json() for r in self.results]}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> RunResults:
        return RunResults(provenance=dict(data["provenance"]),
                          results=tuple(ClaimResult.from_json(r) for r in data["results"]))


def run_claim(claim: Claim, profile: Profile = Profile.QUICK, seed: int = DEFAULT_SEED,
              scheduler: str | None = None, device: str | None = None) -> ClaimResult:
    """Run one check; an exception becomes an error item (verdict inconclusive), never a crash.

    ``scheduler`` (a Dask scheduler address) and ``device`` are handed to the check's sweeps (:class:`Context`).
    """
    ctx = Context(claim.id, profile, seed, scheduler, device, tuple(claim.conclusions))
    start = time.perf_counter()
    try:
        claim.check(ctx)
    except Exception as exc:  # noqa: BLE001 - any failure of a check is recorded as evidence
        where = traceback.extract_tb(exc.__traceback__)[-1]
        ctx.error("check raised", f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})")
    seconds = time.perf_counter() - start
    evidence = tuple(ctx.evidence)
    judgement = decide(evidence, cited=claim.cited, conclusions=claim.conclusions)
    return ClaimResult(claim.id, judgement.verdict, claim.expected, seconds, evidence, claim.to_json(),
                       judgement.conclusions)


FIGURES_VARIABLE = "IBVERIFY_FIGURES"  # a file: the pytest plugin appends each claim's reported figures to it
TIMING_FIGURES = ("seconds", "wall", "cpu", "elapsed")  # figure names (or _suffixes) that measure time, not the claim


def _timing(name: str) -> bool:
    return any(name == word or name.endswith("_" + word) for word in TIMING_FIGURES)


def reported_figures(result: ClaimResult) -> dict[str, Any]:
    """What a claim's report shows as numbers, keyed by evidence item (its position and name): each item's outcome,
    figures (timings left out: they differ run to run), criterion text (it states the tolerances and factors the
    criterion applies), tightness records and plot data, its kind, role and the conclusion it is evidence for (a
    mutant that files an item under another conclusion changes the report), and each conclusion's verdict. Two runs
    of the same claim at the same profile and seed give equal values; ``verify bench teeth`` compares a mutant's
    against the original's, so a change a reviewer would see in the report counts."""
    shown: dict[str, Any] = {f"conclusion {c.name}": c.verdict.value for c in result.conclusions}
    for index, item in enumerate(result.evidence):
        data = item.to_json()
        entry = {"passed": data["passed"], "figures": {k: v for k, v in data["figures"].items() if not _timing(k)}}
        for key in ("kind", "role", "conclusion", "perturbs", "undecided", "criterion", "detail", "arguments", "change",
                    "tightness", "plot"):
            if key in data:
                entry[key] = data[key]
        shown[f"{index} {item.name}"] = entry
    return shown


def _run_then(claim: Claim, profile: Profile, seed: int, scheduler: str | None, device: str | None,
              after_each: Callable[[ClaimResult], None] | None) -> ClaimResult:
    result = run_claim(claim, profile, seed, scheduler, device)
    if after_each:
        after_each(result)
    return result


def claim_process_settings() -> None:
    """Interpreter settings for a process that runs claims (the ``verify`` command and its pool workers; a library
    caller's process keeps its own): :data:`GC_THRESHOLDS`, and :data:`SYMPY_CACHE_SIZE` unless the environment sets
    one (sympy reads it once, at its import: pool workers inherit it). Neither changes a number, only how often
    memory is scanned and how much sympy remembers."""
    os.environ.setdefault("SYMPY_CACHE_SIZE", SYMPY_CACHE_SIZE)
    gc.set_threshold(*GC_THRESHOLDS)


def _run_by_ids(claim_ids: Sequence[str], profile: str, seed: int, scheduler: str | None, device: str | None,
                after_each: Callable[[ClaimResult], None] | None) -> list[ClaimResult]:
    claim_process_settings()
    return [_run_then(get(claim_id), Profile(profile), seed, scheduler, device, after_each) for claim_id in claim_ids]


def _module_groups(tasks: Sequence[tuple[Claim | ClaimRef, int]]) -> list[tuple[list[Claim | ClaimRef], int]]:
    """Tasks grouped by the module that defines the claim's check (a corrected variant joins its claim's group), one
    group per seed, claims in their order: a worker runs a group one claim after the other. Claims of one module share
    memoized computations (a construction's certificates, a flow read by a claim and its correction), which claims
    spread over processes would each redo (a quick run took 144 CPU-s on two workers, 105 in one process)."""
    module = {claim.id: claim.module for claim, _ in tasks}
    groups: dict[tuple[str, int], list[Claim | ClaimRef]] = {}
    for claim, seed in tasks:
        home = module.get(claim.corrects or claim.id, module[claim.id])
        groups.setdefault((home, seed), []).append(claim)
    return [(claims, seed) for (_, seed), claims in groups.items()]


def _git_commit() -> str:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=False)
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    commit = out.stdout.strip() or "unknown"
    return commit + ("+dirty" if dirty.stdout.strip() else "")


def provenance(profile: Profile, seed: int) -> dict[str, Any]:
    versions = {}
    for name in TRACKED_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "ibverify": versions.pop("ibverify"),
        "git_commit": _git_commit(),
        "libraries": versions,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "profile": profile.value,
        "seed": seed,
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _run_tasks(tasks: Sequence[tuple[Claim | ClaimRef, int]], profile: Profile, jobs: int,
               on_result: Callable[[ClaimResult, int], None] | None, scheduler: str | None, device: str | None,
               after_each: Callable[[ClaimResult], None] | None) -> dict[tuple[str, int], ClaimResult]:
    """Run (claim, seed) tasks, in a process pool when jobs > 1 (:func:`_worker_context`); results by (claim id,
    seed)."""
    results: dict[tuple[str, int], ClaimResult] = {}
    if jobs <= 1:
        for item, seed in tasks:
            claim = item if isinstance(item, Claim) else get(item.id)
            results[item.id, seed] = _run_then(claim, profile, seed, scheduler, device, after_each)
            if on_result:
                on_result(results[item.id, seed], seed)
        return results
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # claims are small; threads would oversubscribe
    try:
        modules = sorted({claim.module for claim, _ in tasks})
        with ProcessPoolExecutor(max_workers=jobs, mp_context=_worker_context(modules)) as pool:
            futures = {pool.submit(_run_by_ids, [c.id for c in family], profile.value, seed, scheduler, device,
                                   after_each): seed for family, seed in _module_groups(tasks)}
            for future in as_completed(futures):
                seed = futures[future]
                for result in future.result():
                    results[result.id, seed] = result
                    if on_result:
                        on_result(result, seed)
    finally:
        _stop_fork_server()
    return results


def _worker_context(claim_modules: Sequence[str] = ()) -> multiprocessing.context.BaseContext:
    """A fork server that has imported :data:`WORKER_PRELOAD` and the modules of the claims to run (where the platform
    has one), else spawn: each worker forks with them loaded instead of importing its claims' modules and what they
    share again. Never a fork of this process: it may hold threads (BLAS, a progress display) or a CUDA context,
    which a fork does not carry."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([*WORKER_PRELOAD, *claim_modules])
    return context


def _stop_fork_server() -> None:
    """Stop the fork server once its workers are gone, and reap it: its CPU time and its workers' then count among
    this process's children (``resource.RUSAGE_CHILDREN``, what ``verify bench`` and ``time`` measure), and the next
    pool starts from a fresh one. ``_stop`` is multiprocessing's own shutdown of it (private, present since 3.8)."""
    from multiprocessing import forkserver

    stop = getattr(forkserver._forkserver, "_stop", None)
    if stop is not None:
        stop()


def run_claims(
    claims: Sequence[Claim],
    profile: Profile = Profile.QUICK,
    seed: int = DEFAULT_SEED,
    jobs: int = 1,
    on_result: Callable[[ClaimResult], None] | None = None,
    scheduler: str | None = None,
    device: str | None = None,
    after_each: Callable[[ClaimResult], None] | None = None,
) -> RunResults:
    """Run claims (in a process pool when jobs > 1); results keep the order of ``claims``.

    ``after_each`` (a module-level function, so that it pickles) runs on each result in the process that ran the
    claim, e.g. to draw its plots ahead of a report; ``on_result`` runs in this process.
    """
    return run_seeds(claims, profile, [seed], jobs, None if on_result is None else lambda r, _: on_result(r),
                     scheduler, device, after_each)[seed]


def seed_range(first: int, count: int) -> list[int]:
    """``count`` seeds from ``first`` on: the seeds of ``verify run --seeds N`` (from the run's ``--seed``)."""
    return list(range(first, first + count))


def run_seeds(
    claims: Sequence[Claim | ClaimRef],
    profile: Profile,
    seeds: Sequence[int],
    jobs: int = 1,
    on_result: Callable[[ClaimResult, int], None] | None = None,
    scheduler: str | None = None,
    device: str | None = None,
    after_each: Callable[[ClaimResult], None] | None = None,
) -> dict[int, RunResults]:
    """Run every claim at every seed (one pool for all of them); one :class:`RunResults` per seed, in order. A pool
    (jobs > 1) also takes :class:`~verify.registry.ClaimRef` from the index, so that this process imports no claim.

    A claim's verdict must not depend on the seed: :func:`seed_misses` lists the (claim, seed) pairs that missed.
    """
    if not seeds:
        raise ValueError("at least one seed")
    start = time.perf_counter()
    tasks = [(c, seed) for seed in seeds for c in claims]
    results = _run_tasks(tasks, profile, jobs, on_result, scheduler, device, after_each)
    wall = round(time.perf_counter() - start, 3)
    runs = {}
    for seed in seeds:
        info = provenance(profile, seed)
        info["wall_seconds"] = wall
        if len(seeds) > 1:
            info["seeds"] = list(seeds)
        runs[seed] = RunResults(info, tuple(results[c.id, seed] for c in claims))
    return runs


def seed_misses(runs: Mapping[int, RunResults]) -> dict[str, list[tuple[int, str]]]:
    """Claim id → [(seed, verdict)] for every seed at which the claim missed its expected verdict."""
    misses: dict[str, list[tuple[int, str]]] = {}
    for seed, run in runs.items():
        for result in run.results:
            if not result.ok:
                misses.setdefault(result.id, []).append((seed, result.verdict.value))
    return misses
