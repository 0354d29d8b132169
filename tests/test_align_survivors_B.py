"""Edges of align's GD criteria and helpers (descent_lemmas.py, descent_smoothness.py) that the claims' instances
do not reach: thresholds met exactly, traces built by hand whose answers are known in closed form, the search for a
constant-step break of Lemma 8 (a) at each of its step counts, and the instances the claims draw (step sizes, run
lengths, widths, starts)."""

from __future__ import annotations

import dataclasses
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
from flint import arb
from flint import ctx as flint_ctx

import theorems.layer_alignment.descent_lemmas as lemmas
import theorems.layer_alignment.descent_smoothness as smooth
from numerics.descent import max_layer_norm
from theorems.layer_alignment.common import Dataset, ds2, linear_network, risk
from theorems.layer_alignment.criteria import Named
from theorems.layer_alignment.descent_runs import (
    DescentTrace,
    Lemma8Terms,
    ball_smoothness,
    descent_trace,
    largest_assumption5_step,
)
from theorems.layer_alignment.flow_lemmas import lemma1_epsilon
from verify.claim import Context, Profile

SCALAR = linear_network((1, 1, 1))  # θ = (a, b): W_1 = a, W_2 = b


def _scalar_risk():
    """ℓ_log(ab) for the one point z = 1."""
    return risk(SCALAR, Dataset("z = 1", np.ones((1, 1))), "logistic")


def _trace(theta, gradients, step_sizes, risks, radii, net=SCALAR) -> DescentTrace:
    return DescentTrace(net, np.array(theta, dtype=float), np.array(gradients, dtype=float),
                        np.array(step_sizes, dtype=float), np.array(risks, dtype=float), np.array(radii, dtype=float))


# -- the summed identity (align.eq28) ----------------------------------------------------------------------------------

def test_mp_runs_fail_needs_every_residual_strictly_above_the_disagreement(monkeypatch) -> None:
    runs = Named("two runs", [("logistic", None), ("exponential", None)])
    monkeypatch.setattr(lemmas, "mp_relative_residual", lambda balance, sign: lemmas.mpmath.mpf(lemmas.DISAGREEMENT))
    assert lemmas.mp_runs_fail(runs, lemmas.PRINTED).holds is None  # at the threshold: neither far nor at precision
    monkeypatch.setattr(lemmas, "mp_relative_residual",
                        lambda balance, sign: lemmas.mpmath.mpf(2 * lemmas.DISAGREEMENT))
    assert lemmas.mp_runs_fail(runs, lemmas.PRINTED).holds is True


def test_float_runs_fail_counts_residuals_strictly_above_and_needs_more_than_half(monkeypatch) -> None:
    runs = Named("runs", [])
    at = np.full(4, lemmas.DISAGREEMENT)
    monkeypatch.setattr(lemmas, "float_relative_residuals", lambda balances, sign: at)
    decision = lemmas.float_runs_fail(runs, lemmas.PRINTED)
    assert decision.holds is None and decision.decision.figures["share_failing"] == 0.0
    half = np.array([2 * lemmas.DISAGREEMENT, 2 * lemmas.DISAGREEMENT, 0.0, 0.0])
    monkeypatch.setattr(lemmas, "float_relative_residuals", lambda balances, sign: half)
    decision = lemmas.float_runs_fail(runs, lemmas.PRINTED)
    assert decision.holds is None and decision.decision.figures["share_failing"] == 0.5  # half is not more than half
    most = np.array([2 * lemmas.DISAGREEMENT] * 3 + [0.0])
    monkeypatch.setattr(lemmas, "float_relative_residuals", lambda balances, sign: most)
    assert lemmas.float_runs_fail(runs, lemmas.PRINTED).holds is True


def test_histogram_draws_an_exact_zero_residual_at_1e_minus_18() -> None:
    assert lemmas.log10_residuals(np.array([0.0, 1e-3, 1e-20])).tolist() == [-18.0, -3.0, -18.0]


# -- the error term (align.rem.err) ------------------------------------------------------------------------------------

def _chain_run(sharp: float) -> SimpleNamespace:
    """A two-step record with both slacks 0 and S(1) = sharp·2κR(W(0)) (κ of depth 2, R(W(0)) = 1/2)."""
    S = sharp * (largest_assumption5_step(2) * 1.0)
    return SimpleNamespace(net=SimpleNamespace(depth=2), risk=np.array([0.5, 0.5 - S / 2]),
                           squared_step_error=np.array([0.0, S]), step_weighted_gradients=np.array([0.0, S]))


