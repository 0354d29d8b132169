"""numerics.certificates: exact ranks, singular-value enclosures and interval certification, checked against
closed forms and 50-digit mpmath references."""

from __future__ import annotations

import math
import sys
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


# -- edges of the inputs, defaults and reports (each pinned by the behaviour it causes) ---------------------------

def test_intervals_are_closed():
    interval = Interval(1.0, 2.0)
    assert interval.contains(1.0) and interval.contains(2.0) and interval.contains(1.5)
    assert not interval.contains(math.nextafter(1.0, 0.0)) and not interval.contains(math.nextafter(2.0, 3.0))


def test_matrix_inputs_at_their_edges():
    """A single row or a single entry is a matrix; an empty one is refused. Nested lists of exact numbers (an
    object array) are taken exactly, not rounded to floats: σ of [[1/3]] is enclosed around 1/3 itself."""
    assert exact_rank([[1, 2]]) == 1 and exact_rank([[Fraction(1, 3)]]) == 1
    with pytest.raises(ValueError, match="empty matrix"):
        exact_rank([[]])
    assert enclose_singular_values(np.array([[-2.0]])).intervals == (Interval(2.0, 2.0),)
    with pytest.raises(ValueError, match="nonempty finite matrix"):
        enclose_singular_values(np.zeros((0, 2)))
    for exact in ([[Fraction(1, 3)]], np.array([[Fraction(1, 3)]], dtype=object)):
        (third,) = enclose_singular_values(exact).intervals
        assert Fraction(third.lo) < Fraction(1, 3) < Fraction(third.hi)  # float(1/3) < 1/3 would be left out


def test_singular_value_enclosures_work_at_128_bits_by_default():
    """The default working precision of the singular-value enclosure and of the rank certificate is 128 bits: an
    exact entry 1 + 2⁻¹²⁷ (128 significant bits) is held exactly, so the lower end of σ is exactly 1, while
    1 + 2⁻¹²⁸ (129 bits) is rounded, so its enclosure reaches below 1 (until prec=129)."""
    fits, rounded = fmpq_mat([[fmpq(2**127 + 1, 2**127)]]), fmpq_mat([[fmpq(2**128 + 1, 2**128)]])
    assert enclose_singular_values(fits).intervals[0].lo == 1.0 and certify_rank(fits, 1).sigma_rank.lo == 1.0
    assert enclose_singular_values(rounded).intervals[0].lo < 1.0 and certify_rank(rounded, 1).sigma_rank.lo < 1.0
    assert enclose_singular_values(rounded, prec=129).intervals[0].lo == 1.0
    assert certify_rank(rounded, 1, prec=129).sigma_rank.lo == 1.0


def test_singular_values_are_sorted_whatever_order_the_float_svd_gives(monkeypatch):
    """The float SVD is not trusted for the order either: a valid SVD of diag(1, 3, 2) that lists σ as (1, 3, 2)
    still gives the enclosures in decreasing order."""
    monkeypatch.setattr(np.linalg, "svd", lambda A: (np.eye(3), np.array([1.0, 3.0, 2.0]), np.eye(3)))
    enclosure = enclose_singular_values(np.diag([1.0, 3.0, 2.0]))
    assert enclosure.certified
    assert enclosure.intervals == (Interval(3.0, 3.0), Interval(2.0, 2.0), Interval(1.0, 1.0))


def test_rank_certificate_edges():
    """rank must lie in [0, min(m, n)]; rank ≥ 1 of the zero matrix is refused (σ_1 = 0); at full rank the
    matrix itself has rank ≤ rank, so both distances are 0."""
    with pytest.raises(ValueError, match="rank must lie"):
        certify_rank(np.eye(2), -1)
    zero = certify_rank(np.zeros((2, 2)), 1)
    assert not zero.certified and zero.sigma_rank == Interval(0.0, 0.0)
    full = certify_rank(np.diag([1.0, 2.0]), 2)
    assert full.certified and full.sigma_rank == Interval(1.0, 1.0)
    assert full.spectral_distance == 0.0 and full.frobenius_distance == 0.0


