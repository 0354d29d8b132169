"""Gradient descent of many small networks at once on a GPU: the second target of the compiled kernel's generator.

One CUDA thread per run, the loop over steps inside the kernel, the run's weights in registers from the first step
to the last, float64, nothing shared between runs (no reduction across runs, no library call whose algorithm depends
on how many runs there are): a run's iterates do not depend on the batch or chunk it is in. The per-run update is
the one :mod:`numerics.compiled_descent` writes for the CPU (:func:`~numerics.compiled_descent.step_lines`: the same
straight-line statements, in the same order), compiled by numba's CUDA target (the ``numba-cuda`` package when it is
installed, else numba's built-in ``numba.cuda``).

Arithmetic. NVVM, numba's CUDA back end, contracts a·b + c into a fused multiply-add by default, with or without
``fastmath`` (numba exposes no switch: numba#2834, numba-cuda#118), and ptxas may fuse a ``mul.f64`` and an
``add.f64`` that carry no rounding modifier. So every +, ×, ÷ of the generated update is written as libdevice's
``dadd_rn``, ``dmul_rn``, ``ddiv_rn``, and a − b as ``dadd_rn(a, −b)``, which is IEEE's a − b (:func:`rounded`):
IEEE operations rounded to nearest that are never merged into an FMA (they compile to ``add.rn.f64`` etc.;
``tests/test_cuda_descent.py`` checks the PTX for fused or unrounded float64 arithmetic where a CUDA toolkit is
installed, no GPU needed). The GPU then performs the CPU kernel's operations in the CPU kernel's order, and IEEE
division and comparisons are exact as well: for the square loss its iterates are the CPU kernel's, bit for bit. The
margin losses call ``exp`` and ``log1p``, which are libdevice's on the GPU (within 1 ulp; not correctly rounded,
nor is the host's libm): there the two devices agree to rounding, not bit for bit.

Testing without a GPU. With ``NUMBA_ENABLE_CUDASIM=1`` numba runs the kernel in its CUDA simulator: the same
generated kernel, thread indexing, bounds guard, register loads and stores, executed in Python on the CPU, with
``add`` etc. bound to Python's IEEE operations (the simulator has no libdevice) and ``exp`` to the host's libm. It
cannot show an FMA (Python has none); the PTX check does. ``auto`` device choices never pick the simulator.
"""

from __future__ import annotations

import ast
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from numerics.compiled_descent import (
    Architecture,
    Stepper,
    TensorArchitecture,
    architecture,
    data_shape,
    descent_expression,
    load_generated,
    step_lines,
)
from numerics.losses import Objective

THREADS_PER_BLOCK = 128
SEGMENT_RUN_STEPS = 200_000_000_000  # run-steps per kernel launch (1.2 s of an H100 on Fig. 1's network,
# measured): the launches in between report progress; splitting a descent into launches changes no bit (the
# state goes to global memory and back unchanged)
KERNEL_SIGNATURE = "void(float64[:, ::1], int64, float64[::1], float64[:, ::1], float64[:, ::1])"
GPU_DRIVER_FILES = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/dxg")  # NVIDIA on Linux, WSL2

Progress = Callable[[int], None]


@dataclass(frozen=True)
class Availability:
    """Whether the CUDA kernel can run here: on a GPU, or in numba's simulator (tests only), and why not."""

    ok: bool
    simulated: bool
    detail: str  # the device's name, or why the kernel cannot run

    @property
    def gpu(self) -> bool:
        """A real GPU (what ``auto`` device choices may pick)."""
        return self.ok and not self.simulated


def simulator_enabled() -> bool:
    """Whether numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1`` before numba's import)."""
    if "numba" in sys.modules:
        from numba import config

        return bool(config.ENABLE_CUDASIM)
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


@lru_cache(maxsize=1)
def availability() -> Availability:
    """Checked once per process. On Linux without an NVIDIA driver the answer comes without importing numba's CUDA
    target; an import that fails (a numba-cuda built against another numpy, say) makes the kernel unavailable with
    the error as the reason, and the callers fall back to the CPU kernel or torch."""
    simulated = simulator_enabled()
    if not simulated and sys.platform == "linux" and not any(map(os.path.exists, GPU_DRIVER_FILES)):
        return Availability(False, False, "no NVIDIA driver on this machine")
    try:
        from numba import cuda

        if not cuda.is_available():
            return Availability(False, simulated, f"numba's CUDA target finds no GPU ({cuda.cuda_error()})")
        name = "numba's CUDA simulator" if simulated else cuda.get_current_device().name
        _probe_kernel(cuda)
    except Exception as exc:  # noqa: BLE001 - any failure of an optional toolchain means "not here"
        return Availability(False, simulated, f"numba's CUDA target failed: {type(exc).__name__}: {exc}")
    return Availability(True, simulated, name.decode() if isinstance(name, bytes) else str(name))


