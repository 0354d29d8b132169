"""numerics.tensor_network beyond its float path, pinned where the mutation run found nothing watching
(docs/mutation.md): which inputs the compiled β serves (its documented contract: one float64 vector θ with float64
data; anything else goes through the einsum contractions), exact parameters staying exact, torch parameters
staying torch tensors, and the fully connected encoding with unequal widths."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from numerics.networks import fully_connected
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)


def networks() -> dict[str, LinearTensorNetwork]:
    return {"diagonal": diagonal_tensor(3, 3), "convolution": convolutional_tensor(4, [2, 3]),
            "fully connected, widths (3, 2, 4)": fully_connected_tensor([3, 2, 4]),
            "degree 1": LinearTensorNetwork(np.random.default_rng(1).normal(size=(2, 3)))}


def exact_beta(net: LinearTensorNetwork, theta: list[Fraction]) -> list[Fraction]:
    """β_k = Σ_j M(e_k)_j Π_l v_l[j_l] in rationals (the basis' floats at their binary values)."""
    vectors, start = [], 0
    for size in net.sizes:
        vectors.append(theta[start:start + size])
        start += size
    beta = [Fraction(0)] * net.d_in
    for index in zip(*np.nonzero(net.basis)):
        term = Fraction(float(net.basis[index]))
        for ell, j in enumerate(index[1:]):
            term *= vectors[ell][j]
        beta[index[0]] += term
    return beta


class Spy:
    """Counts the calls of LinearTensorNetwork.compiled_beta."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        original = LinearTensorNetwork.compiled_beta

        def counted(net, theta, with_jacobian=False):
            self.calls += 1
            return original(net, theta, with_jacobian)

        monkeypatch.setattr(LinearTensorNetwork, "compiled_beta", counted)

    def taken(self, call) -> tuple[bool, object]:
        before = self.calls
        value = call()
        return self.calls > before, value


class Subclass(np.ndarray):
    """A float64 array that is not exactly an np.ndarray."""


@pytest.mark.parametrize("name", list(networks()))
def test_the_compiled_path_serves_float64_vectors_with_float64_data_only(name: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each condition of the float path violated alone sends the call through the contractions, and both paths
    give the same values (to rounding)."""
    net = networks()[name]
    rng = np.random.default_rng(2)
    theta, X, G = rng.normal(size=net.n_params), rng.normal(size=(3, net.d_in)), rng.normal(size=(3, 1))
    spy = Spy(monkeypatch)
    reference = {"beta": net.beta(theta), "vjp": net.vjp(theta, X, G), "jacobian": net.jacobian(theta, X)}
    assert spy.calls == 3  # each of them compiled
    assert spy.taken(lambda: net.forward(theta, X))[0]
    other_thetas = {"float32": theta.astype(np.float32), "not exactly an ndarray": theta.view(Subclass)}
    for label, other in other_thetas.items():
        taken, value = spy.taken(lambda: net.beta(other))
        assert not taken, label
        assert np.allclose(np.asarray(value, dtype=float).reshape(-1), reference["beta"], atol=1e-6), label
        taken, value = spy.taken(lambda: net.jacobian(other, X))
        assert not taken, label
        assert np.allclose(np.asarray(value, dtype=float), reference["jacobian"], atol=1e-6), label
    for label, other in {"float32": X.astype(np.float32), "not exactly an ndarray": X.view(Subclass)}.items():
        for method, args, key in (("vjp", (theta, other, G), "vjp"), ("jacobian", (theta, other), "jacobian")):
            taken, value = spy.taken(lambda: getattr(net, method)(*args))
            assert not taken, (label, method)
            assert np.allclose(np.asarray(value, dtype=float), reference[key], atol=1e-5), (label, method)
    for label, other in {"float32": G.astype(np.float32), "not exactly an ndarray": G.view(Subclass)}.items():
        taken, value = spy.taken(lambda: net.vjp(theta, X, other))
        assert not taken, label
        assert np.allclose(np.asarray(value, dtype=float), reference["vjp"], atol=1e-5), label


@pytest.mark.parametrize("name", list(networks()))
def test_exact_parameters_stay_exact(name: str) -> None:
    """Rational θ and data give rational β, vjp and Jacobian, equal to the exact sums (object arrays: the
    contractions run on the basis' exact values)."""
    net = networks()[name]
    rng = np.random.default_rng(3)
    theta = [Fraction(int(k), 7) for k in rng.integers(-9, 10, size=net.n_params)]
    X = np.array([[Fraction(int(k), 5) for k in row] for row in rng.integers(-4, 5, size=(2, net.d_in))],
                 dtype=object)
    beta = exact_beta(net, theta)
    theta_array = np.array(theta, dtype=object)
    assert net.beta(theta_array).dtype == object
    assert list(net.beta(theta_array)) == beta
    assert list(net.forward(theta_array, X)[:, 0]) == [sum(x * b for x, b in zip(row, beta)) for row in X]
    # the vjp of Σ_i f(x_i) and the Jacobian's rows: exact derivatives of the exact β (central differences of a
    # multilinear form in one coordinate are exact)
    ones = np.array([[Fraction(1)], [Fraction(1)]], dtype=object)
    vjp, jacobian = net.vjp(theta_array, X, ones), net.jacobian(theta_array, X)
    assert vjp.dtype == object and jacobian.dtype == object
    for p in range(net.n_params):
        up, down = list(theta), list(theta)
        up[p] += 1
        down[p] -= 1
        slope = [(a - b) / 2 for a, b in zip(exact_beta(net, up), exact_beta(net, down))]
        per_sample = [sum(x * s for x, s in zip(row, slope)) for row in X]
        assert vjp[p] == sum(per_sample) and list(jacobian[:, 0, p]) == per_sample


def test_torch_parameters_stay_torch_tensors() -> None:
    torch = pytest.importorskip("torch")
    for name, net in networks().items():
        rng = np.random.default_rng(4)
        theta, X, G = rng.normal(size=net.n_params), rng.normal(size=(3, net.d_in)), rng.normal(size=(3, 1))
        as_torch = torch.tensor(theta)
        beta = net.beta(as_torch)
        vjp = net.vjp(as_torch, torch.tensor(X), torch.tensor(G))
        assert isinstance(beta, torch.Tensor) and isinstance(vjp, torch.Tensor), name
        assert np.allclose(beta.numpy(), net.beta(theta), atol=1e-12), name
        assert np.allclose(vjp.numpy(), net.vjp(theta, X, G), atol=1e-12), name
        jacobian = net.jacobian(as_torch, torch.tensor(X))
        assert isinstance(jacobian, torch.Tensor) and jacobian.shape == (3, 1, net.n_params), name
        assert np.allclose(jacobian.numpy(), net.jacobian(theta, X), atol=1e-12), name


def test_the_fully_connected_encoding_with_unequal_widths_is_the_linear_network() -> None:
    """widths (3, 2, 4): the last block has d_L = 4 entries (not d_{L-1}), and f equals the linear network
    x ↦ w_Lᵀ W_2ᵀ W_1ᵀ x of the same θ."""
    net = fully_connected_tensor([3, 2, 4])
    assert net.sizes == (6, 8, 4)
    layered = fully_connected([3, 2, 4, 1], "linear")
    rng = np.random.default_rng(6)
    theta, X = rng.normal(size=net.n_params), rng.normal(size=(5, 3))
    assert np.allclose(net.forward(theta, X), layered.forward(theta, X), atol=1e-12)
