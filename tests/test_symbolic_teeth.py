"""Edges of numerics.symbolic that the closed-form tests in tests/test_symbolic.py leave open (written against the
survivors of `verify bench teeth --modules numerics.symbolic`, each pinned by what it causes, not by reading the
source):

* the flint translation of rational functions (``vanishes_as_rational_function`` and its three-valued verdict):
  sums over a shared denominator, products whose factors cancel across numerator and denominator (in both
  orders), sums whose numerator and denominator share a factor, x and √x read as powers of one generator, a zero
  factor that must not absorb the sum around it, a hidden zero denominator, 0⁰ = 1 as sympy reads it, and which
  expressions get the verdict False (independent symbols only) rather than None (left to sympy);
* ``is_identically_zero``: the order of the steps (cancel before the spot check, trigsimp after it), no spot check
  for an identity the cheap steps prove, a refuted rational function of symbols kept as written, ``samples=0`` and
  ``samples=1`` taken literally, the default seed 0, exact rational values (0 never refutes, 1 does), positive
  symbols sampled positive, the sample points' range (p/q with 1 ≤ |p|, q ≤ 29, both signs for real symbols),
  3 draws per sample before giving up, enclosures tried up to the documented 1024 bits, a matrix proved only when
  every entry is, matrices of symbolic shape decided in the free algebra;
* ``certify_rational_positive``: the interior point at which the constant sign is read (midpoint of a finite
  interval, one inside the finite end of a half-line), each condition of the certificate (no interior zero or
  pole, none at a closed end, positive inside) violated alone, and the exact roots and poles listed from an
  infinite end;
* the exact phase-one simplex behind ``sign_patterns`` against HiGHS on small integer systems and by hand, the
  faces of a degenerate arrangement, and samples with no coordinates (d = 0).
"""

from __future__ import annotations

import math

import flint
import numpy as np
import pytest
import sympy
from flint import fmpq

import numerics.symbolic as symbolic
from numerics.symbolic import (
    SpotCheck,
    _is_nonzero,
    _nonnegative_solution_exists,
    _random_rational,
    _rational_function_verdict,
    certify_rational_positive,
    is_identically_zero,
    sign_patterns,
    vanishes_as_rational_function,
)

x, y = sympy.symbols("x y", positive=True)
z = sympy.Symbol("z")  # no assumptions
eps = sympy.Symbol("eps", real=True)
sqrt = sympy.sqrt


# -- the flint translation ------------------------------------------------------------------------------------

@pytest.mark.parametrize("identity", [
    z / (z + 1) + 1 / (z + 1) - 1,  # two terms over one denominator, then a term over 1
    (z**2 - 1) / (z + 1) - (z - 1),  # the numerator of one factor cancels against the denominator of the other
    (z + 1) / (z**2 - 1) - 1 / (z - 1),  # the same with the roles of the factors swapped
    1 / z + z - (z**2 + 1) / z,
    z * (z / (z + 1) + 1 / (z + 1)) - z,  # a sum whose numerator and denominator share the factor z + 1
    1 / (z**2 - 1) / (z + 1) - 1 / ((z - 1) * (z + 1) ** 2),  # a product of two denominators with a common factor
    (sqrt(x) + 1) ** 2 - x - 2 * sqrt(x) - 1,  # x is the square of the generator √x
    sympy.Add(sympy.Pow(sympy.S.Zero, 0, evaluate=False), -1, evaluate=False),  # 0⁰ = 1, as sympy evaluates it
])
def test_identities_vanish_as_rational_functions(identity):
    assert vanishes_as_rational_function(identity)
    assert _rational_function_verdict(identity) is True


@pytest.mark.parametrize("expression", [
    z / (z + 1) + 2 / (z + 1) - 1,  # one off in a shared numerator
    (z**2 - 1) / (z + 1) - z,
    (z + 1) / (z**2 - 1) - 1 / (z + 1),
    1 / z + z - (z + 1) / z,
    1 + z * (z / (z + 1) + 1 / (z + 1) - 1),  # 1: a zero factor inside must not absorb the sum around it
    x + sqrt(x) - 2,  # 0 at x = 1 only: x and √x are not independent, but neither may be read as 1
    sympy.exp(z) + sympy.exp(z / 2) - 2,
])
def test_non_identities_do_not_vanish(expression):
    assert not vanishes_as_rational_function(expression)
    assert not is_identically_zero(expression).proved


