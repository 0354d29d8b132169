"""numerics.convex pinned where the closed-form tests of tests/test_convex.py leave room.

* Every exact KKT condition of ``_verify`` on hand-made exact points: a valid point accepted (with a zero dual on a
  slack constraint, a negative coordinate, a free negative interpolation dual) and, for each condition, a point where
  it fails and the certificate is refused (those conditions that weak duality couples, e.g. stationarity and a zero
  gap for "l2", are checked together); ``Certificate.verified`` refuses each of its five flags alone.
* Two-point instances solved end to end with their exact answers: β, α, objective, norm, margin, direction, the
  active set and support (with negative coordinates), and the float fields of the reference (weights ≠ 1 and
  norms ≠ 1, so that c·β² against c/β², 1/norm against norm and the like differ).
* The "solved" path (no certificate): the primary solver's β, α (signs for margins and interpolation) and objective,
  the active set read at the first zero threshold (slack 4.8e-7 active, 5e-5 not), and NaN duals for each of the
  n constraints when the solver returns none.
* The zero thresholds in their order 1e-6, 1e-8, 1e-4: a slack of 2⁻²¹ dropped only at the second, an inaccurate
  slack 5e-5 of an active constraint caught only at the third, and the reason of the last failing set.
* ``_Numeric.scale`` and ``_numeric_sets`` at the edge of their thresholds; ``_cross_check`` at the edge of its
  tolerance (objective gap = tol and solution gap = √tol agree), each half of ``agree`` failing alone, "l1" judged
  on objectives only, the gaps relative to max(1, ·), the fallback solver and both solvers failing.
* ``_certify_vertex``: sub-supports of 1 … |active| coordinates, largest |β̂| first, at most 64 of them, skipped where
  the support is no larger than the active set, and a None or unverified candidate passed over.
* ``_quiet_highs``: file descriptor 1 sent to /dev/null while the first ``Highs`` is built and restored after, once,
  and run before HIGHS solves only.
* ``group_norm_problem``: the gaps against their definitions (relative to max(1, ·)) and the message's format.
"""

from __future__ import annotations

import os
import types
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import sympy
from sympy import Rational as Q
from sympy import sqrt

from numerics import convex
from numerics.convex import Certificate, ConvexProblem, CrossCheck, max_margin, min_norm_interpolation


def exact(rows) -> np.ndarray:
    """Object array of sympy rationals (ints and Fractions kept exact)."""
    return np.vectorize(lambda v: sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction)
                        else sympy.Integer(v), otypes=[object])(np.array(rows, dtype=object))


def same(actual, expected) -> bool:
    actual = list(np.asarray(actual, dtype=object).ravel())
    return len(actual) == len(expected) and all(sympy.simplify(a - e) == 0 for a, e in zip(actual, expected))


def verify(norm, constraint, X, y, beta, alpha, weights=None) -> Certificate:
    problem = ConvexProblem(norm, constraint, exact(X), exact(y), None if weights is None else exact(weights))
    return convex._verify(problem, exact(beta), exact(alpha))


F = Fraction


# -- Certificate.verified: each flag alone refuses ----------------------------------------------------------------
@pytest.mark.parametrize("failing", ["primal_feasible", "dual_feasible", "stationary", "complementary", "zero_gap"])
def test_certificate_is_verified_only_when_every_flag_holds(failing):
    flags = {name: name != failing for name in
             ("primal_feasible", "dual_feasible", "stationary", "complementary", "zero_gap")}
    zero = np.array([sympy.Integer(0)], dtype=object)
    cert = Certificate(zero, zero, zero, sympy.Integer(0), sympy.Integer(0), sympy.Integer(0), sympy.Integer(1),
                       **flags)
    assert not cert.verified and cert.failed_tests() == [failing]
    assert Certificate(zero, zero, zero, 0, 0, 0, 1, True, True, True, True, True).verified


# -- _verify, l2 ------------------------------------------------------------------------------------------------
def test_l2_margin_point_with_a_zero_dual_on_a_slack_constraint_is_verified():
    # β = (1, 1) on e1, e2; the third point 2·(1, 1) has margin 4, slack 3 and dual 0 (α ≥ 0 holds, α > 0 would not)
    cert = verify("l2", "margin", [[1, 0], [0, 1], [2, 2]], [1, 1, 1], [1, 1], [1, 1, 0])
    assert cert.verified, cert.failed_tests()
    assert same(cert.slacks, [0, 0, 3]) and cert.objective == 1 and cert.dual_objective == 1 and cert.gap == 0
    assert cert.norm == sqrt(2) and cert.margin == 1 / sqrt(2)


