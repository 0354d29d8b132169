"""Shared objects of paper 003 (Ji & Telgarsky): data sets, the max-margin direction ū and the radius θ, the
polynomial-tail test loss, and the per-layer quantities that the paper's statements are about.

Conventions (the paper's): data z_i = y_i x_i with ‖z_i‖ ≤ 1; layers W_1, …, W_L with W_k ∈ R^{d_k × d_{k−1}},
d_L = 1; w_prod = (W_L⋯W_1)ᵀ ∈ R^d; the risk is the mean R(W) = (1/n) Σ_i ℓ(⟨w_prod, z_i⟩).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import mpmath
import numpy as np
import sympy
from scipy.linalg import null_space
from scipy.optimize import brentq
from scipy.spatial import ConvexHull, QhullError

from numerics import backend as B
from numerics import exact as E
from numerics.convex import ConvexReference, max_margin
from numerics.linear_networks import (  # noqa: F401 - general tools, re-exported for the claims of this paper
    FlowRun,
    LayerState,
    balanced_initialization,
    chain,
    end_to_end,
    layer_state,
    orthogonal_part,
    run_flow,
)
from numerics.losses import MarginLoss, Objective, _is_object, _mp_map, margin_loss
from numerics.networks import Network, fully_connected
from numerics.trends import log_spaced
from theorems.layer_alignment.conservation import gram_gap

# -- data -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Dataset:
    """Points z_i = y_i x_i (rows of ``Z``); labels alternate +1, −1, … so that x_i = y_i z_i."""

    name: str
    Z: np.ndarray  # float64, n × d
    exact_Z: np.ndarray | None = None  # the same points as sympy rationals, when they are exact decimals

    @property
    def n(self) -> int:
        return self.Z.shape[0]

    @property
    def d(self) -> int:
        return self.Z.shape[1]

    @cached_property
    def y(self) -> np.ndarray:
        return np.where(np.arange(self.n) % 2 == 0, 1.0, -1.0)

    @cached_property
    def X(self) -> np.ndarray:
        return self.Z * self.y[:, None]


def _decimal_dataset(name: str, rows: Sequence[Sequence[str]]) -> Dataset:
    exact = np.array([[sympy.Rational(v) for v in row] for row in rows], dtype=object)
    return Dataset(name, B.to_float(exact), exact)


def ds2() -> Dataset:
    """d = 2, n = 4: ū = e_1, γ = 1/2, support vectors {1, 2} (0-based {0, 1}), θ = 1/5."""
    return _decimal_dataset("DS2", [("0.5", "0.4"), ("0.5", "-0.2"), ("0.8", "0.1"), ("0.7", "-0.5")])


def ds3() -> Dataset:
    """d = 3, n = 6: ū = e_1, γ = 1/2, three support vectors spanning R³, θ = 0.4/√5."""
    return _decimal_dataset("DS3", [("0.5", "0.3", "0.2"), ("0.5", "-0.3", "0.2"), ("0.5", "0", "-0.4"),
                                    ("0.7", "0.2", "0.3"), ("0.8", "-0.3", "-0.4"), ("0.6", "0.5", "-0.2")])


def ds_degenerate() -> Dataset:
    """d = 2, n = 2, both points support vectors spanning R² (Assumption 3 holds) but one has dual 0: θ = 0.

    A measure-zero configuration, outside the "almost all data" of Lemma 3 and Theorem 2."""
    return _decimal_dataset("DSdeg", [("0.5", "0"), ("0.5", "0.5")])


def ds_random(rng: np.random.Generator, n: int, d: int, gap: float = 0.1) -> Dataset:
    """n points uniform in the unit ball, labelled by a random unit teacher u, keeping |⟨x, u⟩| ≥ gap."""
    teacher = rng.normal(size=d)
    teacher /= np.linalg.norm(teacher)
    kept: list[np.ndarray] = []
    while len(kept) < n:
        x = rng.normal(size=d)
        x *= rng.uniform() ** (1.0 / d) / np.linalg.norm(x)
        if abs(x @ teacher) >= gap:
            kept.append(np.sign(x @ teacher) * x)
    return Dataset(f"DSrand(n={n}, d={d})", np.array(kept))


# -- max margin ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MaxMargin:
    """The hard-margin SVM through the origin on the z_i: ū = w*/‖w*‖, γ = 1/‖w*‖, w* = Σ_i α_i z_i."""

    direction: np.ndarray  # ū
    margin: float  # γ
    support: tuple[int, ...]  # S: indices with ⟨ū, z_i⟩ = γ
    duals: np.ndarray  # α
    reference: ConvexReference

    @property
    def certified(self) -> bool:
        return self.reference.status == "certified"

    @property
    def exact_direction(self) -> np.ndarray | None:
        return None if self.reference.certificate is None else self.reference.certificate.direction


def max_margin_direction(data: Dataset) -> MaxMargin:
    """ū, γ, S and the duals, solved by two solvers and certified in exact arithmetic (numerics.convex); one solve
    per set of points in a process (the claims ask for the same datasets' SVM again and again: 306 calls on 82
    datasets in a quick run), its arrays read-only."""
    points = data.exact_Z if data.exact_Z is not None else data.Z
    try:
        return _max_margin_of(data.exact_Z is not None, tuple(map(tuple, np.asarray(points).tolist())))
    except ValueError as failure:
        raise ValueError(f"{data.name}: {failure}") from None


@lru_cache(maxsize=512)
def _max_margin_of(exact: bool, rows: tuple[tuple[Any, ...], ...]) -> MaxMargin:
    points = np.array(rows, dtype=object if exact else np.float64)
    reference = max_margin(points, np.ones(len(rows), dtype=int))
    if reference.solution is None:
        raise ValueError(f"no max-margin solution ({reference.message})")
    direction, duals = np.array(reference.direction), np.array(reference.duals)
    direction.setflags(write=False)
    duals.setflags(write=False)
    return MaxMargin(direction, reference.margin, reference.active, duals, reference)


def spans_space(data: Dataset, svm: MaxMargin) -> bool:
    """Assumption 3: the support vectors span R^d (exact rank when the certificate is exact)."""
    points = (data.exact_Z if data.exact_Z is not None else E.to_exact(data.Z))[list(svm.support)]
    # independent_rows picks among the support's rows, so d of them already means |S| ≥ d
    return len(E.independent_rows(points)) == data.d


def support_radius(data: Dataset, svm: MaxMargin) -> float:
    """θ = min over unit ξ ⊥ ū of max_{i∈S} ⟨ξ, z_i⟩ (Lemma 3), in float64.

    With p_i the support vectors projected onto ū^⊥ (coordinates in an orthonormal basis), θ is the distance
    from 0 to the boundary of conv{p_i} when 0 is interior, and ≤ 0 otherwise (some ξ has every ⟨ξ, p_i⟩ ≤ 0;
    only the sign of such a value is meaningful).
    """
    basis = null_space(svm.direction[None, :])
    points = data.Z[list(svm.support)] @ basis
    if basis.shape[1] == 0:
        raise ValueError("θ is an empty minimum for d = 1")
    if basis.shape[1] == 1:
        return float(min(points.max(), (-points).max()))
    try:
        hull = ConvexHull(points)
    except QhullError:  # the p_i lie in a hyperplane of ū^⊥: a unit normal ξ of it has max_i ⟨ξ, p_i⟩ = 0
        return 0.0
    return float(np.min(-hull.equations[:, -1]))  # a facet offset is negative when 0 lies outside the hull


def exact_support_radius(data: Dataset, svm: MaxMargin) -> sympy.Expr | None:
    """θ in exact arithmetic when |S| = d, the certificate is exact and 0 ∈ conv{p_i} (the generic case).

    The projected support vectors p_i = z_i − ⟨z_i, ū⟩ū form a simplex in ū^⊥. With 0 = Σ λ_i p_i, Σ λ_i = 1:
    if every λ_i > 0, θ is the smallest distance from 0 to the affine hull of a facet (d − 1 of the p_i); if
    every λ_i ≥ 0 and some λ_i = 0, 0 lies on the boundary and θ = 0. Otherwise (or without exact data, or
    |S| ≠ d) returns None.
    """
    u = svm.exact_direction
    if u is None or data.exact_Z is None or len(svm.support) != data.d or data.d < 2:
        return None
    u = sympy.Matrix(list(u))
    points = [sympy.Matrix(list(data.exact_Z[i])) for i in svm.support]
    projected = [p - (p.dot(u)) * u for p in points]
    weights = _barycentric_coordinates_of_origin(projected)
    if weights is None or any(w < 0 for w in weights):
        return None
    # a zero λ_i puts 0 on the facet opposite p_i, whose distance below is then 0
    distances = [sympy.sqrt(_squared_distance_to_affine_hull([p for j, p in enumerate(projected) if j != i]))
                 for i in range(len(projected))]
    return sympy.radsimp(min(distances, key=float))


def _squared_distance_to_affine_hull(points: list[sympy.Matrix]) -> sympy.Expr:
    """min ‖Σ λ_j q_j‖² over Σ λ_j = 1 (exact): the Gram system of the affine hull."""
    base, directions = points[0], [q - points[0] for q in points[1:]]
    if not directions:
        return sympy.simplify(base.dot(base))
    M = sympy.Matrix.hstack(*directions)
    coefficients = (M.T * M).solve(-M.T * base)
    foot = base + M * coefficients
    return sympy.simplify(foot.dot(foot))


def _barycentric_coordinates_of_origin(projected: list[sympy.Matrix]) -> list[sympy.Expr] | None:
    """λ with Σ λ_i p_i = 0 and Σ λ_i = 1, exact (None if there is no unique solution)."""
    system = sympy.Matrix.vstack(sympy.Matrix.hstack(*projected), sympy.ones(1, len(projected)))
    rhs = sympy.Matrix.vstack(sympy.zeros(projected[0].rows, 1), sympy.Matrix([1]))
    try:
        solution, free = system.gauss_jordan_solve(rhs)
    except ValueError:  # inconsistent
        return None
    return None if free.shape[0] else [sympy.simplify(v) for v in solution]


# -- a polynomial-tail loss ------------------------------------------------------------------------------------


class PolynomialTailLoss(MarginLoss):
    """ℓ(q) = √(1 + q²) − q = e^{−asinh q}: Assumption 1 holds, ℓ ~ 1/(2q) at +∞ (not exponential), ℓ'' ≤ 1.

    Not a loss of the paper: a test case for which Theorems 1/3 apply and Theorems 2/4 do not.
    −ℓ'(q) = e^{−asinh q}/√(1 + q²).
    """

    name = "polynomial-tail"

    def value(self, q: Any) -> Any:
        if _is_object(q):
            return _mp_map(lambda v: mpmath.exp(-mpmath.asinh(v)), q)
        return np.exp(-np.arcsinh(q))

    def log_value(self, q: Any) -> Any:
        if _is_object(q):
            return _mp_map(lambda v: -mpmath.asinh(v), q)
        return -np.arcsinh(q)

    def log_neg_derivative(self, q: Any) -> Any:
        if _is_object(q):
            return _mp_map(lambda v: -mpmath.asinh(v) - mpmath.log(mpmath.hypot(1, v)), q)
        return -np.arcsinh(q) - np.log(np.hypot(1.0, q))


POLYNOMIAL_TAIL = PolynomialTailLoss()
LONG_TIMES = log_spaced(1e-2, 1e12, 57)  # the flow claims' checkpoints: four per decade up to t = 1e12


def loss_at_zero(loss: str | MarginLoss) -> float:
    """ℓ(0) = R(0), the risk of the zero predictor."""
    return float(margin_loss(loss).value(np.zeros(1))[0])


# -- networks and the risk ---------------------------------------------------------------------------------------


def linear_network(widths: Sequence[int]) -> Network:
    """The deep linear network with layer widths d_0 = d, d_1, …, d_L = 1."""
    if widths[-1] != 1:
        raise ValueError("the paper's networks have a scalar output (d_L = 1)")
    return fully_connected(list(widths), "linear")


def risk(net: Network, data: Dataset, loss: str | MarginLoss) -> Objective:
    """R(W) = (1/n) Σ_i ℓ(y_i W_L⋯W_1 x_i)."""
    return Objective(net, data.X, data.y, loss, mean=True)


NARROW_WIDTHS = (2, 2, 2, 1)


def ds2_narrow_risk() -> Objective:
    """DS2 on the narrow depth-3 network (widths [2, 2, 2, 1]) with the logistic risk: the setting of the
    misaligned equal-norm flow (align.thm2's proof facts, align.thm3's (P1)) and of the constant-step runs
    (align.lem8)."""
    return risk(linear_network(NARROW_WIDTHS), ds2(), "logistic")


def satisfies_assumption2(objective: Objective, theta: np.ndarray, gradient_floor: float = 1e-10) -> bool:
    """Assumption 2: ∇R(W(0)) ≠ 0 (norm above ``gradient_floor``) and R(W(0)) ≤ ℓ(0)."""
    gradient = float(np.linalg.norm(objective.gradient(theta)))
    return gradient > gradient_floor and float(objective.value(theta)) <= loss_at_zero(objective.loss)


def admissible_initialization(objective: Objective, rng: np.random.Generator, scale: float,
                              max_draws: int = 1000) -> np.ndarray:
    """Gaussian entries of standard deviation ``scale``, redrawn until Assumption 2 holds."""
    for _ in range(max_draws):
        theta = scale * rng.normal(size=objective.model.n_params)
        if satisfies_assumption2(objective, theta):
            return theta
    raise RuntimeError(f"no draw of scale {scale} satisfied Assumption 2 in {max_draws} tries")


# -- per-layer quantities -------------------------------------------------------------------------------------


def _squared_norms_and_gaps(layers0: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """‖W_k(0)‖_F² for k = 1..L and ‖A_{k,k+1}‖_2 for k = 1..L−1, A_{k,k+1} = W_k(0)W_k(0)ᵀ − W_{k+1}(0)ᵀW_{k+1}(0)."""
    squares = np.array([float(np.sum(W**2)) for W in layers0])
    gaps = np.array([float(np.linalg.norm(gram_gap(layers0, k), 2)) for k in range(1, len(layers0))])
    return squares, gaps


def initialization_constants(layers0: Sequence[np.ndarray]) -> np.ndarray:
    """D_k = ‖W_k(0)‖_F² − ‖W_L(0)‖_F² + Σ_{j=k}^{L−1} ‖A_{j,j+1}‖_2 for k = 1..L (eq. (8)); each D_k ≤ D."""
    squares, gaps = _squared_norms_and_gaps(layers0)
    tails = np.append(np.cumsum(gaps[::-1])[::-1], 0.0)
    return squares - squares[-1] + tails


def initialization_constant(layers0: Sequence[np.ndarray]) -> float:
    """D = max_k ‖W_k(0)‖_F² − ‖W_L(0)‖_F² + Σ_{k=1}^{L−1} ‖A_{k,k+1}‖_2 (Sec. 2.1)."""
    squares, gaps = _squared_norms_and_gaps(layers0)
    return float(squares.max() - squares[-1] + gaps.sum())


def top_right_vector(state: LayerState) -> np.ndarray:
    """v_1 of W_1 at a checkpoint: the direction the paper's alignment statements are about."""
    return state.right[0]


