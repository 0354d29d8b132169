"""Damped Newton, pinned at its edges: the stopping rule λ²/2 ≤ tol·max(1, |f|) exactly at and below its edge, the
Armijo test closed at equality, a rising last step refused (the rounding allowance 1e-12·max(1, |f|) at half and one
and a half times its size), non-finite trial values refused, the default iteration and backtracking limits, the
reported decrement, and the counts of iterations and objective evaluations on binary-exact problems.
"""

from __future__ import annotations

import numpy as np

from numerics.newton import damped_newton


def half_square(offset: float = 0.0):
    """f(x) = x²/2 + offset: H = 1, so the Newton step from x is exactly −x and λ² = x²."""
    return (lambda x: float(x @ x / 2 + offset), lambda x: np.array(x, dtype=float), lambda x: np.eye(len(x)))


def hyperbola(scale: float = 1.0):
    """f(x) = scale·√(1 + x²): strictly convex; the Newton step from x is −x(1 + x²), from 1 to the mirror point −1."""
    return (lambda x: float(scale * np.sqrt(1 + x[0] ** 2)), lambda x: scale * x / np.sqrt(1 + x**2),
            lambda x: np.diag(scale * (1 + x**2) ** -1.5))


def test_stopping_rule_is_closed_at_its_edge_and_absolute_below_one():
    x0 = np.array([2.0**-10])  # f = 2⁻²¹ < 1: the threshold is tol itself; λ²/2 = 2⁻²¹ exactly
    at_edge = damped_newton(*half_square(), x0, tol=2.0**-21)
    assert at_edge.converged and at_edge.iterations == 1 and at_edge.x[0] == 0.0  # the last step, from x0
    assert at_edge.decrement == 2.0**-10 and at_edge.evaluations == 2
    below = damped_newton(*half_square(), x0, tol=0.75 * 2.0**-21)  # one damped step, then the last one
    assert below.converged and below.iterations == 2 and below.x[0] == 0.0 and below.evaluations == 3


def test_stopping_rule_is_relative_above_one():
    x0 = np.array([1.0])  # f = 1/2 + 7/2 = 4: threshold 4·tol; λ²/2 = 1/2
    assert damped_newton(*half_square(3.5), x0, tol=0.125).iterations == 1
    assert damped_newton(*half_square(3.5), x0, tol=0.0625).iterations == 2


def test_decrement_is_the_newton_decrement_at_the_last_point():
    result = damped_newton(*half_square(), np.array([3.0, -4.0]))
    assert result.converged and np.array_equal(result.x, [0.0, 0.0]) and result.decrement == 0.0


def test_armijo_condition_is_closed_at_equality():
    """With armijo = 1/2 the full step on x²/2 from 1 lowers f by exactly armijo·λ² = 1/2: accepted."""
    result = damped_newton(*half_square(), np.array([1.0]), armijo=0.5)
    assert result.x[0] == 0.0 and result.iterations == 2 and result.evaluations == 3


def test_backtracking_refuses_a_step_without_decrease():
    """From 1 the full step on √(1 + x²) lands on −1 (same value): refused; the halved step lands on the minimizer 0."""
    result = damped_newton(*hyperbola(), np.array([1.0]))
    assert result.converged and result.x[0] == 0.0 and result.value == 1.0
    assert result.iterations == 2  # the damped step, then the last (zero) step
    assert result.evaluations == 4  # the start, two trials, the last point


def test_last_step_that_raises_the_value_is_not_taken():
    """With a loose tol the method stops at once at 1.1; the last step to −1.331 raises f by 0.178 and is refused."""
    value, gradient, hessian = hyperbola()
    result = damped_newton(value, gradient, hessian, np.array([1.1]), tol=1.0)
    assert result.converged and result.iterations == 0 and result.x[0] == 1.1 and result.evaluations == 2