def test_l2_primal_infeasibility_alone_is_refused():
    # β = (1, 0), α = (1, 0): stationary, complementary, α ≥ 0, gap ½ − (1 − ½) = 0, but the second margin is 0
    cert = verify("l2", "margin", [[1, 0], [0, 1]], [1, 1], [1, 0], [1, 0])
    assert cert.failed_tests() == ["primal_feasible"] and same(cert.slacks, [0, -1])


def test_l2_negative_margin_dual_alone_is_refused():
    # both constraints active at β = (1, 0); β = 2·a1 − a2, so α = (2, −1): only α ≥ 0 fails (gap ½ − (1 − ½) = 0)
    cert = verify("l2", "margin", [[1, 1], [1, 2]], [1, 1], [1, 0], [2, -1])
    assert cert.failed_tests() == ["dual_feasible"]


def test_l2_non_stationary_point_is_refused():
    # β = (1, 1) feasible and complementary with α = (1, 2): Aᵀα = (1, 2) ≠ β; gap ½|β − Aᵀα|² = ½
    cert = verify("l2", "margin", [[1, 0], [0, 1]], [1, 1], [1, 1], [1, 2])
    assert cert.failed_tests() == ["stationary", "zero_gap"] and cert.gap == Q(1, 2)


def test_l2_dual_on_a_slack_constraint_is_refused():
    # α = (½, ½, ½): Aᵀα = (1, 1) = β, but α3 > 0 on the third point's slack 1: Σ α_i s_i = ½ is the gap
    cert = verify("l2", "margin", [[1, 0], [0, 1], [1, 1]], [1, 1, 1], [1, 1], [F(1, 2), F(1, 2), F(1, 2)])
    assert cert.failed_tests() == ["complementary", "zero_gap"] and cert.gap == Q(1, 2)


def test_weighted_l2_certificate_values():
    # min ½(β1² + 2β2²) s.t. β1 + β2 ≥ 1: β = (2/3, 1/3), α = 2/3, f = 1/3, dual 2/3 − ½((2/3)² + (2/3)²/2) = 1/3
    cert = verify("l2", "margin", [[1, 1]], [1], [F(2, 3), F(1, 3)], [F(2, 3)], weights=[1, 2])
    assert cert.verified and cert.objective == Q(1, 3) and cert.dual_objective == Q(1, 3)
    assert cert.norm == sqrt(Q(2, 3))
    wrong = verify("l2", "margin", [[1, 1]], [1], [F(2, 3), F(1, 3)], [F(1, 3)], weights=[1, 2])
    assert not wrong.stationary and not wrong.verified


def test_l2_interpolation_accepts_a_negative_dual_and_refuses_a_residual():
    cert = verify("l2", "interpolation", [[1, 1]], [-1], [F(-1, 2), F(-1, 2)], [F(-1, 2)])
    assert cert.verified and cert.dual_feasible and same(cert.slacks, [0])
    # β = (1, 1), α = 1: stationary (β = Aᵀα) but Xβ − y = 1, so α·(Xβ − y) = 1 too; gap 1 − (1 − 1) = 1
    off = verify("l2", "interpolation", [[1, 1]], [1], [1, 1], [1])
    assert off.failed_tests() == ["primal_feasible", "complementary", "zero_gap"] and same(off.slacks, [1])
    # a negative residual too (no one-sided test for equalities)
    below = verify("l2", "interpolation", [[1, 1]], [1], [F(1, 4), F(1, 4)], [F(1, 4)])
    assert not below.primal_feasible


# -- _verify, l1 ------------------------------------------------------------------------------------------------
def test_l1_margin_certificates():
    # min |β1| + |β2| s.t. β1 + 2β2 ≥ 1: β = (0, ½), α = ½, Aᵀα = (½, 1): |·| ≤ c with equality on the support
    cert = verify("l1", "margin", [[1, 2]], [1], [0, F(1, 2)], [F(1, 2)])
    assert cert.verified and cert.objective == Q(1, 2) == cert.norm and cert.margin == 2
    # a negative coordinate: −2β1 + β2 ≥ 1 gives β = (−½, 0), Aᵀα = (−1, ½) = c·sign β on the support
    neg = verify("l1", "margin", [[-2, 1]], [1], [F(-1, 2), 0], [F(1, 2)])
    assert neg.verified, neg.failed_tests()
    # stationarity fails on a positive coordinate alone (Aᵀα = ½ ≠ 1 there)
    flat = verify("l1", "margin", [[1, 1]], [1], [F(1, 2), F(1, 2)], [F(1, 2)])
    assert not flat.stationary and flat.dual_feasible and not flat.verified
    # and on a negative one: β = (−1, 0) with α = ½ gives (Aᵀα)_1 = −½ ≠ −1
    flat_neg = verify("l1", "margin", [[-1, 0]], [1], [-1, 0], [F(1, 2)])
    assert not flat_neg.stationary and not flat_neg.verified


