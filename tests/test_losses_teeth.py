"""Edges of numerics.losses that the accuracy tests of tests/test_losses.py leave open.

Pinned here: the logistic loss ℓ(q) = log(1 + e^{−q}) in its three number systems (ℓ(0) = log 2); the slopes
d/dq log(−ℓ'(q)) of both losses against closed forms (−1; −σ(q), so −1/2 at 0 and −3/4 at log 3); the torch
log value differentiable by autograd (d/dq log ℓ(q) = −1/((1 + e^q) ℓ(q)), exact at the switch of branches, q = 0,
and finite for q ≤ −800, where e^{−|q|} underflows); logsumexp over the last axis in every number system
(object arrays in closed form, batched torch tensors, float32 and empty float arrays as scipy's), the fast
float path's division of the rest by the count of maxima, its overflow-free shift (no floating-point warning
for values within the float range), the fallback of its general path on batches and the scalar it returns;
which θ the compiled field serves; the objective on the generic backend: the 1/n of a mean (n samples, not the
input dimension), log L = log of L for sums and means, the batched sum over samples, the gradient of a mean
margin loss, the square loss's scaled descent, and the loss clock's missing direction where log L = −∞.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from scipy.special import logsumexp

from numerics import backend as B
from numerics.compiled_fields import generic_only
from numerics.losses import (
    ExponentialLoss,
    LogisticLoss,
    MarginLoss,
    Objective,
    _logsumexp,
    float_logsumexp,
    margin_loss,
)
from numerics.networks import diagonal, fully_connected

MAX = float(np.finfo(float).max)


# -- losses -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("q", [-3.0, 0.0, 0.5, 2.0, 30.0])
def test_logistic_value_in_every_number_system(q):
    import torch
    exact = math.log1p(math.exp(-q))
    loss = LogisticLoss()
    assert loss.value(np.array([q]))[0] == pytest.approx(exact, rel=1e-15)
    assert loss.value(torch.tensor([q], dtype=torch.float64)).item() == pytest.approx(exact, rel=1e-15)
    with mpmath.workdps(40):
        got = loss.value(np.array([mpmath.mpf(q)], dtype=object))[0]
        assert got == mpmath.log1p(mpmath.exp(-mpmath.mpf(q)))
    assert LogisticLoss().value(np.array([0.0]))[0] == pytest.approx(math.log(2), rel=1e-16)


def test_log_neg_derivative_slopes_are_closed_forms():
    q = np.array([-40.0, -math.log(3), 0.0, math.log(3), 40.0])
    np.testing.assert_array_equal(ExponentialLoss().log_neg_derivative_slope(q), -np.ones(5))
    # d/dq −log(1 + e^q) = −σ(q): −1/4, −1/2, −3/4 at −log 3, 0, log 3
    slopes = LogisticLoss().log_neg_derivative_slope(q)
    np.testing.assert_allclose(slopes, [-1 / (1 + math.exp(40.0)), -0.25, -0.5, -0.75, -1 / (1 + math.exp(-40.0))],
                               rtol=1e-15)


def test_margin_loss_returns_an_instance_as_is():
    class Shifted(ExponentialLoss):
        name = "shifted"

    custom = Shifted()
    assert margin_loss(custom) is custom
    assert isinstance(margin_loss("logistic"), LogisticLoss) and isinstance(custom, MarginLoss)


def test_torch_logistic_log_value_has_exact_finite_gradients():
    """d/dq log ℓ(q) = ℓ'(q)/ℓ(q) = −1/((1 + e^q) log(1 + e^{−q})) by autograd: at q = 0 (the branch point: the
    branch for q > 0 would give −1 there), up to q = 700 (e^{−q} ≈ 1e-304 still a normal float) and for q = −800,
    −10⁴, where u = e^{−|q|} underflows to 0 in the unused branch, whose guard must keep it free of 0/0."""
    import torch
    points = [-1e4, -800.0, -2.0, 0.0, 0.5, 7.0, 700.0]
    q = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    LogisticLoss().log_value(q).sum().backward()
    with mpmath.workdps(50):
        expected = [float(-1 / ((1 + mpmath.exp(p)) * mpmath.log1p(mpmath.exp(-mpmath.mpf(p))))) for p in points]
    got = q.grad.numpy()
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert got[3] == pytest.approx(-1 / (2 * math.log(2)), rel=1e-14)


# -- logsumexp --------------------------------------------------------------------------------------------------

def test_object_logsumexp_is_the_closed_form():
    with mpmath.workdps(40):
        values = np.array([mpmath.log(1), mpmath.log(2), mpmath.log(5)], dtype=object)
        assert abs(_logsumexp(values) - mpmath.log(8)) < mpmath.mpf(10) ** -38
        shifted = np.array([mpmath.mpf(-3), mpmath.mpf(-3)], dtype=object)
        assert abs(_logsumexp(shifted) - (mpmath.log(2) - 3)) < mpmath.mpf(10) ** -38


def test_torch_logsumexp_is_over_the_last_axis():
    import torch
    values = torch.tensor([[0.0, math.log(3)], [1.0, 1.0], [-2.0, 5.0]], dtype=torch.float64)
    got = _logsumexp(values).numpy()
    assert got.shape == (3,)
    np.testing.assert_allclose(got, [math.log(4), 1 + math.log(2), logsumexp([-2.0, 5.0])], rtol=1e-15)


def test_logsumexp_of_other_float_arrays_is_scipys():
    values = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -4.0]], dtype=np.float32)
    got = _logsumexp(values)
    assert got.dtype == np.float32 and got.shape == (2,)
    np.testing.assert_array_equal(got, logsumexp(values, axis=-1))
    assert _logsumexp(np.array([], dtype=np.float64)) == -np.inf  # log of an empty sum
    assert _logsumexp(np.float64(2.5)) == 2.5  # a numpy scalar (what reductions return), as scipy takes it


def test_the_rest_is_divided_by_the_number_of_maxima():
    """log(e⁰ + e⁰ + ½ + ½) = log 3: the rest (exactly 1 here) is divided by the two maxima before log1p."""
    half = math.log(0.5)
    assert np.exp(half) == 0.5
    assert float_logsumexp(np.array([0.0, 0.0, half, half])) == pytest.approx(math.log(3), rel=1e-15)
    got = float_logsumexp(np.array([[0.0, 0.0, half, half], [half, 0.0, 0.0, half]]))
    np.testing.assert_allclose(got, [math.log(3), math.log(3)], rtol=1e-15)


@pytest.mark.parametrize("values, expected", [([9e299, -MAX], 9e299), ([MAX, -9e299], MAX), ([-MAX, 0.0], 0.0),
                                              ([1e300, -1e300], 1e300)])
def test_the_fast_path_never_overflows(values, expected):
    """Values within the float range whose differences overflow give no floating-point warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = float_logsumexp(np.array(values))
    assert got == expected and type(got) is np.float64


