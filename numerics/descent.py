"""Gradient descent θ_{t+1} = θ_t − η_t ∇L(θ_t): one run in numpy, or many runs at once.

* :func:`gradient_descent` runs any :class:`~numerics.losses.Objective` with a constant step or a pluggable
  step-size rule (a callable, possibly with state, such as :class:`GrowingBallStep`).
* :func:`batched_gradient_descent` runs many independent initializations of one :class:`~numerics.networks.Network`
  on the same data: in float64 torch (CPU or CUDA, the run index a batch axis), or for small fully-connected
  networks and linear tensor networks in a kernel generated for the architecture, one run per SIMD lane on the CPU
  (:mod:`numerics.compiled_descent`) or one run per thread on a GPU (:mod:`numerics.cuda_descent`), the fast path
  for long runs of tiny networks; or run by run in the numpy reference. All compute the same iterates up to
  rounding; the kernels and the reference compute each run alone, so a run's bits do not depend on its batch.
  :func:`resolve_engine` picks the engine and, by a cost model (:func:`kernel_device`), the kernel's device.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

import numpy as np

from numerics.losses import Model, Objective
from numerics.networks import Network

StepRule = Callable[[int, np.ndarray, np.ndarray], float]
"""η_t = rule(t, θ_t, d_t) with d_t = −∇L(θ_t); a rule may keep state between calls."""

Callback = Callable[[int, np.ndarray, np.ndarray, float], "bool | None"]
"""callback(t, θ_t, d_t, η_t) before each update; returning True stops with θ_t as the last iterate."""


@dataclass(frozen=True)
class DescentRun:
    """One gradient-descent run: iterates and losses at the checkpoints, and every step size used."""

    steps: np.ndarray  # iteration indices of the checkpoints: 0, k, 2k, ... and the last one
    theta: np.ndarray  # iterates at the checkpoints, len(steps) × n_params
    loss: np.ndarray  # L at the checkpoints
    step_sizes: np.ndarray  # η_t of every update made

    @property
    def final(self) -> np.ndarray:
        return self.theta[-1]


def gradient_descent(objective: Objective, theta0: np.ndarray, steps: int, step_size: float | StepRule, *,
                     record_every: int = 1, record_at: Sequence[int] | None = None,
                     callback: Callback | None = None) -> DescentRun:
    """``steps`` updates from θ_0 (fewer if the callback stops); checkpoints every ``record_every`` steps, or at
    the steps ``record_at`` (e.g. :func:`log_steps`) and the last one."""
    rule: StepRule = step_size if callable(step_size) else (lambda t, theta, d: float(step_size))
    theta = np.array(theta0, dtype=float)
    fast = objective.compiled(theta)  # its evaluation at a checkpoint gives the loss with the direction
    recorded_steps, iterates, losses = [], [], []
    etas = np.empty(steps)
    wanted = set(checkpoint_steps(steps, record_every, record_at))
    t = 0
    for t in range(steps + 1):
        if t in wanted:
            recorded_steps.append(t)
            iterates.append(theta)
            losses.append(None)
        if t == steps:
            break
        if fast is not None:
            point = fast.evaluate(theta)
            d = point.descent
            if t in wanted:
                losses[-1] = point.loss
        else:
            d = objective.descent(theta)
        eta = rule(t, theta, d)
        if callback is not None and callback(t, theta, d, eta):
            break
        etas[t] = eta
        theta = theta + eta * d
    if recorded_steps[-1] != t:
        recorded_steps.append(t)
        iterates.append(theta)
        losses.append(None)
    theta_path = np.array(iterates)
    loss_path = np.array([float(objective.value(th)) if loss is None else loss for th, loss in zip(theta_path, losses)])
    return DescentRun(np.array(recorded_steps), theta_path, loss_path, etas[:t])


@dataclass
class GrowingBallStep:
    """η_t = min(1/β(R_t), max_step), with a radius R_t grown until the step stays in B(R_t).

    B(R) = {θ : gauge(θ) ≤ R}. At step t, starting from R = R_{t−1}: while θ_t or the trial
    θ_t + min(1/β(R), max_step)·d_t lies outside B(R), R grows by ``increment``. Hence R_t is nondecreasing and
    θ_t, θ_{t+1} ∈ B(R_t), the setting of smoothness-based descent lemmas (β(R): a smoothness constant of L on
    B(R)). The radii used are kept in ``radii``.
    """

    smoothness: Callable[[float], float]
    gauge: Callable[[np.ndarray], float]
    radius: float  # R_{−1}
    max_step: float = 1.0
    increment: float = 1.0
    max_growth: int = 10_000  # per step; a guard against a β that does not make the step shrink
    radii: list[float] = field(default_factory=list)

    def step_size(self, radius: float) -> float:
        return min(1.0 / self.smoothness(radius), self.max_step)

    def __call__(self, t: int, theta: np.ndarray, descent: np.ndarray) -> float:
        for _ in range(self.max_growth):
            eta = self.step_size(self.radius)
            if self.gauge(theta) <= self.radius and self.gauge(theta + eta * descent) <= self.radius:
                self.radii.append(self.radius)
                return eta
            self.radius += self.increment
        raise RuntimeError(f"step {t}: the radius grew {self.max_growth} times without the step fitting the ball")


def max_layer_norm(model: Model) -> Callable[[np.ndarray], float]:
    """Gauge max_k ‖θ_k‖ over the layers' parameter vectors (= max_k ‖W_k‖_F for dense layers).

    A float64 vector takes √(θ_k·θ_k) directly, the formula ``np.linalg.norm`` evaluates for it (the same bits,
    without its dispatch: the growing-ball rule calls the gauge twice per step)."""
    def gauge(theta: np.ndarray) -> float:
        if type(theta) is np.ndarray and theta.dtype == np.float64 and theta.ndim == 1:
            return max(math.sqrt(part.dot(part)) for part in model.split(theta))
        return max(float(np.linalg.norm(part)) for part in model.split(theta))

    return gauge


# -- batched torch ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BatchedDescentRun:
    """Many gradient-descent runs at once: losses at the checkpoints and the final iterates."""

    steps: np.ndarray  # iteration indices of the checkpoints
    loss: np.ndarray  # len(steps) × runs
    theta: np.ndarray  # final iterates, runs × n_params
    iterates: np.ndarray | None = None  # len(steps) × runs × n_params, when asked for (record_iterates=True)


Engine = Literal["torch", "compiled", "reference", "auto"]


def checkpoint_steps(steps: int, record_every: int = 1, record_at: Sequence[int] | None = None) -> list[int]:
    """Steps at which the engines record: 0, k, 2k, ... and the last one, or 0, the steps ``record_at`` (those
    within 0..steps) and the last one."""
    if record_at is not None:
        return sorted({0, steps} | {int(t) for t in record_at if 0 <= int(t) <= steps})
    return sorted(set(range(0, steps + 1, record_every)) | {steps})


def log_steps(steps: int, count: int) -> list[int]:
    """About ``count`` steps spread evenly in log t over 1..steps (distinct integers, the last one included)."""
    return sorted({int(round(t)) for t in np.logspace(0, np.log10(max(steps, 1)), count)} | {steps})


GPU_DRIVER_FILES = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/dxg", "/dev/kfd")  # NVIDIA, WSL2, ROCm

Device = Literal["auto", "cpu", "cuda"]
Progress = Callable[[int], None]
"""progress(run_steps): told as a descent advances, with the run-steps (runs × steps) just done."""


def default_device() -> str:
    """``cuda`` when torch sees a GPU, else ``cpu`` (torch's device; the compiled kernel's is chosen by cost,
    :func:`kernel_device`). On Linux without any GPU driver the answer is ``cpu`` without importing torch (seconds,
    most of a small claim's time)."""
    if "torch" not in sys.modules and sys.platform == "linux" and not any(map(os.path.exists, GPU_DRIVER_FILES)):
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


# -- the kernel's device, by cost ------------------------------------------------------------------------------------
# Seconds ≈ fixed cost + work / rate, measured with Fig. 1's network (40 products per update). CPU: 288 runs × 3·10⁶
# steps in 3.25 s of one core of a 2-core AMD EPYC VM (9.2–9.4·10⁹ on a core of the H100 machine's Xeon). GPU: an
# H100 (docs/sweeps.md, 2026-11-26): one run alone advances a step in 104 ns (latency-bound up to a few thousand
# runs: 4096 runs take the time of one), 2²⁰ runs at 6.9·10¹² products/s; a fresh process's first launch (context,
# compiling the kernel) 0.5 s.
CPU_PRODUCTS_PER_SECOND = 1.0e10  # per core, the compiled kernel (runs as SIMD lanes)
CPU_FIXED_SECONDS = 0.2  # loading the kernel from the disk cache (0.15 s on the Xeon, 0.22 s on the EPYC VM)
GPU_SECONDS_PER_PRODUCT = 2.6e-9  # one thread, in sequence: 104 ns per step / 40 products
GPU_PRODUCTS_PER_SECOND = 6.9e12  # all threads: 2²⁰ runs × 3·10⁵ steps × 40 products in 1.81 s
GPU_FIXED_SECONDS = 0.5  # CUDA context and the kernel's compilation in a fresh process (0.49 s measured)


def kernel_seconds(products: int, runs: int, steps: int, device: str, cores: int = 1) -> float:
    """Estimated seconds of ``runs`` × ``steps`` kernel updates of ``products`` multiplications each, on the CPU
    (``cores`` threads) or the GPU: the cost model of :func:`kernel_device`."""
    if device == "cpu":
        return CPU_FIXED_SECONDS + products * runs * steps / (CPU_PRODUCTS_PER_SECOND * max(cores, 1))
    return GPU_FIXED_SECONDS + steps * products * max(GPU_SECONDS_PER_PRODUCT, runs / GPU_PRODUCTS_PER_SECOND)


def kernel_device(objective: Objective, runs: int | None, steps: int | None, cores: int = 1) -> str:
    """Where ``auto`` runs the compiled kernel: ``cuda`` only where a GPU is present (never numba's simulator) and
    :func:`kernel_seconds` says it is faster for this workload; ``cpu`` otherwise, and whenever the workload is
    not known (``runs`` or ``steps`` None): a GPU is never chosen for a workload it would run slower."""
    from numerics import compiled_descent

    arch = compiled_descent.architecture(objective)
    if arch is None or runs is None or steps is None or not _gpu_present():
        return "cpu"
    from numerics.sweeps import cpu_chunk_runs

    chunks = -(-runs // cpu_chunk_runs(steps))  # what a sweep runs in parallel: 288 runs × 3·10⁶ steps are one
    cpu = kernel_seconds(arch.products, runs, steps, "cpu", min(cores, chunks))
    return "cuda" if kernel_seconds(arch.products, runs, steps, "cuda") < cpu else "cpu"


def _gpu_present() -> bool:
    if sys.platform == "linux" and not any(map(os.path.exists, GPU_DRIVER_FILES)):
        return False  # without importing numba's CUDA target
    from numerics.cuda_descent import availability

    return availability().gpu


def resolve_engine(objective: Objective, engine: Engine = "auto", device: str | None = None, *,
                   runs: int | None = None, steps: int | None = None, cores: int = 1) -> tuple[str, str]:
    """(engine, device) that :func:`batched_gradient_descent` will use for ``runs`` × ``steps`` updates.

    ``device`` None or ``auto``: for an objective the compiled kernel covers, the kernel on the device
    :func:`kernel_device` picks by cost (the CPU unless a GPU is present and faster for the workload); for any other
    :class:`Network`, torch on CUDA when available (a GPU batches the runs; one process drives it), else on the CPU;
    for other models, the CPU. ``engine`` ``auto``: the compiled kernel where it covers the objective and can run on
    the device (on ``cuda``: numba's CUDA target finds a GPU, or runs its simulator), else torch. ``reference``:
    the numpy reference, one run at a time (CPU).
    """
    from numerics import compiled_descent

    device = None if device == "auto" else device
    covered = compiled_descent.supports(objective)
    if engine == "reference":
        device = device or "cpu"
    elif device is None:
        if engine in ("auto", "compiled") and covered:
            device = kernel_device(objective, runs, steps, cores)
        elif engine == "compiled" or not isinstance(objective.model, Network):
            device = "cpu"
        else:
            device = default_device()
    if engine == "auto":
        on_device = device == "cpu" or (device == "cuda" and _cuda_kernel().ok)
        engine = "compiled" if covered and on_device else "torch"
    if engine not in ("torch", "compiled", "reference"):
        raise ValueError(f"unknown engine {engine!r} (choose from torch, compiled, reference, auto)")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {device!r} (choose from cpu, cuda, auto)")
    if engine == "reference" and device != "cpu":
        raise ValueError("the reference engine runs on the CPU")
    if engine == "compiled" and device == "cuda" and not _cuda_kernel().ok:
        raise ValueError(f"the compiled engine cannot run on cuda here: {_cuda_kernel().detail}")
    return engine, device


def _cuda_kernel():
    from numerics.cuda_descent import availability

    return availability()


def batched_gradient_descent(objective: Objective, theta0: np.ndarray, steps: int,
                             step_size: float | np.ndarray, *, record_every: int = 1,
                             record_at: Sequence[int] | None = None, record_iterates: bool = False,
                             device: str | None = None, engine: Engine = "torch",
                             progress: Progress | None = None) -> BatchedDescentRun:
    """Gradient descent from every row of ``theta0`` (runs × n_params) at once, in float64.

    ``objective`` gives the network, data and loss (a :class:`Network`, or for the compiled engine also a
    :class:`~numerics.tensor_network.LinearTensorNetwork`); ``step_size`` is one constant or one per run. The losses
    are recorded at steps 0, k, 2k, ... and at the last step, or at the steps ``record_at`` (e.g.
    :func:`log_steps`); ``record_iterates`` keeps the iterates there too. ``engine``: ``torch`` (any network, CPU
    or CUDA; ``device`` defaults to CUDA when available), ``compiled`` (small fully-connected networks and linear
    tensor networks: :mod:`numerics.compiled_descent` on the CPU, :mod:`numerics.cuda_descent` on a GPU, the same
    update), ``reference`` (the numpy reference, :func:`gradient_descent`, run by run) or ``auto``
    (:func:`resolve_engine`). The kernels and the reference compute each run on its own: a run's iterates do not
    depend on the other rows. ``progress`` is told the run-steps done as the kernels advance.
    """
    runs = int(np.shape(theta0)[0])
    engine, device = resolve_engine(objective, engine, device, runs=runs, steps=steps)
    if engine == "torch" and not isinstance(objective.model, Network):
        raise TypeError("batched torch descent needs a numerics.networks.Network (a small LinearTensorNetwork runs "
                        "in the compiled engine)")
    checkpoints = checkpoint_steps(steps, record_every, record_at)
    if engine == "compiled":
        return _compiled_descent(objective, theta0, checkpoints, step_size, record_iterates, device, progress)
    if engine == "reference":
        return _reference_descent(objective, theta0, checkpoints, step_size, record_iterates, progress)
    return _torch_descent(objective, theta0, checkpoints, step_size, device, record_iterates)


def _compiled_descent(objective: Objective, theta0: np.ndarray, checkpoints: list[int],
                      step_size: float | np.ndarray, record_iterates: bool, device: str = "cpu",
                      progress: Progress | None = None) -> BatchedDescentRun:
    if device == "cuda":
        from numerics.cuda_descent import cuda_stepper

        step = cuda_stepper(objective, progress)  # tells progress launch by launch
    else:
        from numerics.compiled_descent import compiled_stepper

        step = compiled_stepper(objective)
    # parameters × runs (runs: the SIMD lanes), always a copy: for one run θ0ᵀ is already C-ordered, and the
    # kernels advance the state in place
    state = np.array(np.asarray(theta0, dtype=float).T, order="C")
    eta = np.broadcast_to(np.asarray(step_size, dtype=float), state.shape[1])
    losses = [_values(objective, state.T)]
    iterates = [state.T.copy()] if record_iterates else None
    for previous, t in zip(checkpoints, checkpoints[1:]):
        step(state, t - previous, eta)
        if progress is not None and device != "cuda":
            progress((t - previous) * state.shape[1])
        losses.append(_values(objective, state.T))
        if iterates is not None:
            iterates.append(state.T.copy())
    return BatchedDescentRun(np.array(checkpoints), np.array(losses), state.T.copy(),
                             None if iterates is None else np.array(iterates))


def _reference_descent(objective: Objective, theta0: np.ndarray, checkpoints: list[int],
                       step_size: float | np.ndarray, record_iterates: bool,
                       progress: Progress | None = None) -> BatchedDescentRun:
    """:func:`gradient_descent` from every row, recorded at the same checkpoints."""
    theta0 = np.asarray(theta0, dtype=float)
    etas = np.broadcast_to(np.asarray(step_size, dtype=float), len(theta0))
    runs = []
    for theta, eta in zip(theta0, etas):
        runs.append(gradient_descent(objective, theta, checkpoints[-1], float(eta), record_at=checkpoints))
        if progress is not None:
            progress(checkpoints[-1])
    iterates = np.array([run.theta for run in runs]).transpose(1, 0, 2) if runs else \
        np.empty((len(checkpoints), 0, theta0.shape[1]))
    losses = np.array([run.loss for run in runs]).T if runs else np.empty((len(checkpoints), 0))
    return BatchedDescentRun(np.array(checkpoints), losses, iterates[-1].copy(),
                             iterates if record_iterates else None)


def _values(objective: Objective, thetas: np.ndarray) -> np.ndarray:
    """L at every row of ``thetas``: one batched call for a :class:`Network`, else run by run (the reference's
    value of each iterate)."""
    if isinstance(objective.model, Network):
        return objective.value(thetas)
    return np.array([float(objective.value(theta)) for theta in thetas])


def _torch_descent(objective: Objective, theta0: np.ndarray, checkpoints: list[int], step_size: float | np.ndarray,
                   device: str, record_iterates: bool = False) -> BatchedDescentRun:
    import torch

    as_tensor = partial(torch.as_tensor, dtype=torch.float64, device=device)
    batched = Objective(objective.model, as_tensor(np.asarray(objective.X, dtype=float)),
                        as_tensor(np.asarray(objective.Y, dtype=float)), objective.loss, objective.mean)
    theta = torch.tensor(np.asarray(theta0, dtype=float), device=device)
    eta = torch.as_tensor(np.asarray(step_size, dtype=float), device=device)
    eta = eta[:, None] if eta.ndim == 1 else eta
    steps = checkpoints[-1]
    losses = torch.empty((len(checkpoints), theta.shape[0]), dtype=theta.dtype, device=device)
    iterates = torch.empty((len(checkpoints), *theta.shape), dtype=theta.dtype, device=device) \
        if record_iterates else None
    row = 0
    with torch.no_grad():
        for t in range(steps + 1):
            if t == checkpoints[row]:
                losses[row] = batched.value(theta)
                if iterates is not None:
                    iterates[row] = theta
                row += 1
            if t < steps:
                theta.add_(eta * batched.descent(theta))
    return BatchedDescentRun(np.array(checkpoints), losses.cpu().numpy(), theta.cpu().numpy(),
                             None if iterates is None else iterates.cpu().numpy())