def test_l1_correlation_above_the_weight_alone_is_refused():
    # 2β1 + β2 ≥ 1 at β = (0, 1), α = 1: stationary on the support, gap 1 − 1 = 0, but (Aᵀα)_1 = 2 > c_1 = 1
    cert = verify("l1", "margin", [[2, 1]], [1], [0, 1], [1])
    assert cert.failed_tests() == ["dual_feasible"]
    # and below −c: Aᵀα = (−2, 1)
    below = verify("l1", "margin", [[-2, 1]], [1], [0, 1], [1])
    assert below.failed_tests() == ["dual_feasible"]
    # at the edge |(Aᵀα)_j| = c_j off the support it is accepted: β = (1, 0) on β1 + β2 ≥ 1 with α = 1
    edge = verify("l1", "margin", [[1, 1]], [1], [1, 0], [1])
    assert edge.verified


def test_l1_negative_margin_dual_alone_is_refused():
    # the point 1 twice: β = 1, α = (2, −1): Aᵀα = 1 = c, gap 1 − 1 = 0, only α ≥ 0 fails
    cert = verify("l1", "margin", [[1], [1]], [1, 1], [1], [2, -1])
    assert cert.failed_tests() == ["dual_feasible"]


def test_weighted_l1_correlation_bound_uses_the_weights():
    # min |β1| + 3|β2| s.t. β1 + β2 = 1: β = (1, 0), α = 1, Aᵀα = (1, 1) ≤ (1, 3)
    cert = verify("l1", "interpolation", [[1, 1]], [1], [1, 0], [1], weights=[1, 3])
    assert cert.verified and cert.objective == 1
    # β = (0, 1), α = 3: stationary on the support, gap 3 − 3 = 0, but (Aᵀα)_1 = 3 > 1
    bad = verify("l1", "interpolation", [[1, 1]], [1], [0, 1], [3], weights=[1, 3])
    assert bad.failed_tests() == ["dual_feasible"]


# -- end to end: exact two-point instances ------------------------------------------------------------------------
def test_two_point_svm_exactly():
    """A = diag(y) X = [[2, 2], [−2, 2]]: β = (0, ½), α = (⅛, ⅛), f = ⅛ = dual, ‖β‖ = ½, margin 2."""
    ref = max_margin(np.array([[2.0, 2.0], [2.0, -2.0]]), np.array([1.0, -1.0]))
    assert ref.status == "certified", ref.message
    cert = ref.certificate
    assert same(cert.solution, [0, Q(1, 2)]) and same(cert.duals, [Q(1, 8), Q(1, 8)])
    assert cert.objective == cert.dual_objective == Q(1, 8) and cert.gap == 0
    assert cert.norm == Q(1, 2) and cert.margin == 2 and same(cert.direction, [0, 1])
    assert ref.active == (0, 1) and ref.support == (1,)
    np.testing.assert_array_equal(ref.solution, [0.0, 0.5])
    np.testing.assert_array_equal(ref.duals, [0.125, 0.125])
    assert ref.objective == 0.125 and ref.norm == 0.5 and ref.margin == 2.0
    np.testing.assert_array_equal(ref.direction, [0.0, 1.0])
    assert abs(ref.numeric_objective - 0.125) < 1e-9
    assert ref.cross_check.solver == "OSQP" and ref.cross_check.agree and ref.cross_check.tolerance == 1e-6
    assert ref.message == "exact KKT certificate verified"


def test_weighted_l2_reference_fields():
    """min ½(β1² + 2β2²) s.t. β1 + β2 ≥ 1: β = (2/3, 1/3); ‖β‖ = √(4/9 + 2/9) = √(2/3), f = 1/3."""
    ref = max_margin(np.array([[1.0, 1.0]]), np.array([1.0]), weights=np.array([1.0, 2.0]))
    assert ref.status == "certified", ref.message
    assert ref.norm == pytest.approx(np.sqrt(2 / 3), rel=1e-15)
    assert ref.margin == pytest.approx(np.sqrt(3 / 2), rel=1e-15)
    np.testing.assert_allclose(ref.direction, np.array([2 / 3, 1 / 3]) / np.sqrt(2 / 3), rtol=1e-15)
    assert ref.numeric_objective == pytest.approx(1 / 3, rel=1e-8)  # the solver's objective uses √c, squared: c
    assert same(ref.certificate.direction, [Q(2, 3) / sqrt(Q(2, 3)), Q(1, 3) / sqrt(Q(2, 3))])