def test_power_zero_and_the_constant_e():
    assert Interval.from_arb(power(ball(-1, 1), 0)) == Interval(1.0, 1.0)  # x⁰ = 1, also on a ball around 0
    x = sympy.Symbol("x")
    value = Interval.from_arb(interval_function(x + sympy.E, [x])(arb(0)))
    assert value.contains(math.e) and value.width <= 1e-14


def test_default_working_precision_is_that_of_doubles():
    """certify_positive and enclose work at 53 bits by default: 1 + 2⁻⁵² is exact there, so (x + 2⁻⁵²) − x at
    x = 1 is the point 2⁻⁵² and is certified > 0; 1 + 2⁻⁵³ is not (it needs 54 bits): the same difference is a
    ball around 0 at the default precision, and a point at prec=54."""
    def difference(k):
        return lambda x: (x + arb(fmpq(1, 2**k))) - x

    assert enclose(difference(52), [(1, 1)]) == Interval(2.0**-52, 2.0**-52)
    assert certify_positive(difference(52), [(1, 1)], max_depth=0).certified
    assert enclose(difference(53), [(1, 1)]).contains(0.0)
    assert not certify_positive(difference(53), [(1, 1)], max_depth=0).certified
    assert enclose(difference(53), [(1, 1)], prec=54) == Interval(2.0**-53, 2.0**-53)
    assert certify_positive(difference(53), [(1, 1)], max_depth=0, prec=54).certified


def test_description_shows_integers_floats_and_fractions_as_given():
    """Box ends are printed as an integer (3), as the float they exactly are (0.1, 0.5), or as p/q (1/3)."""
    assert "f > 0 certified on [0.1, 3]" in certify_positive(lambda x: x, [(0.1, 3)]).description
    assert "certified on [1/3, 0.5]" in certify_positive(lambda x: x, [("1/3", 0.5)]).description


def test_reported_boxes_are_rounded_outward():
    """A cell bound 2⁻⁶⁴ below 1 (64 significant bits) is reported as the float below 1, not rounded up to 1."""
    certificate = certify_positive(lambda x: x, [(f"{2**64 - 1}/{2**64}", 2)])
    assert certificate.certified and certificate.cells[0].box == (Interval(math.nextafter(1.0, 0.0), 2.0),)


def test_evaluations_are_counted_exactly():
    """f = x + 1 on three cells: one ball evaluation each."""
    assert certify_positive(lambda x: x + 1, [(0, 1)], cells=3).evaluations == 3


def test_degenerate_boxes_are_allowed_and_never_bisected_along_a_point_side():
    """lo = hi is a point (lo > hi is refused); f = y on {1} × [0, 1] fails only at y = 0, and the bisection halves
    the [0, 1] side only: three levels leave {1} × [0, 1/8]."""
    assert certify_positive(lambda x: x, [(1, 1)]).certified
    with pytest.raises(ValueError, match="empty box"):
        certify_positive(lambda x: x, [(2, 1)])
    certificate = certify_positive(lambda x, y: y, [(1, 1), (0, 1)], max_depth=3)
    assert certificate.cells[0].uncertified == ((Interval(1.0, 1.0), Interval(0.0, 0.125)),)


@pytest.mark.parametrize("unit", [1.0, 2.0**-40], ids=["unit-box", "tiny-box"])
def test_bisection_halves_the_widest_side_relative_to_the_initial_cell(unit):
    """f = x + y on [0, 4u] × [0, u] fails only at the origin. Widths count relative to the initial cell, so the
    first halving (a tie, 1 : 1) cuts x and the second cuts y: two levels leave [0, 2u] × [0, u/2], the same
    shape at any scale (absolute widths would cut x twice)."""
    certificate = certify_positive(lambda x, y: x + y, [(0, 4 * unit), (0, unit)], max_depth=2)
    assert certificate.cells[0].uncertified == ((Interval(0.0, 2 * unit), Interval(0.0, unit / 2)),)