def _probe_kernel(cuda) -> None:
    """Compile and launch a one-thread kernel: a target that finds a GPU can still fail to compile anything (seen:
    numba-cuda 0.30.4 beside numpy 2.5, which removed ``np.row_stack``, fails when its first kernel is compiled), and
    that failure must mean "not here", not a crash in the middle of a claim."""
    probe = cuda.jit("void(float64[::1])")(_write_one)
    written = cuda.device_array(1, dtype=np.float64)
    probe[1, 1](written)
    if written.copy_to_host()[0] != 1.0:
        raise RuntimeError("a probe kernel ran but did not write its result")


def _write_one(out) -> None:  # the probe kernel's body
    out[0] = 1.0


# -- code generation ---------------------------------------------------------------------------------------------
_ROUNDED = {ast.Add: "add", ast.Mult: "mul", ast.Div: "div"}
_LOGADDEXP0 = ("(LOG_2 if {q} == 0.0 else log1p(exp({q})) if {q} < 0.0 else {q} + log1p(exp(-{q})) if {q} > 0.0 "
               "else {q})")


class _Rounded(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)  # operands first: a + b + c is (a + b) + c, as Python and the CPU kernel add
        if isinstance(node.op, ast.Sub):  # IEEE's a − b is a + (−b); negation is exact (libdevice has no dsub_rn)
            return ast.Call(ast.Name("add", ast.Load()), [node.left, ast.UnaryOp(ast.USub(), node.right)], [])
        name = _ROUNDED.get(type(node.op))
        if name is None:
            raise ValueError(f"no rounded form of {ast.unparse(node)}")
        return ast.Call(ast.Name(name, ast.Load()), [node.left, node.right], [])

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Name) and node.func.id == "logaddexp0":  # inline: the kernel calls no device
            (argument,) = node.args  # function (compiling one needs a GPU, even for PTX alone)
            if not isinstance(argument, ast.Name):
                raise ValueError("logaddexp0 of a variable only")
            return self.visit(ast.parse(_LOGADDEXP0.format(q=argument.id), mode="eval").body)
        self.generic_visit(node)
        return node


def rounded(statement: str) -> str:
    """``statement`` with every binary +, ×, ÷ written as a call of ``add``, ``mul``, ``div`` and a − b as
    ``add(a, -b)`` (same operands, same order of evaluation: ``z = a * b - c`` becomes ``z = add(mul(a, b), -c)``),
    and ``logaddexp0(q)`` written out, branch for branch as numpy's logaddexp(0.0, q)."""
    tree = _Rounded().visit(ast.parse(statement))
    return ast.unparse(ast.fix_missing_locations(tree))


def cuda_kernel_source(arch: Architecture | TensorArchitecture) -> str:
    """Python source of the CUDA ``kernel(theta, steps, eta, X, Y)``: thread r advances run r (column r of theta,
    parameters × runs) by ``steps`` updates with step size eta[r]."""
    n, (d_in, d_out), size = arch.samples, data_shape(arch), arch.offsets[-1]
    update = step_lines(arch) + [f"t{k} = t{k} + e * ({descent_expression(arch, k)})" for k in range(size)]
    lines = ["def kernel(theta, steps, eta, X, Y):", "    r = cuda.grid(1)", "    if r >= theta.shape[1]:",
             "        return"]
    lines += [f"    x{s}_{j} = X[{s}, {j}]" for s in range(n) for j in range(d_in)]
    lines += [f"    y{s}_{i} = Y[{s}, {i}]" for s in range(n) for i in range(d_out)]
    lines += [f"    t{k} = theta[{k}, r]" for k in range(size)] + ["    e = eta[r]", "    for _ in range(steps):"]
    lines += ["        " + rounded(line) for line in update]
    lines += [f"    theta[{k}, r] = t{k}" for k in range(size)]
    return "\n".join(lines) + "\n"


