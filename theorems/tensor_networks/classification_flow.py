"""Paper 002, classification (Sec. 4, App. C–E): flows far into the separable regime and their references.

* :func:`run_to_margins` integrates gradient flow on the exponential loss with the engine's loss clock and real
  time left untracked (``t_end = inf``), stopping at prescribed levels Q = −log L of the log-loss. Directions
  converge like a power of 1/Q, and Q reaches 1e8 in a few hundred steps, where real time would be e^(1e8).
* references: max-margin problems in the transformed coordinates ρ = S^{-T}β of Assumption 1 (an LP for real
  S, an SOCP for complex S, a QP for the ℓ2 margin of FC networks), and for L ≥ 3 the stationarity residual of
  the nonconvex ℓ_{2/L} problem with the paper's local subdifferential.
* initial directions meeting the λ-conditions of Theorems 2–3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.optimize
from scipy.special import softmax

from numerics.convex import complex_l1_blocks, group_norm_problem, max_margin
from numerics.flows import FlowStatus, GradientFlow, log_loss_below
from numerics.losses import Objective
from numerics.metrics import angle
from numerics.tensor_network import LinearTensorNetwork
from numerics.tolerances import above, at_least, at_most, below
from numerics.trends import fit_rate
from theorems.tensor_networks.common import Decomposition
from verify import Decision, criterion

# -- flows at log-loss levels ---------------------------------------------------------------------------------
LEVEL_RTOL = 1e-9  # a recorded level within this of its target counts as reached (levels are ≥ ¼ decade apart)


@dataclass(frozen=True)
class MarginPath:
    """Gradient-flow states at the log-loss levels Q = −log L (the first row is θ(0))."""

    levels: np.ndarray  # Q at each row (row 0: −log L(θ(0)))
    thetas: np.ndarray
    clock: np.ndarray  # the loss clock s = ∫ L dt accumulated up to each row
    nfev: int
    completed: bool  # every level was reached

    @property
    def final(self) -> np.ndarray:
        return self.thetas[-1]

    def reached(self, level: float) -> bool:
        """Whether the flow got to Q = ``level``: the last recorded Q is −log L where the stop event fired, which
        can fall short of its level by rounding (99999.99999999997 for 1e5), hence the relative slack 1e-9."""
        return at_least(self.levels[-1], level * (1 - LEVEL_RTOL))


def log_levels(start: float, stop: float, per_decade: int = 2) -> np.ndarray:
    """Levels Q spread evenly in log Q (the scale on which directions converge)."""
    count = round(float(np.log10(stop / start)) * per_decade) + 1
    return np.logspace(np.log10(start), np.log10(stop), count)


def run_to_margins(model: LinearTensorNetwork, X: np.ndarray, y: np.ndarray, theta0: np.ndarray,
                   levels: Sequence[float], rtol: float = 1e-10, max_evaluations: int = 100_000) -> MarginPath:
    """Exponential-loss gradient flow from θ0, recorded where −log L first reaches each level; a level not reached
    within ``max_evaluations`` right-hand-side evaluations ends the path (``completed`` False)."""
    objective = Objective(model, X, y, "exponential")
    flow = GradientFlow(objective)
    theta, clock, nfev = np.asarray(theta0, dtype=float), 0.0, 0
    rows, reached, clocks = [theta], [-float(objective.log_value(theta))], [0.0]
    for level in levels:
        if level <= reached[-1]:
            continue
        trajectory = flow.solve(theta, np.inf, clock="loss", method="LSODA", rtol=rtol,
                                stop=[log_loss_below(objective, -level)], max_evaluations=max_evaluations)
        nfev += trajectory.nfev
        if trajectory.status is not FlowStatus.STOPPED:
            return MarginPath(np.array(reached), np.array(rows), np.array(clocks), nfev, False)
        theta, clock = trajectory.final, clock + float(trajectory.s[-1])
        rows.append(theta)
        reached.append(-float(objective.log_value(theta)))
        clocks.append(clock)
    return MarginPath(np.array(reached), np.array(rows), np.array(clocks), nfev, True)


def residual_direction(model: LinearTensorNetwork, X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """u = Xᵀr/‖Xᵀr‖ with r_i = −y_i e^{−q_i}, computed from the softmax of −q (no underflow)."""
    margins = y * (X @ model.beta(theta))
    u = -X.T @ (softmax(-margins) * y)
    return u / np.linalg.norm(u)


# -- finite-time proxies of limits -----------------------------------------------------------------------------
RATE_CEILING = -0.1  # a proxy must visibly decay, at least like Q^(−0.1)
LOG_RATE_CEILING = -0.5  # or, for a proxy that fades like 1/log Q, at least like (ln Q)^(−1/2)
FIT_FROM = 10.0


@dataclass(frozen=True)
class Decay:
    """A proxy read at the last level and its fitted power law in Q."""

    final: float
    exponent: float
    holds: bool
    detail: str


def power_decay(levels: np.ndarray, proxy: np.ndarray, tolerance: float, ceiling: float = RATE_CEILING,
                fit_from: float = FIT_FROM, reached: bool = True, what: str = "proxy", clock: str = "Q") -> Decay:
    """proxy ≤ tolerance at the last level and proxy ~ g^p with p ≤ ``ceiling`` over Q ≥ ``fit_from``, where g = Q
    (``clock="Q"``) or ln Q (``clock="ln Q"``, for proxies that fade only logarithmically); the detail names every
    figure that decided it, and ``reached`` (the levels the flow had to reach) is part of it."""
    levels, proxy = np.asarray(levels, dtype=float), np.asarray(proxy, dtype=float)
    keep = levels >= fit_from
    transform = {"Q": "identity", "ln Q": "log"}[clock]
    exponent = fit_rate(levels[keep], np.maximum(proxy[keep], 1e-300), transform).exponent
    final = float(proxy[-1])
    small = at_most(final, tolerance)
    holds = bool(reached and small and exponent <= ceiling)
    detail = (f"{what} {final:.3g} at Q = {levels[-1]:.2g} ({'≤' if small else '>'} {tolerance:g}), "
              f"fitted exponent of {clock} {exponent:.3g} over Q ≥ {fit_from:g} "
              f"({'≤' if exponent <= ceiling else '>'} {ceiling:g})"
              + ("" if reached else "; the flow stalled before the last level"))
    return Decay(final, float(exponent), holds, detail)


@criterion("angle(β(Q), reference) ≤ tolerance at the last level Q, decaying like Q^p with p ≤ ceiling")
def direction_limit(levels: np.ndarray, betas: np.ndarray, reference: np.ndarray, tolerance: float,
                    reached: bool = True, ceiling: float = RATE_CEILING, fit_from: float = FIT_FROM) -> Decision:
    """A finite-time proxy of "β converges in direction to ``reference``"."""
    angles = np.array([angle(b, reference) for b in betas])
    decay = power_decay(levels, angles, tolerance, ceiling, fit_from, reached, "angle (rad)")
    return Decision(decay.holds, decay.detail, {"final_angle": decay.final, "fitted_exponent": decay.exponent,
                                                "tolerance": tolerance, "last_level": float(levels[-1]),
                                                "levels_reached": bool(reached)})


# -- convex and stationarity references ---------------------------------------------------------------------
def l2_reference(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The ℓ2 max-margin classifier (hard-margin SVM without intercept), certified."""
    reference = max_margin(X, y, "l2")
    if reference.status != "certified":
        raise RuntimeError(f"ℓ2 reference not certified: {reference.message}")
    return reference.solution


