"""Behavioural tests with teeth for numerics/exact.py (issue 18, mutation testing): closed forms over Q and Q(√2, √3)
for the fields, the canonical form, the exact signs and the matrix functions, and the edges of every condition
(shape checks, empty systems, the precision ladder of the signs), so that a moved literal, a flipped comparison or
a swapped operator changes an asserted result.

The sign thresholds are the documented ones: a d-digit evaluation is trusted with ten guard digits, i.e. when it is
larger than 10^(10−d) in absolute value; the fast path of ``signs()`` evaluates at 30 digits (its docstring) and the
ladder ends at 400 digits, past which ``ArithmeticError`` is raised. Whether the fast path decided a sign is
observed through the public :func:`numerics.exact.canonical`, which ``signs()`` calls only for the rest.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy
from sympy import Rational as Q

from numerics import exact as E

R2, R3 = sympy.sqrt(2), sympy.sqrt(3)


def same(actual, expected) -> bool:
    """Exact equality of two sequences of real algebraic numbers (the difference expands to 0)."""
    actual, expected = list(np.ravel(actual)), list(np.ravel(expected))
    return len(actual) == len(expected) and all(sympy.expand(a - b) == 0 for a, b in zip(actual, expected))


# == rationalize: continued-fraction rounding, denominator at most 10^6 by default ===========================
def test_rationalize_default_denominator_is_one_million():
    """π's best approximation with denominator ≤ 10⁶ is 3126535/995207; a bound of 10⁵, 10⁷, 9⁶ or 11⁶ gives
    another fraction."""
    out = E.rationalize([math.pi, 0.5])
    assert out[0] == Q(3126535, 995207) == Fraction(math.pi).limit_denominator(10**6)
    assert out[1] == Q(1, 2)
    assert E.rationalize([math.pi], max_denominator=113)[0] == Q(355, 113)


# == fields and canonical forms ================================================================================
def test_canonical_in_q_sqrt2_sqrt3_builds_sums_products_and_rationals():
    """Entries with rationals, sums and products of generators are converted node by node into Q(√2, √6)."""
    values = [R2 * (1 + R3), Q(1, 2), 2 * R2 + 3, -R2 * sympy.sqrt(6) / 4, R2 - R2 * R3 + R3 * R2]
    out = E.canonical(values)
    assert same(out, [R2 + sympy.sqrt(6), Q(1, 2), 2 * R2 + 3, -R3 / 2, R2])
    assert all(isinstance(v, sympy.Expr) for v in out)


def test_canonical_of_two_generators_returns_them():
    """The primitive element of Q(√2, √3) must be a root of its minimal polynomial: the generators come back."""
    assert same(E.canonical([R2, R3, R2 * R3]), [R2, R3, sympy.sqrt(6)])
    assert list(E.signs([R2 - R3, R3 - R2, R2 * R3 - sympy.sqrt(6)])) == [-1, 1, 0]


def test_canonical_of_a_hidden_zero_is_exactly_zero():
    out = E.canonical([(R2 + 1) ** 2 - 2 * R2 - 3, R2])
    assert out[0] == 0 and out[0].is_Rational


@pytest.mark.parametrize("values", [[sympy.pi, R2], [sympy.E], [sympy.pi + R2]])
def test_transcendental_numbers_are_refused(values):
    """π and e are not algebraic: the fast field path must hand them to sympy, which yields no algebraic field."""
    with pytest.raises(E.NotAlgebraicError):
        E.canonical(values)


def test_fields_are_built_once_per_set_of_generators():
    """``_algebraic_elements`` (docstring: the field Q(a) of each set of generators is built once per process):
    algebraic entries take that path, and repeated products over the same generators reuse the field."""
    E._algebraic_field.cache_clear()
    for _ in range(3):
        assert same(E.canonical([R2 * (R3 + 1), Q(1, 3) * R3]), [R2 + sympy.sqrt(6), R3 / 3])
    info = E._algebraic_field.cache_info()
    assert info.misses == 1 and info.hits == 2


# == exact signs: the precision ladder ========================================================================
def signs_and_canonical_calls(monkeypatch, values):
    calls = []
    original = E.canonical

    def spy(arg):
        calls.append(list(arg))
        return original(arg)

    monkeypatch.setattr(E, "canonical", spy)
    return list(E.signs(values)), calls


@pytest.mark.parametrize("scale", [1, Q(3, 10**20)])
def test_clear_values_are_decided_by_the_30_digit_fast_path(monkeypatch, scale):
    """|x| > 10^−20 (30 digits, ten guard digits): sign read directly, no canonical form. 3√2·10⁻²⁰ ≈ 4.2·10⁻²⁰
    is just above the edge (a threshold of 10⁻¹⁹ or 9⁻²⁰ ≈ 8.2·10⁻²⁰ would miss it)."""
    result, calls = signs_and_canonical_calls(monkeypatch, [R2 * scale, -R2 * scale, R3 * scale])
    assert result == [1, -1, 1]
    assert calls == []


@pytest.mark.parametrize("scale", [Q(5, 10**21), Q(1, 10**25), Q(1, 10**60)])
def test_values_below_the_fast_path_threshold_take_the_exact_path(monkeypatch, scale):
    """5√2·10⁻²¹ ≈ 7.1·10⁻²¹ is just below 10⁻²⁰ (a threshold of 10⁻²¹ or 11⁻²⁰ ≈ 1.5·10⁻²¹ would take it);
    smaller ones need more digits. The signs are right either way."""
    result, calls = signs_and_canonical_calls(monkeypatch, [R2 * scale, -R3 * scale])
    assert result == [1, -1]
    assert len(calls) == 1 and len(calls[0]) == 2


@pytest.mark.parametrize("scale, expected", [(Q(1, 10**390), 1), (Q(-1, 10**390), -1), (Q(1, 10**300), 1),
                                             (Q(-1, 10**95), -1)])
def test_the_last_rung_decides_down_to_1e_390(scale, expected):
    """400 digits with ten guard digits: √2·10⁻³⁹⁰ ≈ 1.41·10⁻³⁹⁰ > 10⁻³⁹⁰ is decided (399 digits would not)."""
    assert E.sign(R2 * scale) == expected
    assert list(E.signs([R2 * scale, R3])) == [expected, 1]


@pytest.mark.parametrize("value", [R2 / 2 * Q(1, 10**390), -R2 / 2 * Q(1, 10**390), R2 * Q(1, 10**500)])
def test_below_1e_390_the_sign_is_refused(value):
    """√2/2·10⁻³⁹⁰ ≈ 7.1·10⁻³⁹¹ < 10⁻³⁹⁰: not decided at 400 digits (401 digits would decide it)."""
    with pytest.raises(ArithmeticError):
        E.sign(value)


def test_sign_of_rationals_and_zero():
    assert [E.sign(v) for v in (Q(-1, 3), 0, Q(1, 10**400), 2.5, -7)] == [-1, 0, 1, 1, -1]
    assert list(E.signs([[Q(1, 2), -R2], [0, R3 - 2]])[1]) == [0, -1]


# == independent rows ==========================================================================================
def test_independent_rows_are_chosen_greedily_in_order():
    M = [[1, 2, 0], [2, 4, 0], [0, 1, 1], [1, 3, 1]]
    assert E.independent_rows(M) == [0, 2]
    assert E.independent_rows([[2, 4, 0], [1, 2, 0], [1, 3, 1]]) == [0, 2]
    assert E.independent_rows([[1, 2]]) == [0]
    assert E.independent_rows([[0, 0]]) == []
    assert E.independent_rows(np.zeros((0, 2))) == []
    assert E.independent_rows([[R2, 1], [2, R2], [1, R2]]) == [0, 2]


# == nearest_solution: the orthogonal projection onto {z : M z = r} ===========================================
def test_nearest_solution_of_a_square_system_is_its_solution():
    """2x + y = 3, x + 3y = 5: (4/5, 7/5) whatever the start."""
    for start in ([0, 0], [10, -3]):
        assert list(E.nearest_solution([[2, 1], [1, 3]], [3, 5], start)) == [Q(4, 5), Q(7, 5)]


def test_nearest_solution_projects_the_start():
    """x + y + z = 3 from (1, 0, 0): (1, 0, 0) + 2/3·(1, 1, 1)."""
    assert list(E.nearest_solution([[1, 1, 1]], [3], [1, 0, 0])) == [Q(5, 3), Q(2, 3), Q(2, 3)]


def test_nearest_solution_on_a_wide_system_is_on_the_set_and_orthogonal_to_it():
    """M = [[1, 2, 0], [0, 1, 1]] (null space spanned by (−2, 1, −1)): M z = r and z − start ⟂ (−2, 1, −1)."""
    M, r, start = [[1, 2, 0], [0, 1, 1]], [1, 2], [1, 1, 1]
    z = E.nearest_solution(M, r, start)
    assert list(E.matvec(M, z)) == [1, 2]
    assert E.dot([-2, 1, -1], z - E.to_exact(start)) == 0
    assert list(z) == [Q(1, 3), Q(1, 3), Q(5, 3)]  # (1, 1, 1) − (2/3, 2/3, −2/3)


def test_nearest_solution_with_dependent_rows():
    """x + y = 2 repeated as 2x + 2y = 4 (consistent: (1, 1)) or 2x + 2y = 5 (inconsistent: None)."""
    assert list(E.nearest_solution([[1, 1], [2, 2]], [2, 4], [0, 0])) == [1, 1]
    assert E.nearest_solution([[1, 1], [2, 2]], [2, 5], [0, 0]) is None
    assert E.nearest_solution([[2, 2], [1, 1]], [5, 2], [0, 0]) is None


def test_nearest_solution_over_q_sqrt2():
    """√2 x + y = 1 from 0: the multiple (√2, 1)/3 of the normal."""
    z = E.nearest_solution([[R2, 1]], [1], [0, 0])
    assert same(z, [R2 / 3, Q(1, 3)])


def test_nearest_solution_of_empty_systems():
    """No equations: the start itself. No unknowns: 0 = r, i.e. the empty point when r = 0, None otherwise."""
    assert list(E.nearest_solution(np.zeros((0, 2)), [], [Q(1, 2), 3])) == [Q(1, 2), 3]
    empty = E.nearest_solution(np.zeros((1, 0)), [0], [])
    assert empty is not None and empty.shape == (0,)
    assert E.nearest_solution(np.zeros((1, 0)), [1], []) is None


@pytest.mark.parametrize("M, r, start", [
    ([1, 1], [1], [0, 0]),                                   # M is not a matrix
    ([[[1]]], [1], [0]),                                      # nor is a 3-D array
    ([[1, 2, 0], [0, 1, 1]], [1, 2, 3], [0, 0, 0]),           # rows of M ≠ entries of r
    ([[1, 2, 0], [0, 1, 1]], [1], [0, 0, 0]),
    ([[1, 2, 0], [0, 1, 1]], [1, 2], [0, 0]),                 # columns of M ≠ entries of start
    ([[1, 2, 0], [0, 1, 1]], [1, 2], [0, 0, 0, 0]),
])
def test_nearest_solution_rejects_mismatched_shapes(M, r, start):
    with pytest.raises(ValueError, match="shapes do not match"):
        E.nearest_solution(M, r, start)


# == matvec and dot =============================================================================================
def test_matvec_of_a_wide_matrix():
    M = [[1, 2, 3], [R2, 0, -1]]
    assert same(E.matvec(M, [1, R2, 2]), [7 + 2 * R2, R2 - 2])
    assert list(E.matvec([[1, 2, 3], [4, 5, 6]], [1, 0, -1])) == [-2, -2]
    assert list(E.matvec([[1, 2], [3, 4], [5, 6]], [1, -1])) == [-1, -1, -1]


def test_dot():
    assert E.dot([1, 2, 3], [4, 5, 6]) == 32
    assert E.dot([Q(1, 2)], [4]) == 2
    assert sympy.expand(E.dot([R2, 1, 0], [R2, R3, 5]) - 2 - R3) == 0


# == nullspace ================================================================================================
def test_nullspace_of_a_wide_matrix():
    basis = E.nullspace([[1, 2, 0], [0, 1, 1]])
    assert basis.shape == (3, 1)
    v = basis[:, 0]
    assert list(E.matvec([[1, 2, 0], [0, 1, 1]], v)) == [0, 0]
    assert list(v / v[1]) == [-2, 1, -1]


def test_nullspace_of_one_row():
    basis = E.nullspace([[1, 1]])
    assert basis.shape == (2, 1) and basis[0, 0] == -basis[1, 0] != 0


def test_nullspace_of_no_rows_is_everything():
    basis = E.nullspace(np.zeros((0, 3)))
    assert basis.shape == (3, 3) and all(basis[i, j] == (i == j) for i in range(3) for j in range(3))


@pytest.mark.parametrize("M, n", [(np.eye(2), 2), ([[1, 0], [0, 1], [1, 1]], 2), ([[R2, 1], [1, R2]], 2)])
def test_nullspace_of_full_column_rank_is_empty(M, n):
    basis = E.nullspace(M)
    assert basis.shape == (n, 0) and basis.dtype == object


def test_an_evaluation_exactly_at_the_fast_path_threshold_is_not_trusted(monkeypatch):
    """The edge of "clearly away from 0": x = t + √2·10⁻⁷⁰ with t the binary value of the threshold 10⁻²⁰ evaluates
    to exactly t at 30 digits, which is not > t: the exact path decides it (a 100- or 400-digit evaluation, or ≥,
    would take the fast path)."""
    t = E.to_exact_number(sympy.Float(10) ** -20)
    result, calls = signs_and_canonical_calls(monkeypatch, [t + R2 * Q(1, 10**70)])
    assert result == [1] and len(calls) == 1


def test_an_evaluation_exactly_at_the_last_threshold_is_refused():
    """x = t + √2·10⁻⁸⁰⁰ with t the binary value of 10⁻³⁹⁰ evaluates to exactly t at 400 digits: not > t, so
    the ladder ends undecided; slightly more (√2·10⁻³⁹⁵ above t) is decided."""
    t = E.to_exact_number(sympy.Float(10) ** -390)
    with pytest.raises(ArithmeticError):
        E.sign(t + R2 * Q(1, 10**800))
    assert E.sign(t + R2 * Q(1, 10**395)) == 1
