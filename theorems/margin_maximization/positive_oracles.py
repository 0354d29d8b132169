"""Paper 001's positive results: the convex references a gradient-flow limit is compared with, and the flows.

* :func:`flow_limits` runs the arc-length flow (``definitions.flow_path``) from random initializations until it
  reaches the stated norms with every sample separated (the hypothesis L(θ(t₀)) < ℓ(0) of Theorem 2.1);
* depth-2 networks of N_no-share, Φ = Σ_j v_j σ(w_jᵀx^j): :func:`neuron_blocks` (the indices of each w_j and v_j),
  :func:`group_lasso` (Problem (8), or Problem (11) with the activation pattern A_ij frozen),
  :func:`pattern_stable_radius` (how far the w-blocks may move before a pre-activation changes sign);
* :func:`fan_instance`: a depth-3 ReLU network whose flow keeps every unit alive (the hypothesis of Theorem 5.4);
* :func:`layer_problem`: the per-layer Problem (4) at θ with the constraints linearized in the layer (exact for
  linear networks and last layers; for ReLU networks exact on the ball where the patterns of the layers it feeds
  stay frozen), solved as a hard-margin SVM with :func:`numerics.convex.max_margin`;
* :func:`saddle_instance`: a stationary point of a depth-2 linear network with logistic loss log 2 < 1 (below
  the printed threshold L < 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy

from numerics import exact as E
from numerics import kkt
from numerics.convex import GroupNormReference, group_norm_problem, max_margin
from numerics.losses import Objective
from numerics.networks import Network, fully_connected, scalar_outputs
from numerics.tolerances import at_most
from theorems.margin_maximization import common as C
from theorems.margin_maximization.definitions import flow_path, neuron_parameters
from verify import Tightness, tightness

FLOW_NORMS = (100.0, 300.0)  # the direction has settled to ~1e-4 in R(θ) at ‖θ‖ = 300 on the instances used
INIT_SCALE = 0.5
ATTEMPTS = 6


def flow_limits(net: Network, X: np.ndarray, y: np.ndarray, loss: str, rng: np.random.Generator,
                norms: tuple[float, ...] = FLOW_NORMS, max_evaluations: int = 1_000_000
                ) -> tuple[list[C.FlowLimit], np.ndarray] | None:
    """Arc-length flows from 0.5·N(0, I) initializations until one reaches every norm in ``norms`` with all samples
    separated (so L < ℓ(0) there); the path and its θ(0), or None after ``ATTEMPTS`` initializations."""
    for _ in range(ATTEMPTS):
        theta0 = INIT_SCALE * rng.normal(size=net.n_params)
        path = flow_path(net, X, y, theta0, loss, norms, max_evaluations=max_evaluations)
        if len(path) == len(norms):
            return path, theta0
    return None


def below_threshold(net: Network, X: np.ndarray, y: np.ndarray, loss: str, theta: np.ndarray) -> bool:
    """L(θ) < ℓ(0) (1 for the exponential loss, log 2 for the logistic loss), compared in log space."""
    threshold = 0.0 if loss == "exponential" else float(np.log(np.log(2.0)))
    return float(Objective(net, X, y, loss).log_value(theta)) < threshold


def threshold_tightness(net: Network, X: np.ndarray, y: np.ndarray, loss: str, theta: np.ndarray) -> Tightness:
    """How tight L(θ) < ℓ(0) is at θ (the ratio is L(θ)/ℓ(0))."""
    return tightness("L(θ) < ℓ(0)", float(np.exp(Objective(net, X, y, loss).log_value(theta))),
                     1.0 if loss == "exponential" else float(np.log(2.0)))


# -- depth-2 networks of N_no-share ----------------------------------------------------------------------------
@dataclass(frozen=True)
class NeuronBlocks:
    """Indices in θ of each hidden unit's incoming weights w_j and of its outgoing weight v_j (depth 2)."""

    incoming: tuple[np.ndarray, ...]
    outgoing: tuple[int, ...]


