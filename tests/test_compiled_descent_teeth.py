"""Teeth for :mod:`numerics.compiled_descent` (docs/mutation.md): behaviour pinned so that small wrong versions of the
module fail.

* the kernel against closed forms: a one-weight linear network on the square loss (θ_t = (1 − cη)^t θ_0, exact in
  binary for the chosen η), sum and mean, per-run step sizes, steps that compose; one step of the exponential and
  logistic losses against e^{−q}·y·x written out (sum and mean);
* the kernel against the reference engine (:func:`numerics.descent.gradient_descent`) to rounding on asymmetric
  dense networks (every index of the generated code distinct) and linear tensor networks (depth 3, general entries);
* :func:`architecture`'s selection: each condition of support violated alone (a layer that is not Dense, a margin
  loss that is not the exponential or logistic one, a tensor with object or non-finite entries, one product over
  :data:`MAX_PRODUCTS`, a duck-typed model that is not a Network), the products and offsets against their formulas,
  the entries in C order; a leaky-ReLU network of Dense layers left to the other engines (it was run as linear);
* the stepper's checks of the state, the generated source's pieces, and :func:`load_generated`'s disk cache (a stale
  file rewritten, an up-to-date one left alone, the fallback folder when the cache cannot be created).
"""

from __future__ import annotations

import hashlib
import math
import os

import numpy as np
import pytest

from numerics import compiled_descent
from numerics.compiled_descent import (
    MAX_PRODUCTS,
    Architecture,
    TensorArchitecture,
    architecture,
    compiled_stepper,
    data_shape,
    descent_expression,
    kernel_source,
    load_generated,
    supports,
)
from numerics.descent import batched_gradient_descent, gradient_descent, resolve_engine
from numerics.losses import ExponentialLoss, Objective
from numerics.networks import Dense, Network, diagonal, fully_connected, leaky_relu_network
from numerics.tensor_network import LinearTensorNetwork, convolutional_tensor, fully_connected_tensor


def run(objective: Objective, theta0: np.ndarray, steps: int, eta) -> np.ndarray:
    """The compiled kernel from the rows of ``theta0`` (runs × parameters); the final iterates, runs × parameters."""
    state = np.array(np.asarray(theta0, dtype=float).T, order="C")
    compiled_stepper(objective)(state, steps, np.broadcast_to(np.asarray(eta, dtype=float), state.shape[1]))
    return state.T


# -- closed forms ------------------------------------------------------------------------------------------------
def test_one_weight_square_loss_is_geometric_exactly() -> None:
    """f(x) = w x, x = 1, y = 0: L = ½w², θ_t = (1 − η)^t θ_0; η = 1/2 and 1/4 keep every iterate exact."""
    objective = Objective(fully_connected([1, 1], "linear"), np.ones((1, 1)), np.zeros((1, 1)), "square")
    theta0 = np.array([[3.0], [-5.0], [0.0]])
    etas = np.array([0.5, 0.25, 0.5])
    final = run(objective, theta0, 10, etas)
    assert np.array_equal(final[:, 0], theta0[:, 0] * (1 - etas) ** 10)
    assert np.array_equal(run(objective, theta0, 0, etas), theta0)  # zero steps: untouched
    state = np.array(theta0.T, order="C")  # 3 + 7 steps = 10 steps, bit for bit
    stepper = compiled_stepper(objective)
    stepper(state, 3, etas)
    assert np.array_equal(state[0], theta0[:, 0] * (1 - etas) ** 3)
    stepper(state, 7.0, list(etas))  # a float count of steps, a list of step sizes
    assert np.array_equal(state.T, final)


