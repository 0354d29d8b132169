"""Edges of align's assumption, geometry and lemma criteria (Ji & Telgarsky, Secs. 1.2–2.2 and App. A) that the
claims' instances do not reach: each test feeds an input on which the criterion's boundary, index or closed form
decides, so a moved comparison, a shifted index or a changed constant changes the answer."""

from __future__ import annotations

import math
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import sympy

import theorems.layer_alignment.flow_assumptions as assumptions
import theorems.layer_alignment.flow_geometry as geometry
import theorems.layer_alignment.flow_lemmas as lemmas
from numerics import backend as B
from theorems.layer_alignment.common import (
    Dataset,
    ds2,
    initialization_constant,
    layer_gradient,
    layer_state,
    linear_network,
    loss_inverse,
    max_margin_direction,
    risk,
    run_flow,
)
from theorems.layer_alignment.criteria import Named
from verify.claim import Context, Profile

X, U = assumptions.X, assumptions.U


# -- Assumption 1 ------------------------------------------------------------------------------------------------------

def test_strict_decrease_needs_the_certificate_on_all_of_u_positive() -> None:
    """ℓ = e^{−3x}/3 − e^{−2x}/2 + e^{−x}/4 has −ℓ'(x) = e^{−x}(e^{−x} − 1/2)², zero at x = ln 2 only (no test point):
    after x = −ln u it is u(u − 1/2)², positive on (1, ∞) but not on (0, ∞), so strict decrease is not certified."""
    value = sympy.exp(-3 * X) / 3 - sympy.exp(-2 * X) / 2 + sympy.exp(-X) / 4
    touching = assumptions.LossFormula("touching", value, -sympy.log(U))
    assert all(sympy.diff(value, X).subs(X, p) != 0 for p in assumptions.TEST_POINTS)
    check = assumptions.check_assumption1(touching)
    assert check.strictly_decreasing is None and check.holds is None
    assert check.vanishing_right is True and check.unbounded_left is True


# -- Assumption 2's reference decision ---------------------------------------------------------------------------------

def _one_point_objective():
    """App. A's objective for m = 1: R(w_1, w_2) = e^{−w_2 w_1} on the single point z = 1."""
    objective, _ = assumptions.app_a_counter_initialization(1, 1.0)
    return objective


def test_reference_assumption2_accepts_a_risk_equal_to_the_loss_at_zero() -> None:
    """W_1 = 0, W_2 = 1: R(W(0)) = e^0 = ℓ(0) exactly and ‖∇R‖ = 1: Assumption 2 holds (R(W(0)) ≤ ℓ(0))."""
    assert assumptions.high_precision_assumption2(_one_point_objective(), np.array([0.0, 1.0])) is True


def test_reference_assumption2_gradient_floor_is_strict() -> None:
    """‖∇R(W(0))‖ exactly at the floor 10⁻¹⁰ (W_1 = 0, W_2 = the floor, in the working precision) is critical."""
    with mpmath.workdps(assumptions.ASSUMPTION2_DIGITS):
        floor = mpmath.mpf("1e-10")
        at_floor = np.array([mpmath.mpf(0), floor], dtype=object)
        gradient = _one_point_objective()
        exact = type(gradient)(gradient.model, B.to_object(gradient.X, "mp"), B.to_object(gradient.Y, "mp"),
                               gradient.loss, mean=True)
        assert mpmath.sqrt(sum(g ** 2 for g in exact.gradient(at_floor))) == floor
        above = np.array([mpmath.mpf(0), floor * (1 + mpmath.mpf(10) ** -30)], dtype=object)
    assert assumptions.high_precision_assumption2(_one_point_objective(), at_floor) is False
    assert assumptions.high_precision_assumption2(_one_point_objective(), above) is True


# -- the constant D ----------------------------------------------------------------------------------------------------

def test_exact_lower_bound_on_D_subtracts_the_last_layer() -> None:
    """W_1 = (2), W_2 = (1): D = max(4, 1) − ‖W_2‖² + |W_1W_1ᵀ − W_2ᵀW_2| = 4 − 1 + 3 = 6 (1×1 layers: exact)."""
    layers = [np.array([[sympy.Integer(2)]], dtype=object), np.array([[sympy.Integer(1)]], dtype=object)]
    assert assumptions.exact_constant_lower_bound(layers) == 6
    assert initialization_constant([B.to_float(W) for W in layers]) == 6.0
    assert assumptions.exact_constant_zero(layers).holds is False


