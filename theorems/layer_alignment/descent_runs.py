"""Gradient descent on deep linear networks in the setting of Ji & Telgarsky, Sec. 3 and App. C.

What the claims of ``descent_*.py`` share:

* the constants of Assumption 4 (β-smooth, G-Lipschitz loss) and the radius-dependent smoothness constant
  β(R) = 2L²R^{2L−2}(β + G) of Lemma 5;
* Assumption 5 made implementable: ``numerics.descent.GrowingBallStep`` with η_t = min{1/β(R_t), 1}, radii
  R_t ≥ 1 grown by whole units until the step stays in B(R_t) (the reading of align.asm5);
* :class:`DescentTrace`: a GD run with every iterate, gradient and step size, and the step-size-squared
  Gram sums of App. C, P_k(t) = Σ_{τ<t} η_τ² G_k G_kᵀ and Q_k(t) = Σ_{τ<t} η_τ² G_kᵀ G_k (G_k = ∂R/∂W_k at W(τ));
* :class:`GramBalance`: the summed GD identity between adjacent layers, in any number system (python-flint
  rationals, mpmath, float64, with a leading run axis);
* :class:`Lemma8Terms`: the quantities of Lemma 8 and of its proof displays (31)–(36) at every step;
* ball-arithmetic GD with the logistic loss (python-flint ``arb``), for certified counterexamples.

Layers are W_1, …, W_L with W_k ∈ R^{d_k × d_{k−1}} and d_L = 1; the risk is the mean over the data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from flint import arb, arb_mat, fmpq

from numerics import backend as B
from numerics.certificates import to_fmpq
from numerics.descent import GrowingBallStep, StepRule, gradient_descent, max_layer_norm
from numerics.losses import Objective
from numerics.networks import Network, scalar_outputs
from theorems.layer_alignment.common import (
    Dataset,
    admissible_initialization,
    balanced_initialization,
    ds2,
    ds3,
    initialization_constant,
    initialization_constants,
    linear_network,
    risk,
    satisfies_assumption2,
)
from verify import Context, Profile

# -- claim text ------------------------------------------------------------------------------------------------------

# -- Assumption 4 and Lemma 5 -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LossRegularity:
    """Assumption 4: ℓ' is β-Lipschitz (``smoothness``) and |ℓ'| ≤ G (``lipschitz``)."""

    smoothness: float
    lipschitz: float


LOGISTIC = LossRegularity(smoothness=0.25, lipschitz=1.0)  # ℓ'' ≤ 1/4 (at 0), |ℓ'| < 1 (asm4 certifies both)


def ball_smoothness(depth: int, radius: float, regularity: LossRegularity = LOGISTIC) -> float:
    """β(R) = 2L²R^{2L−2}(β + G): Lemma 5's smoothness constant of the risk on B(R) (stated for R ≥ 1)."""
    return 2.0 * depth**2 * radius ** (2 * depth - 2) * (regularity.smoothness + regularity.lipschitz)


def largest_assumption5_step(depth: int, regularity: LossRegularity = LOGISTIC) -> float:
    """κ = min{1/β(1), 1}: no Assumption 5 step is larger, since β(R) grows with R and R_t ≥ 1."""
    return min(1.0 / ball_smoothness(depth, 1.0, regularity), 1.0)


def assumption5_rule(net: Network, theta0: np.ndarray, regularity: LossRegularity = LOGISTIC) -> GrowingBallStep:
    """η_t = min{1/β(R_t), 1} with R_{−1} = ⌈max(1, max_k ‖W_k(0)‖_F)⌉ grown by +1 until W(t), W(t+1) ∈ B(R_t)."""
    gauge = max_layer_norm(net)
    return GrowingBallStep(lambda radius: ball_smoothness(net.depth, radius, regularity), gauge,
                           radius=float(math.ceil(max(1.0, gauge(theta0)))), max_step=1.0, increment=1.0)


