"""numerics.tolerances: the one convention by which claims compare a measured figure with a tolerance, at its edge.

A limit is included (a figure equal to its tolerance passes), the strict forms exclude it, NaN meets no limit on
either side, one ulp past the limit fails, arrays compare elementwise, and exact numbers (fractions, sympy
rationals) compare exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from numerics.tolerances import above, at_least, at_most, below

TOLERANCES = [1e-12, 1e-9, 0.5, 3.0, 0.0, -1e-12]


@pytest.mark.parametrize("limit", TOLERANCES)
def test_the_limit_itself_is_included_and_the_next_float_past_it_is_not(limit: float) -> None:
    assert at_most(limit, limit) is True and at_least(limit, limit) is True
    assert below(limit, limit) is False and above(limit, limit) is False
    up, down = math.nextafter(limit, math.inf), math.nextafter(limit, -math.inf)
    assert at_most(up, limit) is False and at_least(down, limit) is False
    assert at_most(down, limit) is True and at_least(up, limit) is True
    assert below(down, limit) is True and above(up, limit) is True
    assert below(up, limit) is False and above(down, limit) is False


@pytest.mark.parametrize("decide", [at_most, at_least, below, above])
def test_nan_meets_no_limit(decide) -> None:
    assert decide(math.nan, 1.0) is False and decide(1.0, math.nan) is False
    assert decide(np.float64("nan"), 0.0) is False


def test_arrays_compare_elementwise_to_boolean_arrays() -> None:
    values = np.array([0.5, 1.0, 1.5, np.nan])
    for decide, expected in ((at_most, [True, True, False, False]), (at_least, [False, True, True, False]),
                             (below, [True, False, False, False]), (above, [False, False, True, False])):
        result = decide(values, 1.0)
        assert result.dtype == bool and result.tolist() == expected
    assert at_most(np.array([1.0, 2.0]), np.array([1.0, 1.0])).tolist() == [True, False]  # elementwise limits


def test_numpy_scalars_give_python_booleans() -> None:
    assert at_most(np.float64(1e-13), 1e-12) is True and above(np.float32(2.0), 1.0) is True


def test_exact_numbers_compare_exactly() -> None:
    assert at_most(Fraction(1, 3), Fraction(1, 3)) is True and below(Fraction(1, 3), Fraction(1, 3)) is False
    assert at_least(sympy.Rational(1, 10), sympy.Rational(1, 10)) is True
    assert below(Fraction(1, 10), 0.1) is True  # the float 0.1 is 0.1000000000000000055…, just above 1/10


@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_the_four_forms_agree_with_python_on_finite_and_infinite_floats(value: float, limit: float) -> None:
    assert at_most(value, limit) == (value <= limit) and at_least(value, limit) == (value >= limit)
    assert below(value, limit) == (value < limit) and above(value, limit) == (value > limit)
    assert at_most(value, limit) == (not above(value, limit)) and at_least(value, limit) == (not below(value, limit))


def test_relative_scale_is_the_largest_magnitude_but_at_least_one() -> None:
    from numerics.tolerances import relative_scale

    assert relative_scale(0.5) == 1.0 and relative_scale(-0.5) == 1.0 and relative_scale(0.0) == 1.0
    assert relative_scale(1.0) == 1.0 and relative_scale(np.nextafter(1.0, 2.0)) == np.nextafter(1.0, 2.0)
    assert relative_scale(-3.0) == 3.0 and relative_scale(np.array([[0.2, -7.0], [1.0, 2.0]])) == 7.0
    assert relative_scale(np.array([0.25, -0.5])) == 1.0
    assert relative_scale(np.zeros(0)) == 1.0 and relative_scale() == 1.0  # nothing to measure: absolute
    assert relative_scale(np.array([2.0]), -5.0, np.zeros(0)) == 5.0
    assert type(relative_scale(np.float32(4.0))) is float
