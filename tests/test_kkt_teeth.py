"""Behavioural tests with teeth for numerics/kkt.py (issue 18, mutation testing): closed forms on small exact
instances and the edges of every threshold, so that a moved literal, a flipped comparison or a swapped operator
in the KKT / second-order / local-search / witness machinery changes an asserted result.

Private helpers are called directly only where their docstring states a contract (the Lagrangian Hessian, the
curvature test on a subspace, the multiplier certificates, the rational upper root); solvers are replaced by
scripted ones (monkeypatch) where the test is about what the code does with the solver's answer.
"""

from __future__ import annotations

from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import scipy.optimize
import sympy
from sympy import Rational as Q
from test_certificate_conditions import fake_linprog, fake_nnls  # the solver stubs of the certificate tests

from numerics import exact as E
from numerics import kkt
from numerics.exact import to_exact
from numerics.networks import diagonal, fully_connected

LINEAR = fully_connected([2, 1], "linear")  # Φ(θ; x) = ⟨θ, x⟩, degree 1
LINEAR3 = fully_connected([3, 1], "linear")
RELU = fully_connected([2, 2, 1], "relu")
HAND_X, HAND_Y = to_exact([[1, Q(1, 4)], [-1, Q(1, 4)]]), to_exact([1, 1])
HAND_KKT = to_exact([0, 2, 0, 0, 2, 0])  # w1 = (0, 2), v1 = 2, neuron 2 off: KKT, not a local minimum


def hand_float_candidate(e) -> np.ndarray:
    """Floats of w1' = (ε/2, 2 − 2ε), w2' = (−√(2ε), 0), v2' = √(2ε): margins (1, 1), ‖θ'‖² = 8 − 4ε + 17ε²/4."""
    root = sympy.sqrt(2 * e)
    return np.array([float(v) for v in (e / 2, 2 - 2 * e, -root, 0, 2, root)])


# == _rational_upper_root: c ≥ q^{-1/L}, within 1e-20 ======================================================
@pytest.mark.parametrize("q, degree", [(2, 2), (2, 3), (3, 1), (Q(5, 7), 4)])
def test_rational_upper_root_is_above_the_root_and_within_1e_20(q, degree):
    """The docstring's contract, checked exactly: c^L q ≥ 1 (c is on the upper side) and (c − 10⁻²⁰)^L q < 1
    (c is less than 10⁻²⁰ above the root). A changed exponent, digit count or rounding direction breaks one."""
    q = sympy.sympify(q)
    c = kkt._rational_upper_root(q, degree)
    assert isinstance(c, sympy.Rational)
    assert E.sign(c**degree * q - 1) >= 0
    assert E.sign((c - Q(1, 10**20)) ** degree * q - 1) < 0


@pytest.mark.parametrize("q, degree, root", [(Q(1, 4), 2, 2), (Q(8, 27), 3, Q(3, 2)), (Q(1, 16), 2, 4),
                                             (Q(1, 3), 1, 3)])
def test_rational_upper_root_is_exact_for_rational_roots(q, degree, root):
    """When q^{-1/L} is rational with few digits it is returned exactly: the guard adds a last digit only while
    c^L q < 1 (strictly), never at c^L q = 1."""
    assert kkt._rational_upper_root(q, degree) == root


def test_rational_upper_root_guard_repairs_an_underestimated_last_digit(monkeypatch):
    """The float stage rounded down by 5 units of 10⁻²⁰ (a sabotaged ceiling: floor − 4): the exact guard adds
    10⁻²⁰ steps until c^L q ≥ 1, so the result is the same smallest multiple of 10⁻²⁰ above the root."""
    expected = kkt._rational_upper_root(sympy.Integer(2), 2)
    assert expected == Q(70710678118654752441, 10**20)
    real_floor = mpmath.floor
    monkeypatch.setattr(mpmath, "ceil", lambda value: real_floor(value) - 4)
    assert kkt._rational_upper_root(sympy.Integer(2), 2) == expected


# == certify_witness: which rounding, and each check at its edge =============================================
@pytest.mark.parametrize("e, k, coarser", [
    (Q(1, 100), 3, None),  # first rounding (denominators ≤ 10³) already works
    (Q(1, 10**4), 6, 3),  # 10³ is too coarse: the rescaled point is longer than θ₁
    (Q(1, 10**6), 9, 6),
    (Q(1, 10**10), 12, 9),
    (Q(1, 10**12), None, 12),  # only the exact value of the float candidate works
], ids=["1e3", "1e6", "1e9", "1e12", "exact-float"])
def test_witness_uses_the_coarsest_rounding_that_certifies(e, k, coarser):
    """A float candidate is tried rounded to denominators ≤ 10³, 10⁶, 10⁹, 10¹², then exactly; the witness is
    the first one that certifies, rescaled by a rational c > 0 (so it is collinear with that rounding), and the
    previous rung of the ladder genuinely fails (improvement ≈ 4ε is below its rounding error)."""
    candidate = hand_float_candidate(e)
    witness = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, Q(1, 2))
    assert witness.certified, witness.message
    rounding = E.rationalize(candidate, 10**k) if k else to_exact(candidate)
    factor = witness.point[1] / rounding[1]
    assert factor > 0 and list(witness.point) == list(E.canonical(factor * rounding))
    if coarser is not None:
        assert not kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, E.rationalize(candidate, 10**coarser),
                                       Q(1, 2)).certified


def test_witness_refuses_a_candidate_with_margin_exactly_zero():
    """The zero vector has minimum margin exactly 0: no positive rescaling makes it feasible, so it is refused
    with that reason (q_min ≤ 0 includes the edge q_min = 0)."""
    witness = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, to_exact([0] * 6), Q(1, 2))
    assert not witness.certified and witness.message == "the candidate has minimum margin 0 ≤ 0"
    assert witness.reference_squared_norm == 8 and witness.point is None


def test_witness_on_the_ball_boundary_is_inside():
    """The ball is closed: a better feasible point at distance exactly ``radius`` is certified."""
    e = Q(1, 1800)
    candidate = to_exact([e / 2, 2 - 2 * e, -Q(1, 30), 0, 2, Q(1, 30)])
    radius = sympy.sqrt(Q(17, 4) * e**2 + 4 * e)
    witness = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, radius)
    assert witness.certified, witness.message
    assert sympy.simplify(witness.distance - radius) == 0


def test_witness_ball_uses_the_squared_radius():
    """A better point far from θ₁: one neuron per sample (w1 = (−2, 1/2), v1 = 8/17; w2 = (1, 1/4), v2 = 16/17),
    margins exactly 1, ‖θ'‖² ≈ 6.42 < 8, at squared distance ≈ 10.54 from θ₁: inside radius 4 (16), outside
    radius 3 (9)."""
    candidate = to_exact([-2, Q(1, 2), 1, Q(1, 4), Q(8, 17), Q(16, 17)])
    assert list(kkt.margins(RELU, candidate, HAND_X, HAND_Y)) == [1, 1]
    inside = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, 4)
    assert inside.certified and inside.min_margin == 1, inside.message
    difference = candidate - HAND_KKT
    assert inside.distance**2 == E.dot(difference, difference) and 9 < inside.distance**2 < 16
    assert inside.improvement == 8 - E.dot(candidate, candidate)
    outside = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, candidate, 3)
    assert not outside.certified and outside.message == "checks failed: inside the ball"


