"""Gradient descent of many small networks at once, in a kernel compiled for the architecture.

For a tiny network run over millions of steps, the reference engines spend nearly all their time on per-operation
overhead (the interpreter for numpy, a kernel launch per operation for torch), not on arithmetic. Here the forward
and backward passes of one run are written out as straight-line code for the given architecture (widths, number of
samples, activation, loss; for a linear tensor network, the nonzero entries of its tensor M): one scalar variable
per weight, pre-activation, activation slope and back-propagated value. The source is generated, compiled once per
architecture by numba, and run with the loop over runs innermost, so LLVM vectorizes it (the runs are SIMD lanes)
and every intermediate stays in a register.

It is the reference engine's update, step for step: θ ← θ + η·(−∇L(θ)) with the same arithmetic as
:meth:`numerics.losses.Objective.descent` on a :class:`numerics.networks.Network` (sums in the same order, hidden
activations σ(z) = z·σ'(z) with σ'(0) = ``relu_slope_at_zero``, margin weights e^{log(−ℓ'(q)) + log scale},
the mean's 1/n applied as a division). No fast-math flags: nothing is reassociated or fused, so the iterates agree
with the reference to rounding (the reference's BLAS products may fuse multiply-adds).

Supported: networks of :class:`~numerics.networks.Dense` layers (ReLU or linear) and linear tensor networks
(:class:`~numerics.tensor_network.LinearTensorNetwork`: diagonal, convolutional, fully connected; the same update as
its ``vjp``, summing over the nonzero entries of M in C order: β_k = Σ M(e_k)_j v_1[j_1]⋯v_L[j_L], the gradient of
block l through M(Xᵀ G)), the square, exponential and logistic losses, sum or mean, with up to :data:`MAX_PRODUCTS`
multiplications per run and step (code size grows with the architecture; larger networks are not "tiny" and belong
to the torch engine, or for tensor networks to the numpy reference). The margin losses call exp and log1p per
sample, which LLVM does not vectorize: their kernels run the lanes one by one (still compiled).
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
from numerics.tensor_network import LinearTensorNetwork

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


@dataclass(frozen=True)
class TensorArchitecture:
    """What the generated code of a linear tensor network depends on: the nonzero entries of its tensor M."""

    sizes: tuple[int, ...]  # k_1, ..., k_L: θ = (v_1, ..., v_L)
    entries: tuple[tuple[int, tuple[int, ...], float], ...]  # (k, (j_1, ..., j_L), M(e_k)_j), nonzero, in C order
    d_in: int
    samples: int
    loss: str  # "square", "exponential" or "logistic"
    mean: bool
    relu_slope_at_zero = 0.0  # (no activation; the generated module's constant is unused)

    @property
    def offsets(self) -> tuple[int, ...]:
        """Start of each v_l in θ."""
        starts = [0]
        for size in self.sizes:
            starts.append(starts[-1] + size)
        return tuple(starts)

    @property
    def products(self) -> int:
        """Multiplications per run and step: outputs, β and the contraction with Xᵀ G, the L gradient blocks."""
        L = len(self.sizes)
        return 2 * self.samples * self.d_in + len(self.entries) * (2 * L + L * (L - 1))


def _loss_name(objective: Objective) -> str | None:
    """The loss as the kernels name it, or None for a margin loss they do not support."""
    if not objective.is_margin:
        return "square"
    loss = margin_loss(objective.loss)
    return loss.name if type(loss) in (ExponentialLoss, LogisticLoss) else None


def architecture(objective: Objective) -> Architecture | TensorArchitecture | None:
    """The objective's architecture if the compiled kernel supports it, else None."""
    model, name = objective.model, _loss_name(objective)
    samples, mean = int(objective.X.shape[0]), bool(objective.mean)
    arch: Architecture | TensorArchitecture
    if name is None:
        return None
    if isinstance(model, LinearTensorNetwork):
        basis = np.asarray(model.basis)
        if basis.dtype == object or not np.all(np.isfinite(basis)):
            return None
        entries = tuple((int(index[0]), tuple(int(j) for j in index[1:]), float(basis[tuple(index)]))
                        for index in np.argwhere(basis != 0))  # argwhere: C order
        arch = TensorArchitecture(model.sizes, entries, model.d_in, samples, name, mean)
    elif isinstance(model, Network) and model.activation in ("relu", "linear") and \
            all(isinstance(layer, Dense) for layer in model.layers):  # the kernel has no leaky slope
        widths = (model.d_in, *(layer.shape[0] for layer in model.layers))
        arch = Architecture(widths, samples, model.activation == "relu", float(model.relu_slope_at_zero), name, mean)
    else:
        return None
    return arch if arch.products <= MAX_PRODUCTS else None