def test_rational_balanced_layers_are_outer_products_of_the_units() -> None:
    units = assumptions.PYTHAGOREAN_UNITS[:2]
    W1, W2 = assumptions.rational_balanced_layers(sympy.Rational(1, 2), units)
    assert W1.shape == (2, 2) and W2.shape == (1, 2)
    half = sympy.Rational(1, 2)
    assert W1[0, 1] == half * units[1][0] * units[0][1] and W2[0, 1] == half * units[1][1]


# -- App. A ------------------------------------------------------------------------------------------------------------

def _exact_dataset(name: str, rows) -> Dataset:
    exact = np.array([[sympy.Rational(v) for v in row] for row in rows], dtype=object)
    return Dataset(name, B.to_float(exact), exact)


def test_mean_margin_may_equal_gamma() -> None:
    """Both points on the margin, (1/2, ±1/5): ū = e_1, γ = 1/2 and ⟨z̄, ū⟩ = 1/2 = γ exactly (≥ holds, 2γ fails)."""
    data = _exact_dataset("two points on the margin", [("1/2", "1/5"), ("1/2", "-1/5")])
    assert max_margin_direction(data).certified
    assert assumptions.mean_margin_at_least(data, 1).holds is True
    assert assumptions.mean_margin_at_least(data, 2).holds is False


def test_with_zero_layers_zeroes_exactly_the_first_layers() -> None:
    net = linear_network((3, 3, 2, 1))  # 9 + 6 + 2 parameters
    theta = np.arange(1.0, 18.0)
    for count, zeros in ((1, 9), (2, 15)):
        zeroed = assumptions.with_zero_layers(net, theta, count)
        assert np.all(zeroed[:zeros] == 0.0) and np.array_equal(zeroed[zeros:], theta[zeros:])
    assert theta[0] == 1.0  # a copy


@pytest.mark.parametrize("risks, holds", [
    ([1.0, 1.0, 1.0, 0.5], True),  # flat, then lower at the end: nonincreasing and R(T) < R(0)
    ([1.0, 0.5, 0.5, 0.5], True),  # the drop in the first interval counts
    ([1.0, 1.5, 1.2, 0.5], False),  # a rise in the first interval, from t = 0, is a rise
    ([1.0, 1.0, 1.0, 1.0], False),  # never lower than at t = 0
])
def test_first_layer_zero_flows_compare_the_last_checkpoint_with_t_zero(monkeypatch, risks, holds) -> None:
    monkeypatch.setattr(assumptions, "satisfies_assumption2", lambda objective, theta: True)
    monkeypatch.setattr(assumptions, "loss_at_zero", lambda loss: 1.0)
    monkeypatch.setattr(assumptions, "run_flow", lambda *args: SimpleNamespace(risks=np.array(risks)))
    objective = SimpleNamespace(value=lambda theta: 1.0, loss="logistic")
    decision = assumptions.first_layer_zero_admissible(Named("one", [(objective, np.zeros(3), True)]))
    assert decision.holds is holds
    assert decision.decision.figures["largest_final_risk"] == risks[-1]


def test_invariant_line_law_holds_for_one_coordinate() -> None:
    """m = 1 (w_1, w_2 scalars): the line w_2 = −w_1 + offset·e_1 needs the first unit vector of R¹."""
    assert assumptions.invariant_line_law(1, 0, 2).holds is True
    assert assumptions.invariant_line_law(1, 1, 2).holds is False


# -- Lemma 4 -----------------------------------------------------------------------------------------------------------

def test_intermediate_bounds_match_the_proof() -> None:
    """exp: θr e^{θr}/n − 1/e; log: θr/(2n) − 1/e (n = 2, θ = 1/2, r = 4)."""
    radius = np.array([4.0])
    assert geometry.intermediate_bound("logistic", 2, 0.5, radius)[0] == pytest.approx(0.5 - 1 / math.e, rel=1e-15)
    assert geometry.intermediate_bound("exponential", 2, 0.5, radius)[0] == pytest.approx(math.exp(2.0) - 1 / math.e,
                                                                                         rel=1e-15)


def test_radial_slack_is_zero_without_a_direction() -> None:
    """x_2.. = 0: no direction in ū^⊥, ⟨Π_⊥w, z_i⟩ = 0 for every i, so the scaled quantity is 0 (not 0/0)."""
    data = ds2()
    slack = geometry.radial_slack("exponential", data, max_margin_direction(data), 2.0)
    assert slack(np.array([1.0, 0.5, 0.0])) == 0.0



