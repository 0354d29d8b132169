"""Edges of numerics.backend that the network and loss tests leave open.

Pinned here, in every number system the backend serves (float64 and integer arrays, plain lists, object arrays of
sympy numbers and of mpmath mpf, torch tensors): the ReLU indicator σ'(z) at the edge z = 0 (0 for z ≤ 0 in
``positive``; the stated slope at exactly 0 in ``relu_derivative``, 1 above), with 1/0 entries that exact arithmetic
accepts (ints, not bools); ``diag_embed`` and ``diagonal`` on batches (the last axis becomes / is read from the
diagonal of the last two axes, zero elsewhere); ``transpose`` swapping exactly the last two axes of batches;
``to_object`` keeping floats exact (their binary rational), reading strings as rationals, and evaluating sympy
numbers into mpf to the working precision; ``to_float`` from every system.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
import torch

from numerics import backend as B

R2 = sympy.sqrt(2)


# -- the ReLU indicator and derivative: the edge z = 0 -------------------------------------------------------------
def edge_values(kind: str):
    values = [-1.5, 0.0, 1.0, 2.0]
    if kind == "float":
        return np.array(values)
    if kind == "int":
        return np.array([-1, 0, 1, 2])
    if kind == "list":
        return [-1, 0, 1, 2]
    if kind == "torch":
        return torch.tensor(values, dtype=torch.float64)
    if kind == "mp":
        return B.to_object(values, "mp")
    return np.array([-R2 / 2, sympy.S.Zero, sympy.S.One, R2], dtype=object)


KINDS = ["float", "int", "list", "torch", "mp", "exact"]


@pytest.mark.parametrize("kind", KINDS)
def test_positive_is_zero_at_zero(kind: str) -> None:
    out = B.positive(edge_values(kind))
    assert [int(v) for v in out] == [0, 0, 1, 1]
    assert [float(v) for v in out] == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("kind", KINDS)
def test_relu_derivative_takes_the_stated_slope_exactly_at_zero(kind: str) -> None:
    z = edge_values(kind)
    for slope in (0.0, 0.25, 1.0):
        assert [float(v) for v in B.relu_derivative(z, slope)] == [0.0, slope, 1.0, 1.0]


def test_exact_indicators_are_ints_that_sympy_multiplies() -> None:
    """relu(z) = z·σ'(z) in exact arithmetic: the indicators are the ints 1/0 (a bool entry breaks sympy)."""
    z = np.array([-R2 / 2, sympy.S.Zero, R2, sympy.Rational(1, 3)], dtype=object)
    indicator = B.positive(z)
    assert all(type(v) is int for v in indicator) and list(indicator) == [0, 0, 1, 1]
    assert list(indicator * z) == [0, 0, R2, sympy.Rational(1, 3)]
    slopes = B.relu_derivative(z, sympy.Rational(1, 2))
    assert type(slopes[0]) is int and isinstance(slopes[1], sympy.Rational) and type(slopes[2]) is int
    assert list(slopes * z) == [0, 0, R2, sympy.Rational(1, 3)]


def test_sympy_floats_at_zero_are_not_positive() -> None:
    """A sympy Float is not Rational: it takes the remembered path, with the same open comparison z > 0."""
    z = np.array([sympy.Float(0.0), sympy.Float(-0.5), sympy.Float(0.5)], dtype=object)
    assert list(B.positive(z)) == [0, 0, 1]
    assert list(B.relu_derivative(z, 0.5))[1:] == [0, 1]  # (a sympy Float 0 is not == 0 in sympy ≥ 1.13)


# -- diagonal matrices and transposes on batches ---------------------------------------------------------------
@pytest.mark.parametrize("kind", ["float", "mp", "exact", "torch"])
def test_diag_embed_and_diagonal_on_a_batch(kind: str) -> None:
    values = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]
    u = {"float": np.array(values), "mp": B.to_object(values, "mp"), "exact": B.to_object(values),
         "torch": torch.tensor(values, dtype=torch.float64)}[kind]
    D = B.diag_embed(u)
    assert tuple(D.shape) == (2, 3, 3)
    expected = np.zeros((2, 3, 3))
    for b in range(2):
        expected[b] = np.diag(values[b])
    assert np.array_equal(B.to_float(D), expected)
    if kind in ("mp", "exact"):
        assert all(v == 0 for v in D[0][~np.eye(3, dtype=bool)])
    assert np.array_equal(B.to_float(B.diagonal(D)), np.array(values))
    G = np.arange(24.0).reshape(2, 3, 4)[..., :3]  # not symmetric: the last two axes are (3, 3)
    assert np.array_equal(B.diagonal(G), [[0.0, 5.0, 10.0], [12.0, 17.0, 22.0]])


