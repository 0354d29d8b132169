"""numerics.symbolic: identity proofs versus spot checks, Lie derivatives, exact sign certification and the
realizable activation patterns of a ReLU neuron (against the Cover and Zaslavsky counts)."""

from __future__ import annotations

import math
import time
from math import comb

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.symbolic import (
    certify_rational_positive,
    generic_loss,
    gradient_flow,
    is_identically_zero,
    lie_derivative,
    network_patterns,
    sign_patterns,
    vanishes_as_rational_function,
    weight_matrices,
)

x, y = sympy.symbols("x y", positive=True)
z = sympy.Symbol("z")  # no assumptions: complex
eps = sympy.Symbol("eps", real=True)


def regions(n: int, d: int) -> int:
    """Cover's count of the regions of n central hyperplanes in general position in R^d."""
    return 2 * sum(comb(n - 1, k) for k in range(d)) if n else 1


def faces(n: int, d: int) -> int:
    """Zaslavsky: all faces of the same arrangement, summed over its flats (each flat cut by the rest)."""
    flats = sum(comb(n, c) * regions(n - c, d - c) for c in range(min(n, d - 1) + 1))
    return flats + (1 if n >= d else 0)  # the origin, when the hyperplanes meet only there


# -- identity testing -----------------------------------------------------------------------------------

def test_closed_form_identities_are_proved():
    assert is_identically_zero(sympy.sqrt(x) ** 2 - x).proved
    assert is_identically_zero(sympy.sqrt(x * y) - sympy.sqrt(x) * sympy.sqrt(y)).proved  # x, y > 0
    cancelled = is_identically_zero(1 / (z - 1) - 1 / (z + 1) - 2 / (z**2 - 1))
    assert cancelled.proved and cancelled.method == "rational"  # flint's rational functions, before any sympy step
    expanded = is_identically_zero(sympy.Float(0.5) * (z + 1) ** 2 - (z**2 + 2 * z + 1) / 2)  # a float: not flint's
    assert expanded.proved and expanded.method == "expand"
    trig = is_identically_zero(sympy.sin(z) ** 2 + sympy.cos(z) ** 2 - 1)
    assert trig.proved and trig.method == "trigsimp"
    assert is_identically_zero(sympy.S.Zero).method == "none needed"


def test_false_identities_are_refuted_by_exact_spot_checks():
    branch = is_identically_zero(sympy.sqrt(z**2) - z)  # fails for negative z
    assert not branch.proved and branch.refuted
    (point,) = branch.spot_check.witness.values()
    assert point < 0 and branch.spot_check.witness_value == -2 * point
    wrong = is_identically_zero(1 / (z - 1) - 1 / (z + 1) - 2 / (z**2 + 1))
    assert wrong.refuted and wrong.spot_check.witness_value.is_Rational
    irrational = is_identically_zero(sympy.sqrt(x + 1) - sympy.sqrt(x) - 1)  # values are irrational: arb decides
    assert irrational.refuted
    assert "NOT identically zero" in irrational.description


def test_spot_check_is_reproducible_and_never_a_proof():
    expr = sympy.exp(x) * sympy.exp(-x) - 1
    first, second = is_identically_zero(expr, seed=3), is_identically_zero(expr, seed=3)
    assert first == second
    assert first.proved  # by simplification; the spot check alone would only have supported it
    supported = is_identically_zero(sympy.Matrix([[sympy.sin(x) ** 2 + sympy.cos(x) ** 2 - 1, 0]]))
    assert supported.proved and supported.residual == sympy.zeros(1, 2)


def test_undecided_identity_is_only_supported():
    arctangents = sympy.atan(x) + sympy.atan(1 / x) - sympy.pi / 2  # true for x > 0; sympy cannot simplify it
    result = is_identically_zero(arctangents)
    assert not result.proved and not result.refuted
    assert result.spot_check.samples == result.spot_check.zeros == 6
    assert "evidence only" in result.description
    assert is_identically_zero(arctangents + sympy.Rational(1, 10**30)).refuted  # arb at up to 1024 bits


