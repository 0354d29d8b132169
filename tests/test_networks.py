"""Networks against closed forms, across the three number systems."""

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import backend as B
from numerics.networks import (
    Dense,
    Diagonal,
    Network,
    Shared,
    circular_convolutional,
    diagonal,
    disjoint_patches,
    fully_connected,
    leaky_relu_network,
    scalar_outputs,
    strided_patches,
)

ARCHITECTURES = {
    "fc-relu": lambda: fully_connected([3, 4, 2], "relu"),
    "fc-linear-deep": lambda: fully_connected([3, 2, 3, 1], "linear"),
    "fc-relu-deep": lambda: fully_connected([2, 3, 3, 1], "relu"),
    "diag-relu": lambda: diagonal(3, 3, "relu"),
    "diag-linear": lambda: diagonal(4, 2, "linear"),
    "circular-conv": lambda: circular_convolutional(4, 3),
    "patches-relu": lambda: Network((disjoint_patches(2, 2), Dense(1, 2)), "relu"),
    "fc-leaky-deep": lambda: leaky_relu_network((Dense(3, 2), Dense(3, 3), Dense(1, 3)), 0.1),
    "overlapping-patches-relu": lambda: Network((strided_patches(3, 1, 5), Dense(1, 3)), "relu"),
}


def _random_instance(name, seed=0, n=5):
    net = ARCHITECTURES[name]()
    rng = np.random.default_rng(seed)
    return net, rng.normal(size=net.n_params), rng.normal(size=(n, net.d_in))


def _central_difference_jacobian(net, theta, X, h=1e-6):
    columns = [(net.forward(theta + h * e, X) - net.forward(theta - h * e, X)) / (2 * h)
               for e in np.eye(net.n_params)]
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_jacobian_matches_finite_differences(name):
    net, theta, X = _random_instance(name)
    J = net.jacobian(theta, X)
    assert J.shape == (X.shape[0], net.d_out, net.n_params)
    np.testing.assert_allclose(J, _central_difference_jacobian(net, theta, X), atol=1e-8)


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_vjp_is_jacobian_transpose(name):
    net, theta, X = _random_instance(name, seed=1)
    G = np.random.default_rng(2).normal(size=(X.shape[0], net.d_out))
    np.testing.assert_allclose(net.vjp(theta, X, G), np.einsum("no,nop->p", G, net.jacobian(theta, X)),
                               atol=1e-13)


@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_backends_agree(name):
    import torch  # imported here: collection stays free of torch's 2 s import
    net, theta, X = _random_instance(name, seed=3)
    reference_out, reference_jac = net.forward(theta, X), net.jacobian(theta, X)
    t_out = net.forward(torch.tensor(theta), torch.tensor(X)).numpy()
    t_jac = net.jacobian(torch.tensor(theta), torch.tensor(X)).numpy()
    np.testing.assert_allclose(t_out, reference_out, atol=1e-12)
    np.testing.assert_allclose(t_jac, reference_jac, atol=1e-12)
    with mpmath.workdps(30):
        m_out = B.to_float(net.forward(B.to_object(theta, "mp"), B.to_object(X, "mp")))
        m_jac = B.to_float(net.jacobian(B.to_object(theta, "mp"), B.to_object(X, "mp")))
    np.testing.assert_allclose(m_out, reference_out, atol=1e-12)
    np.testing.assert_allclose(m_jac, reference_jac, atol=1e-12)


def test_exact_arithmetic_is_exact():
    net = fully_connected([2, 2, 1], "relu")
    theta = B.to_object(["1/3", "sqrt(2)", "-1", "1/2", "2", "-3/7"])
    X = B.to_object([[1, "1/4"], [-1, "1/4"]])
    out = net.forward(theta, X)
    # neuron 1: (1/3)x1 + sqrt(2)x2; neuron 2: -x1 + x2/2
    expected = [2 * (sympy.Rational(1, 3) + sympy.sqrt(2) / 4),
                2 * sympy.Max(0, -sympy.Rational(1, 3) + sympy.sqrt(2) / 4)
                - sympy.Rational(3, 7) * (1 + sympy.Rational(1, 8))]
    assert [sympy.simplify(out[i, 0] - expected[i]) for i in range(2)] == [0, 0]