def test_error_chain_allows_S_equal_to_2_kappa_R0_and_nothing_above() -> None:
    assert lemmas.error_chain(Named("at the bound", [_chain_run(1.0)])).holds is True
    assert lemmas.error_chain(Named("above", [_chain_run(1.5)])).holds is False


# -- Lemma 7 -----------------------------------------------------------------------------------------------------------

# W(2) lies on the sphere of B(R_0) = B(2) (in the ball), W(3) outside; W_2 shrinks from t = 1 to t = 2; each layer has
# its own gradients and every step its own size, and R_t grows 2 → 3 → 5
LEMMA7_THETA = [(1.0, 0.5), (1.5, 1.0), (2.0, 0.75), (3.0, 2.0)]
LEMMA7_GRADIENTS = [(0.3, 0.7), (0.2, 0.9), (0.4, 0.1)]
LEMMA7_STEPS = [0.1, 0.2, 0.4]
LEMMA7_RISK = [0.5, 0.3, 0.2, 0.1]


def _lemma7_trace() -> DescentTrace:
    return _trace(LEMMA7_THETA, LEMMA7_GRADIENTS, LEMMA7_STEPS, LEMMA7_RISK, [2.0, 3.0, 5.0])


def test_lemma7_evidence_matches_its_closed_forms() -> None:
    evidence = lemmas.lemma7_evidence(_lemma7_trace(), 1.0)
    floor = lemma1_epsilon("logistic", 2, 2.0, 1.0, 0.3)
    assert floor > 0
    assert evidence.exit_step == 2  # B(R_0) is closed: W(2) on its sphere is inside
    assert evidence.radius_growth == 2.5  # R_T/R_0 = 5/2
    assert evidence.occupation == pytest.approx(0.7)  # η_0 + η_1 + η_2, the steps from W(0..2)
    assert evidence.occupation_bound == pytest.approx(0.1 + 2 * 0.5 / floor**2, rel=1e-12)  # η_0 + 2R(W(0))/ε²
    # ‖∂R/∂W_1‖ at t = 1, 2 (inside, after the first step) is 0.2, 0.4
    assert evidence.gradient_floor_slack == pytest.approx(0.2 - floor, rel=1e-12)
    assert evidence.unit_slack == -0.25  # 1 − the largest growth, ‖W_2‖: 0.75 → 2
    theta = np.array(LEMMA7_THETA)
    clock = np.concatenate([[0.0], np.cumsum(LEMMA7_STEPS)])
    allowance = np.sqrt(2 * 0.5 * clock) - np.linalg.norm(theta - theta[0], axis=1)
    assert evidence.displacement_slack == pytest.approx(float(np.min(allowance)), rel=1e-12)
    # a shrinking layer counts as growth 0 in (27)'s record, not as a negative growth
    assert evidence.bounds[0].loosest == 0.0


def test_lemma7_evidence_gives_no_occupation_bound_without_a_positive_floor() -> None:
    """A negative margin makes Lemma 1's ε(R) negative: no bound (∞), not 2R(W(0))/ε²."""
    assert lemma1_epsilon("logistic", 2, 2.0, -1.0, 0.3) < 0
    assert lemmas.lemma7_evidence(_lemma7_trace(), -1.0).occupation_bound == math.inf


LEMMA7_GOOD = lemmas.Lemma7Evidence(step_slack=0.0, unit_slack=0.5, displacement_slack=0.1, radius_growth=3.0,
                                    exit_step=10, occupation=2.0, occupation_bound=5.0, gradient_floor_slack=0.01)


def test_lemma7_holds_at_its_edges() -> None:
    assert lemmas.lemma7_holds(dataclasses.replace(LEMMA7_GOOD, occupation=5.0), 100)  # at the bound, undivided
    assert lemmas.lemma7_holds(dataclasses.replace(LEMMA7_GOOD, gradient_floor_slack=0.0), 100, 1.0)
    # "left in the first half": exit before ⌊T/2⌋
    assert not lemmas.lemma7_holds(dataclasses.replace(LEMMA7_GOOD, exit_step=50), 101, 1.0)
    assert lemmas.lemma7_holds(dataclasses.replace(LEMMA7_GOOD, exit_step=40), 100, 1.0)