def second_right_vector(state: LayerState) -> np.ndarray:
    """A wrong vector for the controls: the second right singular vector of W_1."""
    return np.linalg.svd(state.layers[0])[2][1]


def loss_inverse(loss: str | MarginLoss, value: float) -> float:
    """ℓ^{-1}(value) for a strictly decreasing margin loss (root of log ℓ(q) = log value, bracketed outward)."""
    log_loss, target = margin_loss(loss).log_value, float(np.log(value))
    low, high = -1.0, 1.0
    while float(log_loss(np.array([low]))[0]) < target:
        low *= 2.0
    while float(log_loss(np.array([high]))[0]) > target:
        high *= 2.0
    return float(brentq(lambda q: float(log_loss(np.array([q]))[0]) - target, low, high, xtol=1e-15, rtol=1e-15))


# -- gradient-flow runs --------------------------------------------------------------------------------------


def predictor_gradient(loss: str | MarginLoss, Z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """∇R(w) = (1/n) Σ_i ℓ'(⟨w, z_i⟩) z_i for a linear predictor w (the paper's overloaded R(w))."""
    return margin_loss(loss).derivative(Z @ w) @ Z / Z.shape[0]


def layer_gradient(layers: Sequence[Any], row_gradient: Any, k: int) -> Any:
    """The paper's formula ∂R/∂W_k = W_{k+1}ᵀ⋯W_Lᵀ ∇R(w_prod)ᵀ W_1ᵀ⋯W_{k−1}ᵀ (k is 1-based), with
    ``row_gradient`` = ∇R(w_prod)ᵀ (1 × d): (W_L⋯W_{k+1})ᵀ g (W_{k−1}⋯W_1)ᵀ, empty products omitted."""
    above, below = chain(layers[k:]), chain(layers[:k - 1])
    gradient = row_gradient if below is None else row_gradient @ below.T
    return gradient if above is None else above.T @ gradient
