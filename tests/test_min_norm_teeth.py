"""numerics.min_norm, pinned where the closed-form tests leave room: the refitted multipliers against closed forms
(λ = 2/‖x_i‖² for orthogonal margins, least squares for interpolation), the KKT residual and the violation of an
unsolved start (no penalties: θ0 returned as is; the residual is relative, inf at θ = 0), an inactive margin
constraint (margin 3) that is neither a violation nor a multiplier, the evaluation count (bounded where every
subproblem is a small quadratic), and the feasible start of the margin problem exposed by ``max_iterations=0``: a
separating start only rescaled to minimum margin 1 (by q^(−1/L), also for q < 1), a start with a margin ≤ 0 (at a
point or exactly on it) trained first.
"""

from __future__ import annotations

import numpy as np
import pytest

from numerics.min_norm import DEFAULT_PENALTIES, minimum_norm
from numerics.networks import fully_connected


def test_margin_multipliers_of_orthogonal_points_are_two_over_squared_norms() -> None:
    X = np.array([[2.0, 0.0, 0.0], [0.0, -0.5, 0.0]])  # θ = Σ y_i x_i/‖x_i‖², 2θ = Σ λ_i y_i x_i: λ_i = 2/‖x_i‖²
    result = minimum_norm(fully_connected([3, 1], "linear"), X, np.array([1.0, -1.0]), "margin",
                          np.array([0.3, 0.2, 0.1]))
    np.testing.assert_allclose(result.multipliers, [0.5, 8.0], rtol=1e-6)


def test_inactive_margin_constraint_is_neither_violated_nor_weighted() -> None:
    """Points (1, 0) and (3, 1), both labelled 1: θ = (1, 0) with margins 1 and 3 (the second inactive)."""
    X, y = np.array([[1.0, 0.0], [3.0, 1.0]]), np.array([1.0, 1.0])
    result = minimum_norm(fully_connected([2, 1], "linear"), X, y, "margin", np.array([0.3, 0.2]))
    np.testing.assert_allclose(result.theta, [1.0, 0.0], atol=1e-9)
    assert 0.0 <= result.violation < 1e-9
    np.testing.assert_allclose(result.multipliers, [2.0, 0.0], atol=1e-9)
    assert result.stationarity < 1e-9 and result.evaluations > 0


def test_unsolved_start_reports_its_violation_residual_and_multipliers() -> None:
    """No penalties: θ0 = (3, 4) is returned; Φ − y = 2; λ = ⟨2θ0, x⟩/‖x‖² = 6; residual |(0, 8)|/|(6, 8)| = 0.8."""
    model, X, y = fully_connected([2, 1], "linear"), np.array([[1.0, 0.0]]), np.array([1.0])
    result = minimum_norm(model, X, y, "interpolation", np.array([3.0, 4.0]), penalties=())
    assert np.array_equal(result.theta, [3.0, 4.0]) and result.evaluations == 0
    assert result.violation == 2.0 and result.squared_norm == 25.0
    assert result.multipliers == pytest.approx([6.0], rel=1e-14)
    assert result.stationarity == pytest.approx(0.8, rel=1e-14)
    small = minimum_norm(model, X, y, "interpolation", np.array([0.03, 0.04]), penalties=())  # ‖2θ‖ = 0.1: relative
    assert small.stationarity == pytest.approx(0.8, rel=1e-12) and small.violation == pytest.approx(0.97, rel=1e-14)
    zero = minimum_norm(model, X, y, "interpolation", np.zeros(2), penalties=())
    assert zero.stationarity == np.inf and zero.violation == 1.0


def test_interpolation_counts_its_evaluations() -> None:
    model, X, y = fully_connected([2, 1], "linear"), np.array([[1.0, 0.0]]), np.array([1.0])
    result = minimum_norm(model, X, y, "interpolation", np.array([3.0, 4.0]), penalties=(1e1,))
    assert 0 < result.evaluations < 100