def test_one_weight_square_loss_mean_and_scaled_input() -> None:
    """Two samples x = 1, y = 0: the sum's gradient is 2w, the mean's w (divided by n); x = 2: the gradient is 4w."""
    X, Y = np.ones((2, 1)), np.zeros((2, 1))
    theta0 = np.array([[3.0], [-1.5]])
    model = fully_connected([1, 1], "linear")
    mean = run(Objective(model, X, Y, "square", mean=True), theta0, 6, 0.5)
    assert np.array_equal(mean[:, 0], theta0[:, 0] * 0.5**6)
    total = run(Objective(model, X, Y, "square"), theta0, 6, 0.125)
    assert np.array_equal(total[:, 0], theta0[:, 0] * 0.75**6)
    scaled = run(Objective(model, 2 * np.ones((1, 1)), np.zeros((1, 1)), "square"), theta0, 6, 0.0625)
    assert np.array_equal(scaled[:, 0], theta0[:, 0] * 0.75**6)
    target = run(Objective(model, np.ones((1, 1)), np.full((1, 1), 2.0), "square"), theta0, 1, 0.5)
    assert np.array_equal(target[:, 0], theta0[:, 0] - 0.5 * (theta0[:, 0] - 2.0))  # residual w − y


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
@pytest.mark.parametrize("mean", [False, True], ids=["sum", "mean"])
def test_one_weight_margin_step(loss: str, mean: bool) -> None:
    """f(x) = w x on x = (1, 2), y = (1, −1): one step is w + η Σ_s (−ℓ'(q_s)) y_s x_s (/n for the mean)."""
    X, y = np.array([[1.0], [2.0]]), np.array([1.0, -1.0])
    objective = Objective(fully_connected([1, 1], "linear"), X, y, loss, mean=mean)
    theta0 = np.array([[0.3], [-0.8]])
    eta = 0.1
    final = run(objective, theta0, 1, eta)

    def weight(q: float) -> float:  # −ℓ'(q)
        return math.exp(-q) if loss == "exponential" else 1.0 / (1.0 + math.exp(q))

    for w, after in zip(theta0[:, 0], final[:, 0]):
        direction = sum(weight(ys * w * xs) * ys * xs for xs, ys in zip(X[:, 0], y)) / (2 if mean else 1)
        assert after == pytest.approx(w + eta * direction, rel=1e-14, abs=0)
        reference = gradient_descent(objective, np.array([w]), 1, eta).final[0]
        assert after == pytest.approx(reference, rel=1e-14, abs=0)


# -- against the reference engine -------------------------------------------------------------------------------
def _dense_relu_logistic_mean() -> Objective:
    rng = np.random.default_rng(11)
    X = rng.standard_normal((4, 3))
    return Objective(fully_connected([3, 2, 4, 1], "relu"), X, np.array([1.0, -1.0, -1.0, 1.0]), "logistic", mean=True)


def _dense_relu_square_two_outputs() -> Objective:
    rng = np.random.default_rng(12)
    X = rng.standard_normal((3, 2))
    return Objective(fully_connected([2, 3, 2], "relu", relu_slope_at_zero=0.5), X, rng.standard_normal((3, 2)),
                     "square")


def _dense_linear_exponential() -> Objective:
    rng = np.random.default_rng(13)
    X = rng.standard_normal((3, 2))
    return Objective(fully_connected([2, 3, 1], "linear"), X, np.array([1.0, -1.0, 1.0]), "exponential")


def _tensor_fully_connected_logistic() -> Objective:
    rng = np.random.default_rng(14)
    X = rng.standard_normal((3, 2))
    return Objective(fully_connected_tensor([2, 2, 2]), X, np.array([1.0, -1.0, 1.0]), "logistic")


def _tensor_convolutional_square_mean() -> Objective:
    rng = np.random.default_rng(15)
    X = rng.standard_normal((4, 3))
    return Objective(convolutional_tensor(3, [2]), X, rng.standard_normal((4, 1)) + 1.0, "square", mean=True)


def _tensor_general_entries_exponential() -> Objective:
    rng = np.random.default_rng(16)
    basis = rng.standard_normal((2, 2, 3))
    basis[0, 1, 2] = 1.0  # a coefficient that enters without a product
    basis[0, 0, 0] = 2.0  # and one that must enter as a product (1.0 and 2.0 are both exact)
    basis[1, 0, 1] = 0.0  # an entry left out
    basis[1, 1, :] = 0.0
    X = rng.standard_normal((3, 2))
    return Objective(LinearTensorNetwork(basis), X, np.array([-1.0, 1.0, 1.0]), "exponential", mean=True)