# == _smooth_multipliers: the exact NNLS certificate on the numerically positive set =========================
G_SHEAR = to_exact([[1, 1], [0, 1]])  # columns g1 = (1, 0), g2 = (1, 1)


@pytest.mark.parametrize("lam, tol, theta, exact_lam, residual", [
    # λ₂ exactly at the threshold tol·max(1, max λ) = 2⁻²⁰·4 is not positive; θ = 3.999 g1 − 0.001 g2: on P = {1}
    # the residual (0, −1/1000) has Gᵀr = (0, −1/1000) ≤ 0: exact optimum. With g2 in P, λ₂ = −1/1000 < 0.
    ([4.0, 4 * 2.0**-20], 2.0**-20, [Q(3999, 1000), -Q(1, 1000)], [Q(3999, 1000), 0], [0, -Q(1, 1000)]),
    # max λ = 1/2 < 1: the threshold is tol·1 = 10⁻⁶, so λ₂ = 7·10⁻⁷ is not positive (same geometry).
    ([0.5, 7e-7], 1e-6, [Q(499, 1000), -Q(1, 1000)], [Q(499, 1000), 0], [0, -Q(1, 1000)]),
    # λ₂ = 1.5·10⁻⁶ > tol·1: positive; θ = ½ g1 + 1/1000 g2 is then stationary exactly. Without g2 the residual
    # (0, 1/1000) would have Gᵀr = (0, 1/1000) > 0 and the certificate would fail.
    ([0.5, 1.5e-6], 1e-6, [Q(501, 1000), Q(1, 1000)], [Q(1, 2), Q(1, 1000)], [0, 0]),
    # both numerically positive, but θ = 4 g1: the exact multipliers are (4, 0), λ ≥ 0 includes λ₂ = 0.
    ([4.0, 0.5], 1e-6, [4, 0], [4, 0], [0, 0]),
], ids=["threshold-edge", "threshold-relative-to-one", "threshold-at-least-one", "exact-zero-multiplier"])
def test_smooth_multipliers_positive_set_and_exact_certificate(monkeypatch, lam, tol, theta, exact_lam, residual):
    fake_nnls(monkeypatch, lam)
    found = kkt._smooth_multipliers(G_SHEAR, to_exact(theta), True, tol)
    assert found.exact, found.note
    assert list(found.lam) == exact_lam and list(found.residual) == residual


@pytest.mark.parametrize("G_, theta", [
    ([[1, 1], [1, -1]], [2, 0]),  # g1 = (1, 1), g2 = (1, −1): r = (1, −1), ∇q₂ᵀr = 2
    ([[1, -1], [-1, 0]], [0, -2]),  # g1 = (1, −1), g2 = (−1, 0): r = (−1, −1), ∇q₂ᵀr = 1
    ([[1, 1], [-1, 0]], [2, 0]),  # g1 = (1, −1), g2 = (1, 0): r = (1, 1), ∇q₂ᵀr = 1
], ids=["mixed-signs", "all-negative", "all-positive"])
def test_smooth_multipliers_refuse_a_positive_correlation_when_the_residual_is_not_zero(monkeypatch, G_, theta):
    """Solver claims P = {1}: the exact least squares on g1 gives λ1 = 1 and a residual r with no zero entry (of
    either sign) and ∇q₂ᵀr > 0, so P = {1} is not optimal: no exact verdict. Only r = 0 exactly may skip the
    dual check Gᵀr ≤ 0."""
    fake_nnls(monkeypatch, [1.0, 0.0])
    found = kkt._smooth_multipliers(to_exact(G_), to_exact(theta), True, 1e-6)
    assert not found.exact and "exact NNLS certificate failed" in found.note


def test_smooth_multipliers_with_an_empty_positive_set(monkeypatch):
    """Solver says λ = 0: λ = 0 is exactly optimal iff Gᵀθ ≤ 0 (here −1), and then the residual is θ itself."""
    fake_nnls(monkeypatch, [0.0])
    found = kkt._smooth_multipliers(to_exact([[1], [0]]), to_exact([-1, 3]), True, 1e-6)
    assert found.exact and list(found.lam) == [0] and list(found.residual) == [-1, 3]
    found = kkt._smooth_multipliers(to_exact([[1], [0]]), to_exact([1, 3]), True, 1e-6)  # Gᵀθ = 1 > 0
    assert not found.exact


def test_smooth_multipliers_without_constraints():
    """No gradient at all (G is p × 0): λ is empty and the residual is θ, in both modes."""
    found = kkt._smooth_multipliers(np.empty((2, 0), dtype=object), to_exact([Q(1, 2), -3]), True, 1e-6)
    assert found.exact and found.lam.shape == (0,) and list(found.residual) == [Q(1, 2), -3]
    floating = kkt._smooth_multipliers(np.empty((2, 0)), np.array([0.5, -3.0]), False, 1e-6)
    assert floating.lam.shape == (0,) and list(floating.residual) == [0.5, -3.0]


def test_smooth_multipliers_float_residual():
    """Float mode returns NNLS as is: θ = (3, 1), g1 = (1, 0), g2 = (1, 1): λ = (2, 1), residual 0; θ = (1, −1):
    λ = (1, 0), residual (0, −1)."""
    found = kkt._smooth_multipliers(np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([3.0, 1.0]), False, 1e-6)
    np.testing.assert_allclose(found.lam, [2, 1], atol=1e-12)
    np.testing.assert_allclose(found.residual, [0, 0], atol=1e-12)
    found = kkt._smooth_multipliers(np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([1.0, -1.0]), False, 1e-6)
    np.testing.assert_allclose(found.lam, [1, 0], atol=1e-12)
    np.testing.assert_allclose(found.residual, [0, -1], atol=1e-12)


# == _clarke_multipliers: the LP and its exact feasible point ===============================================
@pytest.mark.parametrize("theta, lam, mu, l1", [
    ([1.0, 1.0], 1.0, 1.0, 0.0),  # θ = g + d: s = 1 is allowed (μ = λ)
    ([1.0, 2.0], None, None, 1.0),  # θ = g + 2d would need μ = 2λ: the best ℓ1 residual is 1, with μ ≤ λ
    ([1.0, 0.5], 1.0, 0.5, 0.0),  # s = 1/2
])
def test_clarke_lp_enforces_the_selection_bound(theta, lam, mu, l1):
    """Real HiGHS, float mode: g = (1, 0), d = (0, 1), one kink of the only sample. Stationarity needs
    θ = λg + μd with 0 ≤ μ ≤ λ; the LP minimizes ‖θ − λg − μd‖₁ under exactly that bound."""
    found = kkt._clarke_multipliers(np.array([[1.0], [0.0]]), np.array([[0.0], [1.0]]), [0], np.array(theta),
                                    False, 1e-6)
    assert not found.exact and found.mu[0] <= found.lam[0] + 1e-9 and found.mu[0] >= -1e-9
    assert np.sum(np.abs(found.residual)) == pytest.approx(l1, abs=1e-9)
    if lam is not None:
        assert found.lam[0] == pytest.approx(lam, abs=1e-9) and found.mu[0] == pytest.approx(mu, abs=1e-9)


# g1 = e1, g2 = e2 (two samples), d = (1, 1) a kink of sample 0: θ = λ1 g1 + λ2 g2 + μ d is underdetermined, so
# the variables the LP left numerically at a bound are fixed there exactly, and the rest stay near the LP's values.
TWO_G, ONE_D = to_exact([[1, 0], [0, 1]]), to_exact([[1], [1]])
E6 = 2e-6