@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_radial_slack_at_zero_radius_is_the_limit_of_the_quotient(loss: str) -> None:
    """Threshold 0 and x_1 = 0 put w on the ū axis, where ⟨Π_⊥w, ∇R(w)⟩/‖Π_⊥w‖ is 0/0: the slack is the quotient's
    limit along the direction, so it agrees with the slack at a tiny radius (and is a number, not NaN)."""
    data = ds2()
    slack = geometry.radial_slack(loss, data, max_margin_direction(data), 0.0)
    at_zero, near_zero = slack(np.array([0.7, 0.0, 1.0])), slack(np.array([0.7, 1e-9, 1.0]))
    assert np.isfinite(at_zero) and at_zero != 0.0
    assert at_zero == pytest.approx(near_zero, rel=1e-6)

def _violations(monkeypatch, values) -> float:
    across = np.array([[0.0, 1.0], [0.0, 2.0], [0.0, 3.0]])  # radii 1, 2, 3
    monkeypatch.setattr(geometry, "_random_points", lambda rng, svm, count, low, high: (np.ones(3), across))
    monkeypatch.setattr(geometry, "scaled_projected_gradient", lambda *args: np.array(values, dtype=float))
    return geometry.largest_violation_radius("exponential", ds2(), None, 5.0, None, 3)


def test_largest_violation_radius_counts_only_negative_values(monkeypatch) -> None:
    assert _violations(monkeypatch, [-1.0, 0.0, 0.0]) == 1.0  # 0 at radii 2 and 3 is no violation
    assert _violations(monkeypatch, [0.0, 0.0, 0.0]) == 0.0
    assert _violations(monkeypatch, [1.0, 2.0, 3.0]) == 0.0


def _lemma4_case():
    data = ds2()
    return Named("DS2", [(data, max_margin_direction(data), 0.2, "exponential", np.random.default_rng(0))])


def test_sampled_push_back_accepts_zero(monkeypatch) -> None:
    """⟨Π_⊥w, ∇R(w)⟩ = 0 meets Lemma 4's ≥ 0; only a negative value refuses it."""
    for value, holds in ((0.0, True), (-1e-300, False)):
        monkeypatch.setattr(geometry, "scaled_projected_gradient",
                            lambda loss, data, svm, along, across, value=value: np.full(len(along), value))
        assert geometry.pushes_back_sampled(_lemma4_case(), 1.0, 3.0, 5).holds is holds


def test_adversarial_push_back_accepts_zero(monkeypatch) -> None:
    for value, holds in ((0.0, True), (-1e-300, False)):
        monkeypatch.setattr(geometry, "adversarial_minimum", lambda *args, value=value: value)
        assert geometry.pushes_back_adversarial(_lemma4_case(), 1.0, 1).holds is holds


def test_lemma4_random_data_alternate_between_two_and_three_dimensions(monkeypatch) -> None:
    dimensions = []

    def draw(rng, n, d):
        dimensions.append(d)
        return ds2()

    monkeypatch.setattr(geometry, "ds_random", draw)
    monkeypatch.setattr(geometry, "max_margin_direction", lambda data: None)
    monkeypatch.setattr(geometry, "spans_space", lambda data, svm: True)
    assert len(geometry._lemma4_datasets(Context("align.lem4", Profile.FULL, 1))) == 8
    assert dimensions == [2, 3, 2, 3, 2, 3]


# -- the layer gradient and Eq. (1) ------------------------------------------------------------------------------------

def test_reversed_lower_formula_keeps_the_upper_layers() -> None:
    """k = 3 of L = 4: W_4ᵀ g (W_1W_2)ᵀ, the lower product reversed and W_4 kept."""
    rng = np.random.default_rng(0)
    W1, W2, W3 = (rng.normal(size=(2, 2)) for _ in range(3))
    W4, g = rng.normal(size=(1, 2)), rng.normal(size=(1, 2))
    formula = lemmas.reversed_lower_formula([W1, W2, W3, W4], g, 3)
    np.testing.assert_allclose(formula, W4.T @ g @ (W1 @ W2).T, rtol=1e-12)
    assert not np.allclose(formula, layer_gradient([W1, W2, W3, W4], g, 3))


def test_time_reversal_reverses_every_state() -> None:
    objective = risk(linear_network((2, 2, 1)), ds2(), "logistic")
    run = run_flow("short", objective, np.random.default_rng(0).normal(size=objective.model.n_params) * 0.5,
                   np.linspace(0.0, 1.0, 5))
    backwards = lemmas.time_reversed(run)
    assert len(backwards.states) == len(run.states)
    assert all(a is b for a, b in zip(backwards.states, reversed(run.states)))


