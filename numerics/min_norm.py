"""Minimum-norm parameters of a homogeneous model under output constraints (local solutions).

For a model Φ (a :class:`~numerics.losses.Model` with scalar output, positively homogeneous of degree L) and
data (X, y):

* ``"interpolation"``: min ‖θ‖²  subject to  Φ(θ; x_i) = y_i  for all i;
* ``"margin"``:        min ‖θ‖²  subject to  y_i Φ(θ; x_i) ≥ 1  for all i.

Both are nonconvex for networks: :func:`minimum_norm` returns a local solution near its start (callers use
several starts) together with the measures a caller needs to decide whether it is one: the constraint violation
and the first-order (KKT) residual.

Methods. Equality-constrained SQP (SLSQP) breaks down on ReLU networks whose constraint Jacobian is
rank-deficient (dead or zero-padded units), so interpolation uses the Powell–Hestenes–Rockafellar augmented
Lagrangian A(θ) = ‖θ‖² + λᵀc + (μ/2)‖c‖² with c = Φ − y, minimized by L-BFGS-B, λ ← λ + μc, μ raised along
``penalties``. For margins the start is first made feasible, which homogeneity makes cheap (a start that
separates the data is rescaled to minimum margin 1; one that does not is trained on the logistic loss by L-BFGS
first), and SLSQP then keeps the inequalities satisfied while it decreases the norm.

Threads. The problems are tiny, so BLAS runs single-threaded inside :func:`minimum_norm`: more threads only add
overhead (10× slower SLSQP on two busy cores) and make the iterates depend on the thread count.

KKT residual. With the multipliers refitted at the end (least squares for equalities, nonnegative least squares
over the constraints within ``active_tol`` of 1 for margins): ‖2θ − Σ λ_i ∇c_i‖ / ‖2θ‖.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.optimize

from numerics.compiled_fields import margin_functions
from numerics.losses import Model, Objective
from numerics.networks import scalar_outputs
from numerics.threads import one_thread

Constraint = Literal["interpolation", "margin"]

DEFAULT_PENALTIES = (1e1, 1e2, 1e3, 1e4, 1e5, 1e6)
SEPARATION_ITERATIONS = 300  # L-BFGS iterations on the logistic loss for a start that misclassifies


@dataclass(frozen=True)
class MinNormResult:
    """A local minimum-norm solution with its constraint violation, refitted multipliers and cost."""

    theta: np.ndarray
    squared_norm: float  # ‖θ‖²
    violation: float  # max_i |Φ(θ; x_i) − y_i| (interpolation) or max(0, max_i 1 − y_iΦ(θ; x_i)) (margin)
    multipliers: np.ndarray  # refitted λ (λ ≥ 0 and zero off the active set for margins)
    stationarity: float  # ‖2θ − Σ λ_i ∇c_i‖ / ‖2θ‖ (inf at θ = 0)
    evaluations: int  # objective evaluations of the solver (its cost)


def _residuals(model: Model, theta: np.ndarray, X: np.ndarray, y: np.ndarray, constraint: Constraint) -> np.ndarray:
    """c(θ) = Φ − y (interpolation) or g(θ) = yΦ − 1 (margin)."""
    outputs = scalar_outputs(model, theta, X)
    return outputs - y if constraint == "interpolation" else y * outputs - 1.0


def _signs(y: np.ndarray, constraint: Constraint) -> np.ndarray:
    """∇c_i = sign_i ∇Φ(θ; x_i)."""
    return np.ones_like(y) if constraint == "interpolation" else y


def _augmented_lagrangian(model: Model, X: np.ndarray, y: np.ndarray, theta: np.ndarray,
                          penalties: Sequence[float], inner_iterations: int) -> tuple[np.ndarray, int]:
    lam = np.zeros(len(y))
    evaluations = 0
    for mu in penalties:
        def augmented(t: np.ndarray, mu: float = mu, lam: np.ndarray = lam) -> tuple[float, np.ndarray]:
            c = scalar_outputs(model, t, X) - y
            return float(t @ t + lam @ c + 0.5 * mu * c @ c), 2 * t + model.vjp(t, X, (lam + mu * c)[:, None])

        solution = scipy.optimize.minimize(augmented, theta, jac=True, method="L-BFGS-B",
                                           options={"maxiter": inner_iterations, "gtol": 1e-12, "ftol": 1e-16})
        theta, evaluations = solution.x, evaluations + int(solution.nfev)
        lam = lam + mu * (scalar_outputs(model, theta, X) - y)
    return theta, evaluations


def _feasible_margin_start(model: Model, X: np.ndarray, y: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, int]:
    """θ rescaled to minimum margin 1, after logistic-loss training if it does not separate the data."""
    evaluations = 0
    if np.min(_residuals(model, theta, X, y, "margin")) <= -1.0:
        logistic = Objective(model, X, y, "logistic")
        solution = scipy.optimize.minimize(lambda t: (float(logistic.value(t)), logistic.gradient(t)), theta,
                                           jac=True, method="L-BFGS-B", options={"maxiter": SEPARATION_ITERATIONS})
        theta, evaluations = solution.x, int(solution.nfev)
    q_min = 1.0 + float(np.min(_residuals(model, theta, X, y, "margin")))
    return (theta * q_min ** (-1.0 / model.degree) if q_min > 0 else theta), evaluations


def _sequential_quadratic(model: Model, X: np.ndarray, y: np.ndarray, theta: np.ndarray,
                          max_iterations: int) -> tuple[np.ndarray, int]:
    margins, jacobian = margin_functions(model, X, y)
    constraints = [{"type": "ineq", "fun": lambda t: margins(t) - 1.0, "jac": jacobian}]
    solution = scipy.optimize.minimize(lambda t: float(t @ t), theta, jac=lambda t: 2 * t, constraints=constraints,
                                       method="SLSQP", options={"maxiter": max_iterations, "ftol": 1e-15})
    return solution.x, int(solution.nfev)


def _refit_multipliers(model: Model, theta: np.ndarray, X: np.ndarray, y: np.ndarray, constraint: Constraint,
                       active_tol: float) -> tuple[np.ndarray, float]:
    """(λ, KKT residual) with 2θ ≈ Σ λ_i ∇c_i (equalities: λ free; margins: λ ≥ 0 on the active set)."""
    gradients = _signs(y, constraint)[:, None] * model.jacobian(theta, X)[:, 0, :]  # n × p
    target = 2 * theta
    lam = np.zeros(len(y))
    if constraint == "interpolation":
        lam = np.linalg.lstsq(gradients.T, target, rcond=None)[0]
    else:
        active = np.flatnonzero(_residuals(model, theta, X, y, "margin") <= active_tol)
        if active.size:
            lam[active] = scipy.optimize.nnls(gradients[active].T, target)[0]
    scale = float(np.linalg.norm(target))
    residual = float(np.linalg.norm(target - gradients.T @ lam)) / scale if scale > 0 else float("inf")
    return lam, residual


def minimum_norm(model: Model, X: np.ndarray, y: np.ndarray, constraint: Constraint, theta0: np.ndarray, *,
                 penalties: Sequence[float] = DEFAULT_PENALTIES, max_iterations: int = 5000,
                 active_tol: float = 1e-6) -> MinNormResult:
    """A local solution of min ‖θ‖² under ``constraint``, started at θ0 (see the module docstring).

    ``max_iterations`` bounds each L-BFGS-B subproblem (interpolation) or the SLSQP run (margin).
    """
    if model.d_out != 1:
        raise ValueError(f"output constraints need a scalar-output model, got d_out = {model.d_out}")
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    theta = np.array(theta0, dtype=float)
    with one_thread():
        if constraint == "interpolation":
            theta, evaluations = _augmented_lagrangian(model, X, y, theta, penalties, max_iterations)
        else:
            theta, separation = _feasible_margin_start(model, X, y, theta)
            theta, evaluations = _sequential_quadratic(model, X, y, theta, max_iterations)
            evaluations += separation
        values = _residuals(model, theta, X, y, constraint)
        lam, stationarity = _refit_multipliers(model, theta, X, y, constraint, active_tol)
    violation = float(np.max(np.abs(values))) if constraint == "interpolation" else float(max(0.0, -values.min()))
    return MinNormResult(theta, float(theta @ theta), violation, lam, stationarity, evaluations)
