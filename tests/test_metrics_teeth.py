"""Edges of numerics.metrics that the closed-form tests leave open.

Pinned here: empty matrices (no singular values: norms +0.0, numerical rank 0, direction-only metrics raise
ZeroInputError, no top singular pair), the strict threshold of numerical_rank (a singular value exactly at
rtol·σ1 is not counted), the sign convention of the top pair exactly at its 1e-9 tie tolerance and for a
negative largest entry, alignment clamped to [0, 1] where rounding puts |vᵀu| above 1, layer_alignments pairing
each layer with the next one, and the angle's accuracy for tiny angles in many dimensions (where the second
projection matters).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from numerics.metrics import (
    ZeroInputError,
    _fix_signs,
    alignment,
    angle,
    frobenius_norm,
    layer_alignments,
    numerical_rank,
    rank_one_distance,
    singular_values,
    spectral_norm,
    spectral_to_frobenius,
    stable_rank,
    top_singular_pair,
)

EMPTY_SHAPES = [(0, 3), (3, 0), (0, 0)]


# -- empty matrices -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", EMPTY_SHAPES)
def test_empty_matrix_has_zero_norms_and_rank(shape):
    W = np.zeros(shape)
    assert singular_values(W).size == 0
    for norm in (spectral_norm(W), frobenius_norm(W)):
        assert norm == 0.0 and math.copysign(1.0, norm) == 1.0  # +0.0, a norm is never negative
    assert numerical_rank(W) == 0


@pytest.mark.parametrize("shape", EMPTY_SHAPES)
def test_empty_matrix_has_no_direction(shape):
    W = np.zeros(shape)
    for metric in (stable_rank, spectral_to_frobenius, rank_one_distance):
        with pytest.raises(ZeroInputError):
            metric(W)
    with pytest.raises(ValueError, match="has no singular pair"):
        top_singular_pair(W)


# -- numerical rank ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("diagonal, rtol, rank", [
    ([1.0, 0.5], 0.5, 1),  # σ2 = rtol·σ1 exactly: not above it
    ([1.0, 0.5], np.nextafter(0.5, 0.0), 2),
    ([1.0, 0.0], 0.0, 1),  # rtol 0: only the non-zero values count
    ([4.0, 1.0, 0.25], 0.25, 1),
    ([4.0, 1.0, 0.25], 0.0625, 2),
])
def test_numerical_rank_counts_values_strictly_above_the_threshold(diagonal, rtol, rank):
    assert numerical_rank(np.diag(diagonal), rtol=rtol) == rank


# -- the sign of the top singular pair --------------------------------------------------------------------------

def test_sign_tie_tolerance_is_closed_at_its_edge():
    """Entries within a relative 1e-9 of the largest magnitude tie, and the lowest index wins: exactly at the edge
    (1 − 1e-9)·max the first entry decides; one float below it the larger (negative) entry decides."""
    edge = (1.0 - 1e-9) * 1.0
    assert _fix_signs(np.array([edge, -1.0])[None])[0] == 1.0
    assert _fix_signs(np.array([np.nextafter(edge, 0.0), -1.0])[None])[0] == -1.0
    assert _fix_signs(np.array([-edge, 1.0])[None])[0] == -1.0


def test_negative_largest_entry_flips_the_pair():
    assert _fix_signs(np.array([0.6, -0.8])[None])[0] == -1.0
    assert _fix_signs(np.array([-0.6, 0.8])[None])[0] == 1.0


@pytest.mark.parametrize("seed", range(12))
def test_top_pair_largest_entry_is_positive_whatever_lapack_returns(seed):
    W = np.random.default_rng(seed).normal(size=(2 + seed % 4, 3))
    for matrix in (W, -W):
        sigma, u, v = top_singular_pair(matrix)
        assert u[np.argmax(np.abs(u))] > 0
        np.testing.assert_allclose(matrix @ v, sigma * u, atol=1e-13)


# -- alignment --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(30))
def test_alignment_of_layers_sharing_a_factor_is_one_and_never_above(seed):
    """W = a bᵀ and W_next = c aᵀ: v_next = ±a/‖a‖ = ±u, so the alignment is 1; rounding of the two SVDs can put
    |v_nextᵀu| at 1 + 2⁻⁵², which the documented range [0, 1] clamps."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=2 + seed % 6)
    W, W_next = np.outer(a, rng.normal(size=3)), np.outer(rng.normal(size=2), a)
    value = alignment(W_next, W)
    assert value <= 1.0
    assert value == pytest.approx(1.0, abs=1e-14)


def test_layer_alignments_pair_each_layer_with_the_next():
    """Rank-one layers W_k = a_k b_kᵀ of widths 2 → 3 → 4 → 5: alignment(W_{k+1}, W_k) = |cos(b_{k+1}, a_k)|."""
    a1, b1 = np.array([1.0, 2.0, 2.0]), np.array([1.0, 1.0])
    a2, b2 = np.array([1.0, 0.0, 0.0, 0.0]), np.array([0.0, 3.0, 4.0])
    a3, b3 = np.array([1.0, 1.0, 1.0, 1.0, 1.0]), np.array([3.0, 4.0, 0.0, 0.0])
    layers = [np.outer(a1, b1), np.outer(a2, b2), np.outer(a3, b3)]
    np.testing.assert_allclose(layer_alignments(layers), [14 / 15, 3 / 5], rtol=1e-13)
    assert layer_alignments(layers[:1]).size == 0


# -- tiny angles in many dimensions ------------------------------------------------------------------------------

def mp_angle(a: np.ndarray, b: np.ndarray) -> mpmath.mpf:
    with mpmath.workdps(50):
        x, y = [mpmath.mpf(float(v)) for v in a], [mpmath.mpf(float(v)) for v in b]
        dot = mpmath.fsum(p * q for p, q in zip(x, y))
        cross_squared = mpmath.fsum(p * p for p in x) * mpmath.fsum(q * q for q in y) - dot**2
        return mpmath.atan2(mpmath.sqrt(max(cross_squared, 0)), dot)


@pytest.mark.parametrize("n", [2, 3, 7, 50, 200])
@pytest.mark.parametrize("theta", [1e-14, 1e-12])
def test_tiny_angles_keep_their_digits_in_any_dimension(n, theta):
    """The documented accuracy, a few ulps relative even for tiny angles: after b − c·a the residual still holds
    an O(ε‖b‖) part along a, which only the second projection (divided by ‖a‖²) removes."""
    rng = np.random.default_rng(n)
    a = rng.normal(size=n)
    t = rng.normal(size=n)
    t -= (t @ a) / (a @ a) * a
    b = math.cos(theta) * a / np.linalg.norm(a) + math.sin(theta) * t / np.linalg.norm(t)
    reference = mp_angle(a, b)
    assert abs(angle(a, b) - reference) <= 1e-14 * reference
