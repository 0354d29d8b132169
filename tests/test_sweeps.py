"""Sweeps: chunk seeds, and the same results in this process, on a local spawn pool and on a Dask cluster; the
scheduler and device options of `verify run` reach the checks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from numerics.descent import batched_gradient_descent
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.sweeps import Sweep, chunk_seed, concatenate, descent_sweep, run_sweep
from verify.claim import Context, Criterion, Profile
from verify.cli import main
from verify.workloads import run_fig1


def draw(spec: tuple[int, float], seed: int) -> dict[str, np.ndarray]:
    """A chunk that uses its seed: ``count`` normal draws scaled by ``scale``."""
    count, scale = spec
    return {"sample": scale * np.random.default_rng(seed).standard_normal(count), "seed": np.array([seed])}


def sampling_sweep() -> Sweep:
    return Sweep(draw, tuple((3 + k, float(k)) for k in range(5)), seed=42)


def logistic_problem(runs: int = 40) -> tuple[Objective, np.ndarray]:
    rng = np.random.default_rng(11)
    X = rng.standard_normal((5, 2))
    objective = Objective(fully_connected([2, 3, 1], "relu"), X, np.sign(X[:, 0]), "logistic")
    return objective, 0.5 * rng.standard_normal((runs, objective.model.n_params))


def test_chunk_seeds_depend_on_the_sweep_seed_and_the_index_only() -> None:
    seeds = [chunk_seed(7, k) for k in range(100)]
    assert len(set(seeds)) == 100 and seeds == [chunk_seed(7, k) for k in range(100)]
    assert chunk_seed(8, 0) != chunk_seed(7, 0)
    assert sampling_sweep().seeds == [chunk_seed(42, k) for k in range(5)]


def test_in_process_run_combines_in_chunk_order() -> None:
    result = run_sweep(sampling_sweep(), workers=1)
    assert result["sample"].shape == (3 + 4 + 5 + 6 + 7,)
    assert result["seed"].tolist() == sampling_sweep().seeds
    assert np.all(result["sample"][:3] == 0.0)  # chunk 0 has scale 0
    custom = run_sweep(Sweep(draw, ((2, 1.0), (2, 1.0)), seed=1, combine=lambda parts: len(parts)), workers=1)
    assert custom == 2
    with pytest.raises(ValueError, match="chunk"):
        run_sweep(Sweep(draw, ()))
    assert concatenate([{"a": np.ones(2)}, {"a": np.zeros(1)}])["a"].tolist() == [1.0, 1.0, 0.0]


def test_descent_sweep_is_batched_descent_split_by_rows() -> None:
    objective, theta0 = logistic_problem()
    etas = np.linspace(0.05, 0.2, len(theta0))
    whole = batched_gradient_descent(objective, theta0, 500, etas, record_every=100, engine="compiled", device="cpu")
    for chunk_runs in (7, 40):  # the CPU kernel, pinned (the GPU kernel's chunkings: tests/test_cuda_descent.py)
        swept = descent_sweep(objective, theta0, 500, etas, record_every=100, chunk_runs=chunk_runs, workers=1,
                              engine="compiled", device="cpu")
        assert np.array_equal(swept.steps, whole.steps)
        assert np.array_equal(swept.theta, whole.theta) and np.array_equal(swept.loss, whole.loss)
    torch_run = descent_sweep(objective, theta0, 500, etas, record_every=500, engine="torch", device="cpu",
                              chunk_runs=16, workers=1)
    assert np.max(np.abs(torch_run.theta - whole.theta)) < 1e-12


def test_a_local_spawn_pool_gives_the_same_bits() -> None:
    objective, theta0 = logistic_problem()
    kwargs = dict(record_every=300, chunk_runs=10, engine="torch", device="cpu")  # Python-level chunks: processes
    local = descent_sweep(objective, theta0, 300, 0.1, workers=1, **kwargs)
    pooled = descent_sweep(objective, theta0, 300, 0.1, workers=2, **kwargs)
    assert np.array_equal(local.theta, pooled.theta) and np.array_equal(local.loss, pooled.loss)


def test_compiled_sweeps_run_on_threads_with_the_same_bits(monkeypatch) -> None:
    from numerics import sweeps

    objective, theta0 = logistic_problem()
    local = descent_sweep(objective, theta0, 300, 0.1, record_every=100, chunk_runs=10, workers=1)

    def no_processes(*args, **kwargs):
        raise AssertionError("a compiled sweep must not start processes")

    monkeypatch.setattr(sweeps, "ProcessPoolExecutor", no_processes)
    threaded = descent_sweep(objective, theta0, 300, 0.1, record_every=100, chunk_runs=10, workers=2)
    assert np.array_equal(local.theta, threaded.theta) and np.array_equal(local.loss, threaded.loss)


def test_a_dask_cluster_gives_the_same_bits() -> None:
    """Two workers on loopback (threads of this process, so the cluster starts in a fraction of a second; the tasks
    and results still travel over TCP, pickled); the claims' own sweep (Fig. 1) and a sweep that draws from its
    seeds."""
    from distributed import LocalCluster

    objective, theta0 = logistic_problem()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        fig1 = run_fig1(steps=2000, step_size=3e-2, runs=20, seed=5, device="cpu", scheduler=address)
        swept = descent_sweep(objective, theta0, 300, 0.1, record_every=300, chunk_runs=10, scheduler=address)
        sampled = run_sweep(sampling_sweep(), scheduler=address)
    local_fig1 = run_fig1(steps=2000, step_size=3e-2, runs=20, seed=5, device="cpu", workers=1)
    assert np.array_equal(fig1.final_loss, local_fig1.final_loss)
    assert np.array_equal(fig1.singular_values, local_fig1.singular_values)
    local = descent_sweep(objective, theta0, 300, 0.1, record_every=300, chunk_runs=10, workers=1)
    assert np.array_equal(swept.theta, local.theta) and np.array_equal(swept.loss, local.loss)
    assert np.array_equal(sampled["sample"], run_sweep(sampling_sweep(), workers=1)["sample"])


def test_verify_run_hands_the_scheduler_to_the_checks(toy_registry, tmp_path: Path) -> None:
    @toy_registry.claim(id="rank.toy.sweep", ref="Sweep 0", kind="experiment", title="sees the scheduler",
                        statement="$1 = 1$", conclusions={"the context carries them": "confirmed"},
                        profiles={"quick": "no sweep"})
    def _sweep(ctx):
        seen = Criterion("scheduler given", lambda scheduler: scheduler is not None)
        ctx.support("scheduler seen", "numeric", seen(ctx.scheduler), "recorded",
                    {"scheduler": str(ctx.scheduler), "device": str(ctx.device)})
        ctx.control("no scheduler", seen(None), "scheduler dropped")

    default = Context("rank.toy.sweep", Profile.QUICK, 1)
    assert default.scheduler is None and default.device is None
    address = "tcp://127.0.0.1:8786"  # never contacted: this check runs no sweep
    target = tmp_path / "run.json"
    assert main(["--store", str(tmp_path), "run", "rank.toy.sweep", "--scheduler", address, "--device", "cpu",
                 "--json", str(target)]) == 0
    figures = json.loads(target.read_text())["results"][0]["evidence"][0]["figures"]
    assert figures == {"scheduler": address, "device": "cpu"}
