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
