"""High-precision extrapolation integrator against closed forms at 32 digits (error in the scale atol + rtol·|y|,
evaluations bounded), and its region-exit detection on a ReLU unit whose kink time is known exactly."""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np
import pytest

from numerics import backend as B
from numerics.flows import activation_region
from numerics.hp_ode import HPStatus, integrate
from numerics.losses import Objective
from numerics.networks import fully_connected

DPS = 32


@pytest.fixture(autouse=True)
def working_precision():
    with mpmath.workdps(DPS):
        yield


def scaled_error(actual: np.ndarray, exact: np.ndarray) -> mpmath.mpf:
    """max |actual − exact| / (atol + rtol·|exact|) at the default tolerance 10^−(dps−2)."""
    tol = mpmath.mpf(10) ** (-(DPS - 2))
    return max(abs(a - e) / (tol + tol * abs(e)) for a, e in zip(actual, exact))


@pytest.mark.parametrize("name, fun, exact, t_end, max_nfev", [
    ("growth", lambda t, y: y, lambda t: [mpmath.exp(t)], 1, 1000),
    ("gaussian", lambda t, y: -2 * t * y, lambda t: [mpmath.exp(-t * t)], 3, 4000),
    ("oscillator", lambda t, y: np.array([y[1], -y[0]]), lambda t: [mpmath.cos(t), -mpmath.sin(t)], 10, 6000),
])
def test_closed_forms_to_30_digits(name: str, fun: Callable, exact: Callable, t_end: float, max_nfev: int) -> None:
    y0 = exact(mpmath.mpf(0))
    times = [mpmath.mpf(t_end) / 3, mpmath.mpf(t_end)]
    sol = integrate(fun, 0, y0, t_end, t_eval=times)
    assert sol.status is HPStatus.COMPLETED and sol.t == times
    for t, y in zip(sol.t, sol.y):
        assert scaled_error(y, exact(t)) < 100  # i.e. ≤ 1e-28 relative
        assert all(isinstance(v, mpmath.mpf) for v in y)
    assert sol.nfev < max_nfev and sol.n_rejected <= 3


def test_linear_regression_flow_to_30_digits() -> None:
    """θ' = −Xᵀ(Xθ − y): θ(t) = θ* + e^{−XᵀX t}(θ0 − θ*) with exact (dyadic) data."""
    X = B.to_object([[1, 0.5, -0.25], [0.5, 2, 1], [-1, 0.75, 0.5], [0.25, -0.5, 1.5]], "mp")
    y = B.to_object([1, -0.5, 0.25, 2], "mp")
    theta0 = B.to_object([0.5, -1, 0.25], "mp")
    objective = Objective(fully_connected([3, 1], "linear"), X, y[:, None], "square")
    A, b = mpmath.matrix(X.T @ X), mpmath.matrix(X.T @ y)
    star = mpmath.lu_solve(A, b)

    def exact(t: mpmath.mpf) -> list[mpmath.mpf]:
        return list(star + mpmath.expm(-A * t) * (mpmath.matrix(theta0) - star))

    times = [mpmath.mpf("0.5"), mpmath.mpf(2)]
    sol = integrate(lambda t, theta: objective.descent(theta), 0, theta0, 2, t_eval=times)
    for t, theta in zip(sol.t, sol.y):
        assert scaled_error(theta, exact(t)) < 100
    assert sol.nfev < 4000


def test_deep_linear_network_conservation_to_25_digits() -> None:
    """W_{k+1}ᵀW_{k+1} − W_kW_kᵀ is conserved along the logistic-loss flow of a depth-3 linear network."""
    rng = np.random.default_rng(0)
    model = fully_connected([2, 2, 2, 1], "linear")
    X = B.to_object(np.round(rng.standard_normal((3, 2)), 3), "mp")
    labels = B.to_object([1, -1, 1], "mp")
    objective = Objective(model, X, labels, "logistic")
    theta0 = B.to_object(np.round(0.5 * rng.standard_normal(model.n_params), 3), "mp")

    def imbalances(theta: np.ndarray) -> list[np.ndarray]:
        W = model.matrices(theta)
        return [B.transpose(W[k + 1]) @ W[k + 1] - W[k] @ B.transpose(W[k]) for k in range(len(W) - 1)]

    sol = integrate(lambda t, theta: objective.descent(theta), 0, theta0, 2, t_eval=[1])
    assert sol.status is HPStatus.COMPLETED
    start = imbalances(theta0)
    for theta in sol.y:
        drift = max(abs(v) for a, b in zip(imbalances(theta), start) for v in (a - b).ravel())
        assert drift < mpmath.mpf(10) ** -25
    assert abs(sol.y[-1][0] - theta0[0]) > 1e-3  # the flow did move
    assert sol.nfev < 4000


