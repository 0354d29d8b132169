"""Damped Newton: closed-form minimizers, domain safety, iteration counts, and failure reporting."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.newton import damped_newton


def exponential_sum(b: np.ndarray):
    """f(x) = Σ e^{x_i} − b_i x_i, minimized at x = log b."""
    return (lambda x: float(np.sum(np.exp(x) - b * x)), lambda x: np.exp(x) - b, lambda x: np.diag(np.exp(x)))


def barrier(c: np.ndarray):
    """f(x) = cᵀx − Σ log(1 − x_i²) on the open cube (−1, 1)ⁿ; ∇f = 0 at x_i = −c_i/(1 + √(1 + c_i²))."""
    def value(x: np.ndarray) -> float:
        return float(c @ x - np.sum(np.log1p(-x**2)))

    def gradient(x: np.ndarray) -> np.ndarray:
        return c + 2 * x / (1 - x**2)

    def hessian(x: np.ndarray) -> np.ndarray:
        return np.diag(2 * (1 + x**2) / (1 - x**2) ** 2)

    def inside(x: np.ndarray) -> bool:
        return bool(np.all(np.abs(x) < 1))

    minimizer = -c / (1 + np.sqrt(1 + c**2))  # = (1 − √(1 + c²))/c without the cancellation
    return value, gradient, hessian, inside, minimizer


def test_exponential_sum_closed_form():
    b = np.array([0.5, 2.0, 7.0])
    result = damped_newton(*exponential_sum(b), np.zeros(3))
    assert result.converged, result.message
    np.testing.assert_allclose(result.x, np.log(b), rtol=0, atol=1e-14)
    assert result.iterations <= 8 and result.evaluations <= 20  # cost bound: quadratic convergence


def test_quadratic_takes_one_step():
    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    b = np.array([1.0, -1.0])
    result = damped_newton(lambda x: 0.5 * x @ A @ x - b @ x, lambda x: A @ x - b, lambda x: A, np.array([5.0, 5.0]))
    np.testing.assert_allclose(result.x, np.linalg.solve(A, b), rtol=0, atol=1e-14)
    assert result.converged and result.iterations <= 2


def test_barrier_stays_in_domain():
    """From 0 with large c a full Newton step leaves the cube; the damped iteration never does."""
    value, gradient, hessian, inside, minimizer = barrier(np.array([50.0, -30.0, 0.1]))
    visited = []

    def watched(x):
        visited.append(np.array(x))
        return inside(x)

    result = damped_newton(value, gradient, hessian, np.zeros(3), in_domain=watched)
    assert result.converged, result.message
    np.testing.assert_allclose(result.x, minimizer, rtol=0, atol=1e-13)
    assert not inside(-np.linalg.solve(hessian(np.zeros(3)), gradient(np.zeros(3))))  # plain Newton would leave
    assert result.iterations <= 30 and result.evaluations <= 120


def test_tiny_curvature_at_the_start():
    """f(x) = ε Σ cosh x_i − bᵀx with ε = 1e-200: the first step overshoots x* = asinh(b/ε) ≈ 461 by ~1e200."""
    eps, b = 1e-200, np.array([1.0, -2.0])
    result = damped_newton(lambda x: float(eps * np.sum(np.cosh(x)) - b @ x), lambda x: eps * np.sinh(x) - b,
                           lambda x: np.diag(eps * np.cosh(x)), np.zeros(2))
    assert result.converged, result.message
    np.testing.assert_allclose(result.x, np.arcsinh(b / eps), rtol=1e-14)
    assert result.iterations <= 30 and result.evaluations <= 3000


def test_failures_are_reported():
    value, gradient, hessian, inside, _ = barrier(np.array([1.0]))
    with pytest.raises(ValueError, match="outside"):
        damped_newton(value, gradient, hessian, np.array([2.0]), in_domain=inside)
    slow = damped_newton(*exponential_sum(np.array([1e6])), np.zeros(1), max_iter=3)
    assert not slow.converged and "3 iterations" in slow.message


@settings(max_examples=25, deadline=None, derandomize=True)
@given(c=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=5))
def test_barrier_minimizer_for_any_tilt(c):
    value, gradient, hessian, inside, minimizer = barrier(np.array(c))
    result = damped_newton(value, gradient, hessian, np.zeros(len(c)), in_domain=inside)
    assert result.converged and inside(result.x)
    np.testing.assert_allclose(result.x, minimizer, rtol=0, atol=1e-12)