@dataclass(frozen=True)
class Stationarity:
    """KKT residual of min ‖ρ‖_{2/L} s.t. y_i x_iᵀ S^T ρ ≥ 1 at a direction ρ (scaled to minimum margin 1)."""

    residual: float  # ‖Σ_i μ_i g_i − ∂‖ρ‖‖ / ‖∂‖ρ‖‖ on the support, best μ ≥ 0 on the active set
    multipliers: np.ndarray
    active: tuple[int, ...]
    support: tuple[int, ...]


def lp_stationarity(rho: np.ndarray, decomposition: Decomposition, X: np.ndarray, y: np.ndarray, depth: int,
                    support: Sequence[int], active_tol: float = 1e-3) -> Stationarity:
    """The paper's KKT conditions (App. D.1.2) for ℓ_{2/L}: on supp ρ, (2/L)|ρ_j|^{2/L−1} e^{i arg ρ_j} equals
    [S^* Σ_i μ_i y_i x_i]_j with μ ≥ 0 supported on the active margins (up to scaling).

    Active margins are those within ``active_tol`` of the minimum; ``support`` is the caller's (read off the flow's
    settled directions); the multipliers come from NNLS on the real and imaginary parts.
    """
    margins = y * (X @ (decomposition.S.T @ rho)).real
    rho = rho / margins.min()
    margins = margins / margins.min()
    active = tuple(int(i) for i in np.flatnonzero(at_most(margins, 1 + active_tol)))
    magnitude = np.abs(rho)
    support = tuple(support)
    p = 2.0 / depth
    target = p * magnitude[list(support)] ** (p - 1) * np.exp(1j * np.angle(rho[list(support)]))
    columns = (decomposition.S.conj() @ (y[:, None] * X).T)[np.ix_(list(support), list(active))]
    stacked_columns = np.vstack([columns.real, columns.imag])
    stacked_target = np.concatenate([target.real, target.imag])
    mu, misfit = scipy.optimize.nnls(stacked_columns, stacked_target)
    multipliers = np.zeros(len(y))
    multipliers[list(active)] = mu
    return Stationarity(float(misfit / np.linalg.norm(stacked_target)), multipliers, active, support)