def test_weighted_l1_reference_fields_and_negative_support():
    """min 2|β1| + |β2| s.t. −4β1 + β2 ≥ 1 (y = 1): β = (−¼, 0), norm ½ (a vertex: 2/4 < 1), margin 2."""
    ref = max_margin(np.array([[-4.0, 1.0]]), np.array([1.0]), norm="l1", weights=np.array([2.0, 1.0]))
    assert ref.status == "certified", ref.message
    assert same(ref.certificate.solution, [Q(-1, 4), 0]) and same(ref.certificate.duals, [Q(1, 2)])
    assert ref.support == (0,) and ref.active == (0,)
    assert ref.norm == 0.5 and ref.margin == 2.0
    np.testing.assert_array_equal(ref.direction, [-0.5, 0.0])
    assert ref.numeric_objective == pytest.approx(0.5, rel=1e-8)
    assert ref.cross_check.solver == "HIGHS" and ref.cross_check.agree


def test_failed_reference_has_no_norm():
    ref = max_margin(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([1.0, 1.0]))
    assert ref.status == "failed" and ref.solver == "CLARABEL" and ref.cross_check is None
    for name in ("norm", "margin", "direction"):
        with pytest.raises(ValueError, match="no solution"):
            getattr(ref, name)


def test_problem_checks():
    with pytest.raises(ValueError, match="constraint must be"):
        ConvexProblem("l2", "equality", np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="n × d"):
        ConvexProblem("l2", "margin", np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="weights"):
        ConvexProblem("l2", "margin", np.ones((3, 2)), np.ones(3), weights=np.ones(3))
    with pytest.raises(ValueError, match="weights"):
        ConvexProblem("l1", "margin", np.ones((3, 2)), np.ones(3), weights=np.array([1.0, -1.0]))
    # margins: A = diag(y) X and b = 1 (n entries); interpolation: A = X, b = y
    p = ConvexProblem("l2", "margin", exact([[2, 3], [4, 5], [6, 7]]), exact([1, -1, 2]))
    assert same(p.exact_A.ravel(), [2, 3, -4, -5, 12, 14]) and same(p.exact_b, [1, 1, 1])
    assert same(p.exact_weights, [1, 1])
    q = ConvexProblem("l2", "interpolation", exact([[2, 3], [4, 5], [6, 7]]), exact([1, -1, 2]))
    assert same(q.exact_A.ravel(), [2, 3, 4, 5, 6, 7]) and same(q.exact_b, [1, -1, 2])


# -- the "solved" path: the primary solver's own answer --------------------------------------------------------
def test_uncertified_margin_reference_carries_the_primary_solution(monkeypatch):
    """e1, e2 and a third point with margin 1 + 5e-5 at β = (1, 1): inactive at the first threshold 1e-6 (a slack
    of 5e-5 would count as zero at 1e-4); duals (1, 1, 0) with the margin sign (α ≥ 0)."""
    monkeypatch.setattr(convex, "_exact_kkt_point", lambda *args: None)
    third = 0.5 + 2.5e-5
    ref = max_margin(np.array([[1.0, 0.0], [0.0, 1.0], [third, third]]), np.ones(3))
    assert ref.status == "solved" and ref.certificate is None
    assert ref.message.startswith("not certified: exact KKT system on active set")
    assert ref.active == (0, 1) and ref.support == (0, 1)
    np.testing.assert_allclose(ref.solution, [1.0, 1.0], atol=1e-9)
    # an interior-point dual of the inactive constraint is known to about gap / slack (slack 5e-5): 2.8e-7 was seen
    np.testing.assert_allclose(ref.duals, [1.0, 1.0, 0.0], atol=1e-5)
    assert ref.objective == ref.numeric_objective and abs(ref.objective - 1.0) < 1e-9
    # a slack of 2⁻²¹ ≈ 4.8e-7 counts as zero at the first threshold 1e-6 (it would not at 1e-8)
    near = 0.5 + 2.0**-22
    ref = max_margin(np.array([[1.0, 0.0], [0.0, 1.0], [near, near]]), np.ones(3))
    assert ref.status == "solved" and ref.active == (0, 1, 2)


def test_uncertified_interpolation_reference_has_the_lagrangian_sign(monkeypatch):
    """min ½|β|² s.t. β1 + β2 = −1: β = (−½, −½), α = −½ for f − α(Aβ − b) (cvxpy's ν is +½)."""
    monkeypatch.setattr(convex, "_exact_kkt_point", lambda *args: None)
    ref = min_norm_interpolation(np.array([[1.0, 1.0]]), np.array([-1.0]))
    assert ref.status == "solved" and ref.active == (0,) and ref.support == (0, 1)
    np.testing.assert_allclose(ref.solution, [-0.5, -0.5], atol=1e-9)
    np.testing.assert_allclose(ref.duals, [-0.5], atol=1e-8)
    assert abs(ref.objective - 0.25) < 1e-9


