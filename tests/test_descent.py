"""Gradient descent: the quadratic case against (I − ηXᵀX)^t, batched runs (torch, and the compiled kernel) against
numpy runs, and the invariants of the growing-ball step-size rule."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics import compiled_descent, descent
from numerics.descent import (
    GrowingBallStep,
    batched_gradient_descent,
    default_device,
    gradient_descent,
    max_layer_norm,
    resolve_engine,
)
from numerics.losses import Objective
from numerics.networks import circular_convolutional, diagonal, fully_connected
from numerics.tensor_network import diagonal_tensor


def regression_problem(n: int, d: int, seed: int = 0) -> tuple[Objective, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X, y, theta0 = rng.standard_normal((n, d)), rng.standard_normal(n), rng.standard_normal(d)
    return Objective(fully_connected([d, 1], "linear"), X, y[:, None], "square"), X, y, theta0


def regression_iterate(X: np.ndarray, y: np.ndarray, theta0: np.ndarray, eta: float, t: int) -> np.ndarray:
    """θ_t = θ0 − V diag((1 − (1 − ηλ)^t)/λ) Vᵀ ∇L(θ0): the error θ − θ* is multiplied by I − ηXᵀX each step."""
    lam, V = np.linalg.eigh(X.T @ X)
    grad = X.T @ (X @ theta0 - y)
    positive = lam > 1e-12 * lam.max()
    gain = np.where(positive, (1 - (1 - eta * lam) ** t) / np.where(positive, lam, 1.0), eta * t)
    return theta0 - V @ (gain * (V.T @ grad))


@pytest.mark.parametrize("n, d", [(6, 3), (2, 4)], ids=["overdetermined", "underdetermined"])
def test_quadratic_matches_closed_form_iterates(n: int, d: int) -> None:
    objective, X, y, theta0 = regression_problem(n, d)
    eta = 1.0 / np.linalg.eigvalsh(X.T @ X).max()
    run = gradient_descent(objective, theta0, 1000, eta, record_every=100)
    assert run.steps.tolist() == list(range(0, 1001, 100))
    assert np.array_equal(run.step_sizes, np.full(1000, eta))
    for t, theta, loss in zip(run.steps, run.theta, run.loss):
        exact = regression_iterate(X, y, theta0, eta, t)
        assert np.max(np.abs(theta - exact)) < 1e-12 * (1 + np.max(np.abs(exact)))
        assert loss == pytest.approx(0.5 * np.sum((X @ exact - y) ** 2), rel=1e-10, abs=1e-14)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5), d=st.integers(1, 4), fraction=st.floats(0.05, 1.9))
def test_quadratic_property(seed: int, n: int, d: int, fraction: float) -> None:
    """Any step η = fraction/λ_max < 2/λ_max (the stable range) follows the closed form."""
    objective, X, y, theta0 = regression_problem(n, d, seed)
    eta = fraction / np.linalg.eigvalsh(X.T @ X).max()
    run = gradient_descent(objective, theta0, 50, eta, record_every=25)
    for t, theta in zip(run.steps, run.theta):
        exact = regression_iterate(X, y, theta0, eta, t)
        assert np.max(np.abs(theta - exact)) < 1e-10 * (1 + np.max(np.abs(exact)))


def test_step_rule_callback_and_checkpoints() -> None:
    objective, _, _, theta0 = regression_problem(6, 3)
    seen: list[tuple[int, float]] = []

    def rule(t: int, theta: np.ndarray, descent: np.ndarray) -> float:
        assert np.array_equal(descent, objective.descent(theta))
        return 0.05 / (1 + t)

    def stop_late(t: int, theta: np.ndarray, descent: np.ndarray, eta: float) -> bool:
        seen.append((t, eta))
        return t == 37

    run = gradient_descent(objective, theta0, 100, rule, record_every=10, callback=stop_late)
    assert run.steps.tolist() == [0, 10, 20, 30, 37]  # the stopping step is always the last checkpoint
    assert np.allclose(run.step_sizes, 0.05 / (1 + np.arange(37)))
    assert seen[-1] == (37, pytest.approx(0.05 / 38)) and len(seen) == 38
    assert np.all(np.diff(run.loss) < 0)


@pytest.mark.parametrize("model, loss", [(fully_connected([3, 4, 1], "relu"), "logistic"),
                                         (diagonal_tensor(3, 2), "exponential"), (diagonal_tensor(3, 2), "square")])
def test_recorded_losses_are_the_objectives_values(model, loss: str) -> None:
    """A compiled field's evaluation at a checkpoint gives the loss with the direction: the recorded losses are
    L(θ) at the recorded iterates bit for bit, the last one (never differentiated) included."""
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(6, 3)), np.sign(rng.normal(size=6))
    objective = Objective(model, X, y[:, None] if loss == "square" else y, loss)
    theta0 = 0.5 * rng.normal(size=model.n_params)
    assert objective.compiled(theta0) is not None
    for every in (1, 7):
        run = gradient_descent(objective, theta0, 30, 0.05, record_every=every)
        assert run.steps[-1] == 30
        assert np.array_equal(run.loss, [float(objective.value(theta)) for theta in run.theta])


# -- the growing-ball rule ---------------------------------------------------------------------------------------
@settings(max_examples=8, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), radius=st.floats(0.1, 2.0), increment=st.sampled_from([0.25, 1.0]))
def test_growing_ball_rule_invariants(seed: int, radius: float, increment: float) -> None:
    rng = np.random.default_rng(seed)
    model = fully_connected([2, 3, 1], "linear")
    X = rng.standard_normal((4, 2))
    objective = Objective(model, X, np.sign(X[:, 0]), "logistic")
    gauge = max_layer_norm(model)
    smoothness = lambda R: 2.0 * max(R, 1.0) ** 2  # noqa: E731 — any nondecreasing β works for the invariants
    rule = GrowingBallStep(smoothness, gauge, radius=radius, max_step=0.4, increment=increment)
    iterates: list[np.ndarray] = []
    run = gradient_descent(objective, 0.3 * rng.standard_normal(model.n_params), 300, rule,
                           callback=lambda t, theta, d, eta: iterates.append(theta))
    iterates.append(run.final)
    radii = np.array(rule.radii)
    assert len(radii) == 300 and np.all(np.diff(radii) >= 0) and radii[0] >= radius
    growth = np.diff(np.concatenate([[radius], radii])) / increment
    assert np.allclose(growth, np.round(growth))  # R grows by whole increments
    for t, R in enumerate(radii):
        assert gauge(iterates[t]) <= R and gauge(iterates[t + 1]) <= R
        assert run.step_sizes[t] == min(1.0 / smoothness(R), 0.4)


def test_growing_ball_rule_grows_when_the_step_leaves_the_ball() -> None:
    model = fully_connected([1, 1, 1], "linear")
    objective = Objective(model, np.ones((1, 1)), np.ones(1), "exponential")
    rule = GrowingBallStep(lambda R: 0.1, max_layer_norm(model), radius=1.0, max_step=10.0, increment=0.5)
    run = gradient_descent(objective, np.array([0.9, 0.9]), 3, rule)
    assert rule.radii[0] > 1.0 and np.all(run.step_sizes == 10.0)
    assert max(np.abs(run.final)) <= rule.radii[-1]


def test_max_layer_norm_is_the_largest_frobenius_norm() -> None:
    model = fully_connected([2, 3, 1], "linear")
    theta = np.arange(model.n_params, dtype=float)
    W1, W2 = model.matrices(theta)
    assert max_layer_norm(model)(theta) == pytest.approx(max(np.linalg.norm(W1), np.linalg.norm(W2)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_max_layer_norm_fast_path_is_numpys_norm_bit_for_bit(seed: int) -> None:
    model = fully_connected([3, 5, 4, 1], "relu")
    theta = np.random.default_rng(seed).standard_normal(model.n_params) * 10.0 ** np.linspace(-3, 3, model.n_params)
    expected = max(float(np.linalg.norm(part)) for part in model.split(theta))
    assert max_layer_norm(model)(theta) == expected  # float64 vector: the fast path
    assert max_layer_norm(model)(theta.astype(object)) == pytest.approx(expected, rel=1e-15)  # the generic path
    assert max_layer_norm(model)(theta[None]) == pytest.approx(expected, rel=1e-15)  # a batch: the generic path


# -- batched runs: torch and the compiled kernel ------------------------------------------------------------
@pytest.mark.parametrize("engine", ["torch", "compiled"])
@pytest.mark.parametrize("widths, loss, eta, steps, compared", [
    ([2, 3, 1], "logistic", 0.05, 10_000, 1),  # the long run: one numpy run checked, to keep the test short
    ([2, 3, 1], "exponential", 0.05, 1000, 2),
    ([2, 2, 2], "square", 0.01, 10_000, 1),
    ([3, 2, 2, 1], "logistic", 0.1, 1000, 2),
])
def test_batched_runs_match_numpy_runs(widths: list[int], loss: str, eta: float, steps: int, compared: int,
                                       engine: str) -> None:
    """Agreement to 1e-10 holds where GD is stable; near its stability edge (or bouncing across a kink) GD
    amplifies rounding differences and no two implementations agree for long."""
    rng = np.random.default_rng(4)
    model = fully_connected(widths, "relu")
    X = rng.standard_normal((6, widths[0]))
    Y = rng.standard_normal((6, widths[-1])) if loss == "square" else np.sign(rng.standard_normal(6))
    objective = Objective(model, X, Y, loss)
    theta0 = 0.5 * rng.standard_normal((2, model.n_params))
    batched = batched_gradient_descent(objective, theta0, steps, eta, record_every=steps // 10, device="cpu",
                                       engine=engine)
    assert batched.steps.tolist() == list(range(0, steps + 1, steps // 10))
    assert batched.loss.shape == (11, 2) and batched.theta.shape == theta0.shape
    for run_index, start in enumerate(theta0[:compared]):
        single = gradient_descent(objective, start, steps, eta, record_every=steps // 10)
        assert np.max(np.abs(single.final - batched.theta[run_index])) < 1e-10
        assert np.max(np.abs(single.loss - batched.loss[:, run_index])) < 1e-10


@pytest.mark.parametrize("engine", ["torch", "compiled"])
def test_iterates_at_log_spaced_steps_match_the_reference_run(engine: str) -> None:
    """The fast engines' iterates at requested steps are the reference run's iterates at those steps."""
    rng = np.random.default_rng(8)
    model = fully_connected([2, 3, 1], "relu")
    X = rng.standard_normal((5, 2))
    objective = Objective(model, X, np.sign(X[:, 0]), "exponential")
    theta0 = 0.5 * rng.standard_normal((2, model.n_params))
    wanted = descent.log_steps(3000, 12)
    assert wanted[0] == 1 and wanted[-1] == 3000 and len(wanted) == len(set(wanted)) >= 10
    batched = batched_gradient_descent(objective, theta0, 3000, 0.05, record_at=wanted, record_iterates=True,
                                       device="cpu", engine=engine)
    assert batched.steps.tolist() == [0, *wanted] and batched.iterates.shape == (len(wanted) + 1, 2, model.n_params)
    reference = gradient_descent(objective, theta0[1], 3000, 0.05, record_every=1)
    assert np.max(np.abs(reference.theta[batched.steps, :] - batched.iterates[:, 1])) < 1e-12
    single = gradient_descent(objective, theta0[1], 3000, 0.05, record_at=wanted)
    assert single.steps.tolist() == batched.steps.tolist()
    assert np.array_equal(single.theta, reference.theta[single.steps])
    assert batched_gradient_descent(objective, theta0, 10, 0.05, device="cpu", engine=engine).iterates is None


@pytest.mark.parametrize("model", [diagonal(3, 3, "relu"), circular_convolutional(3, 2, activation="relu")],
                         ids=["diagonal", "convolutional"])
def test_batched_runs_handle_structured_layers(model) -> None:
    rng = np.random.default_rng(6)
    X = rng.standard_normal((4, 3))
    objective = Objective(model, X, np.sign(X[:, 0]), "logistic")
    theta0 = 0.5 * rng.standard_normal((2, model.n_params))
    batched = batched_gradient_descent(objective, theta0, 300, 0.1, record_every=100)
    for run_index in range(2):
        single = gradient_descent(objective, theta0[run_index], 300, 0.1)
        assert np.max(np.abs(single.final - batched.theta[run_index])) < 1e-12


@pytest.mark.parametrize("engine", ["torch", "compiled"])
@pytest.mark.parametrize("loss", ["logistic", "square"])
def test_batched_per_run_step_sizes_and_mean_loss(engine: str, loss: str) -> None:
    rng = np.random.default_rng(5)
    model = fully_connected([2, 2, 1], "relu")
    X = rng.standard_normal((5, 2))
    Y = np.sign(X[:, 1]) if loss == "logistic" else X[:, :1] ** 2
    objective = Objective(model, X, Y, loss, mean=True)
    theta0 = rng.standard_normal((3, model.n_params))
    etas = np.array([0.1, 0.2, 0.4])
    batched = batched_gradient_descent(objective, theta0, 200, etas, record_every=50, device="cpu", engine=engine)
    for run_index in range(3):
        single = gradient_descent(objective, theta0[run_index], 200, etas[run_index], record_every=50)
        assert np.max(np.abs(single.final - batched.theta[run_index])) < 1e-12
        assert np.max(np.abs(single.loss - batched.loss[:, run_index])) < 1e-12


def test_batched_needs_a_network() -> None:
    objective = Objective(diagonal_tensor(2, 2), np.ones((1, 2)), np.ones(1), "logistic")
    with pytest.raises(TypeError, match="Network"):
        batched_gradient_descent(objective, np.ones((2, 4)), 10, 0.1)
    assert default_device() in ("cpu", "cuda")


# -- the compiled kernel: its conventions, its reach, its speed ---------------------------------------------
@pytest.mark.parametrize("slope_at_zero", [0.0, 0.5])
def test_compiled_kernel_follows_the_slope_convention_at_kinks(slope_at_zero: float) -> None:
    """Starts with exact zeros (a dead unit, a unit on a kink at every sample): σ'(0) decides whether it moves."""
    model = fully_connected([2, 3, 2], "relu", relu_slope_at_zero=slope_at_zero)
    X = np.array([[1.0, 0.5], [-0.5, 1.0], [0.25, -1.0]])
    objective = Objective(model, X, np.eye(3)[:, :2], "square")
    theta0 = 0.3 * np.random.default_rng(7).standard_normal((2, model.n_params))
    theta0[:, 0:2] = 0.0  # unit 1: pre-activation 0 on every sample
    batched = batched_gradient_descent(objective, theta0, 2000, 0.05, record_every=500, engine="compiled")
    for run_index in range(2):
        single = gradient_descent(objective, theta0[run_index], 2000, 0.05, record_every=500)
        assert np.max(np.abs(single.final - batched.theta[run_index])) < 1e-12
        assert np.max(np.abs(single.loss - batched.loss[:, run_index])) < 1e-12
    assert np.any(batched.theta[:, 0:2] != 0.0) == (slope_at_zero > 0)