def test_default_bisection_depth_is_30_halvings():
    """f = x > 0 on [0, 1] fails only at 0: the cell [0, 2⁻ᵈ] is never certified, its right neighbour always is.
    With the default max_depth = 30 the last uncertified leaf is [0, 2⁻³⁰], after 1 + 2·30 evaluations and one
    more at its midpoint (which is not a counterexample)."""
    certificate = certify_positive(lambda x: x, [(0, 1)])
    assert not certificate.certified and certificate.witness is None
    assert certificate.cells[0].uncertified == ((Interval(0.0, 2.0**-30),),)
    assert certificate.evaluations == 62


def test_default_evaluation_budget_is_20000():
    """f = x + 1 needs one evaluation per cell: 20 000 cells fit the default budget exactly, 20 001 do not (the
    last cell is left uncertified, with lower bound −inf)."""
    fits = certify_positive(lambda x: x + 1, [(0, 1)], cells=20_000)
    assert fits.certified and fits.evaluations == 20_000
    over = certify_positive(lambda x: x + 1, [(0, 1)], cells=20_001)
    assert not over.certified and over.evaluations == 20_000 and over.min_lower_bound == -math.inf
    assert over.failed_cells == (over.cells[-1].box,)


def test_reported_boxes_contain_their_exact_cells_even_next_to_a_float():
    """A cell's side within 2⁻⁶⁴ (relative) of a float: the reported box is rounded outward exactly (a 64-bit ball
    of the side straddles the float, and reading it as a point rounded [1 − 2⁻⁶⁵, 2] in to [1, 2])."""
    from fractions import Fraction

    lower = Fraction(2**65 - 1, 2**65)
    box = certify_positive(lambda x: x, [(f"{lower.numerator}/{lower.denominator}", 2)]).cells[0].box
    assert Fraction(box[0].lo) <= lower and box[0].lo == math.nextafter(1.0, 0.0) and box[0].hi == 2.0
    upper = -lower  # the mirror image: [−2, −(1 − 2⁻⁶⁵)] is reported as [−2, −1 + ulp]
    box = certify_positive(lambda x: -x, [(-2, f"{upper.numerator}/{upper.denominator}")]).cells[0].box
    assert Fraction(box[0].hi) >= upper and box[0].hi == -math.nextafter(1.0, 0.0)


def test_reported_boxes_of_sides_beyond_the_float_range():
    """Sides past the largest float are reported outward as the largest float or ±inf, whichever contains them."""
    huge = 10**400
    box = certify_positive(lambda x: x, [(huge, 10 * huge)]).cells[0].box
    assert box[0].lo == sys.float_info.max and box[0].hi == math.inf
    box = certify_positive(lambda x: -x, [(-10 * huge, -huge)]).cells[0].box
    assert box[0].lo == -math.inf and box[0].hi == -sys.float_info.max


@settings(max_examples=300, deadline=None, derandomize=True)
@given(numerator=st.integers(-(10**400), 10**400), denominator=st.integers(1, 10**400))
def test_rational_rounding_brackets_the_rational_by_adjacent_floats(numerator: int, denominator: int) -> None:
    from numerics.certificates import _rational_above, _rational_below

    x = fmpq(numerator, denominator)
    below, above = _rational_below(x), _rational_above(x)
    exact = Fraction(numerator, denominator)
    for value in (below, above):
        assert math.isfinite(value) or abs(exact) > sys.float_info.max
    if math.isfinite(below) and math.isfinite(above):
        assert Fraction(below) <= exact <= Fraction(above)
        assert below == above if Fraction(below) == exact else math.nextafter(below, math.inf) == above