_MODULE_TEMPLATE = '''"""Generated by numerics.cuda_descent for {arch}; do not edit."""
import math

from numba import config, cuda

SLOPE_AT_ZERO = {slope!r}
LOG_SCALE = {log_scale!r}  # as Objective.log_weights adds it: log(1/n) for a mean, else 0

if config.ENABLE_CUDASIM:  # the simulator runs this in Python: IEEE operations rounded to nearest, never fused
    def add(a, b):
        return a + b

    def mul(a, b):
        return a * b

    def div(a, b):
        return a / b
else:  # libdevice's operations rounded to nearest: NVVM never contracts them into an FMA
    from numba.cuda.libdevice import dadd_rn as add, ddiv_rn as div, dmul_rn as mul

LOG_2 = math.log(2.0)  # logaddexp0(0), as the CPU kernel computes it
log1p = math.log1p
exp = math.exp


@cuda.jit(cache=True)
{kernel}'''


_KERNEL_LOCK = threading.Lock()


def cuda_module_source(arch: Architecture | TensorArchitecture) -> str:
    """The generated module: constants, the rounded operations (libdevice's, or Python's in the simulator), the
    kernel."""
    return _MODULE_TEMPLATE.format(arch=arch, slope=arch.relu_slope_at_zero,
                                   log_scale=-float(np.log(arch.samples)) if arch.mean else 0.0,
                                   kernel=cuda_kernel_source(arch))


@lru_cache(maxsize=None)
def _module(arch: Architecture | TensorArchitecture):
    """The generated module (kept in the kernel cache, so numba caches the compiled kernel next to it)."""
    return load_generated(cuda_module_source(arch), "gdcuda_")


def cuda_kernel_ptx(objective: Objective, cc: tuple[int, int] = (9, 0)) -> str:
    """PTX of ``objective``'s kernel for compute capability ``cc``: needs numba's CUDA target and a CUDA toolkit's
    NVVM (``CUDA_HOME``), not a GPU; for inspecting the arithmetic the GPU will run."""
    from numba import cuda

    arch = architecture(objective)
    if arch is None:
        raise TypeError("the CUDA kernel does not cover this objective")
    ptx, _ = cuda.compile_ptx(_module(arch).kernel.py_func, KERNEL_SIGNATURE, cc=cc)
    return ptx


def cuda_stepper(objective: Objective, progress: Progress | None = None,
                 segment_run_steps: int = SEGMENT_RUN_STEPS) -> Stepper:
    """A :data:`~numerics.compiled_descent.Stepper` running on the GPU (or in the simulator): the state (parameters
    × runs, on the host) goes to the device, advances ``steps`` updates in launches of about ``segment_run_steps``
    run-steps each (``progress`` is told after each), and comes back."""
    arch = architecture(objective)
    if arch is None:
        raise TypeError("the CUDA kernel covers the compiled kernel's networks only (see numerics.compiled_descent)")
    status = availability()
    if not status.ok:
        raise RuntimeError(f"the CUDA kernel cannot run here: {status.detail}")
    from numba import cuda

    with _KERNEL_LOCK:
        kernel = _module(arch).kernel
    X = cuda.to_device(np.ascontiguousarray(objective.X, dtype=float))
    Y = cuda.to_device(np.ascontiguousarray(np.asarray(objective.Y, dtype=float).reshape(arch.samples, -1)))

    def stepper(state: np.ndarray, steps: int, eta: np.ndarray) -> None:
        if not (state.flags.c_contiguous and state.dtype == np.float64):
            raise ValueError("the state must be a C-ordered float64 array (parameters × runs)")
        runs, steps = state.shape[1], int(steps)
        if runs == 0 or steps <= 0:
            return
        device_state = cuda.to_device(state)
        device_eta = cuda.to_device(np.ascontiguousarray(np.broadcast_to(eta, runs), dtype=float))
        threads = min(THREADS_PER_BLOCK, runs)
        blocks = -(-runs // threads)
        piece = max(1, segment_run_steps // runs)
        done = 0
        while done < steps:
            count = min(piece, steps - done)
            kernel[blocks, threads](device_state, count, device_eta, X, Y)
            cuda.synchronize()
            done += count
            if progress is not None:
                progress(count * runs)
        device_state.copy_to_host(state)

    return stepper