def test_lemma7_proxies_without_runs_report_no_occupation() -> None:
    figures = lemmas.lemma7_proxies(Named("no runs", [])).decision.figures
    assert figures["max_occupation_over_bound"] == 0.0 and figures["runs_failing"] == 0


# -- Lemma 8: the certificate and the constant-step search -------------------------------------------------------------

def _violation(excess: arb, bound: arb, initial_risk: arb) -> lemmas.CertifiedViolation:
    return lemmas.CertifiedViolation(np.zeros(10), 10, 2, 1, excess, bound, initial_risk)


def _log2_lower_end() -> arb:
    """The exact lower end of the enclosure of log 2 (at the working precision)."""
    log2 = arb(2).log()
    with flint_ctx.workprec(300):
        return log2.mid() - log2.rad()


def test_certified_violation_needs_strict_inequalities() -> None:
    assert not _violation(arb(1), arb(1), arb("0.5")).certified  # excess equal to the bound
    assert not _violation(arb(2), arb(1), _log2_lower_end()).certified  # R(W(0)) not certainly below log 2
    assert _violation(arb(2), arb(1), arb("0.5")).certified


def test_certified_excess_violation_at_its_edges(monkeypatch) -> None:
    start = Named("a start", np.zeros(10))

    def terms(excess: arb, bound: arb, initial_risk: arb):
        monkeypatch.setattr(lemmas, "ball_excess_terms", lambda start, eta, steps: ([excess], bound, initial_risk))
        return lemmas.certified_excess_violation(start, 10, 2).holds

    assert terms(arb(1), arb(1), arb("0.5")) is None  # the excess equals the bound: neither above nor below
    assert terms(arb(2), arb(1), _log2_lower_end()) is None  # R(W(0)) < log 2 not certified
    assert terms(arb(2), arb(1), arb(1)) is None  # log 2 < R(W(0)) = 1 < log 3
    assert terms(arb(2), arb(1), arb("0.5")) is True
    assert terms(arb("0.5"), arb(1), arb("0.5")) is False


# admissible quarter-grid starts whose float64 break of (a) comes first after 3 steps (η = 30) and after 4 (η = 10)
BREAKS_AT_3 = np.array([-3, -4, -6, -4, 3, -1, -3, 6, -1, 0]) / 4
BREAKS_AT_4 = np.array([5, -6, -4, -5, 3, 3, 6, 6, 1, 2]) / 4


@pytest.mark.parametrize(("start", "steps", "eta"), [(BREAKS_AT_3, 3, 30), (BREAKS_AT_4, 4, 10)])
def test_constant_step_search_finds_a_break_at_each_step_count(start: np.ndarray, steps: int, eta: int) -> None:
    violation = lemmas.first_constant_step_violation(start[None])
    assert violation is not None and (violation.steps, violation.eta) == (steps, eta) and violation.certified


# -- Lemma 8's displays and eq. (37) -----------------------------------------------------------------------------------

def test_display_slacks_of_a_single_layer_are_vacuous() -> None:
    objective = risk(linear_network((2, 1)), ds2(), "logistic")
    terms = Lemma8Terms(descent_trace(objective, np.array([0.3, 0.4]), 3, 0.1))
    assert lemmas.display_slacks(terms, False) == {"(31)": math.inf, "(33)": math.inf, "(36)": math.inf, "(32)": 0.0}


def test_alignment_record_counts_a_cosine_rounded_above_one_as_alignment() -> None:
    aligned = np.array([1.0 + 2.0**-40, 1.0 + 2.0**-40])
    run = SimpleNamespace(depth=2, D=0.0, initial_spectral_squared=lambda k: 0.0, sigma=lambda k: np.ones(2),
                          alignment_squared=lambda k: aligned,
                          alignment_slack=lambda k, extra: aligned - (1.0 - extra))
    decision = lemmas.alignment_bounded(Named("aligned", [run]), lambda t, k: 0.5)
    assert decision.holds is True and decision.decision.tightness[0].loosest == 0.0


class _Drifts:
    """Two layers: ‖W_1‖_F² moves by ``drift`` in one step, ‖W_2‖_F² stays; R(W(0)) and S(t) as given."""

    depth = 2

    def __init__(self, drift: float, initial_risk: float = 0.5, step_error: float = 1.0) -> None:
        self.drift, self.initial_risk = drift, initial_risk
        self.trace = SimpleNamespace(squared_step_error=np.array([0.0, step_error]))

    def frobenius_squared(self, k: int) -> np.ndarray:
        return np.array([0.0, self.drift]) if k == 1 else np.zeros(2)


