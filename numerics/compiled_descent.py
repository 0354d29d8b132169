"""Gradient descent of many small fully-connected networks at once, in a kernel compiled for the architecture.

For a tiny network run over millions of steps, the reference engines spend nearly all their time on per-operation
overhead (the interpreter for numpy, a kernel launch per operation for torch), not on arithmetic. Here the forward
and backward passes of one run are written out as straight-line code for the given architecture (widths, number of
samples, activation, loss): one scalar variable per weight, pre-activation, activation slope and back-propagated
value. The source is generated, compiled once per architecture by numba, and run with the loop over runs innermost,
so LLVM vectorizes it (the runs are SIMD lanes) and every intermediate stays in a register.

It is the reference engine's update, step for step: θ ← θ + η·(−∇L(θ)) with the same arithmetic as
:meth:`numerics.losses.Objective.descent` on a :class:`numerics.networks.Network` (sums in the same order, hidden
activations σ(z) = z·σ'(z) with σ'(0) = ``relu_slope_at_zero``, margin weights e^{log(−ℓ'(q)) + log scale},
the mean's 1/n applied as a division). No fast-math flags: nothing is reassociated or fused, so the iterates agree
with the reference to rounding (the reference's BLAS products may fuse multiply-adds).

Supported: networks of :class:`~numerics.networks.Dense` layers (ReLU or linear), the square, exponential and
logistic losses, sum or mean, with up to :data:`MAX_PRODUCTS` multiplications per run and step (code size grows
with the architecture; larger networks are not "tiny" and belong to the torch engine). The margin losses call exp
and log1p per sample, which LLVM does not vectorize: their kernels run the lanes one by one (still compiled).
Compiled code is cached on disk per architecture (:func:`kernel_cache_dir`), so sweep workers and later runs load
it instead of compiling again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from numerics.cache import cache_dir
from numerics.losses import ExponentialLoss, LogisticLoss, Objective, margin_loss
from numerics.networks import Dense, Network

MAX_PRODUCTS = 4096  # multiplications per run and step of the generated code (forward + backward)

Stepper = Callable[[np.ndarray, int, np.ndarray], None]
"""stepper(state, steps, eta): ``steps`` GD updates in place on ``state`` (parameters × runs, C order) with one step
size per run (``eta``, length runs)."""


@dataclass(frozen=True)
class Architecture:
    """What the generated code depends on (the data X, Y and the step sizes are arguments of the kernel)."""

    widths: tuple[int, ...]  # d_0 (input), ..., d_L (output)
    samples: int
    relu: bool
    relu_slope_at_zero: float
    loss: str  # "square", "exponential" or "logistic"
    mean: bool

    @property
    def offsets(self) -> tuple[int, ...]:
        """Start of each layer's weights in θ (row-major d_out × d_in blocks, as :class:`Dense` flattens them)."""
        starts = [0]
        for d_in, d_out in zip(self.widths, self.widths[1:]):
            starts.append(starts[-1] + d_in * d_out)
        return tuple(starts)

    @property
    def products(self) -> int:
        """Multiplications per run and step: forward, weight gradients, back-propagated deltas."""
        layer_sizes = [a * b for a, b in zip(self.widths, self.widths[1:])]
        return self.samples * (2 * sum(layer_sizes) + sum(layer_sizes[1:]))


def architecture(objective: Objective) -> Architecture | None:
    """The objective's architecture if the compiled kernel supports it, else None."""
    model = objective.model
    if not isinstance(model, Network) or not all(isinstance(layer, Dense) for layer in model.layers):
        return None
    if objective.is_margin:
        loss = margin_loss(objective.loss)
        if type(loss) not in (ExponentialLoss, LogisticLoss):
            return None
        name = loss.name
    else:
        name = "square"
    widths = (model.d_in, *(layer.shape[0] for layer in model.layers))
    arch = Architecture(widths, int(objective.X.shape[0]), model.activation == "relu",
                        float(model.relu_slope_at_zero), name, bool(objective.mean))
    return arch if arch.products <= MAX_PRODUCTS else None


def supports(objective: Objective) -> bool:
    """Whether :func:`compiled_stepper` can run this objective."""
    return architecture(objective) is not None


def compiled_stepper(objective: Objective) -> Stepper:
    """A :data:`Stepper` for ``objective``: compiled the first time its architecture is met (seconds), then loaded
    from the disk cache (:func:`kernel_cache_dir`)."""
    arch = architecture(objective)
    if arch is None:
        raise TypeError("the compiled engine needs a network of Dense layers (ReLU or linear), the square, "
                        f"exponential or logistic loss and at most {MAX_PRODUCTS} products per step")
    with _KERNEL_LOCK:  # threads of a sweep share one kernel: build or load it once
        kernel = _kernel(arch)
    X = np.ascontiguousarray(objective.X, dtype=float)
    Y = np.ascontiguousarray(np.asarray(objective.Y, dtype=float).reshape(arch.samples, -1))

    def stepper(state: np.ndarray, steps: int, eta: np.ndarray) -> None:
        if not (state.flags.c_contiguous and state.dtype == np.float64):
            raise ValueError("the state must be a C-ordered float64 array (parameters × runs)")
        kernel(state, int(steps), np.ascontiguousarray(eta, dtype=float), X, Y)

    return stepper


# -- code generation ---------------------------------------------------------------------------------------------
def _sum(terms: list[str]) -> str:
    """Left to right, as the reference's sums run (a first term, not 0 + ...)."""
    return " + ".join(terms)