CASES = {
    "dense relu 3-2-4-1, logistic mean": (_dense_relu_logistic_mean, 0.2),
    "dense relu 2-3-2, square, two outputs, σ'(0) = 1/2": (_dense_relu_square_two_outputs, 0.05),
    "dense linear 2-3-1, exponential": (_dense_linear_exponential, 0.02),
    "tensor fully connected depth 3, logistic": (_tensor_fully_connected_logistic, 0.05),
    "tensor convolutional, square mean": (_tensor_convolutional_square_mean, 0.05),
    "tensor general entries, exponential mean": (_tensor_general_entries_exponential, 0.05),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_kernel_is_the_reference_step_for_step(case: str) -> None:
    """Three runs with their own step sizes, 40 steps: the reference run's iterates to rounding, and they moved."""
    make, eta = CASES[case]
    objective = make()
    rng = np.random.default_rng(17)
    n_params = objective.model.n_params
    theta0 = 0.7 * rng.standard_normal((3, n_params))
    etas = eta * np.array([1.0, 0.5, 0.25])
    final = run(objective, theta0, 40, etas)
    for r in range(3):
        reference = gradient_descent(objective, theta0[r], 40, float(etas[r])).final
        assert np.max(np.abs(final[r] - reference)) <= 1e-12 * np.max(np.abs(reference))
        assert np.max(np.abs(reference - theta0[r])) > 1e-3


def test_a_unit_on_its_kink_moves_by_the_slope_convention() -> None:
    """A 1-1-1 ReLU network started with its hidden pre-activation exactly 0: the first layer's gradient is
    d·w₂·σ'(0)·x, so it moves with σ'(0) = 1/2 and stays put with σ'(0) = 0; the second layer's is d·h = 0."""
    X, Y = np.ones((1, 1)), np.full((1, 1), 1.0)
    theta0 = np.array([[0.0, 2.0]])
    for slope in (0.0, 0.5):
        objective = Objective(fully_connected([1, 1, 1], "relu", relu_slope_at_zero=slope), X, Y, "square")
        final = run(objective, theta0, 1, 0.25)
        # o = 0, d = o − y = −1: w₁ ← 0 − ¼·(−1·2·σ'(0)·1), w₂ ← 2 − ¼·(−1·0)
        assert final.tolist() == [[0.5 * slope, 2.0]]
    positive = run(Objective(fully_connected([1, 1, 1], "relu"), X, Y, "square"), np.array([[1.0, 2.0]]), 1, 0.25)
    assert positive.tolist() == [[1.0 - 0.25 * 2.0, 2.0 - 0.25 * 1.0]]  # o = 2, d = 1: z > 0 has slope 1
    negative = run(Objective(fully_connected([1, 1, 1], "relu", relu_slope_at_zero=0.5), X, Y, "square"),
                   np.array([[-1.0, 2.0]]), 1, 0.25)
    assert negative.tolist() == [[-1.0, 2.0]]  # z < 0: slope 0 and h = 0, so neither gradient is nonzero


# -- selection ---------------------------------------------------------------------------------------------------
def test_offsets_and_products_follow_their_formulas() -> None:
    arch = architecture(_dense_relu_logistic_mean())
    assert arch == Architecture((3, 2, 4, 1), 4, True, 0.0, "logistic", True)
    assert arch.offsets == (0, 6, 14, 18)
    assert arch.products == 4 * (2 * (6 + 8 + 4) + (8 + 4))
    square = architecture(_dense_relu_square_two_outputs())
    assert square.relu and square.relu_slope_at_zero == 0.5 and square.loss == "square" and not square.mean
    assert architecture(_dense_linear_exponential()).relu is False
    tensor = architecture(_tensor_fully_connected_logistic())
    assert isinstance(tensor, TensorArchitecture)
    assert tensor.sizes == (4, 4, 2) and tensor.offsets == (0, 4, 8, 10) and tensor.d_in == 2 and tensor.samples == 3
    L = 3
    assert tensor.products == 2 * 3 * 2 + len(tensor.entries) * (2 * L + L * (L - 1))
    assert tensor.relu_slope_at_zero == 0.0


def test_tensor_entries_are_the_nonzero_ones_in_c_order() -> None:
    arch = architecture(_tensor_general_entries_exponential())
    basis = _tensor_general_entries_exponential().model.basis
    expected = [(int(i[0]), (int(i[1]), int(i[2])), float(basis[tuple(i)])) for i in np.argwhere(basis != 0)]
    assert list(arch.entries) == expected and len(expected) == 2 * 2 * 3 - 4
    assert arch.entries[0][:2] == (0, (0, 0)) and arch.entries[-1][:2] == (1, (0, 2))
    assert arch.entries[0] == (0, (0, 0), 2.0) and (0, (1, 2), 1.0) in arch.entries
    assert arch.loss == "exponential" and arch.mean
    source = kernel_source(arch)
    assert "T0_0 = m0 * 2.0 + m1 * " in source and "\n            T1_2 = m0\n" in source
    assert "b0 = 2.0 * t0 * t2 + " in source and " + t1 * t4\n" in source


def _products_objective(samples: int, widths: list[int]) -> Objective:
    return Objective(fully_connected(widths, "linear"), np.ones((samples, widths[0])), np.ones(samples), "logistic")


def test_the_products_bound_is_inclusive() -> None:
    assert MAX_PRODUCTS == 4096
    at = _products_objective(16, [128, 1])  # 16·(2·128) = 4096
    assert architecture(at).products == 4096 and supports(at)
    over = _products_objective(17, [119, 1, 1])  # 17·(2·(119 + 1) + 1) = 4097
    assert Architecture((119, 1, 1), 17, False, 0.0, "logistic", False).products == 4097 and not supports(over)
    under = _products_objective(1, [2046, 1, 1])  # 2·2047 + 1 = 4095
    assert architecture(under).products == 4095 and supports(under)
    big_tensor = Objective(fully_connected_tensor([8, 8, 8]), np.ones((4, 8)), np.ones(4), "logistic")
    assert architecture(big_tensor) is None


class OtherExponential(ExponentialLoss):
    """The exponential loss under another class: the kernels hard-code exp(−q), so they must not take it."""


def test_each_condition_of_support_violated_alone() -> None:
    X, y = np.array([[1.0, 0.5], [-0.5, 1.0]]), np.array([1.0, -1.0])
    dense = fully_connected([2, 2, 1], "relu")
    assert supports(Objective(dense, X, y, "logistic")) and supports(Objective(dense, X, y, ExponentialLoss()))
    assert supports(Objective(dense, X, y[:, None], "square"))
    assert architecture(Objective(dense, X, y, ExponentialLoss())).loss == "exponential"
    assert not supports(Objective(dense, X, y, OtherExponential()))  # the loss alone
    assert not supports(Objective(diagonal(2, 2, "relu"), X, y, "logistic"))  # a layer that is not Dense alone
    assert supports(Objective(Network((Dense(2, 2), Dense(1, 2)), "linear"), X, y, "logistic"))
    basis = np.zeros((2, 2, 2))
    basis[0, 0, 0] = basis[1, 1, 1] = 1.0
    assert supports(Objective(LinearTensorNetwork(basis), X, y, "logistic"))
    assert not supports(Objective(LinearTensorNetwork(basis), X, y, OtherExponential()))
    for bad in (np.inf, -np.inf, np.nan):
        nonfinite = basis.copy()
        nonfinite[1, 0, 1] = bad
        assert architecture(Objective(LinearTensorNetwork(nonfinite), X, y, "logistic")) is None
    assert architecture(Objective(LinearTensorNetwork(basis.astype(object)), X, y, "logistic")) is None


class DuckModel:
    """A model of the :class:`numerics.losses.Model` protocol that is not a :class:`Network` (f = 2⟨θ, x⟩): the
    kernel writes out a Network's forward pass, so it must not take another model's, whatever its attributes."""

    degree, d_out, d_in, n_params = 1, 1, 2, 2
    activation, relu_slope_at_zero = "linear", 0.0

    def forward(self, theta, X):
        return 2.0 * X @ theta[:, None]

    def vjp(self, theta, X, G):
        return 2.0 * X.T @ G[:, 0]


class DuckDense(DuckModel):
    layers = (Dense(1, 2),)  # Dense layers, as a Network's, yet another model


def test_only_networks_and_tensor_networks_are_compiled() -> None:
    X, Y = np.array([[1.0, 0.5], [-0.5, 1.0]]), np.array([[1.0], [-1.0]])
    assert supports(Objective(Network((Dense(1, 2),), "linear"), X, Y, "square"))
    assert architecture(Objective(DuckDense(), X, Y, "square")) is None
    assert architecture(Objective(DuckModel(), X, Y, "square")) is None  # no layers at all


def test_a_leaky_relu_network_is_left_to_the_other_engines() -> None:
    # the kernel has no negative slope: it once ran a leaky network of Dense layers as a linear one (0.29 off)
    model = leaky_relu_network([Dense(2, 2), Dense(1, 2)], 0.1)
    objective = Objective(model, np.array([[1.0, -2.0], [-1.5, 0.5]]), np.array([1.0, -1.0]), "logistic")
    theta0 = np.array([[0.3, -0.7, 0.5, 0.2, -0.4, 0.6]])
    assert not supports(objective) and architecture(objective) is None
    assert resolve_engine(objective, "auto", "cpu")[0] != "compiled"
    reference = gradient_descent(objective, theta0[0], 20, 0.1).final
    automatic = batched_gradient_descent(objective, theta0, 20, 0.1, engine="auto", device="cpu").theta[0]
    assert np.max(np.abs(automatic - reference)) <= 1e-12


def test_unsupported_objectives_get_no_stepper() -> None:
    X, y = np.array([[1.0, 0.5], [-0.5, 1.0]]), np.array([1.0, -1.0])
    with pytest.raises(TypeError, match="at most 4096 products per step"):
        compiled_stepper(Objective(diagonal(2, 2, "relu"), X, y, "logistic"))


# -- the stepper's state -----------------------------------------------------------------------------------------
def test_the_state_must_be_c_ordered_float64() -> None:
    objective = Objective(fully_connected([1, 1], "linear"), np.ones((1, 1)), np.zeros((1, 1)), "square")
    stepper = compiled_stepper(objective)
    eta = np.full(2, 0.5)
    fortran = np.asfortranarray(np.array([[1.0, 2.0], [3.0, 4.0]]))[:1]  # not C-contiguous, float64
    assert fortran.dtype == np.float64 and not fortran.flags.c_contiguous
    with pytest.raises(ValueError, match="C-ordered float64"):
        stepper(fortran, 1, eta)
    single = np.array([[1.0, 2.0]], dtype=np.float32)  # C-contiguous, float32
    with pytest.raises(ValueError, match="C-ordered float64"):
        stepper(single, 1, eta)
    assert single.tolist() == [[1.0, 2.0]]
    good = np.array([[1.0, 2.0]])
    stepper(good, 1, eta)
    assert good.tolist() == [[0.5, 1.0]]


# -- generated source ----------------------------------------------------------------------------------------------
def test_source_pieces() -> None:
    square_mean = architecture(_tensor_convolutional_square_mean())
    assert descent_expression(square_mean, 3) == "-(g3 / 4.0)"
    square_sum = architecture(_dense_relu_square_two_outputs())
    assert descent_expression(square_sum, 2) == "-g2"
    assert descent_expression(architecture(_dense_relu_logistic_mean()), 5) == "g5"
    assert data_shape(architecture(_dense_relu_logistic_mean())) == (3, 1)
    assert data_shape(square_sum) == (2, 2)
    assert data_shape(square_mean) == (3, 1)
    source = kernel_source(square_sum)
    assert source.startswith("def kernel(theta, steps, eta, X, Y):\n    x0_0 = X[0, 0]\n")
    assert "    y2_1 = Y[2, 1]\n" in source and "y3_" not in source and "x2_2" not in source
    assert "theta[11, r] = t11 + eta[r] * (-g11)" in source and "theta[12, r]" not in source
    assert "d2_2_1 = o2_1 - y2_1" in source  # the square loss's residual for every output
    margin = kernel_source(architecture(_dense_linear_exponential()))
    assert "q2 = y2_0 * o2_0" in margin and "d2_2_0 = exp(-q2 + LOG_SCALE) * y2_0" in margin
    assert "d2_2_1" not in margin  # one output
    logistic = kernel_source(architecture(_tensor_fully_connected_logistic()))
    assert "G0 = exp(-logaddexp0(q0) + LOG_SCALE) * y0_0" in logistic


# -- the disk cache of generated modules --------------------------------------------------------------------------
def test_generated_modules_live_in_the_kernel_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IBVERIFY_CACHE_DIR", str(tmp_path))
    source = "VALUE = 7\n"
    name = "teeth_" + hashlib.sha256(source.encode()).hexdigest()[:20]
    path = tmp_path / "kernels" / f"{name}.py"
    assert compiled_descent.kernel_cache_dir() == tmp_path / "kernels"
    assert load_generated(source, "teeth_").VALUE == 7
    assert path.read_text() == source and not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # an up-to-date file is not rewritten: its mtime stays
    assert load_generated(source, "teeth_").VALUE == 7
    assert path.stat().st_mtime_ns == 1_000_000_000
    path.write_text("VALUE = 8\n")  # a stale or damaged file under the same name is replaced
    assert load_generated(source, "teeth_").VALUE == 7 and path.read_text() == source


def test_an_unwritable_cache_falls_back_to_a_temporary_folder(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setattr(compiled_descent, "kernel_cache_dir", lambda: blocker / "kernels")  # mkdir: OSError
    module = load_generated("VALUE = 9\n", "teeth_")
    assert module.VALUE == 9 and os.path.basename(os.path.dirname(module.__file__)).startswith("ibverify-kernels-")