def test_drift_bounded_at_its_edges() -> None:
    def holds(drift: float, reference: str, **kwargs) -> bool:
        return lemmas.drift_bounded(Named("one run", [_Drifts(drift, **kwargs)]), reference).holds

    assert holds(1.0, "2R(W(0))")  # |drift| = 2R(W(0)) exactly
    assert not holds(1.5, "2R(W(0))")
    assert holds(1.0 + lemmas.FLOAT_TOLERANCE / 2, "S(t)")  # S(t) allows float rounding
    assert holds(1.0, "S(t)")
    assert not holds(1.5, "S(t)")
    # S(t) below 1 is the reference itself, not floored at 1
    small = 2.0**-10
    decision = lemmas.drift_bounded(Named("small steps", [_Drifts(small, step_error=small)]), "S(t)")
    assert decision.holds is True and decision.decision.figures["max_drift_over_S(t)"] == 1.0


# -- Assumption 4 and Lemma 5 (descent_smoothness.py) ------------------------------------------------------------------

def test_a_negative_tail_is_refuted_one_past_the_last_zero() -> None:
    certificate = smooth.certify_nonnegative(1 - smooth.U)
    assert not certificate.certified and certificate.witness == 2
    assert (1 - smooth.U).subs(smooth.U, certificate.witness) < 0


def test_sample_ball_puts_the_first_half_rounded_down_on_the_corner() -> None:
    net = linear_network((2, 2, 1))
    points = smooth.sample_ball(net, np.random.default_rng(0), 1.5, 5)
    norms = np.stack([np.linalg.norm(part, axis=1) for part in net.split(points)])
    on_corner = np.all(np.abs(norms - 1.5) < 1e-12, axis=0)
    assert on_corner.tolist() == [True, True, False, False, False]


def test_project_ball_keeps_points_inside_small_balls() -> None:
    theta = np.array([[0.1, 0.3]])
    assert np.array_equal(smooth.project_ball(SCALAR, theta, 0.5), theta)
    assert np.array_equal(smooth.project_ball(SCALAR, np.zeros((1, 2)), 0.0), np.zeros((1, 2)))  # B(0) = {0}


def test_hessian_below_smoothness_allows_the_bound_itself(monkeypatch) -> None:
    monkeypatch.setattr(smooth, "largest_hessian", lambda objective, radius, rng, samples:
                        (ball_smoothness(objective.model.depth, radius), None))
    cases = Named("one case", [("scalar", _scalar_risk(), 1.0, np.random.default_rng(0))])
    decision = smooth.hessian_below_smoothness(cases, 10)
    assert decision.holds is True and decision.decision.figures["max_ratio"] == 1.0


def test_ball_points_slack_keeps_a_next_point_on_the_sphere(monkeypatch) -> None:
    """W_1 of norm exactly 1 with W_2 = W_3 = 0 is stationary: the next point is on the sphere of B(1), in it."""
    objective = risk(linear_network((2, 2, 2, 1)), Dataset("two points", np.array([[1.0, 0.2], [0.3, 1.0]])),
                     "logistic")
    start = np.zeros((1, objective.model.n_params))
    start[0, 0] = 1.0
    monkeypatch.setattr(smooth, "sample_ball", lambda net, rng, radius, count: start)
    slack, decrease, guaranteed = smooth.ball_points_slack(objective, 1.0, 0.1, np.random.default_rng(0), 1)
    assert slack.size == 1 and decrease.tolist() == [0.0] and guaranteed.tolist() == [0.0]


# -- Lemma 6 -----------------------------------------------------------------------------------------------------------

def _eq26_slack(objective, theta: np.ndarray, eta: float) -> float:
    gradient = objective.gradient(theta)
    following = theta - eta * gradient
    value = float(objective.value(theta))
    return (float(objective.value(following)) - value + 0.5 * eta * float(gradient @ gradient)) / (1.0 + value)


def test_ball_exit_measures_eq26_on_the_steps_inside_only() -> None:
    objective = _scalar_risk()
    eta = 1.0 / ball_smoothness(2, 1.0)
    at_once = smooth.ball_exit(objective, np.array([0.999, 0.999]), 1.0, 1.0, 10)
    assert at_once.exit_step == 1 and at_once.descent_slack == -math.inf  # the step that leaves is not inside
    theta0 = np.array([0.95, 0.95])
    second = smooth.ball_exit(objective, theta0, 1.0, 1.0, 10)
    assert second.exit_step == 2
    assert second.descent_slack == pytest.approx(_eq26_slack(objective, theta0, eta), rel=1e-9)
    assert second.descent_slack < 0