def test_relu_derivative_at_kink_is_zero_by_convention():
    import torch  # imported here: collection stays free of torch's 2 s import
    # integer data with w·x = 0 exactly for neuron 1 on sample 1
    net = fully_connected([2, 2, 1], "relu")
    W1 = np.array([[1.0, -1.0], [2.0, 1.0]])
    v = np.array([3.0, 5.0])
    theta = np.concatenate([W1.ravel(), v])
    X = np.array([[2.0, 2.0], [1.0, 0.0]])
    assert net.preactivations(theta, X)[0][0, 0] == 0.0
    J = net.jacobian(theta, X)[:, 0, :]
    # sample 1: neuron 1 is at its kink, so its incoming-weight block gets σ'(0) = 0 and σ(0) = 0 for v_1
    np.testing.assert_array_equal(J[0, :2], [0.0, 0.0])
    assert J[0, 4] == 0.0
    np.testing.assert_array_equal(J[0, 2:4], 5.0 * X[0])
    # torch's relu uses the same convention
    t = torch.tensor(theta, requires_grad=True)
    out = net.forward(t, torch.tensor(X))[0, 0]
    out.backward()
    np.testing.assert_array_equal(t.grad.numpy(), J[0])
    # a network with the other convention σ'(0) = 1
    net_one = fully_connected([2, 2, 1], "relu", relu_slope_at_zero=1.0)
    np.testing.assert_array_equal(net_one.jacobian(theta, X)[0, 0, :2], 3.0 * X[0])


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(sorted(ARCHITECTURES)), seed=st.integers(0, 10_000),
       scale=st.floats(0.1, 10.0))
def test_homogeneity_and_euler_identity(name, seed, scale):
    net, theta, X = _random_instance(name, seed=seed)
    out = net.forward(theta, X)
    np.testing.assert_allclose(net.forward(scale * theta, X), scale ** net.degree * out, rtol=1e-10, atol=1e-10)
    # Euler: ⟨θ, ∇_θ Φ⟩ = degree · Φ (holds at every point with σ'(0)=0, since σ'(z) z = σ(z))
    np.testing.assert_allclose(np.einsum("nop,p->no", net.jacobian(theta, X), theta), net.degree * out,
                               rtol=1e-10, atol=1e-10)


def test_diagonal_linear_network_is_hadamard_product():
    net = diagonal(3, 4, "linear")
    rng = np.random.default_rng(4)
    theta, X = rng.normal(size=net.n_params), rng.normal(size=(6, 3))
    beta = np.prod(np.stack(net.split(theta)), axis=0)
    np.testing.assert_allclose(net.forward(theta, X)[:, 0], X @ beta, rtol=1e-12)


def test_circulant_is_circular_correlation():
    net = circular_convolutional(5, 2)
    rng = np.random.default_rng(5)
    w, v, x = rng.normal(size=5), rng.normal(size=5), rng.normal(size=5)
    correlation = np.array([sum(x[(i + j) % 5] * w[j] for j in range(5)) for i in range(5)])
    np.testing.assert_allclose(net.forward(np.concatenate([w, v]), x[None])[0, 0], correlation @ v, rtol=1e-12)


def test_weight_sharing_validation():
    with pytest.raises(ValueError, match="every parameter"):
        Shared(((1, 3), (0, 1)))
    with pytest.raises(ValueError, match="do not chain"):
        Network((Dense(3, 2), Dense(1, 2)))
    with pytest.raises(ValueError, match="activation"):
        fully_connected([2, 1], "tanh")


def test_split_join_roundtrip():
    net = fully_connected([3, 4, 2])
    theta = np.arange(net.n_params, dtype=float)
    parts = net.split(theta)
    assert [p.shape for p in parts] == [(12,), (8,)]
    np.testing.assert_array_equal(net.join([m for m in net.matrices(theta)]), theta)


def test_activation_pattern_signs():
    net = fully_connected([2, 2, 1], "relu")
    theta = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    X = np.array([[1.0, -1.0], [0.0, 2.0]])
    np.testing.assert_array_equal(net.activation_pattern(theta, X)[0], [[1, -1], [0, 1]])


def test_leaky_relu_is_exact_and_positively_homogeneous():
    a = sympy.Rational(1, 10)
    net = leaky_relu_network((Dense(2, 2), Dense(1, 2)), a)
    theta = np.array([1, 0, 0, 1, 1, 1], dtype=object)  # W1 = I, v = (1, 1)
    X = np.array([[2, -3]], dtype=object)
    assert net.forward(theta, X)[0, 0] == 2 - sympy.Rational(3, 10)  # σ(2) + σ(−3) = 2 − 3a
    assert net.jacobian(theta, X)[0, 0, 4:].tolist() == [2, -sympy.Rational(3, 10)]
    assert net.degree == 2
    c = sympy.Rational(7, 3)
    assert net.forward(c * theta, X)[0, 0] == c**2 * net.forward(theta, X)[0, 0]
    with pytest.raises(ValueError, match="negative slope"):
        leaky_relu_network((Dense(1, 2),), 1.5)


