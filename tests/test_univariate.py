"""Certified signs of f(ε) on (0, a]: exact identities, Sturm counts, and Taylor-at-0 plus interval bisection."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as Q
from sympy import sqrt

from numerics.univariate import certified_sign

eps = sympy.Symbol("eps", positive=True)


@pytest.mark.parametrize("expr, upper, sign, method", [
    (4 * eps - Q(17, 4) * eps**2, Q(1, 4), 1, "sturm"),  # ‖θ‖² − ‖θ'‖² of Theorem 3.2's curve
    (eps - Q(1, 3), Q(1, 4), -1, "sturm"),
    (eps**3 - eps**4, Q(1, 2), 1, "sturm"),  # vanishes to third order at 0
    ((1 - eps) + eps - 1, Q(1, 2), 0, "identity"),
    (sqrt(eps) ** 2 - eps, Q(1, 2), 0, "identity"),
    (-sqrt(2 * eps), Q(1, 4), -1, "taylor+bisection"),  # √2·u in u = √ε: irrational, so no Sturm
    (-sqrt(eps) / 3, Q(1, 4), -1, "sturm"),  # rational in u = √ε
    (-4 * sqrt(eps) + (1 - eps) / sqrt(2), Q(1, 100), 1, "taylor+bisection"),  # irrational coefficients
    (sqrt(1 + eps) - 1 - eps / 2, 1, -1, "taylor+bisection"),  # leading term −ε²/8
    (3 * sympy.root(2, 3) - 3 * (((1 + eps) / 2) ** Q(2, 3) + ((1 - eps) / 2) ** Q(2, 3)), Q(1, 2), 1,
     "taylor+bisection"),  # Jensen gap of Theorem 5.1, order ε²
    (sqrt(2) - 1, Q(1, 2), 1, "constant"),
])
def test_signs_on_half_open_intervals(expr, upper, sign, method):
    result = certified_sign(expr, eps, upper)
    assert (result.sign, result.method) == (sign, method), result.description


def test_sign_change_is_not_certified_and_located():
    """−4√ε + (1 − ε)/√2 vanishes at ε = 17 − 12√2 ≈ 0.0294: no constant sign on (0, 1/2]."""
    result = certified_sign(-4 * sqrt(eps) + (1 - eps) / sqrt(2), eps, Q(1, 2))
    assert result.sign is None and result.method == ""
    assert result.counterexample is not None and 17 - 12 * 2**0.5 < result.counterexample <= 0.5
    assert certified_sign(eps - Q(1, 3), eps, Q(1, 2)).sign is None


def test_taylor_step_reports_its_window():
    result = certified_sign(sqrt(1 + eps) - 1 - eps / 2, eps, 1)
    assert "(proved for −f)" in result.description and "leading term (1/8)·ε^2" in result.description
    assert "δ ≈ 0.5" in result.description


def test_non_smooth_at_zero_is_undecided_not_wrong():
    """√(ε + ε²) > 0, but it is not smooth in ε or in any ε^(1/N) seen by the substitution: undecided."""
    result = certified_sign(sqrt(eps + eps**2), eps, Q(1, 2))
    assert result.sign is None and "not smooth" in result.description


def test_argument_checks():
    with pytest.raises(ValueError, match="positive rational"):
        certified_sign(eps, eps, sqrt(2))
    with pytest.raises(ValueError, match="other than"):
        certified_sign(eps + sympy.Symbol("t"), eps, 1)


@settings(derandomize=True, max_examples=25, deadline=None)
@given(coefficients=st.lists(st.integers(1, 9), min_size=1, max_size=4), order=st.integers(0, 3),
       negate=st.booleans(), root=st.booleans())
def test_polynomials_with_one_signed_coefficients(coefficients, order, negate, root):
    """±ε^k·(c0 + c1 ε + …) with c_i > 0 has the sign ± on (0, 1], also in √ε."""
    variable = sqrt(eps) if root else eps
    expr = variable**order * sum(c * variable**i for i, c in enumerate(coefficients))
    result = certified_sign(-expr if negate else expr, eps, 1)
    assert result.sign == (-1 if negate else 1), result.description
