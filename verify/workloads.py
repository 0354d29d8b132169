"""Benchmark workloads: fixed, named computations that ``verify bench`` times and that claims may share.

``fig1``: the protocol of Sec. 3.1 / Fig. 1 of Timor, Vardi, Shamir (arXiv:2201.12760): GD from tiny initializations
on the two-point dataset y_1 = e_1, y_2 = e_2, x_1 ∝ (1, 0.99), x_2 ∝ (−1, 0.99), network N_{W,V}(x) = Vσ(Wx) with
W, V ∈ R^{2×2}, square loss; every row of W and column of V uniform on the circle of radius 1e-4; step 1e-4 for
3·10⁶ epochs (gradient-flow time 300); a run has converged when its final loss is below 1e-4. The claim
``rank.exp.fig1`` runs it; the benchmark times it against a plain numpy loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from numerics.descent import resolve_engine
from numerics.losses import Objective
from numerics.networks import Network, fully_connected
from numerics.sweeps import default_workers, descent_sweep

# -- fig1: the protocol --------------------------------------------------------------------------------------------
PAPER_STEP_SIZE = 1e-4
PAPER_EPOCHS = 3_000_000
PAPER_RUNS = 288
INIT_RADIUS = 1e-4
CONVERGENCE_THRESHOLD = 1e-4  # final loss below this: "converged to negligible loss"
HORIZON = PAPER_STEP_SIZE * PAPER_EPOCHS  # gradient-flow time T = 300


def fig1_data() -> tuple[np.ndarray, np.ndarray]:
    """(X, Y): inputs and targets as rows."""
    X = np.array([[1.0, 0.99], [-1.0, 0.99]])
    return X / np.linalg.norm(X, axis=1, keepdims=True), np.eye(2)


def fig1_network() -> Network:
    """N_{W,V} with W = W^(1) (rows w_i) and V = W^(2) (columns v_i), both 2 × 2, no biases."""
    return fully_connected([2, 2, 2])


def fig1_initialization(rng: np.random.Generator, runs: int) -> np.ndarray:
    """θ_0 for every run (runs × 8): rows of W and columns of V uniform on the circle of radius INIT_RADIUS."""
    angles = rng.uniform(0.0, 2 * np.pi, size=(runs, 4))
    W = INIT_RADIUS * np.stack([np.cos(angles[:, :2]), np.sin(angles[:, :2])], axis=-1)  # W[r, i] = w_i
    V = INIT_RADIUS * np.stack([np.cos(angles[:, 2:]), np.sin(angles[:, 2:])], axis=-2)  # V[r, :, i] = v_i
    return np.concatenate([W.reshape(runs, 4), V.reshape(runs, 4)], axis=1)


@dataclass(frozen=True)
class Fig1Statistics:
    steps: int
    step_size: float
    final_loss: np.ndarray  # per run
    singular_values: np.ndarray  # runs × 2 layers × 2, largest first
    seconds: float  # wall time of the descent
    engine: str  # "compiled (cpu)", "compiled (cuda)" or "torch (...)"

    @property
    def runs(self) -> int:
        return len(self.final_loss)

    @property
    def converged(self) -> np.ndarray:
        return self.final_loss < CONVERGENCE_THRESHOLD

    @property
    def converged_count(self) -> int:
        return int(np.sum(self.converged))

    @property
    def stable_ranks(self) -> np.ndarray:
        """runs × 2: ‖W^(ℓ)‖_F² / ‖W^(ℓ)‖_σ²."""
        return np.sum(self.singular_values**2, axis=-1) / self.singular_values[..., 0] ** 2

    @property
    def singular_ratios(self) -> np.ndarray:
        """runs × 2: σ₂/σ₁ of each layer."""
        return self.singular_values[..., 1] / self.singular_values[..., 0]


def run_fig1(steps: int, step_size: float, runs: int, seed: int, device: str | None = None,
             scheduler: str | None = None, workers: int | None = None,
             progress: str | None = "Fig. 1 descent") -> Fig1Statistics:
    """``runs`` independent GD runs of the Fig. 1 protocol with the given step count and step size.

    The starts depend on ``seed`` only; the runs go through :func:`numerics.sweeps.descent_sweep` (the compiled
    kernel, on the CPU or, where one is present and faster for the workload, a GPU; ``device`` pins it), on a Dask
    cluster if ``scheduler`` is given, else on ``workers`` local threads. The kernel computes each run alone and the
    same way on both devices (square loss: the same bits), so the statistics do not depend on where they ran.
    """
    X, Y = fig1_data()
    net = fig1_network()
    objective = Objective(net, X, Y, "square")
    theta0 = fig1_initialization(np.random.default_rng(seed), runs)
    engine, device = resolve_engine(objective, "auto", device, runs=runs, steps=steps,
                                    cores=default_workers() if workers is None else workers)
    start = time.perf_counter()
    run = descent_sweep(objective, theta0, steps, step_size, record_every=steps, engine=engine, device=device,
                        scheduler=scheduler, workers=workers, progress=progress)
    seconds = time.perf_counter() - start
    layers = net.matrices(run.theta)  # each runs × 2 × 2
    singular_values = np.stack([np.linalg.svd(W, compute_uv=False) for W in layers], axis=1)
    return Fig1Statistics(steps, step_size, run.loss[-1], singular_values, seconds, f"{engine} ({device})")