def test_diagonal_is_a_copy() -> None:
    G = np.eye(2)
    d = B.diagonal(G)
    d[0] = 5.0
    assert G[0, 0] == 1.0


@pytest.mark.parametrize("kind", ["float", "list", "torch", "object"])
def test_transpose_swaps_the_last_two_axes(kind: str) -> None:
    W = np.arange(24.0).reshape(2, 3, 4)
    arg = {"float": W, "list": W.tolist(), "torch": torch.tensor(W), "object": B.to_object(W)}[kind]
    out = B.transpose(arg)
    assert tuple(out.shape) == (2, 4, 3)
    assert np.array_equal(B.to_float(out), np.transpose(W, (0, 2, 1)))
    assert np.array_equal(B.to_float(B.transpose(arg[0] if kind != "list" else W[0].tolist())), W[0].T)


def test_transpose_of_sympy_matrices() -> None:
    M = sympy.Matrix([[1, 2, 3], [4, 5, 6]])
    assert B.transpose(M) == M.T
    S = sympy.MatrixSymbol("S", 2, 3)
    assert B.transpose(S).shape == (3, 2)


def test_einsum_in_numpy_and_torch() -> None:
    a, b = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    assert np.array_equal(B.einsum("ij,j->i", a, b), a @ b)
    out = B.einsum("ij,j->i", torch.tensor(a), torch.tensor(b))
    assert B.is_torch(out) and np.array_equal(B.to_float(out), a @ b)
    assert not B.is_torch(a) and not B.is_torch(mpmath.mpf(1))


# -- conversions ------------------------------------------------------------------------------------------------------
def test_to_object_keeps_floats_exact_and_reads_strings_as_rationals() -> None:
    out = B.to_object([[0.1, "1/3"], ["0.1", 2]])
    assert out.shape == (2, 2)
    assert out[0, 0] == sympy.Rational(3602879701896397, 36028797018963968)  # the double nearest 1/10
    assert out[0, 1] == sympy.Rational(1, 3) and out[1, 0] == sympy.Rational(1, 10) and out[1, 1] == 2
    assert isinstance(out[1, 1], sympy.Integer)


@pytest.mark.parametrize("dps", [15, 50])
def test_to_object_mp_evaluates_sympy_numbers_to_the_working_precision(dps: int) -> None:
    with mpmath.workdps(dps):
        out = B.to_object([R2, sympy.Rational(1, 3), sympy.pi, 0.1], "mp")
        assert all(isinstance(v, mpmath.mpf) for v in out)
        assert out[0] == mpmath.sqrt(2) and out[1] == mpmath.mpf(1) / 3 and out[2] == +mpmath.pi
        assert out[3] == mpmath.mpf(0.1)



@pytest.mark.parametrize("dps, bits", [(15, 53), (30, 103)])
@pytest.mark.parametrize("below", [1, 4])
def test_to_object_mp_rounds_just_past_a_tie_to_the_nearest(dps: int, bits: int, below: int) -> None:
    """v = 1 + 2^−bits (the midpoint between 1 and the next mpf at ``bits`` bits) + 2^−(bits+12+below): the nearest
    mpf is 1 + 2^−(bits−1). Evaluated with five guard digits (about 16 bits) the excess survives and rounds up;
    with four (about 13 bits) it would be lost and the tie broken to even, down to 1."""
    v = 1 + sympy.Rational(1, 2**bits) + sympy.Rational(1, 2 ** (bits + 12 + below))
    with mpmath.workdps(dps):
        assert mpmath.mp.prec == bits
        assert B.to_object([v], "mp")[0] == 1 + mpmath.mpf(2) ** (1 - bits)

def test_to_float_from_every_system() -> None:
    expected = np.array([[0.5, -1.0], [1 / 3, 2.0]])
    for values in (B.to_object([[0.5, -1], ["1/3", 2]]), B.to_object([[0.5, -1], ["1/3", 2]], "mp"),
                   torch.tensor(expected), expected.tolist()):
        out = B.to_float(values)
        assert out.dtype == np.float64 and np.array_equal(out, expected)
