"""Rate fits and monotonicity against exact power laws."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numerics.trends import fit_rate, is_monotone, log_spaced


@given(exponent=st.floats(-3, 3), scale=st.floats(0.01, 100))
def test_exact_power_law_is_recovered(exponent, scale):
    x = log_spaced(1e1, 1e8, 12)
    fit = fit_rate(x, scale * x ** exponent)
    assert fit.exponent == pytest.approx(exponent, abs=1e-9)
    assert fit.scale == pytest.approx(scale, rel=1e-8)
    assert fit.r_squared == pytest.approx(1.0, abs=1e-9) or exponent == pytest.approx(0.0, abs=1e-12)


def test_inverse_log_rate():
    t = log_spaced(1e2, 1e12, 20)
    fit = fit_rate(t, 0.7 / np.log(t), transform="log")
    assert fit.exponent == pytest.approx(-1.0, abs=1e-12) and fit.within(-1.1, -0.9)
    assert not fit.within(-0.5, 0.0)


def test_monotonicity_with_tolerance():
    assert is_monotone([3.0, 2.0, 2.0, 1.0])
    assert not is_monotone([3.0, 2.0, 2.1, 1.0])
    assert is_monotone([3.0, 2.0, 2.1, 1.0], atol=0.2)
    assert is_monotone([1.0, 2.0, 5.0], direction="increasing")


def test_too_few_points():
    with pytest.raises(ValueError, match="three points"):
        fit_rate([1.0, 2.0], [1.0, 0.5])
