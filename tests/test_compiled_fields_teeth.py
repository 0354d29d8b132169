"""numerics.compiled_fields where a sampled mutation run found nothing watching (docs/mutation.md): the defaults of
``evaluate`` (log scale 0, no normalization, derivatives only when asked for), which objectives the fields take
(float data only; the size limits at their edges; layers whose entries are single parameters), and the constrained
solvers' margin functions taking the compiled field of a small network."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import compiled_fields
from numerics.compiled_descent import MAX_PRODUCTS
from numerics.compiled_fields import (
    MARGIN_JACOBIAN,
    MAX_PARAMETERS,
    CompiledField,
    TensorNetworkSquareField,
    compiled_field,
    field_architecture,
    generic_only,
    margin_functions,
    supports,
)
from numerics.losses import Objective
from numerics.networks import Dense, Layer, Network, circulant, fully_connected
from numerics.tensor_network import LinearTensorNetwork, fully_connected_tensor


def data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), np.where(rng.random(n) < 0.5, -1.0, 1.0)


def objectives() -> dict[str, Objective]:
    X, y = data(5, 3)
    return {"network": Objective(fully_connected([3, 2, 1], "relu"), X, y, "logistic"),
            "tensor network": Objective(fully_connected_tensor([3, 2, 2]), X, y, "exponential", mean=True)}


@pytest.mark.parametrize("name", list(objectives()))
def test_evaluate_by_default_gives_the_plain_descent_and_no_derivatives(name: str) -> None:
    obj = objectives()[name]
    field = obj.compiled()
    theta = 0.7 * np.random.default_rng(1).normal(size=obj.model.n_params)
    with generic_only():
        generic = Objective(obj.model, obj.X, obj.Y, obj.loss, obj.mean)
        descent = generic.descent(theta)
    point = field.evaluate(theta)
    assert np.allclose(point.descent, descent, rtol=1e-12, atol=1e-14)
    assert np.allclose(field.gradient(theta), -descent, rtol=1e-12, atol=1e-14)
    assert np.allclose(field.descent(theta), descent, rtol=1e-12, atol=1e-14)
    assert point.margin_jacobian is None and point.log_loss_gradient is None and point.descent_jacobian is None
    asked = field.evaluate(theta, want=MARGIN_JACOBIAN)
    assert asked.margin_jacobian is not None and asked.log_loss_gradient is not None
    assert asked.descent_jacobian is None
    assert field.evaluate(theta, want=0).descent is None
    assert field.value(theta) == pytest.approx(float(np.exp(field.log_value(theta))), rel=1e-12)


def test_tensor_fields_take_float_data_only() -> None:
    X, y = data(4, 3)
    net = fully_connected_tensor([3, 2, 2])
    assert Objective(net, X, y, "logistic").compiled() is not None
    assert Objective(net, X.astype(object), y, "logistic").compiled() is None
    assert Objective(net, X, y.astype(object), "logistic").compiled() is None
    assert Objective(LinearTensorNetwork(net.basis.astype(object)), X, y, "logistic").compiled() is None
    assert isinstance(Objective(net, X, y[:, None], "square").compiled(), TensorNetworkSquareField)
    assert Objective(LinearTensorNetwork(net.basis.astype(object)), X, y[:, None], "square").compiled() is None


def test_the_size_limits_are_closed_at_their_edges() -> None:
    """At most 100 parameters (MAX_PARAMETERS, written out: the test must not move with the constant) and
    MAX_PRODUCTS products per sample (6 per weight entry)."""
    X, y = data(3, 101)
    at_limit = Network((Dense(1, 100),), "linear")
    assert field_architecture(Objective(at_limit, X[:, :100], y, "logistic")) is not None
    beyond = Network((Dense(1, 101),), "linear")
    assert field_architecture(Objective(beyond, X, y, "logistic")) is None
    # weight sharing: few parameters, many entries
    X, y = data(3, 30)
    shared = Network((circulant(30, 30), Dense(1, 30)), "linear")  # 930 entries: 5580 products
    assert shared.n_params <= MAX_PARAMETERS and 6 * 930 > MAX_PRODUCTS
    assert field_architecture(Objective(shared, X, y, "logistic")) is None
    small = Network((circulant(10, 10), Dense(1, 10)), "linear")  # 110 entries
    assert field_architecture(Objective(small, X[:, :10], y, "logistic")).products == 660


class _BasisLayer(Layer):
    """W(u) = Σ_k u_k basis[k] for a 0/1 basis of any pattern, unlike the built-in layers (one parameter per entry)."""

    def __init__(self, basis) -> None:
        self.basis = np.asarray(basis, dtype=float)
        self.n_params, self.shape = self.basis.shape[0], self.basis.shape[1:]

    def matrix(self, u):
        return np.einsum("...p,pij->...ij", u, self.basis)

    def pullback(self, G):
        return np.einsum("...ij,pij->...p", G, self.basis)


TWO_PARAMETER_ENTRY = [[[1, 0]], [[1, 1]]]  # W(u) = [u0 + u1, u1]: an entry that is not a single parameter
TWO_PARAMETER_COLUMN = [[[1], [0]], [[1], [1]]]  # [[u0 + u1], [u1]]: no parameter twice in a row, yet the same
IGNORED_PARAMETER = [[[1, 0]], [[0, 0]]]  # [u0, 0]: u1 at no entry (its gradient is 0, unknown to a kernel)


def test_an_entry_that_sums_two_parameters_down_a_column_stays_on_the_generic_backend() -> None:
    X, y = data(3, 1)
    obj = Objective(Network((_BasisLayer(TWO_PARAMETER_COLUMN), Dense(1, 2)), "linear"), X, y, "logistic")
    assert field_architecture(obj) is None and compiled_field(obj) is None


def test_an_entry_that_sums_two_parameters_stays_on_the_generic_backend() -> None:
    X, y = data(3, 2)
    obj = Objective(Network((_BasisLayer(TWO_PARAMETER_ENTRY),), "linear"), X, y, "logistic")
    assert field_architecture(obj) is None and compiled_field(obj) is None
    theta = np.array([0.3, -0.8])
    assert np.allclose(obj.margins(theta), y * (X @ np.array([-0.5, -0.8])))


def test_margin_functions_of_a_small_network_are_the_compiled_fields() -> None:
    X, y = data(4, 2)
    net = fully_connected([2, 3, 1], "relu")
    margins, jacobian = margin_functions(net, X, y)
    assert isinstance(margins.__self__, CompiledField) and isinstance(jacobian.__self__, CompiledField)
    theta = np.random.default_rng(2).normal(size=net.n_params)
    assert np.allclose(margins(theta), y * net.forward(theta, X)[:, 0], rtol=1e-12)
    assert np.allclose(jacobian(theta), y[:, None] * net.jacobian(theta, X)[:, 0, :], rtol=1e-12, atol=1e-14)


def test_margin_functions_refuse_a_model_with_two_outputs() -> None:
    """y ⊙ Φ needs one output; the generic Jacobian would otherwise read the first output's block only."""
    X, y = data(4, 2)
    with pytest.raises(ValueError, match="one output, not 2"):
        margin_functions(fully_connected([2, 3, 2], "relu"), X, y)


