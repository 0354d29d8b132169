"""Edges of numerics.univariate.certified_sign that the closed-form tests leave open.

Pinned here, each by what it causes rather than by reading the source: the argument check (an interval end of 0
or below is refused), the signs and wording of the result for f and for −f, the constant path (π − p/2¹¹⁰ signed
by a 128-bit ball where the exact sign gives up, and a constant within 2⁻²⁰⁰ of 0 that stays undecided), which
powers the substitution ε = u^N clears (irrational exponents are left alone, a^{1/N} must be rational for Sturm,
the substitute u is positive whatever the caller's symbol assumes), the refusal of a negative leading Taylor
coefficient and the counterexample it leaves to −f, the Taylor window in closed form (δ for linear and quadratic
f, the 10⁻⁹ margin inside the interval, the cap at u = 1, the power N back to ε), the window quartered at most
12 times (found at W/4¹¹, refused at W/4¹²), the first 9 derivatives tried at 0 (order 8 certified, order 9
refused), a window whose float underflows to 0 shrunk instead of used, and `_float_below` as "the largest float
≤ value".
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
import sympy
from sympy import Rational as Q
from sympy import sqrt

from numerics.univariate import _float_below, certified_sign

eps = sympy.Symbol("eps", positive=True)


def taylor_start(description: str) -> Fraction:
    """The left end of the bisection interval, printed as 'certified on [start, upper]' after the Taylor step."""
    match = re.search(r"certified on \[([^,\]]+), ", description)
    assert match, description
    return Fraction(match.group(1))


# -- the interval end ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [0, Q(-1, 2), -1, -2])
def test_an_end_at_or_below_zero_is_refused(upper):
    with pytest.raises(ValueError, match="positive rational"):
        certified_sign(eps, eps, upper)


# -- the sign found and how it is described ---------------------------------------------------------------------

def test_positive_and_negative_results_are_described_with_their_own_sign():
    positive = certified_sign(eps + 1, eps, Q(1, 2))
    assert positive.sign == 1
    assert positive.description == "> 0 on (0, 1/2]: exact Sturm count"
    negative = certified_sign(-eps - 1, eps, Q(1, 2))
    assert negative.sign == -1
    assert negative.description == "< 0 on (0, 1/2] (proved for −f): exact Sturm count"


def test_sturm_description_names_the_substitution_only_when_there_is_one():
    rooted = certified_sign(sqrt(eps) + 1, eps, Q(1, 4))
    assert (rooted.sign, rooted.method) == (1, "sturm")
    assert rooted.description.endswith(": exact Sturm count in u = ε^(1/2)")
    cubic = certified_sign(eps ** Q(1, 3) + 1, eps, Q(1, 8))
    assert cubic.description.endswith(": exact Sturm count in u = ε^(1/3)")


# -- constants ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("constant, sign, relation", [
    (sympy.pi - 3, 1, ">"),
    (3 - sympy.pi, -1, "<"),
    (sympy.E - 2, 1, ">"),
    (2 - sympy.E, -1, "<"),
    (sympy.pi - Q(7, 2), -1, "<"),  # about −0.36: below 0 but above −1
    (sympy.pi - Q(3, 2), 1, ">"),  # about 1.64: above 1
])
def test_constants_are_signed_and_described(constant, sign, relation):
    result = certified_sign(constant, eps, 1)
    assert (result.sign, result.method) == (sign, "constant")
    assert result.description == f"constant {constant} {relation} 0 on (0, 1]"


NEARLY_PI = Q(int(sympy.floor(sympy.pi * 2**110)), 2**110)  # π − NEARLY_PI ∈ (0, 2⁻¹¹⁰)


@pytest.mark.parametrize("constant, sign, relation", [
    (sympy.pi - NEARLY_PI, 1, ">"),
    (NEARLY_PI - sympy.pi, -1, "<"),
    (sympy.pi - NEARLY_PI - Q(1, 2**110), -1, "<"),
])
def test_transcendental_constants_too_close_for_the_exact_sign_get_it_from_a_ball(constant, sign, relation):
    """|π − p/2¹¹⁰| < 2⁻¹¹⁰: the exact sign gives up (not algebraic, too close to 0 for its numerics); a 128-bit
    ball still separates it from 0 and gives the sign, +1 or −1 (not any other number), even though |value| < 1."""
    result = certified_sign(constant, eps, 1)
    assert (result.sign, result.method) == (sign, "constant")
    assert result.description == f"constant {constant} {relation} 0 on (0, 1]"


@pytest.mark.parametrize("side", [1, -1])
def test_a_constant_closer_to_zero_than_the_ball_is_undecided(side):
    """π − p/2²⁰⁰ with p = ⌊π·2²⁰⁰⌋ is about 2⁻²⁰⁰ > 0, far below the radius of a 128-bit ball: no sign claimed."""
    nearly_pi = Q(int(sympy.floor(sympy.pi * 2**200)), 2**200)
    result = certified_sign(side * (sympy.pi - nearly_pi), eps, 1)
    assert result.sign is None and result.method == ""
    assert result.description.endswith("sign undecided")


# -- the substitution ε = u^N ---------------------------------------------------------------------------------------

def test_an_irrational_power_is_not_a_root_to_clear():
    """ε^√2 has no rational exponent: N stays 1 and the result is undecided (not smooth at 0), not an error."""
    result = certified_sign(eps ** sqrt(2), eps, Q(1, 2))
    assert result.sign is None and "not smooth at 0" in result.description


def test_sturm_needs_a_rational_end_in_u():
    """−√ε/3 is rational in u = √ε, but (1/2)^(1/2) is not rational: Taylor plus bisection, not Sturm."""
    result = certified_sign(-sqrt(eps) / 3, eps, Q(1, 2))
    assert (result.sign, result.method) == (-1, "taylor+bisection")
    assert "u^1 with u = ε^(1/2)" in result.description
    assert certified_sign(-sqrt(eps) / 3, eps, Q(1, 4)).method == "sturm"  # (1/4)^(1/2) = 1/2


def test_the_substitute_is_positive_whatever_the_symbol_assumes():
    """With a symbol without assumptions, √x = u for the positive u = √x: Sturm applies as for a positive symbol."""
    x = sympy.Symbol("x")
    result = certified_sign(-sqrt(x) / 3, x, Q(1, 4))
    assert (result.sign, result.method) == (-1, "sturm")
    assert result.description.endswith("exact Sturm count in u = ε^(1/2)")


# -- the Taylor step at 0 ---------------------------------------------------------------------------------------------

def test_negative_leading_coefficient_is_refused_and_the_counterexample_contradicts_it():
    """√2(ε − 1/4) < 0 near 0 and > 0 beyond 1/4. For f the leading coefficient −√2/4 is refused outright; the
    counterexample comes from −f, so it is a point where f ≥ 0, contradicting the sign near 0."""
    result = certified_sign(sqrt(2) * (eps - Q(1, 4)), eps, Q(1, 2))
    assert result.sign is None
    assert "< 0 near 0 (leading Taylor coefficient -sqrt(2)/4 of order 0)" in result.description
    assert result.counterexample is not None and Fraction(1, 4) <= result.counterexample <= Fraction(1, 2)


def test_linear_function_window_is_half_the_interval_kept_inside_it():
    """For √2·ε the next derivative is 0, so δ is half the window, the window being the interval shrunk by a
    relative 10⁻⁹ (it must lie inside (0, a]): δ = (1 − 10⁻⁹)/2 on (0, 1], strictly below 1/2."""
    result = certified_sign(sqrt(2) * eps, eps, 1)
    assert (result.sign, result.method) == (1, "taylor+bisection")
    start = taylor_start(result.description)
    assert start < Fraction(1, 2)
    assert start == pytest.approx((1 - 1e-9) / 2, rel=1e-15)


def test_the_window_in_u_is_capped_at_one():
    """On (0, 4] the window in u is [0, 1], not [0, 4(1 − 10⁻⁹)]: δ = 1/2."""
    result = certified_sign(sqrt(2) * eps, eps, 4)
    assert taylor_start(result.description) == Fraction(1, 2)


def test_rooted_window_is_taken_in_u_and_mapped_back_to_eps():
    """√2·√ε on (0, 1/4]: in u = √ε the window is [0, (1/4)^(1/2)(1 − 10⁻⁹)], δ_u is half of it, and the Taylor
    step covers (0, δ_u²] in ε: about 1/16."""
    result = certified_sign(sqrt(2) * sqrt(eps), eps, Q(1, 4))
    assert (result.sign, result.method) == (1, "taylor+bisection")
    assert "leading term (sqrt(2))·u^1 with u = ε^(1/2)" in result.description
    assert taylor_start(result.description) == pytest.approx(((1 - 1e-9) / 4) ** 2, rel=1e-14)


def test_quadratic_window_uses_the_next_derivative_and_its_factorial():
    """√2(1 + 8ε²) on (0, 1/2]: c = √2, |f'| ≤ 16√2·h = 8√2 on [0, 1/2], so δ < c·1!/M = 1/8, halved: 1/16."""
    result = certified_sign(sqrt(2) * (1 + 8 * eps**2), eps, Q(1, 2))
    assert result.sign == 1 and "f(0) = sqrt(2)" in result.description
    assert taylor_start(result.description) == pytest.approx(1 / 16, rel=1e-8)
    assert taylor_start(result.description) <= Fraction(1, 16)