def test_ball_exit_has_no_bound_without_a_positive_floor() -> None:
    objective = _scalar_risk()
    assert lemma1_epsilon("logistic", 2, 1.0, -1.0, float(objective.value(np.array([0.95, 0.95])))) < 0
    assert smooth.ball_exit(objective, np.array([0.95, 0.95]), 1.0, -1.0, 10).bound == math.inf


def test_lemma6_holds_when_the_exit_meets_its_bound() -> None:
    assert smooth.lemma6_holds(smooth.BallExit(1.0, exit_step=10, bound=10.0, descent_slack=0.0, steps=10,
                                               final_norm=2.0))


def test_start_in_ball_accepts_a_start_on_the_sphere(monkeypatch) -> None:
    draws = iter([np.array([1.0, 0.5]), np.array([0.5, 0.5])])
    monkeypatch.setattr(smooth, "admissible_initialization", lambda objective, rng, scale: next(draws))
    assert smooth.start_in_ball(_scalar_risk(), np.random.default_rng(0), 1.0).tolist() == [1.0, 0.5]


# -- Assumption 5 ------------------------------------------------------------------------------------------------------

ON_SPHERE = 1.0 + smooth.GAUGE_ROUNDING  # a norm whose rounding allowance brings it to 1 exactly
assert ON_SPHERE / (1.0 + smooth.GAUGE_ROUNDING) == 1.0


def _violations(theta, radii, step_sizes, gradients=None, smoothness=lambda r: 4.0 * r) -> dict[str, int]:
    gradients = np.zeros((len(step_sizes), 2)) if gradients is None else gradients
    trace = _trace(theta, gradients, step_sizes, np.zeros(len(theta)), radii)
    return {k: v for k, v in smooth.assumption5_violations(trace, smoothness).items() if v}


def test_assumption5_violations_of_a_clean_run_on_the_sphere() -> None:
    """Every iterate on the sphere of its ball (in it), the rule's steps: nothing broken."""
    assert _violations([(ON_SPHERE, 0.5), (0.5, ON_SPHERE), (0.2, 0.2)], [1.0, 1.0], [0.25, 0.25]) == {}


def test_assumption5_step_rule_caps_at_1() -> None:
    assert _violations([(0.5, 0.5), (0.5, 0.5)], [1.0], [1.0], smoothness=lambda r: 0.5) == {}


def test_assumption5_step_rule_tolerance_is_relative() -> None:
    rule = 0.25
    assert _violations([(0.5, 0.5), (0.5, 0.5)], [1.0], [rule * (1 + 3e-12)]) == {"η_t ≠ min{1/β(R_t), 1}": 1}
    assert _violations([(0.5, 0.5), (0.5, 0.5)], [1.0], [rule * (1 + 0.5e-12)]) == {}


def test_assumption5_radius_growth_needs_a_reason() -> None:
    steps = [0.25, 0.125]
    # W(1) on the sphere of B(1) and the trial step from it inside: growing R was not needed
    assert _violations([(0.5, 0.5), (ON_SPHERE, 0.5), (0.5, 0.5)], [1.0, 2.0], steps) == {"R_t grew without need": 1}
    # the trial step from W(1) (gradient 0.2) ends inside B(1); with a step of rule/gradient it would not
    gradients = np.array([[0.0, 0.0], [-0.2, 0.2]])
    assert _violations([(0.5, 0.5), (0.9, 0.5), (0.9, 0.5)], [1.0, 2.0], steps, gradients) == {
        "R_t grew without need": 1}
    # the trial step ends exactly on the sphere (in the ball): not needed either
    gradients = np.array([[0.0, 0.0], [-4.0 * (ON_SPHERE - 0.5), 0.0]])
    assert 0.5 + 0.25 * 4.0 * (ON_SPHERE - 0.5) == ON_SPHERE
    assert _violations([(0.5, 0.5), (0.5, 0.5), (0.5, 0.5)], [1.0, 2.0], steps, gradients) == {
        "R_t grew without need": 1}
    # a growth by 1/2 without need counts as well
    assert _violations([(0.5, 0.5), (0.5, 0.5), (0.5, 0.5)], [1.0, 1.5], [0.25, 0.25 / 1.5]) == {
        "R_t grew without need": 1}


