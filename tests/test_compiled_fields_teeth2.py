"""numerics.compiled_fields where a second sampled mutation run found nothing watching (docs/mutation.md), mostly the
numpy field of the square loss on networks (NetworkSquareField) and which objectives it takes.

Pinned here: the square field's descent direction at log scales of exactly ±1 (the shortcut e⁰ = 1 must fire at 0
only), a loss of exactly 1 (log L = 0, not −∞) and an exact fit (log L = −∞ without a warning), a network without
hidden layers (no pre-activations, one backward step), two leaky hidden layers on and off a kink, each condition of
``_network_square_field_runs`` violated alone (a margin loss with n × 1 labels, a model that is not a Network, exact
slopes, an ndarray subclass, float32 data); a compiled field converting any θ to float64 (float16 included, which
numba cannot take). All against the generic backend, bit for bit where the field promises its bits, or against
closed forms. Nothing here compiles a numba kernel that tests/test_fast_fields.py does not compile too."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from numerics import compiled_fields
from numerics.compiled_fields import (
    CompiledField,
    NetworkSquareField,
    _network_square_field_runs,
    compiled_field,
    generic_only,
)
from numerics.flows import hidden_preactivations
from numerics.losses import Objective
from numerics.networks import Dense, Network, fully_connected, leaky_relu_network


def square_objective(net: Network, n: int, outputs: int, seed: int = 0, mean: bool = False) -> Objective:
    rng = np.random.default_rng(seed)
    return Objective(net, rng.normal(size=(n, net.d_in)), rng.normal(size=(n, outputs)), "square", mean)


def generic_twin(obj: Objective) -> Objective:
    with generic_only():
        return Objective(obj.model, obj.X, obj.Y, obj.loss, obj.mean)


def test_the_module_imports() -> None:
    assert compiled_fields.GRADIENT == 1


@pytest.mark.parametrize("log_scale", [1.0, -1.0, 0.0, 0.5])
def test_descent_at_log_scales_of_exactly_plus_and_minus_one_is_the_generic_one(log_scale: float) -> None:
    # e^{log scale} is skipped only at exactly 0 (e⁰ = 1): at ±1 the scale e^{±1} must still multiply −∇L
    obj = square_objective(fully_connected([2, 2, 2], "relu"), 3, 2, seed=1)
    field, generic = obj.compiled(), generic_twin(obj)
    assert isinstance(field, NetworkSquareField)
    theta = np.random.default_rng(2).normal(size=obj.model.n_params)
    with generic_only():
        expected, gradient = generic.descent(theta, log_scale), generic.gradient(theta)
    assert np.array_equal(field.evaluate(theta, log_scale).descent, expected)
    assert np.array_equal(field.descent(theta, log_scale), expected)
    if log_scale == 0.0:
        assert np.array_equal(field.gradient(theta), gradient)


def test_a_loss_of_exactly_one_has_log_loss_zero() -> None:
    # θ = 0: outputs 0, L = ½·Σ y² = ½·(1 + 1) = 1 exactly, so log L = 0 (only L = 0 gets −∞)
    net = fully_connected([2, 2, 2], "relu")
    obj = Objective(net, np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([[1.0, 0.0], [0.0, 1.0]]), "square")
    point = obj.compiled().evaluate(np.zeros(net.n_params))
    assert point.loss == 1.0 and point.log_loss == 0.0 and np.array_equal(point.descent, np.zeros(net.n_params))
    # and the mean: L = 1/2, log L = log ½
    mean = Objective(net, obj.X, obj.Y, "square", mean=True).compiled().evaluate(np.zeros(net.n_params))
    assert mean.loss == 0.5 and mean.log_loss == float(np.log(0.5))


def test_an_exact_fit_gives_minus_infinity_without_a_warning() -> None:
    net = fully_connected([2, 2, 2], "relu")
    obj = Objective(net, np.array([[1.0, 2.0], [3.0, -1.0]]), np.zeros((2, 2)), "square")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # np.log(0) would warn: the field must not take it
        point = obj.compiled().evaluate(np.zeros(net.n_params), 0.0, False)
    assert point.loss == 0.0 and point.log_loss == -np.inf


@pytest.mark.parametrize("mean", [False, True])
def test_a_network_without_hidden_layers_is_the_generic_one(mean: bool) -> None:
    # one linear layer: no pre-activations (an empty vector), one backward step, W·x read with W's transpose
    net = Network((Dense(2, 3),), "linear")
    obj = square_objective(net, 4, 2, seed=3, mean=mean)
    field, generic = obj.compiled(), generic_twin(obj)
    assert isinstance(field, NetworkSquareField)
    theta = np.random.default_rng(4).normal(size=net.n_params)
    point = field.evaluate(theta, 0.3)
    with generic_only():
        assert point.loss == float(generic.value(theta)) and point.log_loss == float(generic.log_value(theta))
        assert np.array_equal(point.descent, generic.descent(theta, 0.3))
        assert np.array_equal(point.margins, net.forward(theta, obj.X))
    assert point.preactivations.shape == (0,) and hidden_preactivations(obj, theta).shape == (0,)
    # closed form: Φ(x) = W x with W = θ as 2 × 3 row by row; ∇L = s·Σ_i r_i x_iᵀ
    W, s = theta.reshape(2, 3), 1 / 4 if mean else 1.0
    residuals = obj.X @ W.T - obj.Y
    assert np.allclose(-point.descent / np.exp(0.3), s * (residuals.T @ obj.X).ravel(), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("mean", [False, True])
def test_leaky_two_hidden_layers_at_a_kink_are_the_generic_ones(mean: bool) -> None:
    # the slope of each hidden layer is used for its own delta (slopes[k − 1]), a·(z < 0) + σ'(0)-mixed at z = 0
    net = leaky_relu_network([Dense(3, 2), Dense(2, 3), Dense(1, 2)], 0.25, relu_slope_at_zero=0.5)
    obj = square_objective(net, 4, 1, seed=5, mean=mean)
    field, generic = obj.compiled(), generic_twin(obj)
    theta = np.random.default_rng(6).normal(size=net.n_params)
    kinked = theta.copy()
    kinked[:2] = 0.0  # the first hidden unit's incoming weights: its pre-activation is exactly 0 on every sample
    for point in (theta, kinked):
        evaluation = field.evaluate(point, 0.0, True)
        with generic_only():
            log_loss, descent = generic.log_value_and_descent(point)
            assert evaluation.log_loss == log_loss and np.array_equal(evaluation.descent, descent)
            assert np.array_equal(evaluation.preactivations, hidden_preactivations(generic, point))


class _Subclass(np.ndarray):
    """An ndarray subclass: not a plain float64 array."""


class _NotANetwork:
    """A model that is not a Network (no layers, no slopes): square loss on it stays on the generic backend."""

    d_in, d_out, n_params = 2, 1, 2


def test_the_square_field_takes_exactly_float64_networks_with_float_slopes() -> None:
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(3, 2)), rng.normal(size=(3, 1))
    relu = fully_connected([2, 2, 1], "relu")
    assert _network_square_field_runs(Objective(relu, X, Y, "square"))
    # margin losses go to their own compiled kernels (an n × 1 label column is refused: tests/test_losses.py)
    assert not _network_square_field_runs(Objective(relu, X, np.sign(Y[:, 0]), "logistic"))
    # a model that is not a Network: neither this field nor any other
    other = Objective(_NotANetwork(), X, Y, "square")
    assert not _network_square_field_runs(other) and compiled_field(other) is None
    # exact slopes (σ'(0) or the leak as fractions) stay exact on the generic backend; ints and floats are served
    assert not _network_square_field_runs(Objective(fully_connected([2, 2, 1], "relu", Fraction(1, 2)), X, Y,
                                                    "square"))
    assert _network_square_field_runs(Objective(fully_connected([2, 2, 1], "relu", 1), X, Y, "square"))
    layers = [Dense(2, 2), Dense(1, 2)]
    assert not _network_square_field_runs(Objective(leaky_relu_network(layers, Fraction(1, 4)), X, Y, "square"))
    assert _network_square_field_runs(Objective(leaky_relu_network(layers, 0.25), X, Y, "square"))
    # an ndarray subclass is not a plain float64 array
    assert not _network_square_field_runs(Objective(relu, X.view(_Subclass), Y, "square"))
    assert not _network_square_field_runs(Objective(relu, X, Y.view(_Subclass), "square"))
    assert not _network_square_field_runs(Objective(relu, X, Y.astype(np.float32), "square"))
    with pytest.raises(ValueError, match="shape"):  # targets not n × d_out: refused by the objective itself
        Objective(relu, X, Y[:, 0], "square")
    assert not _network_square_field_runs(Objective(relu, X.astype(np.float32), Y, "square"))


def test_a_compiled_field_converts_theta_of_any_float_type() -> None:
    # numba takes no float16 array: θ is converted to float64 first (exactly), whatever its dtype
    rng = np.random.default_rng(8)
    X, y = rng.normal(size=(4, 2)), np.array([1.0, -1.0, 1.0, -1.0])
    field = Objective(fully_connected([2, 3, 1], "relu"), X, y, "logistic").compiled()  # test_fast_fields' 2-3-1
    assert isinstance(field, CompiledField)
    half = rng.normal(size=field.n_params).astype(np.float16)
    expected = field.evaluate(half.astype(np.float64))
    actual = field.evaluate(half)
    assert actual.log_loss == expected.log_loss and np.array_equal(actual.descent, expected.descent)



@pytest.mark.parametrize("loss", ["logistic", "exponential"])
def test_the_margin_field_of_a_leaky_network_at_a_kink_uses_the_stated_slope_at_zero(loss: str) -> None:
    """Leaky ReLU (a = 1/4) with σ'(0) stated as 1/2: at z = 0 the slope is a + (1 − a)·σ'(0) = 5/8. A hidden unit
    with zero incoming weights sits at z = 0 on every sample; the compiled margin field's descent direction there
    is the generic backend's (which a slope of a + (1 ∓ 1 − a)·σ'(0) would not match)."""
    net = leaky_relu_network([Dense(3, 2), Dense(1, 3)], 0.25, relu_slope_at_zero=0.5)
    rng = np.random.default_rng(8)
    obj = Objective(net, rng.normal(size=(5, 2)), np.sign(rng.normal(size=5)), loss)
    field, generic = obj.compiled(), generic_twin(obj)
    assert isinstance(field, compiled_fields.CompiledField)
    kinked = rng.normal(size=net.n_params)
    kinked[:2] = 0.0
    evaluation = field.evaluate(kinked, 0.0, True)
    with generic_only():
        log_loss, descent = generic.log_value_and_descent(kinked)
    assert np.isclose(evaluation.log_loss, log_loss, rtol=1e-13)
    np.testing.assert_allclose(evaluation.descent, descent, rtol=1e-12, atol=1e-14)
    assert np.linalg.norm(evaluation.descent[:2]) > 1e-3  # the kinked unit's incoming weights move by its slope