def supports(objective: Objective) -> bool:
    """Whether :func:`compiled_stepper` can run this objective."""
    return architecture(objective) is not None


def compiled_stepper(objective: Objective) -> Stepper:
    """A :data:`Stepper` for ``objective``: compiled the first time its architecture is met (seconds), then loaded
    from the disk cache (:func:`kernel_cache_dir`)."""
    arch = architecture(objective)
    if arch is None:
        raise TypeError("the compiled engine needs a network of Dense layers (ReLU or linear) or a linear tensor "
                        "network, the square, exponential or logistic loss and at most "
                        f"{MAX_PRODUCTS} products per step")
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


def step_lines(arch: Architecture | TensorArchitecture) -> list[str]:
    """The per-run update as straight-line statements, shared by every target (this CPU kernel and the CUDA kernel
    of :mod:`numerics.cuda_descent`): from the weights ``t0, t1, ...`` and the data ``x{s}_{j}``, ``y{s}_{i}`` to
    the gradient-like ``g0, g1, ...`` whose :func:`descent_expression` is the descent direction."""
    return _dense_step(arch) if isinstance(arch, Architecture) else _tensor_step(arch)


def descent_expression(arch: Architecture | TensorArchitecture, k: int) -> str:
    """Component k of the descent direction: −∇L = −(vjp/n) for a mean square loss, −vjp for a sum; for a margin
    loss ``g{k}`` is already the vjp of G = e^{log weight}·y."""
    if arch.loss != "square":
        return f"g{k}"
    return f"-(g{k} / {arch.samples}.0)" if arch.mean else f"-g{k}"


def data_shape(arch: Architecture | TensorArchitecture) -> tuple[int, int]:
    """(d_in, d_out): the columns of X and of Y as the kernels read them."""
    return (arch.widths[0], arch.widths[-1]) if isinstance(arch, Architecture) else (arch.d_in, 1)


def kernel_source(arch: Architecture | TensorArchitecture) -> str:
    """Python source of ``kernel(theta, steps, eta, X, Y)`` for one architecture (readable, for inspection)."""
    n = arch.samples
    d_in, d_out = data_shape(arch)
    body = [f"t{k} = theta[{k}, r]" for k in range(arch.offsets[-1])]
    body += step_lines(arch)
    for k in range(arch.offsets[-1]):  # θ + η·descent
        body.append(f"theta[{k}, r] = t{k} + eta[r] * ({descent_expression(arch, k)})")

    header = ["def kernel(theta, steps, eta, X, Y):"]
    header += [f"    x{s}_{j} = X[{s}, {j}]" for s in range(n) for j in range(d_in)]
    header += [f"    y{s}_{i} = Y[{s}, {i}]" for s in range(n) for i in range(d_out)]
    header += ["    for _ in range(steps):", "        for r in range(theta.shape[1]):"]
    return "\n".join(header + ["            " + line for line in body]) + "\n"


def _output_gradient(arch: Architecture | TensorArchitecture, s: int, i: int, output: str, target: str) -> list[str]:
    """Lines setting ``target`` to the loss's output gradient G (the vjp's input) for output i of sample s: the
    residual for the square loss, e^{log(−ℓ'(q)) + log scale}·y for a margin loss."""
    if arch.loss == "square":
        return [f"{target} = {output} - y{s}_{i}"]
    log_weight = f"-q{s}" if arch.loss == "exponential" else f"-logaddexp0(q{s})"
    return [f"q{s} = y{s}_0 * {output}", f"{target} = exp({log_weight} + LOG_SCALE) * y{s}_0"]


def _dense_step(arch: Architecture) -> list[str]:
    """Forward and backward pass of a network of Dense layers: the weight gradients g0, g1, ... of one run."""
    widths, n, L = arch.widths, arch.samples, len(arch.widths) - 1
    offsets = arch.offsets

    def weight(layer: int, i: int, j: int) -> str:
        return f"t{offsets[layer] + i * widths[layer] + j}"

    def grad(layer: int, i: int, j: int) -> str:
        return f"g{offsets[layer] + i * widths[layer] + j}"

    def act(layer: int, s: int, j: int) -> str:  # input of a layer for sample s: x for layer 0, else hidden output
        return f"x{s}_{j}" if layer == 0 else f"h{layer}_{s}_{j}"

    body = []
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
        for i in range(widths[L]) if arch.loss == "square" else range(1):
            body += _output_gradient(arch, s, i, f"o{s}_{i}", f"d{L}_{s}_{i}")
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
    return body