def test_supports_says_which_objectives_a_compiled_field_runs() -> None:
    X, y = data(4, 101)
    assert supports(Objective(fully_connected([2, 3, 1], "relu"), X[:, :2], y, "logistic"))
    assert not supports(Objective(Network((Dense(1, 101),), "linear"), X, y, "logistic"))  # over 100 parameters
    assert supports(Objective(fully_connected_tensor([3, 2, 2]), X[:, :3], y, "logistic"))
    assert not supports(Objective(fully_connected_tensor([3, 2, 2]), X[:, :3].astype(object), y, "logistic"))


def test_a_field_takes_theta_as_any_sequence_of_numbers() -> None:
    """A list, an int array and a float64 array give the same evaluation (a list has no dtype to inspect)."""
    X, y = data(4, 2)
    field = Objective(fully_connected([2, 2, 1], "relu"), X, y, "logistic").compiled()
    theta = [1, -2, 0, 3, 2, -1]
    expected = field.evaluate(np.array(theta, dtype=np.float64))
    for given in (theta, np.array(theta)):
        evaluation = field.evaluate(given)
        assert evaluation.log_loss == expected.log_loss and np.array_equal(evaluation.descent, expected.descent)


class _FloatSubclass(np.ndarray):
    """A float64 ndarray subclass: its operators may be overridden, so the kernels do not take it."""


def test_compiled_fields_take_only_plain_real_arrays() -> None:
    X, y = data(4, 2)
    assert compiled_fields._float_numbers(X) and compiled_fields._float_numbers(X.astype(int))
    for refused in (X.view(_FloatSubclass), X.tolist(), X.astype(object), X.astype(complex)):
        assert not compiled_fields._float_numbers(refused)


def test_a_parameter_at_no_entry_stays_on_the_generic_backend() -> None:
    X, y = data(3, 2)
    obj = Objective(Network((_BasisLayer(IGNORED_PARAMETER),), "linear"), X, y, "logistic")
    assert field_architecture(obj) is None and compiled_field(obj) is None