def unit_waking_problem() -> tuple[Objective, list[mpmath.mpf], mpmath.mpf]:
    """Φ = a·σ(w·x) on x₁ = (1, 0) (target 4) and x₂ = (1, 1) (target 0), w = (1/2, −1), a = 1.

    Until the kink only x₁ is active and (w₁, a) is the product flow of ½(w₁a − 4)²: c = w₁² − a² is conserved and
    p = (w₁ + a)² solves ṗ = −½(p − p₊)(p − p₋). The unit turns on for x₂ when w₁ = 1, at
    t* = −log[(p* − p₊)/(p* − p₋) · (p₀ − p₋)/(p₀ − p₊)] / √(4y² + c²).
    """
    objective = Objective(fully_connected([2, 1, 1], "relu"), B.to_object([[1, 0], [1, 1]], "mp"),
                          B.to_object([[4], [0]], "mp"), "square")
    u0, a0, y, u_star = mpmath.mpf(0.5), mpmath.mpf(1), mpmath.mpf(4), mpmath.mpf(1)
    c = u0**2 - a0**2
    root = mpmath.sqrt(4 * y * y + c * c)
    p_plus, p_minus = 2 * y + root, 2 * y - root
    p0, p_star = (u0 + a0) ** 2, (u_star + mpmath.sqrt(u_star**2 - c)) ** 2
    t_kink = -mpmath.log((p_star - p_plus) / (p_star - p_minus) * (p0 - p_minus) / (p0 - p_plus)) / root
    return objective, [u0, mpmath.mpf(-1), a0], t_kink


def test_region_exit_at_the_exact_kink_time() -> None:
    objective, theta0, t_kink = unit_waking_problem()
    region = activation_region(objective)
    sol = integrate(lambda t, theta: objective.descent(theta), 0, theta0, 2, region=region)
    assert sol.status is HPStatus.REGION_EXIT and sol.exit is not None
    exit = sol.exit
    assert abs(exit.t - t_kink) < mpmath.mpf(10) ** -28
    assert exit.width < mpmath.mpf(10) ** -30 and exit.t <= exit.t_after <= exit.t + exit.width
    assert exit.before.tolist() == [1, -1] and exit.after.tolist() == [1, 1]
    assert np.array_equal(region(exit.y), exit.before) and np.array_equal(region(exit.y_after), exit.after)
    assert sol.t[-1] == exit.t and sol.y[-1] is exit.y
    assert sol.nfev < 5000
    # restarting in the new region continues to t_end
    after = integrate(lambda t, theta: objective.descent(theta), exit.t_after, exit.y_after, 0.5, region=region)
    assert after.status is HPStatus.COMPLETED and after.t[-1] == 0.5


def test_no_region_check_integrates_across_the_kink() -> None:
    objective, theta0, _ = unit_waking_problem()
    with mpmath.workdps(16):
        sol = integrate(lambda t, theta: objective.descent(theta), 0, theta0, "0.3")
    assert sol.status is HPStatus.COMPLETED


def test_argument_checks_and_step_limit() -> None:
    with pytest.raises(ValueError, match="t_eval"):
        integrate(lambda t, y: y, 0, [1], 1, t_eval=[2])
    with pytest.raises(ValueError, match="t_end"):
        integrate(lambda t, y: y, 1, [1], 0)
    sol = integrate(lambda t, y: y, 0, [1], 100, max_steps=2)
    assert sol.status is HPStatus.FAILED and "steps" in sol.message and sol.t[-1] < 100
