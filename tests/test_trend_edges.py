"""Trend and monotonicity decisions at the edge of their tolerances: a control just inside (0.9×) passes and one
just outside (1.1×) fails, so loosening or tightening any tolerance by a factor is caught. Also the other
tolerance decisions of numerics/ (float KKT stationarity lives in test_certificate_conditions.py): numerical rank
and Newton's stopping rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.metrics import numerical_rank
from numerics.newton import damped_newton
from numerics.trends import (
    AffineFit,
    RateFit,
    fit_affine,
    fit_rate,
    is_monotone,
    log_spaced,
    product_to_constant,
    residual_bounded,
)

INSIDE, OUTSIDE = 0.9, 1.1
EDGES = pytest.mark.parametrize("factor, holds", [(INSIDE, True), (OUTSIDE, False)], ids=["0.9x-tol", "1.1x-tol"])


# -- is_monotone: a move against the direction of at most atol + rtol·|later value| -------------------------------
def against(start: float, factor: float, rtol: float, atol: float, direction: str) -> list[float]:
    """[start, start ± move] with the move against ``direction`` equal to factor × its allowance atol + rtol·|later|
    (solved for the later value; start > 0)."""
    if direction == "decreasing":  # rise: move = factor (atol + rtol (start + move))
        move = factor * (atol + rtol * start) / (1 - factor * rtol)
        return [start, start + move]
    move = factor * (atol + rtol * start) / (1 + factor * rtol)  # fall: move = factor (atol + rtol (start − move))
    return [start, start - move]


@EDGES
@pytest.mark.parametrize("rtol, atol", [(0.0, 1e-3), (1e-3, 0.0), (1e-3, 1e-3)], ids=["atol", "rtol", "both"])
@pytest.mark.parametrize("direction", ["decreasing", "increasing"])
def test_monotone_tolerance_edges(factor, holds, rtol, atol, direction):
    series = [5.0, 4.0, 3.0] if direction == "decreasing" else [1.0, 2.0, 3.0]
    series += against(3.0, factor, rtol, atol, direction)[1:]
    assert is_monotone(series, direction, rtol=rtol, atol=atol) == holds
    assert not is_monotone(series, direction)  # without a tolerance any move against the direction is refused


@settings(derandomize=True, max_examples=200, deadline=None)
@given(start=st.floats(1e-6, 1e6), rtol=st.sampled_from([0.0, 1e-9, 1e-6, 1e-3, 1e-1]),
       atol_relative=st.sampled_from([0.0, 1e-9, 1e-6, 1e-2]), direction=st.sampled_from(["decreasing", "increasing"]))
def test_monotone_tolerance_edges_at_every_scale(start, rtol, atol_relative, direction):
    atol = atol_relative * start
    if rtol == 0 and atol == 0:
        atol = 1e-6 * start
    assert is_monotone(against(start, INSIDE, rtol, atol, direction), direction, rtol=rtol, atol=atol)
    assert not is_monotone(against(start, OUTSIDE, rtol, atol, direction), direction, rtol=rtol, atol=atol)


def test_monotone_allowance_is_closed():
    """A plateau is monotone without tolerance, and a move of exactly the allowance (binary-exact here) passes."""
    assert is_monotone([3.0, 2.0, 2.0, 1.0]) and is_monotone([1.0, 2.0, 2.0], "increasing")
    assert is_monotone([2.0, 2.5], atol=0.5) and not is_monotone([2.0, 2.5 + 2.0**-51], atol=0.5)
    assert is_monotone([3.0, 2.0], "increasing", atol=0.5, rtol=0.25)  # move 1 = 0.5 + 0.25·2
    assert not is_monotone([3.0, 2.0 - 2.0**-51], "increasing", atol=0.5, rtol=0.25)


@pytest.mark.parametrize("series", [[3.0, 2.0, math.inf], [3.0, 2.0, math.nan], [3.0, math.inf, 2.0]],
                         ids=["jump-to-inf", "nan", "inf-inside"])
def test_non_finite_series_are_not_monotone_whatever_the_tolerance(series):
    assert not is_monotone(series, "decreasing", rtol=1e-6)
    assert not is_monotone(series, "decreasing")


# -- residual_bounded: y − slope·g(x) within a band of width ``bound`` ----------------------------------------------
@EDGES
def test_residual_band_edge(factor, holds):
    t = log_spaced(10.0, 1e8, 25)
    bound = 0.5
    wobble = np.where(np.arange(len(t)) % 2 == 0, 0.0, factor * bound)  # width factor × bound exactly
    ok, width = residual_bounded(t, 2.0 + 3.0 * np.log(t) + wobble, 3.0, bound)
    assert ok == holds and width == pytest.approx(factor * bound, rel=1e-12)


@EDGES
def test_residual_band_catches_a_slope_off_by_a_fraction_of_the_band(factor, holds):
    """A slope wrong by s leaves s·ln t, whose range over the window is s·(ln t_max − ln t_min)."""
    t = log_spaced(10.0, 1e8, 25)
    span = math.log(1e8) - math.log(10.0)
    bound = 1.0
    assert residual_bounded(t, 3.0 * np.log(t), 3.0 + factor * bound / span, bound)[0] == holds


def test_residual_band_skips_undefined_transforms_but_not_non_finite_values():
    t = np.concatenate([[0.0], log_spaced(10.0, 1e8, 10)])  # ln 0 is undefined: that point is skipped
    assert residual_bounded(t, 3.0 * np.log(np.maximum(t, 1e-300)), 3.0, 1e-9)[0]
    y = 3.0 * np.log(t[1:])
    y[-1] = math.inf  # a value that overflowed is not bounded
    assert residual_bounded(t[1:], y, 3.0, 1.0) == (False, math.inf)
    y[-1] = math.nan
    assert residual_bounded(t[1:], y, 3.0, 1.0) == (False, math.inf)


# -- product_to_constant: relative deviation ≤ rtol over the tail, not growing -------------------------------------
@EDGES
def test_product_tolerance_edge(factor, holds):
    deviation = 0.01  # the tail's largest deviation, at its first point; it shrinks after
    product = [9.0, 9.0, 1 + 2 * deviation, 1 + deviation, 1 + deviation / 2, 1 + deviation / 4]
    ok, worst = product_to_constant(product, np.ones(6), 1.0, deviation / factor, tail=0.5)
    assert worst == pytest.approx(deviation, rel=1e-12) and ok == holds  # deviation = factor × rtol
    # and the converse parametrization: deviation = factor × rtol
    rtol = 0.02
    product = [9.0, 9.0, 9.0, 1 + factor * rtol, 1 + factor * rtol / 2, 1 + factor * rtol / 4]
    assert product_to_constant(product, np.ones(6), 1.0, rtol, tail=0.5)[0] == holds


@pytest.mark.parametrize("growth, holds", [(0.9e-12, True), (1.1e-12, False), (1e-11, False), (-1e-3, True)],
                         ids=["0.9x-relative-slack", "1.1x-relative-slack", "10x-relative-slack", "shrinking"])
def test_product_must_not_drift_away_relative_edge(growth, holds):
    """Deviation at the tail's end = its start × (1 + growth): the allowed growth is 1e-12 relative."""
    first = 0.5
    product = [9.0, 1 + first, 1 + first / 2, 1 + first * (1 + growth)]
    assert product_to_constant(product, np.ones(4), 1.0, 1.0, tail=0.75)[0] == holds


