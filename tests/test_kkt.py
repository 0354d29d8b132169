"""KKT tools for min ½‖θ‖² s.t. y_i Φ(θ; x_i) ≥ 1, against hand-computed points."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as Q
from sympy import root, sqrt

from numerics import exact as E
from numerics import kkt
from numerics.convex import max_margin
from numerics.exact import to_exact
from numerics.kkt import Kink
from numerics.networks import diagonal, fully_connected

RELU_2_2_1 = fully_connected([2, 2, 1], "relu")
# Hand example: x1 = (1, 1/4), x2 = (−1, 1/4), both labelled +1; θ = (W1 row-major, W2).
HAND_X = to_exact([[1, Q(1, 4)], [-1, Q(1, 4)]])
HAND_Y = to_exact([1, 1])
HAND_KKT = to_exact([0, 2, 0, 0, 2, 0])  # w1 = (0, 2), v1 = 2, w2 = 0, v2 = 0


def hand_global_optimum() -> np.ndarray:
    """Neuron A on x1 only, neuron B on x2 only, balanced: w_j = a x_j/‖x_j‖, v_j = a, a² ‖x_j‖ = 1."""
    a, norm = 2 / root(17, 4), sqrt(17) / 4
    return np.array([a / norm, a / 4 / norm, -a / norm, a / 4 / norm, a, a], dtype=object)


def floats(values) -> np.ndarray:
    return E.to_exact(values).astype(float) if np.asarray(values).dtype == object else np.asarray(values, float)


# -- KKT at a kink: the hand example ---------------------------------------------------------------------
def test_hand_kkt_point_exact():
    result = kkt.kkt_check(RELU_2_2_1, HAND_KKT, HAND_X, HAND_Y)
    assert result.status == "kkt" and result.exact and result.proved
    assert list(result.multipliers) == [2, 2]
    assert result.stationarity_residual == 0 and result.euler_residual == 0
    assert result.complementarity_residual == 0
    assert result.active == (0, 1) and result.scale == 1
    # The dead neuron (w2 = 0, v2 = 0) has a zero pre-activation on both samples but no outgoing weight.
    assert result.kinks == (Kink(0, 1, 1, "silent"), Kink(1, 1, 1, "silent"))
    assert result.smooth
    assert E.dot(result.theta, result.theta) == 2 * sum(result.multipliers)  # Euler: ‖θ‖² = L Σ λ


def test_hand_kkt_point_float():
    result = kkt.kkt_check(RELU_2_2_1, floats(HAND_KKT), floats(HAND_X), floats(HAND_Y))
    assert result.status == "kkt" and not result.exact
    np.testing.assert_allclose(result.multipliers, [2.0, 2.0], rtol=1e-12)
    assert result.stationarity_residual < 1e-12 and result.euler_residual < 1e-12


def test_rescaling_is_undone_before_the_check():
    result = kkt.kkt_check(RELU_2_2_1, 3 * HAND_KKT, HAND_X, HAND_Y)
    assert result.status == "kkt" and result.scale == Q(1, 3)
    assert list(result.theta) == list(HAND_KKT)
    assert list(kkt.rescale_to_margin(RELU_2_2_1, 3 * HAND_KKT, HAND_X, HAND_Y)) == list(HAND_KKT)


def test_hand_kkt_point_is_not_a_local_minimum():
    """Local search at radius 0.05 finds a better feasible point, which is then certified exactly."""
    search = kkt.local_search(RELU_2_2_1, floats(HAND_KKT), floats(HAND_X), floats(HAND_Y), 0.05)
    assert search.improved and search.start_cost == 8.0
    assert search.relative_improvement > 1e-4  # the true gain at this radius is about 3.3e-4
    assert search.evaluations < 5000  # cost bound: 16 starts
    witness = kkt.certify_witness(RELU_2_2_1, HAND_KKT, HAND_X, HAND_Y, search.best, Q(1, 20))
    assert witness.certified, witness.message
    assert E.sign(witness.improvement) > 0 and witness.reference_squared_norm == 8
    assert E.sign(witness.min_margin - 1) >= 0 and E.sign(Q(1, 20) - witness.distance) >= 0


def test_hand_witness_in_closed_form():
    """w1' = (ε/2, 2 − 2ε), w2' = (−√(2ε), 0), v2' = √(2ε): margins (1, 1), ‖θ'‖² = 8 − 4ε + 17ε²/4."""
    eps = Q(1, 1800)  # √(2ε) = 1/30
    candidate = to_exact([eps / 2, 2 - 2 * eps, -Q(1, 30), 0, 2, Q(1, 30)])
    assert list(kkt.margins(RELU_2_2_1, candidate, HAND_X, HAND_Y)) == [1, 1]
    witness = kkt.certify_witness(RELU_2_2_1, HAND_KKT, HAND_X, HAND_Y, candidate, Q(1, 20))
    assert witness.certified, witness.message
    assert witness.min_margin == 1 and list(witness.point) == list(candidate)
    assert witness.improvement == 4 * eps - Q(17, 4) * eps**2
    assert witness.distance == sqrt(Q(17, 4) * eps**2 + 4 * eps)


def test_witness_outside_the_ball_is_rejected():
    eps = Q(1, 800)  # √(2ε) = 1/20: still better, but at distance ≈ 0.071 > 0.05
    candidate = to_exact([eps / 2, 2 - 2 * eps, -Q(1, 20), 0, 2, Q(1, 20)])
    witness = kkt.certify_witness(RELU_2_2_1, HAND_KKT, HAND_X, HAND_Y, candidate, Q(1, 20))
    assert not witness.certified and "inside the ball" in witness.message


# -- the global optimum of the hand example (negative control) ------------------------------------------
def test_hand_global_optimum_exact():
    theta = hand_global_optimum()
    result = kkt.kkt_check(RELU_2_2_1, theta, HAND_X, HAND_Y)
    assert result.status == "kkt" and result.exact and result.kinks == ()
    assert_equal_exact(result.multipliers, [4 / sqrt(17), 4 / sqrt(17)])
    assert_equal_exact([kkt.scale_free_cost(RELU_2_2_1, theta, HAND_X, HAND_Y)], [16 / sqrt(17)])


def test_hand_global_optimum_has_no_better_neighbour():
    theta = floats(hand_global_optimum())
    search = kkt.local_search(RELU_2_2_1, theta, floats(HAND_X), floats(HAND_Y), 0.05)
    assert not search.improved and search.improvement <= 1e-12
    assert search.start_cost == pytest.approx(16 / 17**0.5, rel=1e-14)
    second = kkt.second_order_check(RELU_2_2_1, theta, floats(HAND_X), floats(HAND_Y))
    assert second.status == "satisfied" and second.min_curvature > 0.5


def test_no_witness_from_a_worse_point():
    theta = hand_global_optimum()
    worse = floats(theta) * np.array([1.01, 1, 1, 1, 1, 1])
    witness = kkt.certify_witness(RELU_2_2_1, theta, HAND_X, HAND_Y, worse, Q(1, 20))
    assert not witness.certified and "smaller norm" in witness.message


def assert_equal_exact(actual, expected) -> None:
    for a, e in zip(actual, expected, strict=True):
        assert sympy.simplify(a - e) == 0, (actual, expected)


# -- Clarke subgradients at kinks ------------------------------------------------------------------------
CLARKE_X = to_exact([[1, 0], [-Q(1, 2), 1]])
CLARKE_Y = to_exact([1, 1])
CLARKE_KKT = to_exact([1, 0, 0, 1, 1, 1])  # neuron B = (0, 1) has w_Bᵀx1 = 0 with v_B = 1 ≠ 0


def test_clarke_kkt_point_needs_a_fractional_selection():
    """θ = g1 + g2 + ½ v_B x1 (in the w_B block): λ = (1, 1), s = 1/2, exactly."""
    result = kkt.kkt_check(RELU_2_2_1, CLARKE_KKT, CLARKE_X, CLARKE_Y)
    assert result.status == "kkt" and result.exact and not result.smooth
    assert list(result.multipliers) == [1, 1]
    assert result.kinks == (Kink(0, 1, 1, "clarke", Q(1, 2)),)
    assert result.stationarity_residual == 0 and result.euler_residual == 0
    floating = kkt.kkt_check(RELU_2_2_1, floats(CLARKE_KKT), floats(CLARKE_X), floats(CLARKE_Y))
    assert floating.status == "kkt" and floating.kinks[0].selection == pytest.approx(0.5)
    np.testing.assert_allclose(floating.multipliers, [1.0, 1.0], atol=1e-12)


def test_clarke_point_that_is_not_kkt_is_proved_so():
    theta = to_exact([1, 0, 0, 1, 1, Q(6, 5)])
    result = kkt.kkt_check(RELU_2_2_1, theta, CLARKE_X, CLARKE_Y)
    assert result.status == "not_kkt" and result.proved and not result.exact
    assert result.stationarity_residual > 0.1
    u = result.separating_direction
    assert E.sign(E.dot(u, result.theta)) > 0


def test_deep_dead_neuron_is_silent():
    """Depth 3, widths 1-1-2-1: a layer-2 neuron with zero weights in and out; the chain a = b = c = 1."""
    net = fully_connected([1, 1, 2, 1], "relu")
    result = kkt.kkt_check(net, to_exact([1, 1, 0, 1, 0]), to_exact([[1]]), to_exact([1]))
    assert result.status == "kkt" and result.exact
    assert result.kinks == (Kink(0, 2, 1, "silent"),)
    assert list(result.multipliers) == [1] and result.euler_residual == 0


def test_deep_kink_with_zero_incoming_weights_contributes_a_clarke_direction():
    """Same chain, but the zero-input neuron has outgoing weight 1: its Clarke direction is its own
    incoming weight; θ is not stationary (its outgoing weight gets no gradient)."""
    net = fully_connected([1, 1, 2, 1], "relu")
    result = kkt.kkt_check(net, to_exact([1, 1, 0, 1, 1]), to_exact([[1]]), to_exact([1]))
    assert result.status == "not_kkt" and result.proved
    assert [k.kind for k in result.kinks] == ["clarke"] and result.kinks[0].layer == 2


def test_deep_kink_with_live_weights_is_unsupported():
    """Widths 1-2-2-1: a layer-2 neuron with zero pre-activation and non-zero weights in and out."""
    net = fully_connected([1, 2, 2, 1], "relu")
    theta = to_exact([1, -1, 1, 0, 0, 1, 1, 1])
    result = kkt.kkt_check(net, theta, to_exact([[1]]), to_exact([1]))
    assert result.status == "unsupported" and "hidden layer 2" in result.message


# -- smooth points ----------------------------------------------------------------------------------------
DIAGONAL = diagonal(2, 2)  # Φ = u1 v1 x1 + u2 v2 x2, θ = (u, v)


def test_point_that_is_not_kkt_has_exact_residual():
    """θ = (2, 0, 1/2, 0) on x = (1, 4): best λ = 8/17, relative residual exactly 15/17."""
    result = kkt.kkt_check(DIAGONAL, to_exact([2, 0, Q(1, 2), 0]), to_exact([[1, 4]]), to_exact([1]))
    assert result.status == "not_kkt" and result.exact and result.proved
    assert result.multipliers[0] == Q(8, 17)
    assert result.stationarity_residual == Q(15, 17)
    floating = kkt.kkt_check(DIAGONAL, [2, 0, 0.5, 0], [[1.0, 4.0]], [1.0])
    assert floating.status == "not_kkt" and floating.stationarity_residual == pytest.approx(15 / 17, rel=1e-12)


def test_second_order_saddle_and_minimum_on_a_diagonal_network():
    """x = (1, 4): β = (1, 0) is KKT (λ = 1) but a saddle; β = (0, 1/4), balanced, is the minimum."""
    X, y = to_exact([[1, 4]]), to_exact([1])
    saddle = kkt.second_order_check(DIAGONAL, to_exact([1, 0, 1, 0]), X, y)
    assert saddle.status == "violated" and saddle.exact and saddle.kkt.multipliers[0] == 1
    d = saddle.direction
    assert E.sign(saddle.curvature) < 0 and saddle.curvature == -3  # d ∝ (0, 1, 0, 1): 1 − 4 = −3 per ‖d‖²
    gradient = y[0] * DIAGONAL.jacobian(saddle.kkt.theta, X)[0, 0, :]
    assert E.dot(gradient, d) == 0  # d lies in the critical cone
    minimum = kkt.second_order_check(DIAGONAL, to_exact([0, Q(1, 2), 0, Q(1, 2)]), X, y)
    assert minimum.status == "satisfied" and minimum.exact and minimum.kkt.multipliers[0] == Q(1, 4)
    floating = kkt.second_order_check(DIAGONAL, [1.0, 0, 1, 0], [[1.0, 4.0]], [1.0])
    assert floating.status == "violated" and floating.curvature == pytest.approx(-3.0, rel=1e-9)


def test_second_order_is_unsupported_at_kinks_without_licq_and_off_kkt():
    assert kkt.second_order_check(RELU_2_2_1, HAND_KKT, HAND_X, HAND_Y).status == "unsupported"
    repeated = kkt.second_order_check(DIAGONAL, to_exact([1, 0, 1, 0]), to_exact([[1, 4], [1, 4]]),
                                      to_exact([1, 1]))
    assert repeated.status == "unsupported" and "LICQ" in repeated.message
    off = kkt.second_order_check(DIAGONAL, to_exact([2, 0, Q(1, 2), 0]), to_exact([[1, 4]]), to_exact([1]))
    assert off.status == "unsupported" and "not a KKT point" in off.message


# -- linear networks: the SVM point is KKT and global ------------------------------------------------------
def test_linear_network_balanced_svm_point():
    """Depth-2 linear net on data with w* = (4, 0): W1 = 2 e1 e1ᵀ, W2 = 2 e1ᵀ is KKT with λ = α / ‖w*‖."""
    X = to_exact([[Q(1, 4), Q(1, 5)], [Q(1, 4), -Q(1, 10)], [Q(2, 5), Q(1, 20)], [Q(7, 20), -Q(1, 4)]])
    y = to_exact([1, 1, 1, 1])
    svm = max_margin(X, y)
    assert svm.status == "certified" and list(svm.certificate.solution) == [4, 0]
    net = fully_connected([2, 2, 1], "linear")
    theta = to_exact([2, 0, 0, 0, 2, 0])
    result = kkt.kkt_check(net, theta, X, y)
    assert result.status == "kkt" and result.exact
    assert list(result.multipliers) == list(svm.certificate.duals / svm.certificate.norm)
    assert kkt.scale_free_cost(net, theta, X, y) == 2 * svm.certificate.norm
    assert kkt.second_order_check(net, theta, X, y).status == "satisfied"
    search = kkt.local_search(net, floats(theta), floats(X), floats(y), 0.1, starts=8)
    assert not search.improved


# -- infeasible points and programmer errors ---------------------------------------------------------------
def test_infeasible_point():
    theta = to_exact([0, -2, 0, 0, 2, 0])
    assert kkt.kkt_check(RELU_2_2_1, theta, HAND_X, HAND_Y).status == "infeasible"
    assert kkt.scale_free_cost(RELU_2_2_1, floats(theta), floats(HAND_X), floats(HAND_Y)) == np.inf
    with pytest.raises(ValueError, match="minimum margin"):
        kkt.rescale_to_margin(RELU_2_2_1, theta, HAND_X, HAND_Y)
    with pytest.raises(ValueError, match="positive minimum margin"):
        kkt.scale_free_cost(RELU_2_2_1, theta, HAND_X, HAND_Y)


def test_scale_free_cost_refuses_a_zero_minimum_margin_exactly():
    """q_min = 0 exactly (θ = 0 gives every margin 0): R(θ) = ‖θ‖²/q_min^(2/L) is undefined, not a sympy infinity."""
    zero = to_exact([0, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="positive minimum margin, got 0"):
        kkt.scale_free_cost(RELU_2_2_1, zero, HAND_X, HAND_Y)
    assert kkt.scale_free_cost(RELU_2_2_1, floats(zero), floats(HAND_X), floats(HAND_Y)) == np.inf


def test_programmer_errors_raise():
    with pytest.raises(ValueError, match="shape"):
        kkt.kkt_check(RELU_2_2_1, np.zeros(5), floats(HAND_X), floats(HAND_Y))
    with pytest.raises(ValueError, match="scalar model"):
        kkt.kkt_check(fully_connected([2, 2, 2]), np.zeros(8), floats(HAND_X), floats(HAND_Y))


# -- invariants ------------------------------------------------------------------------------------------
@settings(derandomize=True, max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), scale=st.floats(0.1, 10.0))
def test_scale_free_cost_is_scale_invariant(seed, scale):
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((5, 2)), np.ones(5)
    net = fully_connected([2, 3, 1], "linear")
    theta = rng.standard_normal(net.n_params)
    q = kkt.margins(net, theta, X, y)
    y = np.where(q < 0, -1.0, 1.0)  # make every margin positive
    cost = kkt.scale_free_cost(net, theta, X, y)
    assert kkt.scale_free_cost(net, scale * theta, X, y) == pytest.approx(cost, rel=1e-12)
    rescaled = kkt.rescale_to_margin(net, scale * theta, X, y)
    assert kkt.margins(net, rescaled, X, y).min() == pytest.approx(1.0, rel=1e-12)
    assert rescaled @ rescaled == pytest.approx(cost, rel=1e-12)


@settings(derandomize=True, max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 6))
def test_svm_balanced_point_is_kkt_for_linear_networks(seed, n):
    """Random separable data: the rank-1 balanced point along w* is KKT with λ = α/‖w*‖ (Euler holds)."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(2)
    X = rng.standard_normal((n, 2))
    y = np.sign(X @ u)
    X = X + 0.2 * y[:, None] * u / np.linalg.norm(u)  # a positive margin
    svm = max_margin(X, y)
    w = svm.solution
    s = np.sqrt(np.linalg.norm(w))
    theta = np.concatenate([s * w / np.linalg.norm(w), np.zeros(2), [s, 0.0]])  # W1 = s e1 ūᵀ, W2 = s e1ᵀ
    result = kkt.kkt_check(fully_connected([2, 2, 1], "linear"), theta, X, y)
    assert result.status == "kkt"
    np.testing.assert_allclose(result.multipliers, svm.duals / np.linalg.norm(w), atol=1e-6)
    assert result.euler_residual < 1e-6


def test_exact_minimum_of_margins_of_either_sign_and_of_floats_that_tie() -> None:
    """The exact minimum behind q_min: float sorting proposes, exact comparisons decide. Negative values (a point
    that misclassifies) and values equal as floats but not exactly (1 + 10⁻³⁰ and 1) are both decided exactly."""
    assert kkt._min(E.to_exact([-1, -3, 2]), True) == -3
    assert kkt._min(E.to_exact([sympy.Rational(-1, 2), -1]), True) == -1
    tie = E.to_exact([1 + sympy.Rational(1, 10**30), 1, 1 + sympy.Rational(2, 10**30)])
    assert kkt._min(tie, True) == 1
    assert kkt._min(np.array([2.0, -1.5, 0.5]), False) == -1.5