def test_matrix_expressions():
    A = sympy.MatrixSymbol("A", 2, 3)
    assert is_identically_zero((A * A.T).T - A * A.T).proved
    refuted = is_identically_zero(A.T * A - (A.T * A).T + A[0, 0] * sympy.eye(3) - A[0, 0] * sympy.ones(3, 3))
    assert refuted.refuted and refuted.residual.shape == (3, 3)


def _random_rational_function(rng: np.random.Generator, atoms: list[sympy.Expr], terms: int) -> sympy.Expr:
    """A sum of products of atoms to small integer powers (negative: in the denominator), rational coefficients."""
    total = sympy.S.Zero
    for _ in range(terms):
        factors = [atoms[int(i)] ** int(rng.integers(-2, 4)) for i in rng.integers(0, len(atoms), 3)]
        shifted = atoms[int(rng.integers(0, len(atoms)))] + int(rng.integers(1, 4))  # a non-monomial denominator
        total += sympy.Rational(int(rng.integers(-9, 10)), int(rng.integers(1, 5))) * sympy.Mul(*factors) \
            / shifted ** int(rng.integers(0, 3))
    return total


def test_the_flint_rational_function_test_agrees_with_sympys_cancel():
    """The fast check of the cancel step against sympy's cancel∘together: random rational functions of symbols,
    matrix entries, undefined functions, roots and exponentials: as they are and off an identity by a little
    (nonzero, as cancel finds), and rewritten into identities (zero for both); floats are left to sympy."""
    A, f = sympy.MatrixSymbol("A", 2, 2), sympy.Function("f")
    atoms = [x, z, eps, A[0, 1], f(z), sympy.sqrt(x), sympy.exp(z)]
    rng = np.random.default_rng(5)
    for _ in range(12):
        expr = _random_rational_function(rng, atoms, 3)
        other = _random_rational_function(rng, atoms, 2)
        combined = sympy.together(expr) - expr
        for candidate in (expr, combined, combined + other / 10**6,
                          expr / (1 + other) - sympy.together(expr / (1 + other))):
            reference = sympy.cancel(sympy.together(candidate)) == 0
            assert vanishes_as_rational_function(candidate) == reference, candidate
    assert vanishes_as_rational_function(1 / (z - 1) - 1 / (z + 1) - 2 / (z**2 - 1))
    assert vanishes_as_rational_function(x ** sympy.Rational(3, 2) * x ** sympy.Rational(-1, 2) - x)
    assert not vanishes_as_rational_function(sympy.sin(z) ** 2 + sympy.cos(z) ** 2 - 1)  # trigsimp's job
    assert not vanishes_as_rational_function(sympy.Float(0.5) * z - z / 2 + z)  # a float: undecided here
    assert not vanishes_as_rational_function(1 / (z - z))  # zoo


def test_nonzero_polynomials_in_symbols_skip_sympys_cancel_and_are_refuted_the_same():
    """The cancel step keeps a nonzero rational function of independent symbols as it is (sympy's cancel would not
    reach 0 either) and leaves expressions with dependent generators (roots, exponentials, functions) to sympy; the
    spot check replaces symbols structurally, and still evaluates derivatives of undefined functions at the point."""
    from numerics.symbolic import _cancel

    A, f = sympy.MatrixSymbol("A", 2, 2), sympy.Function("f")
    nonzero = sympy.expand((x + A[0, 1]) ** 3 - x**3 - eps)
    assert _cancel(nonzero) is nonzero
    assert _cancel(1 / (z - 1) - 1 / (z + 1) - 2 / (z**2 - 1)) == 0
    assert _cancel(sympy.sqrt(x) ** 3 / x - sympy.sqrt(x)) == 0
    assert _cancel(sympy.exp(z) / (sympy.exp(z) + 1) + 1 / (sympy.exp(z) + 1)) == 1  # sympy's together, not kept
    refuted = is_identically_zero(nonzero)
    assert refuted.refuted and not refuted.proved
    derivative = is_identically_zero(sympy.diff(f(z) * z, z) - z * sympy.diff(f(z), z) - f(z) + z)
    assert derivative.refuted and not derivative.proved


# -- Lie derivatives and conservation laws ------------------------------------------------------------------------