@pytest.mark.parametrize("ulps, holds", [(4, True), (5, False)], ids=["0.89x-absolute-slack", "1.11x-absolute-slack"])
def test_product_must_not_drift_away_absolute_edge(ulps, holds):
    """From an exact start the deviation may grow to 1e-15: 4 ulps of 1 (8.9e-16) pass, 5 ulps (1.1e-15) do not."""
    product = [9.0, 1.0, 1.0, 1.0 + ulps * 2.0**-52]
    assert product_to_constant(product, np.ones(4), 1.0, 1.0, tail=0.75)[0] == holds


@pytest.mark.parametrize("where, holds", [(-3, True), (-2, False)], ids=["before-the-tail", "in-the-tail"])
def test_product_tail_window_edge(where, holds):
    """8 points, tail 1/4: the last 2 are judged; a bad point just before them is not, one inside them is."""
    product = np.full(8, 1.0)
    product[where] = 2.0
    assert product_to_constant(product, np.ones(8), 1.0, 0.1, tail=0.25)[0] == holds


# -- fitted exponents and slopes: closed ranges, exact at their ends -----------------------------------------------
@pytest.mark.parametrize("fit", [RateFit(-1.0, 1.0, 1.0, 3), AffineFit(-1.0, 0.0, (), 3)], ids=["rate", "affine"])
def test_fit_ranges_are_closed_and_tight(fit):
    assert fit.within(-1.0, -0.5) and fit.within(-2.0, -1.0) and fit.within(-1.0, -1.0)
    just_above, just_below = math.nextafter(-1.0, 0.0), math.nextafter(-1.0, -2.0)
    assert not fit.within(just_above, 0.0) and not fit.within(-2.0, just_below)


