"""Damped Newton's method for a smooth, strictly convex function on an open convex domain.

Minimizes f over {x : in_domain(x)} (all of Rⁿ by default) from a point of the domain. Each iteration solves
H Δ = −g and backtracks t ← shrink·t along x + tΔ, first until the trial point lies in the domain with a finite
value, then until the Armijo condition f(x + tΔ) ≤ f(x) − armijo·t·λ² holds, where λ² = −gᵀΔ = gᵀH⁻¹g is the
squared Newton decrement (Boyd & Vandenberghe, Alg. 9.5). Staying inside the domain is what a plain
root-finder on ∇f = 0 does not do: for a barrier-like f (finite only on a bounded set), a full step from far away
lands outside, where f and its derivatives are undefined.

Stopping: λ²/2 estimates f(x) − f* for self-concordant f; the method stops when λ²/2 ≤ tol·max(1, |f(x)|)
(``converged``), and then takes that last Newton step, which squares the remaining error in the quadratic
regime. It also stops, unconverged, after ``max_iter`` iterations or when backtracking finds no acceptable
step (``message`` says which). The default of 1100 halvings reaches any step a float64 can represent: where the
curvature at x is tiny compared to the curvature near the minimizer (an exponential far from its scale), the
first Newton step overshoots by hundreds of orders of magnitude, and backtracking is what brings it back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from numerics.tolerances import relative_scale

Function = Callable[[np.ndarray], float]
Vector = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class NewtonResult:
    """The damped Newton iterate, its value and Newton decrement, the steps and evaluations it took."""

    x: np.ndarray
    value: float  # f(x)
    decrement: float  # Newton decrement λ at the last point where it was computed (before the final step)
    iterations: int  # Newton steps taken
    evaluations: int  # objective evaluations, line searches included
    converged: bool
    message: str


def damped_newton(value: Function, gradient: Vector, hessian: Vector, x0: np.ndarray, *,
                  in_domain: Callable[[np.ndarray], bool] | None = None, tol: float = 1e-15, max_iter: int = 100,
                  armijo: float = 0.25, shrink: float = 0.5, max_backtracks: int = 1100) -> NewtonResult:
    """Minimize ``value`` from ``x0`` (which must lie in the domain); see the module docstring."""
    inside = in_domain or (lambda x: True)
    x = np.array(x0, dtype=float)
    if not inside(x):
        raise ValueError("the starting point is outside the domain")
    f = float(value(x))
    evaluations = 1
    if not np.isfinite(f):
        raise ValueError("the objective is not finite at the starting point")
    decrement = np.inf
    for iteration in range(max_iter):
        g = np.asarray(gradient(x), dtype=float)
        step = -np.linalg.solve(np.asarray(hessian(x), dtype=float), g)
        squared = float(-g @ step)
        decrement = float(np.sqrt(max(squared, 0.0)))
        if squared / 2 <= tol * relative_scale(f):
            final = x + step
            if inside(final):
                f_final = float(value(final))
                evaluations += 1
                if np.isfinite(f_final) and f_final <= f + 1e-12 * relative_scale(f):  # no rise beyond rounding
                    return NewtonResult(final, f_final, decrement, iteration + 1, evaluations, True,
                                        "Newton decrement below tolerance")
            return NewtonResult(x, f, decrement, iteration, evaluations, True, "Newton decrement below tolerance")
        t = 1.0
        for _ in range(max_backtracks):
            trial = x + t * step
            if inside(trial):
                with np.errstate(over="ignore", invalid="ignore"):  # a far trial point may overflow: rejected below
                    f_trial = float(value(trial))
                evaluations += 1
                if np.isfinite(f_trial) and f_trial <= f - armijo * t * squared:
                    break
            t *= shrink
        else:
            return NewtonResult(x, f, decrement, iteration, evaluations, False,
                                f"no acceptable step after {max_backtracks} backtracks (λ = {decrement:.3g})")
        x, f = trial, f_trial
    return NewtonResult(x, f, decrement, max_iter, evaluations, False, f"no convergence in {max_iter} iterations")