def neuron_blocks(net: Network) -> NeuronBlocks:
    units = range(net.layers[0].shape[0])
    pairs = [neuron_parameters(net, 1, j) for j in units]
    if any(len(p[1]) != 1 for p in pairs):
        raise ValueError("neuron blocks: each hidden unit needs exactly one outgoing weight (depth 2, one output)")
    return NeuronBlocks(tuple(p[0] for p in pairs), tuple(int(p[1][0]) for p in pairs))


def neuron_products(net: Network, theta: np.ndarray) -> list[np.ndarray]:
    """u_j = v_j w_j for every hidden unit."""
    blocks = neuron_blocks(net)
    return [theta[v] * theta[w] for w, v in zip(blocks.incoming, blocks.outgoing)]


def unit_features(net: Network, X: np.ndarray, pattern: np.ndarray | None = None) -> np.ndarray:
    """Row i: the concatenated inputs x_i^j of the units (times A_ij when a pattern is given), so that
    Σ_j A_ij u_jᵀx_i^j = row_i · (u_1, …, u_k) with u_j laid out like the first layer's parameters."""
    linear = Network(net.layers, "linear")
    first = net.sizes[0]
    theta = np.concatenate([np.zeros(first), np.ones(net.sizes[1])])
    F = linear.jacobian(theta, X)[:, 0, :first]  # ∂/∂w of Σ_j w_jᵀx^j: the inputs x_i^j
    if pattern is not None:
        blocks = neuron_blocks(net)
        for j, w in enumerate(blocks.incoming):
            F[:, w] *= pattern[:, j][:, None]
    return F


def group_lasso(net: Network, X: np.ndarray, y: np.ndarray, pattern: np.ndarray | None = None
                ) -> GroupNormReference:
    """Problem (8) (``pattern`` None) or Problem (11): min Σ_j ‖u_j‖ s.t. y_i Σ_j A_ij u_jᵀx_i^j ≥ 1."""
    blocks = neuron_blocks(net)
    first = net.sizes[0]
    selectors = [np.eye(first)[w] for w in blocks.incoming]
    return group_norm_problem(unit_features(net, X, pattern), y, selectors)


def first_layer_pattern(net: Network, theta: np.ndarray, X: np.ndarray) -> np.ndarray:
    """A_ij = 1(w_jᵀx_i^j ≥ 0) (n × k)."""
    return (net.preactivations(theta, X)[0] >= 0).astype(float)


def smallest_relative_preactivation(net: Network, theta: np.ndarray, X: np.ndarray) -> float:
    """min over hidden units and samples of |pre-activation| / (‖θ‖^(depth of the unit) · ‖x_i‖): a scale-free
    distance from the kinks."""
    scale = float(np.linalg.norm(theta))
    norms = np.linalg.norm(X, axis=1)
    return float(min(np.min(np.abs(z) / norms[:, None]) / scale ** (depth + 1)
                     for depth, z in enumerate(net.preactivations(theta, X))))


def pattern_stable_radius(net: Network, theta: np.ndarray, X: np.ndarray) -> float:
    """Depth 2: moving the w-blocks by less than min_ij |w_jᵀx_i^j| / ‖x_i^j‖ keeps every pre-activation's sign
    (v does not enter them)."""
    if net.depth != 2:
        raise ValueError(f"pattern-stable radius: a depth-2 network is needed, got depth {net.depth}")
    F = unit_features(net, X)
    blocks = neuron_blocks(net)
    Z = net.preactivations(theta, X)[0]
    ratios = [np.abs(Z[:, j]) / np.linalg.norm(F[:, w], axis=1) for j, w in enumerate(blocks.incoming)]
    return float(np.min(ratios))