def ball_gauge(net: Network) -> Callable[[np.ndarray], np.ndarray]:
    """θ ↦ max_k ‖W_k‖_F, also for a leading axis of iterates (the smallest R with W ∈ B(R))."""
    return lambda theta: np.max(np.stack([np.linalg.norm(part, axis=-1) for part in net.split(theta)]), axis=0)


# -- traces of gradient descent ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DescentTrace:
    """Every iterate W(0..T), gradient ∇R(W(0..T−1)) and step η_0..η_{T−1} of one GD run."""

    net: Network
    theta: np.ndarray  # (T+1) × p
    gradients: np.ndarray  # T × p
    step_sizes: np.ndarray  # T
    risk: np.ndarray  # T+1
    radii: np.ndarray  # T radii R_t of a radius-growing step rule (Assumption 5); empty for constant steps

    @property
    def steps(self) -> int:
        return len(self.step_sizes)

    @property
    def clock(self) -> np.ndarray:
        """t_GF(t) = Σ_{s<t} η_s: the gradient-flow time that step t matches, t = 0..T."""
        return np.concatenate([[0.0], np.cumsum(self.step_sizes)])

    @cached_property
    def layers(self) -> list[np.ndarray]:
        """W_k(t) for k = 1..L, each (T+1) × d_k × d_{k−1}."""
        return self.net.matrices(self.theta)

    @cached_property
    def layer_gradients(self) -> list[np.ndarray]:
        """G_k(t) = ∂R/∂W_k at W(t), each T × d_k × d_{k−1}."""
        return self.net.matrices(self.gradients)

    @cached_property
    def gradient_norms_squared(self) -> np.ndarray:
        """‖∇R(W(t))‖² for t = 0..T−1."""
        return np.sum(self.gradients**2, axis=1)

    @cached_property
    def lower_grams(self) -> list[np.ndarray]:
        """P_k(t) = Σ_{τ<t} η_τ² G_k G_kᵀ (d_k × d_k), t = 0..T."""
        return [_cumulative(np.einsum("t,tij,tkj->tik", self.step_sizes**2, G, G)) for G in self.layer_gradients]

    @cached_property
    def upper_grams(self) -> list[np.ndarray]:
        """Q_k(t) = Σ_{τ<t} η_τ² G_kᵀ G_k (d_{k−1} × d_{k−1}), t = 0..T."""
        return [_cumulative(np.einsum("t,tji,tjk->tik", self.step_sizes**2, G, G)) for G in self.layer_gradients]

    @property
    def squared_step_error(self) -> np.ndarray:
        """S(t) = Σ_{τ<t} η_τ²‖∇R(W(τ))‖² = Σ_k tr P_k(t), the error term of Sec. 3, t = 0..T."""
        return np.concatenate([[0.0], np.cumsum(self.step_sizes**2 * self.gradient_norms_squared)])

    @property
    def step_weighted_gradients(self) -> np.ndarray:
        """Σ_{τ<t} η_τ‖∇R(W(τ))‖², t = 0..T (≤ 2(R(W(0)) − R(W(t))) when every step descends as in eq. (26))."""
        return np.concatenate([[0.0], np.cumsum(self.step_sizes * self.gradient_norms_squared)])


def _cumulative(increments: np.ndarray) -> np.ndarray:
    """Partial sums s_0 = 0, s_t = Σ_{τ<t} increments_τ along the first axis."""
    return np.concatenate([np.zeros((1, *increments.shape[1:])), np.cumsum(increments, axis=0)])