@EDGES
def test_fitted_rate_against_a_range_at_its_edge(factor, holds):
    """x^(−1 + s) against the range [−1 − tol, −1 + tol]: s = factor × tol."""
    x = log_spaced(1e1, 1e8, 12)
    tol = 0.05
    fit = fit_rate(x, 3.0 * x ** (-1 + factor * tol))
    assert fit.within(-1 - tol, -1 + tol) == holds
    affine = fit_affine(x, 2.0 + (-1 + factor * tol) * np.log(x))
    assert affine.within(-1 - tol, -1 + tol) == holds


# -- other tolerance decisions: numerical rank and Newton's stopping rule ------------------------------------------
@EDGES
def test_numerical_rank_edge(factor, holds):
    rtol = 1e-10
    assert numerical_rank(np.diag([1.0, 0.5, factor * rtol]), rtol=rtol) == (3 if factor > 1 else 2)
    assert numerical_rank(np.diag([2.0, 0.5, 2 * factor * rtol]), rtol=rtol) == (3 if factor > 1 else 2)


@EDGES
def test_newton_decrement_stopping_edge(factor, holds):
    """½x² from x0 = 1: λ²/2 = 1/2. With tol = factor⁻¹/2 the method stops at once (one final step) when λ²/2 ≤
    tol, else it takes a damped step first (two steps)."""
    result = damped_newton(lambda x: 0.5 * float(x @ x), lambda x: x, lambda x: np.eye(1), np.array([1.0]),
                           tol=0.5 / factor)
    assert result.converged and result.x[0] == 0.0
    assert result.iterations == (1 if factor < 1 else 2)
    assert holds == (result.iterations == 1)


# -- minimum sizes, closed bounds and the tail window's edges ------------------------------------------------------
def test_affine_fit_and_residual_band_need_exactly_three_points():
    """Three finite points are the documented minimum of an affine fit and of a residual band: accepted at three,
    refused at two."""
    fit = fit_affine([1.0, 2.0, 3.0], [1.0, 3.0, 5.0], transform="identity")
    assert fit.n_points == 3 and fit.slope == pytest.approx(2.0) and fit.intercept == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="three finite points"):
        fit_affine([1.0, 2.0], [1.0, 3.0], transform="identity")
    assert residual_bounded([1.0, 2.0, 3.0], [0.0, 0.5, 0.25], 0.0, 1.0, transform="identity") == (True, 0.5)
    with pytest.raises(ValueError, match="three finite points"):
        residual_bounded([1.0, 2.0], [0.0, 0.5], 0.0, 1.0, transform="identity")


