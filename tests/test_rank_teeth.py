"""Paper 000: the thresholds and instances of the two-point helpers, pinned at their edges (what no claim's report
shows otherwise): the closed-form oracle's regime in every number system, and Lemma 3's determinant test."""

from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
import pytest
import sympy

from numerics.metrics import angle
from numerics.min_norm import minimum_norm
from numerics.networks import scalar_outputs
from theorems.rank_minimization import deep_margin, two_point_theorems
from theorems.rank_minimization.deep_common import parameters, student
from theorems.rank_minimization.two_point_common import (
    EXACT_ZERO_TOLERANCE,
    TwoPoints,
    from_neurons,
    negligible,
    neurons,
    oracle,
    paper_data,
    pythagorean_data,
    serving_neurons,
    zero_tolerance,
)
from theorems.rank_minimization.two_point_lemmas import parallel_rows_singular
from theorems.rank_minimization.two_point_setting import PYTHAGOREAN
from verify.claim import Context, Profile


def test_float_residuals_count_as_zero_up_to_the_tolerance_times_the_scale() -> None:
    assert zero_tolerance(0.0) == EXACT_ZERO_TOLERANCE
    assert negligible(np.array([1e-12])) and not negligible(np.array([1.001e-12]))  # scale 1 by default
    assert negligible(np.array([0.0, -2.5e-12]), 2.5) and not negligible(np.array([0.0, -2.51e-12]), 2.5)


@pytest.mark.parametrize("dps", [30, 45])
def test_mpmath_residuals_count_as_zero_a_few_digits_below_the_working_precision(dps: int) -> None:
    with mpmath.workdps(dps):
        edge = mpmath.mpf(10) ** (5 - dps)  # five digits of slack below the working precision
        assert zero_tolerance(mpmath.mpf(0)) == edge
        assert negligible(np.array([edge], dtype=object))
        assert not negligible(np.array([edge * mpmath.mpf("1.001")], dtype=object))
        assert negligible(np.array([mpmath.mpf(0), -3 * edge], dtype=object), 3)
        assert not negligible(np.array([mpmath.mpf(0), -3.01 * edge], dtype=object), 3)


def test_exact_residuals_count_as_zero_only_when_zero() -> None:
    assert zero_tolerance(sympy.Integer(0)) == 0
    assert negligible(np.array([sympy.sqrt(2) ** 2 - 2], dtype=object))
    assert not negligible(np.array([sympy.Rational(1, 10**40)], dtype=object), 10**50)


def as_mpmath(values: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda v: mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q, otypes=[object])(values)


def test_mpmath_oracle_matches_the_exact_one_and_its_regime_has_the_working_precisions_edge() -> None:
    """v_1(0) = y_1/5 + δ·n (n ⊥ y_1): the closed form holds for δ = 0 only; in mpmath at 30 digits an off-span
    part up to 10^(5 − 30)(1 + b) is rounding, a larger one is outside the regime (oracle raises)."""
    data = pythagorean_data(sympy.Rational(4, 5), sympy.Rational(3, 5))
    w = np.array([data.X[0] / 4, data.X[1] / 3])
    v = np.array([data.Y[0] / 5, data.Y[1] * 0])
    exact = oracle(from_neurons(w, v), data)
    normal = np.array([-data.Y[0][1], data.Y[0][0]])  # unit, ⊥ y_1
    with mpmath.workdps(30):
        floats = TwoPoints(as_mpmath(data.X), as_mpmath(data.Y))
        theta = as_mpmath(from_neurons(w, v))
        limit = oracle(theta, floats)
        assert max(abs(mpmath.mpf(str(sympy.N(e, 40))) - m) for e, m in zip(exact, limit)) < mpmath.mpf(10) ** -27
        edge = mpmath.mpf(10) ** -25 * (1 + mpmath.mpf(1) / 5)
        w_mp, v_mp = neurons(theta)
        for delta, inside in ((edge * mpmath.mpf("0.99"), True), (edge * mpmath.mpf("1.01"), False)):
            shifted = from_neurons(w_mp, v_mp + np.array([delta * as_mpmath(normal), [0, 0]], dtype=object))
            assert (serving_neurons(shifted, floats) is not None) is inside
            if not inside:
                with pytest.raises(ValueError):
                    oracle(shifted, floats)