def test_a_nonzero_rational_function_of_symbols_is_kept_as_written():
    # flint says no cheap step reaches 0: the residual is the expression itself, not sympy's expansion of it
    nonzero = (z + 1) ** 3 - z**3 - eps
    result = is_identically_zero(nonzero)
    assert result.refuted and result.residual == nonzero and result.residual != sympy.expand(nonzero)


def test_the_verdict_false_is_kept_for_independent_symbols():
    """False (no cheap step can reach 0) only where every generator is a symbol, a matrix entry or an undefined
    function to the first power; a root (√x), a symbolic power (z^y) or a hidden zero denominator gives None."""
    A, f = sympy.MatrixSymbol("A", 2, 2), sympy.Function("f")
    assert _rational_function_verdict(z + 1) is False
    assert _rational_function_verdict(x - y) is False
    assert _rational_function_verdict(A[0, 1] * f(z) - z) is False
    assert _rational_function_verdict(x + sqrt(x) - 2) is None
    assert _rational_function_verdict(z**y + 1) is None  # z^y is no indeterminate: z^(y+1) = z·z^y
    assert _rational_function_verdict(1 / (z / (z + 1) + 1 / (z + 1) - 1)) is None  # 1/0 in disguise
    assert _rational_function_verdict(sympy.Float(0.5) * z) is None
    assert _rational_function_verdict(sympy.sin(z) + 1) is None  # sin z is no indeterminate: sin² + cos² = 1


# -- is_identically_zero: the spot check ------------------------------------------------------------------------

def test_an_identity_proved_by_the_cheap_steps_is_never_sampled():
    for identity in (z / (z + 1) + 1 / (z + 1) - 1, sympy.expand((z + 1) ** 2) - (z + 1) ** 2,
                     sympy.Matrix([[z - z, 0], [0, x * y - y * x]])):
        result = is_identically_zero(identity)
        assert result.proved
        assert (result.spot_check.samples, result.spot_check.zeros) == (0, 0)
        assert not result.spot_check.refuted and result.spot_check.witness is None


def test_the_spot_check_runs_after_cancel_and_before_trigsimp():
    # cancel∘together (a float keeps flint out) is a cheap step: proved before any sample is drawn
    cancelled = is_identically_zero(sympy.Float(0.5) * (1 / (z - 1) - 1 / (z + 1)) - 1 / (z**2 - 1))
    assert cancelled.proved and cancelled.method == "cancel" and cancelled.spot_check.samples == 0
    # trigsimp only after the spot check failed to refute: its 6 samples are reported with the proof
    trig = is_identically_zero(sympy.sin(z) ** 2 + sympy.cos(z) ** 2 - 1)
    assert trig.proved and trig.method == "trigsimp"
    assert (trig.spot_check.samples, trig.spot_check.zeros) == (6, 6)


def test_default_seed_is_zero():
    branch = sympy.sqrt(z**2) - z  # refuted at a seed-dependent negative point
    assert is_identically_zero(branch) == is_identically_zero(branch, seed=0)
    assert is_identically_zero(branch).spot_check.witness != is_identically_zero(branch, seed=1).spot_check.witness


def test_a_matrix_with_some_entries_proved_is_not_proved():
    result = is_identically_zero(sympy.Matrix([[z / (z + 1) + 1 / (z + 1) - 1, z + 1]]))
    assert not result.proved and result.refuted and result.method == ""
    assert result.residual == sympy.Matrix([[0, z + 1]])