def test_rounding_allowance_of_the_last_step():
    """A rise of 1e-12·max(1, |f|) is rounding: half of it is accepted, one and a half times it is refused."""
    x0 = np.array([1.1])
    final = 1.1 - 1.1 * (1 + 1.1**2)
    rise = np.sqrt(1 + final**2) - np.sqrt(1 + 1.1**2)  # per unit scale
    accepted = damped_newton(*hyperbola(0.5e-12 / rise), x0, tol=1.0)  # |f| ≈ 0.7e-12 < 1: allowance 1e-12
    assert accepted.iterations == 1 and accepted.x[0] != 1.1
    refused = damped_newton(*hyperbola(1.5e-12 / rise), x0, tol=1.0)
    assert refused.iterations == 0 and refused.x[0] == 1.1


def test_non_finite_values_are_never_accepted():
    """An objective that reads −inf at 0 (a pole of a user's model): no step, damped or last, ends there."""
    def value(x):
        return -np.inf if x[0] == 0.0 else float(x[0] ** 2 / 2)

    result = damped_newton(value, lambda x: np.array(x, dtype=float), lambda x: np.eye(1), np.array([1.0]))
    assert result.converged and np.isfinite(result.value) and result.x[0] > 0.0


def test_default_iteration_limit_is_100():
    """f = x⁴ from 10²⁰: each Newton step is x ← 2x/3 (full steps), and convergence needs about 130 of them."""
    result = damped_newton(lambda x: float(x[0] ** 4), lambda x: 4 * x**3, lambda x: np.diag(12 * x**2),
                           np.array([1e20]))
    assert not result.converged and result.iterations == 100 and "100 iterations" in result.message
    assert abs(result.x[0] / (1e20 * (2 / 3) ** 100) - 1) < 1e-12  # every step a full one
    assert result.evaluations == 101


def test_default_backtracking_limit_is_1100():
    """f = x²/2 + 10²⁰⁰x from 0: λ² = 10⁴⁰⁰ overflows, so no trial passes the Armijo test (not even t = 0 once t
    underflows); the method evaluates all 1100 halvings and reports that no step was acceptable."""
    with np.errstate(over="ignore"):  # λ² = gᵀH⁻¹g overflows by design
        result = damped_newton(lambda x: float(x[0] ** 2 / 2 + 1e200 * x[0]), lambda x: x + 1e200,
                               lambda x: np.eye(1), np.array([0.0]))
    assert not result.converged and "no acceptable step after 1100 backtracks" in result.message
    assert result.iterations == 0 and result.evaluations == 1 + 1100 and result.x[0] == 0.0


def test_a_negative_squared_decrement_reads_as_zero() -> None:
    """λ² = −gᵀΔx can come out negative by rounding; the decrement reported is √max(λ², 0) = 0, not NaN (here
    the Hessian −I makes λ² = −10⁻⁴⁰ on a flat objective, the size of a rounding error)."""
    found = damped_newton(lambda x: 0.0, lambda x: np.array([1e-20, 0.0]), lambda x: -np.eye(2), np.zeros(2))
    assert found.converged and found.decrement == 0.0


def test_the_last_full_step_is_taken_when_it_rises_by_exactly_the_rounding_allowance() -> None:
    """At convergence the full Newton step is taken unless f rises by more than 10⁻¹²·max(1, |f|): a rise of
    exactly that is taken (one iteration, x moved), one ulp more is not (x kept, zero iterations)."""
    allowance = 1.0 + 1e-12  # f + 1e-12·relative_scale(f) at f = 1

    def run(final_value: float):
        return damped_newton(lambda x: 1.0 if x[0] == 0.0 else final_value, lambda x: np.array([1e-10]),
                             lambda x: np.eye(1), np.zeros(1))

    taken = run(allowance)
    assert taken.iterations == 1 and taken.x[0] == -1e-10 and taken.value == allowance
    kept = run(np.nextafter(allowance, 2.0))
    assert kept.iterations == 0 and kept.x[0] == 0.0 and kept.value == 1.0