def test_assumption5_radius_bounds() -> None:
    small = _violations([(0.2, 0.2), (0.2, 0.2)], [0.5], [min(1.0, 1 / 2.0)])
    assert small == {"R_t < 1": 1}
    assert _violations([(0.5, 0.5), (0.5, 0.5), (0.5, 0.5)], [2.0, 1.5], [0.125, 1 / 6.0]) == {"R_t decreased": 1}
    # R grew by 3/2 in one step, needed since W(1) lies outside B(1)
    assert _violations([(0.5, 0.5), (2.0, 0.5), (2.0, 0.5)], [1.0, 2.5], [0.25, 0.1]) == {
        "W(t+1) ∉ B(R_t)": 1, "R_t grew by more than 1": 1}


def test_printed_clause_departure_on_the_sphere() -> None:
    """W(1) on the sphere of B(R_0) is in it: a growth there departs from the printed clause R_1 = R_0."""
    trace = _trace([(0.5, 0.5), (ON_SPHERE, 0.5), (0.5, 0.5)], np.zeros((2, 2)), [0.25, 0.125], np.zeros(3),
                   [1.0, 2.0])
    assert smooth.printed_clause_departures(trace) == 1


def test_hessian_climb_keeps_a_point_unless_a_trial_is_strictly_larger() -> None:
    """On z = 0 the risk is the constant ℓ(0): every Hessian is 0, every trial ties, and the point found is a sample."""
    objective = risk(linear_network((2, 2, 1)), Dataset("z = 0", np.zeros((1, 2))), "logistic")
    value, point = smooth.largest_hessian(objective, 1.0, np.random.default_rng(3), 20, climbs=3)
    samples = smooth.sample_ball(objective.model, np.random.default_rng(3), 1.0, 20)
    assert value == 0.0 and any(np.array_equal(point, row) for row in samples)


# -- the instances the claims draw -------------------------------------------------------------------------------------

def test_exact_runs_take_positive_steps_and_shorten_after_the_first_pass() -> None:
    """Each problem first with 4 steps, later passes with 3 (align.eq28's full profile); η is one of 1/10, …, 1/2 (a
    step 0 would conserve every quantity trivially). Seed 13 is one where a draw from 0, …, 5 starts with 0."""
    balances = lemmas.exact_balances(Context("align.eq28", Profile.QUICK, 13), 4)
    parsed = [re.search(r"η = (\S+), (\d+) steps", label).groups() for label, _ in balances]
    assert [int(steps) for _, steps in parsed] == [4, 4, 4, 3]
    assert all(eta in {"1/10", "1/5", "3/10", "2/5", "1/2"} for eta, _ in parsed)


def test_float_balances_alternate_the_two_widths() -> None:
    balances = lemmas.float_balances(Context("align.eq28", Profile.QUICK, 0), 3, 1)
    # W_2ᵀW_2 is 2 × 2 for widths [2, 2, 2, 1] and 4 × 4 for [3, 4, 3, 1]
    assert [balance.upper_change[0].shape[-1] for _, balance in balances[::3]] == [2, 4, 2]


def test_lemma7_cases_start_inside_the_unit_ball() -> None:
    cases = lemmas.lemma7_cases(Context("align.lem7", Profile.FULL, 0))
    assert cases and all(max_layer_norm(case.objective.model)(case.theta0) <= 1.0 for case in cases)


def test_lemma7_figures_mark_a_run_never_in_its_initial_ball() -> None:
    trace = _lemma7_trace()
    evidence = dataclasses.replace(lemmas.lemma7_evidence(trace, 1.0), exit_step=None)
    figures = lemmas.lemma7_run_figures(3, trace, evidence)
    assert figures == {"run3_last_step_in_initial_ball": -1, "run3_radius_growth": 2.5,
                       "run3_total_step": pytest.approx(0.7)}


def test_large_step_runs_cycle_through_data_and_step_sizes() -> None:
    terms = lemmas.large_step_terms(Context("align.lem8.corrected", Profile.QUICK, 0), 8)
    cycle = [(3.0, 2), (3.0, 3), (10.0, 2), (10.0, 3)]  # (η, input dimension: DS2 is planar, DS3 spatial)
    assert [(float(t.trace.step_sizes[0]), t.trace.net.d_in) for t in terms] == cycle * 2