def test_lemma3_determinant_test_names_its_ratio_and_refuses_a_negative_one() -> None:
    alpha = sympy.Symbol("alpha", positive=True)
    proof, control = parallel_rows_singular(alpha), parallel_rows_singular(-alpha)
    assert proof.holds is True and proof.arguments == {"ratio": "alpha"}
    assert control.holds is False and control.arguments == {"ratio": "-alpha"}
    assert parallel_rows_singular(2 * alpha).arguments == {"ratio": "2*alpha"}  # another instance reads differently


# -- Lemma 1 / Sec. 5 (deep_margin): each condition of the flow criteria refuses on its own ---------------------
@pytest.fixture(scope="module")
def lemma1_flow() -> tuple:
    """rank.lem1's flow at seed 1: its separated checkpoints and the KKT point its direction heads to."""
    ctx = Context("rank.lem1", Profile.QUICK, 1)
    teacher, X, y, _ = deep_margin.one_class_instance()
    net = student(2, deep_margin.STUDENT_WIDTH, deep_margin.FLOW_DEPTH)
    run = deep_margin.exponential_flow(ctx, teacher, X, y, net)
    thetas = np.array([th for th in run.theta if np.min(y * scalar_outputs(net, th, X)) > 0])
    limit = minimum_norm(net, X, y, "margin", thetas[-1])
    return thetas, limit.theta, net, X, y


def test_lemma1_criterion_accepts_the_flow_and_refuses_an_incomplete_one(lemma1_flow: tuple) -> None:
    thetas, target, net, X, y = lemma1_flow
    assert deep_margin.approaches_kkt_point(thetas, target, net, X, y, True).decision.holds
    assert not deep_margin.approaches_kkt_point(thetas, target, net, X, y, False).decision.holds


def test_lemma1_criterion_refuses_a_margin_that_does_not_increase(lemma1_flow: tuple) -> None:
    """The final state put first as well: the smoothed margin falls after it, the late checkpoints are untouched."""
    thetas, target, net, X, y = lemma1_flow
    record = np.concatenate([thetas[-1:], thetas])
    assert not deep_margin.approaches_kkt_point(record, target, net, X, y, True).decision.holds