# -- Lemma 1 -----------------------------------------------------------------------------------------------------------

def test_lemma1_epsilon_takes_the_slope_on_all_of_minus_r_power_l_to_r_power_l(monkeypatch) -> None:
    """R = 2, L = 3: M_R is the least −ℓ' on [−8, 8]; a slope that drops only below x = −7 must be seen."""
    monkeypatch.setattr(lemmas, "margin_loss", lambda loss: SimpleNamespace(
        log_neg_derivative=lambda q: np.where(q < -7.0, -10.0, 0.0)))
    epsilon = lemmas.lemma1_epsilon("logistic", 3, 2.0, 0.5, 0.5)
    assert epsilon == pytest.approx(math.exp(-10.0) * 0.5 * loss_inverse("logistic", 0.5) / 2.0, rel=1e-12)


def test_ball_occupation_counts_the_sphere_as_inside() -> None:
    """B(R) is closed: intervals starting at max_k ‖W_k‖_F = R count (1 + 2), the one starting outside does not."""
    t = np.array([0.0, 1.0, 3.0, 6.0])
    assert lemmas.ball_occupation(t, np.array([1.0, 1.0, 2.0, 0.5]), 1.0) == 3.0


def _lemma1(monkeypatch, norms, max_norms, epsilon):
    """lemma1_holds on one stand-in run with checkpoints t = 0, 1, 2, …, R(W(0)) = 1 and B(1)."""
    count = len(max_norms)
    monkeypatch.setattr(lemmas, "first_layer_gradient_norms", lambda objective, thetas: np.array(norms, dtype=float))
    monkeypatch.setattr(lemmas, "lemma1_epsilon", lambda *args: epsilon)
    run = SimpleNamespace(objective=SimpleNamespace(loss="logistic"), trajectory=SimpleNamespace(
        theta=np.zeros((count, 1))), t=np.arange(float(count)), risks=np.ones(count), label="stand-in",
        series=lambda quantity: np.array(max_norms, dtype=float))
    return lemmas.lemma1_holds(Named("one run", [(run, 0.5)]), (1.0,), "W(t), t ≥ 1").holds


@pytest.mark.parametrize("norms, max_norms, epsilon, holds", [
    ([5, 0.5, 5, 5], [0.5, 0.5, 2, 3], 0.5, True),  # ‖∂R/∂W_1‖_F = ε(R) exactly
    ([5, 5, 5, 5], [0.5, 0.5, 2, 3], 1.0, True),  # time in B(1) = 2 = 1 + R(W(0))/ε² exactly
    ([5, 0.1, 5, 5], [0.5, 1.0, 2, 3], 0.5, False),  # a small gradient on the sphere ‖W‖ = R, which is in B(R)
    ([5, 5, 5, 5], [0.5, 0.5, 2, 1.0], 0.5, False),  # ends on the sphere: has not left B(R)
    ([5, 5, 5, 5], [0.5, 0.5, 2, 0.9], 0.5, False),  # left B(R), but is back inside at the last checkpoint
])
def test_lemma1_at_its_edges(monkeypatch, norms, max_norms, epsilon, holds) -> None:
    assert _lemma1(monkeypatch, norms, max_norms, epsilon) is holds


# -- Lemma 2 and the balanced remark -----------------------------------------------------------------------------------

def test_lemma2_sides_count_left_sides_rounded_below_zero_as_zero() -> None:
    layers = (np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[1.0, 0.0]]))  # balanced: D = 0
    state = SimpleNamespace(layers=layers, spectral=np.array([1.0, 1.0]), rank_one_excess=np.array([-1e-17, 0.0]),
                            left=(np.array([1.0, 0.0]), np.array([1.0])),
                            right=(np.array([1.0, 0.0]), np.array([1.0 + 2.0 ** -52, 0.0])))
    grown = SimpleNamespace(layers=layers, spectral=np.array([2.0, 2.0]), rank_one_excess=np.array([0.25, 0.0]),
                            left=state.left, right=(state.right[0], np.array([0.5, np.sqrt(0.75)])))
    excess_a, bound_a, excess_b, bound_b = lemmas.lemma2_sides(SimpleNamespace(initial_layers=layers,
                                                                               states=[state, grown]))
    assert list(excess_a) == [0.0, 0.25] and list(bound_a) == [0.0, 0.0]
    assert excess_b[0] == 0.0 and excess_b[1] == pytest.approx(0.75) and list(bound_b) == [2.0, 0.5]