def descent_trace(objective: Objective, theta0: np.ndarray, steps: int, step_size: float | StepRule, *,
                  stop: Callable[[int, np.ndarray], bool] | None = None) -> DescentTrace:
    """Run ``steps`` GD updates (numerics.descent) keeping every iterate and gradient.

    ``stop(t, θ_t)`` ends the run with θ_t as the last iterate (e.g. at the first exit from a ball).
    """
    gradients: list[np.ndarray] = []

    def keep(t: int, theta: np.ndarray, descent: np.ndarray, eta: float) -> bool:
        if stop is not None and stop(t, theta):
            return True
        gradients.append(-descent)
        return False

    run = gradient_descent(objective, theta0, steps, step_size, callback=keep)
    radii = np.array(getattr(step_size, "radii", []), dtype=float)[: len(run.step_sizes)]  # a stop skips the last
    return DescentTrace(objective.model, run.theta, np.array(gradients).reshape(len(run.step_sizes), -1),
                        run.step_sizes, run.loss, radii)


def assumption5_trace(objective: Objective, theta0: np.ndarray, steps: int,
                      regularity: LossRegularity = LOGISTIC) -> DescentTrace:
    """GD under Assumption 5 (:func:`assumption5_rule`)."""
    return descent_trace(objective, theta0, steps, assumption5_rule(objective.model, theta0, regularity))


# -- the summed Gram identity, in any number system -------------------------------------------------------------


@dataclass(frozen=True)
class GramBalance:
    """Terms of the summed GD identity between layers k and k+1 after t steps (lists indexed k = 1..L−1).

    For any risk of the product W_L⋯W_1, W_{k+1}ᵀ ∂R/∂W_{k+1} = (∂R/∂W_k) W_kᵀ makes the first-order terms of
    one step cancel, leaving the step-size-squared ones: ``upper_change − sign·upper_squares`` equals
    ``lower_change − sign·lower_squares`` for sign = +1 (App. C prints sign = −1, i.e. "+ Q = … + P").
    """

    upper_change: list  # W_{k+1}(t)ᵀW_{k+1}(t) − W_{k+1}(0)ᵀW_{k+1}(0)
    lower_change: list  # W_k(t)W_k(t)ᵀ − W_k(0)W_k(0)ᵀ
    upper_squares: list  # Q_{k+1}(t)
    lower_squares: list  # P_k(t)

    def residual(self, k: int, sign: int) -> np.ndarray:
        """(upper_change − sign·Q_{k+1}) − (lower_change − sign·P_k) for the pair (k, k+1), k 1-based."""
        i = k - 1
        upper = self.upper_change[i] - sign * self.upper_squares[i]
        return upper - (self.lower_change[i] - sign * self.lower_squares[i])

    def scale(self, k: int) -> np.ndarray:
        """Size of the terms of the pair (k, k+1), per run: the largest entry of any of them, plus 1."""
        i = k - 1
        terms = (self.upper_change[i], self.lower_change[i], self.upper_squares[i], self.lower_squares[i])
        return 1.0 + np.max(np.stack([np.max(np.abs(B.to_float(np.asarray(T))), axis=(-2, -1)) for T in terms]),
                            axis=0)


def gram_balance(objective: Objective, theta0: np.ndarray, step_sizes: Sequence) -> GramBalance:
    """Run GD W(t+1) = W(t) − η_t ∇R(W(t)) in the number system of ``theta0`` and sum the Gram terms.

    ``theta0`` may be float64 (optionally runs × p), or an object array of python-flint rationals or mpmath
    numbers with the objective's data in the same system; the step sizes should be in that system too.
    """
    net = objective.model
    theta = theta0
    start = net.matrices(theta)
    upper_squares: list = [0] * (net.depth - 1)
    lower_squares: list = [0] * (net.depth - 1)
    for eta in step_sizes:
        gradient = objective.gradient(theta)
        G = net.matrices(gradient)
        for i in range(net.depth - 1):
            upper_squares[i] = upper_squares[i] + eta * eta * (B.transpose(G[i + 1]) @ G[i + 1])
            lower_squares[i] = lower_squares[i] + eta * eta * (G[i] @ B.transpose(G[i]))
        theta = theta - eta * gradient
    end = net.matrices(theta)
    upper = [B.transpose(end[i + 1]) @ end[i + 1] - B.transpose(start[i + 1]) @ start[i + 1]
             for i in range(net.depth - 1)]
    lower = [end[i] @ B.transpose(end[i]) - start[i] @ B.transpose(start[i]) for i in range(net.depth - 1)]
    return GramBalance(upper, lower, upper_squares, lower_squares)


