"""Teeth for :mod:`numerics.descent` (docs/mutation.md): behaviour pinned so that small wrong versions of the module
fail.

* :func:`gradient_descent` against closed forms: L(θ) = ½θ² (a one-weight linear network with x = 1, y = 0, and a
  duck-typed quadratic without a compiled field) has iterates θ_t = (1 − η)^t θ_0, exact in binary for η = 1/2;
  the checkpoints recorded (default every step, ``record_at``, a callback that stops, zero steps).
* :class:`GrowingBallStep` at its edges with a scripted gauge and smoothness: the ball closed (‖θ‖ = R accepted), each
  of its two conditions alone, the step 1/β capped by ``max_step``, the defaults (max_step 1, increment 1,
  max_growth 10 000 growths before the error).
* :func:`max_layer_norm`'s fast path only for float64 vectors (float32 rounds otherwise; lists go the generic way).
* :func:`checkpoint_steps` and :func:`log_steps` at their edges, :func:`kernel_seconds` against its formula,
  :func:`kernel_device`, :func:`_gpu_present`, :func:`default_device` and :func:`resolve_engine` with the GPU and the
  CUDA kernel scripted (monkeypatched), so every branch runs on a machine without a GPU and compiles nothing new.
* the batched engines' bookkeeping: the run count passed to the cost model, the reference engine (per-run steps,
  progress, no runs), torch on the closed form.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from numerics import descent
from numerics.cuda_descent import Availability
from numerics.descent import (
    GrowingBallStep,
    batched_gradient_descent,
    checkpoint_steps,
    gradient_descent,
    kernel_device,
    kernel_seconds,
    log_steps,
    max_layer_norm,
    resolve_engine,
)
from numerics.losses import Objective
from numerics.networks import diagonal, fully_connected
from numerics.tensor_network import diagonal_tensor


class HalfSquare:
    """L(θ) = ½ c‖θ‖², d = −cθ, with no compiled field (the generic branch of :func:`gradient_descent`)."""

    def __init__(self, c: float = 1.0) -> None:
        self.c = c

    def compiled(self, theta=None):
        return None

    def descent(self, theta: np.ndarray) -> np.ndarray:
        return -self.c * theta

    def value(self, theta: np.ndarray) -> float:
        return 0.5 * self.c * float(theta @ theta)


def one_weight() -> Objective:
    """f(x) = w x with x = 1, y = 0, square loss: L = ½w², the compiled-field branch."""
    return Objective(fully_connected([1, 1], "linear"), np.ones((1, 1)), np.zeros((1, 1)), "square")


# -- gradient_descent against θ_t = (1 − η)^t θ_0 ------------------------------------------------------------------
@pytest.mark.parametrize("objective", [HalfSquare(), one_weight()], ids=["generic", "compiled-field"])
def test_halving_iterates_are_exact_and_recorded_every_step_by_default(objective) -> None:
    run = gradient_descent(objective, np.array([1.0]), 4, 0.5)
    assert run.steps.tolist() == [0, 1, 2, 3, 4]  # record_every defaults to 1
    assert run.theta[:, 0].tolist() == [1.0, 0.5, 0.25, 0.125, 0.0625]  # θ + ηd, not θ − ηd nor θ + η/d
    assert run.loss.tolist() == [0.5, 0.125, 0.03125, 0.0078125, 0.001953125]
    assert run.step_sizes.tolist() == [0.5] * 4 and run.final.tolist() == [0.0625]


def test_step_size_scales_the_descent() -> None:
    # η = 3/4 with c = 2: θ_{t+1} = (1 − 3/2)θ_t = −θ_t/2 (η·d, not η/d: η/d = −3/8 would give θ − 3/8)
    run = gradient_descent(HalfSquare(2.0), np.array([1.0, -2.0]), 3, 0.75)
    assert run.theta.tolist() == [[1.0, -2.0], [-0.5, 1.0], [0.25, -0.5], [-0.125, 0.25]]


def test_zero_steps_records_the_start_only() -> None:
    run = gradient_descent(HalfSquare(), np.array([3.0]), 0, 0.5)
    assert run.steps.tolist() == [0] and run.theta.tolist() == [[3.0]] and run.loss.tolist() == [4.5]
    assert run.step_sizes.shape == (0,)


def test_theta0_is_copied() -> None:
    theta0 = np.array([1.0])
    gradient_descent(HalfSquare(), theta0, 2, 0.5)
    assert theta0.tolist() == [1.0]


@pytest.mark.parametrize("stop, every, steps, thetas", [
    (0, 1, 5, [1.0]),  # stopped before any update
    (2, 1, 5, [1.0, 0.5, 0.25]),  # the stopping step already a checkpoint: recorded once
    (3, 2, 10, [1.0, 0.25, 0.125]),  # the stopping step between checkpoints: appended
])
def test_a_stopping_callback_ends_with_the_stopping_step_recorded_once(stop, every, steps, thetas) -> None:
    calls: list[tuple[int, float]] = []

    def callback(t: int, theta: np.ndarray, d: np.ndarray, eta: float) -> bool:
        calls.append((t, float(theta[0])))
        return t == stop

    run = gradient_descent(HalfSquare(), np.array([1.0]), steps, 0.5, record_every=every, callback=callback)
    expected_steps = sorted({*range(0, stop + 1, every), stop})
    assert run.steps.tolist() == expected_steps and run.theta[:, 0].tolist() == thetas
    assert run.step_sizes.tolist() == [0.5] * stop  # no step size for the update not made
    assert calls == [(t, 0.5 ** t) for t in range(stop + 1)]
    assert run.loss.tolist() == [0.5 * x * x for x in thetas]


def test_a_callback_returning_none_never_stops() -> None:
    run = gradient_descent(HalfSquare(), np.array([1.0]), 3, 0.5, callback=lambda t, theta, d, eta: None)
    assert run.steps.tolist() == [0, 1, 2, 3] and run.final.tolist() == [0.125]


def test_record_at_keeps_the_steps_within_the_run_plus_both_ends() -> None:
    run = gradient_descent(HalfSquare(), np.array([1.0]), 5, 0.5, record_at=[3, 1, 99, -1])
    assert run.steps.tolist() == [0, 1, 3, 5] and run.theta[:, 0].tolist() == [1.0, 0.5, 0.125, 0.03125]


def test_a_step_rule_sees_t_theta_and_the_descent() -> None:
    seen = []

    def rule(t: int, theta: np.ndarray, d: np.ndarray) -> float:
        seen.append((t, float(theta[0]), float(d[0])))
        return 0.5

    gradient_descent(HalfSquare(), np.array([1.0]), 2, rule)
    assert seen == [(0, 1.0, -1.0), (1, 0.5, -0.5)]


# -- the growing-ball rule at its edges -----------------------------------------------------------------------------
def absolute(theta: np.ndarray) -> float:
    return float(np.max(np.abs(theta)))


def test_growing_ball_defaults() -> None:
    rule = GrowingBallStep(lambda R: 0.25, absolute, radius=10.0)
    assert rule.max_step == 1.0 and rule.increment == 1.0 and rule.max_growth == 10_000 and rule.radii == []
    assert rule.step_size(10.0) == 1.0  # 1/β = 4 capped at max_step 1
    assert GrowingBallStep(lambda R: 4.0, absolute, radius=1.0).step_size(1.0) == 0.25  # 1/β below the cap
    assert GrowingBallStep(lambda R: 0.5, absolute, radius=1.0, max_step=3.0).step_size(1.0) == 2.0


def test_growing_ball_grows_by_the_default_increment() -> None:
    rule = GrowingBallStep(lambda R: 1.0, absolute, radius=0.0)
    assert rule(0, np.array([2.5]), np.array([0.0])) == 1.0
    assert rule.radii == [3.0] and rule.radius == 3.0  # 0 → 1 → 2 → 3 ≥ 2.5


def test_growing_ball_is_closed() -> None:
    rule = GrowingBallStep(lambda R: 2.0, absolute, radius=1.0)
    assert rule(0, np.array([1.0]), np.array([0.0])) == 0.5 and rule.radii == [1.0]  # ‖θ‖ = R
    assert rule(1, np.array([0.5]), np.array([1.0])) == 0.5 and rule.radii == [1.0, 1.0]  # ‖θ + ηd‖ = R


def test_growing_ball_needs_theta_inside() -> None:
    # θ = 3 outside B(1), the trial point θ + ηd = 0 inside: R grows to 3
    rule = GrowingBallStep(lambda R: 1.0, absolute, radius=1.0)
    assert rule(0, np.array([3.0]), np.array([-3.0])) == 1.0 and rule.radii == [3.0]


def test_growing_ball_needs_the_trial_point_inside() -> None:
    # θ = 0 inside, θ + ηd = 0.5·4 = 2 outside B(0) and B(1): R grows to 2 (η·d, not η/d = 1/8 which fits in B(1))
    rule = GrowingBallStep(lambda R: 2.0, absolute, radius=0.0)
    assert rule(0, np.array([0.0]), np.array([4.0])) == 0.5 and rule.radii == [2.0]
    # and θ + ηd, not θ − ηd: from θ = 3 towards 0 the ball of radius 3 holds both
    rule = GrowingBallStep(lambda R: 1.0, absolute, radius=3.0)
    assert rule(0, np.array([3.0]), np.array([-2.0])) == 1.0 and rule.radii == [3.0]


def test_growing_ball_step_uses_the_grown_radius() -> None:
    rule = GrowingBallStep(lambda R: R, absolute, radius=1.0, max_step=10.0, increment=0.5)
    # β(R) = R: R = 1 gives η = 1, θ + ηd = 2 > 1; R = 1.5: η = 2/3, 5/3 > 1.5; R = 2: η = 1/2, 1.5 ≤ 2
    assert rule(0, np.array([1.0]), np.array([1.0])) == 0.5 and rule.radii == [2.0]


def test_growing_ball_gives_up_after_max_growth_growths() -> None:
    rule = GrowingBallStep(lambda R: 1.0, lambda theta: math.inf, radius=0.0)
    with pytest.raises(RuntimeError, match="step 7: the radius grew 10000 times"):
        rule(7, np.array([0.0]), np.array([0.0]))
    assert rule.radius == 10_000.0 and rule.radii == []
    small = GrowingBallStep(lambda R: 1.0, lambda theta: math.inf, radius=0.0, max_growth=3, increment=0.5)
    with pytest.raises(RuntimeError, match="grew 3 times"):
        small(0, np.array([0.0]), np.array([0.0]))
    assert small.radius == 1.5


# -- max_layer_norm: the fast path only for float64 vectors --------------------------------------------------------
def test_max_layer_norm_of_float32_is_numpys_float32_norm() -> None:
    model = fully_connected([1, 1, 1], "linear")
    theta = np.array([1.1, 0.3], dtype=np.float32)
    expected = float(np.linalg.norm(theta[:1]))  # float32 arithmetic
    assert expected != math.sqrt(float(theta[:1].dot(theta[:1])))  # the fast path's double sqrt would differ
    assert max_layer_norm(model)(theta) == expected


def test_max_layer_norm_of_a_list_and_a_batch() -> None:
    model = fully_connected([1, 1, 1], "linear")
    assert max_layer_norm(model)(np.array([3.0, -4.0])) == 4.0
    # a batch goes the generic way: each layer's norm over the whole batch (the Frobenius norm of its rows)
    assert max_layer_norm(model)(np.array([[3.0, -4.0], [1.0, 0.5]])) == pytest.approx(math.sqrt(16.25), rel=1e-15)


class TwoLayers:
    """A model whose split also takes a list (a θ without a dtype)."""

    def split(self, theta):
        return [theta[:1], theta[1:]]


def test_max_layer_norm_of_a_list_goes_the_generic_way() -> None:
    # a list has no dtype: only the generic path (np.linalg.norm) takes it
    assert max_layer_norm(TwoLayers())([3.0, -4.0]) == 4.0


# -- checkpoints ---------------------------------------------------------------------------------------------------
def test_checkpoint_steps_at_their_edges() -> None:
    assert checkpoint_steps(5) == [0, 1, 2, 3, 4, 5]  # default every step, the last one once
    assert checkpoint_steps(5, 2) == [0, 2, 4, 5]
    assert checkpoint_steps(6, 3) == [0, 3, 6]
    assert checkpoint_steps(0) == [0]
    assert checkpoint_steps(5, 1, [-1, 0, 5, 6, 2]) == [0, 2, 5]
    assert checkpoint_steps(5, 1, []) == [0, 5]
    assert checkpoint_steps(5, 1, [np.int64(3), 4.0]) == [0, 3, 4, 5]


def test_log_steps_at_their_edges() -> None:
    assert log_steps(1000, 4) == [1, 10, 100, 1000]
    assert log_steps(1, 3) == [1]
    assert log_steps(0, 3) == [0, 1]
    assert log_steps(100, 1) == [1, 100]


# -- the cost model and the kernel's device --------------------------------------------------------------------------
def test_kernel_seconds_against_its_formula() -> None:
    # CPU: 0.2 s + products·runs·steps / (10¹⁰ per second per core)
    # GPU: 0.5 s + steps·products·max(2.6 ns, runs / 6.9·10¹²)
    assert kernel_seconds(40, 288, 3_000_000, "cpu") == 0.2 + 40 * 288 * 3_000_000 / 1.0e10
    assert kernel_seconds(40, 288, 3_000_000, "cpu", cores=2) == 0.2 + 40 * 288 * 3_000_000 / 2.0e10
    assert kernel_seconds(40, 288, 3_000_000, "cpu", cores=0) == kernel_seconds(40, 288, 3_000_000, "cpu")
    assert kernel_seconds(40, 1, 1000, "cuda") == 0.5 + 1000 * 40 * 2.6e-9
    assert kernel_seconds(40, 2**20, 1000, "cuda") == 0.5 + 1000 * 40 * (2**20 / 6.9e12)
    assert descent.CPU_PRODUCTS_PER_SECOND == 1.0e10 and descent.CPU_FIXED_SECONDS == 0.2
    assert descent.GPU_SECONDS_PER_PRODUCT == 2.6e-9 and descent.GPU_PRODUCTS_PER_SECOND == 6.9e12
    assert descent.GPU_FIXED_SECONDS == 0.5


def supported() -> Objective:
    return Objective(fully_connected([2, 2, 1]), np.ones((3, 2)), np.ones(3), "logistic")


def test_kernel_device_by_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    from numerics.sweeps import cpu_chunk_runs

    calls: list[tuple] = []

    def spy(products, runs, steps, device, cores=1):
        calls.append((device, runs, steps, cores))
        return real(products, runs, steps, device, cores)

    real = descent.kernel_seconds
    monkeypatch.setattr(descent, "kernel_seconds", spy)
    monkeypatch.setattr(descent, "_gpu_present", lambda: False)
    assert kernel_device(supported(), 2**20, 300_000, 16) == "cpu"  # no GPU: never asked
    assert calls == []
    monkeypatch.setattr(descent, "_gpu_present", lambda: True)
    assert kernel_device(supported(), None, 300_000) == "cpu" and kernel_device(supported(), 10, None) == "cpu"
    unsupported = Objective(diagonal(3, 3, "relu"), np.ones((2, 3)), np.ones(2), "logistic")
    assert kernel_device(unsupported, 2**20, 300_000) == "cpu" and calls == []
    assert kernel_device(supported(), 2**20, 300_000, 4) == "cuda"  # a million runs: the GPU
    assert kernel_device(supported(), 1, 100) == "cpu"  # one short run: the GPU's fixed cost loses
    chunk = cpu_chunk_runs(1000)
    calls.clear()
    kernel_device(supported(), chunk + 1, 1000, cores=16)  # two chunks (rounded up), so two cores
    assert calls == [("cpu", chunk + 1, 1000, 2), ("cuda", chunk + 1, 1000, 1)]
    calls.clear()
    kernel_device(supported(), 3 * chunk, 1000, cores=2)  # three chunks, two cores
    assert calls[0] == ("cpu", 3 * chunk, 1000, 2)
    monkeypatch.setattr(descent, "kernel_seconds", lambda *args, **kwargs: 1.0)
    assert kernel_device(supported(), 10, 10) == "cpu"  # a tie: the CPU (the GPU only where faster)


def test_gpu_present_without_a_driver_skips_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    import numerics.cuda_descent as cuda_descent

    monkeypatch.setattr(cuda_descent, "availability", lambda: Availability(True, False, "scripted GPU"))
    monkeypatch.setattr(descent, "GPU_DRIVER_FILES", ("/",))  # a driver file that exists
    assert descent._gpu_present() is True
    monkeypatch.setattr(cuda_descent, "availability", lambda: Availability(True, True, "simulator"))
    assert descent._gpu_present() is False  # the simulator is no GPU
    if sys.platform == "linux":
        monkeypatch.setattr(cuda_descent, "availability", lambda: Availability(True, False, "scripted GPU"))
        monkeypatch.setattr(descent, "GPU_DRIVER_FILES", ())
        assert descent._gpu_present() is False  # no driver: no GPU, whatever numba would say


# -- resolve_engine with the CUDA kernel scripted ------------------------------------------------------------------
@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch):
    """kernel_device, default_device and the CUDA kernel's availability under the test's control."""
    state = {"kernel_device": "cpu", "default_device": "cuda", "cuda_ok": True, "calls": []}

    def kernel_device_spy(objective, runs, steps, cores=1):
        state["calls"].append((runs, steps, cores))
        return state["kernel_device"]

    monkeypatch.setattr(descent, "kernel_device", kernel_device_spy)
    monkeypatch.setattr(descent, "default_device", lambda: state["default_device"])
    monkeypatch.setattr(descent, "_cuda_kernel", lambda: Availability(state["cuda_ok"], False, "scripted reason"))
    return state


def test_resolve_engine_reference(scripted) -> None:
    for device in (None, "auto", "cpu"):
        assert resolve_engine(supported(), "reference", device) == ("reference", "cpu")
    with pytest.raises(ValueError, match="reference engine runs on the CPU"):
        resolve_engine(supported(), "reference", "cuda")
    assert scripted["calls"] == []


def test_resolve_engine_asks_the_cost_model_for_covered_objectives(scripted) -> None:
    assert resolve_engine(supported(), "auto", None, runs=7, steps=9, cores=3) == ("compiled", "cpu")
    assert resolve_engine(supported(), "compiled", "auto", runs=2, steps=5) == ("compiled", "cpu")
    assert resolve_engine(supported()) == ("compiled", "cpu")  # the defaults: auto, auto
    assert scripted["calls"] == [(7, 9, 3), (2, 5, 1), (None, None, 1)]
    scripted["kernel_device"] = "cuda"
    assert resolve_engine(supported(), "auto") == ("compiled", "cuda")
    scripted["cuda_ok"] = False
    assert resolve_engine(supported(), "auto") == ("torch", "cuda")  # the kernel cannot run there: torch
    with pytest.raises(ValueError, match="cannot run on cuda here: scripted reason"):
        resolve_engine(supported(), "compiled")


def test_resolve_engine_for_other_objectives(scripted) -> None:
    structured = Objective(diagonal(3, 3, "relu"), np.ones((2, 3)), np.ones(2), "logistic")
    tensor = Objective(diagonal_tensor(2, 2), np.ones((1, 2)), np.ones(1), "logistic")
    wide = Objective(fully_connected([40, 40, 1]), np.ones((4, 40)), np.ones(4), "logistic")  # not covered
    assert resolve_engine(structured, "auto") == ("torch", "cuda")  # default_device (scripted: cuda)
    assert resolve_engine(structured, "torch") == ("torch", "cuda")
    assert resolve_engine(supported(), "torch") == ("torch", "cuda")  # torch asked for: torch's device
    assert resolve_engine(structured, "compiled") == ("compiled", "cpu")  # refused later, by the kernel
    assert resolve_engine(wide, "auto", "cpu") == ("torch", "cpu")
    assert resolve_engine(tensor, "torch") == ("torch", "cpu")  # not a Network: the CPU
    scripted["default_device"] = "cpu"
    assert resolve_engine(structured, "auto") == ("torch", "cpu")
    scripted["cuda_ok"] = False
    assert resolve_engine(structured, "torch", "cuda") == ("torch", "cuda")  # torch needs no CUDA kernel
    assert resolve_engine(supported(), "compiled", "cpu") == ("compiled", "cpu")
    assert scripted["calls"] == []


def test_resolve_engine_refuses_unknown_names(scripted) -> None:
    with pytest.raises(ValueError, match="unknown engine 'jax'"):
        resolve_engine(supported(), "jax", "cpu")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        resolve_engine(supported(), "torch", "tpu")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        resolve_engine(supported(), "reference", "tpu")


# -- batched runs: bookkeeping -----------------------------------------------------------------------------------
def test_batched_descent_tells_the_cost_model_the_number_of_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    class Stop(Exception):
        pass

    def kernel_device_spy(objective, runs, steps, cores=1):
        seen.append((runs, steps))
        raise Stop

    monkeypatch.setattr(descent, "kernel_device", kernel_device_spy)
    objective = supported()
    with pytest.raises(Stop):
        batched_gradient_descent(objective, np.zeros((3, objective.model.n_params)), 11, 0.1, engine="auto")
    assert seen == [(3, 11)] and objective.model.n_params != 3


def test_reference_engine_runs_each_row_with_its_own_step(monkeypatch: pytest.MonkeyPatch) -> None:
    told = []
    run = batched_gradient_descent(one_weight(), np.array([[1.0], [2.0]]), 4, np.array([0.5, 0.75]),
                                   record_every=2, record_iterates=True, engine="reference", progress=told.append)
    assert run.steps.tolist() == [0, 2, 4] and told == [4, 4]
    assert run.iterates[:, :, 0].tolist() == [[1.0, 2.0], [0.25, 0.125], [0.0625, 0.0078125]]
    assert run.theta.tolist() == [[0.0625], [0.0078125]]
    assert run.loss.tolist() == [[0.5, 2.0], [0.03125, 0.0078125], [0.001953125, 0.000030517578125]]
    scalar = batched_gradient_descent(one_weight(), np.array([[1.0], [2.0]]), 3, 0.5, record_at=[1],
                                      engine="reference")
    assert scalar.steps.tolist() == [0, 1, 3] and scalar.iterates is None
    assert scalar.theta.tolist() == [[0.125], [0.25]]


def test_reference_engine_with_no_runs() -> None:
    run = batched_gradient_descent(one_weight(), np.empty((0, 1)), 4, 0.5, record_every=2, record_iterates=True,
                                   engine="reference")
    assert run.steps.tolist() == [0, 2, 4] and run.loss.shape == (3, 0)
    assert run.theta.shape == (0, 1) and run.iterates.shape == (3, 0, 1)


def test_torch_engine_on_the_closed_form() -> None:
    run = batched_gradient_descent(one_weight(), np.array([[1.0], [2.0]]), 4, np.array([0.5, 0.75]),
                                   record_at=[1, 3], record_iterates=True, device="cpu", engine="torch")
    assert run.steps.tolist() == [0, 1, 3, 4]
    assert run.iterates[:, :, 0].tolist() == [[1.0, 2.0], [0.5, 0.5], [0.125, 0.03125], [0.0625, 0.0078125]]
    assert run.theta.tolist() == [[0.0625], [0.0078125]]
    assert run.loss[:, 0].tolist() == [0.5, 0.125, 0.0078125, 0.001953125]
    scalar = batched_gradient_descent(one_weight(), np.array([[1.0]]), 2, 0.5, device="cpu", engine="torch")
    assert scalar.steps.tolist() == [0, 1, 2] and scalar.theta.tolist() == [[0.25]] and scalar.iterates is None


def test_compiled_engine_tells_progress_on_the_cpu() -> None:
    # the architecture of test_descent.py's log-spaced test (5 samples, exponential loss): a kernel already compiled
    rng = np.random.default_rng(8)
    model = fully_connected([2, 3, 1], "relu")
    X = rng.standard_normal((5, 2))
    objective = Objective(model, X, np.sign(X[:, 0]), "exponential")
    theta0 = 0.5 * rng.standard_normal((2, model.n_params))
    told: list[int] = []
    etas = np.array([0.05, 0.1])  # one step per run: broadcast over the runs, not the parameters
    run = batched_gradient_descent(objective, theta0, 10, etas, record_at=[3, 4], device="cpu", engine="compiled",
                                   progress=told.append)
    assert run.steps.tolist() == [0, 3, 4, 10] and told == [6, 2, 12]  # run-steps: runs × steps of each stretch
    reference = batched_gradient_descent(objective, theta0, 10, etas, record_at=[3, 4], engine="reference")
    assert np.max(np.abs(run.theta - reference.theta)) < 1e-12


def test_default_device_asks_torch_once_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    # the driver-file shortcut is only for a process that has not imported torch: once imported, torch decides
    import torch

    monkeypatch.setattr(descent, "GPU_DRIVER_FILES", ())
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert descent.default_device() == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert descent.default_device() == "cpu"
