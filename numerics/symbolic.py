"""Exact symbolic helpers (sympy): identity testing, Lie derivatives along gradient flows, signs of rational
functions on intervals, and the realizable activation patterns of a ReLU neuron on a data set.

Proof versus evidence. :func:`is_identically_zero` proves an identity only by simplifying it to exactly 0.
Its random-rational spot check is reported separately: a value proved nonzero refutes the identity, and
zeros at random points are evidence, never a proof.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy
from flint import ctx, fmpq, fmpz_mpoly, fmpz_mpoly_ctx
from sympy.core.function import AppliedUndef
from sympy.matrices.expressions.matexpr import MatrixElement
from sympy.polys.polyerrors import PolynomialError

from numerics.certificates import interval_function, to_fmpq

Quantity = sympy.Expr | sympy.MatrixBase
State = Sequence[sympy.Symbol] | Sequence[sympy.MatrixBase]


# -- identity testing ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SpotCheck:
    """Exact substitution of seeded random rationals; ``refuted`` is a proof of non-identity, the rest is not."""

    samples: int  # substitutions that gave a value (points where the expression is undefined are redrawn)
    zeros: int  # samples whose value is exactly 0, or whose enclosure contains 0
    refuted: bool  # some sample has a value proved nonzero
    witness: dict[sympy.Symbol, sympy.Rational] | None  # the refuting substitution
    witness_value: sympy.Expr | None


@dataclass(frozen=True)
class ZeroTest:
    """Outcome of :func:`is_identically_zero`.

    ``proved``: exact simplification reached 0, a proof that the expression vanishes identically.
    ``spot_check.refuted``: a proof that it does not. Neither: undecided (the spot check may support it).
    """

    proved: bool
    method: str  # strongest step needed: rational, expand, cancel, trigsimp, simplify, "none needed"; "" if unproved
    residual: Quantity  # the simplified form (0 when proved)
    spot_check: SpotCheck
    description: str

    @property
    def refuted(self) -> bool:
        return self.spot_check.refuted


class _NotRational(Exception):
    """The expression holds a number that is not an exact rational (a float, ∞, nan): no flint translation."""


RationalFunction = tuple[fmpz_mpoly, fmpz_mpoly]  # (numerator, denominator), coprime, denominator nonzero


class _FlintRationalFunctions:
    """Translates a sympy expression into a quotient of flint integer polynomials in its opaque atoms (symbols,
    matrix entries, function applications), as sympy's polys read it: b^((p/q)·r), e^((p/q)·r) are powers of the
    generator b^(r/Q), e^(r/Q), with Q the least common multiple of the q met for (b, r), so x and √x share
    one. Treating the generators as independent indeterminates is sound (principal powers: b^(k·w) = (b^w)^k for an
    integer k): an identity of rational functions in indeterminates survives any substitution of values where the
    denominators do not vanish, as for sympy's cancel, which reads expressions the same way."""

    def __init__(self, expr: sympy.Expr) -> None:
        self.roots: dict[tuple[sympy.Expr, sympy.Expr], int] = {}  # (b, r) → Q, in order of appearance
        self._collect(expr, set())
        self.index = {key: i for i, key in enumerate(self.roots)}
        names = tuple(f"g{i}" for i in range(len(self.index))) or ("g0",)
        self.ctx = fmpz_mpoly_ctx.get(names, "lex")
        self.gens = self.ctx.gens()
        self.one = self.ctx.constant(1)
        self.memo: dict[int, RationalFunction] = {}  # by id: sympy shares subtrees

    @staticmethod
    def _atom(expr: sympy.Expr) -> tuple[tuple[sympy.Expr, sympy.Expr], sympy.Rational] | None:
        """((b, r), c) for a leaf b^(c·r) of the translation, None for Add, Mul, integer Pow and numbers."""
        if expr.is_Add or expr.is_Mul or expr.is_Number or (expr.is_Pow and expr.exp.is_Integer):
            return None
        if expr.is_Pow or isinstance(expr, sympy.exp):
            base, exponent = expr.as_base_exp()
            coefficient, rest = exponent.as_coeff_Mul()
            if coefficient.is_Rational:
                return (base, rest), coefficient
        return (expr, sympy.S.One), sympy.S.One

    def _collect(self, expr: sympy.Expr, seen: set[int]) -> None:
        if id(expr) in seen:
            return
        seen.add(id(expr))
        if expr.is_Number:
            if not expr.is_Rational:
                raise _NotRational(str(expr))
            return
        atom = self._atom(expr)
        if atom is not None:
            key, coefficient = atom
            self.roots[key] = math.lcm(self.roots.get(key, 1), int(coefficient.q))
            return
        for arg in expr.args:
            self._collect(arg, seen)

    @staticmethod
    def _reduced(num: fmpz_mpoly, den: fmpz_mpoly) -> RationalFunction:
        if num.is_zero():
            return num, den.context().constant(1)
        g = num.gcd(den)
        if not g.is_one():
            num, den = num / g, den / g
        if den.leading_coefficient() < 0:
            num, den = -num, -den
        return num, den

    def _add(self, a: RationalFunction, b: RationalFunction) -> RationalFunction:
        if a[1] == b[1]:
            return self._reduced(a[0] + b[0], a[1])
        g = a[1].gcd(b[1])
        ad, bd = a[1] / g, b[1] / g
        return self._reduced(a[0] * bd + b[0] * ad, ad * b[1])

    def _mul(self, a: RationalFunction, b: RationalFunction) -> RationalFunction:
        g1, g2 = a[0].gcd(b[1]), b[0].gcd(a[1])
        return self._reduced((a[0] / g1) * (b[0] / g2), (a[1] / g2) * (b[1] / g1))

    def _power(self, a: RationalFunction, n: int) -> RationalFunction:
        if n < 0:
            if a[0].is_zero():
                raise ZeroDivisionError("0 to a negative power")
            a, n = (a[1], a[0]), -n
        return self._reduced(a[0] ** n, a[1] ** n)  # coprime stays coprime; _reduced fixes the sign

    def convert(self, expr: sympy.Expr) -> RationalFunction:
        key = id(expr)
        if key in self.memo:
            return self.memo[key]
        if expr.is_Rational:
            result = (self.ctx.constant(int(expr.p)), self.ctx.constant(int(expr.q)))
        elif (atom := self._atom(expr)) is not None:  # (b^(r/Q))^(c·Q)
            key, coefficient = atom
            result = self._power((self.gens[self.index[key]], self.one), int(coefficient * self.roots[key]))
        elif expr.is_Add:
            parts = [self.convert(arg) for arg in expr.args]
            result = parts[0]
            for part in parts[1:]:
                result = self._add(result, part)
        elif expr.is_Mul:
            parts = [self.convert(arg) for arg in expr.args]
            result = parts[0]
            for part in parts[1:]:
                result = self._mul(result, part)
        else:  # Pow with an integer exponent
            result = self._power(self.convert(expr.base), int(expr.exp))
        self.memo[key] = result
        return result


