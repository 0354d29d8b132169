"""Spectral and directional metrics of weight matrices, in float64.

Layers are matrices W_k ∈ R^{d_k × d_{k−1}} (output × input, as in :mod:`numerics.networks`). Inputs may be
numpy arrays, torch tensors or object arrays of exact numbers; everything is converted to float64 first.

Zero inputs. Quantities that carry a scale (norms, singular values, σ1 of the top pair) are 0 for a zero
matrix. Quantities that only depend on a direction (stable rank, spectral-to-Frobenius ratio, rank-one
distance, alignment, angle) are undefined there and raise :class:`ZeroInputError` instead of returning NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from numerics import backend as B
from numerics.backend import Array


class ZeroInputError(ValueError):
    """A direction-only metric was asked of a zero matrix or vector."""


def _as_float_array(values: Array) -> np.ndarray:
    """float64 numpy copy of a numpy array, torch tensor or object array of numbers."""
    if B.is_torch(values):
        return B.to_float(values)
    array = np.asarray(values)
    return array.astype(np.float64) if array.dtype != object else B.to_float(array)


def _as_matrix(W: Array) -> np.ndarray:
    matrix = _as_float_array(W)
    if matrix.ndim != 2:
        raise ValueError(f"expected a matrix, got an array of shape {matrix.shape}")
    return matrix


def singular_values(W: Array) -> np.ndarray:
    """All min(m, n) singular values, largest first."""
    return np.linalg.svd(_as_matrix(W), compute_uv=False)


def spectral_norm(W: Array) -> float:
    """‖W‖_σ, the largest singular value (0 for an empty or zero matrix)."""
    values = singular_values(W)
    return float(values[0]) if values.size else 0.0


def frobenius_norm(W: Array) -> float:
    """‖W‖_F, scaled by the largest entry first so that huge or tiny entries neither overflow nor underflow."""
    matrix = _as_float_array(W)
    largest = float(np.max(np.abs(matrix))) if matrix.size else 0.0
    if largest == 0.0:
        return 0.0
    return largest * float(np.linalg.norm(matrix / largest))


def _relative_singular_values(W: Array) -> np.ndarray:
    """σ_i / σ_1 (so σ_1 ↦ 1); raises for the zero matrix."""
    values = singular_values(W)
    if values.size == 0 or values[0] == 0.0:
        raise ZeroInputError("this metric depends only on the direction of W and is undefined for W = 0")
    return values / values[0]


def stable_rank(W: Array) -> float:
    """‖W‖_F² / ‖W‖_σ², between 1 and rank(W); raises :class:`ZeroInputError` for W = 0."""
    return float(np.sum(_relative_singular_values(W) ** 2))


def spectral_to_frobenius(W: Array) -> float:
    """‖W‖_σ / ‖W‖_F = stable_rank(W)^{-1/2}, in [rank(W)^{-1/2}, 1]; raises for W = 0."""
    return 1.0 / math.sqrt(stable_rank(W))


def numerical_rank(W: Array, rtol: float = 1e-10) -> int:
    """Number of singular values above rtol·σ_1 (0 for the zero matrix)."""
    values = singular_values(W)
    if values.size == 0 or values[0] == 0.0:
        return 0
    return int(np.sum(values > rtol * values[0]))


def _fix_signs(u: np.ndarray) -> np.ndarray:
    """Per row of u (k × m): +1 or −1 so that the row's first entry within a relative 1e-9 of its largest magnitude
    becomes positive."""
    magnitudes = np.abs(u)
    first_large = np.argmax(magnitudes >= (1.0 - 1e-9) * magnitudes.max(axis=1, keepdims=True), axis=1)
    return np.where(u[np.arange(len(u)), first_large] >= 0, 1.0, -1.0)


def top_singular_pair(W: Array) -> tuple[float, np.ndarray, np.ndarray]:
    """(σ1, u1, v1) with W v1 = σ1 u1 and unit u1, v1.

    Sign convention: (u1, v1) ↦ (−u1, −v1) is fixed by making the largest-magnitude entry of u1 positive
    (ties, within a relative 1e-9, go to the lowest index). When σ1 = σ2 the pair is not unique and is
    whichever LAPACK returns. For W = 0 every unit pair is singular; the first standard basis vectors are
    returned with σ1 = 0.
    """
    matrix = _as_matrix(W)
    if 0 in matrix.shape:
        raise ValueError(f"a matrix of shape {matrix.shape} has no singular pair")
    (sigma,), (u,), (v,) = top_singular_pairs(matrix[None])
    return float(sigma), u, v


def top_singular_pairs(Ws: Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`top_singular_pair` of every matrix of a stack (k × m × n): σ1 (k), u1 (k × m), v1 (k × n), from one
    batched SVD (LAPACK's routine on each matrix: the same numbers as one SVD per matrix), with the same sign
    convention and the same answer for zero matrices (:func:`top_singular_pair` is this on a stack of one)."""
    stack = _as_float_array(Ws)
    if stack.ndim != 3:
        raise ValueError(f"expected a stack of matrices, got an array of shape {stack.shape}")
    _, m, n = stack.shape
    if m == 0 or n == 0:
        raise ValueError(f"matrices of shape {(m, n)} have no singular pair")
    U, S, Vt = np.linalg.svd(stack, full_matrices=False)
    u, v = U[:, :, 0], Vt[:, 0, :]
    signs = _fix_signs(u)[:, None]
    sigma, u, v = S[:, 0].copy(), signs * u, signs * v
    zero = ~np.any(stack, axis=(1, 2))
    sigma[zero], u[zero], v[zero] = 0.0, np.eye(m)[0], np.eye(n)[0]
    return sigma, u, v