def test_matrices_of_symbolic_shape_are_decided_in_the_free_algebra():
    n, m = sympy.symbols("n m", integer=True, positive=True)
    A, B, C = sympy.MatrixSymbol("A", n, m), sympy.MatrixSymbol("B", m, n), sympy.MatrixSymbol("C", n, m)
    proved = is_identically_zero((A + C) * B - A * B - C * B)
    assert proved.proved and proved.method == "expand" and isinstance(proved.residual, sympy.ZeroMatrix)
    assert proved.spot_check == SpotCheck(0, 0, False, None, None)  # no point drawn for a symbolic shape
    assert "every shape" in proved.description
    open_ = is_identically_zero(A * B * A - A * B * C)
    assert not open_.proved and not open_.refuted and open_.method == ""
    assert open_.spot_check == SpotCheck(0, 0, False, None, None)
    assert open_.description.startswith("undecided")
    concrete = sympy.MatrixSymbol("D", 2, 2)  # a concrete shape is made explicit and spot checked instead
    assert is_identically_zero(concrete * concrete.T - concrete.T * concrete).refuted


def test_the_number_of_samples_is_taken_literally():
    arctangents = sympy.atan(x) + sympy.atan(1 / x) - sympy.pi / 2  # true for x > 0, not simplified by sympy
    for samples in (0, 1, 2, 6):
        check = is_identically_zero(arctangents, samples=samples).spot_check
        assert (check.samples, check.zeros, check.refuted) == (samples, samples, False)
    off = arctangents + sympy.Rational(1, 10**30)
    assert not is_identically_zero(off, samples=0).refuted  # no point drawn: nothing refutes
    one = is_identically_zero(off, samples=1)  # the one point drawn refutes
    assert one.refuted and one.spot_check.samples == 1 and one.spot_check.zeros == 0


def test_exact_zero_values_never_refute():
    # sympy cannot simplify max + min − x − y to 0, and every value at rational points is the rational 0
    for a, b in ((x, y), (z, y), (z, eps)):
        result = is_identically_zero(sympy.Max(a, b) + sympy.Min(a, b) - a - b)
        assert not result.refuted
        assert result.spot_check.samples == result.spot_check.zeros == 6
    one = is_identically_zero(sympy.Max(x, y) + sympy.Min(x, y) - x - y + 1)  # the rational value 1 refutes
    assert one.refuted and one.spot_check.witness_value == 1


def test_nonnegative_symbols_are_sampled_positive():
    # sign(n) − 1 vanishes for n > 0 and not at n = 0: 200 samples of a nonnegative n never hit 0
    n = sympy.Symbol("n", nonnegative=True)
    result = is_identically_zero(sympy.sign(n) - 1, samples=200)
    assert not result.proved and not result.refuted
    assert result.spot_check.samples == result.spot_check.zeros == 200
    assert is_identically_zero(sympy.sign(z) - 1).refuted  # a real-or-complex z is sampled with both signs


def test_points_without_a_value_are_redrawn_three_times_per_sample(monkeypatch):
    # √(−x) is imaginary at every positive point: each of the 3·samples draws is redrawn, then the check gives up
    draws = []

    def counting(rng, positive):
        draws.append(positive)
        return _random_rational(rng, positive)

    monkeypatch.setattr(symbolic, "_random_rational", counting)
    result = is_identically_zero(sqrt(-x) + 1, samples=5)
    assert (result.spot_check.samples, result.spot_check.zeros, result.refuted) == (0, 0, False)
    assert draws == [True] * 15


def test_a_zero_enclosure_is_tried_up_to_1024_bits(monkeypatch):
    # the documented limit: a value is counted as 0 only if its enclosure holds 0 even at 1024 bits
    class Recording:
        def __init__(self):
            self.precisions: list[int] = []

        def workprec(self, prec):
            self.precisions.append(prec)
            return flint.ctx.workprec(prec)

    recording = Recording()
    monkeypatch.setattr(symbolic, "ctx", recording)
    assert _is_nonzero(sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - 1) is False
    assert max(recording.precisions) == 1024 and recording.precisions[-1] == 1024
    assert _is_nonzero(sympy.pi - sympy.Rational(314159265358979323846264338327950288, 10**35)) is True