# -- data and initial directions -------------------------------------------------------------------------------
DATA_GAP = 0.2  # |⟨x_i, u⟩| ≥ this for the random unit teacher u of separable_data (stated where the data are)
DATA_NOTE = f"Gaussian points x_i with |⟨x_i, u⟩| ≥ {DATA_GAP:g}, labelled by a random unit teacher u"


def separable_data(rng: np.random.Generator, n: int, d: int, gap: float = DATA_GAP) -> tuple[np.ndarray, np.ndarray]:
    """n Gaussian points labelled by a random teacher, |⟨x_i, u⟩| ≥ gap (so the data are separable)."""
    teacher = rng.normal(size=d)
    teacher /= np.linalg.norm(teacher)
    rows = []
    while len(rows) < n:
        x = rng.normal(size=d)
        if at_least(abs(x @ teacher), gap):
            rows.append(x)
    X = np.array(rows)
    return X, np.sign(X @ teacher)


def lambda_condition(decomposition: Decomposition, parts: Sequence[np.ndarray], small: int = -1) -> float:
    """λ = min over l ≠ small and j of |[U_l^T v̄_l]_j|² − |[U_small^T v̄_small]_j|² (Theorem 2, Remark 2)."""
    etas = np.abs(np.array(decomposition.transformed(parts))) ** 2
    return float(np.min(np.delete(etas, small, axis=0) - etas[small]))


def decomposable_init(decomposition: Decomposition, rng: np.random.Generator, small: int = -1,
                      small_scale: float = 0.3, minimum_lambda: float = 0.05,
                      balanced: bool = False) -> list[np.ndarray]:
    """Random real initial directions with λ ≥ ``minimum_lambda``: Gaussian layers, the ``small`` one scaled down.

    ``balanced``: the other layers' transformed coordinates η_l = U_l^T v̄_l get unit modulus (their phases kept, so a
    real v̄_l stays real), which makes the conserved |η_l,j|² − |η_small,j|² nearly equal across j. For L = 2 the
    flow's bias is an ℓ1 norm weighted through the logarithms of these quantities, an error that fades only like
    1/log Q; equal quantities remove most of it within the levels a flow can reach."""
    sizes = [U.shape[0] for U in decomposition.U]
    while True:
        parts = [rng.normal(size=k) for k in sizes]
        if balanced:
            for index, U in enumerate(decomposition.U):
                if index != small % len(parts):
                    eta = U.T @ parts[index]
                    parts[index] = np.linalg.solve(U.T, eta / np.abs(eta)).real
        parts[small] *= small_scale
        if lambda_condition(decomposition, parts, small) >= minimum_lambda:
            return parts


Problems = Mapping[str, tuple[np.ndarray, str]]  # name → (T, "l1" | "l2"): min ‖Tβ‖ s.t. y_i x_iᵀβ ≥ 1


def margin_gaps(X: np.ndarray, y: np.ndarray, transform: np.ndarray, norm: str, betas: np.ndarray) -> np.ndarray:
    """1 − min_i y_i x_iᵀβ / (‖Tβ‖ · optimal margin) for each β: 0 exactly on the solutions of min ‖Tβ‖ s.t.
    y_i x_iᵀβ ≥ 1 (``norm="l1"``: ℓ1 of the complex entries, the optimal margin from the SOCP with primal and dual
    solved; ``"l2"`` with T real invertible: the certified SVM in the coordinates Tβ). Raises RuntimeError when the
    reference problem is not solved."""
    if norm == "l1":
        blocks = complex_l1_blocks(transform)
        reference = group_norm_problem(X, y, blocks)
        if reference.status != "solved":
            raise RuntimeError(f"SOCP status {reference.status}")
        optimal = reference.objective
    else:
        blocks = [np.asarray(transform, dtype=float)]
        svm = max_margin(X @ np.linalg.inv(blocks[0]), y, "l2")
        if svm.status != "certified":
            raise RuntimeError(f"SVM status {svm.status}")
        optimal = float(np.linalg.norm(svm.solution))
    return np.array([1.0 - float(np.min(y * (X @ b))) * optimal / sum(float(np.linalg.norm(B @ b)) for B in blocks)
                     for b in np.atleast_2d(betas)])