def test_general_path_fallback_is_per_row():
    inf = np.inf
    for values in ([[-inf, -inf], [0.0, 1.0]], [[0.0, 1.0], [-inf, -inf]], [[inf, 1.0], [2.0, 2.0]]):
        values = np.array(values)
        np.testing.assert_array_equal(float_logsumexp(values), logsumexp(values, axis=-1))


@pytest.mark.parametrize("edge", [[np.inf, 1.0], [-np.inf, -np.inf], [np.nan, 1.0], [-np.inf, 0.0]])
def test_general_path_returns_a_scalar_for_a_vector(edge):
    got, expected = float_logsumexp(np.array(edge)), logsumexp(np.array(edge), axis=-1)
    assert type(got) is type(expected) is np.float64
    assert np.array_equal(got, expected, equal_nan=True)


# -- the objective --------------------------------------------------------------------------------------------

def _small_margin_objective(loss="logistic", mean=False):
    net = fully_connected([3, 2, 1], "relu")
    X = np.array([[1.0, 0.5, -1.0], [0.2, -0.3, 2.0], [-1.0, 1.0, 0.5], [0.7, 0.1, 0.4]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    return Objective(net, X, y, loss, mean=mean)


def test_the_compiled_field_serves_exactly_one_float64_vector():
    objective = _small_margin_objective()
    theta = np.linspace(-1.0, 1.0, objective.model.n_params)
    assert objective.compiled() is not None  # would one float64 vector be served: yes
    assert objective.compiled(theta) is not None
    assert objective.compiled(np.stack([theta, theta])) is None  # a batch of runs
    assert objective.compiled(theta.astype(np.float32)) is None
    assert objective.compiled(theta.astype(object)) is None
    assert objective.compiled(list(theta)) is None
    assert objective.compiled(np.float64(1.0)) is None
    square = Objective(objective.model, objective.X, np.ones((4, 1)), "square")
    assert type(square.compiled(theta)).__name__ == "NetworkSquareField"  # the square loss: its numpy field
    assert Objective(objective.model, objective.X.astype(object), np.ones((4, 1)), "square").compiled(theta) is None


def test_mean_divides_by_the_number_of_samples():
    """n = 4 samples of dimension 3 (and 2 of dimension 5): a mean is the sum over n, in every path."""
    for n, d in ((4, 3), (2, 5)):
        net = fully_connected([d, 1], "linear")
        rng = np.random.default_rng(n)
        X, theta = rng.standard_normal((n, d)), rng.standard_normal(d)
        y_sq = rng.standard_normal((n, 1))
        total, mean = Objective(net, X, y_sq, "square"), Objective(net, X, y_sq, "square", mean=True)
        assert mean.n == n
        assert mean.value(theta) == pytest.approx(total.value(theta) / n, rel=1e-14)
        np.testing.assert_allclose(mean.gradient(theta), total.gradient(theta) / n, rtol=1e-13)
        y = np.sign(rng.standard_normal(n))
        with generic_only():
            for loss in ("exponential", "logistic"):
                s, m = Objective(net, X, y, loss), Objective(net, X, y, loss, mean=True)
                assert m.log_value(theta) == pytest.approx(s.log_value(theta) - math.log(n), rel=1e-13)
                assert m.log_value(theta) == pytest.approx(math.log(m.value(theta)), rel=1e-13)
                np.testing.assert_allclose(m.descent(theta), s.descent(theta) / n, rtol=1e-13)


@pytest.mark.parametrize("mean", [False, True])
@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_exact_objective_in_closed_form(loss, mean):
    """Linear model Φ = θ·x with mpmath numbers: L, log L, −∇L and the scaled descent against the formulas."""
    with mpmath.workdps(40):
        X = B.to_object([[1, 0], [0, 2], [1, 1]], "mp")
        y = B.to_object([1, -1, 1], "mp")
        theta = B.to_object(["0.5", "-0.25"], "mp")
        objective = Objective(fully_connected([2, 1], "linear"), X, y, loss, mean=mean)
        q = [mpmath.mpf("0.5"), mpmath.mpf("0.5"), mpmath.mpf("0.25")]
        if loss == "exponential":
            ell = [mpmath.exp(-v) for v in q]
            w = [mpmath.exp(-v) for v in q]
        else:
            ell = [mpmath.log1p(mpmath.exp(-v)) for v in q]
            w = [1 / (1 + mpmath.exp(v)) for v in q]
        scale = mpmath.mpf(1) / 3 if mean else 1
        total = scale * sum(ell)
        descent = [scale * sum(w[i] * y[i] * X[i, j] for i in range(3)) for j in range(2)]
        tol = mpmath.mpf(10) ** -35
        assert abs(objective.value(theta) - total) < tol
        assert abs(objective.log_value(theta) - mpmath.log(total)) < tol
        assert all(abs(a - b) < tol for a, b in zip(objective.descent(theta), descent))
        assert all(abs(a + b) < tol for a, b in zip(objective.gradient(theta), descent))
        scaled = objective.descent(theta, log_scale=mpmath.log(2))
        assert all(abs(a - 2 * b) < tol for a, b in zip(scaled, descent))
        lw = objective.log_weights(theta)
        assert all(abs(lw[i] - mpmath.log(scale * w[i])) < tol for i in range(3))


@pytest.mark.parametrize("loss", ["exponential", "logistic", "square"])
def test_batched_runs_on_the_generic_backend(loss):
    """θ of shape runs × p: value, log L and the direction of each run are those of the run alone."""
    import torch
    net = diagonal(3, 2, "linear")
    rng = np.random.default_rng(5)
    X = rng.standard_normal((4, 3))
    Y = rng.standard_normal((4, 1)) if loss == "square" else np.array([1.0, -1.0, 1.0, 1.0])
    objective = Objective(net, X, Y, loss)
    runs = rng.standard_normal((3, net.n_params))
    values, log_values = objective.value(runs), objective.log_value(runs)
    assert values.shape == log_values.shape == (3,)
    for r in range(3):
        assert values[r] == pytest.approx(float(objective.value(runs[r])), rel=1e-13)
        assert log_values[r] == pytest.approx(float(objective.log_value(runs[r])), rel=1e-13)
    t_objective = Objective(net, torch.tensor(X), torch.tensor(Y), loss)
    t_runs = torch.tensor(runs)
    np.testing.assert_allclose(t_objective.value(t_runs).numpy(), values, rtol=1e-13)
    np.testing.assert_allclose(t_objective.log_value(t_runs).numpy(), log_values, rtol=1e-13)


def test_square_descent_is_scaled_minus_gradient():
    net = fully_connected([2, 2, 2], "relu")
    rng = np.random.default_rng(9)
    objective = Objective(net, rng.standard_normal((3, 2)), rng.standard_normal((3, 2)), "square")
    theta = rng.standard_normal(net.n_params)
    gradient = objective.gradient(theta)
    assert np.abs(gradient).max() > 0.1
    np.testing.assert_array_equal(objective.descent(theta), -gradient)
    np.testing.assert_allclose(objective.descent(theta, log_scale=math.log(4)), -4 * gradient, rtol=1e-15)
    np.testing.assert_allclose(objective.descent(theta, log_scale=-math.log(2)), -gradient / 2, rtol=1e-15)
    # the square loss in closed form: L = ½‖Φ − Y‖², log L its log
    r = net.forward(theta, objective.X) - objective.Y
    assert objective.value(theta) == pytest.approx(0.5 * float((r * r).sum()), rel=1e-15)
    assert objective.log_value(theta) == pytest.approx(math.log(0.5 * float((r * r).sum())), rel=1e-15)


def test_loss_clock_has_no_direction_where_log_loss_is_minus_infinity():
    """Margins of +inf (θ = 1e200 on a two-layer linear model): log L = −∞ and no direction, on both backends."""
    net = fully_connected([1, 1, 1], "linear")
    X, y = np.array([[1e200], [2e200]]), np.array([1.0, 1.0])
    theta = np.array([1e200, 1e200])
    for generic in (False, True):
        with generic_only() if generic else warnings.catch_warnings():
            warnings.simplefilter("ignore")
            objective = Objective(net, X, y, "exponential")
            assert (objective.compiled(theta) is None) == generic
            log_loss, direction = objective.log_value_and_descent(theta)
        assert log_loss == -np.inf and direction is None


def test_a_zero_dimensional_array_is_one_value() -> None:
    """scipy's logsumexp reads a 0-d array as one value; so does float_logsumexp (it used to raise IndexError)."""
    from scipy.special import logsumexp

    from numerics.losses import float_logsumexp

    for value in (2.0, -750.0, 1e305, -np.inf):
        expected = logsumexp(np.array(value), axis=-1)
        assert float_logsumexp(np.array(value)) == expected and np.ndim(float_logsumexp(np.array(value))) == 0


def test_logsumexp_takes_the_fast_path_exactly_for_nonempty_float64_ndarrays(monkeypatch):
    """The fast path is float_logsumexp (scipy's operations, bit for bit: tests/test_losses.py), taken for a
    nonempty float64 ndarray and for nothing else: not an ndarray subclass (np.matrix keeps two axes under
    max()), not float32, not an empty array."""
    import numpy.ma

    from numerics import losses

    taken = []
    monkeypatch.setattr(losses, "float_logsumexp", lambda values: taken.append(type(values)) or 0.0)
    assert _logsumexp(np.array([1.0, 2.0])) == 0.0 and taken == [np.ndarray]
    for other in (numpy.ma.masked_array([1.0, 2.0]), np.array([1.0, 2.0], dtype=np.float32), np.zeros((2, 0))):
        _logsumexp(other)
    assert taken == [np.ndarray]


def test_margin_descent_weights_each_sample_by_its_label():
    """−∇L = Σ_i −ℓ'(q_i) y_i ∇Φ(θ; x_i), q_i = y_i Φ(θ; x_i): labels other than ±1 (2 and −1/2) on the generic
    backend against the compiled field, and against central differences of L."""
    net, X, y = fully_connected([2, 2, 1], "relu"), np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([2.0, -0.5])
    theta = np.array([0.3, -0.2, 0.5, 0.1, 0.7, -0.4])
    compiled = Objective(net, X, y, "logistic").descent(theta)
    with generic_only():
        generic = Objective(net, X, y, "logistic")
        np.testing.assert_allclose(generic.descent(theta), compiled, rtol=1e-13)
        h = 1e-6
        central = [(generic.value(theta + h * e) - generic.value(theta - h * e)) / (2 * h) for e in np.eye(6)]
    np.testing.assert_allclose(-compiled, central, rtol=1e-7, atol=1e-10)


def test_a_multiprecision_scale_beyond_the_float_range_stays_on_the_generic_path():
    """descent(θ, log_scale) with an mpmath log_scale (a log clock far out: e¹⁰⁰⁰ overflows float64) is computed
    in multiprecision, e¹⁰⁰⁰·(−∇L(θ)) with finite entries; a float log_scale takes the compiled field."""
    net, X, y = fully_connected([2, 2, 1], "relu"), np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0])
    theta = np.array([0.3, -0.2, 0.5, 0.1, 0.7, -0.4])
    objective = Objective(net, X, y, "logistic")
    far = objective.descent(theta, mpmath.mpf(1000))
    assert far.dtype == object and all(mpmath.isfinite(v) for v in far)
    for got, expected in zip(far, objective.descent(theta)):
        assert abs(got / mpmath.exp(1000) - expected) <= 1e-12 * max(abs(expected), 1e-300)


def test_a_model_without_an_input_dimension_takes_any_data_matrix():
    """The input-dimension check applies to models that state one (d_in); a model without the attribute is
    taken with its data as given (it reads X itself)."""

    class Rowsum:
        d_out, n_params = 1, 1

        def forward(self, theta, X):
            return theta[0] * np.sum(X, axis=1, keepdims=True)

    objective = Objective(Rowsum(), np.ones((3, 5)), np.ones((3, 1)), "square")
    assert objective.X.shape == (3, 5)
