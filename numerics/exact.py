"""Exact arithmetic for certificates: numbers, signs and affine solves over Q or a real algebraic field.

Certificates re-solve a linear system (a KKT system on a detected active set) exactly and then verify
inequalities exactly. Data arrive as float64 arrays (every float is a binary rational, converted without
rounding), mpmath numbers (also binary rationals) or object arrays of sympy numbers, possibly irrational
algebraic ones such as ``sqrt(2)``. Linear algebra runs in sympy's ``DomainMatrix`` over the smallest field
holding the data: Q (backed by python-flint) or an algebraic extension Q(a), where zero tests are exact.
Signs of non-zero algebraic numbers are read from a numerical evaluation at increasing precision, which is
exact because the number is known not to be zero.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy
from sympy.core.evalf import pure_complex
from sympy.core.sorting import ordered
from sympy.polys.constructor import construct_domain
from sympy.polys.matrices import DomainMatrix
from sympy.polys.numberfields import primitive_element

Exact = sympy.Expr

_SIGN_PRECISIONS = (30, 100, 400)  # decimal digits tried when reading the sign of a non-zero algebraic number


class NotAlgebraicError(ValueError):
    """The numbers are not all rational or real algebraic, so exact zero tests are not available."""


def to_exact_number(value: Any) -> Exact:
    """One number as a sympy number without rounding: floats and mpf become the binary rational they store."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, (int, np.integer)):
        return sympy.Integer(int(value))
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"cannot convert {value} to an exact number")
        return sympy.Rational(float(value))
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"cannot convert {value} to an exact number")
        mantissa, exponent = value.man_exp  # the mantissa is unsigned: the sign is kept separately
        return int(mpmath.sign(value)) * sympy.Integer(mantissa) * sympy.Rational(2) ** exponent
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, sympy.Float):
        return sympy.Rational(value)
    if isinstance(value, sympy.Basic):
        if value.is_real is False or value.free_symbols:
            raise ValueError(f"exact arithmetic needs real numbers, got {value}")
        return value
    raise TypeError(f"cannot convert {type(value).__name__} to an exact number")


