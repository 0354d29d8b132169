"""Every condition of every certificate in numerics/, violated alone: the certificate must refuse.

For each exact certificate (convex KKT and duality, the KKT multipliers of the max-margin problem — exact NNLS,
Clarke LP, separating direction —, better-point witnesses and witness curves, interval positivity, exact rank,
Sturm and Taylor signs, the projections and the exact upper bound of the global-optimum enumeration, exact signs
and affine solves, error-free products) a valid instance is accepted and, for each condition it checks, an
instance that violates exactly that condition is refused. The instances are small rationals; where it matters the
test checks independently (with Fractions) that the other conditions still hold, so that a certificate with the
condition deleted would accept. Numeric candidates come from solvers the certificates must not trust; here the
solvers are replaced (monkeypatch) by adversarial ones that return the violating candidate.

Conditions that other conditions imply cannot be violated alone; the ids say which come in pairs (for example a
non-stationary KKT pair of a convex problem always has a positive duality gap).
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.optimize
import sympy
from flint import arb, ctx, fmpq
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as Q

from numerics import convex, kkt
from numerics import exact as E
from numerics import global_optimum as G
from numerics.certificates import (
    Interval,
    certify_positive,
    certify_rank,
    enclose,
    enclose_singular_values,
    exact_rank,
    interval_function,
)
from numerics.convex import ConvexProblem
from numerics.exact import to_exact
from numerics.metrics import _split, _two_product
from numerics.networks import fully_connected
from numerics.symbolic import certify_rational_positive
from numerics.univariate import certified_sign

eps = sympy.Symbol("eps", positive=True)
x_, y_ = sympy.symbols("x y", real=True)


def fractions(values) -> list[Fraction]:
    return [Fraction(int(v.p), int(v.q)) if isinstance(v, sympy.Rational) else Fraction(v) for v in values]


# == convex duality: ConvexProblem's exact KKT certificate (_verify), one condition at a time ===================
def convex_conditions(norm, constraint, X, y, weights, beta, alpha) -> set[str]:
    """The KKT conditions of module numerics.convex that fail, computed independently with Fractions."""
    X = [fractions(row) for row in X]
    y, beta, alpha = fractions(y), fractions(beta), fractions(alpha)
    c = fractions(weights) if weights is not None else [Fraction(1)] * len(beta)
    A = [[yi * v for v in row] for yi, row in zip(y, X)] if constraint == "margin" else X
    b = [Fraction(1)] * len(y) if constraint == "margin" else y
    slack = [sum(a * v for a, v in zip(row, beta)) - bi for row, bi in zip(A, b)]
    z = [sum(A[i][j] * alpha[i] for i in range(len(A))) for j in range(len(beta))]
    sign = [(v > 0) - (v < 0) for v in beta]
    failed = set()
    if not all(s >= 0 if constraint == "margin" else s == 0 for s in slack):
        failed.add("primal_feasible")
    if (constraint == "margin" and any(a < 0 for a in alpha)) or (norm == "l1" and any(abs(v) > w for v, w in
                                                                                     zip(z, c))):
        failed.add("dual_feasible")
    if norm == "l2":
        stationary = all(w * v == zj for w, v, zj in zip(c, beta, z))
        gap = sum(w * v * v for w, v in zip(c, beta)) / 2 - (sum(bi * a for bi, a in zip(b, alpha))
                                                              - sum(zj * zj / w for zj, w in zip(z, c)) / 2)
    else:
        stationary = all(zj == w * s for zj, w, s in zip(z, c, sign) if s)
        gap = sum(w * abs(v) for w, v in zip(c, beta)) - sum(bi * a for bi, a in zip(b, alpha))
    if not stationary:
        failed.add("stationary")
    if any(a * s != 0 for a, s in zip(alpha, slack)):
        failed.add("complementary")
    if gap != 0:
        failed.add("zero_gap")
    return failed


_I2 = [[1, 0], [0, 1]]
CONVEX_CASES = [
    # id: (norm, constraint, X, y, weights, β, α, the conditions that fail)
    ("l2-margin-valid", "l2", "margin", _I2, [1, 1], None, [1, 1], [1, 1], set()),
    ("l2-margin-valid-negative-label", "l2", "margin", [[-1, 0], [0, 1]], [-1, 1], None, [1, 1], [1, 1], set()),
    ("l2-margin-weighted-valid", "l2", "margin", [[1, 1]], [1], [1, 2], [Q(2, 3), Q(1, 3)], [Q(2, 3)], set()),
    ("l2-margin-primal-feasibility", "l2", "margin", [[1], [2]], [1, 1], None, [Q(1, 2)], [0, Q(1, 4)],
     {"primal_feasible"}),
    ("l2-margin-dual-sign", "l2", "margin", [[1, 0], [2, 1]], [1, 1], None, [1, -1], [3, -1], {"dual_feasible"}),
    ("l2-margin-stationarity+gap", "l2", "margin", _I2, [1, 1], None, [1, 1], [1, 2], {"stationary", "zero_gap"}),
    ("l2-margin-complementarity+gap", "l2", "margin", [[1], [2]], [1, 1], None, [1], [Q(1, 2), Q(1, 4)],
     {"complementary", "zero_gap"}),
    ("l2-interpolation-valid", "l2", "interpolation", [[1, 0]], [1], None, [1, 0], [1], set()),
    ("l2-interpolation-free-dual-sign", "l2", "interpolation", [[1, 0]], [-1], None, [-1, 0], [-1], set()),
    ("l2-interpolation-positive-slack", "l2", "interpolation", [[1, 0]], [-1], None, [0, 0], [0],
     {"primal_feasible"}),
    ("l2-interpolation-negative-slack", "l2", "interpolation", [[1, 0]], [1], None, [0, 0], [0], {"primal_feasible"}),
    ("l1-margin-valid", "l1", "margin", [[1, 2]], [1], None, [0, Q(1, 2)], [Q(1, 2)], set()),
    ("l1-margin-dual-box", "l1", "margin", [[1, 2]], [1], None, [1, 0], [1], {"dual_feasible"}),
    ("l1-margin-dual-sign", "l1", "margin", [[1, 0], [2, 1]], [1, 1], None, [1, -1], [3, -1], {"dual_feasible"}),
    ("l1-margin-primal-feasibility", "l1", "margin", [[1], [2]], [1, 1], None, [Q(1, 2)], [0, Q(1, 2)],
     {"primal_feasible"}),
    ("l1-margin-stationarity+gap", "l1", "margin", [[1, 2]], [1], None, [Q(1, 2), Q(1, 4)], [Q(1, 2)],
     {"stationary", "zero_gap"}),
    ("l1-margin-complementarity+gap", "l1", "margin", [[1], [2]], [1, 1], None, [1], [Q(1, 2), Q(1, 4)],
     {"complementary", "zero_gap"}),
    ("l1-interpolation-valid", "l1", "interpolation", [[1, 1]], [1], [1, 3], [1, 0], [1], set()),
    ("l1-interpolation-dual-box", "l1", "interpolation", [[1, 1]], [1], [1, 3], [0, 1], [3], {"dual_feasible"}),
    ("l1-interpolation-free-dual-sign", "l1", "interpolation", [[1, 1]], [-1], [1, 3], [-1, 0], [-1], set()),
]


@pytest.mark.parametrize("norm, constraint, X, y, weights, beta, alpha, failing",
                         [case[1:] for case in CONVEX_CASES], ids=[case[0] for case in CONVEX_CASES])
def test_convex_certificate_refuses_exactly_the_violated_condition(norm, constraint, X, y, weights, beta, alpha,
                                                                   failing):
    assert convex_conditions(norm, constraint, X, y, weights, beta, alpha) == failing  # the instance is what it says
    problem = ConvexProblem(norm, constraint, to_exact(X), to_exact(y), None if weights is None else to_exact(weights))
    certificate = convex._verify(problem, to_exact(beta), to_exact(alpha))
    assert set(certificate.failed_tests()) == failing
    assert certificate.verified == (not failing)
    assert (certificate.gap == 0) == ("zero_gap" not in failing)


# Solver candidates (β, α) the exact re-solve on their active set and support reproduces, and must then refuse.
SOLVER_CANDIDATES = [
    ("l1-margin-optimum-accepted", "l1", [[1, 2]], [1], [0.0, 0.5], [0.5], "certified"),
    ("l1-margin-dual-box", "l1", [[1, 2]], [1], [1.0, 0.0], [1.0], "solved"),
    ("l1-margin-dual-sign", "l1", [[1, 0], [2, 1]], [1, 1], [1.0, -1.0], [3.0, -1.0], "solved"),
    ("l2-margin-optimum-accepted", "l2", [[1, 0], [2, 1]], [1, 1], [1.0, 0.0], [1.0, 0.0], "certified"),
    ("l2-margin-dual-sign", "l2", [[1, 0], [2, 1]], [1, 1], [1.0, -1.0], [3.0, -1.0], "solved"),
]


@pytest.mark.parametrize("norm, X, y, beta, alpha, status", [case[1:] for case in SOLVER_CANDIDATES],
                         ids=[case[0] for case in SOLVER_CANDIDATES])
def test_convex_solve_refuses_a_solver_candidate_that_is_not_dual_feasible(monkeypatch, norm, X, y, beta, alpha,
                                                                          status):
    """The solvers are replaced by one returning (β, α); only the exact certificate stands between it and
    "certified". Candidates violating dual feasibility (|Aᵀα| ≤ 1 for ℓ1, α ≥ 0) reach ``"solved"``."""
    problem = ConvexProblem(norm, "margin", to_exact(X), to_exact(y))
    A, beta, alpha = np.asarray(X, float) * np.asarray(y, float)[:, None], np.asarray(beta), np.asarray(alpha)
    value = float(np.sum(np.abs(beta))) if norm == "l1" else float(beta @ beta) / 2
    numeric = convex._Numeric("CLARABEL", "optimal", None, beta, alpha, value, A @ beta - 1.0)
    monkeypatch.setattr(convex, "_solve_numeric", lambda problem, solver: numeric)
    reference = problem.solve()
    assert reference.status == status, reference.message
    if status == "solved":
        assert reference.certificate is None and "dual_feasible" in reference.message


# == KKT multipliers of the max-margin problem: exact NNLS at smooth points ====================================
LINEAR = fully_connected([2, 1], "linear")  # Φ(θ; x) = ⟨θ, x⟩: ∇q_i = y_i x_i, degree 1


def fake_nnls(monkeypatch, lam) -> None:
    """NNLS replaced by a solver that returns ``lam`` whatever it is asked."""
    monkeypatch.setattr(scipy.optimize, "nnls", lambda A, b, *args, **kwargs: (np.array(lam, dtype=float), 0.0))


def test_kkt_valid_multipliers_are_accepted_and_a_true_non_kkt_point_is_proved():
    result = kkt.kkt_check(LINEAR, to_exact([1, 1]), to_exact(_I2), to_exact([1, 1]))
    assert result.status == "kkt" and result.exact and list(result.multipliers) == [1, 1]
    # θ = (1, −1) on x1 = (1, 0), x2 = (2, 1): both active, θ = 3x1 − x2 needs λ2 = −1 < 0: not KKT, proved.
    result = kkt.kkt_check(LINEAR, to_exact([1, -1]), to_exact([[1, 0], [2, 1]]), to_exact([1, 1]))
    assert result.status == "not_kkt" and result.exact and result.proved


def test_kkt_nnls_certificate_refuses_a_negative_multiplier(monkeypatch):
    """Numerically positive set {1, 2}: its exact least-squares multipliers (3, −1) make θ stationary (residual
    0), so only λ ≥ 0 refuses them; accepting them would call a non-KKT point KKT."""
    G_ = np.array([[1, 2], [0, 1]])  # columns ∇q_1 = x1, ∇q_2 = x2
    assert list(G_ @ np.array([3, -1])) == [1, -1]  # residual exactly 0 with λ = (3, −1)
    fake_nnls(monkeypatch, [3.0, 0.5])
    result = kkt.kkt_check(LINEAR, to_exact([1, -1]), to_exact([[1, 0], [2, 1]]), to_exact([1, 1]))
    assert not result.exact and not result.proved and "exact NNLS certificate failed" in result.message


def test_kkt_nnls_certificate_refuses_a_positive_gradient_correlation_off_the_positive_set(monkeypatch):
    """λ = (1, 0) at θ = (1, 1) on the identity data: λ ≥ 0 holds, the residual r = (0, 1) is not 0 and
    ∇q_2ᵀ r = 1 > 0 violates the dual condition Gᵀr ≤ 0; accepting would prove a KKT point "not_kkt"."""
    fake_nnls(monkeypatch, [1.0, 0.0])
    result = kkt.kkt_check(LINEAR, to_exact([1, 1]), to_exact(_I2), to_exact([1, 1]))
    assert not result.exact and not result.proved and "exact NNLS certificate failed" in result.message


def test_kkt_complementary_slackness_uses_the_exact_active_set():
    """A margin of 1 + 10⁻³⁰ is not active: its multiplier must be 0, so (1, 1 + 10⁻³⁰) is not KKT (a tolerance
    of any size would call it KKT)."""
    result = kkt.kkt_check(LINEAR, to_exact([1, 1 + Q(1, 10**30)]), to_exact(_I2), to_exact([1, 1]))
    assert result.status == "not_kkt" and result.exact and result.active == (0,)
    assert result.multipliers[1] == 0


def test_kkt_exact_stationarity_means_a_zero_residual():
    """θ = (1, 10⁻³⁰) on x = (1, 0): the residual 10⁻³⁰/‖θ‖ is tiny but not 0, so θ is not KKT, exactly."""
    result = kkt.kkt_check(LINEAR, to_exact([1, Q(1, 10**30)]), to_exact([[1, 0]]), to_exact([1]))
    assert result.status == "not_kkt" and result.exact and E.sign(result.stationarity_residual) > 0


@pytest.mark.parametrize("theta, infeasible", [([1, 0], True), ([1, -Q(1, 10**30)], True),
                                               ([1, Q(1, 10**30)], False)],
                         ids=["margin-zero", "margin-just-negative", "margin-just-positive"])
def test_kkt_primal_feasibility_edge(theta, infeasible):
    result = kkt.kkt_check(LINEAR, to_exact(theta), to_exact(_I2), to_exact([1, 1]))
    assert (result.status == "infeasible") == infeasible


@pytest.mark.parametrize("factor, status", [(1.1, "kkt"), (0.9, "not_kkt")], ids=["tol-just-above", "tol-just-below"])
def test_kkt_float_stationarity_tolerance_edge(factor, status):
    """θ = (1, δ) on x = (1, 0): relative residual δ/√(1 + δ²); tol 1.1× it passes, 0.9× it fails."""
    delta = 1e-3
    residual = delta / np.sqrt(1 + delta**2)
    result = kkt.kkt_check(LINEAR, [1.0, delta], [[1.0, 0.0]], [1.0], tol=factor * residual)
    assert result.status == status and result.stationarity_residual == pytest.approx(residual, rel=1e-12)


# == KKT at Clarke kinks: the exact feasible point of the LP, and the separating direction ====================
def fake_linprog(monkeypatch, x, p, fun=0.0) -> None:
    """HiGHS replaced by a solver claiming the optimum ``x`` (λ, μ) with objective ``fun``."""
    result = SimpleNamespace(status=0, x=np.array(list(x) + [0.0] * p), fun=fun, message="",
                             ineqlin=SimpleNamespace(marginals=np.zeros(2 * p + 8)))
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *args, **kwargs: result)


# (G, D, θ, solver's (λ, μ), the exact point nearest_solution makes of it or None, the condition violated)
CLARKE_CASES = [
    ("valid", [[1]], [[1]], [2], [1.0, 1.0], [1, 1], None),
    ("nonnegativity", [[1, 2]], [[Q(-1, 2)]], [-1], [2.0, 1.25, 0.5], [1, Q(-3, 4), 1], "nonnegative"),
    ("selection-at-most-one", [[1]], [[Q(-1, 2)]], [-1], [2.5, 2.0], [Q(1, 2), 3], "mu <= lambda"),
    ("consistency", [[1]], [[1]], [2], [0.0, 0.0], None, "consistent"),
]


@pytest.mark.parametrize("G_, D, theta, x, point, violated", [case[1:] for case in CLARKE_CASES],
                         ids=[case[0] for case in CLARKE_CASES])
def test_clarke_lp_certificate_refuses_exactly_the_violated_condition(monkeypatch, G_, D, theta, x, point, violated):
    """One sample, kink of its own: θ = λ g + μ d with λ ≥ 0 and 0 ≤ μ ≤ λ. In the invalid cases θ lies outside
    the cone {λg + μd : 0 ≤ μ ≤ λ} (so accepting would call a non-KKT point KKT)."""
    m = len(G_[0])
    if point is not None:  # check independently which conditions the exact point meets
        lam, mu = fractions(point[:m]), fractions(point[m:])
        g, d = fractions(G_[0]), fractions(D[0])
        assert sum(gi * li for gi, li in zip(g, lam)) + d[0] * mu[0] == Fraction(theta[0])  # M x = θ exactly
        conditions = {"nonnegative": min(lam + mu) >= 0, "mu <= lambda": mu[0] <= lam[0]}
        assert {name for name, ok in conditions.items() if not ok} == ({violated} if violated else set())
    fake_linprog(monkeypatch, x, p=1)
    found = kkt._clarke_multipliers(to_exact(G_), to_exact(D), [0], to_exact(theta), True, 1e-6)
    if violated is None:
        assert found.exact and list(found.lam) + list(found.mu) == point
    else:
        assert not found.exact and "no exact feasible point of the Clarke LP" in found.note


# g = (1, 0), d = (−2, 0), θ = (−1, 1): the cone {λg + μd : 0 ≤ μ ≤ λ} is the line ℝ × {0}, θ is not in it.
SEPARATION_CASES = [
    ("valid", [0, 1], True),  # ⟨u, θ⟩ = 1 > 0, ⟨u, g⟩ = 0, ⟨u, d⟩ = 0: worst = 0 ≤ 0 (the edge)
    ("theta-side", [0, -1], False),  # ⟨u, θ⟩ = −1 only
    ("theta-side-edge", [0, 0], False),  # ⟨u, θ⟩ = 0 is not > 0
    ("gradient-side", [1, 2], False),  # ⟨u, g⟩ = 1 > 0; ⟨u, d⟩ = −2 must not compensate
    ("kink-side", [-1, 0], False),  # ⟨u, g⟩ = −1 but ⟨u, g + d⟩ = 1 > 0
]


@pytest.mark.parametrize("u, accepted", [case[1:] for case in SEPARATION_CASES],
                         ids=[case[0] for case in SEPARATION_CASES])
def test_separating_direction_refuses_exactly_the_violated_condition(u, accepted):
    G_, D, theta = to_exact([[1], [0]]), to_exact([[-2], [0]]), to_exact([-1, 1])
    marginals = np.array([0.0, 0.0, *u, 0.0])  # u = marginals[p:2p] − marginals[:p]
    found = kkt._separating_direction(G_, D, [0], theta, marginals)
    assert (found is not None) == accepted
    if accepted:
        assert list(found[0]) == u and found[1] == 1


# == better-point witnesses and witness curves ================================================================
RELU = fully_connected([2, 2, 1], "relu")
HAND_X, HAND_Y = to_exact([[1, Q(1, 4)], [-1, Q(1, 4)]]), to_exact([1, 1])
HAND_KKT = to_exact([0, 2, 0, 0, 2, 0])


def hand_candidate(e):
    """w1' = (ε/2, 2 − 2ε), w2' = (−√(2ε), 0), v2' = √(2ε) (√(2ε) rational): margins (1, 1), ‖θ'‖² = 8 − 4ε + 17ε²/4."""
    root = sympy.sqrt(2 * e)
    assert root.is_Rational
    return to_exact([e / 2, 2 - 2 * e, -root, 0, 2, root])


@pytest.mark.parametrize("candidate, radius, failed", [
    (hand_candidate(Q(1, 1800)), Q(1, 20), None),
    (hand_candidate(Q(1, 800)), Q(1, 20), "inside the ball"),
    (HAND_KKT, Q(1, 20), "smaller norm"),  # the point itself: improvement exactly 0 is not > 0
], ids=["valid", "inside-the-ball", "smaller-norm-edge"])
def test_witness_refuses_exactly_the_violated_condition(candidate, radius, failed):
    witness = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, radius)
    assert witness.certified == (failed is None), witness.message
    if failed:
        assert witness.message == f"checks failed: {failed}"


def test_witness_refuses_a_point_below_margin_one(monkeypatch):
    """The rescaling factor replaced by one 1% too small: the point has margin 0.99² < 1 but is still better and
    inside the ball; only the margin check refuses it."""
    candidate = hand_candidate(Q(1, 1800))
    assert kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, Q(1, 5)).certified
    monkeypatch.setattr(kkt, "_rational_upper_root", lambda q, degree: Q(99, 100))
    witness = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, Q(1, 5))
    assert not witness.certified and witness.message == "checks failed: margin ≥ 1"


@pytest.mark.parametrize("model, theta, X, y, curve, upper, reason", [
    (RELU, HAND_KKT, HAND_X, HAND_Y, list(HAND_KKT), Q(1, 4), "not better"),  # improvement identically 0
    (LINEAR, to_exact([1, 0]), to_exact([[1, 0]]), to_exact([1]), [1 - eps + 2 * eps**2, 0], 1,
     "is not proved ≥ 1"),  # q − 1 = ε(2ε − 1) changes sign at 1/2
], ids=["improvement-edge", "margin-sign-undecided"])
def test_witness_curve_refuses_exactly_the_violated_condition(model, theta, X, y, curve, upper, reason):
    witness = kkt.certify_witness_curve(model, theta, X, y, curve, eps, upper)
    assert not witness.certified and reason in witness.message, witness.message


# == interval positivity: the whole ball, not its midpoint ======================================================
def exact_value_fails(expr, variables, point, threshold=0, strict=True) -> bool:
    """f(point) ≤ threshold (< with strict=False) proved at 256 bits."""
    with ctx.workprec(256):
        value = interval_function(expr, variables)(*(arb(fmpq(p.numerator, p.denominator)) for p in point))
    return bool(value <= threshold) if strict else bool(value < threshold)


MIDPOINT_TRAPS = [
    # f, variables, box: f is > 0 at the box's midpoint (and, for the cosine, at its ends too) but not everywhere
    ("linear-1d", x_ - Q(1, 4), [x_], [(0, 1)]),
    ("linear-2d", x_ + y_ - Q(1, 2), [x_, y_], [(0, 1), (0, 1)]),
    ("interior-dip", sympy.cos(4 * sympy.pi * x_) + Q(1, 2), [x_], [(0, 1)]),
]


@pytest.mark.parametrize("expr, variables, box", [case[1:] for case in MIDPOINT_TRAPS],
                         ids=[case[0] for case in MIDPOINT_TRAPS])
@pytest.mark.parametrize("max_depth", [0, 30], ids=["no-bisection", "bisection"])
def test_interval_certificate_checks_the_whole_ball_not_its_midpoint(expr, variables, box, max_depth):
    middle = [Fraction(lo + hi, 2) for lo, hi in box]
    assert not exact_value_fails(expr, variables, middle)  # a midpoint-only check would accept
    certificate = certify_positive(interval_function(expr, variables), box, max_depth=max_depth)
    assert not certificate.certified and certificate.certified_cells == ()
    if max_depth:
        assert certificate.witness is not None and exact_value_fails(expr, variables, certificate.witness)
    enclosure = enclose(interval_function(expr, variables), box)
    assert enclosure.lo < 0 < enclosure.hi


@pytest.mark.parametrize("box, threshold, strict, certified", [
    ([(0, 1)], 0, True, False),  # f(0) = 0 is not > 0
    ([(0, 1)], 0, False, True),
    ([(1, 2)], 1, True, False),
    ([(1, 2)], 1 - 2.0**-40, False, True),  # (at the threshold itself the ball sticks out below 1: refused)
    ([(1, 2)], 1 - 2.0**-40, True, True),
    ([(1, 2)], 1 + 2.0**-40, False, False),
], ids=["strict-at-zero", "nonstrict-at-zero", "strict-at-threshold", "nonstrict-just-below-threshold",
        "strict-just-below-threshold", "nonstrict-just-above-threshold"])
def test_interval_certificate_threshold_and_strictness_edges(box, threshold, strict, certified):
    certificate = certify_positive(lambda x: x, box, threshold=threshold, strict=strict)
    assert certificate.certified == certified


def test_interval_certificate_needs_every_cell_and_its_whole_budget():
    """f = x on [−1/2, 5/2] in three cells: two are certified, one is not, so the box is not."""
    certificate = certify_positive(lambda x: x, [("-1/2", "5/2")], cells=3)
    assert not certificate.certified and len(certificate.certified_cells) == 2 and len(certificate.failed_cells) == 1
    # (x − 1/2)² + 1/1000 written as x·x − x + 251/1000 needs bisection: 8 evaluations are not enough.
    f = lambda x: x * x - x + arb(fmpq(251, 1000))  # noqa: E731
    assert certify_positive(f, [(0, 1)]).certified
    starved = certify_positive(f, [(0, 1)], max_evaluations=8)
    assert not starved.certified and starved.evaluations == 8 and starved.min_lower_bound == -np.inf


@pytest.mark.parametrize("f, strict, witness, value", [
    (lambda x: arb(0), True, Fraction(1, 2), 0.0),  # f ≡ 0: "f ≤ 0" is certain on the whole box at once
    (lambda x: -x, False, Fraction(3, 4), -0.75),  # f = −x: "f < 0" is certain on [1/2, 1], not on [0, 1/2]
], ids=["strict-violated-with-equality", "nonstrict-violated-strictly"])
def test_interval_certificate_witness_needs_a_certain_violation(f, strict, witness, value):
    """A cell is given up (not bisected further) and its midpoint becomes the witness only where the violation is
    certain: f ≤ threshold for "> threshold", f < threshold for "≥ threshold". f ≡ 0 refutes f > 0 on [0, 1] at
    once (1 evaluation + 1 at the midpoint 1/2); f = −x touches 0 at x = 0, so [0, 1] is bisected and the first
    certain violation is [1/2, 1], whose midpoint 3/4 is the witness."""
    certificate = certify_positive(f, [(0, 1)], strict=strict)
    assert not certificate.certified
    assert certificate.witness == (witness,) and certificate.witness_value == Interval(value, value)
    if strict:
        assert certificate.evaluations == 2


# == exact rank ==================================================================================================
@pytest.mark.parametrize("W, rank, certified", [
    (np.diag([1.0, 0.0]), 1, True),
    (np.diag([1.0, 0.0]), 2, False),  # σ2 = 0 exactly
    (np.array([[0.1, 0.2], [0.3, 0.6]]), 2, False),  # exactly rank 1 in binary; the float SVD gives σ2 ≈ 1e-17
    (np.diag([1.0, 2.0**-60]), 2, True),  # tiny but positive σ2 is enough
    (np.diag([1.0, 0.0]), 0, True),
], ids=["rank-1-of-rank-1", "rank-2-of-rank-1", "float-rank-deficient", "tiny-sigma", "rank-0"])
def test_rank_certificate_needs_a_positive_lower_end(W, rank, certified):
    certificate = certify_rank(W, rank)
    assert certificate.certified == certified
    assert certificate.certified == (exact_rank(W) >= rank)
    if rank:
        assert (certificate.sigma_rank.lo > 0) == certified


# Singular-value enclosures (the basis of the rank certificate) need orthogonality defects η_U, η_V < 1 of the float
# SVD's factors: the bound divides by √((1 − η_U)(1 − η_V)). Fake SVDs of W = [[2]] violate each alone; U = [[0]]
# (or V) has η = ‖0 − 1‖ = 1 exactly, the edge, and U = [[2]] has η = 3.
DEFECT_CASES = [
    ("valid", [[1.0]], [[1.0]], True),
    ("u-defect-edge", [[0.0]], [[1.0]], False),
    ("v-defect-edge", [[1.0]], [[0.0]], False),
    ("u-defect-large", [[2.0]], [[1.0]], False),
    ("v-defect-large", [[1.0]], [[2.0]], False),
]


@pytest.mark.parametrize("U, Vt, certified", [case[1:] for case in DEFECT_CASES],
                         ids=[case[0] for case in DEFECT_CASES])
def test_singular_value_enclosure_refuses_a_non_orthogonal_svd(monkeypatch, U, Vt, certified):
    """A refused enclosure says nothing: every σ in [0, ∞), and no rank is certified from it, not even rank ≥ 0
    (whose σ_0 = +∞ needs no enclosure); the distances to lower rank are unbounded."""
    monkeypatch.setattr(np.linalg, "svd", lambda A: (np.array(U), np.array([2.0]), np.array(Vt)))
    enclosure = enclose_singular_values(np.array([[2.0]]))
    assert enclosure.certified == certified
    assert enclosure.intervals == ((Interval(2.0, 2.0),) if certified else (Interval(0.0, math.inf),))
    for rank in (0, 1):
        certificate = certify_rank(np.array([[2.0]]), rank)
        assert certificate.certified == certified
    if not certified:
        assert certify_rank(np.array([[2.0]]), 0).spectral_distance == math.inf
        assert "too inaccurate" in enclosure.description


def test_rank_certificate_distances_bound_the_tail():
    certificate = certify_rank(np.diag([3.0, 2.0, 1.0]), 1)
    assert 2.0 <= certificate.spectral_distance <= 2.0 * (1 + 1e-12)
    assert 5**0.5 <= certificate.frobenius_distance <= 5**0.5 * (1 + 1e-12)
    # [[2, 1], [1, 3]]: σ2 = (5 − √5)/2 is irrational, so its enclosure has width and only its upper end bounds it
    certificate = certify_rank(np.array([[2.0, 1.0], [1.0, 3.0]]), 1)
    sigma2 = (5 - sympy.sqrt(5)) / 2
    for distance in (certificate.spectral_distance, certificate.frobenius_distance):
        assert E.sign(sympy.Rational(distance) - sigma2) > 0 and distance < float(sigma2) * (1 + 1e-12)


# == exact signs of rational functions (Sturm) and of f on (0, a] (univariate) ===================================
@pytest.mark.parametrize("expr, lower, upper, closed, certified", [
    (x_ + 1, 0, 1, True, True),
    ((x_ - Q(1, 3)) ** 2, 0, 1, False, False),  # a zero inside without a sign change (> 0 at the midpoint 1/2)
    ((x_ - Q(1, 3)) ** 2, 0, Q(1, 4), False, True),
    (1 / (x_ - Q(1, 3)) ** 2, 0, 1, False, False),  # a pole inside without a sign change
    (x_, 0, 1, True, False),  # a zero at a closed end
    (x_, 0, 1, False, True),
    (1 / x_, 0, 1, True, False),  # a pole at a closed end
    (-1 - x_**2, 0, 1, False, False),  # no zero, no pole, negative
    (x_**2 + 1, -sympy.oo, sympy.oo, False, True),
], ids=["valid-closed", "interior-double-root", "root-outside", "interior-double-pole", "root-at-closed-end",
        "root-at-open-end", "pole-at-closed-end", "negative-everywhere", "infinite-ends"])
def test_sturm_certificate_refuses_exactly_the_violated_condition(expr, lower, upper, closed, certified):
    assert certify_rational_positive(expr, x_, lower, upper, closed=closed).certified == certified


@pytest.mark.parametrize("expr, upper, sign", [
    (1 - eps, Q(1, 2), 1),
    (1 - eps, 1, None),  # > 0 inside, 0 at the end
    ((eps - Q(1, 2)) ** 2, 1, None),  # > 0 except at 1/2
    ((eps - Q(1, 2)) ** 2, Q(1, 4), 1),
    (sympy.sin(eps) - eps / 2, 1, 1),
    (sympy.sin(eps) - eps / 2, 3, None),  # Taylor holds near 0; the bisection beyond must fail
    (sympy.sin(eps) * (eps - Q(1, 10)) * (eps - Q(1, 5)), 1, None),  # < 0 on (1/10, 1/5): a too wide Taylor window
    (sympy.exp(eps) - 1 - 2 * eps, Q(1, 100), -1),  # leading coefficient −1: never "> 0"
], ids=["sturm-valid", "sturm-end-value", "sturm-double-root", "sturm-double-root-outside", "taylor-valid",
        "taylor-bisection-beyond-window", "taylor-window-width", "taylor-leading-sign"])
def test_univariate_sign_certificate_refuses_exactly_the_violated_condition(expr, upper, sign):
    assert certified_sign(expr, eps, upper).sign == sign


# == global optimum: exact projections onto chambers and the exact upper bound ===================================
@pytest.mark.parametrize("beta, violated", [
    (None, None),  # the honest NNLS: β = (1, 0), point (0, 1)
    ([0.0, 0.0], "inside"),  # point g = (−1, 1) lies outside the orthant
    ([0.5, 1e-3], "beta-sign"),  # exact β on {1, 2} is (1, −1): point 0, inside and orthogonal, but β ≱ 0
    ([1.0, 1e-3], "orthogonality"),  # β = (1, 1/1000) ≥ 0, point (0, 1001/1000) inside, ⟨point, Bᵀβ⟩ ≠ 0
], ids=["valid", "inside", "beta-sign", "orthogonality"])
def test_projection_certificate_refuses_exactly_the_violated_condition(monkeypatch, beta, violated):
    """Π_P(g) for the orthant P = {u ≥ 0} and g = (−1, 1) is (0, 1) (Moreau: g + Bᵀβ with β ≥ 0, the point in P
    and orthogonal to Bᵀβ). A refused candidate still gives an upper bound ‖g + Bᵀβ‖² ≥ ‖Π_P(g)‖² = 1."""
    if beta is not None:
        monkeypatch.setattr(scipy.optimize, "nnls", lambda A, b, *args, **kwargs: (np.array(beta), 0.0))
    projection = G._project(to_exact([-1, 1]), to_exact(_I2))
    assert projection.exact == (violated is None)
    if violated is None:
        assert list(projection.point) == [0, 1] and projection.squared == 1
    else:
        assert E.sign(projection.squared - 1) > 0


def test_exact_upper_bound_refuses_a_point_that_misses_an_inactive_sample():
    """x1 = (1, 1/4), x2 = (−1, 1/4) with α = (1, 1): one neuron per sample along x_i, lengths 4/√17, value
    16/√17 = the dual bound, exact. Add x3 = (0, −1) with α3 = 0: the same neurons leave its margin at 0, so the
    point is not feasible and neither the upper bound nor the optimum may be claimed."""
    net = fully_connected([2, 2, 1], "relu")
    results = []
    for X, alpha in ((to_exact([[1, Q(1, 4)], [-1, Q(1, 4)]]), to_exact([1, 1])),
                     (to_exact([[1, Q(1, 4)], [-1, Q(1, 4)], [0, -1]]), to_exact([1, 1, 0]))):
        s = G._structure(net, X, to_exact([1] * len(X)))
        choices = G._choices(s)
        bound = G._dual_bound(s, choices, alpha)
        assert bound.exact and E.sign(bound.value - 16 / sympy.sqrt(17)) == 0
        own = [next(c for c in choices if c.pattern[:2] == pattern and all(p < 0 for p in c.pattern[2:]))
               for pattern in ((1, -1), (-1, 1))]
        neurons = [G.Neuron(own[0], np.array([1.0, 0.25])), G.Neuron(own[1], np.array([-1.0, 0.25]))]
        results.append(G._exact_upper(s, bound, neurons, 4.0))
    feasible, missing = results
    assert E.sign(feasible[0] - 16 / sympy.sqrt(17)) == 0 and feasible[1] is not None
    assert missing == (None, None)


def test_dual_bound_needs_nonnegative_multipliers_and_a_serving_neuron():
    net = fully_connected([2, 2, 1], "relu")
    with pytest.raises(ValueError, match="≥ 0"):
        G.dual_bound(net, to_exact([[1, 0]]), [1], to_exact([-Q(1, 10**30)]))
    assert G.dual_bound(net, to_exact([[0, 0]]), [1], to_exact([1])).value == sympy.oo  # x = 0: no margin possible
    assert G.dual_bound(net, to_exact([[0, 0]]), [1], to_exact([0])).value == 0


# == exact arithmetic: signs of algebraic numbers and consistent affine solves ====================================
@pytest.mark.parametrize("k", [20, 40, 60, 61, 150, 151])
def test_exact_sign_of_tiny_algebraic_numbers(k):
    """(1 + √2)^k − N_k = −(1 − √2)^k with N_k an integer: |value| ≈ 0.414^k (10⁻⁵⁸ at k = 151), sign (−1)^{k+1}."""
    root2 = sympy.sqrt(2)
    integer = sympy.expand((1 + root2) ** k + (1 - root2) ** k)
    assert integer.is_Integer
    assert E.sign((1 + root2) ** k - integer) == (-1) ** (k + 1)


def test_exact_sign_of_disguised_zeros():
    root2 = sympy.sqrt(2)
    assert list(E.signs([sympy.sqrt(8) - 2 * root2, (1 + root2) ** 2 - 3 - 2 * root2,
                         root2 * sympy.sqrt(3) - sympy.sqrt(6)])) == [0, 0, 0]


@pytest.mark.parametrize("r, solvable", [([1, 2], True), ([1, 3], False), ([1, 2 + Q(1, 10**30)], False)],
                         ids=["consistent", "inconsistent", "inconsistent-by-1e-30"])
def test_nearest_solution_refuses_inconsistent_systems(r, solvable):
    M = to_exact([[1, 1], [2, 2]])  # dependent rows: r2 must be exactly 2 r1
    z = E.nearest_solution(M, to_exact(r), to_exact([0, 0]))
    assert (z is not None) == solvable
    if solvable:
        assert list(z) == [Q(1, 2), Q(1, 2)]


# == error-free transformations (metrics.angle's exact cancellation) ==============================================
def significant_bits(v: float) -> int:
    n = abs(Fraction(v).numerator)
    while n and n % 2 == 0:
        n //= 2
    return n.bit_length()


finite = st.floats(min_value=-1e100, max_value=1e100, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-100)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(c=finite, x=finite)
def test_error_free_product_and_split_are_exact(c, x):
    hi, lo = _split(np.array([x]))
    assert Fraction(float(hi[0])) + Fraction(float(lo[0])) == Fraction(x)
    assert significant_bits(float(hi[0])) <= 26 and significant_bits(float(lo[0])) <= 26
    p, e = _two_product(c, np.array([x]))
    assert Fraction(float(p[0])) + Fraction(float(e[0])) == Fraction(c) * Fraction(x)


@pytest.mark.parametrize("c, x", [(1 / 3, 0.1), (1 + 2.0**-52, 1 - 2.0**-53), (2.0**27 + 1, 3.0**20), (-0.7, 1e-90)])
def test_error_free_product_is_exact_where_rounding_is_not(c, x):
    p, e = _two_product(c, np.array([x]))
    assert Fraction(float(p[0])) + Fraction(float(e[0])) == Fraction(c) * Fraction(x)
    assert (float(e[0]) != 0) == (Fraction(c * x) != Fraction(c) * Fraction(x))