def test_strided_patches_overlap():
    layer = strided_patches(3, 2, 7)  # windows at 0, 2, 4
    W = layer.matrix(np.array([1.0, 2.0, 3.0]))
    assert W.shape == (3, 7)
    np.testing.assert_array_equal(W[1], [0, 0, 1, 2, 3, 0, 0])
    np.testing.assert_array_equal(W[2], [0, 0, 0, 0, 1, 2, 3])


def test_exact_relu_indicators_are_sympys_comparisons() -> None:
    """B.positive and B.relu_derivative on exact numbers (irrational ones remembered per value) agree with
    bool(v > 0) entrywise, also when a value repeats."""
    r2 = sympy.sqrt(2)
    z = np.array([r2 / 2, -r2 / 2, r2 - sympy.sqrt(3), sympy.S.Zero, sympy.Rational(1, 3), r2 / 2, 1 - r2 + r2 - 1],
                 dtype=object)
    expected = [1 if bool(v > 0) else 0 for v in z]
    assert list(B.positive(z)) == expected == [1, 0, 0, 0, 1, 1, 0]
    slopes = B.relu_derivative(z, sympy.Rational(1, 2))
    assert list(slopes) == [1, 0, 0, sympy.Rational(1, 2), 1, 1, sympy.Rational(1, 2)]


def test_scalar_outputs_is_the_one_output_column_in_every_number_system() -> None:
    import torch

    from numerics.tensor_network import LinearTensorNetwork

    net = fully_connected([2, 3, 1], "relu")
    rng = np.random.default_rng(4)
    theta, X = rng.normal(size=net.n_params), rng.normal(size=(5, 2))
    expected = X.copy()
    for W in net.matrices(theta)[:-1]:
        expected = np.maximum(expected @ W.T, 0)
    expected = expected @ net.matrices(theta)[-1][0]
    np.testing.assert_allclose(scalar_outputs(net, theta, X), expected, rtol=1e-14)
    assert scalar_outputs(net, theta, X).shape == (5,)
    exact = scalar_outputs(net, B.to_object(theta), B.to_object(X))
    assert exact.shape == (5,) and exact.dtype == object
    assert torch.allclose(scalar_outputs(net, torch.tensor(theta), torch.tensor(X)), torch.tensor(expected))
    tensor = LinearTensorNetwork(np.ones((1, 1, 1)))
    assert scalar_outputs(tensor, np.ones(tensor.n_params), X[:, :1]).shape == (5,)
    with pytest.raises(ValueError, match="one output, not 2"):
        scalar_outputs(fully_connected([2, 3, 2]), rng.normal(size=12), X)


def test_join_inverts_split_and_matrices_with_a_batch_axis() -> None:
    net = Network((Dense(2, 3), Diagonal(2), Dense(1, 2)))
    thetas = np.arange(20.0).reshape(2, 10)
    np.testing.assert_array_equal(net.join(net.split(thetas)), thetas)
    np.testing.assert_array_equal(net.join([*net.matrices(thetas)[:1], *net.split(thetas)[1:]]), thetas)


@pytest.mark.parametrize("parts, problem", [
    ([np.zeros((3, 2)), np.zeros((1, 2))], "layer 1 has 6 parameters"),  # the transpose of W_1
    ([np.zeros(6), np.zeros(3)], "layer 2 has 2 parameters"),
    ([np.zeros(6)], "one part per layer: 1 parts for 2 layers"),
    ([np.zeros(6), np.zeros(2), np.zeros(1)], "one part per layer: 3 parts for 2 layers"),
    ([np.zeros(6), np.float64(0.0)], r"layer 2 has 2 parameters \(shape \(1, 2\)\); got a part of shape \(\)"),
    ([np.zeros(6), np.zeros(())], r"got a part of shape \(\)"),  # a scalar, not a vector of one
])
def test_join_refuses_parts_of_the_wrong_size(parts: list, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        Network((Dense(2, 3), Dense(1, 2))).join(parts)