def test_residual_band_is_closed():
    """A band exactly as wide as ``bound`` (binary-exact: 0.5) holds; one an ulp wider does not."""
    assert residual_bounded([1.0, 2.0, 3.0], [0.0, 0.5, 0.25], 0.0, 0.5, transform="identity") == (True, 0.5)
    assert not residual_bounded([1.0, 2.0, 3.0], [0.0, 0.5, 0.25], 0.0, math.nextafter(0.5, 0.0),
                                transform="identity")[0]


def test_max_residual_of_no_residuals_is_zero():
    """An affine fit with no residuals recorded deviates nowhere: its largest residual is 0."""
    assert AffineFit(1.0, 0.0, (), 0).max_residual == 0.0
    assert AffineFit(1.0, 0.0, (0.5, -2.0), 2).max_residual == 2.0


def test_product_trend_needs_four_points_and_a_tail_in_0_1():
    """At least four points, and 0 < tail ≤ 1: tail = 1 judges every point, tail = 0, < 0 or > 1 is refused."""
    with pytest.raises(ValueError, match="four points"):
        product_to_constant([1.0, 1.0, 1.0], np.ones(3), 1.0, 0.1)
    for tail in (0.0, -0.25, 1.5):
        with pytest.raises(ValueError, match="tail"):
            product_to_constant(np.ones(4), np.ones(4), 1.0, 0.1, tail=tail)
    assert product_to_constant(np.ones(4), np.ones(4), 1.0, 0.1, tail=1.0) == (True, 0.0)
    assert product_to_constant([2.0, 1.0, 1.0, 1.0], np.ones(4), 1.0, 0.1, tail=1.0) == (False, 1.0)


def test_product_tail_window_has_at_least_two_points():
    """8 points, tail 0.1: ⌈0.8⌉ = 1 point, widened to the minimum of 2, so the last-but-one is judged too."""
    product = np.full(8, 1.0)
    product[-2] = 2.0
    assert product_to_constant(product, np.ones(8), 1.0, 0.1, tail=0.1) == (False, 1.0)
    assert product_to_constant(np.ones(8), np.ones(8), 1.0, 0.1, tail=0.1) == (True, 0.0)


def test_product_tolerance_and_drift_slack_are_closed():
    """Both decisions are ≤: a tail whose last deviation is exactly its first × (1 + 1e-12) + 1e-15 (the slack of
    "does not grow", computed in floats; here binary-exact in the product) and whose worst deviation is exactly rtol
    is accepted; one ulp more of either is refused."""
    first = 2.0  # the tail's first deviation from the constant 1: product 3
    edge = first * (1 + 1e-12) + 1e-15
    assert (1.0 + edge) - 1.0 == edge  # the product 1 + edge carries the deviation exactly
    product = [9.0, 1.0 + first, 1.0, 1.0 + edge]
    assert product_to_constant(product, np.ones(4), 1.0, edge, tail=0.75) == (True, edge)
    assert not product_to_constant(product, np.ones(4), 1.0, math.nextafter(edge, 0.0), tail=0.75)[0]
    beyond = math.nextafter(1.0 + edge, math.inf)
    assert not product_to_constant(product[:3] + [beyond], np.ones(4), 1.0, 10.0, tail=0.75)[0]


def test_log_spaced_checkpoints_are_exact_decades_and_refuse_times_without_a_logarithm() -> None:
    assert log_spaced(1e-2, 1e8, 11).tolist() == pytest.approx([10.0**k for k in range(-2, 9)], rel=1e-13)
    assert log_spaced(3.0, 3.0, 1).tolist() == [3.0]
    for start, stop, count in ((0.0, 1e8, 5), (-0.99, 1e8, 21), (1e8, 1e-2, 5), (float("nan"), 1.0, 3), (1.0, 10.0, 0)):
        with pytest.raises(ValueError, match="log_spaced needs 0 < start ≤ stop"):
            log_spaced(start, stop, count)
