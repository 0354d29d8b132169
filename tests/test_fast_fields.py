"""Compiled float64 fields (numerics.compiled_fields) against the generic backend, quantity by quantity, to rounding:
loss, log-loss, margins, pre-activations, descent direction and gradient (numpy backend), the margins' Jacobian
(generic backprop), ∇ log L and the descent direction's Jacobian (torch autograd through the generic backend), on
the architectures the margin claims flow (dense ReLU, shared-weight convolution, diagonal linear and ReLU, leaky
ReLU), both margin losses, sum and mean. Then the flow's analytic Jacobian against finite differences of its field
on every clock, whole flows and local searches against the generic path, the choice of path, and the cache of exact
algebraic fields."""

from __future__ import annotations

import dataclasses
import pickle
import warnings

import numpy as np
import pytest
import sympy
from sympy.polys.constructor import construct_domain

from numerics import exact as E
from numerics import kkt
from numerics.compiled_fields import (
    DESCENT_JACOBIAN,
    MARGIN_JACOBIAN,
    CompiledField,
    NetworkSquareField,
    TensorNetworkField,
    TensorNetworkSquareField,
    compiled_field,
    field_architecture,
    field_source,
    generic_only,
)
from numerics.descent import gradient_descent
from numerics.flows import CLOCKS, FlowStatus, GradientFlow, hidden_preactivations, log_loss_below
from numerics.losses import Objective
from numerics.networks import Dense, Layer, Network, diagonal, disjoint_patches, fully_connected, leaky_relu_network
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the generic e^{-q} at ‖θ‖ = 30

ROUNDING = 1e-12  # relative to the largest entry: a few ulps of the sums involved