def test_no_dual_values_is_not_certified():
    problem = ConvexProblem("l2", "margin", np.eye(2), np.ones(2))
    numeric = convex._Numeric("X", "optimal", None, np.ones(2), np.array([1.0, np.nan]), 1.0, np.zeros(2))
    assert convex._certify(problem, numeric) == (None, "the solver returned no dual values")


# -- zero thresholds ---------------------------------------------------------------------------------------------
def numeric(beta, slacks, alpha=None) -> convex._Numeric:
    beta, slacks = np.array(beta, dtype=float), np.array(slacks, dtype=float)
    alpha = np.zeros(len(slacks)) if alpha is None else np.array(alpha, dtype=float)
    return convex._Numeric("X", "optimal", None, beta, alpha, 0.0, slacks)


def test_scale_is_at_least_one():
    assert numeric([0.25, -0.5], [0.125]).scale == 1.0
    assert numeric([0.25, -3.0], [2.0]).scale == 3.0
    assert numeric([0.25, 1.0], [-4.0]).scale == 4.0


def test_numeric_sets_at_the_edge_of_the_threshold():
    margin = ConvexProblem("l2", "margin", np.eye(3), np.ones(3))
    # scale 1 (all sizes below 1): zero = threshold exactly; a slack equal to it is active, a coordinate is not
    n = numeric([0.5, 2.0**-10, 2.0**-11], [2.0**-11, 2.0**-10, 0.5])
    assert convex._numeric_sets(margin, n, 2.0**-10) == ((0, 1), (0,))
    assert convex._numeric_sets(margin, n, 2.0**-11) == ((0,), (0, 1))
    # scale 4 (the largest slack): zero = 4 · threshold
    m = numeric([0.5, 2.0**-9, 2.0**-8], [2.0**-8, -4.0, 2.0**-7])
    assert convex._numeric_sets(margin, m, 2.0**-10) == ((0,), (0,))
    # interpolation: every constraint counts as active
    interpolation = ConvexProblem("l2", "interpolation", np.eye(3), np.ones(3))
    assert convex._numeric_sets(interpolation, n, 2.0**-10) == ((0, 1, 2), (0,))


# -- cross-check -------------------------------------------------------------------------------------------------
def cross(monkeypatch, norm, primary, second, tolerance):
    monkeypatch.setattr(convex, "_solve_numeric", lambda problem, solver: second)
    problem = ConvexProblem(norm, "margin", np.eye(2), np.ones(2))
    return convex._cross_check(problem, primary, tolerance)


def second_of(primary, objective, beta, solver="OSQP") -> convex._Numeric:
    return convex._Numeric(solver, "optimal", None, np.array(beta), primary.alpha, objective, primary.slacks)


def test_cross_check_agrees_exactly_at_its_tolerance(monkeypatch):
    tol = 2.0**-20  # √tol = 2⁻¹⁰; every gap below is exact in binary
    primary = convex._Numeric("CLARABEL", "optimal", None, np.array([1.0, 0.5]), np.zeros(2), 1.0, np.zeros(2))
    at_edge = cross(monkeypatch, "l2", primary, second_of(primary, 1.0 + tol, [1.0 - 2.0**-10, 0.5]), tol)
    assert at_edge == CrossCheck("OSQP", "optimal", tol, 2.0**-10, True, tol)
    beyond_objective = cross(monkeypatch, "l2", primary, second_of(primary, 1.0 + 2 * tol, [1.0, 0.5]), tol)
    assert not beyond_objective.agree and beyond_objective.solution_gap == 0.0
    beyond_solution = cross(monkeypatch, "l2", primary, second_of(primary, 1.0, [1.0, 0.5 + 2.0**-9]), tol)
    assert not beyond_solution.agree and beyond_solution.objective_gap == 0.0
    # an LP may have a face of optima: only the objectives count for "l1"
    face = cross(monkeypatch, "l1", primary, second_of(primary, 1.0, [0.0, 1.5]), tol)
    assert face.agree and face.solution_gap == 1.0
    face_far = cross(monkeypatch, "l1", primary, second_of(primary, 1.0 + 2 * tol, [1.0, 0.5]), tol)
    assert not face_far.agree


