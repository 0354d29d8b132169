"""One code path for three number systems.

Networks and losses are written once against these helpers and then run on
* float64 numpy arrays,
* numpy object arrays of ``mpmath.mpf`` (high precision) or sympy numbers (exact arithmetic),
* torch tensors (CPU or CUDA, batched sweeps).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import mpmath
import numpy as np
import sympy

Array = Any  # np.ndarray | torch.Tensor


def is_torch(x: Any) -> bool:
    """Whether ``x`` is a torch tensor (decided by its type's module, without importing torch)."""
    return type(x).__module__.startswith("torch")


def _torch():
    import torch

    return torch


def diag_embed(u: Array) -> Array:
    """Square matrices with ``u`` on the diagonal (last axis of ``u`` becomes the diagonal)."""
    if is_torch(u):
        return _torch().diag_embed(u)
    u = np.asarray(u)
    out = np.zeros(u.shape + u.shape[-1:], dtype=u.dtype)
    if u.dtype == object:
        out[...] = 0
    idx = np.arange(u.shape[-1])
    out[..., idx, idx] = u
    return out


def diagonal(G: Array) -> Array:
    """The diagonal of the last two axes."""
    if is_torch(G):
        return _torch().diagonal(G, dim1=-2, dim2=-1)
    return np.diagonal(G, axis1=-2, axis2=-1).copy()


def einsum(spec: str, *operands: Array) -> Array:
    """``einsum`` in torch when any operand is a torch tensor, else in numpy."""
    if any(is_torch(x) for x in operands):
        return _torch().einsum(spec, *operands)
    return np.einsum(spec, *operands)


@functools.lru_cache(maxsize=65536)
def _irrational_positive(value: sympy.Expr) -> bool:
    return bool(value > 0)


def _is_positive(value: Any) -> bool:
    """``bool(value > 0)``, remembered for irrational sympy numbers: exact networks meet the same few algebraic
    numbers (√2/2, ...) thousands of times, and sympy decides each comparison anew by numerical evaluation
    (a third of a millisecond each)."""
    if isinstance(value, sympy.Expr) and not value.is_Rational:
        return _irrational_positive(value)
    return bool(value > 0)


def positive(z: Array) -> Array:
    """Indicator of z > 0, in z's own number system (1/0 entries)."""
    if type(z) is np.ndarray and z.dtype.kind == "f":
        return (z > 0).astype(z.dtype)
    if is_torch(z):
        return (z > 0).to(z.dtype)
    z = np.asarray(z)
    if z.dtype == object:
        return np.vectorize(lambda v: 1 if _is_positive(v) else 0, otypes=[object])(z)
    return (z > 0).astype(z.dtype)


def relu_derivative(z: Array, slope_at_zero: float) -> Array:
    """σ'(z) with the stated convention at z = 0 (0 by default, as in paper 000)."""
    if type(z) is np.ndarray and z.dtype.kind == "f":
        return (z > 0).astype(z.dtype) + slope_at_zero * (z == 0).astype(z.dtype)
    if is_torch(z):
        return (z > 0).to(z.dtype) + slope_at_zero * (z == 0).to(z.dtype)
    z = np.asarray(z)
    if z.dtype == object:
        return np.vectorize(lambda v: 1 if _is_positive(v) else (slope_at_zero if v == 0 else 0),
                            otypes=[object])(z)
    return (z > 0).astype(z.dtype) + slope_at_zero * (z == 0).astype(z.dtype)


def transpose(W: Array) -> Array:
    """Swap the last two axes (sympy matrices and matrix expressions: their transpose)."""
    if type(W) is np.ndarray:  # the common case first: flows call this 10⁵ times on tiny arrays
        return W.swapaxes(-1, -2)
    if is_torch(W):
        return W.transpose(-1, -2)
    if isinstance(W, (sympy.MatrixBase, sympy.MatrixExpr)):
        return W.T
    return np.swapaxes(W, -1, -2)


def _exact(v: Any) -> sympy.Basic:
    if isinstance(v, (float, np.floating)):
        return sympy.Rational(float(v))  # the exact binary rational the float stores
    if isinstance(v, str):
        return sympy.sympify(v, rational=True)
    return sympy.sympify(v)


def _mp(v: Any) -> mpmath.mpf:
    if isinstance(v, sympy.Basic):
        return mpmath.mpf(sympy.N(v, mpmath.mp.dps + 5))
    return mpmath.mpf(v)


def to_object(values: Iterable[Any] | Array, kind: str = "exact") -> np.ndarray:
    """Object array of sympy numbers (``kind='exact'``) or mpmath mpf (``kind='mp'``); floats stay exact."""
    convert = {"exact": _exact, "mp": _mp}[kind]
    arr = np.asarray(values, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for index, value in np.ndenumerate(arr):
        out[index] = convert(value)
    return out


def to_float(values: Array) -> np.ndarray:
    """float64 copy of numbers from any of the three systems."""
    if is_torch(values):
        return values.detach().cpu().numpy().astype(np.float64)
    return np.asarray(np.vectorize(float, otypes=[np.float64])(np.asarray(values, dtype=object)))
