"""Linear tensor networks: the three encodings agree with the layered networks they encode."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.networks import circular_convolutional, diagonal, fully_connected
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)


def test_diagonal_encoding():
    rng = np.random.default_rng(0)
    tensor, layered = diagonal_tensor(4, 3), diagonal(4, 3, "linear")
    theta, X = rng.normal(size=12), rng.normal(size=(5, 4))
    np.testing.assert_allclose(tensor.forward(theta, X), layered.forward(theta, X), rtol=1e-12)
    np.testing.assert_allclose(tensor.beta(theta), np.prod(theta.reshape(3, 4), axis=0), rtol=1e-12)


@pytest.mark.parametrize("d,depth", [(5, 2), (5, 3), (4, 4)])
def test_full_length_convolution_encoding(d, depth):
    rng = np.random.default_rng(d + depth)
    tensor, layered = convolutional_tensor(d, [d] * (depth - 1)), circular_convolutional(d, depth)
    theta, X = rng.normal(size=d * depth), rng.normal(size=(3, d))
    np.testing.assert_allclose(tensor.forward(theta, X), layered.forward(theta, X), rtol=1e-11)


def test_short_filter_encoding_matches_shifts():
    # k_1 = 2: M(x) = [xᵀ; x_leftᵀ] with x_left = roll(x, -1)
    x = np.arange(1.0, 6.0)
    M = convolutional_tensor(5, [2]).data_tensor(x)
    np.testing.assert_array_equal(M, np.stack([x, np.roll(x, -1)]))


@pytest.mark.parametrize("widths", [(3, 2), (2, 3, 2), (2, 2, 2, 1)])
def test_fully_connected_encoding_column_major(widths):
    rng = np.random.default_rng(len(widths))
    tensor = fully_connected_tensor(widths)
    mats = [rng.normal(size=(widths[ell], widths[ell + 1])) for ell in range(len(widths) - 1)]
    w_last = rng.normal(size=widths[-1])
    theta = np.concatenate([m.ravel(order="F") for m in mats] + [w_last])
    X = rng.normal(size=(4, widths[0]))
    product = X
    for m in mats:
        product = product @ m
    np.testing.assert_allclose(tensor.forward(theta, X)[:, 0], product @ w_last, rtol=1e-12)
    # the same function as the layered network with transposed weights
    layered = fully_connected(list(widths) + [1], "linear")
    layered_theta = np.concatenate([m.T.ravel() for m in mats] + [w_last])
    np.testing.assert_allclose(layered.forward(layered_theta, X), tensor.forward(theta, X), rtol=1e-12)


def test_gradient_and_norm_balance():
    # d/dt ‖v_l‖² = 2 M(−Xᵀr)∘(v_1..v_L) is the same for every layer (App. C.1 of paper 002)
    rng = np.random.default_rng(9)
    tensor = convolutional_tensor(4, [4, 4])
    theta, X, G = rng.normal(size=12), rng.normal(size=(3, 4)), rng.normal(size=(3, 1))
    grad = tensor.vjp(theta, X, G)
    h = 1e-6
    numeric = np.array([((tensor.forward(theta + h * e, X) - tensor.forward(theta - h * e, X)) * G).sum() / (2 * h)
                        for e in np.eye(12)])
    np.testing.assert_allclose(grad, numeric, atol=1e-8)
    rates = [v @ g for v, g in zip(tensor.split(theta), tensor.split(grad))]
    np.testing.assert_allclose(rates, rates[0], rtol=1e-12)


def test_flow_engine_integrates_eq_7():
    # the engine's descent direction is the formula of eq. (7) with the exponential loss's residuals (paper 002)
    from numerics.losses import Objective
    from theorems.tensor_networks.encodings import flow_field_formula

    rng = np.random.default_rng(3)
    for model in (convolutional_tensor(4, [2, 4]), fully_connected_tensor([3, 2, 2])):
        theta0, X = rng.normal(size=model.n_params), rng.normal(size=(3, model.d_in))
        y = np.sign(rng.normal(size=3))
        residual = -y * np.exp(-y * (X @ model.beta(theta0)))
        formula = np.concatenate([flow_field_formula(model.basis, model.split(theta0), X.T @ residual, layer)
                                  for layer in range(model.degree)])
        engine = Objective(model, X, y, "exponential").descent(theta0)
        np.testing.assert_allclose(engine, formula, rtol=0, atol=1e-13 * np.max(np.abs(formula)))


# -- the compiled β(θ) and ∂β/∂θ against the einsum contractions ------------------------------------------------
def reference_beta_vjp(net: LinearTensorNetwork, theta: np.ndarray, X: np.ndarray, G: np.ndarray):
    """β, the vjp and the per-sample Jacobian through the einsum contractions (object θ would take them too)."""
    vectors = net.split(theta)
    beta = net._contract(net.basis, vectors, None)
    tensor = net.data_tensor(X.T @ G[:, 0])[None]
    vjp = np.concatenate([net._contract(tensor, vectors, ell)[0] for ell in range(net.degree)])
    rows = [np.concatenate([net._contract(net.data_tensor(x)[None], vectors, ell)[0] for ell in range(net.degree)])
            for x in X]
    return beta, vjp, np.stack(rows)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.lists(st.integers(1, 4), min_size=1, max_size=3), st.floats(0.0, 0.9),
       st.integers(0, 2**32 - 1))
def test_the_compiled_beta_matches_the_contractions(d: int, sizes: list[int], sparsity: float, seed: int) -> None:
    """Any basis (dense, sparse, all zero), any degree: β, the vjp and the Jacobian to rounding."""
    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((d, *sizes)) * (rng.random((d, *sizes)) >= sparsity)
    net = LinearTensorNetwork(basis)
    theta, X, G = rng.standard_normal(net.n_params), rng.standard_normal((3, d)), rng.standard_normal((3, 1))
    beta, vjp, jacobian = reference_beta_vjp(net, theta, X, G)
    scale = 1 + np.max(np.abs(basis), initial=0.0) * (1 + np.max(np.abs(theta))) ** len(sizes)
    assert np.allclose(net.beta(theta), beta, rtol=0, atol=1e-13 * scale)
    assert np.allclose(net.vjp(theta, X, G), vjp, rtol=0, atol=1e-12 * scale)
    assert np.allclose(net.jacobian(theta, X)[:, 0, :], jacobian, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("net", [diagonal_tensor(3, 3), convolutional_tensor(5, [3, 4]),
                                 fully_connected_tensor([3, 2, 2])],
                         ids=["diagonal", "convolutional", "fully connected"])
def test_the_compiled_jacobian_is_the_derivative_of_beta(net: LinearTensorNetwork) -> None:
    """∂β/∂θ against central differences of the compiled β (a wrong index or a missing factor shows at 1e-6)."""
    rng = np.random.default_rng(5)
    theta = rng.standard_normal(net.n_params)
    beta, jacobian = net.compiled_beta(theta, True)
    assert jacobian.shape == (net.d_in, net.n_params)
    h = 1e-6
    columns = [(net.compiled_beta(theta + h * e)[0] - net.compiled_beta(theta - h * e)[0]) / (2 * h)
               for e in np.eye(net.n_params)]
    assert np.max(np.abs(jacobian - np.array(columns).T)) < 1e-8
    assert np.array_equal(beta, net.beta(theta)) and net.compiled_beta(theta)[1].size == 0


def test_the_integer_assumption_1_check_needs_orthonormal_factors_and_a_full_rank_s() -> None:
    """Each condition of Assumption 1 refuses on its own: factors 2I reproduce the tensor 2M with S = I but are
    not orthonormal, and a rank-deficient S reproduces its own (degenerate) tensor with U_l = I."""
    from theorems.tensor_networks.common import Decomposition
    from theorems.tensor_networks.encodings import _exact_identity_check

    identity = np.eye(3, dtype=int)
    assert _exact_identity_check(diagonal_tensor(3, 2), Decomposition(identity, (identity, identity)))
    doubled = LinearTensorNetwork(2.0 * diagonal_tensor(3, 2).basis)
    assert _exact_identity_check(doubled, Decomposition(2 * identity, (identity, identity)))
    assert not _exact_identity_check(doubled, Decomposition(identity, (2 * identity, identity)))
    merged = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]])  # x_1 and x_2 share a term: rank 2 < d = 3
    degenerate = LinearTensorNetwork(np.einsum("jk,aj,bj->kab", merged, identity, identity).astype(float))
    assert not _exact_identity_check(degenerate, Decomposition(merged, (identity, identity)))