def test_lie_derivative_closed_forms():
    a, b = sympy.symbols("a b", real=True)
    rotation = [-b, a]
    assert lie_derivative(a, [a, b], rotation) == -b
    assert is_identically_zero(lie_derivative(a**2 + b**2, [a, b], rotation)).proved
    assert gradient_flow((a**2 + 3 * b**2) / 2, [a, b]) == [-a, -3 * b]
    with pytest.raises(ValueError, match="coordinates"):
        lie_derivative(a, [a, b], [b])


def test_weight_matrices_and_generic_loss():
    W1, W2 = weight_matrices([3, 2, 1])
    assert W1.shape == (2, 3) and W2.shape == (1, 2)
    assert W1[1, 2] == sympy.Symbol("W1_1_2", real=True)
    objective, G = generic_loss(W2 * W1)
    assert G.shape == (1, 3)
    field = gradient_flow(objective, [W1, W2])
    assert field[0] == -(W2.T * G)  # −∂/∂W1 ⟨G, W2 W1⟩ = −W2ᵀ G
    assert field[1] == -(G * W1.T)


@pytest.mark.parametrize("dims", [[2, 2, 2, 1], [1, 2, 2, 1]])
def test_depth_three_linear_network_conserves_layer_balance(dims):
    start = time.perf_counter()
    layers = weight_matrices(dims)
    objective, _ = generic_loss(layers[2] * layers[1] * layers[0])
    field = gradient_flow(objective, layers)
    for k in range(2):
        balance = layers[k + 1].T * layers[k + 1] - layers[k] * layers[k].T
        result = is_identically_zero(lie_derivative(balance, layers, field))
        assert result.proved and result.method == "rational"  # cost bound: the cheapest step suffices
    assert time.perf_counter() - start < 5  # measured ≈ 0.05 s


def test_transposed_balance_is_not_conserved_and_the_spot_check_shows_it():
    layers = weight_matrices([2, 2, 2, 1])
    objective, _ = generic_loss(layers[2] * layers[1] * layers[0])
    field = gradient_flow(objective, layers)
    wrong = layers[1] * layers[1].T - layers[0].T * layers[0]
    derivative = lie_derivative(wrong, layers, field)
    result = is_identically_zero(derivative)
    assert not result.proved and result.refuted and result.method == ""
    assert derivative.subs(result.spot_check.witness) != sympy.zeros(2, 2)


def test_conservation_with_an_undefined_loss_function():
    # ℓ(W2 W1 x) for one sample x and an undefined ℓ: the gradient carries ℓ′ as an opaque Subs(Derivative)
    ell = sympy.Function("ell")
    layers = weight_matrices([2, 2, 1])
    sample = sympy.Matrix(sympy.symbols("x0 x1", real=True))
    objective = ell((layers[1] * layers[0] * sample)[0, 0])
    field = gradient_flow(objective, layers)
    balance = layers[1].T * layers[1] - layers[0] * layers[0].T
    assert is_identically_zero(lie_derivative(balance, layers, field)).proved
    wrong = lie_derivative(layers[1] * layers[1].T, layers, field)
    assert is_identically_zero(wrong).refuted  # ℓ′ at the sample point gets its own random value


# -- signs of rational functions ------------------------------------------------------------------------------------

def test_sign_of_the_construction_margin():
    margin = 8 - (8 - eps * (16 - 17 * eps) / 4)  # the form "8 − ‖θ'(ε)‖²" reduces to
    certificate = certify_rational_positive(margin, eps, 0, sympy.Rational(16, 17))
    assert certificate.certified
    assert certificate.roots == (0, sympy.Rational(16, 17)) and certificate.poles == ()
    assert not certify_rational_positive(margin, eps, 0, sympy.Rational(16, 17), closed=True).certified
    beyond = certify_rational_positive(margin, eps, 0, 1)
    assert not beyond.certified and "NOT certified" in beyond.description
    assert not certify_rational_positive(margin, eps, -1, 0).certified  # negative there


