"""Certified signs of a real expression f(ε) of one variable on a half-open interval (0, a].

Statements "for every ε ∈ (0, a]" (a curve of better points tending to a given point, a pre-activation that
keeps its sign along the curve) need the end ε → 0, where f usually tends to 0 and no interval evaluation
can separate it from 0. :func:`certified_sign` decides the sign in three ways, the first that applies:

1. ``identity``: f simplifies to exactly 0 (:func:`numerics.symbolic.is_identically_zero`).
2. ``sturm``: after the substitution ε = u^N that clears the fractional powers ε^{p/N}, f is a rational
   function of u with rational coefficients and a^{1/N} is rational: exact Sturm counting
   (:func:`numerics.symbolic.certify_rational_positive`) on (0, a^{1/N}) plus the exact sign at the end.
3. ``taylor+bisection``: near 0, Taylor's theorem in u with a ball bound on the next derivative. If
   f^{(k)}(0) = 0 for k < m (exactly, as real algebraic numbers), c = f^{(m)}(0)/m! ≠ 0 and
   |f^{(m+1)}| ≤ M on [0, h], then f = u^m (c + r) with |r| ≤ M u/(m+1)!, so f has the sign of c on
   (0, δ] for δ < |c|(m+1)!/M. On [δ^N, a] (in ε) interval bisection (:func:`numerics.certificates.certify_positive`)
   proves the same sign. The derivatives are sympy's; they must be finite balls on [0, h], which also makes
   them continuous there, as Taylor's theorem needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from flint import arb, ctx, fmpq

from numerics import exact as E
from numerics.certificates import certify_positive, interval_function
from numerics.symbolic import certify_rational_positive, is_identically_zero

_MAX_ORDER = 8  # derivatives tried at 0 before giving up on the Taylor step
_SHRINK_STEPS = 12  # times the Taylor window [0, h] is quartered when the derivative bound is infinite


@dataclass(frozen=True)
class SignCertificate:
    """``sign`` ∈ {+1, 0, −1} holds at every point of (0, upper]; None if no constant sign was proved.

    ``counterexample`` is a point of (0, upper] where a sign found elsewhere certainly fails (so the sign is
    not constant there), when one was found.
    """

    sign: int | None
    method: str  # "identity", "constant", "sturm", "taylor+bisection"; "" when not certified
    description: str
    counterexample: Fraction | None = None


def certified_sign(expr: Any, variable: sympy.Symbol, upper: Any) -> SignCertificate:
    """Prove that ``expr`` has one sign (or is identically 0) for every value of ``variable`` in (0, upper]."""
    f = sympy.sympify(expr)
    upper = E.to_exact_number(upper)
    if not (upper.is_Rational and upper > 0):
        raise ValueError(f"the interval end must be a positive rational number, got {upper}")
    if f.free_symbols - {variable}:
        raise ValueError(f"{f} depends on symbols other than {variable}: {f.free_symbols - {variable}}")
    where = f"(0, {upper}]"
    if is_identically_zero(f).proved:
        return SignCertificate(0, "identity", f"identically 0 on {where}")
    if variable not in f.free_symbols:
        return _constant_sign(f, where)
    failures: list[str] = []
    counterexample = None
    for sign in (1, -1):
        certificate = _certify_positive(sign * f, variable, upper)
        if certificate.sign == 1:
            shown = "" if sign > 0 else " (proved for −f)"
            return SignCertificate(sign, certificate.method, f"{'> 0' if sign > 0 else '< 0'} on {where}{shown}: "
                                   f"{certificate.description}")
        failures.append(certificate.description)
        counterexample = counterexample or certificate.counterexample
    return SignCertificate(None, "", f"no constant sign proved on {where} ({'; '.join(failures)})", counterexample)


def _constant_sign(f: sympy.Expr, where: str) -> SignCertificate:
    try:
        sign = E.sign(f)
    except (E.NotAlgebraicError, ArithmeticError, ValueError, TypeError):
        with ctx.workprec(128):
            value = interval_function(f, [])()
        if not value.is_finite() or value.contains(0):
            return SignCertificate(None, "", f"constant {f}: sign undecided")
        sign = 1 if value > 0 else -1
    return SignCertificate(sign, "constant", f"constant {f} {'>' if sign > 0 else ('<' if sign < 0 else '=')} 0 "
                                             f"on {where}")


def _root_denominator(f: sympy.Expr, variable: sympy.Symbol) -> int:
    """N such that every power of the variable in f is an integer multiple of 1/N."""
    denominators = [int(sympy.Rational(p.exp).q) for p in f.atoms(sympy.Pow)
                    if p.base == variable and p.exp.is_Rational]
    return math.lcm(*denominators) if denominators else 1


def _certify_positive(f: sympy.Expr, variable: sympy.Symbol, upper: sympy.Rational) -> SignCertificate:
    """f > 0 on (0, upper]: Sturm when f is rational in u = ε^{1/N}, else Taylor at 0 plus bisection."""
    n = _root_denominator(f, variable)
    u = sympy.Symbol("u", positive=True)  # ε ∈ (0, upper] is positive, whatever the caller's symbol assumes: with
    # that known, sqrt(ε²) is ε and f may be rational in u where it is not in a plain symbol
    g = sympy.expand(f.subs(variable, u**n))
    u_upper = sympy.root(upper, n)
    if u_upper.is_Rational and g.is_rational_function(u):
        try:
            interior = certify_rational_positive(g, u, 0, u_upper)
        except ValueError:  # irrational coefficients
            pass
        else:
            at_end = E.sign(g.subs(u, u_upper)) > 0
            if interior.certified and at_end:
                return SignCertificate(1, "sturm", f"exact Sturm count in u = ε^(1/{n})" if n > 1
                                       else "exact Sturm count")
            return SignCertificate(None, "", f"Sturm: {interior.description}, value at the end "
                                             f"{'> 0' if at_end else '≤ 0'}")
    return _taylor_and_bisection(f, g, variable, u, n, upper)


def _taylor_and_bisection(f: sympy.Expr, g: sympy.Expr, variable: sympy.Symbol, u: sympy.Symbol, n: int,
                          upper: sympy.Rational) -> SignCertificate:
    order, leading = _leading_coefficient(g, u)
    if order is None:
        return SignCertificate(None, "", leading)
    if E.sign(leading) < 0:
        return SignCertificate(None, "", f"< 0 near 0 (leading Taylor coefficient {leading} of order {order})")
    window = min(1.0, float(upper) ** (1 / n) * (1 - 1e-9))  # [0, window] in u lies inside (0, upper] in ε
    near_zero = _taylor_window(g, u, order, leading, Fraction(window))
    if near_zero is None:
        return SignCertificate(None, "", f"no finite bound on the derivative of order {order + 1} near 0")
    start = _float_below(near_zero**n)  # a shorter end point; the Taylor step covers (0, near_zero^n] ⊇ (0, start]
    power = f"u^{order} with u = ε^(1/{n})" if n > 1 else f"ε^{order}"
    taylor = (f"Taylor at 0 with leading term ({leading})·{power} on (0, δ], δ ≈ {float(start):.3g}" if order
              else f"Taylor at 0 with f(0) = {leading} on (0, δ], δ ≈ {float(start):.3g}")
    if start >= upper:
        return SignCertificate(1, "taylor+bisection", taylor)
    try:
        rest = certify_positive(interval_function(f, [variable]), [(start, upper)])
    except ValueError as error:  # an operation without a ball rule
        return SignCertificate(None, "", f"{taylor}; no interval evaluation on [{start}, {upper}]: {error}")
    if not rest.certified:
        witness = Fraction(rest.witness[0]) if rest.witness else None
        return SignCertificate(None, "", f"{taylor}; {rest.description}", witness)
    return SignCertificate(1, "taylor+bisection", f"{taylor}; {rest.description}")


def _float_below(value: sympy.Rational) -> sympy.Rational:
    """The largest float ≤ value, as an exact rational (prints short in descriptions)."""
    approx = float(value)
    if Fraction(approx) > Fraction(int(value.p), int(value.q)):
        approx = math.nextafter(approx, 0.0)
    return sympy.Rational(Fraction(approx).numerator, Fraction(approx).denominator)


def _leading_coefficient(g: sympy.Expr, u: sympy.Symbol) -> tuple[int | None, Any]:
    """(m, g^{(m)}(0)/m!) for the first non-zero derivative at 0, or (None, reason)."""
    derivative = g
    for order in range(_MAX_ORDER + 1):
        value = derivative.subs(u, 0)
        if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or value.is_finite is False:
            return None, f"not smooth at 0 (derivative of order {order} is {value})"
        try:
            nonzero = E.sign(value) != 0
        except (E.NotAlgebraicError, ArithmeticError, ValueError, TypeError):
            return None, f"cannot decide exactly whether {value} is 0"
        if nonzero:
            return order, value / math.factorial(order)
        derivative = sympy.diff(derivative, u)
    return None, f"the first {_MAX_ORDER + 1} derivatives vanish at 0"


def _taylor_window(g: sympy.Expr, u: sympy.Symbol, order: int, leading: Any, width: Fraction
                   ) -> sympy.Rational | None:
    """A rational δ > 0 with g > 0 on (0, δ], from |g^{(order+1)}| ≤ M on [0, width]; None if none is found.

    Balls are symmetric, so M bounds the derivative on [−width, width] ⊇ [0, width] (valid, if wider).
    """
    derivative = interval_function(sympy.diff(g, u, order + 1), [u])
    with ctx.workprec(128):
        c = interval_function(leading, [])().abs_lower()
        h = arb(fmpq(width.numerator, width.denominator))
        for _ in range(_SHRINK_STEPS):
            M = derivative(arb(0).union(h)).abs_upper()
            if M.is_finite():
                radius = h if M == 0 else (c * math.factorial(order + 1) / M).min(h)
                delta = Fraction(float((radius / 2).lower()))  # the factor 1/2 absorbs float rounding
                if delta > 0:
                    return sympy.Rational(delta.numerator, delta.denominator)
            h = h / 4
    return None