def test_a_window_that_underflows_is_shrunk_not_used():
    """√2 + exp(1000ε): on the first window |f'| ≤ 1000e¹⁰⁰⁰ and c/M underflows to 0.0; δ = 0 would be no
    Taylor step at all. The window is quartered until δ > 0."""
    result = certified_sign(sqrt(2) + sympy.exp(1000 * eps), eps, 1)
    assert result.sign == 1
    start = taylor_start(result.description)
    assert 0 < start < 1e-100


def shifted_pole(k: int) -> sympy.Expr:
    """√2 + 1/((ε − a)² + a²), a = 2⁻ᵏ: smooth and positive, but sympy.expand writes the denominator as
    ε² − 2aε + 2a², whose ball on [0, h] contains 0 once h ≳ a, so the bound on f' is finite only for h below a."""
    a = Q(1, 2**k)
    return sqrt(2) + 1 / ((eps - a) ** 2 + a**2)


def test_the_window_is_quartered_at_most_twelve_times():
    """The window W = 1 − 10⁻⁹ is tried at W, W/4, …, W/4¹¹. a = 2⁻²¹ lies between W/4¹¹ and W/4¹⁰: found on the
    last try (δ ≤ h/2 with h = W/4¹¹, and above the half of a further quarter); a = 2⁻²³ would need W/4¹²:
    refused with the reason."""
    window = 1 - 1e-9
    found = certified_sign(shifted_pole(21), eps, 1)
    assert (found.sign, found.method) == (1, "taylor+bisection")
    assert window / 4**12 / 2 < taylor_start(found.description) <= window / 4**11 / 2
    refused = certified_sign(shifted_pole(23), eps, 1)
    assert refused.sign is None
    assert "no finite bound on the derivative of order 1 near 0" in refused.description