def rational_array(values: np.ndarray | Sequence) -> np.ndarray:
    """Object array of python-flint rationals (floats at their binary value, strings as exact decimals)."""
    return np.vectorize(to_fmpq, otypes=[object])(np.asarray(values, dtype=object))


# -- Lemma 8 and its proof displays ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Lemma8Terms:
    """Singular values, alignments and Gram sums of a trace at every step t = 0..T (k is 1-based below)."""

    trace: DescentTrace

    @cached_property
    def _svd(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        return [np.linalg.svd(W) for W in self.trace.layers]

    @property
    def depth(self) -> int:
        return self.trace.net.depth

    def sigma(self, k: int) -> np.ndarray:
        """σ_k(t) = ‖W_k(t)‖_2."""
        return self._svd[k - 1][1][:, 0]

    def left(self, k: int) -> np.ndarray:
        return self._svd[k - 1][0][:, :, 0]

    def right(self, k: int) -> np.ndarray:
        return self._svd[k - 1][2][:, 0, :]

    def rank_one_excess(self, k: int) -> np.ndarray:
        """‖W_k‖_F² − ‖W_k‖_2² = Σ_{i≥2} σ_i² (no cancellation)."""
        return np.sum(self._svd[k - 1][1][:, 1:] ** 2, axis=1)

    def frobenius_squared(self, k: int) -> np.ndarray:
        return np.sum(self.trace.layers[k - 1] ** 2, axis=(1, 2))

    def alignment_squared(self, k: int) -> np.ndarray:
        """⟨v_{k+1}, u_k⟩² (sign-free)."""
        return np.sum(self.right(k + 1) * self.left(k), axis=1) ** 2

    def trace_p(self, k: int) -> np.ndarray:
        return np.trace(self.trace.lower_grams[k - 1], axis1=1, axis2=2)

    def norm_p(self, k: int) -> np.ndarray:
        return np.linalg.eigvalsh(self.trace.lower_grams[k - 1])[:, -1]

    def norm_q(self, k: int) -> np.ndarray:
        return np.linalg.eigvalsh(self.trace.upper_grams[k - 1])[:, -1]

    def trace_q(self, k: int) -> np.ndarray:
        return np.trace(self.trace.upper_grams[k - 1], axis1=1, axis2=2)

    # constants of the initialization
    @cached_property
    def initial_layers(self) -> list[np.ndarray]:
        return [W[0] for W in self.trace.layers]

    @cached_property
    def D(self) -> float:
        return initialization_constant(self.initial_layers)

    @cached_property
    def D_per_layer(self) -> np.ndarray:
        """D_k (eq. (8)), k = 1..L."""
        return initialization_constants(self.initial_layers)

    def initial_spectral_squared(self, k: int) -> float:
        return float(np.linalg.norm(self.initial_layers[k - 1], 2) ** 2)

    def gram_gap_norm(self, k: int) -> float:
        """‖A_{k,k+1}‖_2 with A_{k,k+1} = W_k(0)W_k(0)ᵀ − W_{k+1}(0)ᵀW_{k+1}(0)."""
        lower, upper = self.initial_layers[k - 1], self.initial_layers[k]
        return float(np.linalg.norm(lower @ lower.T - upper.T @ upper, 2))

    @property
    def initial_risk(self) -> float:
        return float(self.trace.risk[0])

    # Lemma 8 (a) and (b): bound − measured, per step, for a given extra term
    def excess_slack(self, k: int, bound: np.ndarray | float) -> np.ndarray:
        """bound − (‖W_k‖_F² − ‖W_k‖_2²): ≥ 0 where (a) holds with this bound."""
        return bound - self.rank_one_excess(k)

    def alignment_slack(self, k: int, extra: np.ndarray | float) -> np.ndarray:
        """⟨v_{k+1},u_k⟩² − (1 − (D + ‖W_{k+1}(0)‖_2² + ‖W_k(0)‖_2² + extra)/σ_{k+1}²): ≥ 0 where (b) holds."""
        numerator = self.D + self.initial_spectral_squared(k + 1) + self.initial_spectral_squared(k) + extra
        return self.alignment_squared(k) - (1.0 - numerator / self.sigma(k + 1) ** 2)

    def sharp_excess_bound(self, k: int) -> np.ndarray:
        """D_k + Σ_{j=k}^{L−1} (tr P_j − tr Q_{j+1} + ‖Q_{j+1}‖_2): summing the corrected (31) and (32)."""
        extra = sum((self.trace_p(j) - self.trace_q(j + 1) + self.norm_q(j + 1) for j in range(k, self.depth)),
                    np.zeros(self.trace.steps + 1))
        return self.D_per_layer[k - 1] + extra

    def sharp_alignment_extra(self, k: int) -> np.ndarray:
        """Σ_{j=k+1}^{L−1} tr P_j + ‖P_k‖_2 + ‖Q_{k+1}‖_2: the extra term of (b) from the corrected displays."""
        tail = sum((self.trace_p(j) for j in range(k + 1, self.depth)), np.zeros(self.trace.steps + 1))
        return tail + self.norm_p(k) + self.norm_q(k + 1)

    # the proof displays; ``swapped`` exchanges P_k and Q_{k+1} as the printed displays do
    def _pair(self, k: int, swapped: bool) -> tuple[np.ndarray, np.ndarray]:
        """(‖P_k‖_2, ‖Q_{k+1}‖_2), or the reverse when ``swapped``."""
        p, q = self.norm_p(k), self.norm_q(k + 1)
        return (q, p) if swapped else (p, q)

    def display31_slack(self, k: int, swapped: bool) -> np.ndarray:
        """σ_k² − (σ_{k+1}² − ‖A_{k,k+1}‖_2 − ‖Q_{k+1}‖_2) (printed: ‖P_k‖_2)."""
        _, q = self._pair(k, swapped)
        return self.sigma(k) ** 2 - (self.sigma(k + 1) ** 2 - self.gram_gap_norm(k) - q)

    def display32_residual(self, k: int, swapped: bool) -> np.ndarray:
        """F_k² − (F_{k+1}² + F_k(0)² − F_{k+1}(0)² + tr P_k − tr Q_{k+1}) (printed: − tr P_k + tr Q_{k+1})."""
        sign = -1.0 if swapped else 1.0
        initial = self.frobenius_squared(k)[0] - self.frobenius_squared(k + 1)[0]
        return self.frobenius_squared(k) - (self.frobenius_squared(k + 1) + initial
                                            + sign * (self.trace_p(k) - self.trace_q(k + 1)))

    def display33_slack(self, k: int, swapped: bool) -> np.ndarray:
        """u_kᵀW_{k+1}ᵀW_{k+1}u_k − (σ_k² − ‖W_k(0)‖_2² − ‖P_k‖_2) (printed: ‖Q_{k+1}‖_2)."""
        p, _ = self._pair(k, swapped)
        image = np.einsum("tij,tj->ti", self.trace.layers[k], self.left(k))
        return np.sum(image**2, axis=1) - (self.sigma(k) ** 2 - self.initial_spectral_squared(k) - p)

    def display36_slack(self, k: int, swapped: bool) -> np.ndarray:
        """σ_k² − (σ_{k+1}² − ‖W_{k+1}(0)‖_2² − ‖Q_{k+1}‖_2) (printed: ‖P_k‖_2)."""
        _, q = self._pair(k, swapped)
        return self.sigma(k) ** 2 - (self.sigma(k + 1) ** 2 - self.initial_spectral_squared(k + 1) - q)


# -- ball-arithmetic gradient descent (logistic loss) -------------------------------------------------------------


def ball_logistic_descent(net: Network, Z: np.ndarray, theta0: np.ndarray, eta: fmpq, steps: int
                          ) -> list[np.ndarray]:
    """Enclosures (arb balls) of GD iterates W(0..steps) for the mean logistic risk of the points z_i = rows of Z.

    ``Z``, ``theta0`` and ``eta`` are exact rationals; call inside ``flint.ctx.workprec``. Every ball contains
    the exact real iterate, since each arb operation encloses its exact result.
    """
    Zb = np.vectorize(arb, otypes=[object])(Z)
    theta = np.vectorize(arb, otypes=[object])(theta0)
    n = Z.shape[0]
    iterates = [theta]
    for _ in range(steps):
        margins = scalar_outputs(net, theta, Zb)
        weights = np.array([1 / (n * (1 + q.exp())) for q in margins], dtype=object)  # −ℓ'(q_i)/n
        theta = theta + arb(eta) * net.vjp(theta, Zb, weights[:, None])
        iterates.append(theta)
    return iterates


def ball_logistic_risk(net: Network, Z: np.ndarray, theta: np.ndarray) -> arb:
    """(1/n) Σ_i log(1 + e^{−⟨w_prod, z_i⟩}) on balls."""
    margins = scalar_outputs(net, theta, np.vectorize(arb, otypes=[object])(Z))
    return sum(((1 + (-q).exp()).log() for q in margins), arb(0)) / Z.shape[0]


def _ball_gram(W: np.ndarray, side: str) -> arb_mat:
    """WᵀW (``side="columns"``) or WWᵀ (``side="rows"``) of an object array of balls or rationals."""
    M = arb_mat([[arb(v) for v in row] for row in W.tolist()])
    return M.transpose() * M if side == "columns" else M * M.transpose()


def _symmetric2_eigen(M: arb_mat) -> tuple[arb, arb]:
    """(λ_min, λ_max) of a symmetric 2×2 ball matrix: h ∓ r with h = tr/2, r = √(h² − det) ≥ 0."""
    half = (M[0, 0] + M[1, 1]) / 2
    root = (half * half - (M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0])).nonnegative_part().sqrt()
    return half - root, half + root


