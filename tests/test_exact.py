"""Exact conversion of mpmath numbers: the value, sign included, is kept bit for bit."""

from __future__ import annotations

import mpmath
import pytest
import sympy

from numerics import exact as E


@pytest.mark.parametrize("text", ["-0.5", "0.75", "-0.17772364632190029588455880365551", "0", "-3e-40"])
def test_mpf_converts_to_its_exact_binary_value(text: str) -> None:
    with mpmath.workdps(40):
        value = mpmath.mpf(text)
        exact = E.to_exact_number(value)
        assert exact.is_Rational and mpmath.mpf(exact.p) / exact.q == value
        assert E.sign(value) == (value > 0) - (value < 0)


def test_mpf_infinity_is_rejected() -> None:
    with pytest.raises(ValueError):
        E.to_exact_number(mpmath.mpf("-inf"))


def test_mpf_array_signs() -> None:
    values = [mpmath.mpf(-2), mpmath.mpf(0), mpmath.mpf("1e-30")]
    assert list(E.signs(values)) == [-1, 0, 1]
    assert E.to_exact_number(mpmath.mpf(-2)) == sympy.Integer(-2)


def test_remembered_signs_of_algebraic_numbers_are_the_uncached_ones() -> None:
    """signs() remembers the 30-digit fast path per number: the same signs as sympy's own comparison, for clear
    values, for repeats, and for hidden zeros (left to the exact canonical form, never remembered as ±1)."""
    r2, r3 = sympy.sqrt(2), sympy.sqrt(3)
    values = [r2 / 2, -r2 / 2, r2 - r3, r3 - r2, r2 * r3 - sympy.sqrt(6), (r2 + 1) ** 2 - 2 * r2 - 3,
              sympy.Rational(-3, 7), sympy.S.Zero, r2 / 2, sympy.Rational(10) ** -40 + r2 - r2]
    expected = [1, -1, -1, 1, 0, 0, -1, 0, 1, 1]
    for _ in range(2):  # the second pass is served from the cache
        assert list(E.signs(values)) == expected
    assert [int(bool(v > 0)) - int(bool(v < 0)) for v in values[:4]] == expected[:4]