_INDETERMINATES = (sympy.Symbol, MatrixElement, AppliedUndef, sympy.Derivative, sympy.Subs)


def _rational_function_verdict(expr: sympy.Expr) -> bool | None:
    """Whether ``expr`` vanishes as a rational function of its atoms, computed in flint on the expression as written:
    True (a proof as strong as sympy's cancel∘together reaching 0); False where it does not and every generator is
    a symbol, a matrix entry or an application of an undefined function (or its derivative) to the first power,
    indeterminates for sympy's cancel too, so no rewriting by expand or cancel reaches 0 (no relation such as
    e^(2x) = (e^x)^2 or √x² = x is lost); None otherwise (other generators, a float or an infinity): left to sympy."""
    expr = sympy.sympify(expr)
    try:
        translation = _FlintRationalFunctions(expr)
        if translation.convert(expr)[0].is_zero():
            return True
    except (_NotRational, ZeroDivisionError):
        return None
    independent = all(rest == 1 and root == 1 and isinstance(base, _INDETERMINATES)
                      for (base, rest), root in translation.roots.items())
    return False if independent else None


def vanishes_as_rational_function(expr: sympy.Expr) -> bool:
    """True if ``expr`` is exactly 0 as a rational function of its atoms (computed in flint, fast); False if it is
    not, or if it holds a float or an infinity (undecided here). A True is a proof as strong as sympy's
    cancel∘together reaching 0; a False leaves the question to sympy."""
    return _rational_function_verdict(expr) is True