def _aligning_run(gaps) -> SimpleNamespace:
    """A stand-in flow whose 1 − |⟨w_prod/∏F_k, e_1⟩| takes the given values on t = 10², …, 10⁶."""
    states = [SimpleNamespace(w_prod=np.array([1.0 - g, np.sqrt(1.0 - (1.0 - g) ** 2)]), frobenius=np.ones(1))
              for g in gaps]
    return SimpleNamespace(t=np.geomspace(lemmas.PROXY_START, 1e6, len(gaps)), states=states)


@pytest.mark.parametrize("gaps, holds", [
    ([0.1, 0.2, 0.15, 0.1, 0.05], False),  # rises right after t = PROXY_START, which the window includes
    ([0.1, 0.1, 0.1, 0.05], True),  # flat, then lower at the last checkpoint
    ([0.1, 0.05, 0.05, 0.05], True),  # lower than at PROXY_START from the second checkpoint on
    ([0.1, 0.05, 0.05, 0.1], False),
])
def test_product_aligns_window_starts_at_proxy_start(gaps, holds) -> None:
    run = _aligning_run(gaps)
    assert run.t[0] == lemmas.PROXY_START
    assert lemmas.product_aligns(Named("one run", [run]), lambda state: np.array([1.0, 0.0])).holds is holds


def test_balanced_defects_spread_is_relative_to_each_layer() -> None:
    """σ = (1, 2, 4): |σ_k − σ_(k+1)|/σ_k = 1 for both pairs."""
    layers = [np.diag([1.0, 0.0]), np.diag([2.0, 0.0]), np.array([[4.0, 0.0]])]
    second, spread, misalignment = lemmas.balanced_defects(SimpleNamespace(states=[layer_state(layers)]))
    assert second == 0.0 and spread == pytest.approx(1.0, rel=1e-12) and misalignment == pytest.approx(0.0, abs=1e-12)


def test_stays_rank_one_without_runs_reports_no_defect() -> None:
    decision = lemmas.stays_rank_one(Named("no runs", []), 1e-10, 1e-8)
    assert decision.holds is True and decision.decision.figures["max_D"] == 0.0


# -- eqs. (20)–(21) ----------------------------------------------------------------------------------------------------

def test_rate_errors_are_zero_where_both_rates_vanish() -> None:
    """W_1 = 0: ‖W_1‖² and ‖Π_⊥W_1‖² are even in the step, and w_prod = 0, so both sides are exactly 0 (error 0)."""
    data = ds2()
    objective = risk(linear_network((2, 2, 1)), data, "logistic")
    theta = np.array([0.0, 0.0, 0.0, 0.0, 0.7, -0.4])
    run = SimpleNamespace(objective=objective, trajectory=SimpleNamespace(theta=np.stack([theta, theta])))
    assert lemmas._relative_rate_errors([(run, max_margin_direction(data).direction)], 2.0) == (0.0, 0.0)


def _sign_check(monkeypatch, margins, rate) -> bool:
    monkeypatch.setattr(lemmas, "_relative_rate_errors", lambda runs, factor: (0.0, 0.0))
    monkeypatch.setattr(lemmas, "first_layer_norm_rates", lambda objective, theta, u_bar: (rate, 0.0, 0.0, 0.0))
    run = SimpleNamespace(margins=np.array([margins]), trajectory=SimpleNamespace(theta=np.zeros((1, 2))),
                          objective=None)
    return lemmas.measured_rates_match(Named("one checkpoint", [(run, None)]), 2.0, 1e-6).holds


@pytest.mark.parametrize("margins, rate, holds", [
    ([0.0, 0.5], -1.0, False),  # every margin ≥ 0 (one exactly 0, one below 1): ‖W_1‖ may not shrink
    ([-0.5, 0.5], -1.0, True),  # a negative margin: no sign condition
    ([0.0, 0.5], 0.0, True),  # a zero rate is nondecreasing
    ([0.0, 0.5], -0.5, False),
])
def test_eq20_sign_condition_at_its_edges(monkeypatch, margins, rate, holds) -> None:
    assert _sign_check(monkeypatch, margins, rate) is holds


def test_symbolic_rate_identities_need_the_factor_two() -> None:
    total, perp = lemmas._symbolic_rate_identities(2, (2, 2, 1))
    assert total.proved and perp.proved
    total, perp = lemmas._symbolic_rate_identities(1, (2, 2, 1))
    assert total.refuted and perp.refuted

