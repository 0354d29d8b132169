"""Paper 001's positive-result helpers and Lemma C's criteria at their edges: ties, exact thresholds, instances
where the index or the axis matters."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics import exact as E
from numerics.networks import fully_connected
from theorems.margin_maximization import lemmas_c
from theorems.margin_maximization import positive_oracles as P
from theorems.margin_maximization.lemmas_c import AM_GM_SEARCH, BALANCED, LIMIT_NORMS, NO_SHARE, instances
from theorems.margin_maximization.positive import ALIGNED, NONZERO_SHARE, PREDICTOR_NEAR, SETTLED, settled
from theorems.margin_maximization.positive_deep import shifted_point
from theorems.margin_maximization.remarks import FAMILY_CLOSED_FORMS, RATIO_AT_LEAST, perturb_rationally, thm32_curve

ONE = fully_connected([1, 1], "linear")
X1, Y1 = np.ones((1, 1)), np.ones(1)


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_the_threshold_is_strict_at_theta_zero(loss) -> None:
    # θ = 0 and one sample: L = ℓ(0) exactly, so L < ℓ(0) fails and its ratio is 1
    assert not P.below_threshold(ONE, X1, Y1, loss, np.zeros(1))
    assert P.threshold_tightness(ONE, X1, Y1, loss, np.zeros(1)).tightest == pytest.approx(1.0, rel=1e-12)


def test_first_layer_pattern_counts_a_zero_preactivation_as_active() -> None:
    net = fully_connected([1, 2, 1], "relu")
    theta = np.array([0.0, -1.0, 1.0, 1.0])  # w = (0, −1): pre-activations 0 and −1 on x = 1
    np.testing.assert_array_equal(P.first_layer_pattern(net, theta, X1), [[1.0, 0.0]])


def test_saddle_instance_is_the_stated_counterexample_and_its_gradient_is_per_coordinate() -> None:
    s = P.saddle_instance()
    assert s.X.tolist() == [[1, 0]] and s.y.tolist() == [1]  # x = (1, 0), y = 1
    assert s.theta0.tolist() == [0, 1, 0, -1, 0, 0]  # W1 = ((0, 1), (0, −1)), v = 0
    # v = (1, −1): ∇_W₁Φ = v xᵀ = ((1, 0), (−1, 0)) ≠ 0 although its entries sum to 0
    assert not P.saddle_instance((1, -1)).gradient_is_zero


def test_balanced_reads_the_last_imbalance_and_the_rate_threshold() -> None:
    assert BALANCED((1e-2, 1e-4, 1e-6), 1e-5).holds  # the last value, not the one before, is ≤ the tolerance
    assert not BALANCED(tuple(1e-3 * (30.0 / n) for n in LIMIT_NORMS), 1.0).holds  # rate −1 > −1.5
    assert BALANCED((1e-2, 1e-4, 0.0), 1e-3).holds  # an exact 0 (balanced) is a value, not a missing point


def test_balanced_at_the_rate_threshold() -> None:
    values = tuple(2.0 * float(n) ** -1.5 for n in LIMIT_NORMS)  # fits to exactly −1.5 in floating point
    application = BALANCED(values, 1.0)
    assert application.decision.figures["rate"] == -1.5 and application.holds


@pytest.mark.parametrize(("c_sign", "m"), [(1.0, 3), (-1.0, 3), (-0.5, 3)])
def test_am_gm_equality_points(c_sign, m) -> None:
    sums, bounds = instances(np.random.default_rng(0), m, m, c_sign, 0)  # no random draws: the equality points only
    assert len(sums) == 100
    if c_sign > 0:
        np.testing.assert_allclose(sums, bounds)  # a_j = C: Σa_j² = mC²
    else:
        assert not sums.any()  # a = 0


def test_perturbation_is_a_scaled_rotation() -> None:
    # the same draws move e1 and e2: a scaled rotation sends them to a and Ja (J the quarter turn), |a|² = s⁴
    for seed in range(3):
        a = perturb_rationally(np.array([1.0, 0.0]), 0.1, np.random.default_rng(seed))
        b = perturb_rationally(np.array([0.0, 1.0]), 0.1, np.random.default_rng(seed))
        assert list(b) == [-a[1], a[0]]
        assert sympy.sqrt(sympy.sqrt(a[0] ** 2 + a[1] ** 2)).is_rational


def test_thm32_curve_against_its_closed_form() -> None:
    # x1 = (1, 2), x2 = (−1, −1): g = (2, −1) (g ⊥ x1, g·x2 = −1), c = v/|x2[0]|; w = (−1, 0) gives w·g = −2
    X = E.to_exact(np.array([[1, 2], [-1, -1]]))
    w = E.to_exact(np.array([-1, 0]))
    curve = thm32_curve(X, w, sympy.Integer(1))  # slope −1: ε < min(−2·(−1)/‖g‖², 1/v) = 2/5, half of it
    assert curve == {"eps_max": "1/5", "layers": [[["-1 + eps*(2)", "0 + eps*(-1)"], ["-sqrt((1)*eps)", 0]],
                                                  [["1", "sqrt((1)*eps)"]]]}
    assert thm32_curve(X, w, sympy.Integer(2)) is None  # slope exactly 0: no shorter curve
    assert thm32_curve(X, w, sympy.Rational(5, 2)) is None  # slope 1/2


def test_first_layer_pattern_of_a_deeper_network_is_the_first_layers() -> None:
    net = fully_connected([1, 2, 1, 1], "relu")
    theta = np.array([1.0, -1.0, 1.0, 1.0, 1.0])  # first layer w = (1, −1); second layer one unit
    np.testing.assert_array_equal(P.first_layer_pattern(net, theta, X1), [[1.0, 0.0]])


def test_unit_features_of_a_network_with_several_outputs() -> None:
    net = fully_connected([2, 1, 3], "linear")  # 2 first-layer weights, 3 second-layer ones
    X = np.array([[1.0, 2.0], [3.0, -1.0]])
    np.testing.assert_array_equal(P.unit_features(net, X), X)  # ∂/∂w of w·x: the inputs


def test_aligned_at_its_edges() -> None:
    assert ALIGNED((0.5, 0.5 - 5e-13, 1.0), 1e-3).holds  # a dip within 1e-12 still counts as increasing
    assert ALIGNED((0.5, 0.9999), 1e-3).holds  # the last cosine, not the first, meets 1 − tolerance
    assert not ALIGNED((0.9999, 0.5), 1e-3).holds


def test_settled_and_predictor_near_at_the_thresholds() -> None:
    assert not settled({"share": NONZERO_SHARE, "drift": 0.0})  # a share of exactly 5% is not non-zero
    assert settled({"share": 1.0, "drift": SETTLED})  # a drift of exactly SETTLED is settled
    assert not PREDICTOR_NEAR(np.zeros(2), np.zeros(2), np.array([1.0, NONZERO_SHARE])).holds
    assert PREDICTOR_NEAR(np.zeros(2), np.zeros(2), np.array([1.0, 0.5])).holds


def test_shifted_point_requires_positive_margins() -> None:
    one = fully_connected([1, 1], "linear")
    for seed in range(5):  # θ = 1: margins 1 + 0.1·N(0, 1), positive at the first draw
        shifted, rejected = shifted_point(one, np.ones(1), X1, Y1, np.random.default_rng(seed))
        assert rejected == 0 and 0 < shifted[0] < 1.5
    with pytest.raises(RuntimeError):  # margins −1/2 + N(0, 1)/20 are never positive
        shifted_point(one, np.array([-0.5]), X1, Y1, np.random.default_rng(0))
    with pytest.raises(RuntimeError):  # x = 0: every margin is exactly 0, not positive
        shifted_point(one, np.ones(1), np.zeros((1, 1)), Y1, np.random.default_rng(0))


def test_no_share_network_has_the_fields_its_name_states() -> None:
    net = NO_SHARE["locally connected d = 4, fields {1,2},{2,3},{3,4}"]("linear")
    X = np.arange(8.0).reshape(2, 4)
    F, blocks = P.unit_features(net, X), P.neuron_blocks(net)
    for j, field in enumerate(([0, 1], [1, 2], [2, 3])):
        np.testing.assert_array_equal(F[:, blocks.incoming[j]], X[:, field])


def test_ratio_at_least_compares_squares() -> None:
    assert not RATIO_AT_LEAST("50", "1", 10).holds  # ratio √50 < M = 10 (though 50 ≥ 2M)
    assert RATIO_AT_LEAST("100", "1", 10).holds  # exactly M


def test_family_inactive_on_x2_is_strict() -> None:
    # on 0 < δ ≤ 1 the neuron (1, δ)/(1 + δ²) has u·x2 = (δ² − 1)/(1 + δ²) = 0 at δ = 1: not inactive there
    assert "inactive on x2: False" in FAMILY_CLOSED_FORMS(upper="1").decision.detail
    assert "inactive on x2: True" in FAMILY_CLOSED_FORMS().decision.detail


@pytest.mark.parametrize(("c_squared", "expected"), [(0.25, -0.75), (4.0, -3.0)])
def test_worst_slack_normalizes_by_max_1_c_squared(monkeypatch, c_squared, expected) -> None:
    # one instance a = 0, constant 3: (0 − 3C²)/max(1, C²)
    monkeypatch.setattr(lemmas_c, "instances", lambda *args: (np.zeros(1), np.array([3.0 * c_squared])))
    assert lemmas_c.worst_slack(np.random.default_rng(0), 3, 3.0, 1.0, 1) == pytest.approx(expected)


def test_pattern_stable_radius_refuses_deeper_networks() -> None:
    with pytest.raises(ValueError, match="depth-2"):
        P.pattern_stable_radius(fully_connected([1, 2, 1, 1], "relu"), np.ones(5), X1)


def test_am_gm_search_draws_odd_m_only_for_negative_c() -> None:
    # C < 0 (here C = −|N|/2): only odd m, where Πa_j ≥ C^m < 0 is a real hypothesis; same draws in the same order
    rng = np.random.default_rng(7)
    expected = sum(len(instances(rng, m, m, -0.5, 50)[0]) for m in (3, 5))
    assert AM_GM_SEARCH(0, -0.5, 50, 7).decision.tightness[0].instances == expected