def test_sample_points_are_small_rationals_of_both_signs():
    """Points are p/q with 1 ≤ |p| ≤ 29 and 1 ≤ q ≤ 29: never 0, every such value reachable, both signs for a
    symbol without sign assumptions and only positive ones for a positive symbol."""
    rng = np.random.default_rng(0)
    free = [_random_rational(rng, False) for _ in range(3000)]
    positive = [_random_rational(rng, True) for _ in range(3000)]
    for values in (free, positive):
        assert all(1 <= abs(v.p) <= 29 and 1 <= v.q <= 29 for v in values)
        assert max(abs(v) for v in values) == 29 and min(abs(v) for v in values) == sympy.Rational(1, 29)
        assert max(v.q for v in values) == 29
    assert all(v > 0 for v in positive)
    negatives = sum(1 for v in free if v < 0)
    assert 1300 < negatives < 1700  # signs drawn ±1 with equal weight
    assert {abs(v) for v in free if v < 0} & {v for v in free if v > 0}  # the same magnitudes on both sides


# -- certify_rational_positive --------------------------------------------------------------------------------

def test_the_sign_is_read_inside_the_interval():
    # a positive function that is negative just outside: the point where the sign is read must lie inside
    assert certify_rational_positive(eps - 3, eps, 3, 4).certified  # read at 7/2
    assert certify_rational_positive(5 - eps, eps, 3, 4).certified
    assert certify_rational_positive(-eps, eps, -2, -1).certified
    assert certify_rational_positive(-eps, eps, -math.inf, 0).certified  # read at upper − 1
    assert certify_rational_positive(eps - 3, eps, 3, math.inf).certified  # read at lower + 1
    assert not certify_rational_positive(3 - eps, eps, 3, math.inf).certified
    assert not certify_rational_positive(eps, eps, -math.inf, 0).certified
    assert not certify_rational_positive(-eps, eps, 0, 1).certified  # −1/2 at the midpoint: negative, if small
    # half-lines are read at a finite point: sympy's value at ±∞ of these is nan, which has no sign
    assert certify_rational_positive(eps**2 - eps + 1, eps, 0, math.inf).certified
    assert certify_rational_positive(eps**2 + eps + 1, eps, -math.inf, 0).certified


def test_each_condition_of_the_certificate_is_needed():
    # positive inside with no zero or pole there: certified, open and closed
    assert certify_rational_positive(eps + 1, eps, 0, 1, closed=True).certified  # numerator 1 at the end 0
    assert certify_rational_positive(eps + 1, eps, 0, 1).certified
    # a zero of the numerator only at a closed end
    assert certify_rational_positive(eps, eps, 0, 1).certified
    assert not certify_rational_positive(eps, eps, 0, 1, closed=True).certified
    # a pole only at a closed end
    assert certify_rational_positive(1 / eps, eps, 0, 1).certified
    assert not certify_rational_positive(1 / eps, eps, 0, 1, closed=True).certified
    assert not certify_rational_positive(1 / (1 - eps), eps, 0, 1, closed=True).certified
    # a pole of even order inside: no sign change, but the function is not defined there
    pole = certify_rational_positive(1 / (eps - sympy.Rational(1, 2)) ** 2, eps, 0, 1)
    assert not pole.certified and pole.poles == (sympy.Rational(1, 2),)
    # a zero of even order inside, touching 0
    touch = certify_rational_positive((eps - sympy.Rational(1, 3)) ** 2, eps, 0, 1)
    assert not touch.certified and touch.roots == (sympy.Rational(1, 3),)
    # one zero and one pole inside, positive at the midpoint: two sign changes, not zero of them
    crossing = certify_rational_positive((eps - sympy.Rational(1, 10)) / (eps - sympy.Rational(1, 5)), eps, 0, 1)
    assert not crossing.certified
    # no zero or pole anywhere, but negative
    assert not certify_rational_positive(-1 - eps**2, eps, 0, 1).certified
    assert not certify_rational_positive(-1 / (1 + eps**2), eps, -math.inf, math.inf).certified