def test_lemma1_criterion_refuses_a_residual_that_rises_late(lemma1_flow: tuple,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The second-to-last checkpoint's KKT residual read as half the last one: only the residual trend breaks."""
    thetas, target, net, X, y = lemma1_flow
    real = deep_margin.kkt_check
    last = real(net, thetas[-1], X, y, tol=np.inf).stationarity_residual

    def lowered(model, theta, *args, **kwargs):  # noqa: ANN001, ANN202 - the engine's signature
        result = real(model, theta, *args, **kwargs)
        if np.array_equal(theta, thetas[-2]):
            return dataclasses.replace(result, stationarity_residual=last / 2)
        return result

    monkeypatch.setattr(deep_margin, "kkt_check", lowered)
    assert not deep_margin.approaches_kkt_point(thetas, target, net, X, y, True).decision.holds


def test_lemma1_criterion_refuses_an_angle_that_rises_late(lemma1_flow: tuple) -> None:
    """One late checkpoint with its hidden units permuted: the same network (margin, loss and KKT residual
    unchanged), but a direction farther from the target, so only the angle trend breaks."""
    thetas, target, net, X, y = lemma1_flow
    W1, W2, W3 = (np.array(W, dtype=float) for W in net.matrices(thetas[-2]))
    P = np.eye(W1.shape[0])[[1, 2, 3, 0]]
    permuted = np.asarray(parameters([P @ W1, W2 @ P.T, W3]), dtype=float)
    assert np.allclose(scalar_outputs(net, permuted, X), scalar_outputs(net, thetas[-2], X), rtol=1e-12)
    assert angle(permuted, target) > angle(thetas[-3], target)
    record = thetas.copy()
    record[-2] = permuted
    assert not deep_margin.approaches_kkt_point(record, target, net, X, y, True).decision.holds


def test_sec5_norm_bound_needs_a_completed_flow() -> None:
    norms, log_losses = np.array([1.0, 5.0, 9.0]), np.array([0.5, -1.0, -4.0])
    assert deep_margin.norm_above_loss_bound(norms, log_losses, 1.0, 3, True).decision.holds
    assert not deep_margin.norm_above_loss_bound(norms, log_losses, 1.0, 3, False).decision.holds


def test_sec5_norm_growth_needs_a_monotone_norm() -> None:
    """A dip in ‖θ‖ with the same half-gains as an affine growth of ‖θ‖^k is refused on monotonicity alone."""
    depth = 3
    steady = np.array([1.0, 2.0, 3.0, 4.0, 5.0]) ** (1 / depth)
    dipped = np.array([1.0, 2.5, 2.0, 4.0, 5.0]) ** (1 / depth)  # halves at index 2: gains 1→2 and 2→5
    assert deep_margin.norm_grows(steady, depth).decision.holds
    decision = deep_margin.norm_grows(dipped, depth).decision
    assert not decision.holds and decision.figures["gain_ratio"] >= deep_margin.NO_SATURATION


# -- Thm 3 (two_point_theorems): the loss floor decides on its own ----------------------------------------------
def test_thm3_refutation_needs_a_loss_floor() -> None:
    """On the set of equal neurons the floor is |det Y|: targets of rank 1 (Assumption 1 dropped) have none, and
    the same criterion refuses although the set is invariant and the bound positive."""
    phi = sympy.acos(paper_data(exact=True).X[0] @ paper_data(exact=True).X[1])
    start_set = two_point_theorems.START_SETS[1]
    assert two_point_theorems.law_defeats_bound(start_set, phi, (0, 0)).decision.holds
    rank_one = pythagorean_data(*PYTHAGOREAN[1], Y=[[1, 2], [2, 4]])
    decision = two_point_theorems.law_defeats_bound(start_set, phi, (0, 0), [rank_one]).decision
    assert decision.holds is False and "['0']" in decision.detail and decision.figures["bound"] > 0


def test_the_construction_criterion_needs_the_fit_and_the_rank(monkeypatch: pytest.MonkeyPatch) -> None:
    """App. A's criterion asks for N(X) = Y exactly and rank W = 1: a network with App. A's rank-one W but a doubled
    output layer (rank 1, no fit) is refused, and so is W = 0 with the zero targets (a fit of rank 0). The
    construction itself never gives the first on admissible data, so only a replaced interpolant reaches it."""
    from theorems.rank_minimization import two_point_setting
    from theorems.rank_minimization.two_point_common import rank_one_interpolant

    data = paper_data(exact=True)
    assert two_point_setting.construction_interpolates([data]).holds is True
    theta = rank_one_interpolant(data)
    doubled = np.concatenate([theta[:4], 2 * theta[4:]])
    monkeypatch.setattr(two_point_setting, "rank_one_interpolant", lambda _: doubled)
    refused = two_point_setting.construction_interpolates([data])
    assert refused.holds is False and "(False, 1)" in refused.decision.detail
    monkeypatch.setattr(two_point_setting, "rank_one_interpolant", lambda _: 0 * theta)
    zero = TwoPoints(data.X, np.zeros((2, 2), dtype=object) * sympy.Integer(0), "Y = 0")
    refused = two_point_setting.construction_interpolates([zero])
    assert refused.holds is False and "(True, 0)" in refused.decision.detail


def test_the_loss_norm_floor_and_its_criterion_at_their_edges() -> None:
    """Sec. 5's floor k(−log L/max‖x‖)^(2/k) is read only where L < 1 (log L < 0, not at log L = 0), and the
    criterion accepts ‖θ‖² equal to it."""
    positive, lower = deep_margin.loss_norm_floor(np.array([0.0, -1.0, -4.0]), 2.0, 2)
    assert positive.tolist() == [False, True, True] and lower.tolist() == [1.0, 4.0]
    at = deep_margin.norm_above_loss_bound(np.array([5.0, 0.5]), np.array([0.0, -0.25]), 2.0, 2, True)
    assert at.holds is True and at.decision.figures["checkpoints_below_1"] == 1  # 0.5² = 2·(0.25/2) exactly
    below = deep_margin.norm_above_loss_bound(np.array([5.0, 0.49]), np.array([0.0, -0.25]), 2.0, 2, True)
    assert below.holds is False


def test_norm_growth_needs_a_first_half_gain_and_accepts_the_threshold() -> None:
    """‖θ‖^k's second-half gain over its first-half gain: no first-half gain reads as ratio 0 (fails), a ratio of
    exactly NO_SATURATION passes."""
    flat = deep_margin.norm_grows(np.array([1.0, 1.0, 1.0]), 1)
    assert flat.holds is False and flat.decision.figures["gain_ratio"] == 0.0
    edge = deep_margin.norm_grows(np.array([1.0, 2.0, 2.0 + deep_margin.NO_SATURATION]), 1)
    assert edge.decision.figures["gain_ratio"] == deep_margin.NO_SATURATION and edge.holds is True
