"""numerics.min_norm: local minimum-norm solutions under interpolation and margin constraints.

Closed forms: a linear depth-1 model (min-norm interpolation = pseudo-inverse solution; max margin of orthogonal
points = Σ y_i x_i/‖x_i‖²), a scalar depth-2 chain (min ‖θ‖² s.t. w₂w₁x = y is 2|y/x|, balanced), a depth-2 ReLU
neuron on one point. Costs are bounded by the solver's evaluation counts.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from numerics.min_norm import minimum_norm
from numerics.networks import fully_connected


def scaled_error(actual: np.ndarray, expected: np.ndarray, rtol: float = 1e-7, atol: float = 1e-9) -> float:
    """max |actual − expected| / (atol + rtol |expected|): below 1 means within tolerance (solve_ivp style)."""
    return float(np.max(np.abs(actual - expected) / (atol + rtol * np.abs(expected))))


def test_linear_interpolation_is_the_pseudo_inverse_solution() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3, 5)), rng.normal(size=3)
    model = fully_connected([5, 1], "linear")
    result = minimum_norm(model, X, y, "interpolation", rng.normal(size=5))
    assert scaled_error(result.theta, np.linalg.pinv(X) @ y) < 1
    assert result.violation < 1e-9
    assert result.stationarity < 1e-6
    assert result.evaluations < 400


def test_linear_margin_of_orthogonal_points() -> None:
    X = np.array([[2.0, 0.0, 0.0], [0.0, -0.5, 0.0]])
    y = np.array([1.0, -1.0])
    model = fully_connected([3, 1], "linear")
    result = minimum_norm(model, X, y, "margin", np.array([0.3, 0.2, 0.1]))
    expected = (y[:, None] * X / np.sum(X**2, axis=1, keepdims=True)).sum(axis=0)  # both constraints active
    assert scaled_error(result.theta, expected) < 1
    assert result.violation < 1e-9
    assert np.all(result.multipliers >= 0) and result.stationarity < 1e-6
    assert result.evaluations < 200


@pytest.mark.parametrize("activation", ["linear", "relu"])
def test_scalar_chain_is_balanced_with_norm_two_y_over_x(activation: str) -> None:
    model = fully_connected([1, 1, 1], activation)
    X, y = np.array([[0.5]]), np.array([3.0])
    result = minimum_norm(model, X, y, "interpolation", np.array([0.7, 1.3]))
    assert abs(result.squared_norm - 2 * 3.0 / 0.5) < 1e-7
    assert abs(abs(result.theta[0]) - abs(result.theta[1])) < 1e-7
    assert result.evaluations < 400


def test_margin_start_that_misclassifies_is_separated_first() -> None:
    # ReLU neuron times an output weight, one point with label −1: the start outputs +, so it must be repaired
    model = fully_connected([2, 1, 1])
    X, y = np.array([[1.0, 1.0]]), np.array([-1.0])
    result = minimum_norm(model, X, y, "margin", np.array([0.5, 0.5, 1.0]))
    assert result.violation < 1e-9
    assert abs(result.squared_norm - 2 / np.sqrt(2)) < 1e-6  # optimum: balanced, ‖w‖·|v|·√2 = 1


def test_scalar_output_is_required() -> None:
    with pytest.raises(ValueError, match="scalar-output"):
        minimum_norm(fully_connected([2, 2]), np.eye(2), np.ones(2), "interpolation", np.zeros(4))


@settings(derandomize=True, max_examples=8, deadline=None)
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["interpolation", "margin"]))
def test_local_optima_of_relu_networks_are_balanced(seed: int, constraint: str) -> None:
    """Invariant: at a KKT point of either problem, the rescaling (γW_1, W_2/γ) is stationary, so ‖W_1‖_F = ‖W_2‖_F."""
    rng = np.random.default_rng(seed)
    model = fully_connected([2, 6, 1])
    X = rng.normal(size=(3, 2))
    y = np.abs(rng.normal(size=3)) + 0.5 if constraint == "interpolation" else np.array([1.0, 1.0, 1.0])
    result = minimum_norm(model, X, y, constraint, rng.normal(size=model.n_params))
    assume(result.violation <= 1e-8 and result.stationarity <= 1e-6)  # starts stuck at dead units say nothing
    first, second = (np.linalg.norm(W) for W in model.matrices(result.theta))
    assert abs(first / second - 1) < 1e-5