def rng_data(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, np.where(rng.random(n) < 0.5, -1.0, 1.0)


NETWORKS = {  # the margin claims' kinds of networks (thm2.1's three instances, thm5.1's diagonal ReLU net, leaky)
    "dense relu 2-3-1": (fully_connected([2, 3, 1], "relu"), 6),
    "2-patch convolution": (Network((disjoint_patches(2, 2), Dense(1, 2)), "linear"), 5),
    "diagonal depth 3": (diagonal(3, 3, "linear"), 4),
    "diagonal relu depth 4, σ'(0) = 1/2": (diagonal(2, 4, "relu", relu_slope_at_zero=0.5), 3),
    "leaky relu 2-3-2-1": (leaky_relu_network([Dense(3, 2), Dense(2, 3), Dense(1, 2)], 0.1), 5),
}
CASES = [(name, loss, mean) for name in NETWORKS for loss in ("exponential", "logistic") for mean in (False, True)]


def objective(name: str, loss: str, mean: bool = False, seed: int = 0) -> Objective:
    net, n = NETWORKS[name]
    X, y = rng_data(seed, n, net.d_in)
    return Objective(net, X, y, loss, mean)


def close(actual: np.ndarray, expected: np.ndarray, rtol: float = ROUNDING) -> None:
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    scale = max(float(np.max(np.abs(expected), initial=0.0)), 1e-300)
    assert actual.shape == expected.shape
    assert float(np.max(np.abs(actual - expected), initial=0.0)) <= rtol * scale, (actual, expected)


@pytest.mark.parametrize("name, loss, mean", CASES)
def test_values_and_descent_match_the_generic_backend(name: str, loss: str, mean: bool) -> None:
    obj = objective(name, loss, mean)
    field = obj.compiled()
    assert field is not None
    rng = np.random.default_rng(1)
    with generic_only():
        generic = Objective(obj.model, obj.X, obj.Y, loss, mean)
        for scale in (0.5, 3.0, 30.0):  # up to losses far below the float range
            theta = scale * rng.normal(size=obj.model.n_params)
            assert generic.compiled(theta) is None
            log_loss = float(generic.log_value(theta))
            shift = 0.7 - log_loss  # e^shift·(−∇L) stays O(1) however small or large L is
            point = field.evaluate(theta, shift, False)
            assert point.log_loss == pytest.approx(log_loss, rel=ROUNDING, abs=ROUNDING)
            assert point.loss == pytest.approx(float(generic.value(theta)), rel=ROUNDING, abs=1e-300)
            close(point.margins, generic.margins(theta))
            close(point.preactivations, hidden_preactivations(generic, theta))
            exponent = ROUNDING * max(1.0, float(np.max(np.abs(point.margins))))  # e^{−q + shift}: |q|·ε relative
            close(point.descent, generic.descent(theta, shift), exponent)
            close(field.evaluate(theta, -log_loss, False).descent, field.evaluate(theta, 0.0, True).descent, exponent)
            close(field.evaluate(theta, 0.0, True).descent, generic.descent(theta, -log_loss), exponent)
            # the Objective's own methods take the compiled path for one float64 vector
            if scale < 10:  # e^{-q} stays in range
                close(obj.gradient(theta), generic.gradient(theta))
            assert float(obj.log_value(theta)) == pytest.approx(log_loss, rel=ROUNDING, abs=ROUNDING)


@pytest.mark.parametrize("name", list(NETWORKS))
def test_margin_jacobian_matches_backprop(name: str) -> None:
    obj = objective(name, "exponential")
    theta = np.random.default_rng(2).normal(size=obj.model.n_params)
    expected = obj.Y[:, None] * obj.model.jacobian(theta, obj.X)[:, 0, :]
    close(obj.compiled().evaluate(theta, want=DESCENT_JACOBIAN).margin_jacobian, expected)


def jacobians_match_autograd(obj: Objective) -> None:
    """The field's descent Jacobian (with and without normalize), ∇ log L and ∂q/∂θ against torch autograd through
    the generic backend."""
    import torch  # imported here: collection stays free of torch's 2 s import

    tobj = Objective(obj.model, torch.tensor(obj.X), torch.tensor(obj.Y), obj.loss, obj.mean)
    theta = 0.8 * np.random.default_rng(3).normal(size=obj.model.n_params)
    for normalize in (False, True):
        point = obj.compiled().evaluate(theta, 0.3, normalize, DESCENT_JACOBIAN)

        def direction(t: torch.Tensor) -> torch.Tensor:
            return tobj.descent(t, 0.3 - tobj.log_value(t) if normalize else 0.3)

        for actual, function in ((point.descent_jacobian, direction), (point.log_loss_gradient, tobj.log_value),
                                 (point.margin_jacobian, tobj.margins)):
            close(actual, torch.autograd.functional.jacobian(function, torch.tensor(theta)).numpy(), 1e-11)


@pytest.mark.parametrize("name, loss, mean", CASES)
def test_descent_jacobian_matches_autograd_of_the_generic_field(name: str, loss: str, mean: bool) -> None:
    jacobians_match_autograd(objective(name, loss, mean))


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("track_time", [False, True])
def test_flow_jacobian_against_finite_differences(clock: str, track_time: bool) -> None:
    flow = GradientFlow(objective("dense relu 2-3-1", "logistic"))
    rng = np.random.default_rng(4)
    theta = 1.5 * rng.normal(size=flow.objective.model.n_params)
    z = np.append(theta, 0.4) if track_time and clock in ("loss", "arclength") else theta
    analytic = flow.jacobian(clock, 0.25, z, track_time)
    numeric = np.empty_like(analytic)
    for k in range(z.size):  # central differences: within one activation region the field is smooth
        h = 1e-6 * max(1.0, abs(z[k]))
        e = np.zeros(z.size)
        e[k] = h
        ahead, behind = flow.field(clock, 0.25, z + e, track_time), flow.field(clock, 0.25, z - e, track_time)
        numeric[:, k] = (ahead - behind) / (2 * h)
    close(analytic, numeric, 1e-7)


def test_flows_agree_with_the_generic_path() -> None:
    """An arc-length BDF flow (thm2.1's kind) and a log-clock LSODA flow across kinks, with and without compiled
    fields: the same stops and crossings, the same points to the solvers' tolerance. (At rtol 1e-8 the generic
    path's finite-difference Jacobian already costs BDF 6e-4 in θ on this flow; the analytic one does not.)"""
    obj = objective("dense relu 2-3-1", "exponential", seed=5)
    X, y = obj.X, obj.Y
    y = np.sign(X[:, 0] + 0.3 * X[:, 1])  # separable by a ReLU network
    obj = Objective(obj.model, X, y, "exponential")
    theta0 = 0.5 * np.random.default_rng(6).normal(size=obj.model.n_params)
    runs = {}
    for compiled in (True, False):
        with generic_only() if not compiled else _nothing():
            flow = GradientFlow(Objective(obj.model, X, y, "exponential"))
            assert (flow.compiled is not None) is compiled
            runs[compiled] = (
                flow.solve(theta0, np.inf, clock="arclength", method="BDF", rtol=1e-10, atol=1e-12,
                           stop=[lambda t, th: 30.0 - float(np.linalg.norm(th))]),
                flow.solve(theta0, 1e6, clock="log", rtol=1e-10, atol=1e-12, t_eval=np.array([1.0, 1e3, 1e6])))
    for fast, generic in zip(runs[True], runs[False]):
        assert fast.status == generic.status and fast.n_crossings == generic.n_crossings
        assert np.allclose(fast.final, generic.final, rtol=1e-5, atol=1e-6)
    assert 0.5 < runs[True][0].nfev / runs[False][0].nfev < 2  # Jacobians charged as len(z) evaluations


def test_local_search_agrees_with_the_generic_path() -> None:
    net, theta = fully_connected([2, 2, 1], "relu"), np.array([1.0, 0.2, -0.3, 1.0, 1.0, 1.0])
    X, y = np.array([[1.0, 0.1], [0.2, 1.0], [0.6, 0.5]]), np.ones(3)
    fast = kkt.local_search(net, theta, X, y, 0.3, starts=4)
    with generic_only():
        generic = kkt.local_search(net, theta, X, y, 0.3, starts=4)
    assert fast.improved == generic.improved
    assert fast.best_cost == pytest.approx(generic.best_cost, rel=1e-7)


class _Doubled(Layer):
    """A layer whose entries are 2·u (not a single parameter): the generic backend serves it."""

    shape, n_params = (1, 2), 2

    def matrix(self, u):
        return 2 * u.reshape(*u.shape[:-1], 1, 2)

    def pullback(self, G):
        return 2 * G.reshape(*G.shape[:-2], 2)


def test_which_inputs_take_the_compiled_path() -> None:
    obj = objective("dense relu 2-3-1", "logistic")
    theta = np.ones(obj.model.n_params)
    assert obj.compiled(theta) is not None
    assert obj.compiled(theta[None, :]) is None  # a batch of runs
    assert obj.compiled(theta.astype(object)) is None  # mpmath / sympy
    assert obj.compiled(theta.astype(np.float32)) is None
    assert isinstance(Objective(obj.model, obj.X, obj.Y[:, None], "square").compiled(), NetworkSquareField)
    assert Objective(obj.model, obj.X.astype(object), obj.Y, "logistic").compiled() is None
    assert field_architecture(Objective(Network((_Doubled(),)), obj.X, obj.Y, "logistic")) is None
    with generic_only():
        assert Objective(obj.model, obj.X, obj.Y, "logistic").compiled() is None
        assert compiled_field(obj) is None
    source = field_source(field_architecture(obj))
    assert source.startswith("def field(") and "Dt8 = 1.0 if m == 8 else 0.0" in source
    shared = field_architecture(objective("2-patch convolution", "logistic"))
    assert shared.maps[0] == ((1, 2, 0, 0), (0, 0, 1, 2))  # one filter, both patches
    kinked = dataclasses.replace(NETWORKS["diagonal depth 3"][0], activation="relu")
    assert field_architecture(Objective(kinked, *rng_data(0, 4, 3), "logistic")).kinked


def test_objectives_and_fields_pickle() -> None:
    obj = objective("2-patch convolution", "logistic")
    theta = np.linspace(-1.0, 1.0, obj.model.n_params)
    field = obj.compiled()
    copy = pickle.loads(pickle.dumps(obj))  # sweeps send objectives to worker processes
    assert "_compiled_field" not in copy.__dict__ and copy.log_value(theta) == obj.log_value(theta)
    assert pickle.loads(pickle.dumps(field)).log_value(theta) == field.log_value(theta)


def test_exact_fields_are_built_once_and_equal_sympys() -> None:
    entries = [sympy.sqrt(2) / 3 + sympy.Rational(1, 2), 1 + sympy.sqrt(6), sympy.root(2, 3) * sympy.sqrt(3)]
    expanded = [sympy.expand(e) for e in entries]
    E._algebraic_field.cache_clear()
    for _ in range(3):
        domain, elements = E._field(entries)
        reference_domain, reference = construct_domain(expanded, extension=True)
        assert domain == reference_domain and list(elements) == list(reference)
    assert E._algebraic_field.cache_info().misses == 1
    assert E._algebraic_elements([sympy.pi + 1]) is None  # not algebraic: sympy's own path decides
    assert E._algebraic_elements([sympy.Float(0.5) * sympy.sqrt(2)]) is None
    assert E.dot([sympy.sqrt(2), 1], [sympy.sqrt(2), sympy.sqrt(3)]) == 2 + sympy.sqrt(3)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


# -- linear tensor networks (numerics.compiled_fields.TensorNetworkField) --------------------------------------------
TENSORS = {  # the tensor paper's kinds: a random data tensor, a sparse one of degree 3, and the three encodings
    "random basis (3, 3, 4)": (LinearTensorNetwork(np.random.default_rng(11).normal(size=(3, 3, 4))), 4),
    "sparse basis (2, 3, 2, 2)": (LinearTensorNetwork(np.random.default_rng(12).normal(size=(2, 3, 2, 2))
                                                      * (np.random.default_rng(13).random((2, 3, 2, 2)) < 0.5)), 3),
    "fully connected (3, 2, 2)": (fully_connected_tensor([3, 2, 2]), 4),
    "convolution d = 5, filters (3, 4)": (convolutional_tensor(5, [3, 4]), 3),
    "diagonal d = 3, depth 3": (diagonal_tensor(3, 3), 4),
}
TENSOR_CASES = [(name, loss, mean) for name in TENSORS for loss in ("exponential", "logistic")
                for mean in (False, True)]


def tensor_objective(name: str, loss: str, mean: bool = False, seed: int = 0) -> Objective:
    net, n = TENSORS[name]
    X, y = rng_data(seed, n, net.d_in)
    return Objective(net, X, y, loss, mean)


@pytest.mark.parametrize("name, loss, mean", TENSOR_CASES)
def test_tensor_fields_match_the_generic_backend(name: str, loss: str, mean: bool) -> None:
    """Log-loss, loss, margins, the descent direction at several scales (and under normalize) and the Objective's
    own methods, against the generic backend (β by einsum contractions) to rounding."""
    obj = tensor_objective(name, loss, mean)
    field = obj.compiled()
    assert isinstance(field, TensorNetworkField)
    rng = np.random.default_rng(1)
    with generic_only():
        generic = Objective(obj.model, obj.X, obj.Y, loss, mean)
        assert generic.compiled() is None
    for scale in (0.5, 2.0, 6.0):  # up to losses far below the float range (degree 2–3: q grows like scale^L)
        theta = scale * rng.normal(size=obj.model.n_params)
        with generic_only():
            log_loss = float(generic.log_value(theta))
            expected = (generic.margins(theta), generic.descent(theta, 0.7 - log_loss), generic.value(theta))
        point = field.evaluate(theta, 0.7 - log_loss, False)
        assert point.log_loss == pytest.approx(log_loss, rel=ROUNDING, abs=ROUNDING)
        assert point.loss == pytest.approx(float(expected[2]), rel=ROUNDING, abs=1e-300)
        close(point.margins, expected[0])
        exponent = ROUNDING * max(1.0, float(np.max(np.abs(point.margins))))
        close(point.descent, expected[1], exponent)
        close(field.evaluate(theta, 0.7, True).descent, expected[1], exponent)
        assert point.preactivations.size == 0  # linear: no hidden pre-activations
        assert float(obj.log_value(theta)) == pytest.approx(log_loss, rel=ROUNDING, abs=ROUNDING)


@pytest.mark.parametrize("name, loss, mean", TENSOR_CASES)
def test_tensor_field_jacobians_match_autograd(name: str, loss: str, mean: bool) -> None:
    jacobians_match_autograd(tensor_objective(name, loss, mean))


def test_a_tensor_network_and_its_layered_network_have_the_same_field() -> None:
    """The fully connected encoding and the linear network it encodes (same θ, v_l = vec(W_l) column-major): the
    tensor field and the generated network field agree, Jacobian included."""
    X, y = rng_data(8, 4, 3)
    theta = 0.9 * np.random.default_rng(9).normal(size=12)
    tensor = Objective(fully_connected_tensor([3, 2, 2]), X, y, "logistic").compiled()
    layered = Objective(fully_connected([3, 2, 2, 1], "linear"), X, y, "logistic").compiled()
    assert isinstance(layered, CompiledField)
    for normalize in (False, True):
        a, b = (field.evaluate(theta, 0.1, normalize, DESCENT_JACOBIAN) for field in (tensor, layered))
        assert a.log_loss == pytest.approx(b.log_loss, rel=ROUNDING)
        for name in ("margins", "descent", "margin_jacobian", "log_loss_gradient", "descent_jacobian"):
            close(getattr(a, name), getattr(b, name))


def test_tensor_flows_agree_with_the_generic_path() -> None:
    """A loss-clock LSODA flow of the data-tensor kind to Q = 1e3, with the analytic Jacobian and with finite
    differences: the same stop and the same point to the solver's tolerance."""
    obj = tensor_objective("random basis (3, 3, 4)", "exponential", seed=4)
    X = obj.X
    y = np.sign(X[:, 0] + 0.2)
    theta0 = 0.5 * np.random.default_rng(7).normal(size=obj.model.n_params)
    runs = {}
    for compiled in (True, False):
        with generic_only() if not compiled else _nothing():
            objective_ = Objective(obj.model, X, y, "exponential")
            flow = GradientFlow(objective_)
            assert (flow.compiled is not None) is compiled
            runs[compiled] = flow.solve(theta0, np.inf, clock="loss", method="LSODA", rtol=1e-10,
                                        stop=[log_loss_below(objective_, -1e3)], max_evaluations=100_000)
    fast, generic = runs[True], runs[False]
    assert fast.status == generic.status == FlowStatus.STOPPED
    assert np.allclose(fast.final, generic.final, rtol=1e-5, atol=1e-6)
    assert 0.5 < fast.nfev / generic.nfev < 2  # Jacobians charged as len(z) evaluations


# -- the square loss on linear tensor networks (numerics.compiled_fields.TensorNetworkSquareField) --------------------
SQUARE_CASES = [(name, mean) for name in TENSORS for mean in (False, True)]


def square_objective(name: str, mean: bool = False, seed: int = 0) -> Objective:
    net, n = TENSORS[name]
    X, _ = rng_data(seed, n, net.d_in)
    return Objective(net, X, np.random.default_rng(seed + 1).normal(size=(n, 1)), "square", mean)


@pytest.mark.parametrize("name, mean", SQUARE_CASES)
def test_square_fields_match_the_generic_backend_bit_for_bit(name: str, mean: bool) -> None:
    """Loss, log-loss, the descent direction at a scale and normalized (the loss clock's field), and the Objective's
    own methods: the same operations as the generic backend, so the same bits."""
    obj = square_objective(name, mean)
    field = obj.compiled()
    assert isinstance(field, TensorNetworkSquareField)
    with generic_only():
        generic = Objective(obj.model, obj.X, obj.Y, "square", mean)
    rng = np.random.default_rng(2)
    for scale in (0.3, 1.0, 3.0):
        theta = scale * rng.normal(size=obj.model.n_params)
        with generic_only():
            expected = (float(generic.value(theta)), float(generic.log_value(theta)), generic.descent(theta, 0.7),
                        *generic.log_value_and_descent(theta), generic.model.forward(theta, generic.X)[:, 0])
        point = field.evaluate(theta, 0.7)
        assert (point.loss, point.log_loss) == expected[:2]
        assert np.array_equal(point.descent, expected[2])
        assert np.array_equal(point.margins, expected[5])  # the outputs: the square loss has no labels
        normalized = field.evaluate(theta, 0.0, True)
        assert normalized.log_loss == expected[3] and np.array_equal(normalized.descent, expected[4])
        assert (float(obj.value(theta)), float(obj.log_value(theta))) == expected[:2]
        assert np.array_equal(obj.descent(theta, 0.7), expected[2])


@pytest.mark.parametrize("name, mean", SQUARE_CASES)
def test_square_field_jacobians_match_autograd(name: str, mean: bool) -> None:
    """The descent Jacobian (scaled, and normalized: minus d ∇log Lᵀ), ∇ log L and the outputs' Jacobian against
    torch autograd through the generic backend."""
    import torch

    obj = square_objective(name, mean)
    tobj = Objective(obj.model, torch.tensor(obj.X), torch.tensor(obj.Y), "square", mean)
    theta = 0.8 * np.random.default_rng(3).normal(size=obj.model.n_params)
    for normalize in (False, True):
        point = obj.compiled().evaluate(theta, 0.3, normalize, DESCENT_JACOBIAN)

        def direction(t: torch.Tensor) -> torch.Tensor:
            return tobj.descent(t, 0.3 - tobj.log_value(t) if normalize else 0.3)

        def outputs(t: torch.Tensor) -> torch.Tensor:
            return tobj.model.forward(t, tobj.X)[:, 0]

        for actual, function in ((point.descent_jacobian, direction), (point.log_loss_gradient, tobj.log_value),
                                 (point.margin_jacobian, outputs)):
            close(actual, torch.autograd.functional.jacobian(function, torch.tensor(theta)).numpy(), 1e-11)


def test_square_fields_serve_only_float_data_with_one_output() -> None:
    obj = square_objective("diagonal d = 3, depth 3")
    assert isinstance(Objective(obj.model, obj.X, obj.Y, "square").compiled(), TensorNetworkSquareField)
    with pytest.raises(ValueError, match=r"shape \(n, d_out\)"):  # two targets for one output
        Objective(obj.model, obj.X, np.hstack([obj.Y, obj.Y]), "square")
    with pytest.raises(ValueError, match=r"got \(\d+,\)"):  # (n,) would broadcast into an n × n residual
        Objective(obj.model, obj.X, obj.Y[:, 0], "square")
    assert Objective(obj.model, obj.X.astype(object), obj.Y, "square").compiled() is None  # exact data
    assert Objective(obj.model, obj.X, obj.Y.astype(object), "square").compiled() is None
    assert obj.compiled(np.ones(obj.model.n_params).astype(object)) is None
    field = obj.compiled()
    with pytest.raises(ValueError, match="shape"):
        field.evaluate(np.ones(obj.model.n_params + 1))
    fitted = obj.compiled().evaluate(np.zeros(obj.model.n_params), normalize=True)  # β = 0: L = ½‖y‖² > 0
    assert np.isfinite(fitted.log_loss)
    exact = Objective(obj.model, obj.X, np.zeros_like(obj.Y), "square").compiled()
    at_zero = exact.evaluate(np.zeros(obj.model.n_params))  # y = 0 fitted exactly at θ = 0: log L = −∞
    assert at_zero.loss == 0.0 and at_zero.log_loss == -np.inf and not np.any(at_zero.descent)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ∇ log L = 0/0 at the exact fit: expected, not warned about
        full = exact.evaluate(np.zeros(obj.model.n_params), normalize=True, want=DESCENT_JACOBIAN)
    assert not np.any(np.isfinite(full.log_loss_gradient))


def test_square_loss_tensor_flows_agree_with_the_generic_path() -> None:
    """The regression claims' flow (log clock, LSODA) with the analytic Jacobian and with finite differences: the
    same end point to the solver's tolerance (Jacobians charged as len(θ) evaluations)."""
    obj = square_objective("fully connected (3, 2, 2)", seed=5)
    theta0 = 0.3 * np.random.default_rng(6).normal(size=obj.model.n_params)
    runs = {}
    for compiled in (True, False):
        with generic_only() if not compiled else _nothing():
            flow = GradientFlow(Objective(obj.model, obj.X, obj.Y, "square"))
            assert (flow.compiled is not None) is compiled
            runs[compiled] = flow.solve(theta0, 1e6, clock="log", rtol=1e-11, atol=1e-13)
    fast, generic = runs[True], runs[False]
    assert fast.status == generic.status == FlowStatus.COMPLETED
    assert np.allclose(fast.final, generic.final, rtol=1e-6, atol=1e-8)
    assert 0.5 < fast.nfev / generic.nfev < 2


# -- the square loss on networks (numerics.compiled_fields.NetworkSquareField) ----------------------------------------
SQUARE_NETWORKS = {  # NETWORKS with regression targets, and the rank paper's 2 × 2 × 2 ReLU network (two outputs)
    **{name: (net, n, 1) for name, (net, n) in NETWORKS.items()},
    "rank relu 2-2-2": (fully_connected([2, 2, 2], "relu"), 2, 2),
    "relu 3-4-2-3, σ'(0) = 1/2": (fully_connected([3, 4, 2, 3], "relu", relu_slope_at_zero=0.5), 5, 3),
}


def network_square_objective(name: str, mean: bool = False, seed: int = 0) -> Objective:
    net, n, outputs = SQUARE_NETWORKS[name]
    X, _ = rng_data(seed, n, net.d_in)
    return Objective(net, X, np.random.default_rng(seed + 1).normal(size=(n, outputs)), "square", mean)


def at_a_kink(obj: Objective, theta: np.ndarray) -> np.ndarray:
    """θ with the first hidden unit's incoming weights zero: its pre-activations are exactly 0 on every sample."""
    first = obj.model.layers[0]
    kinked = theta.copy()
    if first.n_params == first.shape[0] * first.shape[1]:  # dense: row 0 of W_1
        kinked[:first.shape[1]] = 0.0
    else:
        kinked[:1] = 0.0
    return kinked


@pytest.mark.parametrize("mean", [False, True])
@pytest.mark.parametrize("name", list(SQUARE_NETWORKS))
def test_network_square_fields_match_the_generic_backend_bit_for_bit(name: str, mean: bool) -> None:
    """Loss, log-loss, outputs, hidden pre-activations and the descent direction (at a scale, and normalized: the
    loss clock's field), on and off kinks: the generic backend's operations, so its bits."""
    obj = network_square_objective(name, mean)
    field = obj.compiled()
    assert isinstance(field, NetworkSquareField) and not field.analytic_jacobian
    with generic_only():
        generic = Objective(obj.model, obj.X, obj.Y, "square", mean)
    rng = np.random.default_rng(2)
    for scale in (0.3, 1.0, 3.0):
        for theta in (scale * rng.normal(size=obj.model.n_params),):
            for point in (theta, at_a_kink(obj, theta)):
                with generic_only():
                    expected = (float(generic.value(point)), float(generic.log_value(point)),
                                generic.descent(point, 0.7), *generic.log_value_and_descent(point),
                                generic.model.forward(point, generic.X), hidden_preactivations(generic, point))
                evaluation = field.evaluate(point, 0.7)
                assert (evaluation.loss, evaluation.log_loss) == expected[:2]
                assert np.array_equal(evaluation.descent, expected[2])
                assert np.array_equal(evaluation.margins, expected[5])  # the outputs
                assert np.array_equal(evaluation.preactivations, expected[6])
                normalized = field.evaluate(point, 0.0, True)
                assert normalized.log_loss == expected[3] and np.array_equal(normalized.descent, expected[4])
                assert (float(obj.value(point)), float(obj.log_value(point))) == expected[:2]
                assert np.array_equal(obj.descent(point, 0.7), expected[2])
                assert np.array_equal(hidden_preactivations(obj, point), expected[6])


def test_network_square_fields_serve_float64_data_and_offer_no_jacobian() -> None:
    obj = network_square_objective("rank relu 2-2-2")
    assert isinstance(obj.compiled(), NetworkSquareField)
    assert Objective(obj.model, obj.X.astype(object), obj.Y, "square").compiled() is None  # exact data
    assert Objective(obj.model, obj.X, obj.Y.astype(np.float32), "square").compiled() is None
    with pytest.raises(ValueError, match="shape"):  # targets not n × d_out: refused by the objective itself
        Objective(obj.model, obj.X, obj.Y[:, 0], "square")
    assert obj.compiled(np.ones(obj.model.n_params).astype(object)) is None
    field = obj.compiled()
    with pytest.raises(ValueError, match="shape"):
        field.evaluate(np.ones(obj.model.n_params + 1))
    for want in (MARGIN_JACOBIAN, DESCENT_JACOBIAN):
        with pytest.raises(NotImplementedError, match="Jacobians"):
            field.evaluate(np.ones(obj.model.n_params), want=want)
    fitted = Objective(obj.model, obj.X, np.zeros_like(obj.Y), "square").compiled()
    at_zero = fitted.evaluate(np.zeros(obj.model.n_params))  # y = 0 fitted at θ = 0: log L = −∞, no warning
    assert at_zero.loss == 0.0 and at_zero.log_loss == -np.inf and not np.any(at_zero.descent)


@pytest.mark.parametrize("seed", [3, 4, 5])  # one kink crossing then sliding; no crossing; two crossings
def test_network_square_flows_and_descent_are_the_generic_ones_bit_for_bit(seed: int) -> None:
    """The rank paper's flow (real clock, LSODA, which differences the field where it turns stiff, across kinks) and
    gradient descent, with the numpy field and on the generic backend: the same field bits give the same runs."""
    obj = network_square_objective("rank relu 2-2-2", seed=seed)
    theta0 = 0.5 * np.random.default_rng(seed + 10).normal(size=obj.model.n_params)
    flows, descents = {}, {}
    for fast in (True, False):
        with generic_only() if not fast else _nothing():
            fresh = Objective(obj.model, obj.X, obj.Y, "square")
            flow = GradientFlow(fresh)
            assert (flow.compiled is not None) is fast
            flows[fast] = flow.solve(theta0, 1e4, t_eval=np.array([1.0, 10.0, 1e3, 1e4]))
            descents[fast] = gradient_descent(fresh, theta0, 200, 0.05, record_every=20)
    assert flows[True].status == flows[False].status and flows[True].nfev == flows[False].nfev
    assert np.array_equal(flows[True].theta, flows[False].theta) and np.array_equal(flows[True].t, flows[False].t)
    assert np.array_equal(flows[True].crossing_times, flows[False].crossing_times)
    assert np.array_equal(descents[True].theta, descents[False].theta)
    assert np.array_equal(descents[True].loss, descents[False].loss)