def test_compiled_kernel_runs_linear_networks_and_is_independent_across_runs() -> None:
    model = fully_connected([3, 2, 2, 1], "linear")
    rng = np.random.default_rng(8)
    X = rng.standard_normal((4, 3))
    objective = Objective(model, X, np.sign(X[:, 0]), "exponential")
    theta0 = 0.5 * rng.standard_normal((5, model.n_params))
    together = batched_gradient_descent(objective, theta0, 3000, 0.02, record_every=3000, engine="compiled")
    single = gradient_descent(objective, theta0[3], 3000, 0.02)
    assert np.max(np.abs(single.final - together.theta[3])) < 1e-10
    alone = batched_gradient_descent(objective, theta0[3:4], 3000, 0.02, record_every=3000, engine="compiled")
    assert np.array_equal(alone.theta[0], together.theta[3])  # lanes do not interact: chunking changes no bit


def test_default_device_skips_torch_without_a_gpu_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert default_device() == expected
    if expected == "cuda" or sys.platform != "linux":
        pytest.skip("the shortcut is for Linux machines without a GPU")
    monkeypatch.delitem(sys.modules, "torch")  # as in a fresh process
    monkeypatch.setattr(descent, "GPU_DRIVER_FILES", ())
    assert default_device() == "cpu" and "torch" not in sys.modules