def test_cross_check_gaps_are_relative_to_at_least_one(monkeypatch):
    small = convex._Numeric("CLARABEL", "optimal", None, np.array([0.25, -0.5]), np.zeros(2), 0.5, np.zeros(2))
    check = cross(monkeypatch, "l2", small, second_of(small, 0.25, [0.25, -0.25]), 1e-6)
    assert check.objective_gap == 0.25 and check.solution_gap == 0.25 and not check.agree
    large = convex._Numeric("CLARABEL", "optimal", None, np.array([4.0, -2.0]), np.zeros(2), 8.0, np.zeros(2))
    check = cross(monkeypatch, "l2", large, second_of(large, 6.0, [3.0, -2.0]), 1e-6)
    assert check.objective_gap == 0.25 and check.solution_gap == 0.25
    # the default tolerance
    same_answer = cross(monkeypatch, "l2", large, second_of(large, 8.0, [4.0, -2.0]), 1e-6)
    assert same_answer.agree
    monkeypatch.setattr(convex, "_solve_numeric", lambda problem, solver: second_of(large, 8.0 + 8e-6, [4.0, -2]))
    check = convex._cross_check(ConvexProblem("l2", "margin", np.eye(2), np.ones(2)), large)
    assert check.tolerance == 1e-6 and check.objective_gap == pytest.approx(1e-6) and check.agree


def test_cross_check_falls_back_when_the_second_solver_fails(monkeypatch):
    solve = convex._solve_numeric

    def failing(fail):
        def run(problem, solver):
            if solver in fail:
                return convex._Numeric(solver, "error", failure=f"{solver} error: test")
            return solve(problem, solver)
        return run

    monkeypatch.setattr(convex, "_solve_numeric", failing({"OSQP"}))
    ref = max_margin(np.array([[2.0, 2.0], [2.0, -2.0]]), np.array([1.0, -1.0]))
    assert ref.status == "certified" and ref.cross_check.solver == "SCS" and ref.cross_check.agree, ref.message
    monkeypatch.setattr(convex, "_solve_numeric", failing({"OSQP", "SCS"}))
    ref = max_margin(np.array([[2.0, 2.0], [2.0, -2.0]]), np.array([1.0, -1.0]))
    assert ref.cross_check == CrossCheck("OSQP", "OSQP error: test", np.inf, np.inf, False, 1e-6)
    assert ref.status == "certified" and "OSQP disagrees" in ref.message


def test_disagreement_message_and_relative_objective_gap(monkeypatch):
    """The primary objective is 2 here (β = (2, 0)): an offset of 0.1 is a relative gap of 0.05."""
    solve = convex._solve_numeric

    def biased(problem, solver):
        result = solve(problem, solver)
        if solver == "OSQP":
            return convex._Numeric(solver, result.status, None, result.beta + 0.1, result.alpha,
                                   result.objective + 0.1, result.slacks)
        return result

    monkeypatch.setattr(convex, "_solve_numeric", biased)
    ref = max_margin(np.array([[0.5, 0.0], [0.5, 0.5]]), np.ones(2))
    check = ref.cross_check
    assert check.objective_gap == pytest.approx(0.05, rel=1e-6) and check.solution_gap == pytest.approx(0.05, rel=1e-6)
    assert ref.status == "certified" and ref.message.startswith("exact KKT certificate verified; OSQP disagrees")


# -- vertices of an LP's optimal face ------------------------------------------------------------------------------
def fake_kkt(monkeypatch, answer):
    """_exact_kkt_point replaced by ``answer(subset)``; returns the list of subsets tried."""
    calls = []

    def kkt(problem, numeric, active, support):
        calls.append(tuple(support))
        return answer(tuple(support))

    monkeypatch.setattr(convex, "_exact_kkt_point", kkt)
    return calls


def verified_if(condition):
    return lambda subset: types.SimpleNamespace(verified=condition(subset), subset=subset)


def vertex(beta, active, support):
    problem = ConvexProblem("l1", "margin", np.eye(2), np.ones(2))
    n = convex._Numeric("X", "optimal", None, np.array(beta, dtype=float), np.zeros(2), 0.0, np.zeros(2))
    return convex._certify_vertex(problem, n, {(active, support)})


def test_vertex_candidates_are_small_supports_largest_first(monkeypatch):
    calls = fake_kkt(monkeypatch, verified_if(lambda s: False))
    assert vertex([0.1, -0.3, 0.2], (0,), (0, 1, 2)) is None
    assert calls == [(1,), (2,), (0,)]  # |β̂| ranked: 0.3, 0.2, 0.1; no empty support, no pairs for one constraint
    calls.clear()
    assert vertex([0.1, -0.3, 0.2], (0, 1), (0, 1, 2)) is None
    assert calls == [(1,), (2,), (0,), (1, 2), (0, 1), (0, 2)]


