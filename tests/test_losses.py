"""Losses in log space and the objective's gradient."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from numerics import backend as B
from numerics.losses import ExponentialLoss, LogisticLoss, Objective, float_logsumexp, margin_loss
from numerics.networks import fully_connected
from numerics.tensor_network import diagonal_tensor


@pytest.mark.parametrize("loss", [ExponentialLoss(), LogisticLoss()])
@pytest.mark.parametrize("q", [-50.0, -3.0, -1e-3, 0.0, 0.5, 7.0, 40.0, 800.0, 1e6])
def test_log_forms_match_high_precision(loss, q):
    import torch  # imported here: collection stays free of torch's 2 s import
    with mpmath.workdps(60):
        qm = mpmath.mpf(q)
        if isinstance(loss, ExponentialLoss):
            value, neg_derivative = mpmath.exp(-qm), mpmath.exp(-qm)
        else:
            value, neg_derivative = mpmath.log1p(mpmath.exp(-qm)), 1 / (1 + mpmath.exp(qm))
        log_value, log_neg = float(mpmath.log(value)), float(mpmath.log(neg_derivative))
    got = loss.log_value(np.array([q]))[0]
    assert got == pytest.approx(log_value, rel=1e-14, abs=1e-14)
    assert loss.log_neg_derivative(np.array([q]))[0] == pytest.approx(log_neg, rel=1e-14, abs=1e-14)
    torch_value = loss.log_value(torch.tensor([q], dtype=torch.float64)).item()
    assert torch_value == pytest.approx(log_value, rel=1e-14, abs=1e-14)


def test_losses_far_below_float_range():
    # margins of 1e3 give losses e^-1000 << 1e-300: the log value must stay exact
    net = fully_connected([1, 1], "linear")
    objective = Objective(net, np.array([[1.0], [2.0]]), np.array([1.0, 1.0]), "exponential")
    theta = np.array([1000.0])
    assert objective.value(theta) == 0.0  # underflows in plain float64 ...
    assert objective.log_value(theta) == pytest.approx(-1000.0 + np.log1p(np.exp(-1000.0)), rel=1e-15)
    # ... and the scaled descent direction stays finite and exact: e^{1000}·(−∇L) = Σ e^{-q_i+1000} x_i
    np.testing.assert_allclose(objective.descent(theta, log_scale=1000.0), [1.0 + 2.0 * np.exp(-1000.0)])
    logistic = Objective(net, np.array([[1.0]]), np.array([1.0]), "logistic")
    assert logistic.log_value(theta) == pytest.approx(-1000.0, rel=1e-15)


@settings(max_examples=30, deadline=None)
@given(loss=st.sampled_from(["exponential", "logistic", "square"]), seed=st.integers(0, 1000),
       mean=st.booleans())
def test_gradient_matches_finite_differences(loss, seed, mean):
    rng = np.random.default_rng(seed)
    d_out = 2 if loss == "square" else 1
    net = fully_connected([3, 4, d_out], "relu")
    X = rng.normal(size=(5, 3))
    Y = rng.normal(size=(5, d_out)) if loss == "square" else rng.choice([-1.0, 1.0], size=5)
    objective = Objective(net, X, Y, loss, mean=mean)
    theta = rng.normal(size=net.n_params)
    h = 1e-6
    numeric = np.array([(objective.value(theta + h * e) - objective.value(theta - h * e)) / (2 * h)
                        for e in np.eye(net.n_params)])
    # central differences carry rounding error ≈ eps·|L(θ)|/h: exponential losses of several hundred (seed 633)
    rounding = 10 * np.finfo(float).eps * abs(objective.value(theta)) / h
    np.testing.assert_allclose(objective.gradient(theta), numeric, atol=1e-7 + rounding)
    np.testing.assert_allclose(np.exp(objective.log_value(theta)), objective.value(theta), rtol=1e-12)


def test_objective_backends_agree():
    import torch  # imported here: collection stays free of torch's 2 s import
    rng = np.random.default_rng(7)
    net = diagonal_tensor(3, 3)
    X, y = rng.normal(size=(4, 3)), np.array([1.0, -1.0, 1.0, -1.0])
    theta = rng.normal(size=net.n_params)
    reference = Objective(net, X, y, "logistic").gradient(theta)
    torch_grad = Objective(net, torch.tensor(X), torch.tensor(y), "logistic").gradient(torch.tensor(theta))
    np.testing.assert_allclose(torch_grad.numpy(), reference, atol=1e-12)
    with mpmath.workdps(30):
        mp_grad = Objective(net, B.to_object(X, "mp"), B.to_object(y, "mp"), "logistic").gradient(
            B.to_object(theta, "mp"))
    np.testing.assert_allclose(B.to_float(mp_grad), reference, atol=1e-12)


def test_bad_configurations_are_rejected():
    with pytest.raises(ValueError, match="unknown margin loss"):
        margin_loss("hinge")
    with pytest.raises(ValueError, match="scalar-output"):
        Objective(fully_connected([2, 2]), np.zeros((1, 2)), np.ones(1), "logistic")


def test_the_fast_logsumexp_is_scipys_bit_for_bit():
    """float_logsumexp (the float64 path of log L) against scipy.special.logsumexp over the last axis: the same
    bits and types, for ties at the maximum, wide ranges and the edge cases scipy hands to its direct formula."""
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 5, 8, 9, 17, 100):
        for shape in ((n,), (3, n), (2, 4, n)):
            for scale in (1.0, 50.0, 800.0, 1e5):
                values = rng.standard_normal(shape) * scale
                values[..., 0] = values[..., -1] if n > 2 and scale == 50.0 else values[..., 0]  # a tie
                expected, got = logsumexp(values, axis=-1), float_logsumexp(values)
                assert type(got) is type(expected) and np.array_equal(got, expected)
    inf, nan = np.inf, np.nan
    for edge in ([inf, 1.0], [-inf, -inf], [nan, 1.0], [1e308, 1e308], [-inf, 0.0], [inf, -inf], [1e308, -1e308],
                 [[1.0, -inf], [nan, 2.0]]):
        values = np.array(edge)
        assert np.array_equal(float_logsumexp(values), logsumexp(values, axis=-1), equal_nan=True)


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
@pytest.mark.parametrize("mean", [False, True])
def test_log_value_and_descent_is_log_value_then_descent(loss, mean):
    """The loss clock's one-pass (log L, −∇L/L) against log_value and descent(θ, −log L), bit for bit, on the
    generic backend (a tensor network) and through a compiled field (a small dense network)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4, 3))
    y = np.sign(rng.standard_normal(4))
    for model in (diagonal_tensor(3, 3), fully_connected([3, 2, 1])):
        objective = Objective(model, X, y, loss, mean=mean)
        for scale in (0.5, 3.0, 40.0):
            theta = scale * rng.standard_normal(model.n_params)
            log_loss, direction = objective.log_value_and_descent(theta)
            assert log_loss == float(objective.log_value(theta))
            assert np.array_equal(direction, objective.descent(theta, log_scale=-log_loss))


@pytest.mark.parametrize("X, Y, problem", [
    (np.ones((4, 3)), np.ones(4), r"inputs of dimension 2: X must be n × 2, got shape \(4, 3\)"),  # a wider X
    (np.ones(4), np.ones(4), r"X must be n × 2, got shape \(4,\)"),
    (np.ones((4, 2)), np.ones((4, 1)), r"labels Y of shape \(n,\), got \(4, 1\)"),
    (np.ones((4, 2)), np.ones(3), r"n = 4 labels Y of shape \(n,\), got \(3,\)"),
])
def test_an_objective_refuses_data_that_do_not_fit_its_model(X, Y, problem: str) -> None:
    """The compiled fields would read the first d_in columns of a wider X, and a (n, 1) label column would
    broadcast: both are refused when the objective is built."""
    with pytest.raises(ValueError, match=problem):
        Objective(fully_connected([2, 3, 1]), X, Y, "logistic")