def _tensor_step(arch: TensorArchitecture) -> list[str]:
    """Forward and backward pass of a linear tensor network, as :class:`LinearTensorNetwork` computes them (its
    einsums multiply left to right, M first, and sum in C order; zero entries of M are left out, which changes no
    sum): β_k = Σ_j M(e_k)_j·v_1[j_1]⋯v_L[j_L]; o_s = Σ_k x_{s,k} β_k; m = Xᵀ G; T_j = Σ_k m_k M(e_k)_j; block l of
    the gradient: g_l[i] = Σ_{j: j_l = i} T_j Π_{l' ≠ l} v_{l'}[j_{l'}]."""
    L, n, offsets = len(arch.sizes), arch.samples, arch.offsets

    def vector(ell: int, j: int) -> str:
        return f"t{offsets[ell] + j}"

    def scaled(first: str, coefficient: float) -> str:  # first·c, where c = 1 changes no bit
        return first if coefficient == 1.0 else f"{first} * {coefficient!r}"

    def name(j: tuple[int, ...]) -> str:
        return "T" + "_".join(map(str, j))

    body = []
    for k in range(arch.d_in):  # β_k: M(e_k) first, then v_1, ..., v_L
        terms = [" * ".join(([] if c == 1.0 else [repr(c)]) + [vector(ell, j[ell]) for ell in range(L)])
                 for index, j, c in arch.entries if index == k]
        body.append(f"b{k} = {_sum(terms) if terms else '0.0'}")
    for s in range(n):  # outputs, then G
        body.append(f"o{s} = " + _sum([f"x{s}_{k} * b{k}" for k in range(arch.d_in)]))
        body += _output_gradient(arch, s, 0, f"o{s}", f"G{s}")
    used = sorted({k for k, _, _ in arch.entries})
    body += [f"m{k} = " + _sum([f"x{s}_{k} * G{s}" for s in range(n)]) for k in used]  # m = Xᵀ G
    tensor: dict[tuple[int, ...], list[str]] = {}  # T = M(m), one variable per nonzero multi-index j
    for k, j, c in arch.entries:
        tensor.setdefault(j, []).append(scaled(f"m{k}", c))
    indices = sorted(tensor)  # C order over j
    body += [f"{name(j)} = {_sum(tensor[j])}" for j in indices]
    for ell, size in enumerate(arch.sizes):
        for i in range(size):
            terms = [" * ".join([name(j)] + [vector(other, j[other]) for other in range(L) if other != ell])
                     for j in indices if j[ell] == i]
            body.append(f"g{offsets[ell] + i} = {_sum(terms) if terms else '0.0'}")
    return body


LOGADDEXP0_SOURCE = '''@numba.njit(inline="always", cache=True)
def logaddexp0(q):
    """log(1 + e^q), branch for branch as numpy's logaddexp(0.0, q)."""
    if q == 0.0:
        return math.log(2.0)
    if q < 0.0:
        return math.log1p(math.exp(q))
    if q > 0.0:
        return q + math.log1p(math.exp(-q))
    return q  # nan
'''  # numba source shared by the generated modules (descent kernels, flow fields)


_MODULE_TEMPLATE = '''"""Generated by numerics.compiled_descent for {arch}; do not edit."""
import math

import numba

SLOPE_AT_ZERO = {slope!r}
LOG_SCALE = {log_scale!r}  # as Objective.log_weights adds it: log(1/n) for a mean, else 0


{logaddexp0}

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
    source = _MODULE_TEMPLATE.format(arch=arch, logaddexp0=LOGADDEXP0_SOURCE, slope=arch.relu_slope_at_zero,
                                     log_scale=-float(np.log(arch.samples)) if arch.mean else 0.0,
                                     kernel=kernel_source(arch))
    return load_generated(source, "gd_").kernel


def load_generated(source: str, prefix: str):
    """Import generated source as a module kept in :func:`kernel_cache_dir` (named ``prefix`` + its hash), so that
    numba's ``cache=True`` keeps the machine code on disk next to it. Used by every generated kernel (descent here,
    flow fields in :mod:`numerics.compiled_fields`)."""
    name = prefix + hashlib.sha256(source.encode()).hexdigest()[:20]
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
    return module
