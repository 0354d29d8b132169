"""Deep linear networks W_L⋯W_1: the end-to-end predictor, balanced initializations, per-layer norms, top singular
pairs and alignments, and gradient-flow runs that record them.

Conventions: layers W_1, …, W_L with W_k ∈ R^{d_k × d_{k−1}}; for a scalar output (d_L = 1) the end-to-end predictor
is w_prod = (W_L⋯W_1)ᵀ ∈ R^{d_0}. Alignment of adjacent layers is |⟨v_{k+1}, u_k⟩| for the top right singular vector
v_{k+1} of W_{k+1} and the top left singular vector u_k of W_k; a layer is rank one when ‖W_k‖_F = ‖W_k‖_2.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from numerics.flows import FlowStatus, GradientFlow, Trajectory
from numerics.losses import Objective
from numerics.metrics import top_singular_pairs


def chain(matrices: Sequence[Any]) -> Any:
    """W_m⋯W_1 for matrices [W_1, …, W_m] (numpy, sympy or matrix expressions); None for an empty list."""
    product = None
    for W in matrices:
        product = W if product is None else W @ product
    return product


def end_to_end(layers: Sequence[np.ndarray]) -> np.ndarray:
    """w_prod = (W_L⋯W_1)ᵀ as a vector of R^d."""
    return chain(layers).ravel()


def orthogonal_part(vectors: np.ndarray, u_bar: np.ndarray) -> np.ndarray:
    """Π_⊥: the component orthogonal to ū of a vector, or of each row of a matrix."""
    return vectors - np.multiply.outer(vectors @ u_bar, u_bar)


def balanced_initialization(widths: Sequence[int], rng: np.random.Generator, scale: float) -> list[np.ndarray]:
    """W_k(0) = s·u_k u_{k−1}ᵀ with random unit u_0, …, u_{L−1} and u_L = 1: W_k W_kᵀ = W_{k+1}ᵀ W_{k+1}."""
    units = [rng.normal(size=d) for d in widths[:-1]] + [np.ones(1)]
    units = [u / np.linalg.norm(u) for u in units]
    return [scale * np.outer(units[k + 1], units[k]) for k in range(len(widths) - 1)]


@dataclass(frozen=True)
class LayerState:
    """Norms, top singular triples and alignments of the layers W_1..W_L at one point."""

    layers: tuple[np.ndarray, ...]
    frobenius: np.ndarray  # F_k = ‖W_k‖_F
    spectral: np.ndarray  # σ_k = ‖W_k‖_2
    left: tuple[np.ndarray, ...]  # u_k
    right: tuple[np.ndarray, ...]  # v_k

    @property
    def rank_one_excess(self) -> np.ndarray:
        """‖W_k‖_F² − ‖W_k‖_2² = Σ_{i≥2} σ_{k,i}² (Lemma 2 (a)), from the singular values (no cancellation)."""
        return np.array([float(np.sum(np.linalg.svd(W, compute_uv=False)[1:] ** 2)) for W in self.layers])

    @property
    def rank_one_gap(self) -> np.ndarray:
        """1 − σ_k/F_k = (F_k² − σ_k²)/(F_k(F_k + σ_k))."""
        with np.errstate(invalid="ignore"):  # 0/0 for a zero layer (e.g. W_1(0) = 0): undefined, NaN
            return self.rank_one_excess / (self.frobenius * (self.frobenius + self.spectral))

    @property
    def alignments(self) -> np.ndarray:
        """|⟨v_{k+1}, u_k⟩| for k = 1..L−1."""
        return np.array([min(1.0, abs(float(self.right[k + 1] @ self.left[k]))) for k in range(len(self.layers) - 1)])

    @property
    def w_prod(self) -> np.ndarray:
        return end_to_end(self.layers)

    @property
    def product_alignment(self) -> float:
        """|⟨w_prod/∏_k F_k, v_1⟩|."""
        return abs(float(self.w_prod @ self.right[0])) / float(np.prod(self.frobenius))


def layer_state(layers: Sequence[np.ndarray]) -> LayerState:
    """The layers' Frobenius norms and top singular triples (:func:`numerics.metrics.top_singular_pair`)."""
    (state,) = layer_states([layers])
    return state


def layer_states(checkpoints: Sequence[Sequence[np.ndarray]]) -> tuple[LayerState, ...]:
    """:func:`layer_state` at each checkpoint (a sequence of layer lists), the singular pairs of each layer from one
    batched SVD over the checkpoints (:func:`numerics.metrics.top_singular_pairs`: the same numbers)."""
    if not checkpoints:
        return ()
    depths = {len(point) for point in checkpoints}
    if len(depths) != 1:
        raise ValueError(f"every checkpoint needs the same number of layers, got {sorted(depths)}")
    (depth,) = depths
    layers = [np.array([np.asarray(point[k], dtype=float) for point in checkpoints]) for k in range(depth)]
    pairs = [top_singular_pairs(stack) for stack in layers]
    return tuple(LayerState(tuple(stack[t] for stack in layers),
                            np.array([float(np.linalg.norm(stack[t])) for stack in layers]),
                            np.array([sigma[t] for sigma, _, _ in pairs]), tuple(u[t] for _, u, _ in pairs),
                            tuple(v[t] for _, _, v in pairs))
                 for t in range(len(checkpoints)))


@dataclass(frozen=True, eq=False)
class FlowRun:
    """A gradient-flow trajectory of R with the layer quantities at every checkpoint."""

    label: str
    objective: Objective
    trajectory: Trajectory
    states: tuple[LayerState, ...]

    @property
    def t(self) -> np.ndarray:
        return self.trajectory.t

    @cached_property
    def risks(self) -> np.ndarray:
        return np.array([float(self.objective.value(theta)) for theta in self.trajectory.theta])

    @cached_property
    def margins(self) -> np.ndarray:
        """⟨w_prod, z_i⟩ at every checkpoint (checkpoints × n)."""
        return np.array([self.objective.margins(theta) for theta in self.trajectory.theta])

    @property
    def initial_layers(self) -> tuple[np.ndarray, ...]:
        return self.states[0].layers

    def series(self, quantity: Callable[[LayerState], Any]) -> np.ndarray:
        return np.array([quantity(state) for state in self.states])


def run_flow(label: str, objective: Objective, theta0: np.ndarray, times: np.ndarray) -> FlowRun:
    """Gradient flow from θ(0) on the log clock (LSODA, rtol 1e-10), recorded at ``times`` (with t = 0 first)."""
    times = np.asarray(times, dtype=float)
    checkpoints = times if times[0] == 0.0 else np.concatenate([[0.0], times])
    trajectory = GradientFlow(objective).solve(theta0, float(checkpoints[-1]), clock="log", t_eval=checkpoints)
    if trajectory.status is not FlowStatus.COMPLETED:
        raise RuntimeError(f"{label}: gradient flow stopped early ({trajectory.message})")
    net = objective.model
    return FlowRun(label, objective, trajectory, layer_states([net.matrices(theta) for theta in trajectory.theta]))