@pytest.mark.parametrize("start, q", [((4.0, 1.0), 8.0), ((0.25, 1.0), 0.5)])
def test_separating_margin_start_is_only_rescaled(start: tuple[float, float], q: float) -> None:
    """Scalar depth-2 chain w₂w₁x (degree 2) on x = 2, y = 1: a start of margin q is rescaled by q^(−1/2)."""
    model = fully_connected([1, 1, 1], "linear")
    result = minimum_norm(model, np.array([[2.0]]), np.array([1.0]), "margin", np.array(start), max_iterations=0)
    np.testing.assert_allclose(result.theta, np.array(start) / np.sqrt(q), rtol=1e-14)
    assert result.violation < 1e-14 and result.evaluations == 1  # no training: one evaluation by SLSQP


@pytest.mark.parametrize("start", [(-0.25, 1.0), (0.0, 1.0)])
def test_margin_start_that_does_not_separate_is_trained_first(start: tuple[float, float]) -> None:
    """Margins −0.5 and exactly 0: no rescaling can fix them; logistic training first makes the start feasible."""
    model = fully_connected([1, 1, 1], "linear")
    result = minimum_norm(model, np.array([[2.0]]), np.array([1.0]), "margin", np.array(start), max_iterations=0)
    assert result.violation < 1e-12 and result.evaluations > 1
    assert result.theta[0] * result.theta[1] * 2.0 == pytest.approx(1.0, rel=1e-12)  # rescaled to margin 1


def test_active_set_of_the_multiplier_refit_is_closed_at_active_tol() -> None:
    """Start (1, 1) on x₁ = (1, 0), x₂ = (1, 1) (max_iterations=0: kept as is): margins 1 and 2. With active_tol = 1
    the second constraint (slack exactly 1) is active and 2θ = 2x₂ is fitted exactly; with the default 1e-6 (or 1/2)
    only the first one is, leaving the residual |(0, 2)|/|(2, 2)| = 1/√2."""
    model, X, y = fully_connected([2, 1], "linear"), np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([1.0, 1.0])
    at_edge = minimum_norm(model, X, y, "margin", np.array([1.0, 1.0]), max_iterations=0, active_tol=1.0)
    np.testing.assert_allclose(at_edge.multipliers, [0.0, 2.0], atol=1e-12)
    assert at_edge.stationarity < 1e-12 and at_edge.violation == 0.0
    for result in (minimum_norm(model, X, y, "margin", np.array([1.0, 1.0]), max_iterations=0),
                   minimum_norm(model, X, y, "margin", np.array([1.0, 1.0]), max_iterations=0, active_tol=0.5)):
        np.testing.assert_allclose(result.multipliers, [2.0, 0.0], atol=1e-12)
        assert result.stationarity == pytest.approx(2**-0.5, rel=1e-12)


def test_violation_of_a_strictly_feasible_point_is_zero_not_negative() -> None:
    """The start (4, 1) of the chain, rescaled by 8^(−1/2), has margin 1 + 2⁻⁵² in floats: violation exactly 0."""
    model = fully_connected([1, 1, 1], "linear")
    result = minimum_norm(model, np.array([[2.0]]), np.array([1.0]), "margin", np.array([4.0, 1.0]), max_iterations=0)
    assert 2.0 * result.theta[0] * result.theta[1] > 1.0  # the premise: strictly feasible
    assert result.violation == 0.0


def test_quadratic_subproblems_stop_at_their_minimizers() -> None:
    """min ‖θ‖² s.t. θ_1 = 1 on a linear model: every augmented-Lagrangian subproblem is a quadratic in two
    variables, which L-BFGS-B solves in a couple of steps to a gradient far below its tolerance; a solver that
    does not stop on the gradient runs on until its function-decrease test (about four times the cost)."""
    model, X, y = fully_connected([2, 1], "linear"), np.array([[1.0, 0.0]]), np.array([1.0])
    result = minimum_norm(model, X, y, "interpolation", np.array([1.0, 0.0]))
    assert result.evaluations <= 4 * len(DEFAULT_PENALTIES)
    assert abs(result.theta[0] - 1.0) < 1e-6 and result.theta[1] == 0.0