def test_roots_and_poles_listed_exactly_from_infinite_ends():
    both = certify_rational_positive(eps**2 - 2, eps, -math.inf, math.inf)
    assert both.roots == (-sqrt(2), sqrt(2)) and not both.certified
    assert certify_rational_positive(eps**2 - 2, eps, -math.inf, 0).roots == (-sqrt(2),)
    assert certify_rational_positive(eps**2 - 2, eps, 0, math.inf).roots == (sqrt(2),)
    left = certify_rational_positive(1 / (eps**2 - 1), eps, -math.inf, 0)
    assert left.poles == (-1,) and not left.certified
    assert certify_rational_positive(1 / (eps**2 - 1), eps, -math.inf, -1).certified
    closure = certify_rational_positive(eps * (eps - 1) * (eps - 2), eps, 0, 2, closed=True)
    assert closure.roots == (0, 1, 2)  # zeros at both closed ends are listed
    assert certify_rational_positive(eps * (eps - 1) * (eps - 2), eps, 1, 2).roots == (1, 2)


# -- the exact phase-one LP behind the patterns ---------------------------------------------------------------

def _feasible_by_scipy(M: np.ndarray, c: np.ndarray) -> bool:
    from scipy.optimize import linprog

    result = linprog(np.zeros(M.shape[1]), A_eq=M, b_eq=c, bounds=(0, None), method="highs")
    return result.status == 0


def test_phase_one_agrees_with_a_float_lp_on_small_integer_systems():
    """Is there y ≥ 0 with M y = c? Small integer systems (entries −2..2, c ≥ 0), feasible and infeasible alike,
    decided exactly and compared with HiGHS (integer data this small is far from its tolerances)."""
    rng = np.random.default_rng(7)
    outcomes = []
    for _ in range(200):
        rows, cols = int(rng.integers(1, 5)), int(rng.integers(1, 7))
        M = rng.integers(-2, 3, size=(rows, cols))
        c = rng.integers(0, 3, size=rows)
        exact = _nonnegative_solution_exists([[fmpq(int(v)) for v in row] for row in M], [fmpq(int(v)) for v in c])
        assert exact == _feasible_by_scipy(M, c), (M.tolist(), c.tolist())
        outcomes.append(exact)
    assert 40 < sum(outcomes) < 160  # both answers well represented


def test_phase_one_small_cases_by_hand():
    one = fmpq(1)
    assert _nonnegative_solution_exists([[one, -one]], [one])  # y = (1, 0)
    assert not _nonnegative_solution_exists([[-one, -one]], [one])
    assert not _nonnegative_solution_exists([[one, one], [one, -one]], [fmpq(0), one])  # y = (1/2, −1/2) only
    assert _nonnegative_solution_exists([[one, fmpq(2)], [fmpq(0), one]], [fmpq(3), one])  # y = (1, 1)
    assert _nonnegative_solution_exists([[one, one, one]], [fmpq(0)])  # y = 0


# -- sign patterns --------------------------------------------------------------------------------------------

def test_faces_of_a_degenerate_arrangement():
    # x3 = −x4: three distinct lines in the plane, so 6 sectors, 6 rays and the origin; the LPs of these faces
    # pivot on entries −1, which the elimination must clear like any other nonzero entry
    X = [[-2, 1], [1, 2], [1, -1], [-1, 1]]
    assert len(sign_patterns(X, zeros=True)) == 13
    assert len(sign_patterns(X)) == 6
    assert all(p[2] == -p[3] for p in sign_patterns(X, zeros=True))


def test_samples_without_coordinates():
    # in R⁰ every w is 0, so wᵀx = 0 for every sample: no strict pattern, the all-zero face only
    assert sign_patterns(np.zeros((2, 0))) == []
    assert sign_patterns(np.zeros((2, 0)), zeros=True) == [(0, 0)]


def test_an_enclosure_infinite_at_64_bits_is_retried_at_more_bits():
    # 1/(π − r) with r the 40-digit rational of π: the 64-bit enclosure of π − r holds 0, so its reciprocal's is
    # infinite; at 256 bits it is ≈ 5.9e39, finite and nonzero (found by mutation testing: it returned None at once)
    r = sympy.Rational(str(sympy.N(sympy.pi, 40)))
    assert _is_nonzero(1 / (sympy.pi - r)) is True
    z = sympy.Symbol("z")
    assert is_identically_zero(1 / (sympy.pi - r) + z).spot_check.refuted  # refuted, not undecided
    assert _is_nonzero(1 / (sympy.pi - sympy.pi)) is None  # zoo: no real value