def test_sign_of_rational_functions_with_poles_and_infinite_ends():
    f = (eps**2 + 1) / (eps - 3)
    certificate = certify_rational_positive(f, eps, 3, math.inf)
    assert certificate.certified and certificate.poles == (3,)
    assert not certify_rational_positive(f, eps, 2, math.inf).certified  # pole inside
    assert certify_rational_positive(1 / (eps**2 + 1), eps, -math.inf, math.inf).certified
    assert certify_rational_positive((eps - 1) ** 2 + sympy.Rational(1, 10**9), eps, 0.5, 1.5, closed=True).certified
    roots = certify_rational_positive(eps**2 - 2, eps, 0, 2).roots
    assert roots == (sympy.sqrt(2),)


def test_sign_certification_rejects_what_it_cannot_decide():
    with pytest.raises(ValueError, match="rational function"):
        certify_rational_positive(sympy.sqrt(eps) + 1, eps, 0, 1)
    with pytest.raises(ValueError, match="rational function"):
        certify_rational_positive(eps + sympy.Symbol("a"), eps, 0, 1)
    with pytest.raises(ValueError, match="empty interval"):
        certify_rational_positive(eps, eps, 1, 1)
    assert not certify_rational_positive(eps - eps, eps, 0, 1).certified


# -- activation patterns --------------------------------------------------------------------------------------

def test_two_points_at_an_obtuse_angle_have_four_patterns():
    assert sign_patterns([[1, 0], [-1, 1]]) == [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    assert sign_patterns([[1, 0], [-2, 0]]) == [(1, -1), (-1, 1)]  # opposite points: the arrangement has 1 line
    assert sign_patterns([[1.0, 0.0], [-1.0, 1e-200]]) == sign_patterns([[1, 0], [-1, 1]])  # exact, not rounded


@pytest.mark.parametrize("n", [2, 3, 6])
def test_points_in_general_position_in_the_plane(n):
    directions = [[math.cos(0.4 + 2.9 * k / n), math.sin(0.4 + 2.9 * k / n)] for k in range(n)]
    assert len(sign_patterns(directions)) == 2 * n
    assert len(sign_patterns(directions, zeros=True)) == 4 * n + 1  # 2n sectors, 2n rays, the origin


@pytest.mark.parametrize(("n", "d"), [(4, 3), (6, 3), (5, 4), (7, 4)])
def test_cover_and_zaslavsky_counts_in_higher_dimensions(n, d):
    X = np.random.default_rng(n * d).integers(-9, 10, size=(n, d))
    assert len(sign_patterns(X)) == regions(n, d)
    assert len(sign_patterns(X, zeros=True)) == faces(n, d)


def test_degenerate_data():
    assert sign_patterns([[2, 1]], zeros=True) == [(1,), (0,), (-1,)]  # one line: two half-planes and itself
    assert sign_patterns([[0, 0], [1, 1]]) == []  # a zero sample is never strictly on one side
    assert sign_patterns([[0, 0], [1, 1]], zeros=True) == [(0, 1), (0, 0), (0, -1)]
    assert len(sign_patterns([[1, 0, 0], [0, 1, 0], [1, 1, 0]])) == 6  # three coplanar samples in R³


def test_network_patterns_count_multisets_and_tuples():
    X = [[1, 0], [0, 1], [1, 1]]
    single = len(sign_patterns(X))
    assert single == 6
    assert len(network_patterns(X, 2)) == comb(single + 1, 2)
    assert len(network_patterns(X, 3, ordered=True)) == single**3
    assert network_patterns(X, 1) == [(p,) for p in sign_patterns(X)]


@settings(derandomize=True, max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_patterns_are_symmetric_bounded_and_realized(n, d, seed):
    X = np.random.default_rng(seed).integers(-3, 4, size=(n, d))
    patterns = sign_patterns(X)
    assert set(patterns) == {tuple(-s for s in p) for p in patterns}  # w ↦ −w
    assert len(patterns) <= regions(n, d)  # general position maximises the count
    rng = np.random.default_rng(seed + 1)
    for _ in range(20):  # every sign vector of a random w (off the hyperplanes) is among them
        w = rng.normal(size=d)
        signs = tuple(int(s) for s in np.sign(X @ w))
        assert 0 in signs or signs in patterns