def fan_instance(rng: np.random.Generator, n: int = 3) -> tuple[Network, np.ndarray, np.ndarray, np.ndarray]:
    """A fully-connected 2-3-2-1 ReLU network and n points of the upper half-plane (angles in (0.1, π − 0.1), radii
    in [1/2, 3/2]), all labelled 1; θ(0) has first-layer rows at angles ≈ 0.5, π/2, 2.6 (each starts active on part of
    the data) and positive deeper layers, so that units tend to keep an active sample: many flows end with non-zero
    inputs to every unit (callers check it)."""
    angles = np.sort(rng.uniform(0.1, np.pi - 0.1, n))
    X = np.stack([np.cos(angles), np.sin(angles)], axis=1) * rng.uniform(0.5, 1.5, (n, 1))
    rows = np.array([0.5, np.pi / 2, 2.6]) + 0.2 * rng.normal(size=3)
    theta0 = np.concatenate([np.stack([np.cos(rows), np.sin(rows)], axis=1).ravel(), rng.uniform(0.3, 1.0, 6),
                             rng.uniform(0.3, 1.0, 2)])
    return fully_connected([2, 3, 2, 1], "relu"), X, np.ones(n), theta0


# -- the per-layer problem (4) -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class LayerComparison:
    layer: int  # 0-based
    squared_norm: float  # ‖u^(l)‖² at θ (θ at minimum margin 1)
    optimum: float  # ‖u*‖² of the linearized problem
    relative_gap: float

    def within(self, tolerance: float) -> bool:
        return at_most(self.relative_gap, tolerance)


def layer_problem(net: Any, theta: np.ndarray, X: np.ndarray, y: np.ndarray, layer: int) -> LayerComparison:
    """Problem (4) for ``layer`` at θ (rescaled to minimum margin 1) with y_iΦ linearized in the layer:
    c_i = y_i ∂Φ(θ; x_i)/∂u^(l), min ‖u‖² s.t. c_iᵀu ≥ 1 (a hard-margin SVM on the rows c_i)."""
    theta = kkt.rescale_to_margin(net, theta, X, y)
    restriction, u = kkt.restrict_to_layer(net, theta, layer)
    rows = y[:, None] * restriction.jacobian(u, X)[:, 0, :]
    reference = max_margin(rows, np.ones(len(y)))
    optimum = reference.norm**2
    value = float(u @ u)
    return LayerComparison(layer, value, optimum, abs(value - optimum) / optimum)


# -- the threshold L < 1 for the logistic loss ---------------------------------------------------------------------
@dataclass(frozen=True)
class Saddle:
    """A depth-2 linear network at a stationary point θ₀ with every margin 0: L(θ₀) = n log 2 for the logistic
    loss, so with one sample L(θ₀) = log 2 < 1, yet gradient flow stays at θ₀ forever."""

    net: Network
    X: np.ndarray
    y: np.ndarray
    theta0: np.ndarray
    gradient_is_zero: bool  # Σ_i y_i ∇Φ(θ₀; x_i) = 0 exactly (∇L = −ℓ'(0)·that, since every margin is 0)
    margins: np.ndarray  # exact

    def loss(self, loss: str) -> sympy.Expr:
        """L(θ₀), exact."""
        ell = (lambda q: sympy.exp(-q)) if loss == "exponential" else (lambda q: sympy.log(1 + sympy.exp(-q)))
        return sympy.simplify(sum(ell(q) for q in self.margins))


SADDLE_OUTPUT = (0, 0)  # v at the saddle


def saddle_instance(output: tuple[int, int] = SADDLE_OUTPUT) -> Saddle:
    """x = (1, 0), y = 1; W₁ = [[0, 1], [0, −1]] (rows ⊥ x), v = 0: the output, ∇_v Φ = W₁x and ∇_{W₁}Φ = v xᵀ all
    vanish. Another ``output`` v keeps Φ = 0 and ∇_v Φ = 0 but moves ∇_{W₁}Φ = v xᵀ off 0."""
    net = fully_connected([2, 2, 1], "linear")
    X = E.to_exact(np.array([[1, 0]]))
    y = E.to_exact(np.array([1]))
    theta0 = E.to_exact(np.array([0, 1, 0, -1, *output]))
    q = E.canonical(y * scalar_outputs(net, theta0, X))
    g = E.canonical((y[:, None] * net.jacobian(theta0, X)[:, 0, :]).sum(axis=0))
    return Saddle(net, X, y, theta0, bool(np.all(E.signs(g) == 0)), q)
