"""Rate fits and monotonicity against exact power laws."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from numerics.trends import fit_affine, fit_rate, is_monotone, log_spaced, product_to_constant, residual_bounded


@given(exponent=st.floats(-3, 3), scale=st.floats(0.01, 100))
def test_exact_power_law_is_recovered(exponent, scale):
    x = log_spaced(1e1, 1e8, 12)
    fit = fit_rate(x, scale * x ** exponent)
    assert fit.exponent == pytest.approx(exponent, abs=1e-9)
    assert fit.scale == pytest.approx(scale, rel=1e-8)
    # r² of a nearly flat series is rounding over a tiny spread: allow n·(1e-13)² of residual against the spread
    # exponent²·Σ(ln x − mean)² (binding only for |exponent| below about 1e-8; exactly flat: no spread, r² = 1 anyway)
    spread = exponent ** 2 * float(np.sum((np.log(x) - np.log(x).mean()) ** 2))
    rounding = len(x) * 1e-26 / spread if spread > 0 else math.inf
    assert 1.0 - fit.r_squared <= 1e-9 + rounding


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


def test_affine_fit_in_log_t_recovers_slope_and_bounded_residual():
    t = log_spaced(10.0, 1e8, 30)
    fit = fit_affine(t, 2.0 + 3.0 * np.log(t))
    assert abs(fit.slope - 3.0) < 1e-12 and abs(fit.intercept - 2.0) < 1e-10 and fit.max_residual < 1e-10
    wobbly = 2.0 + 3.0 * np.log(t) + np.sin(t) / 2  # y = 3 ln t + O(1): the residual stays in a band of width 1
    assert residual_bounded(t, wobbly, 3.0, 1.0)[0]
    holds, width = residual_bounded(t, wobbly, 2.9, 1.0)  # a wrong slope leaves 0.1·ln t: the band grows
    assert not holds and width > 1.5
    slow = 1.0 + np.log(t) + np.log(np.log(t))  # ln ln t is not O(1): caught on a long enough window
    assert not residual_bounded(t, slow, 1.0, 1.0)[0]
    assert abs(fit_affine(t, np.log(np.log(t)), transform="loglog").slope - 1.0) < 1e-12


def test_product_to_constant_at_the_edge_of_its_tolerance():
    t = log_spaced(10.0, 1e12, 40)
    f, g = 1 / np.log(t), 5 * np.log(t) + 1  # f·g = 5 + 1/ln t → 5
    holds, worst = product_to_constant(f, g, 5.0, 0.01)
    deviation = 1 / (5 * np.log(t[-10]))  # the tail's first point sets the largest deviation
    assert holds and abs(worst - deviation) < 1e-12
    assert not product_to_constant(f, g, 5.0, deviation * 0.99)[0]  # just inside the tolerance: refused
    assert product_to_constant(f, g, 5.0, deviation * 1.01)[0]
    assert not product_to_constant(f, g, 5.2, 0.01)[0]  # a wrong constant
    growing = f * (5 * np.log(t) + np.log(t) ** 0.5)  # f·g ≈ 5 + 1/√ln t: deviation shrinks; a diverging one not
    assert not product_to_constant(np.ones_like(t), 5 + 1e-3 * np.log(t), 5.0, 0.1)[0]
    assert product_to_constant(np.ones_like(t), growing, 5.0, 0.2)[0]
    with pytest.raises(ValueError):
        product_to_constant([1.0], [1.0], 1.0, 0.1)


# -- r_squared and the points fit_rate keeps ------------------------------------------------------------------------
@pytest.mark.parametrize("power", [1.0, 0.25], ids=["spread-above-1", "spread-below-1"])
def test_r_squared_of_an_imperfect_fit_matches_its_closed_form(power):
    """log2 y = power·[0, 2, 1, 3] against log2 x = [0, 1, 2, 3]: slope 0.8·power, intercept 0.3·power (in log2),
    and R² = S_xy² / (S_xx S_yy) = 4² / (5·5) = 0.64 whatever the power (R² does not depend on the scale of log y,
    so a spread of the logs below 1 gives the same R² as one above)."""
    fit = fit_rate([1.0, 2.0, 4.0, 8.0], np.array([1.0, 4.0, 2.0, 8.0]) ** power)
    assert fit.exponent == pytest.approx(0.8 * power, rel=1e-12)
    assert fit.scale == pytest.approx(2.0 ** (0.3 * power), rel=1e-12)
    assert fit.r_squared == pytest.approx(0.64, rel=1e-12) and fit.n_points == 4


def test_r_squared_equals_the_squared_correlation_of_the_logs():
    """For a least-squares line with an intercept, R² = 1 − SS_res/SS_tot is the squared correlation of log x and
    log y: an independent formula for a noisy power law."""
    x = log_spaced(1.0, 1e4, 9)
    y = 2.0 * x**-0.7 * np.exp(0.3 * np.sin(np.arange(9.0)))
    fit = fit_rate(x, y)
    assert fit.r_squared == pytest.approx(np.corrcoef(np.log(x), np.log(y))[0, 1] ** 2, rel=1e-12)
    assert 0.5 < fit.r_squared < 1.0


@pytest.mark.parametrize("value", [1.0, -1.0], ids=["one", "minus-one"])
def test_a_constant_series_is_fitted_exactly(value):
    """Constant |y| (log y has no spread, so SS_tot = 0): exponent 0 and R² = 1 by convention, not 0/0."""
    fit = fit_rate([1.0, 2.0, 4.0, 8.0], [value] * 4)
    assert fit.exponent == 0.0 and fit.scale == 1.0 and fit.r_squared == 1.0


def test_rate_fit_with_exactly_three_points():
    """Three usable points are enough (the documented minimum); two are not (test_too_few_points)."""
    fit = fit_rate([1.0, 2.0, 4.0], [3.0, 1.5, 0.75])
    assert fit.n_points == 3 and fit.exponent == pytest.approx(-1.0, rel=1e-12)
    assert fit.scale == pytest.approx(3.0, rel=1e-12)


def test_rate_fit_keeps_only_finite_positive_points():
    """Each operand of the mask g(x) > 0, |y| > 0, g finite, y finite drops its own point: g < 0 (x = −1), g = 0
    (x = 0), g = inf (x = inf), y = 0, y = inf. The three that remain (x = 1 included: g = 1 is positive) are the
    exact law 3·x^(−1/2), with a negative y taken by its absolute value."""
    x = [-1.0, 0.0, 1.0, math.inf, 4.0, 9.0, 16.0, 25.0]
    y = [3.0, 3.0, -3.0, 3.0, 1.5, 0.0, 0.75, math.inf]
    fit = fit_rate(x, y)
    assert fit.n_points == 3
    assert fit.exponent == pytest.approx(-0.5, rel=1e-12) and fit.scale == pytest.approx(3.0, rel=1e-12)
    assert fit.r_squared == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="three points"):  # without x = 1 only two would be left
        fit_rate(x[:2] + x[3:], y[:2] + y[3:])