def test_vertex_needs_a_support_larger_than_the_active_set(monkeypatch):
    calls = fake_kkt(monkeypatch, verified_if(lambda s: True))
    assert vertex([0.1, -0.3], (0, 1), (0, 1)) is None and calls == []
    found = vertex([0.1, -0.3, 0.2], (0, 1), (0, 1, 2))
    assert found.subset == (1,)


def test_vertex_passes_over_none_and_unverified_candidates(monkeypatch):
    fake_kkt(monkeypatch, lambda s: None if s == (1,) else types.SimpleNamespace(verified=s == (0,), subset=s))
    assert vertex([0.1, -0.3, 0.2], (0,), (0, 1, 2)).subset == (0,)


def test_vertex_pair_found_only_with_two_active_constraints(monkeypatch):
    fake_kkt(monkeypatch, verified_if(lambda s: s == (0, 2)))
    assert vertex([0.1, -0.3, 0.2], (0,), (0, 1, 2)) is None
    assert vertex([0.1, -0.3, 0.2], (0, 1), (0, 1, 2)).subset == (0, 2)


@pytest.mark.parametrize("position, found", [(63, True), (64, False)])
def test_vertex_tries_at_most_64_candidates(monkeypatch, position, found):
    calls = fake_kkt(monkeypatch, verified_if(lambda s: s == (position,)))
    beta = np.arange(70, 0, -1) / 70  # ranked 0, 1, 2, ...
    result = vertex(beta, (0,), tuple(range(70)))
    assert (result is not None) == found
    assert len(calls) == (64 if not found else position + 1)


def test_vertex_gives_up_without_exact_arithmetic(monkeypatch):
    def kkt(*args):
        raise ArithmeticError("test")

    monkeypatch.setattr(convex, "_exact_kkt_point", kkt)
    assert vertex([0.1, -0.3, 0.2], (0,), (0, 1, 2)) is None


# -- the HiGHS banner ----------------------------------------------------------------------------------------------
def test_quiet_highs_silences_fd_1_once_and_restores_it(monkeypatch, capfd):
    highspy = pytest.importorskip("highspy")
    built = []

    def fake_highs():  # the real banner is printed only once per process: a stand-in that always prints
        built.append(1)
        os.write(1, b"banner\n")

    monkeypatch.setattr(highspy, "Highs", fake_highs)
    monkeypatch.setattr(convex, "_highs_banner_done", False)
    capfd.readouterr()
    convex._quiet_highs()
    os.write(1, b"after\n")
    convex._quiet_highs()  # a no-op the second time
    out, err = capfd.readouterr()
    assert built == [1] and out == "after\n" and err == ""


def test_only_highs_solves_silence_its_banner(monkeypatch):
    """The banner guard runs before HiGHS solves only: an "l2" problem (CLARABEL, OSQP) never builds a HiGHS
    instance, an "l1" problem runs it once, for its HIGHS cross-check."""
    calls = []
    monkeypatch.setattr(convex, "_quiet_highs", lambda: calls.append(1))
    assert max_margin(np.array([[1.0, 2.0]]), np.array([1.0])).status == "certified" and calls == []
    assert max_margin(np.array([[1.0, 2.0]]), np.array([1.0]), norm="l1").status == "certified" and calls == [1]


# -- group norms ---------------------------------------------------------------------------------------------------
def record_variables(monkeypatch) -> list:
    created, variable = [], cp.Variable

    def recording(*args, **kwargs):
        created.append(variable(*args, **kwargs))
        return created[-1]

    monkeypatch.setattr(cp, "Variable", recording)
    return created


@pytest.mark.parametrize("x, objective", [(2 / 3, 1.5), (4.0, 0.25)])
def test_group_norm_gaps_follow_their_definitions(monkeypatch, x, objective):
    """One point x·e1 (label 1), one block I: β = (1/x, 0), objective 1/x (above and below 1). The gaps are
    (primal − dual)/max(1, primal) and max|β − β_SCS|/max(1, max|β|), as recorded from the solver's variables."""
    created = record_variables(monkeypatch)
    ref = convex.group_norm_problem(np.array([[x, 0.0]]), np.array([1.0]), [np.eye(2)])
    assert ref.status == "solved", ref.message
    assert ref.objective == pytest.approx(objective, rel=1e-8) and ref.margin == pytest.approx(1 / objective, rel=1e-8)
    assert ref.dual_objective == pytest.approx(objective, rel=1e-8)
    assert ref.gap == (ref.objective - ref.dual_objective) / max(1.0, ref.objective)
    beta, second = created[0].value, created[-1].value
    assert np.array_equal(ref.solution, beta) and ref.solution_gap > 0
    assert ref.solution_gap == np.max(np.abs(beta - second)) / max(1.0, np.max(np.abs(beta)))
    assert ref.message == f"primal–dual gap {ref.gap:.1e}, SCS solution gap {ref.solution_gap:.1e}"
    np.testing.assert_allclose(ref.duals, [1 / x], rtol=1e-6)
    np.testing.assert_allclose(ref.block_duals, [1.0], rtol=1e-6)