def _cancel(expr: sympy.Expr) -> sympy.Expr:
    """sympy's cancel∘together, after the flint verdict: 0 if it vanishes, the expression as it is where it cannot
    vanish, both without sympy's rewriting, which took most of the proofs' time (seconds per identity)."""
    verdict = _rational_function_verdict(expr)
    if verdict is not None:
        return sympy.S.Zero if verdict else expr
    return sympy.cancel(sympy.together(expr))


# Each step rewrites an entry, except the first, a verdict (True, False, None) that _simplify_to_zero reads itself
_STEPS: tuple[tuple[str, Callable[[sympy.Expr], Any]], ...] = (
    ("rational", _rational_function_verdict),
    ("expand", sympy.expand),
    ("cancel", _cancel),
    ("trigsimp", lambda e: sympy.trigsimp(sympy.expand(e))),
    ("simplify", sympy.simplify),
)
_CHEAP_STEPS = 3  # rational, expand and cancel run before the spot check, the rest only if it does not refute


def _explicit(quantity: Any) -> sympy.Expr | sympy.MatrixBase:
    if isinstance(quantity, sympy.MatrixExpr) and not isinstance(quantity, sympy.MatrixBase):
        return quantity.as_explicit()
    return quantity if isinstance(quantity, sympy.MatrixBase) else sympy.sympify(quantity)


def _has_symbolic_shape(quantity: Any) -> bool:
    return (isinstance(quantity, sympy.MatrixExpr) and not isinstance(quantity, sympy.MatrixBase)
            and not all(sympy.sympify(size).is_Integer for size in quantity.shape))


def _free_algebra_zero_test(quantity: sympy.MatrixExpr) -> ZeroTest:
    residual = sympy.expand(quantity)
    proved = isinstance(residual, sympy.ZeroMatrix)
    description = ("identically zero in the free matrix algebra: holds for matrices of every shape" if proved else
                   "undecided: the noncommutative expansion does not cancel (no spot check for symbolic shapes)")
    return ZeroTest(proved, "expand" if proved else "", residual, SpotCheck(0, 0, False, None, None), description)


def _simplify_to_zero(entries: list[sympy.Expr], first: int, last: int) -> tuple[list[sympy.Expr], int]:
    """Each entry run through _STEPS[first:last] until it is exactly 0: the residuals, and the index of the
    strongest step that some entry needed (−1 if none)."""
    residuals, strongest = [], -1
    for entry in entries:
        for index in range(first, last):
            if entry == 0:
                break
            if index == 0:  # the flint verdict also says when no cheap step can reach 0
                verdict = _STEPS[0][1](entry)
                if verdict is False and last <= _CHEAP_STEPS:
                    break
                entry = sympy.S.Zero if verdict else entry
            else:
                entry = _STEPS[index][1](entry)
            if entry == 0:
                strongest = max(strongest, index)
        residuals.append(entry)
    return residuals, strongest


def _opaque_atoms(expr: sympy.Basic) -> set[sympy.Basic]:
    """Outermost applications of undefined functions and their derivatives (treated as free unknowns)."""
    if isinstance(expr, (AppliedUndef, sympy.Derivative, sympy.Subs)):
        return {expr}
    return set().union(*(_opaque_atoms(arg) for arg in expr.args)) if expr.args else set()


def _variables(entries: list[sympy.Expr]) -> list[sympy.Basic]:
    """Free scalar symbols and matrix-symbol entries A[i, j], in a fixed order."""
    found: set[sympy.Basic] = set()
    for entry in entries:
        found |= {s for s in entry.free_symbols if not isinstance(s, sympy.MatrixSymbol)}
        found |= entry.atoms(MatrixElement)
    return sorted(found, key=str)