def test_derivatives_up_to_order_eight_are_tried_at_zero():
    """√2·ε⁸ (irrational, so no Sturm) is certified from its 8th derivative; √2·ε⁹ would need the 10th try."""
    eighth = certified_sign(sqrt(2) * eps**8, eps, 1)
    assert (eighth.sign, eighth.method) == (1, "taylor+bisection")
    assert "leading term (sqrt(2))·ε^8" in eighth.description
    negative = certified_sign(-sqrt(2) * eps**8, eps, 1)
    assert negative.sign == -1
    ninth = certified_sign(sqrt(2) * eps**9, eps, 1)
    assert ninth.sign is None
    assert "the first 9 derivatives vanish at 0" in ninth.description


# -- the largest float below a rational --------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [Q(1, 2), Q(3, 4), Q(1, 3), Q(2, 3), Q(1, 10), Q(7, 5), Q(10**20 + 1, 3),
                                   Q(1, 2**1074), Q(1, 3 * 2**1000)])
def test_float_below_is_the_largest_float_at_or_below(value):
    below = Fraction(_float_below(value).p, _float_below(value).q)
    exact = Fraction(int(value.p), int(value.q))
    assert below <= exact < Fraction(math.nextafter(float(below), math.inf))
    if Fraction(float(exact)) == exact:  # a float already: itself
        assert below == exact


def test_a_plain_symbol_is_known_positive_on_the_interval() -> None:
    """ε ∈ (0, upper] is positive whatever the caller's symbol assumes: √(ε²) is ε, so Sturm decides (with a plain
    symbol √(x²) was not rational in x, and the sign was left undecided as 'not smooth at 0')."""
    x = sympy.Symbol("x")
    assert certified_sign(sympy.sqrt(x**2), x, sympy.Rational(1, 2)).sign == 1
    negative = certified_sign(sympy.sqrt(x**2) - 2 * x, x, sympy.Rational(1, 2))
    assert negative.sign == -1 and negative.method == "sturm"