def kernel_source(arch: Architecture) -> str:
    """Python source of ``kernel(theta, steps, eta, X, Y)`` for one architecture (readable, for inspection)."""
    widths, n, L = arch.widths, arch.samples, len(arch.widths) - 1
    offsets = arch.offsets

    def weight(layer: int, i: int, j: int) -> str:
        return f"t{offsets[layer] + i * widths[layer] + j}"

    def grad(layer: int, i: int, j: int) -> str:
        return f"g{offsets[layer] + i * widths[layer] + j}"

    def act(layer: int, s: int, j: int) -> str:  # input of a layer for sample s: x for layer 0, else hidden output
        return f"x{s}_{j}" if layer == 0 else f"h{layer}_{s}_{j}"

    body = [f"t{k} = theta[{k}, r]" for k in range(offsets[-1])]
    for layer in range(L):  # forward
        for s in range(n):
            for i in range(widths[layer + 1]):
                z = _sum([f"{act(layer, s, j)} * {weight(layer, i, j)}" for j in range(widths[layer])])
                if layer == L - 1:
                    body.append(f"o{s}_{i} = {z}")
                elif arch.relu:  # σ(z) = z·σ'(z), σ'(0) = the network's convention
                    body += [f"z = {z}", f"slope{layer + 1}_{s}_{i} = 1.0 if z > 0.0 else (SLOPE_AT_ZERO if z == 0.0 "
                                         "else 0.0)", f"h{layer + 1}_{s}_{i} = z * slope{layer + 1}_{s}_{i}"]
                else:
                    body.append(f"h{layer + 1}_{s}_{i} = {z}")
    for s in range(n):  # the loss's output gradient G (vjp input), delta of the last layer
        if arch.loss == "square":
            body += [f"d{L}_{s}_{i} = o{s}_{i} - y{s}_{i}" for i in range(widths[L])]
        else:
            log_weight = f"-q{s}" if arch.loss == "exponential" else f"-logaddexp0(q{s})"
            body += [f"q{s} = y{s}_0 * o{s}_0", f"d{L}_{s}_0 = exp({log_weight} + LOG_SCALE) * y{s}_0"]
    for layer in range(L - 1, -1, -1):  # backward: Gᵀh for the weights, then G W (times σ') down one layer
        for i in range(widths[layer + 1]):
            for j in range(widths[layer]):
                terms = [f"d{layer + 1}_{s}_{i} * {act(layer, s, j)}" for s in range(n)]
                body.append(f"{grad(layer, i, j)} = " + _sum(terms))
        if layer > 0:
            for s in range(n):
                for j in range(widths[layer]):
                    back = _sum([f"d{layer + 1}_{s}_{i} * {weight(layer, i, j)}" for i in range(widths[layer + 1])])
                    back = f"({back}) * slope{layer}_{s}_{j}" if arch.relu else back
                    body.append(f"d{layer}_{s}_{j} = {back}")
    for k in range(offsets[-1]):  # θ + η·descent, descent = −∇L (square: −(vjp/n) for a mean) or vjp(G)
        if arch.loss != "square":
            descent = f"g{k}"
        else:
            descent = f"-(g{k} / {n}.0)" if arch.mean else f"-g{k}"
        body.append(f"theta[{k}, r] = t{k} + eta[r] * ({descent})")

    header = ["def kernel(theta, steps, eta, X, Y):"]
    header += [f"    x{s}_{j} = X[{s}, {j}]" for s in range(n) for j in range(widths[0])]
    header += [f"    y{s}_{i} = Y[{s}, {i}]" for s in range(n) for i in range(widths[L])]
    header += ["    for _ in range(steps):", "        for r in range(theta.shape[1]):"]
    return "\n".join(header + ["            " + line for line in body]) + "\n"


_MODULE_TEMPLATE = '''"""Generated by numerics.compiled_descent for {arch}; do not edit."""
import math

import numba

SLOPE_AT_ZERO = {slope!r}
LOG_SCALE = {log_scale!r}  # as Objective.log_weights adds it: log(1/n) for a mean, else 0


@numba.njit(inline="always", cache=True)
def logaddexp0(q):
    """log(1 + e^q), branch for branch as numpy's logaddexp(0.0, q)."""
    if q == 0.0:
        return math.log(2.0)
    if q < 0.0:
        return math.log1p(math.exp(q))
    if q > 0.0:
        return q + math.log1p(math.exp(-q))
    return q  # nan


exp = math.exp


@numba.njit(nogil=True, error_model="numpy", cache=True)
{kernel}'''


_KERNEL_LOCK = threading.Lock()


def kernel_cache_dir() -> Path:
    """Where generated kernels and numba's compiled code are kept (:func:`numerics.cache.cache_dir`)."""
    return cache_dir("kernels")


@lru_cache(maxsize=None)
def _kernel(arch: Architecture):
    """The compiled kernel of ``arch``: its source is written to a file so that numba caches the machine code on
    disk (compiling takes seconds; every process of a sweep, and every later run, loads it instead)."""
    source = _MODULE_TEMPLATE.format(arch=arch, slope=arch.relu_slope_at_zero,
                                     log_scale=-float(np.log(arch.samples)) if arch.mean else 0.0,
                                     kernel=kernel_source(arch))
    name = "gd_" + hashlib.sha256(source.encode()).hexdigest()[:20]
    try:
        folder = kernel_cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="ibverify-kernels-"))  # a read-only home: no reuse across processes
    path = folder / f"{name}.py"
    if not path.exists() or path.read_text() != source:  # rewriting would change the mtime and void numba's cache
        temporary = folder / f".{name}.{os.getpid()}.tmp"
        temporary.write_text(source)
        os.replace(temporary, path)  # atomic: concurrent workers never import a half-written file
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cached code refers to its module by name
    spec.loader.exec_module(module)
    return module.kernel