def _random_rational(rng: np.random.Generator, positive: bool) -> sympy.Rational:
    numerator = int(rng.integers(1, 30)) * (1 if positive else int(rng.choice([-1, 1])))
    return sympy.Rational(numerator, int(rng.integers(1, 30)))


def _is_nonzero(value: sympy.Expr) -> bool | None:
    """True if ``value`` is proved nonzero, False if it is exactly 0 or enclosed around 0 even at 1024 bits,
    None if it has no real value that can be enclosed."""
    if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return None
    if value.is_Rational:
        return value != 0
    try:
        evaluate = interval_function(value, [])
        for prec in (64, 256, 1024):
            with ctx.workprec(prec):
                enclosure = evaluate()
            if enclosure.is_finite() and not enclosure.contains(0):
                return True
    except ValueError:  # complex or unsupported constant: no decision
        return None
    # an enclosure that is infinite at one precision (a division by a near-zero) may be finite at the next
    return False if enclosure.is_finite() else None


def _spot_check(entries: list[sympy.Expr], samples: int, seed: int) -> SpotCheck:
    rng = np.random.default_rng(seed)
    symbols = _variables(entries)
    # xreplace swaps the symbols structurally (10× faster than subs); subs where a derivative is taken in one of them
    # (d/dx f(x) at x = 1/2 is a Subs, not d/d(1/2) f(1/2))
    needs_subs = [any(set(d.variables) & set(symbols) for d in entry.atoms(sympy.Derivative)) for entry in entries]
    evaluated = zeros = 0
    for _ in range(3 * samples):
        if evaluated == samples:
            break
        point = {s: _random_rational(rng, bool(s.is_nonnegative)) for s in symbols}
        values = []
        for entry, subs in zip(entries, needs_subs):
            value = entry.subs(point) if subs else entry.xreplace(point)
            unknowns = sorted(_opaque_atoms(value), key=str)
            values.append(value.xreplace({atom: _random_rational(rng, False) for atom in unknowns}))
        decisions = [_is_nonzero(value) for value in values]
        if any(decision is None for decision in decisions):
            continue
        evaluated += 1
        for value, nonzero in zip(values, decisions):
            if nonzero:
                return SpotCheck(evaluated, zeros, True, point, value)
        zeros += 1
    return SpotCheck(evaluated, zeros, False, None, None)


def is_identically_zero(quantity: Quantity, *, samples: int = 6, seed: int = 0) -> ZeroTest:
    """Decide whether a scalar or matrix expression vanishes identically in its free symbols.

    Cheap exact steps (rational-function arithmetic in flint on the expression as written, expand, cancel∘together)
    run first; then the spot check, which can refute; only if it does not refute are trigsimp and simplify tried.
    Symbols declared nonnegative/positive get positive samples.

    A matrix expression of symbolic shape (``MatrixSymbol("A", n, m)``) is expanded in the free noncommutative
    algebra: reaching the zero matrix proves the identity for matrices of every shape; otherwise it is undecided
    (a spot check needs concrete shapes).
    """
    if _has_symbolic_shape(quantity):
        return _free_algebra_zero_test(quantity)
    quantity = _explicit(quantity)
    entries = list(quantity) if isinstance(quantity, sympy.MatrixBase) else [quantity]
    residuals, strongest = _simplify_to_zero(entries, 0, _CHEAP_STEPS)
    unresolved = [r for r in residuals if r != 0]
    check = _spot_check(unresolved, samples if unresolved else 0, seed)
    if not check.refuted and any(r != 0 for r in residuals):
        residuals, later = _simplify_to_zero(residuals, _CHEAP_STEPS, len(_STEPS))
        strongest = max(strongest, later)
    proved = all(r == 0 for r in residuals)
    method = _STEPS[strongest][0] if proved and strongest >= 0 else ("none needed" if proved else "")
    if isinstance(quantity, sympy.MatrixBase):
        residual: Quantity = sympy.Matrix(quantity.rows, quantity.cols, residuals)
    else:
        residual = residuals[0]
    if proved:
        description = f"identically zero: {len(entries)} entries simplify to exactly 0 ({method})"
    elif check.refuted:
        description = f"NOT identically zero: value {check.witness_value} at {check.witness}"
    else:
        description = (f"undecided: no simplification reached 0; {check.zeros}/{check.samples} random rational "
                       f"points give 0 (evidence only)")
    return ZeroTest(proved, method, residual, check, description)