def to_exact(values: Any) -> np.ndarray:
    """Object array of sympy numbers, converted entry by entry with :func:`to_exact_number`."""
    arr = np.asarray(values, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for index, value in np.ndenumerate(arr):
        out[index] = to_exact_number(value)
    return out


def rationalize(values: Any, max_denominator: int = 10**6) -> np.ndarray:
    """Nearby simple rationals (continued-fraction rounding) of float values, as an object array."""
    arr = np.asarray(values, dtype=np.float64)
    out = np.empty(arr.shape, dtype=object)
    for index, value in np.ndenumerate(arr):
        out[index] = to_exact_number(Fraction(float(value)).limit_denominator(max_denominator))
    return out


# -- fields ---------------------------------------------------------------------------------------
def _field(entries: Sequence[Exact]) -> tuple[Any, list[Any]]:
    """The smallest field (Q or an algebraic Q(a)) holding the entries, and the entries as its elements."""
    if not entries:
        return sympy.QQ, []
    if all(e.is_Rational for e in entries):
        return sympy.QQ, [sympy.QQ.from_sympy(e) for e in entries]
    expanded = [sympy.expand(e) for e in entries]
    found = _algebraic_elements(expanded)
    if found is not None:
        return found
    domain, elements = construct_domain(expanded, extension=True)
    if not (domain.is_QQ or domain.is_ZZ or domain.is_AlgebraicField):
        raise NotAlgebraicError(f"exact arithmetic supports rational and real algebraic numbers, not {domain}")
    if domain.is_Field:
        return domain, elements
    field = domain.get_field()
    return field, [field.convert_from(e, domain) for e in elements]


def _algebraic_elements(coefficients: list[Exact]) -> tuple[Any, list[Any]] | None:
    """What ``construct_domain(coefficients, extension=True)`` returns for rational and real algebraic numbers (at
    least one irrational), with the field Q(a) of each set of generators (√2, 2^(1/3), ...) built once per process
    instead of per call: finding its primitive element was most of the time of exact products on one construction.
    None where sympy's own path is needed (floats, complex or non-algebraic numbers)."""
    trees, generators = [], set()

    def tree(a: Exact) -> tuple[str, Any]:
        if a.is_Rational:
            return "Q", sympy.QQ.from_sympy(a)
        if a.is_Add or a.is_Mul:
            return ("+" if a.is_Add else "*"), [tree(b) for b in a.args]
        generators.add(a)
        return "e", a

    for coefficient in coefficients:
        if not coefficient.is_Rational and (coefficient.is_Float or pure_complex(coefficient)
                                            or not (coefficient.is_number and coefficient.is_algebraic)):
            return None  # construct_domain would not build an algebraic field from these
        trees.append(tree(coefficient))
    if not generators:
        return None
    domain, modulus, images = _algebraic_field(tuple(ordered(generators)))

    def convert(node: tuple[str, Any]) -> Any:
        kind, value = node
        if kind == "Q":
            return domain.dtype.from_list([value], modulus, sympy.QQ)
        if kind == "+":
            return sum((convert(b) for b in value), domain.zero)
        if kind == "*":
            return math.prod(convert(b) for b in value)
        return images[value]

    return domain, [convert(t) for t in trees]


@functools.lru_cache(maxsize=256)
def _algebraic_field(generators: tuple[Exact, ...]) -> tuple[Any, list[Any], dict[Exact, Any]]:
    """Q(a) for the ordered generators as sympy's ``construct_domain`` builds it, its modulus (the minimal polynomial
    of a) and each generator as an element."""
    minimal, span, images = primitive_element(list(generators), ex=True, polys=True)
    root = sum(s * g for s, g in zip(span, generators))
    domain = sympy.QQ.algebraic_field((minimal, root))
    modulus = minimal.rep.to_list()
    return domain, modulus, {g: domain.dtype.from_list(h, modulus, sympy.QQ) for g, h in zip(generators, images)}


def _matrices(*arrays: np.ndarray) -> tuple[Any, list[DomainMatrix]]:
    """2-D object arrays as DomainMatrices over one common field."""
    flat = [e for arr in arrays for e in arr.ravel()]
    field, elements = _field(flat)
    out, start = [], 0
    for arr in arrays:
        rows, cols = arr.shape
        block = elements[start:start + rows * cols]
        start += rows * cols
        out.append(DomainMatrix([block[r * cols:(r + 1) * cols] for r in range(rows)], (rows, cols), field))
    return field, out


def _to_array(field: Any, M: DomainMatrix) -> np.ndarray:
    rows, cols = M.shape
    out = np.empty((rows, cols), dtype=object)
    for r, row in enumerate(M.to_list()):
        for c, value in enumerate(row):
            out[r, c] = field.to_sympy(value)
    return out


def canonical(values: Any) -> np.ndarray:
    """Entries rewritten in the canonical form of their field (e.g. a + b·sqrt(2)); zero becomes exactly 0."""
    arr = to_exact(values)
    field, elements = _field(list(arr.ravel()))
    out = np.empty(arr.shape, dtype=object)
    for index, element in zip(np.ndindex(arr.shape), elements):
        out[index] = field.to_sympy(element)
    return out


def canonical_number(value: Any) -> Exact:
    """One number in the canonical form of its field (:func:`canonical` of a single entry)."""
    return canonical([value])[0]


def signs(values: Any) -> np.ndarray:
    """Exact signs (−1, 0, +1) of real rational or algebraic numbers, as an int array."""
    arr = to_exact(values)
    out = np.zeros(arr.shape, dtype=int)
    undecided = []
    for index, value in np.ndenumerate(arr):
        if value.is_Rational:
            out[index] = int(sympy.sign(value))
            continue
        sign_ = _clear_sign(value)
        if sign_:
            out[index] = sign_
        else:
            undecided.append(index)
    if undecided:
        for index, value in zip(undecided, canonical([arr[i] for i in undecided])):
            out[index] = _sign_of_canonical(value)
    return out


@functools.lru_cache(maxsize=65536)
def _clear_sign(value: Exact) -> int:
    """±1 when a 30-digit evaluation is clearly away from 0 (the fast path of :func:`signs`), else 0: exact zero
    tests only for the rest, which need the (slower) canonical form in the field. Remembered: activation patterns
    of exact networks read the signs of the same algebraic numbers over and over."""
    approx = sympy.N(value, _SIGN_PRECISIONS[0])
    if abs(approx) > sympy.Float(10) ** (10 - _SIGN_PRECISIONS[0]):
        return 1 if approx > 0 else -1
    return 0


def _sign_of_canonical(value: Exact) -> int:
    if value.is_Rational:
        return int(sympy.sign(value))
    for digits in _SIGN_PRECISIONS:  # value is a non-zero algebraic number: enough digits decide its sign
        approx = sympy.N(value, digits)
        if abs(approx) > sympy.Float(10) ** (10 - digits):
            return 1 if approx > 0 else -1
    raise ArithmeticError(f"could not decide the sign of {value}")


def sign(value: Any) -> int:
    """The exact sign (−1, 0, +1) of one real rational or algebraic number."""
    return int(signs(np.array([value], dtype=object))[0])


# -- linear algebra ------------------------------------------------------------------------------
def independent_rows(M: np.ndarray) -> list[int]:
    """Indices of a maximal linearly independent set of rows, chosen greedily in the given order."""
    M = to_exact(M)
    if M.shape[0] == 0:
        return []
    _, (Mx,) = _matrices(M)
    _, pivots = Mx.transpose().rref()
    return list(pivots)


def nearest_solution(M: np.ndarray, r: np.ndarray, start: np.ndarray) -> np.ndarray | None:
    """The exact point of the affine set {z : M z = r} closest (Euclidean) to ``start``; None if it is empty.

    When the system determines z uniquely this is its exact solution whatever ``start`` is; otherwise the
    free directions are fixed by staying near ``start`` (usually a numerical solution, rationalized).
    Rows are selected greedily in order, so put the rows you trust most first.
    """
    M, r, start = to_exact(M), to_exact(r).reshape(-1, 1), to_exact(start).reshape(-1, 1)
    if M.ndim != 2 or M.shape[0] != r.shape[0] or M.shape[1] != start.shape[0]:
        raise ValueError(f"shapes do not match: M {M.shape}, r {r.shape}, start {start.shape}")
    if M.shape[0] == 0:
        return start.ravel()
    field, (Mx, rx, zx) = _matrices(M, r, start)
    rows = independent_rows(M)
    Mr = Mx.extract(rows, list(range(M.shape[1])))
    rr = rx.extract(rows, [0])
    # z = z0 − M_Rᵀ (M_R M_Rᵀ)⁻¹ (M_R z0 − r_R): the orthogonal projection onto {M_R z = r_R}.
    correction = Mr.transpose() * (Mr * Mr.transpose()).lu_solve(Mr * zx - rr)
    z = zx - correction
    if not (Mx * z - rx).is_zero_matrix:  # the dependent rows disagree: the system is inconsistent
        return None
    return _to_array(field, z).ravel()


def matvec(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """M v in exact arithmetic, entries in canonical form."""
    M, v = to_exact(M), to_exact(v).reshape(-1, 1)
    field, (Mx, vx) = _matrices(M, v)
    return _to_array(field, Mx * vx).ravel()


def dot(u: Iterable[Any], v: Iterable[Any]) -> Exact:
    """⟨u, v⟩ in exact arithmetic, canonical."""
    u = to_exact(list(u))
    return matvec(u.reshape(1, -1), to_exact(list(v)))[0]


def nullspace(M: np.ndarray) -> np.ndarray:
    """Exact basis of {z : M z = 0} as the columns of an object array (n × k, k possibly 0)."""
    M = to_exact(M)
    if M.shape[0] == 0:
        return to_exact(np.eye(M.shape[1], dtype=int))
    field, (Mx,) = _matrices(M)
    basis = Mx.nullspace()
    if basis.shape[0] == 0:
        return np.empty((M.shape[1], 0), dtype=object)
    return _to_array(field, basis.transpose())