@pytest.mark.parametrize("theta, x, tol, point", [
    # μ = 2·10⁻⁶ ≤ tol·max(1, max x) = 4·10⁻⁶: at its bound 0, fixed there exactly.
    ([4, 4], [4 - E6, 4 - E6, E6], 1e-6, [4, 4, 0]),
    # μ = 2⁻¹⁸ = tol·4 exactly (the edge is included): fixed at 0.
    ([4, 4], [4.0, 4.0, 4 * 2.0**-20], 2.0**-20, [4, 4, 0]),
    # max x = 1/2 < 1: the bound is tol·1, so μ = 7·10⁻⁷ is at its bound.
    ([Q(1, 2), Q(1, 2)], [0.5 - 7e-7, 0.5 - 7e-7, 7e-7], 1e-6, [Q(1, 2), Q(1, 2), 0]),
    # μ − λ1 = −2·10⁻⁶ ≥ −tol·4: the selection bound μ ≤ λ1 is tight, so μ = λ1 exactly.
    ([8, 8], [4 + 1e-6, 4 + 1e-6, 4 - 1e-6], 1e-6, [4, 4, 4]),
    # μ − λ1 = −2⁻¹⁸ = −tol·4 exactly: tight (edge included).
    ([8, 8], [4.0, 4.0, 4 - 4 * 2.0**-20], 2.0**-20, [4, 4, 4]),
], ids=["at-zero", "at-zero-edge", "at-zero-relative-to-one", "at-selection-bound", "at-selection-bound-edge"])
def test_clarke_exact_point_fixes_the_tight_bounds(monkeypatch, theta, x, tol, point):
    fake_linprog(monkeypatch, x, p=2)
    found = kkt._clarke_multipliers(TWO_G, ONE_D, [0], to_exact(theta), True, tol)
    assert found.exact, found.note
    assert list(found.lam) + list(found.mu) == point and list(found.residual) == [0, 0]


def test_clarke_exact_point_keeps_a_selection_above_the_tolerance(monkeypatch):
    """μ = 1.5·10⁻⁶ > tol·max(1, 1/2) = 10⁻⁶ is not at its bound: the exact point keeps a positive μ near it."""
    fake_linprog(monkeypatch, [0.5 - 1.5e-6, 0.5 - 1.5e-6, 1.5e-6], p=2)
    found = kkt._clarke_multipliers(TWO_G, ONE_D, [0], to_exact([Q(1, 2), Q(1, 2)]), True, 1e-6)
    assert found.exact and E.sign(found.mu[0]) > 0 and abs(float(found.mu[0]) - 1.5e-6) < 1e-9
    assert found.lam[0] + found.mu[0] == Q(1, 2)


def test_clarke_lp_objective_at_the_tolerance_is_stationary(monkeypatch):
    """An LP optimum of exactly tol·‖θ‖₁ still counts as stationary (the exact feasible point is sought); a
    larger one goes to the separating direction (none here: the dual is 0)."""
    G1, D1, theta = to_exact([[1]]), to_exact([[1]]), to_exact([2])
    fake_linprog(monkeypatch, [1.0, 1.0], p=1, fun=1e-6 * 2.0)
    found = kkt._clarke_multipliers(G1, D1, [0], theta, True, 1e-6)
    assert found.exact and list(found.lam) == [1] and list(found.mu) == [1]
    fake_linprog(monkeypatch, [1.0, 1.0], p=1, fun=3e-6)
    found = kkt._clarke_multipliers(G1, D1, [0], theta, True, 1e-6)
    assert not found.exact and "no exact separating direction found" in found.note


# == _lagrangian_hessian: I − ∇²(Σ w_i Φ(θ; x_i)), exact for the polynomial degree ============================
def symbolic_hessian(model, theta, X, weights) -> sympy.Matrix:
    """I − ∇²(Σ w_i Φ) by sympy differentiation of the network's forward pass (independent of the stencil)."""
    symbols = sympy.symbols(f"t0:{model.n_params}")
    phi = sum(w * f for w, f in zip(weights, model.forward(np.array(symbols, dtype=object), X)[:, 0]))
    at = dict(zip(symbols, theta))
    return sympy.eye(model.n_params) - sympy.hessian(phi, symbols).subs(at)


HESSIAN_X = to_exact([[1, 2], [Q(1, 2), -1]])
HESSIAN_W = to_exact([Q(1, 2), -Q(3, 4)])


@pytest.mark.parametrize("depth", [2, 3, 4, 5])
def test_lagrangian_hessian_is_exact_for_each_degree(depth):
    """Diagonal linear networks of depth L (gradient of degree L − 1): the central stencil must have enough
    nodes, be centred at 0 and take the first derivative; exact mode matches sympy exactly, float mode to 1e-9."""
    model = diagonal(2, depth, "linear")
    theta = to_exact([Q(k + 2, 3) * (-1) ** k for k in range(model.n_params)])
    expected = symbolic_hessian(model, theta, HESSIAN_X, HESSIAN_W)
    H = kkt._lagrangian_hessian(model, theta, HESSIAN_X, HESSIAN_W, True)
    assert sympy.Matrix(H) == expected
    Hf = kkt._lagrangian_hessian(model, theta.astype(float), HESSIAN_X.astype(float), HESSIAN_W.astype(float),
                                 False)
    np.testing.assert_allclose(Hf, np.array(expected, dtype=float), rtol=0, atol=1e-9)