# -- gradient flows and Lie derivatives ----------------------------------------------------------------------

def weight_matrices(dims: Sequence[int], name: str = "W") -> list[sympy.Matrix]:
    """Matrices of real symbols W_k ∈ R^{d_k × d_{k−1}}, k = 1, …, L, for dims = [d_0, …, d_L].

    Entry (i, j) of W_k is the symbol ``f"{name}{k}_{i}_{j}"`` (0-based i, j)."""
    return [sympy.Matrix(dims[k], dims[k - 1], lambda i, j, k=k: sympy.Symbol(f"{name}{k}_{i}_{j}", real=True))
            for k in range(1, len(dims))]


def _flatten(items: Iterable[Any]) -> list[sympy.Expr]:
    flat: list[sympy.Expr] = []
    for item in items:
        flat.extend(item if isinstance(item, sympy.MatrixBase) else [item])
    return flat


def generic_loss(output: sympy.MatrixBase, name: str = "G") -> tuple[sympy.Expr, sympy.Matrix]:
    """(⟨G, output⟩, G) with G a matrix of fresh symbols: a stand-in for an arbitrary differentiable loss.

    For a loss R(output(θ)), the gradient at θ is the gradient of θ ↦ ⟨G, output(θ)⟩ with G = ∇R(output(θ))
    held fixed. A Lie derivative along the gradient flow depends on G only through its value at θ, so an
    identity proved for symbolic G holds for every loss R.
    """
    G = sympy.Matrix(*output.shape, lambda i, j: sympy.Symbol(f"{name}_{i}_{j}", real=True))
    return sum((G[i, j] * output[i, j] for i in range(output.rows) for j in range(output.cols)), sympy.S.Zero), G


def gradient_flow(objective: sympy.Expr, state: State) -> list[Any]:
    """The vector field −∇objective, in the structure of ``state`` (a list of symbols or of symbol matrices)."""
    return [item.applyfunc(lambda s: -sympy.diff(objective, s)) if isinstance(item, sympy.MatrixBase)
            else -sympy.diff(objective, item) for item in state]


def lie_derivative(quantity: Quantity, state: State, vector_field: Sequence[Any]) -> Quantity:
    """d/dt quantity(θ(t)) along dθ/dt = F(θ): Σ_j ∂quantity/∂θ_j · F_j (entrywise for a matrix quantity)."""
    symbols, field = _flatten(state), _flatten(vector_field)
    if len(symbols) != len(field):
        raise ValueError(f"state has {len(symbols)} coordinates but the vector field has {len(field)}")

    def derivative(expr: sympy.Expr) -> sympy.Expr:
        present = expr.free_symbols
        return sympy.Add(*(sympy.diff(expr, s) * f for s, f in zip(symbols, field) if s in present))

    quantity = _explicit(quantity)
    return quantity.applyfunc(derivative) if isinstance(quantity, sympy.MatrixBase) else derivative(quantity)


# -- signs of rational functions -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SignCertificate:
    """``certified``: the rational function is > 0 at every point of the interval (exact Sturm counting)."""

    certified: bool
    roots: tuple[sympy.Expr, ...]  # distinct real zeros of the numerator in the closed interval, exact
    poles: tuple[sympy.Expr, ...]  # distinct real zeros of the denominator in the closed interval, exact
    description: str


def _exact_bound(value: Any) -> sympy.Expr:
    if isinstance(value, float):
        return sympy.oo if value == math.inf else (-sympy.oo if value == -math.inf else sympy.Rational(value))
    return sympy.sympify(value, rational=True)