def test_group_norm_with_no_cross_check(monkeypatch):
    # SCS replaced by OSQP (no cones: an error) and the epigraph form made unbounded: both listed once, gap inf
    monkeypatch.setattr(convex, "FALLBACK_SOLVER", "OSQP")
    monkeypatch.setattr(cp, "SOC", lambda t, x: t <= -1)
    ref = convex.group_norm_problem(np.array([[2.0, 0.0]]), np.array([1.0]), [np.eye(2)])
    assert ref.status == "solved" and ref.solution_gap == np.inf
    assert ref.message.startswith(f"primal–dual gap {ref.gap:.1e}, no cross-check (OSQP error")
    assert ref.message.count("OSQP error") == 1 and ref.message.endswith("CLARABEL status: unbounded)")


def test_group_norm_dual_with_two_dimensional_blocks():
    """Blocks of two rows: ‖(β1, β2)‖ + ‖(β3, 0)‖ under β1 + β3 ≥ 1, β2 ≥ 1 (a sum of 2-norms, not 1- or 3-norms)."""
    blocks = [np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])]
    ref = convex.group_norm_problem(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), np.ones(2), blocks)
    # β = (t, 1, max(0, 1 − t)): √(t² + 1) + 1 − t decreases up to t = 1 (derivative t/√(t² + 1) − 1 < 0), then
    # √(t² + 1) grows: β = (1, 1, 0), objective √2
    assert ref.status == "solved", ref.message
    np.testing.assert_allclose(ref.solution, [1.0, 1.0, 0.0], atol=1e-6)
    assert ref.objective == pytest.approx(np.sqrt(2), rel=1e-7) and abs(ref.gap) < 1e-8


# -- the zero thresholds in turn: 1e-6, then 1e-8, then 1e-4 -------------------------------------------------------
def test_a_nearly_active_constraint_is_dropped_at_the_second_threshold():
    """A third point with margin exactly 1 + 2⁻²¹ ≈ 1 + 4.8e-7 at β = (1, 1): counted active at 1e-6 (whose KKT system
    is then inconsistent), inactive at 1e-8, where the certificate holds."""
    third = 0.5 + 2.0**-22
    ref = max_margin(np.array([[1.0, 0.0], [0.0, 1.0], [third, third]]), np.ones(3))
    assert ref.status == "certified", ref.message
    assert ref.active == (0, 1) and same(ref.certificate.slacks, [0, 0, Q(1, 2**21)])


def test_an_inaccurate_active_constraint_is_caught_at_the_third_threshold():
    """The solver's slack 5e-5 on a truly active constraint: inactive at 1e-6·scale and 1e-8·scale (scale 3, the
    third point's slack), active at 1e-4·scale = 3e-4; the slack 3 of the third point stays inactive."""
    problem = ConvexProblem("l2", "margin", exact([[1, 0], [0, 1], [2, 2]]), exact([1, 1, 1]))
    n = numeric([1.0, 1.0], [0.0, 5e-5, 3.0], alpha=[1.0, 1.0, 0.0])
    cert, reason = convex._certify(problem, n)
    assert reason == "" and cert.verified and same(cert.solution, [1, 1]) and same(cert.duals, [1, 1, 0])
    # every threshold failing: the reason of the last set tried
    worse = numeric([1.0, 1.0], [0.0, 0.5, 3.0], alpha=[1.0, 1.0, 0.0])
    assert convex._certify(problem, worse) == (None, "exact tests failed on active set (0,): primal_feasible")


def test_missing_duals_are_reported_for_every_constraint(monkeypatch):
    """A solver that returns no dual values (cvxpy's dual_value None): α is NaN for each of the n constraints and the
    reference is only "solved"."""
    import dataclasses

    template = convex._template

    def without_duals(*args):
        return dataclasses.replace(template(*args), constraint=types.SimpleNamespace(dual_value=None))

    monkeypatch.setattr(convex, "_template", without_duals)
    ref = max_margin(np.array([[2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]), np.ones(3))
    assert ref.status == "solved" and ref.message.startswith("not certified: the solver returned no dual values")
    assert ref.duals.shape == (3,) and np.all(np.isnan(ref.duals))
    np.testing.assert_allclose(ref.solution, [0.5, 0.5], atol=1e-9)