@pytest.mark.parametrize("depth", [2, 3, 4])
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_lagrangian_hessian_step_limit(exact, depth):
    """ReLU chain Φ = x·w·a₂⋯a_L (widths 1) at x = 1, a = 1, with the first pre-activation w tiny. The stencil has
    nodes −m…m (m = max(1, ⌈(L − 1)/2⌉)) and the nodes w ± m·step keep the pattern only when m·step < w. Steps
    2⁻⁴ … 2⁻⁴⁰ are tried: w = (2m + 1)·2⁻⁴¹ needs 2⁻⁴⁰ (found, equal to the Hessian of the linear chain), while
    w = (2m + 1)·2⁻⁴² would need 2⁻⁴¹ (no step: None). A wider or shifted stencil, or another step range, moves
    one of the two outcomes."""
    net, m = fully_connected([1] * (depth + 1), "relu"), max(1, -(-(depth - 1) // 2))
    convert = to_exact if exact else (lambda a: np.asarray(a, dtype=float))
    X, weights = convert([[1]]), convert([1])
    theta = to_exact([(2 * m + 1) * Q(1, 2**41)] + [1] * (depth - 1))
    found = kkt._lagrangian_hessian(net, convert(theta), X, weights, exact)
    expected = symbolic_hessian(fully_connected([1] * (depth + 1), "linear"), theta, to_exact([[1]]), [1])
    assert found is not None
    # float: differences at step 2⁻⁴⁰ lose about 2⁴⁰·10⁻¹⁶ ≈ 10⁻⁴ (the depth-4 diagonal entry is off by 5·10⁻⁵)
    np.testing.assert_allclose(np.array(found, dtype=float), np.array(expected, dtype=float), rtol=0, atol=1e-3)
    if exact:
        assert sympy.Matrix(found) == expected
    theta[0] = (2 * m + 1) * Q(1, 2**42)
    assert kkt._lagrangian_hessian(net, convert(theta), X, weights, exact) is None


class PowerModel:
    """Φ(θ; x) = Σ_j x_j θ_j^L: homogeneous of degree L, and (unlike a network, which is affine in each single
    parameter) of degree L in each coordinate, so the gradient along one coordinate has degree L − 1 and the
    stencil's size, centre and derivative order all matter. Works on float and sympy object arrays."""

    def __init__(self, degree: int, d: int = 2):
        self.degree, self.d_in, self.d_out, self.n_params = degree, d, 1, d

    def forward(self, theta, X):
        return (X @ theta**self.degree).reshape(-1, 1)

    def jacobian(self, theta, X):
        return (X * (self.degree * theta ** (self.degree - 1))).reshape(len(X), 1, -1)

    def vjp(self, theta, X, G):
        return (G[:, 0] @ X) * (self.degree * theta ** (self.degree - 1))


@pytest.mark.parametrize("degree", [2, 3, 4, 5])
def test_lagrangian_hessian_of_a_model_of_degree_L_in_one_coordinate(degree):
    """For Φ = Σ_j x_j θ_j^L: I − ∇²(Σ w_i Φ_i) = I − diag(L(L − 1) θ_j^{L−2} Σ_i w_i x_ij), exactly."""
    model = PowerModel(degree)
    theta = to_exact([Q(3, 2), -Q(2, 3)])
    expected = [1 - degree * (degree - 1) * t ** (degree - 2) * E.dot(HESSIAN_W, HESSIAN_X[:, j])
                for j, t in enumerate(theta)]
    H = kkt._lagrangian_hessian(model, theta, HESSIAN_X, HESSIAN_W, True)
    assert sympy.Matrix(H) == sympy.diag(*expected)
    Hf = kkt._lagrangian_hessian(model, theta.astype(float), HESSIAN_X.astype(float), HESSIAN_W.astype(float),
                                 False)
    np.testing.assert_allclose(Hf, np.diag(np.array(expected, dtype=float)), rtol=0, atol=1e-9)


def test_lagrangian_curvature_of_a_model_of_degree_3_in_one_coordinate():
    """Public path, Φ = θ1³x1 + θ2³x2 on x = (1, 1): θ = (1, 1)/2^{1/3} is KKT (margin 1, λ = 2^{1/3}/3 exactly);
    H = I − λ·diag(6θ_j) = diag(−1, −1), so along the critical d = (1, −1): dᵀHd = −2."""
    model, X, y = PowerModel(3), to_exact([[1, 1]]), to_exact([1])
    theta = np.array([1 / sympy.root(2, 3)] * 2, dtype=object)
    found = kkt.lagrangian_curvature(model, theta, X, y, to_exact([1, -1]))
    assert found.kkt.status == "kkt" and found.critical
    assert sympy.simplify(found.value + 2) == 0


# == lagrangian_curvature and second_order_check: the critical cone and the labels ===========================
@pytest.mark.parametrize("direction, critical", [
    ([0, 0, 1], True),  # slopes (0, 0): the degenerate constraint allows slope 0
    ([0, 1, 0], True),  # slopes (0, 1): slope > 0 allowed where λ = 0
    ([0, -1, 0], False),  # slopes (0, −1): not where λ = 0
    ([1, -1, 0], False),  # slopes (1, 0): slope must be 0 where λ > 0
])
@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_curvature_critical_cone_with_a_degenerate_constraint(direction, critical, exact):
    """θ = (1, 0, 0), x1 = (1, 0, 0), x2 = (1, 1, 0): both active, λ = (1, 0). The critical cone is
    {∇q₁·d = 0, ∇q₂·d ≥ 0}; the linear model has H = I, so dᵀHd = ‖d‖²."""
    X = [[1, 0, 0], [1, 1, 0]]
    args = (to_exact([1, 0, 0]), to_exact(X), to_exact([1, 1]), to_exact(direction)) if exact else \
        ([1.0, 0.0, 0.0], np.array(X, dtype=float), [1.0, 1.0], np.array(direction, dtype=float))
    found = kkt.lagrangian_curvature(LINEAR3, *args)
    assert found.critical == critical
    assert found.value == sum(v * v for v in direction)
    assert [float(s) for s in found.slopes] == [direction[0], direction[0] + direction[1]]


@pytest.mark.parametrize("x1, direction, critical", [
    (1.0, [1e-9, 1.0], True),  # slope 10⁻⁹ = 10⁻⁹·max(1, |J|)·‖d‖ (‖d‖ = 1 in floats): the edge is "zero"
    (1.0, [1e-12, 1.0], True),  # rounding-size slopes are zero
    (1.0, [1.5e-9, 1.0], False),
    (1.0, [0.5, 1.0], False),
    (1.0, [1.5e-9, 2.0], True),  # the tolerance scales with ‖d‖ = 2: 1.5·10⁻⁹ ≤ 2·10⁻⁹
    (1.0, [2.5e-9, 2.0], False),
    (0.5, [1.4e-9, 1.0], True),  # |J| = 1/2 < 1: the scale is at least 1 (slope 7·10⁻¹⁰ ≤ 10⁻⁹)
    (4.0, [1e-9, 1.0], True),  # |J| = 4: slope 4·10⁻⁹ ≤ 10⁻⁹·4
    (4.0, [2e-9, 1.0], False),  # slope 8·10⁻⁹ > 4·10⁻⁹
])
def test_float_curvature_slope_tolerance(x1, direction, critical):
    """Float mode, θ = (1/x1, 0) on x = (x1, 0) (λ = 1/x1² > 0): d is critical iff |∇q·d| ≤ 10⁻⁹·max(1, max|J|)·‖d‖."""
    found = kkt.lagrangian_curvature(LINEAR, [1 / x1, 0.0], [[x1, 0.0]], [1.0], direction)
    assert found.critical == critical


def test_curvature_uses_the_labels_as_factors_of_the_multipliers():
    """(x, y) → (x/2, 2y) is the same problem for a 1-homogeneous-in-x network (q = yΦ(θ; x)): the Lagrangian's
    curvature must be the same, so the Hessian weights are λ_i·y_i."""
    net, theta, d = diagonal(2, 2, "linear"), to_exact([1, 0, 1, 0]), to_exact([0, 1, 0, 1])
    plain = kkt.lagrangian_curvature(net, theta, to_exact([[1, 2]]), to_exact([1]), d)
    scaled = kkt.lagrangian_curvature(net, theta, to_exact([[Q(1, 2), 1]]), to_exact([2]), d)
    assert plain.value == scaled.value == -2
    second = kkt.second_order_check(net, theta, to_exact([[Q(1, 2), 2]]), to_exact([2]))
    assert second.status == "violated" and second.curvature == -3  # as on x = (1, 4), y = 1


def test_lagrangian_curvature_at_a_degree_3_kkt_point():
    """Depth-3 diagonal network on x = (1, 2) at u1 = v1 = w1 = 1 (others 0): KKT with λ = 1, and on the
    (u1, v1, w1) block H = I − (J − I) with J the all-ones matrix, so along a critical d of that block (entries
    summing to 0) dᵀHd = 2‖d‖²; along the second coordinate's block H = I."""
    net, X, y = diagonal(2, 3, "linear"), to_exact([[1, 2]]), to_exact([1])
    theta = to_exact([1, 0, 1, 0, 1, 0])  # (u1, u2, v1, v2, w1, w2)
    found = kkt.lagrangian_curvature(net, theta, X, y, to_exact([1, 0, 1, 0, -2, 0]))
    assert found.critical and found.value == 12 and list(found.slopes) == [0]
    found = kkt.lagrangian_curvature(net, theta, X, y, to_exact([0, 1, 0, 1, 0, 1]))
    assert found.critical and found.value == 3
    floating = kkt.lagrangian_curvature(net, theta.astype(float), X.astype(float), y.astype(float),
                                        [1.0, 0.0, 1.0, 0.0, -2.0, 0.0])
    assert floating.critical and floating.value == pytest.approx(12, abs=1e-9)


def test_lagrangian_curvature_refuses_a_point_that_is_not_kkt():
    with pytest.raises(ValueError, match="not_kkt"):
        kkt.lagrangian_curvature(diagonal(2, 2), to_exact([2, 0, Q(1, 2), 0]), to_exact([[1, 4]]), to_exact([1]),
                                 to_exact([1, 0, 0, 0]))


# == _curvature_on: H ⪰ 0 / H ≻ 0 on span Z, or a negative direction ==========================================
def test_curvature_on_an_empty_subspace_is_definite():
    found = kkt._curvature_on(np.eye(2), np.zeros((2, 0)), False, 1e-6)
    assert found.psd and found.definite and found.min_curvature is None and found.direction is None


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_curvature_on_a_line_with_negative_curvature(exact):
    """H = diag(1, −1) on span{e2} (one column): not PSD, direction ±e2, curvature −1."""
    H, Z = np.diag([1, -1]), np.array([[0], [1]])
    found = kkt._curvature_on(to_exact(H) if exact else H.astype(float), to_exact(Z) if exact else Z.astype(float),
                              exact, 1e-6)
    assert not found.psd and found.min_curvature == pytest.approx(-1)
    assert found.curvature == -1 and abs(float(found.direction[1])) > 0 and float(found.direction[0]) == 0


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_curvature_on_reports_the_smallest_eigenvalue(exact):
    """H = diag(3, −2, 5) on span{e1, e2}: the smallest curvature is −2 (not 3), along e2."""
    H, Z = np.diag([3, -2, 5]), np.array([[1, 0], [0, 1], [0, 0]])
    found = kkt._curvature_on(to_exact(H) if exact else H.astype(float), to_exact(Z) if exact else Z.astype(float),
                              exact, 1e-6)
    assert not found.psd and found.min_curvature == pytest.approx(-2) and found.curvature == -2
    assert [abs(float(v)) > 0 for v in found.direction] == [False, True, False]


TOL = 2.0**-20


@pytest.mark.parametrize("diag, psd, definite", [
    ([4.0, -4 * TOL], True, False),  # smallest = −tol·max(1, max|H|) exactly: still PSD (edge included)
    ([4.0, -5 * TOL], False, False),
    ([4.0, 4 * TOL], True, False),  # smallest = +tol·4 exactly: not definite (strict)
    ([4.0, 5 * TOL], True, True),
    ([0.5, -1.5 * TOL], False, False),  # max|H| = 1/2: the scale is 1, not 2
    ([0.5, -0.75 * TOL], True, False),  # … and not 1/2
    ([0.5, 1.5 * TOL], True, True),
])
def test_float_curvature_tolerance_edges(diag, psd, definite):
    found = kkt._curvature_on(np.diag(diag), np.eye(2), False, TOL)
    assert (found.psd, found.definite) == (psd, definite)
    assert found.min_curvature == min(diag)


def test_exact_curvature_of_a_rounded_direction_must_be_negative():
    """H = diag(0, −10⁻⁴⁰⁰) is not PSD, but its float image is 0 and the float eigenvector is e1, along which the
    exact curvature is 0: not a proof of negative curvature, so no direction is returned."""
    H = np.array([[0, 0], [0, -Q(1, 10**400)]], dtype=object)
    found = kkt._curvature_on(H, to_exact(np.eye(2, dtype=int)), True, 1e-6)
    assert not found.psd and found.direction is None and found.curvature is None


# == local_search: the starts, the problem given to the solver, and what is kept ==============================
def scripted_solver(monkeypatch, outcomes=None):
    """scipy.optimize.minimize replaced: records each call and returns the next scripted (x, nfev), or x0."""
    calls = []

    def minimize(fun, x0, jac=None, constraints=(), method=None, options=None):
        calls.append(SimpleNamespace(fun=fun, x0=np.array(x0), jac=jac, constraints=constraints, method=method,
                                     options=options))
        x, nfev = outcomes[len(calls) - 1] if outcomes is not None else (x0, 1)
        return SimpleNamespace(x=np.array(x, dtype=float), nfev=nfev)

    monkeypatch.setattr(scipy.optimize, "minimize", minimize)
    return calls


@pytest.mark.parametrize("kwargs, starts, seed", [({}, 16, 0), ({"starts": 3, "seed": 5}, 3, 5)],
                         ids=["defaults", "explicit"])
def test_local_search_starts_follow_the_documented_recipe(monkeypatch, kwargs, starts, seed):
    """θ₁ first, then starts − 1 points θ₁ + ρ·radius·u/‖u‖ (u standard normal, ρ ~ U[0.2, 0.9]) from ``seed``;
    defaults: 16 starts, seed 0."""
    calls = scripted_solver(monkeypatch)
    start, radius = np.array([1.0, 1.0]), 0.25
    result = kkt.local_search(LINEAR, 2 * start, [[1.0, 0.0]], [1.0], radius, **kwargs)
    assert len(calls) == starts and result.starts == starts and result.evaluations == starts
    np.testing.assert_array_equal(result.start, start)
    np.testing.assert_array_equal(calls[0].x0, start)
    rng = np.random.default_rng(seed)
    for call in calls[1:]:
        u = rng.standard_normal(2)
        rho = rng.uniform(0.2, 0.9)
        np.testing.assert_allclose(call.x0, start + rho * radius * u / np.linalg.norm(u), rtol=0, atol=1e-15)
        assert 0.2 * radius <= np.linalg.norm(call.x0 - start) <= 0.9 * radius


def test_local_search_gives_the_solver_the_documented_problem(monkeypatch):
    """SLSQP: objective ‖t‖² with gradient 2t, constraints q(t) − 1 ≥ 0 (with its Jacobian) and
    inner² − ‖t − θ₁‖² ≥ 0 with inner = radius·(1 − 10⁻⁶) (gradient −2(t − θ₁)), at most 500 iterations;
    COBYLA gets the same functions without gradients."""
    calls = scripted_solver(monkeypatch)
    radius, start, t = 0.5, np.array([1.0, 1.0]), np.array([1.5, -0.25])
    kkt.local_search(LINEAR, start, [[1.0, 0.0]], [1.0], radius, starts=1)
    call = calls[0]
    assert call.method == "SLSQP" and call.options == {"maxiter": 500}
    assert call.fun(t) == t @ t and list(call.jac(t)) == [3.0, -0.5]
    margin, ball = call.constraints
    inner = radius * (1 - 1e-6)
    assert margin["type"] == ball["type"] == "ineq"
    assert list(margin["fun"](t)) == [0.5] and np.array_equal(np.asarray(margin["jac"](t)), [[1.0, 0.0]])
    assert ball["fun"](start) == inner**2 and ball["fun"](t) == inner**2 - 0.25 - 1.5625
    assert list(ball["jac"](t)) == [-1.0, 2.5]
    calls = scripted_solver(monkeypatch)
    kkt.local_search(LINEAR, start, [[1.0, 0.0]], [1.0], radius, starts=1, method="COBYLA")
    call = calls[0]
    assert call.method == "COBYLA" and call.jac is None
    assert all(set(c) == {"type", "fun"} for c in call.constraints)
    assert call.constraints[1]["fun"](start) == inner**2


def test_local_search_keeps_the_first_strictly_best_repaired_candidate(monkeypatch):
    """Φ = ⟨θ, x⟩ on x = (1, 0) from θ₁ = (1, 1) (cost 2), radius 2. Scripted solver answers: (1, 3/4) (cost
    25/16), (1, 1/2) (cost 5/4), (1, −1/2) (also 5/4, not strictly better), NaN (dropped), margin −1 (dropped)."""
    scripted_solver(monkeypatch, [([1, 0.75], 3), ([1, 0.5], 5), ([1, -0.5], 7), ([np.nan, 0], 11),
                                  ([-1, 0], 13)])
    result = kkt.local_search(LINEAR, [1.0, 1.0], [[1.0, 0.0]], [1.0], 2.0, starts=5)
    assert list(result.best) == [1.0, 0.5] and result.best_cost == 1.25 and result.start_cost == 2.0
    assert result.improvement == 0.75 and result.relative_improvement == 0.375 and result.improved
    assert result.evaluations == 3 + 5 + 7 + 11 + 13 and result.radius == 2.0


@pytest.mark.parametrize("tol, improved", [(0.37, True), (0.375, False), (0.5, False)])
def test_local_search_improvement_threshold_is_relative_and_strict(monkeypatch, tol, improved):
    """Relative improvement 0.375 (cost 2 → 5/4): improved iff 0.375 > tol (strictly; tol relative to R(θ))."""
    scripted_solver(monkeypatch, [([1, 0.5], 1)])
    result = kkt.local_search(LINEAR, [1.0, 1.0], [[1.0, 0.0]], [1.0], 2.0, starts=1, tol=tol)
    assert result.improved == improved


def test_local_search_without_improvement_is_not_improved(monkeypatch):
    """The solver returns θ₁ itself: improvement exactly 0, not improved even at tol = 0."""
    scripted_solver(monkeypatch, [([1, 1], 1)])
    result = kkt.local_search(LINEAR, [1.0, 1.0], [[1.0, 0.0]], [1.0], 2.0, starts=1, tol=0.0)
    assert result.improvement == 0 and not result.improved and list(result.best) == [1.0, 1.0]


@pytest.mark.parametrize("model, theta, x, radius, solver_x, best", [
    # rescaled to margin 1: (2, 1/2) → (1, 1/4) (degree 1)
    (LINEAR, [1.0, 1.0], [1.0, 0.0], 2.0, [2.0, 0.5], [1.0, 0.25]),
    # degree 2 (Φ = v w x): (2, 2) has margin 4 → ×4^{−1/2} = (1, 1); θ₁ = (2, 1/2), cost 17/4
    (fully_connected([1, 1, 1], "linear"), [2.0, 0.5], [1.0], 2.0, [2.0, 2.0], [1.0, 1.0]),
    # exactly on the sphere ‖t − θ₁‖ = radius: kept as is (the ball is closed)
    (LINEAR, [1.0, 1.0], [1.0, 0.0], 1.0, [1.0, 0.0], [1.0, 0.0]),
    # outside: pulled back to θ₁ + (t − θ₁)·inner/‖t − θ₁‖ = (1, 1 − inner), inner = 1 − 10⁻⁶
    (LINEAR, [1.0, 1.0], [1.0, 0.0], 1.0, [1.0, -1.0], [1.0, 1 - (1 - 1e-6)]),
], ids=["rescale", "rescale-degree-2", "on-the-sphere", "pull-back"])
def test_local_search_repairs_solver_points(monkeypatch, model, theta, x, radius, solver_x, best):
    scripted_solver(monkeypatch, [(solver_x, 1)])
    result = kkt.local_search(model, theta, [x], [1.0], radius, starts=1)
    np.testing.assert_allclose(result.best, best, rtol=0, atol=1e-15)
    assert np.linalg.norm(result.best - result.start) <= radius


def test_local_search_drops_a_solver_point_with_margin_exactly_zero(monkeypatch):
    """q_min = 0: no positive rescaling is feasible; the point is dropped (not divided by zero)."""
    scripted_solver(monkeypatch, [([0.0, 0.5], 1)])
    result = kkt.local_search(LINEAR, [1.0, 1.0], [[1.0, 0.0]], [1.0], 2.0, starts=1)
    assert list(result.best) == [1.0, 1.0] and not result.improved


def test_local_search_result_is_feasible_inside_the_ball_and_certifiable():
    """Real SLSQP on the hand KKT point at radius 0.05: the best point has minimum margin 1 (to rounding), lies
    inside the ball, and its exact re-certification at the same radius succeeds (the solver's inner radius)."""
    X, y = HAND_X.astype(float), HAND_Y.astype(float)
    search = kkt.local_search(RELU, HAND_KKT.astype(float), X, y, 0.05, starts=4, seed=1)
    assert search.improved and search.starts == 4
    assert kkt.margins(RELU, search.best, X, y).min() == pytest.approx(1.0, abs=1e-12)
    assert np.linalg.norm(search.best - search.start) <= 0.05
    assert search.best_cost == pytest.approx(float(search.best @ search.best), rel=1e-15)
    witness = kkt.certify_witness(RELU, HAND_KKT, HAND_X, HAND_Y, search.best, Q(1, 20))
    assert witness.certified, witness.message


# == smaller contracts around the certificates =================================================================
def test_scale_free_cost_divides_by_the_margin_to_the_power_2_over_L():
    """R(θ) = ‖θ‖² / q_min^{2/L} at a point with q_min ≠ 1: degree 1, θ = (3, 4) on x = (1, 0): q = 3, R = 25/9;
    degree 2, θ = 2·θ_hand: q_min = 4, R = 32/4 = 8; float mode: q_min = −1/2 < 0 gives +inf."""
    assert kkt.scale_free_cost(LINEAR, to_exact([3, 4]), to_exact([[1, 0]]), to_exact([1])) == Q(25, 9)
    assert kkt.scale_free_cost(LINEAR, [3.0, 4.0], [[1.0, 0.0]], [1.0]) == pytest.approx(25 / 9, rel=1e-15)
    assert kkt.scale_free_cost(RELU, 2 * HAND_KKT, HAND_X, HAND_Y) == 8
    assert kkt.scale_free_cost(LINEAR, [-0.5, 0.0], [[1.0, 0.0]], [1.0]) == np.inf


def test_float_complementarity_and_smallest_preactivation():
    """Float mode: an active margin 1 + 10⁻⁸ (within tol) with λ ≈ 1 gives complementarity ≈ 10⁻⁸ (and 0 at exact
    margins); the hand point's smallest non-zero hidden pre-activation on active samples is 1/2 (the dead
    neuron's zeros are left out); a ReLU model without hidden layer has none and no Hessian pattern."""
    result = kkt.kkt_check(LINEAR, [1.0, 1 + 1e-8], np.eye(2), [1.0, 1.0])
    assert result.status == "kkt" and result.active == (0, 1)
    assert result.complementarity_residual == pytest.approx(1e-8, rel=1e-6)
    hand = kkt.kkt_check(RELU, HAND_KKT.astype(float), HAND_X.astype(float), HAND_Y.astype(float))
    assert hand.complementarity_residual == 0.0 and hand.smallest_preactivation == 0.5
    single = kkt.second_order_check(fully_connected([2, 1], "relu"), to_exact([1, 1]), to_exact(np.eye(2, dtype=int)),
                                    to_exact([1, 1]))
    assert single.status == "satisfied" and single.kkt.smallest_preactivation is None


def test_float_clarke_selection_is_mu_over_lambda():
    """The Clarke example with x/4: θ is again KKT with λ = (4, 4) (4× the original) and the selection
    s = μ/λ = 1/2 is unchanged."""
    X = np.array([[1.0, 0.0], [-0.5, 1.0]]) / 4
    result = kkt.kkt_check(RELU, [1.0, 0, 0, 1, 1, 1], X, [1.0, 1.0])
    assert result.status == "kkt"
    np.testing.assert_allclose(result.multipliers, [4, 4], atol=1e-9)
    assert result.kinks[0].selection == pytest.approx(0.5, abs=1e-9)


def test_separating_direction_value_in_the_message():
    """The message quotes ⟨u, θ⟩ for the exact separating direction u (11/5 at θ = (1, 0, 0, 1, 1, 6/5))."""
    result = kkt.kkt_check(RELU, to_exact([1, 0, 0, 1, 1, Q(6, 5)]), to_exact([[1, 0], [-Q(1, 2), 1]]),
                           to_exact([1, 1]))
    value = E.dot(result.separating_direction, result.theta)
    assert value == Q(11, 5) and f"⟨u, θ⟩ = {value} > 0" in result.message


def test_clarke_lp_with_two_kinks_of_one_sample():
    """Two kinks of one sample (d1 = e2, d2 = e3, g = e1): each selection is bounded by the sample's λ, so
    θ = (1, 1, 1/2) is stationary (μ = (1, 1/2)) and θ = (1, 2, 0) is not (best ℓ1 residual 1)."""
    G1, D2 = np.array([[1.0], [0.0], [0.0]]), np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    found = kkt._clarke_multipliers(G1, D2, [0, 0], np.array([1.0, 1.0, 0.5]), False, 1e-6)
    np.testing.assert_allclose(list(found.lam) + list(found.mu), [1, 1, 0.5], atol=1e-9)
    found = kkt._clarke_multipliers(G1, D2, [0, 0], np.array([1.0, 2.0, 0.0]), False, 1e-6)
    assert np.sum(np.abs(found.residual)) == pytest.approx(1.0, abs=1e-9)


def test_curvature_is_float_when_the_first_order_certificate_is_not_exact():
    """θ = (1, 10⁻⁴) on x1 = (1, 0), x2 = (0, 10⁴): KKT with λ = (1, 10⁻⁸) exactly, but 10⁻⁸ is below the NNLS
    tolerance, so the exact certificate fails and the verdict is the float one: the second-order results must
    then not claim exactness (they are computed from float multipliers)."""
    args = (LINEAR, to_exact([1, Q(1, 10**4)]), to_exact([[1, 0], [0, 10**4]]), to_exact([1, 1]))
    found = kkt.lagrangian_curvature(*args, to_exact([0, 1]))
    assert found.kkt.status == "kkt" and not found.kkt.exact
    assert isinstance(found.value, float) and found.value == 1.0
    second = kkt.second_order_check(*args)
    assert second.status == "satisfied" and not second.exact


def test_witness_curve_margins_without_relu_resolution():
    """Models that are not ReLU networks take q = yΦ(θ'(ε)) as is: a linear chain Φ = v·w·x with negative
    weights (pre-activation −1 − ε < 0 must not be cut off) and a layer restriction (not a Network at all)."""
    eps = sympy.Symbol("eps", positive=True)
    chain = fully_connected([1, 1, 1], "linear")
    witness = kkt.certify_witness_curve(chain, to_exact([-1, -1]), to_exact([[1]]), to_exact([1]), [-1 - eps, -1],
                                        eps, 1)
    assert witness.margins == (1 + eps,) and witness.message.startswith("not better")
    restriction, u = kkt.restrict_to_layer(RELU, HAND_KKT, 1)
    witness = kkt.certify_witness_curve(restriction, u, HAND_X, HAND_Y, [2 + eps, 0], eps, 1)
    assert witness.margins == (1 + eps / 2, 1 + eps / 2) and witness.message.startswith("not better")


def test_restrict_to_layer_rejects_a_negative_layer():
    with pytest.raises(ValueError, match="layer"):
        kkt.restrict_to_layer(RELU, HAND_KKT, -1)


# == second sample (seed 11): active set edge, kink blocks, selections, degenerate second order ================
def test_float_active_set_includes_the_tolerance_edge():
    """Float mode: a margin with q − 1 = tol exactly (2⁻²⁰) is active."""
    result = kkt.kkt_check(LINEAR, [1.0, 1 + 2.0**-20], np.eye(2), [1.0, 1.0], tol=2.0**-20)
    assert result.active == (0, 1)
    result = kkt.kkt_check(LINEAR, [1.0, 1 + 2.0**-19], np.eye(2), [1.0, 1.0], tol=2.0**-20)
    assert result.active == (0,)


R = np.array([[Q(3, 5), -Q(4, 5)], [Q(4, 5), Q(3, 5)]], dtype=object)  # a rotation of the input plane


def test_clarke_kink_direction_covers_the_whole_incoming_block():
    """The Clarke example rotated by R (x → Rx, w → Rw keeps every pre-activation): the kink sample is
    x1 = (3/5, 4/5), so the Clarke direction v_B·x1 has two non-zero entries in neuron B's incoming block
    (parameters 2 and 3). θ is KKT exactly as before: λ = (1, 1), selection 1/2. (Exact mode only: in floats the
    rotated pre-activation −12/25 + 12/25 need not round to exactly 0, and then there is no kink.)"""
    X = to_exact([R @ to_exact([1, 0]), R @ to_exact([-Q(1, 2), 1])])
    theta = to_exact([*(R @ to_exact([1, 0])), *(R @ to_exact([0, 1])), 1, 1])
    result = kkt.kkt_check(RELU, theta, X, to_exact([1, 1]))
    assert result.status == "kkt" and result.exact, result.message
    assert list(result.multipliers) == [1, 1] and result.kinks == (kkt.Kink(0, 1, 1, "clarke", Q(1, 2)),)
    assert result.stationarity_residual == 0


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_selections_are_matched_to_their_own_kinks(exact):
    """Kinks in order (clarke, silent, clarke, clarke with λ = 0): μ is indexed by Clarke kinks only, the silent
    one gets no selection, and a sample with λ = 0 gets none either."""
    kinks = [kkt.Kink(0, 1, 0, "clarke"), kkt.Kink(0, 1, 1, "silent"), kkt.Kink(1, 1, 2, "clarke"),
             kkt.Kink(2, 1, 0, "clarke")]
    lam, mu = ([2, 4, 0], [1, 1, 0])
    lam, mu = (to_exact(lam), to_exact(mu)) if exact else (np.array(lam, float), np.array(mu, float))
    out = kkt._with_selections(kinks, lam, mu)
    assert [None if k.selection is None else float(k.selection) for k in out] == [0.5, None, 0.25, None]
    assert all(isinstance(k.selection, sympy.Rational if exact else float) for k in (out[0], out[2]))
    assert out[1].kind == "silent" and [k.sample for k in out] == [0, 0, 1, 2]


def test_clarke_lp_multipliers_are_nonnegative():
    """θ = −g − d (g = e1, d = e2): with λ, μ ≥ 0 the best ℓ1 residual is ‖θ‖₁ = 2 at λ = μ = 0 (negative
    multipliers would fit θ exactly)."""
    found = kkt._clarke_multipliers(np.array([[1.0], [0.0]]), np.array([[0.0], [1.0]]), [0], np.array([-1.0, -1.0]),
                                    False, 1e-6)
    assert np.sum(np.abs(found.residual)) == pytest.approx(2.0, abs=1e-9)
    assert found.lam[0] == pytest.approx(0, abs=1e-9) and found.mu[0] == pytest.approx(0, abs=1e-9)


class QuadraticModel:
    """Φ(θ; x) = x1 θ1² + x2 θ1θ2 + x3 θ2² (degree 2, not a Network: no kinks, no activation pattern)."""

    degree, d_in, d_out, n_params = 2, 3, 1, 2

    def forward(self, theta, X):
        t1, t2 = theta
        return (X[:, 0] * t1 * t1 + X[:, 1] * t1 * t2 + X[:, 2] * t2 * t2).reshape(-1, 1)

    def jacobian(self, theta, X):
        t1, t2 = theta
        return np.stack([2 * X[:, 0] * t1 + X[:, 1] * t2, X[:, 1] * t1 + 2 * X[:, 2] * t2], axis=1)[:, None, :]

    def vjp(self, theta, X, G):
        return G[:, 0] @ self.jacobian(theta, X)[:, 0, :]


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
def test_second_order_with_a_degenerate_constraint_is_inconclusive(exact):
    """θ = (1, 0): sample 1 (Φ = θ1² + 3θ2²) and sample 2 (Φ = θ1² + 2θ1θ2) are active, ∇q = (2, 0) and (2, 2)
    (LICQ), λ = (1/2, 0). H = I − diag(1, 3) = diag(0, −2) is negative on V₊ = span{e2} (λ₁ > 0 only), but V₀ =
    {0}: negative curvature only outside the critical subspace of the degenerate constraint — "inconclusive", not
    "satisfied" (which it would be if λ₂ = 0 counted as positive) and not "violated"."""
    X, y, theta = [[1, 0, 3], [1, 2, 0]], [1, 1], [1, 0]
    args = (to_exact(theta), to_exact(X), to_exact(y)) if exact else \
        (np.array(theta, float), np.array(X, float), np.array(y, float))
    result = kkt.second_order_check(QuadraticModel(), *args)
    assert result.kkt.status == "kkt" and result.kkt.active == (0, 1)
    assert [float(v) for v in result.kkt.multipliers] == [0.5, 0.0]
    assert result.status == "inconclusive" and result.critical_dimension == 1
    assert result.min_curvature == pytest.approx(-2)


def test_float_second_order_treats_multipliers_below_tol_as_zero():
    """Float mode, θ = (10⁻⁴, 0) on x = (10⁴, 0): λ = 10⁻⁸ ≤ tol, so no multiplier counts as positive and the
    larger critical subspace is all of ℝ² (H = I: satisfied, definite)."""
    result = kkt.second_order_check(LINEAR, [1e-4, 0.0], [[1e4, 0.0]], [1.0])
    assert result.kkt.status == "kkt" and result.kkt.multipliers[0] == pytest.approx(1e-8)
    assert result.status == "satisfied" and result.critical_dimension == 2 and result.sufficient


def test_each_clarke_kink_reads_its_own_selection():
    """The multipliers μ are indexed by the Clarke kinks in order; a silent kink takes none: kinks (clarke of
    sample 0, silent, clarke of sample 1) with λ = (2, 4), μ = (1, 3) select 1/2 and 3/4."""
    kinks = [kkt.Kink(0, 1, 0, "clarke"), kkt.Kink(0, 1, 1, "silent"), kkt.Kink(1, 1, 0, "clarke")]
    float_kinks = kkt._with_selections(kinks, np.array([2.0, 4.0]), np.array([1.0, 3.0]))
    assert [k.selection for k in float_kinks] == [0.5, None, 0.75]
    exact_kinks = kkt._with_selections(kinks, to_exact([2, 4]), to_exact([1, 3]))
    assert [k.selection for k in exact_kinks] == [Q(1, 2), None, Q(3, 4)]
    # a zero multiplier selects nothing (the kink does not enter the subgradient)
    assert kkt._with_selections(kinks, np.array([0.0, 4.0]), np.array([0.0, 3.0]))[0].selection is None


def test_curve_witness_direction_is_read_at_upper_times_ten_to_the_minus_twelve():
    """The leaving direction is (θ'(ε) − θ)/‖·‖ at ε = upper·10⁻¹²: θ = (1, 1, 1), x = e1, θ'(ε) = (1, 1 − ε,
    1 − 10²⁴ε²) on (0, 10⁻¹²] (margin 1, ‖θ'‖² smaller by 2ε − ε² + 2b − b² with b = 10²⁴ε² ≤ 1), whose
    direction turns from e2 to e3 around ε = 10⁻²⁴: there it is (0, −1, −1)/√2 (at 10⁻²⁵ it would be nearly −e2)."""
    eps = sympy.Symbol("eps", positive=True)
    upper = Q(1, 10**12)
    witness = kkt.certify_witness_curve(LINEAR3, to_exact([1, 1, 1]), to_exact([[1, 0, 0]]), to_exact([1]),
                                        [1, 1 - eps, 1 - 10**24 * eps**2], eps, upper)
    assert witness.certified, witness.message
    np.testing.assert_allclose(witness.direction, [0, -2**-0.5, -2**-0.5], atol=1e-9)


def test_float_stationarity_at_the_tolerance_is_kkt():
    """Float mode: "kkt" iff ‖r‖/‖θ‖ ≤ tol, the edge included (θ = e1, r = tol·e1 with tol = 2⁻²⁰, exact in
    binary); just above it, "not_kkt"."""
    tol = 2.0**-20
    args = (LINEAR, np.array([1.0, 0.0]), np.array([1.0]), np.array([1.0]))
    status, (stationarity, _, _) = kkt._residuals(*args, np.array([tol, 0.0]), False, tol)
    assert stationarity == tol and status == "kkt"
    status, _ = kkt._residuals(*args, np.array([np.nextafter(tol, 1.0), 0.0]), False, tol)
    assert status == "not_kkt"


def test_exact_negative_curvature_direction_survives_a_large_basis():
    """H = diag(−1, 1) on span Z with Z = 10⁴·I: the generalized eigenvector of (ZᵀHZ, ZᵀZ) is (10⁻⁴, 0), which
    is scaled to largest entry 1 before rationalizing (denominators ≤ 10⁶), so the exact direction is Z·e1 with
    curvature exactly −1 (scaled the other way it would round to 0)."""
    H, Z = to_exact([[-1, 0], [0, 1]]), to_exact([[10**4, 0], [0, 10**4]])
    found = kkt._curvature_on(H, Z, True, 1e-6)
    assert not found.psd and found.curvature == -1
    assert list(found.direction) in ([10**4, 0], [-(10**4), 0])