def _real_zeros(poly: sympy.Poly, lower: sympy.Expr, upper: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """The distinct real zeros in [lower, upper], ascending. Which of them lie inside is decided by Sturm counting
    at the (rational) ends, not by comparing the algebraic roots numerically: a root within 1e-200 of an end is
    beyond what sympy's comparisons can settle."""
    zeros = list(dict.fromkeys(poly.real_roots()))  # ascending
    if not zeros:
        return ()
    below = 0 if lower.is_infinite else poly.count_roots(None, lower) - (1 if poly.eval(lower) == 0 else 0)
    upto = len(zeros) if upper.is_infinite else poly.count_roots(None, upper)
    return tuple(zeros[below:upto])


def _interior_zero_count(poly: sympy.Poly, lower: sympy.Expr, upper: sympy.Expr) -> int:
    """Distinct zeros in the open interval (lower, upper), by Sturm sequences."""
    count = poly.count_roots(None if lower.is_infinite else lower, None if upper.is_infinite else upper)
    return count - sum(1 for end in (lower, upper) if end.is_finite and poly.eval(end) == 0)


def certify_rational_positive(expr: sympy.Expr, variable: sympy.Symbol, lower: Any, upper: Any, *,
                              closed: bool = False) -> SignCertificate:
    """Prove expr(x) > 0 for all x in (lower, upper), or in [lower, upper] with ``closed`` (finite ends only).

    ``expr`` must be a rational function of ``variable`` with rational coefficients (floats count at their
    exact binary value; bounds may be ±oo). The numerator and denominator are counted for zeros inside the
    interval by Sturm sequences; with none there, the sign is constant and is read off at an interior
    rational point. Roots and poles in the closed interval are returned exactly.
    """
    lower, upper = _exact_bound(lower), _exact_bound(upper)
    if not lower < upper:
        raise ValueError(f"empty interval ({lower}, {upper})")
    numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(sympy.sympify(expr, rational=True))))
    try:
        polys = [sympy.Poly(part, variable) for part in (numerator, denominator)]
    except PolynomialError:
        polys = []
    if not polys or any(not (p.domain.is_ZZ or p.domain.is_QQ) for p in polys):
        raise ValueError(f"{expr} is not a rational function of {variable} with rational coefficients")
    top, bottom = polys
    roots, poles = _real_zeros(top, lower, upper), _real_zeros(bottom, lower, upper)
    where = f"[{lower}, {upper}]" if closed else f"({lower}, {upper})"
    if top.is_zero:
        return SignCertificate(False, roots, poles, f"{expr} is identically 0 on {where}")
    if lower.is_finite and upper.is_finite:
        inside = (lower + upper) / 2
    else:
        inside = lower + 1 if lower.is_finite else (upper - 1 if upper.is_finite else sympy.S.Zero)
    ends = [end for end in (lower, upper) if closed and end.is_finite]
    sign_changes = _interior_zero_count(top, lower, upper) + _interior_zero_count(bottom, lower, upper)
    at_ends = sum(1 for end in ends if top.eval(end) == 0 or bottom.eval(end) == 0)
    positive_inside = top.eval(inside) * bottom.eval(inside) > 0
    certified = sign_changes == 0 and at_ends == 0 and bool(positive_inside)
    verdict = "> 0 certified" if certified else "> 0 NOT certified"
    return SignCertificate(certified, roots, poles,
                           f"{expr} {verdict} on {where}; zeros {list(roots)}, poles {list(poles)} in the closure")


# -- activation patterns ----------------------------------------------------------------------------------------