def ball_rank_one_excess(W: np.ndarray) -> arb:
    """‖W‖_F² − ‖W‖_2² = σ_2² on balls, for a matrix with one or two rows or columns (0 when one)."""
    rows, cols = W.shape
    if min(rows, cols) == 1:
        return arb(0)
    if min(rows, cols) != 2:
        raise ValueError("the closed form covers matrices with at most two rows or columns")
    low, _ = _symmetric2_eigen(_ball_gram(W, "columns" if cols == 2 else "rows"))
    return low


def ball_symmetric_norm(M: arb_mat) -> arb:
    """‖M‖_2 of a symmetric 1×1 or 2×2 ball matrix: |h| + r in the notation of the eigenvalues h ∓ r."""
    if M.nrows() == 1:
        return abs(M[0, 0])
    low, high = _symmetric2_eigen(M)
    return (abs(low + high) + (high - low)) / 2


def ball_initialization_constant(layers: Sequence[np.ndarray]) -> arb:
    """D on balls, for exact or ball layers whose adjacent Gram differences are at most 2×2."""
    squares = [_ball_gram(W, "rows").trace() for W in layers]
    largest = squares[0]
    for value in squares[1:]:
        largest = largest.max(value)
    gaps = [ball_symmetric_norm(_ball_gram(layers[k], "rows") - _ball_gram(layers[k + 1], "columns"))
            for k in range(len(layers) - 1)]
    return largest - squares[-1] + sum(gaps, arb(0))