@dataclass(frozen=True)
class L1Instance:
    """Separable data with a certified ℓ1-type max-margin reference in the transformed coordinates."""

    X: np.ndarray
    y: np.ndarray
    reference: np.ndarray  # β* = S^T ρ*
    dual_gap: float  # 1 − max over zero coordinates of the dual certificate |u_j| (1 if ρ* has none)
    control_gaps: Mapping[str, float]  # margin gap of β* in each other problem (≥ ``control_gap``)


def l1_instance(rng: np.random.Generator, decomposition: Decomposition, n: int, minimum_gap: float = 0.3,
                others: Problems | None = None, control_gap: float = 0.06, minimum_share: float = 0.1) -> L1Instance:
    """Random separable data whose transformed ℓ1 max-margin problem has a dual certificate with margin
    ``minimum_gap`` on the zero coordinates of ρ* (strict complementarity, read off the solver's dual), nonzero
    coordinates of ρ* at least ``minimum_share`` of the largest (a support coordinate near 0 is approached only like
    1/log Q: the flow sets the ratios of support coordinates through the logarithms of their moduli), and whose
    solution β* has a margin gap of at least ``control_gap`` in each of the ``others`` problems (so that a test
    against them tells them apart: 3× the margin tolerance 2e-2; an angle between the solutions does not bound it).

    Off-support coordinates of the gradient-flow direction decay like Q^{−gap}, so the gap sets how fast the
    finite-time proxy can converge; instances are drawn until every condition holds.
    """
    S = decomposition.S
    d = S.shape[1]
    while True:
        X, y = separable_data(rng, n, d)
        if np.isrealobj(S) or not np.any(S.imag):
            features = X @ S.real.T
            solution = max_margin(features, y, "l1")
            if solution.status != "certified":
                continue
            u = (y[:, None] * features).T @ solution.duals
            off = np.setdiff1d(np.arange(S.shape[0]), solution.support)
            gap = 1.0 - float(np.max(np.abs(u[off]), initial=0.0))
            coefficients = np.abs(solution.solution)
            share = float(np.min(coefficients[list(solution.support)]) / np.max(coefficients))
            reference = S.real.T @ solution.solution
        else:
            transform = np.linalg.inv(S).T
            solution = group_norm_problem(X, y, complex_l1_blocks(transform))
            if solution.status != "solved" or above(abs(solution.gap), 1e-8):
                continue
            coefficients = np.abs(transform @ solution.solution)
            off = below(coefficients, 1e-7 * coefficients.max())
            gap = 1.0 - float(np.max(solution.block_duals[off], initial=0.0))
            share = float(np.min(coefficients[~off]) / coefficients.max())
            reference = solution.solution
        if below(gap, minimum_gap) or below(share, minimum_share):
            continue
        try:
            gaps = {name: float(margin_gaps(X, y, T, norm, reference)[0]) for name, (T, norm) in (others or {}).items()}
        except RuntimeError:
            continue
        if all(at_least(value, control_gap) for value in gaps.values()):
            return L1Instance(X, y, reference, gap, gaps)


def init_with_beta(decomposition: Decomposition, beta: np.ndarray, scale: float) -> list[np.ndarray]:
    """Real directions with β(v̄) = ``beta``: η_l = scale·1 for l < L and η_L = S^(−T)β / scale^(L−1).

    Needs square S and U_l (m = d = k_l), and transforms that map real vectors to conjugate-symmetric ones (as the
    DFT does), so that every v̄_l = (U_l^T)^(−1) η_l is real. λ = scale² − max_j |η_L,j|² is positive for a large
    enough scale.
    """
    depth = decomposition.degree
    etas = [np.full(decomposition.m, scale, dtype=complex) for _ in range(depth - 1)]
    etas.append(np.linalg.solve(decomposition.S.T, beta.astype(complex)) / scale ** (depth - 1))
    parts = [np.linalg.solve(U.T, eta) for U, eta in zip(decomposition.U, etas)]
    if above(max(float(np.max(np.abs(v.imag))) for v in parts), 1e-10):
        raise ValueError("these transforms do not give real directions")
    return [v.real for v in parts]