def _nonnegative_solution_exists(M: list[list[fmpq]], c: list[fmpq]) -> bool:
    """Is there y ≥ 0 with M y = c (where c ≥ 0)? Phase one of the simplex method, exact, with Bland's rule
    (lowest-index entering and leaving variables), which cannot cycle."""
    rows, cols = len(M), len(M[0])
    tableau = [M[i] + [fmpq(int(i == k)) for k in range(rows)] + [c[i]] for i in range(rows)]
    basis = [cols + i for i in range(rows)]  # start from the artificial variables
    if any(tableau[k][j] != int(k == i) for i, j in enumerate(basis) for k in range(rows)):
        # Bland's rule cannot cycle only if each label is its basic variable's column (the unit vector e_i)
        raise AssertionError("phase one: the initial basis labels are not the artificial columns")
    # reduced costs of minimising the sum of the artificials; the last entry is −(current sum)
    cost = [-sum((tableau[i][j] for i in range(rows)), fmpq(0)) if j < cols else fmpq(0)
            for j in range(cols + rows)] + [-sum(c, fmpq(0))]
    while True:
        entering = next((j for j in range(cols + rows) if cost[j] < 0), None)
        if entering is None:
            return cost[-1] == 0
        _, _, r = min((tableau[i][-1] / tableau[i][entering], basis[i], i)
                      for i in range(rows) if tableau[i][entering] > 0)
        pivot_row = [v / tableau[r][entering] for v in tableau[r]]
        tableau[r] = pivot_row
        for i in range(rows):
            if i != r and tableau[i][entering] != 0:
                factor = tableau[i][entering]
                tableau[i] = [v - factor * p for v, p in zip(tableau[i], pivot_row)]
        factor = cost[entering]
        cost = [v - factor * p for v, p in zip(cost, pivot_row)]
        basis[r] = entering


def _realizable(rows: list[list[fmpq]], signs: Sequence[int]) -> bool:
    """Is there w with sign(wᵀx_i) = s_i for every i? Decided exactly by Motzkin's transposition theorem.

    Either some w has s_i x_iᵀw > 0 (s_i ≠ 0) and x_jᵀw = 0 (s_j = 0), or there are y ≥ 0 with Σy_i = 1
    and free μ with Σ y_i s_i x_i + Σ μ_j x_j = 0, never both; the latter is a phase-one LP (μ = μ⁺ − μ⁻).
    """
    strict = [[s * v for v in row] for row, s in zip(rows, signs) if s]
    pinned = [row for row, s in zip(rows, signs) if not s]
    if not strict:
        return True  # w = 0
    columns = strict + pinned + [[-v for v in row] for row in pinned]
    d = len(rows[0])
    M = [[column[k] for column in columns] for k in range(d)]
    M.append([fmpq(1)] * len(strict) + [fmpq(0)] * (2 * len(pinned)))
    return not _nonnegative_solution_exists(M, [fmpq(0)] * d + [fmpq(1)])


def sign_patterns(X: Any, *, zeros: bool = False) -> list[tuple[int, ...]]:
    """All sign vectors (sign(wᵀx_1), …, sign(wᵀx_n)) over w ∈ R^d, for the rows x_i of X, sorted.

    These are the regions (faces, with ``zeros``) of the central hyperplane arrangement {w : wᵀx_i = 0};
    a ReLU neuron with weights w is active on exactly the samples with sign +1. Without ``zeros`` the
    entries are ±1 (no sample on the neuron's hyperplane); with ``zeros`` they are in {+1, 0, −1}.
    Exact: entries are taken at their rational value (floats exactly) and each pattern is decided by an
    exact rational LP, built up one sample at a time (a realizable pattern's prefix is realizable).
    """
    rows = [[to_fmpq(v) for v in row] for row in (X.tolist() if hasattr(X, "tolist") else X)]
    choices = (1, 0, -1) if zeros else (1, -1)
    patterns: list[tuple[int, ...]] = [()]
    for i in range(len(rows)):
        patterns = [p + (s,) for p in patterns for s in choices if _realizable(rows[: i + 1], p + (s,))]
    return sorted(patterns, reverse=True)


def network_patterns(X: Any, width: int, *, ordered: bool = False,
                     zeros: bool = False) -> list[tuple[tuple[int, ...], ...]]:
    """Patterns of a hidden layer of ``width`` ReLU neurons: multisets of neuron patterns (tuples if ``ordered``)."""
    single = sign_patterns(X, zeros=zeros)
    combine = itertools.product(single, repeat=width) if ordered else itertools.combinations_with_replacement(
        single, width)
    return list(combine)
