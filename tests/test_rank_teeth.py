"""Paper 000: the thresholds and instances of the two-point helpers, pinned at their edges (what no claim's report
shows otherwise): the closed-form oracle's regime in every number system, and Lemma 3's determinant test."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy

from theorems.rank_minimization.two_point_common import (
    EXACT_ZERO_TOLERANCE,
    TwoPoints,
    from_neurons,
    negligible,
    neurons,
    oracle,
    pythagorean_data,
    serving_neurons,
    zero_tolerance,
)
from theorems.rank_minimization.two_point_lemmas import parallel_rows_singular


def test_float_residuals_count_as_zero_up_to_the_tolerance_times_the_scale() -> None:
    assert zero_tolerance(0.0) == EXACT_ZERO_TOLERANCE
    assert negligible(np.array([1e-12])) and not negligible(np.array([1.001e-12]))  # scale 1 by default
    assert negligible(np.array([0.0, -2.5e-12]), 2.5) and not negligible(np.array([0.0, -2.51e-12]), 2.5)


@pytest.mark.parametrize("dps", [30, 45])
def test_mpmath_residuals_count_as_zero_a_few_digits_below_the_working_precision(dps: int) -> None:
    with mpmath.workdps(dps):
        edge = mpmath.mpf(10) ** (5 - dps)  # five digits of slack below the working precision
        assert zero_tolerance(mpmath.mpf(0)) == edge
        assert negligible(np.array([edge], dtype=object))
        assert not negligible(np.array([edge * mpmath.mpf("1.001")], dtype=object))
        assert negligible(np.array([mpmath.mpf(0), -3 * edge], dtype=object), 3)
        assert not negligible(np.array([mpmath.mpf(0), -3.01 * edge], dtype=object), 3)


def test_exact_residuals_count_as_zero_only_when_zero() -> None:
    assert zero_tolerance(sympy.Integer(0)) == 0
    assert negligible(np.array([sympy.sqrt(2) ** 2 - 2], dtype=object))
    assert not negligible(np.array([sympy.Rational(1, 10**40)], dtype=object), 10**50)


def as_mpmath(values: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda v: mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q, otypes=[object])(values)


def test_mpmath_oracle_matches_the_exact_one_and_its_regime_has_the_working_precisions_edge() -> None:
    """v_1(0) = y_1/5 + δ·n (n ⊥ y_1): the closed form holds for δ = 0 only; in mpmath at 30 digits an off-span
    part up to 10^(5 − 30)(1 + b) is rounding, a larger one is outside the regime (oracle raises)."""
    data = pythagorean_data(sympy.Rational(4, 5), sympy.Rational(3, 5))
    w = np.array([data.X[0] / 4, data.X[1] / 3])
    v = np.array([data.Y[0] / 5, data.Y[1] * 0])
    exact = oracle(from_neurons(w, v), data)
    normal = np.array([-data.Y[0][1], data.Y[0][0]])  # unit, ⊥ y_1
    with mpmath.workdps(30):
        floats = TwoPoints(as_mpmath(data.X), as_mpmath(data.Y))
        theta = as_mpmath(from_neurons(w, v))
        limit = oracle(theta, floats)
        assert max(abs(mpmath.mpf(str(sympy.N(e, 40))) - m) for e, m in zip(exact, limit)) < mpmath.mpf(10) ** -27
        edge = mpmath.mpf(10) ** -25 * (1 + mpmath.mpf(1) / 5)
        w_mp, v_mp = neurons(theta)
        for delta, inside in ((edge * mpmath.mpf("0.99"), True), (edge * mpmath.mpf("1.01"), False)):
            shifted = from_neurons(w_mp, v_mp + np.array([delta * as_mpmath(normal), [0, 0]], dtype=object))
            assert (serving_neurons(shifted, floats) is not None) is inside
            if not inside:
                with pytest.raises(ValueError):
                    oracle(shifted, floats)


def test_lemma3_determinant_test_names_its_ratio_and_refuses_a_negative_one() -> None:
    alpha = sympy.Symbol("alpha", positive=True)
    proof, control = parallel_rows_singular(alpha), parallel_rows_singular(-alpha)
    assert proof.holds is True and proof.arguments == {"ratio": "alpha"}
    assert control.holds is False and control.arguments == {"ratio": "-alpha"}
    assert parallel_rows_singular(2 * alpha).arguments == {"ratio": "2*alpha"}  # another instance reads differently
