"""Edges of numerics.networks that the closed-form tests of tests/test_networks.py leave open.

Pinned here: the documented default σ'(0) = 0 of ReLU for every constructor (``Network``, ``diagonal``, and
σ'(0) = a for ``leaky_relu_network``); the open interval (0, 1) of the leaky slope, tested at 0, 1 and −1/2;
the validation messages of weight-sharing indices (not 2-D, negative entries), of ``strided_patches`` at each
edge (stride 0 and 1, kernel 0, 1, input_dim and input_dim + 1) and of ``fully_connected`` with one width; the
number of parameters and the matrices of weight-sharing layers where it differs from their number of rows
(short circulant filters, disjoint patches of length 3); ``diagonal``'s depth (layers, parameters, homogeneity
degree); a leading batch axis of runs in forward, vjp and join (numpy and torch), and a one-layer network's
Jacobian.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics.networks import (
    Dense,
    Network,
    Shared,
    circulant,
    diagonal,
    disjoint_patches,
    fully_connected,
    leaky_relu_network,
    strided_patches,
)

# W1 = [[1, −1], [2, 1]], v = (3, 5), x = (2, 2): hidden unit 1 sits exactly at its kink (z = 0)
KINK_THETA = [1, -1, 2, 1, 3, 5]
KINK_X = [[2, 2]]


def _kink_jacobian(net):
    theta = np.array([sympy.Integer(t) for t in KINK_THETA], dtype=object)
    X = np.array([[sympy.Integer(v) for v in row] for row in KINK_X], dtype=object)
    return net.jacobian(theta, X)[0, 0]


def test_relu_slope_at_zero_defaults_to_zero():
    net = Network((Dense(2, 2), Dense(1, 2)), "relu")
    assert net.relu_slope_at_zero == 0
    J = _kink_jacobian(net)
    assert list(J[:2]) == [0, 0]  # v1·σ'(0)·x with σ'(0) = 0
    assert list(J[2:4]) == [10, 10]  # v2·x for the active unit
    assert list(J[4:]) == [0, 6]  # σ(0) = 0, σ(6) = 6


def test_diagonal_relu_slope_at_zero_defaults_to_zero():
    net = diagonal(2, 2, "relu")
    theta = np.array([0.0, 1.0, 3.0, 5.0])  # u1 = 0: unit 1 at its kink for x1 = 1
    J = net.jacobian(theta, np.array([[1.0, 1.0]]))[0, 0]
    np.testing.assert_array_equal(J, [0.0, 5.0, 0.0, 1.0])
    J_one = diagonal(2, 2, "relu", relu_slope_at_zero=1.0).jacobian(theta, np.array([[1.0, 1.0]]))[0, 0]
    np.testing.assert_array_equal(J_one, [3.0, 5.0, 0.0, 1.0])


def test_leaky_relu_slope_at_zero_is_the_negative_slope_by_default():
    a = sympy.Rational(1, 10)
    J = _kink_jacobian(leaky_relu_network((Dense(2, 2), Dense(1, 2)), a))
    assert list(J[:2]) == [3 * a * 2, 3 * a * 2]  # σ'(0) = a + (1 − a)·0
    half = leaky_relu_network((Dense(2, 2), Dense(1, 2)), a, relu_slope_at_zero=sympy.Rational(1, 2))
    assert list(_kink_jacobian(half)[:2]) == [3 * (a + (1 - a) / 2) * 2] * 2


@pytest.mark.parametrize("slope", [0, 0.0, 1, 1.0, -0.5, 1.5])
def test_leaky_slope_outside_the_open_unit_interval_is_rejected(slope):
    with pytest.raises(ValueError, match="negative slope in"):
        leaky_relu_network((Dense(1, 2),), slope)


@pytest.mark.parametrize("slope", [1e-12, 0.5, 1 - 1e-12, sympy.Rational(99, 100)])
def test_leaky_slope_inside_the_open_unit_interval_is_accepted(slope):
    assert leaky_relu_network((Dense(1, 2),), slope).negative_slope == slope


def test_weight_sharing_index_validation_messages():
    with pytest.raises(ValueError, match="non-negative"):
        Shared(((1, -1), (0, 2)))
    with pytest.raises(ValueError, match="2-D"):
        Shared((1, 2))  # type: ignore[arg-type]
    layer = Shared(((0, 1), (2, 0)))  # zeros are allowed
    np.testing.assert_array_equal(layer.matrix(np.array([7.0, 9.0])), [[0.0, 7.0], [9.0, 0.0]])


def test_short_circulant_filter():
    """circulant(5, 2): (W h)_i = u_1 h_i + u_2 h_{i+1 mod 5}, two parameters for five rows."""
    layer = circulant(5, 2)
    assert layer.n_params == 2 and layer.shape == (5, 5)
    W = layer.matrix(np.array([2.0, 3.0]))
    expected = np.zeros((5, 5))
    for i in range(5):
        expected[i, i], expected[i, (i + 1) % 5] = 2.0, 3.0
    np.testing.assert_array_equal(W, expected)
    full = circulant(4)
    assert full.n_params == 4
    np.testing.assert_array_equal(full.matrix(np.array([1.0, 2.0, 3.0, 4.0]))[1], [4.0, 1.0, 2.0, 3.0])


def test_disjoint_patches_matrix():
    layer = disjoint_patches(3, 2)
    assert layer.n_params == 3 and layer.shape == (2, 6)
    np.testing.assert_array_equal(layer.matrix(np.array([1.0, 2.0, 3.0])),
                                  [[1, 2, 3, 0, 0, 0], [0, 0, 0, 1, 2, 3]])
    net = Network((layer, Dense(1, 2)), "linear")
    assert net.sizes == (3, 2) and net.n_params == 5


def test_strided_patches_edges():
    assert strided_patches(1, 1, 3).n_params == 1  # kernel 1, stride 1
    np.testing.assert_array_equal(strided_patches(1, 1, 3).matrix(np.array([2.0])), 2 * np.eye(3))
    whole = strided_patches(4, 3, 4)  # kernel = input_dim: one window
    np.testing.assert_array_equal(whole.matrix(np.array([1.0, 2.0, 3.0, 4.0])), [[1, 2, 3, 4]])
    assert strided_patches(2, 3, 7).shape == (2, 7)  # windows at 0 and 3
    for kernel, stride, input_dim in ((0, 1, 3), (5, 1, 4), (2, 0, 4), (2, -1, 4)):
        with pytest.raises(ValueError, match="1 ≤ stride and 1 ≤ kernel ≤ input_dim"):
            strided_patches(kernel, stride, input_dim)


def test_fully_connected_needs_two_widths():
    for widths in ([], [3]):
        with pytest.raises(ValueError, match="input and an output width"):
            fully_connected(widths)
    net = fully_connected([3, 2], "linear")
    assert net.depth == 1 and net.n_params == 6


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
def test_diagonal_network_depth(depth):
    net = diagonal(3, depth, "linear")
    assert net.depth == net.degree == depth
    assert net.sizes == (3,) * (depth - 1) + (3,) and net.n_params == 3 * depth
    theta = np.arange(1.0, net.n_params + 1)
    X = np.array([[1.0, -2.0, 0.5]])
    np.testing.assert_allclose(net.forward(2 * theta, X), 2.0 ** depth * net.forward(theta, X), rtol=1e-14)


def test_one_layer_network_jacobian_is_the_input():
    net = fully_connected([3, 2], "relu")
    X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]])
    J = net.jacobian(np.arange(6.0), X)
    assert J.shape == (2, 2, 6)
    np.testing.assert_array_equal(J[1, 1], [0, 0, 0, -1.0, 0.0, 4.0])
    np.testing.assert_array_equal(net.vjp(np.arange(6.0), X, np.array([[1.0, 0.0], [0.0, 2.0]])),
                                  [1, 2, 3, -2, 0, 8])


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_batched_runs_forward_vjp_and_join(backend):
    """θ of shape runs × p: each run's output and gradient is the run's own, and join(matrices) gives θ back."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((5, 3))
    G = rng.standard_normal((4, 5, 2))
    net = fully_connected([3, 4, 2], "relu")
    runs = rng.standard_normal((4, net.n_params))
    if backend == "torch":
        import torch
        convert, back = torch.tensor, (lambda t: t.numpy())
    else:
        convert, back = np.asarray, np.asarray
    out = back(net.forward(convert(runs), convert(X)))
    grads = back(net.vjp(convert(runs), convert(X), convert(G)))
    assert out.shape == (4, 5, 2) and grads.shape == (4, net.n_params)
    for r in range(4):
        np.testing.assert_allclose(out[r], net.forward(runs[r], X), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(grads[r], net.vjp(runs[r], X, G[r]), rtol=1e-13, atol=1e-13)
    matrices = net.matrices(convert(runs))
    assert tuple(matrices[0].shape) == (4, 4, 3)
    np.testing.assert_array_equal(back(net.join(matrices)), runs)
    # diagonal layers take their vectors, the dense output row its (runs × 1 × d) matrix
    deep = diagonal(3, 3, "relu")
    deep_runs = rng.standard_normal((4, deep.n_params))
    parts = deep.split(convert(deep_runs))
    parts[-1] = deep.matrices(convert(deep_runs))[-1]
    assert tuple(parts[-1].shape) == (4, 1, 3)
    np.testing.assert_array_equal(back(deep.join(parts)), deep_runs)
    # one run: flat θ of one vector
    np.testing.assert_array_equal(back(net.join(net.matrices(convert(runs[0])))), runs[0])