def test_engine_resolution() -> None:
    supported = Objective(fully_connected([2, 2, 1]), np.ones((3, 2)), np.ones(3), "logistic")
    structured = Objective(diagonal(3, 3, "relu"), np.ones((2, 3)), np.ones(2), "logistic")
    assert resolve_engine(supported, "auto", "cpu") == ("compiled", "cpu")
    assert resolve_engine(structured, "auto", "cpu") == ("torch", "cpu")
    from numerics.cuda_descent import availability

    if availability().ok:  # the CUDA kernel (a GPU, or numba's simulator)
        assert resolve_engine(supported, "auto", "cuda") == ("compiled", "cuda")
    else:  # torch on CUDA where the kernel cannot run there
        assert resolve_engine(supported, "auto", "cuda") == ("torch", "cuda")
        with pytest.raises(ValueError, match="cannot run on cuda here"):
            resolve_engine(supported, "compiled", "cuda")
    assert resolve_engine(structured, "auto", "cuda") == ("torch", "cuda")
    with pytest.raises(TypeError, match="Dense"):
        batched_gradient_descent(structured, np.ones((2, 6)), 10, 0.1, engine="compiled")
    wide = Objective(fully_connected([40, 40, 1]), np.ones((4, 40)), np.ones(4), "logistic")
    assert not compiled_descent.supports(wide)  # 4·(2·1640 + 40) products per step: not a tiny network


def test_compiled_kernel_is_much_faster_than_torch_on_tiny_networks() -> None:
    """A cost bound, relative to the torch engine on the same machine (robust to its load): losing the SIMD
    vectorization or the register-resident step would cost far more than the margin allowed here."""
    model = fully_connected([2, 2, 2], "relu")
    X = np.array([[1.0, 0.99], [-1.0, 0.99]]) / np.hypot(1.0, 0.99)
    objective = Objective(model, X, np.eye(2), "square")
    theta0 = 1e-2 * np.random.default_rng(9).standard_normal((64, model.n_params))
    batched_gradient_descent(objective, theta0, 1, 1e-2, engine="compiled")  # compile or load the kernel

    def seconds(engine: str, steps: int) -> float:
        start = time.perf_counter()
        batched_gradient_descent(objective, theta0, steps, 1e-2, record_every=steps, device="cpu", engine=engine)
        return time.perf_counter() - start

    per_step_torch = seconds("torch", 500) / 500
    per_step_compiled = min(seconds("compiled", 20_000) for _ in range(3)) / 20_000
    assert per_step_compiled * 20 < per_step_torch