def alignment(W_next: Array, W: Array) -> float:
    """|v_{k+1}ᵀ u_k| ∈ [0, 1]: top right singular vector of W_{k+1} against top left singular vector of W_k.

    Raises :class:`ZeroInputError` if either matrix is zero (its top singular vectors are undefined).
    """
    upper, lower = _as_matrix(W_next), _as_matrix(W)
    if upper.shape[1] != lower.shape[0]:
        raise ValueError(f"W_next {upper.shape} cannot follow W {lower.shape}: inner dimensions differ")
    if not np.any(upper) or not np.any(lower):
        raise ZeroInputError("alignment is undefined when a layer is the zero matrix")
    _, _, v_next = top_singular_pair(upper)
    _, u, _ = top_singular_pair(lower)
    return min(1.0, abs(float(v_next @ u)))


def layer_alignments(layers: Sequence[Array]) -> np.ndarray:
    """alignment(W_{k+1}, W_k) for k = 1, …, L−1 of layers [W_1, …, W_L]."""
    return np.array([alignment(layers[k + 1], layers[k]) for k in range(len(layers) - 1)])


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp splitting: x = hi + lo exactly, each half with at most 26 significant bits."""
    scaled = 134217729.0 * x  # 2^27 + 1
    hi = scaled - (scaled - x)
    return hi, x - hi


def _two_product(c: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's error-free product: c·x = p + e exactly (barring overflow and underflow)."""
    p = c * x
    c_hi, c_lo = _split(np.full_like(x, c))
    x_hi, x_lo = _split(x)
    e = ((c_hi * x_hi - p) + c_hi * x_lo + c_lo * x_hi) + c_lo * x_lo
    return p, e


def _scale_to_unit(v: np.ndarray) -> np.ndarray:
    """v times a power of two (exact) so that its largest entry lies in [0.5, 1)."""
    _, exponent = np.frexp(np.max(np.abs(v)))
    return np.ldexp(v, -int(exponent))


def angle(a: Array, b: Array) -> float:
    """The angle between a and b (flattened) in [0, π], accurate to a few ulps relative even for tiny angles.

    arccos(⟨a, b⟩/‖a‖‖b‖) loses all digits below ~1e-8. Instead θ = atan2(‖b_⊥‖, ⟨b, â⟩) with the
    component b_⊥ of b orthogonal to a computed as b − c·a using an error-free product (so the cancellation
    is exact), followed by one more projection that removes the O(ε‖b‖) error left along a.
    Raises :class:`ZeroInputError` if a or b is zero.
    """
    x, y = _as_float_array(a).ravel(), _as_float_array(b).ravel()
    if x.shape != y.shape:
        raise ValueError(f"vectors of different sizes {x.size} and {y.size}")
    if not np.any(x) or not np.any(y):
        raise ZeroInputError("the angle with a zero vector is undefined")
    x, y = _scale_to_unit(x), _scale_to_unit(y)
    xx = float(x @ x)
    coefficient = float(x @ y) / xx
    p, e = _two_product(coefficient, x)
    residual = (y - p) - e
    residual = residual - (float(x @ residual) / xx) * x
    return math.atan2(float(np.linalg.norm(residual)), coefficient * math.sqrt(xx))


def rank_one_distance(W: Array) -> float:
    """‖W/‖W‖_F − u1 v1ᵀ‖_F = sqrt(2(1 − σ1/‖W‖_F)), in [0, sqrt(2)); raises for W = 0.

    Evaluated as sqrt(2 Σ_{i≥2} σ_i² / (‖W‖_F (‖W‖_F + σ1))) so that nearly rank-one matrices keep their digits.
    """
    relative = _relative_singular_values(W)
    frobenius = math.sqrt(float(np.sum(relative**2)))
    tail = float(np.sum(relative[1:] ** 2))
    return math.sqrt(2.0 * tail / (frobenius * (frobenius + 1.0)))