# -- the runs the claims share -------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Case:
    """A labelled logistic-risk problem and an initialization satisfying Assumption 2."""

    label: str
    data: Dataset
    objective: Objective
    theta0: np.ndarray
    steps: int  # the run length the profile asks for

    def assumption5(self) -> DescentTrace:
        return assumption5_trace(self.objective, self.theta0, self.steps)


def balanced_admissible_initialization(objective: Objective, rng: np.random.Generator, scale: float,
                                       max_draws: int = 100) -> np.ndarray:
    """A balanced rank-one initialization (D = 0) satisfying Assumption 2, redrawn until it does."""
    net = objective.model
    widths = [net.d_in] + [layer.shape[0] for layer in net.layers]
    for _ in range(max_draws):
        theta = net.join(balanced_initialization(widths, rng, scale))
        if satisfies_assumption2(objective, theta):
            return theta
    raise RuntimeError(f"no balanced draw of scale {scale} satisfied Assumption 2 in {max_draws} tries")


def standard_cases(ctx: Context, quick_steps: int = 3000) -> list[Case]:
    """Logistic-risk cases on the canonical data, from starts satisfying Assumption 2.

    ``quick``: DS2 [2, 3, 1] and DS3 [3, 3, 3, 1] from starts inside B(1) (so R_0 = 1), runs of ``quick_steps`` and
    2/3 of it. Other profiles: the same two, six and four times longer, plus three starts of larger norm (one of
    them balanced, D = 0), four times longer.
    """
    def case(label: str, data: Dataset, widths: tuple[int, ...], scale: float, steps: int, *,
             balanced: bool = False, unit_ball: bool = False) -> Case:
        objective = risk(linear_network(widths), data, "logistic")
        rng, gauge = ctx.rng(f"init {label}"), max_layer_norm(objective.model)
        while True:
            theta0 = (balanced_admissible_initialization(objective, rng, scale) if balanced
                      else admissible_initialization(objective, rng, scale))
            if not unit_ball or gauge(theta0) <= 1.0:
                break
        return Case(f"{data.name} {list(widths)}{', balanced' if balanced else ''}, scale {scale}", data,
                    objective, theta0, steps)

    cases = [case("DS2 shallow", ds2(), (2, 3, 1), 0.3, ctx.pick(quick_steps, 6 * quick_steps), unit_ball=True),
             case("DS3 deep", ds3(), (3, 3, 3, 1), 0.3, ctx.pick(2 * quick_steps // 3, 4 * quick_steps),
                  unit_ball=True)]
    if ctx.profile is not Profile.QUICK:
        cases += [case("DS2 narrow deep", ds2(), (2, 2, 2, 1), 1.0, 4 * quick_steps),
                  case("DS3 wide", ds3(), (3, 4, 4, 1), 0.5, 4 * quick_steps),
                  case("DS3 balanced", ds3(), (3, 3, 3, 1), 0.8, 4 * quick_steps, balanced=True)]
    return cases


@dataclass
class GaugeRadiusStep:
    """η_t = min{1/β(R_t), 1} with R_t = max(R_{t−1}, max_k ‖W_k(t)‖_F): Assumption 5 as printed, read literally.

    It meets the printed conditions (W(t) ∈ B(R_t); R_{t+1} = R_t whenever W(t+1) ∈ B(R_t)) but never looks at
    W(t+1), which may leave B(R_t): the gap of the printed Assumption 5 (align.asm5) that the implementable rule closes.
    """

    smoothness: Callable[[float], float]
    gauge: Callable[[np.ndarray], float]
    radius: float
    radii: list[float] = field(default_factory=list)

    def __call__(self, t: int, theta: np.ndarray, descent: np.ndarray) -> float:
        self.radius = max(self.radius, self.gauge(theta))
        self.radii.append(self.radius)
        return min(1.0 / self.smoothness(self.radius), 1.0)
