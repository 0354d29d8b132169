"""numerics.certificates: exact ranks, singular-value enclosures and interval certification, checked against
closed forms and 50-digit mpmath references."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb, ctx, fmpq, fmpq_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.certificates import (
    Interval,
    ball,
    certify_positive,
    certify_rank,
    enclose,
    enclose_singular_values,
    exact_rank,
    interval_function,
    power,
    to_fmpq,
)


def mp_singular_values(rows: list[list[object]]) -> list[mpmath.mpf]:
    """Singular values at 50 digits of a matrix of floats (exact binary values) or Fractions."""
    with mpmath.workdps(50):
        M = mpmath.matrix([[mpmath.mpf(v) if isinstance(v, float) else mpmath.mpf(v.numerator) / v.denominator
                            for v in row] for row in rows])
        return sorted(mpmath.svd_r(M, compute_uv=False), reverse=True)


def contains(interval: Interval, exact: mpmath.mpf) -> bool:
    with mpmath.workdps(50):
        return mpmath.mpf(interval.lo) <= exact <= mpmath.mpf(interval.hi)


# -- exact numbers and outward rounding ------------------------------------------------------------------

def test_exact_conversions():
    assert to_fmpq(0.1) == fmpq(3602879701896397, 2**55)
    assert to_fmpq("16/17") == fmpq(16, 17)
    assert to_fmpq(sympy.Rational(-3, 4)) == fmpq(-3, 4)
    assert to_fmpq(Fraction(5, 6)) == fmpq(5, 6)
    assert to_fmpq(np.int64(7)) == fmpq(7)
    with pytest.raises(ValueError):
        to_fmpq(math.inf)
    with pytest.raises(ValueError):
        to_fmpq(sympy.sqrt(2))


def test_intervals_are_rounded_outward():
    with ctx.workprec(200):
        third = arb(1) / 3
    interval = Interval.from_arb(third)
    assert Fraction(interval.lo) < Fraction(1, 3) < Fraction(interval.hi)
    assert interval.hi == math.nextafter(interval.lo, math.inf)  # as tight as floats allow
    assert Interval.from_arb(arb(-1).log()) == Interval(-math.inf, math.inf)  # NaN ball: no information
    assert ctx.prec == 53


def test_ball_covers_its_interval_and_stays_nonnegative_from_zero():
    cell = ball(0, "1/3")
    assert cell.lower() == 0 and cell.upper() >= arb(fmpq(1, 3))
    assert not (ball(-1, 0).upper() > 0)
    assert ball("2/7").contains(arb(fmpq(2, 7)))


def test_power_is_tight_where_arb_pow_is_not():
    x = ball(-1, 1)
    assert power(x, 2).lower() == 0 and power(x, 2).upper() <= 1 + 1e-8
    assert not (x**2).is_finite()  # python-flint's ** goes through exp/log
    cube = Interval.from_arb(power(ball(-2, 1), 3))
    assert cube.lo == pytest.approx(-8, rel=1e-7) and cube.hi == pytest.approx(1, rel=1e-7)  # radii: 30 bits
    assert Interval.from_arb(power(ball(2), -2)) == Interval(0.25, 0.25)


# -- exact rank -----------------------------------------------------------------------------------------------

def test_exact_rank_of_rational_matrices():
    assert exact_rank([[1, 2, 3], [4, 5, 6], [5, 7, 9]]) == 2  # row 3 = row 1 + row 2
    assert exact_rank(fmpq_mat.hilbert(6, 6)) == 6
    assert exact_rank(sympy.Matrix([[sympy.Rational(1, 3), sympy.Rational(2, 3)], [1, 2]])) == 1
    assert exact_rank([[Fraction(1, 7), 0], [0, 0]]) == 1
    assert exact_rank(np.zeros((3, 2))) == 0
    assert exact_rank(np.outer([1.0, 2.0, 3.0], [0.5, 0.25])) == 1  # exact binary fractions
    assert exact_rank(np.outer([0.1, 0.2, 0.3], [1.0, 3.0]) + [[0, 0], [0, 0], [0, 1e-300]]) == 2


# -- singular values --------------------------------------------------------------------------------------------

def test_singular_values_of_diagonal_matrix_are_points():
    enclosure = enclose_singular_values(np.diag([3.0, -2.0, 0.5, 0.0]))
    assert enclosure.certified
    assert enclosure.intervals == (Interval(3.0, 3.0), Interval(2.0, 2.0), Interval(0.5, 0.5), Interval(0.0, 0.0))


def test_singular_values_of_rank_one_matrix():
    u, v = np.array([0.1, -0.7, 0.3]), np.array([1.3, 0.2, -2.1, 0.4])
    enclosure = enclose_singular_values(np.outer(u, v))
    with mpmath.workdps(50):
        exact = mp_singular_values(np.outer(u, v).tolist())
    assert all(contains(interval, value) for interval, value in zip(enclosure.intervals, exact))
    assert enclosure.intervals[0].width <= 1e-14
    assert enclosure.intervals[1].lo == 0.0 and enclosure.intervals[1].hi <= 1e-14


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (6, 6)])
def test_enclosures_contain_50_digit_singular_values(shape):
    W = np.random.default_rng(sum(shape)).normal(size=shape)
    enclosure = enclose_singular_values(W)
    exact = mp_singular_values(W.tolist())
    assert all(contains(interval, value) for interval, value in zip(enclosure.intervals, exact))
    assert max(interval.width for interval in enclosure.intervals) <= 1e-13 * float(exact[0])  # accuracy bound


def test_enclosures_of_a_rational_matrix():
    rows = [[Fraction(1, 3), Fraction(1, 7)], [Fraction(2, 5), Fraction(1)], [Fraction(-5, 11), Fraction(2, 9)]]
    enclosure = enclose_singular_values(fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row] for row in rows]))
    exact = mp_singular_values(rows)
    assert all(contains(interval, value) for interval, value in zip(enclosure.intervals, exact))
    assert max(interval.width for interval in enclosure.intervals) <= 1e-14


def test_repeated_singular_values_are_enclosed():
    Q = np.linalg.qr(np.random.default_rng(5).normal(size=(4, 4)))[0]
    enclosure = enclose_singular_values(2 * Q)
    assert all(interval.contains(2.0) and interval.width < 1e-13 for interval in enclosure.intervals)


# -- rank certificates -------------------------------------------------------------------------------------------------

def test_rank_certificate_of_rank_one_float_matrix():
    W = np.outer([0.1, 0.2, 0.7], [0.3, -0.9])
    assert certify_rank(W, 1).certified
    second = certify_rank(W, 2)
    assert not second.certified and second.sigma_rank.lo == 0.0
    assert certify_rank(W, 1).spectral_distance <= 1e-15
    with pytest.raises(ValueError, match="rank must lie"):
        certify_rank(W, 3)


def test_rank_certificate_distances_match_the_tail_singular_values():
    certificate = certify_rank(np.diag([1.0, 1e-3, 1e-4]), 1)
    assert certificate.certified
    assert 1e-3 <= certificate.spectral_distance <= 1e-3 * (1 + 1e-12)
    assert math.hypot(1e-3, 1e-4) <= certificate.frobenius_distance <= math.hypot(1e-3, 1e-4) * (1 + 1e-12)
    assert certify_rank(np.diag([1.0, 1e-3, 1e-4]), 3).certified  # tiny but certainly positive


# -- interval certification -------------------------------------------------------------------------------------------

def test_sin_is_positive_on_a_closed_interval():
    certificate = certify_positive(lambda x: x.sin(), [(0.1, 3)])
    assert certificate.certified and certificate.witness is None
    assert 0 < certificate.min_lower_bound <= math.sin(0.1)
    assert certificate.evaluations <= 4  # cost bound: arb's sin encloses the range in one evaluation


def test_sin_is_not_positive_past_pi_and_the_witness_is_checked():
    certificate = certify_positive(lambda x: x.sin(), [(0.1, 4)], cells=4)
    assert not certificate.certified
    ((failed,),) = certificate.failed_cells  # the last of the cells [0.1 + 0.975 k, 0.1 + 0.975 (k + 1)]
    assert failed.lo == pytest.approx(3.025) and failed.hi == 4.0
    (x,) = certificate.witness
    assert math.pi < x <= 4 and certificate.witness_value.hi < 0
    assert "counterexample" in certificate.description


def test_double_root_fails_only_on_its_own_cell_without_a_counterexample():
    # (x − 3/2)²(x + 1) ≥ 0 touches 0 at x = 3/2, so "> 0" fails there but no point refutes it
    certificate = certify_positive(lambda x: power(x - 1.5, 2) * (x + 1), [(0, 3)], cells=5)
    assert [cell.certified for cell in certificate.cells] == [True, True, False, True, True]
    assert certificate.failed_cells == ((Interval(1.2, 1.8),),)
    assert all(box[0].lo <= 1.5 + 1e-6 and box[0].hi >= 1.5 - 1e-6 for box in certificate.cells[2].uncertified)
    assert certificate.witness is None
    assert certificate.evaluations <= 200  # cost bound: ~2 evaluations per bisection level near the root


def test_x_squared_minus_two_fails_near_root_two():
    certificate = certify_positive(lambda x: x * x - 2, [(1.4, 3)], max_depth=30)
    assert not certificate.certified
    leaves = certificate.cells[0].uncertified
    assert max(box[0].hi for box in leaves) - math.sqrt(2) < 1e-8  # uncertified only up to √2
    (x,) = certificate.witness
    assert x * x < 2  # exact check of the counterexample
    assert certify_positive(lambda x: x * x - 2, [("1.4143", 3)]).certified


def test_threshold_and_non_strict_inequalities():
    assert certify_positive(lambda x: x.sqrt() + 1, [(0, "1/3")], threshold="1/2", cells=3).certified
    assert certify_positive(lambda x: power(x, 2), [(-1, 1)], strict=False).certified
    assert not certify_positive(lambda x: x * x, [(-1, 1)], strict=False, max_depth=8).certified  # dependency problem
    assert not certify_positive(lambda x: power(x, 2), [(-1, 1)], strict=True, max_depth=8).certified


def test_two_dimensional_box_with_grid():
    f = lambda x, y: x * x + y * y + 0.1 - x * y  # noqa: E731
    certificate = certify_positive(f, [(-1, 1), (-1, 1)], cells=(2, 3))
    assert certificate.certified and len(certificate.cells) == 6
    assert certificate.evaluations <= 400
    failing = certify_positive(lambda x, y: x * y + 0.01, [(-1, 1), (-1, 1)], max_depth=12)
    assert not failing.certified
    x, y = failing.witness
    assert x * y + Fraction(1, 100) <= 0


def test_evaluation_budget_is_respected():
    certificate = certify_positive(lambda x: x * x - 2, [(0, 3)], cells=3, max_evaluations=10)
    assert not certificate.certified and certificate.evaluations <= 11
    assert certificate.min_lower_bound == -math.inf


def test_half_open_range_certified_on_a_closed_subinterval():
    eps = sympy.Symbol("eps")
    margin = interval_function(eps * (16 - 17 * eps) / 4, [eps])
    certificate = certify_positive(margin, [("1/1000000", "15999983/17000000")])  # [10⁻⁶, 16/17 − 10⁻⁶]
    assert certificate.certified
    assert "[1/1000000, 15999983/17000000]" in certificate.description
    assert not certify_positive(margin, [(0, "16/17")]).certified


# -- enclosures of functions -------------------------------------------------------------------------------------

def test_enclosure_contains_50_digit_values():
    f = lambda x: x.exp() * x.sin() / (1 + x * x)  # noqa: E731
    for point in [0.3, 1.7, 2.9]:
        interval = enclose(f, [(point, point)])
        with mpmath.workdps(50):
            x = mpmath.mpf(point)
            assert contains(interval, mpmath.exp(x) * mpmath.sin(x) / (1 + x * x))
        assert interval.width <= 1e-14
    wide = enclose(f, [(0, 1)])
    assert wide.lo <= 0 and wide.hi >= float(mpmath.exp(1) * mpmath.sin(1) / 2)


def test_interval_function_translates_sympy_expressions():
    x, y = sympy.symbols("x y")
    expr = sympy.sqrt(x) * sympy.exp(-x) + sympy.atan(y) / (1 + x**2) - sympy.Rational(1, 3) * sympy.log(1 + y) \
        + sympy.cos(sympy.pi * x) + x ** sympy.Rational(3, 2) + sympy.Abs(y - 2)
    f = interval_function(expr, [x, y])
    with ctx.workprec(128):
        value = f(arb(fmpq(7, 10)), arb(fmpq(2, 5)))
    with mpmath.workdps(50):
        reference = sympy.N(expr.subs({x: sympy.Rational(7, 10), y: sympy.Rational(2, 5)}), 50)
        assert contains(Interval.from_arb(value), mpmath.mpf(str(reference)))
    assert value.rad() < 1e-30
    with pytest.raises(ValueError, match="no ball rule"):
        interval_function(sympy.gamma(x), [x])(arb(1))


@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=3, max_size=3), st.integers(-30, 30), st.integers(1, 30))
def test_polynomial_enclosures_contain_exact_values(coefficients, numerator, denominator):
    a, b, c = coefficients
    x0 = Fraction(numerator, denominator)
    interval = enclose(lambda x: a * power(x, 2) + b * x + c, [(x0, x0 + Fraction(1, 1000))])
    for point in (x0, x0 + Fraction(1, 2000), x0 + Fraction(1, 1000)):
        exact = a * point**2 + b * point + c
        assert Fraction(interval.lo) <= exact <= Fraction(interval.hi)
