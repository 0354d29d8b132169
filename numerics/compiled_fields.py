"""Compiled float64 fields of margin objectives: loss, log-loss, margins, descent direction and their Jacobians in
one compiled call per architecture.

Gradient flows and local searches of the small networks the margin claims use evaluate the same field 10⁴–10⁵
times on a handful of numbers; through the generic backend (:mod:`numerics.backend`, which serves float64,
mpmath, sympy and torch alike) each evaluation costs tens of microseconds of dispatch. Here the forward and
backward passes of one sample are written out as straight-line code for the architecture, with the kernel
generator of :mod:`numerics.compiled_descent` (one scalar variable per weight, pre-activation, slope and
back-propagated value, sums left to right, compiled by numba, no fast-math, cached on disk by
:func:`~numerics.compiled_descent.load_generated`), extended in three ways:

* any layer whose weight matrix picks single parameters (:class:`~numerics.networks.Dense`,
  :class:`~numerics.networks.Diagonal`, :class:`~numerics.networks.Shared`: entry (i, j) is one θ_k or 0), ReLU,
  leaky ReLU or linear activations;
* a loop over samples, so the number of samples, the loss (exponential or logistic), sum or mean and the slopes of
  the activation are arguments: one kernel per layer structure;
* forward-mode tangents of every statement (the product rule on the generated sums, slopes constant), looped over
  the parameter directions: the Jacobian of the margins, the gradient of log L and the Jacobian of the descent
  direction, which the stiff solvers need, exact up to rounding.

One call computes, for θ (float64):

* log L(θ) as :meth:`~numerics.losses.Objective.log_value` (``scipy.special.logsumexp``'s formula), L(θ), the
  margins q_i and the hidden pre-activations (as :func:`numerics.flows.hidden_preactivations` orders them);
* the descent direction d = Σ_i e^{log(−ℓ'(q_i)) + log scale + c} y_i ∇Φ(θ; x_i) with c = log_scale, or
  log_scale − log L(θ) when ``normalize`` (−∇L/L: the loss clock), as :meth:`~numerics.losses.Objective.descent`;
* on request ∂q/∂θ, ∇ log L and ∂d/∂θ.

Compiling costs seconds per layer structure (1–8 s on a busy core for the margin claims' networks; ``tangents``
only where a Jacobian is asked for), once per machine: the disk cache serves every later process in ~10 ms.

:meth:`numerics.losses.Objective` uses it automatically for one float64 vector θ (numpy inputs, a supported model
and loss); :class:`numerics.flows.GradientFlow` also hands the analytic Jacobian to implicit solvers, and
:func:`numerics.kkt.local_search` and :func:`numerics.min_norm.minimum_norm` take margins and their Jacobian from it
(:func:`margin_functions`). Margin objectives on a :class:`~numerics.tensor_network.LinearTensorNetwork` (any
basis) get a :class:`TensorNetworkField` instead: β(θ) and ∂β/∂θ in one compiled call, the rest a few numpy
operations, with the same analytic Jacobians; the square loss on them a :class:`TensorNetworkSquareField` (the
regression claims' flows). The square loss on a network gets a :class:`NetworkSquareField`: not compiled, the
generic backend's numpy operations without its dispatch (the same bits), one forward and one backward pass per
evaluation. Everything else (mpmath, sympy, intervals, torch, batches of θ, other layers) runs on the generic
backend, against which tests/test_fast_fields.py checks every quantity to rounding.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from numerics import losses
from numerics.compiled_descent import LOGADDEXP0_SOURCE, MAX_PRODUCTS, _sum, load_generated
from numerics.losses import ExponentialLoss, LogisticLoss, Objective, margin_loss
from numerics.networks import Network, scalar_outputs
from numerics.tensor_network import LinearTensorNetwork

MAX_PARAMETERS = 100  # beyond this a network is not small: its compile time (tens of seconds) outweighs the gain
GRADIENT, MARGIN_JACOBIAN, DESCENT_JACOBIAN = 1, 2, 4
"""Bits of ``want``: the descent direction d; ∂q/∂θ and ∇ log L; ∂d/∂θ (implies the other two)."""


@dataclass(frozen=True)
class FieldArchitecture:
    """What a field kernel's code depends on: which parameter (if any) sits at each weight entry, and whether
    hidden units have a kink (ReLU or leaky ReLU; their slopes are arguments)."""

    maps: tuple[tuple[tuple[int, ...], ...], ...]  # per layer, d_out × d_in: 1 + index of θ_k in θ, or 0 for zero
    kinked: bool

    @property
    def n_params(self) -> int:
        return max((k for layer in self.maps for row in layer for k in row), default=0)

    @property
    def widths(self) -> tuple[int, ...]:
        return (len(self.maps[0][0]), *(len(layer) for layer in self.maps))

    @property
    def hidden(self) -> int:
        """Hidden units (pre-activations per sample)."""
        return sum(self.widths[1:-1])

    @property
    def products(self) -> int:
        """Multiplications per sample of one forward-tangent and backward-tangent pass (the largest loop body)."""
        entries = sum(1 for layer in self.maps for row in layer for k in row if k)
        return 6 * entries


def field_architecture(objective: Objective) -> FieldArchitecture | None:
    """The architecture of ``objective`` if a compiled field can run it (a :class:`~numerics.networks.Network` with
    one output whose layers pick single parameters, at most :data:`MAX_PARAMETERS` of them, the exponential or
    logistic loss, real float data), else None."""
    model = objective.model
    if not isinstance(model, Network) or model.d_out != 1 or not _float_margin_objective(objective):
        return None
    try:
        float(model.relu_slope_at_zero), float(model.negative_slope)
    except TypeError:
        return None
    maps, offset = [], 0
    for layer in model.layers:
        basis = np.asarray(layer.matrix(np.eye(layer.n_params)))
        if basis.dtype.kind not in "fiu" or basis.shape != (layer.n_params, *layer.shape):
            return None
        if not np.all((basis == 0) | (basis == 1)) or np.any(basis.sum(axis=0) > 1):
            return None  # an entry that is not a single parameter
        index = np.where(basis.any(axis=0), offset + 1 + basis.argmax(axis=0), 0)
        maps.append(tuple(tuple(int(k) for k in row) for row in index))
        offset += layer.n_params
    arch = FieldArchitecture(tuple(maps), model.activation in ("relu", "leaky_relu"))
    small = arch.n_params <= MAX_PARAMETERS and arch.products <= MAX_PRODUCTS
    return arch if arch.n_params == model.n_params and small else None


# -- code generation ---------------------------------------------------------------------------------------------
def _input(layer: int, j: int) -> tuple[str, str | None]:
    """A layer's j-th input and its tangent (None: constant)."""
    return (f"x{j}", None) if layer == 0 else (f"h{layer - 1}_{j}", f"Dh{layer - 1}_{j}")


def _units(arch: FieldArchitecture) -> dict[tuple[int, int], int]:
    """Column of each hidden unit (layer, i) in the per-sample scratch arrays."""
    widths = arch.widths[1:-1]
    return {(layer, i): sum(widths[:layer]) + i for layer, width in enumerate(widths) for i in range(width)}


_WORK = {"h": 0, "S": 1, "e": 2, "Dh": 3}  # blocks of H columns of ``work``, one row per sample; then lv, lw, q


def _slot(arch: FieldArchitecture, name: str, u: int) -> str:
    """Where sample s keeps hidden value ``name`` of unit u."""
    return f"work[s, {_WORK[name] * arch.hidden + u}]"


def _loads(arch: FieldArchitecture, names: tuple[str, ...]) -> list[str]:
    """Sample s's kept hidden values h, S, Dh, e, as named."""
    return [f"{name}{layer}_{i} = {_slot(arch, name, u)}" for (layer, i), u in _units(arch).items() for name in names
            if name != "S" or arch.kinked]


def _forward(arch: FieldArchitecture, store: bool) -> list[str]:
    """One sample's forward pass (x0, x1, ... loaded): pre-activations z, slopes S, hidden outputs h = z·S (stored
    to HS, SS with ``store``, and the pre-activations to buf) and the output z{L-1}_0."""
    lines, L, units = [], len(arch.maps), _units(arch)
    for layer, rows in enumerate(arch.maps):
        for i, row in enumerate(rows):
            terms = [f"{_input(layer, j)[0]} * t{k - 1}" for j, k in enumerate(row) if k]
            lines.append(f"z{layer}_{i} = {_sum(terms) if terms else '0.0'}")
            if layer == L - 1:
                continue
            u = units[layer, i]
            if arch.kinked:
                lines += [f"S{layer}_{i} = SP if z{layer}_{i} > 0.0 else (SZ if z{layer}_{i} == 0.0 else SN)",
                          f"h{layer}_{i} = z{layer}_{i} * S{layer}_{i}"]
            else:
                lines.append(f"h{layer}_{i} = z{layer}_{i}")
            if store:
                lines += [f"buf[PRE + n * {u - i} + s * {len(rows)} + {i}] = z{layer}_{i}",
                          f"{_slot(arch, 'h', u)} = h{layer}_{i}"]
                lines += [f"{_slot(arch, 'S', u)} = S{layer}_{i}"] if arch.kinked else []
    return lines


def _forward_tangent(arch: FieldArchitecture) -> list[str]:
    """Tangents Dz, Dh of one sample's forward pass along Dt (h and S loaded), Dh stored to DH."""
    lines, L, units = _loads(arch, ("h", "S")), len(arch.maps), _units(arch)
    for layer, rows in enumerate(arch.maps):
        for i, row in enumerate(rows):
            parts = []
            for j, k in enumerate(row):
                if k:
                    value, slope = _input(layer, j)
                    parts += ([f"{slope} * t{k - 1}"] if slope else []) + [f"{value} * Dt{k - 1}"]
            lines.append(f"Dz{layer}_{i} = {_sum(parts) if parts else '0.0'}")
            if layer < L - 1:
                lines += [f"Dh{layer}_{i} = Dz{layer}_{i}" + (f" * S{layer}_{i}" if arch.kinked else ""),
                          f"{_slot(arch, 'Dh', units[layer, i])} = Dh{layer}_{i}"]
    return lines


def _backward(arch: FieldArchitecture, tangent: bool) -> list[str]:
    """One sample's backward pass from e{L-1}_0: e_{l-1} = (e_l W_l)·S, accumulating g_k and storing e to ES; with
    ``tangent`` its tangent from De{L-1}_0 (h, S, Dh, e loaded), accumulating Dg_k."""
    lines = _loads(arch, ("h", "S", "Dh", "e") if tangent else ("h", "S"))
    units = _units(arch)
    for layer in range(len(arch.maps) - 1, -1, -1):
        rows = arch.maps[layer]
        for i, row in enumerate(rows):
            for j, k in enumerate(row):
                if not k:
                    continue
                value, slope = _input(layer, j)
                if tangent:
                    parts = [f"De{layer}_{i} * {value}"] + ([f"e{layer}_{i} * {slope}"] if slope else [])
                    lines.append(f"Dg{k - 1} = Dg{k - 1} + ({_sum(parts)})")
                else:
                    lines.append(f"g{k - 1} = g{k - 1} + e{layer}_{i} * {value}")
        if layer == 0:
            continue
        for j in range(len(rows[0])):
            entries = [(i, row[j] - 1) for i, row in enumerate(rows) if row[j]]
            scale = f" * S{layer - 1}_{j}" if arch.kinked else ""
            if tangent:
                parts = [f"De{layer}_{i} * t{k} + e{layer}_{i} * Dt{k}" for i, k in entries]
                lines.append(f"De{layer - 1}_{j} = ({_sum(parts) if parts else '0.0'}){scale}")
            else:
                back = _sum([f"e{layer}_{i} * t{k}" for i, k in entries]) if entries else "0.0"
                kept = _slot(arch, "e", units[layer - 1, j])
                lines += [f"e{layer - 1}_{j} = ({back}){scale}", f"{kept} = e{layer - 1}_{j}"]
    return lines


def field_source(arch: FieldArchitecture) -> str:
    """Python source of ``field(theta, X, Y, consts, log_scale, normalize, want, buf, work)`` and ``tangents(...)``,
    same arguments (readable, for inspection): ``field`` first, then ``tangents`` where derivatives are asked for
    (numba compiles each on its first call, so flows that never need a Jacobian never compile ``tangents``).

    ``consts`` = (logistic, c, mean, σ' for z > 0, σ'(0), σ' for z < 0), c = log of the mean's 1/n (else 0).
    ``buf`` receives log L, L, q (n), the hidden pre-activations (n·H), d (P), ∂q/∂θ (n × P), ∇ log L (P) and
    ∂d/∂θ (P × P), as far as ``want`` asks; ``work`` (n × (4H + 3)) keeps each sample's hidden values, deltas and
    losses between the passes. Each pass is written once: forward (hidden values kept), backward (deltas kept), and
    the tangents of both, looped over the parameter directions."""
    P, H, L = arch.n_params, arch.hidden, len(arch.maps)
    out, losses = f"z{L - 1}_0", 4 * H
    lv, lw, qv = (f"work[s, {losses + k}]" for k in range(3))
    load_x = [f"x{j} = X[s, {j}]" for j in range(arch.widths[0])]

    def block(lines: list[str], depth: int) -> list[str]:
        return ["    " * depth + line for line in lines]

    head = ["n = X.shape[0]",
            "LOGISTIC = consts[0] != 0.0", "C = consts[1]", "MEAN = consts[2] != 0.0",
            "SP = consts[3]", "SZ = consts[4]", "SN = consts[5]",
            "PRE = 2 + n", f"D = PRE + n * {H}", f"DQ = D + {P}", f"DL = DQ + n * {P}", f"DD = DL + {P}"]
    head += [f"t{k} = theta[{k}]" for k in range(P)]
    body = head + ["total = 0.0", "top = -math.inf", "for s in range(n):"]
    body += block(load_x + _forward(arch, True) + [
        f"q = Y[s] * {out}", f"{qv} = q", "buf[2 + s] = q",
        "if LOGISTIC:",
        f"    {lv} = logistic_log_value(q)", f"    {lw} = -logaddexp0(q)", "    total += logaddexp0(-q)",
        "else:",
        f"    {lv} = -q", f"    {lw} = -q", "    total += math.exp(-q)",
        f"if {lv} > top:", f"    top = {lv}"], 1)
    body += ["# log Σ e^lv as scipy.special.logsumexp: the maxima counted apart, log1p of the rest",
             "count = 0.0", "rest = 0.0", "direct = 0.0",
             "for s in range(n):",
             f"    direct += math.exp({lv})",
             f"    if {lv} == top:", "        count += 1.0",
             "    else:", f"        rest += math.exp({lv} - top)",
             "if rest != 0.0:", "    rest = rest / count",
             "lse = math.log1p(rest) + math.log(count) + top",
             "if not math.isfinite(lse):", "    lse = math.log(direct)",
             "logL = lse + C", "buf[0] = logL", "buf[1] = total / n if MEAN else total",
             "SH = log_scale - logL if normalize else log_scale",
             "if want & 5:"]  # the deltas: for d, and kept for its Jacobian
    body += block([f"g{k} = 0.0" for k in range(P)] + ["for s in range(n):"], 1)
    body += block(load_x + [f"e{L - 1}_0 = math.exp(({lw} + C) + SH) * Y[s]"] + _backward(arch, False), 2)
    body += block([f"buf[D + {k}] = g{k}" for k in range(P)], 1)

    tangents = head + ["logL = buf[0]", "lse = logL - C", "SH = log_scale - logL if normalize else log_scale",
                       f"for m in range({P}):"]
    loop = [f"Dt{k} = 1.0 if m == {k} else 0.0" for k in range(P)] + ["dl = 0.0", "for s in range(n):"]
    loop += block(load_x + _forward_tangent(arch) + [
        f"dq = Y[s] * D{out}", f"buf[DQ + s * {P} + m] = dq",
        f"dlv = -math.exp({lw} - {lv}) * dq if LOGISTIC else -dq",
        f"dl += math.exp({lv} - lse) * dlv"], 1)
    loop += ["buf[DL + m] = dl", "if want & 4:"]
    jacobian = [f"Dg{k} = 0.0" for k in range(P)] + ["for s in range(n):"]
    jacobian += block(load_x + [
        f"dq = buf[DQ + s * {P} + m]",
        f"dlw = -math.exp({qv} + {lw}) * dq if LOGISTIC else -dq",
        f"w = math.exp(({lw} + C) + SH) * Y[s]", f"e{L - 1}_0 = w",
        f"De{L - 1}_0 = w * (dlw - dl) if normalize else w * dlw"] + _backward(arch, True), 1)
    jacobian += [f"buf[DD + {k * P} + m] = Dg{k}" for k in range(P)]
    loop += block(jacobian, 1)
    tangents += block(loop, 1)
    signature = "(theta, X, Y, consts, log_scale, normalize, want, buf, work):\n"
    return "def field" + signature + "\n".join("    " + line for line in body) + "\n\n\n" + \
        "@numba.njit(nogil=True, error_model=\"numpy\", cache=True)\ndef tangents" + signature + \
        "\n".join("    " + line for line in tangents) + "\n"


_MODULE_TEMPLATE = '''"""Generated by numerics.compiled_fields for {arch}; do not edit."""
import math

import numba


{logaddexp0}

@numba.njit(inline="always", cache=True)
def logistic_log_value(q):
    """log log(1 + e^(-q)), as numerics.losses.LogisticLoss.log_value."""
    u = math.exp(-abs(q))
    if q > 0.0:
        ratio = math.log1p(u) / u if u > 0.0 else 1.0
        return -q + math.log(ratio)
    return math.log(logaddexp0(-q))


@numba.njit(nogil=True, error_model="numpy", cache=True)
{kernel}'''

_LOCK = threading.Lock()


@lru_cache(maxsize=None)
def _field_kernel(arch: FieldArchitecture):
    source = _MODULE_TEMPLATE.format(arch=arch, logaddexp0=LOGADDEXP0_SOURCE, kernel=field_source(arch))
    return load_generated(source, "ff_")


# -- the field object --------------------------------------------------------------------------------------------
class FieldEvaluation(NamedTuple):
    """One evaluation at θ; the derivatives are None unless asked for."""

    log_loss: float  # log L(θ)
    loss: float  # L(θ)
    margins: np.ndarray  # q_i = y_i Φ(θ; x_i)
    preactivations: np.ndarray  # hidden pre-activations, layer by layer, each n × d_l flattened
    descent: np.ndarray | None  # e^{log_scale}·(−∇L), or with normalize e^{log_scale}·(−∇L/L)
    margin_jacobian: np.ndarray | None  # ∂q_i/∂θ_k, n × P
    log_loss_gradient: np.ndarray | None  # ∇ log L
    descent_jacobian: np.ndarray | None  # ∂descent_k/∂θ_m, P × P


class _FieldQuantities:
    """The :class:`~numerics.losses.Objective`'s float64 quantities, read off one :meth:`evaluate`."""

    analytic_jacobian = True  # evaluate offers DESCENT_JACOBIAN (implicit solvers take it instead of differences)

    def evaluate(self, theta: np.ndarray, log_scale: float = 0.0, normalize: bool = False,
                 want: int = GRADIENT) -> FieldEvaluation:
        raise NotImplementedError

    def log_value(self, theta: np.ndarray) -> float:
        return self.evaluate(theta, want=0).log_loss

    def value(self, theta: np.ndarray) -> float:
        return self.evaluate(theta, want=0).loss

    def margins(self, theta: np.ndarray) -> np.ndarray:
        return self.evaluate(theta, want=0).margins

    def preactivations(self, theta: np.ndarray) -> np.ndarray:
        return self.evaluate(theta, want=0).preactivations

    def descent(self, theta: np.ndarray, log_scale: float = 0.0) -> np.ndarray:
        return self.evaluate(theta, log_scale).descent

    def gradient(self, theta: np.ndarray) -> np.ndarray:
        return -self.evaluate(theta).descent

    def margin_jacobian(self, theta: np.ndarray) -> np.ndarray:
        return self.evaluate(theta, want=MARGIN_JACOBIAN).margin_jacobian


class CompiledField(_FieldQuantities):
    """The compiled float64 field of one margin :class:`~numerics.losses.Objective` (see the module's doc)."""

    def __init__(self, objective: Objective, arch: FieldArchitecture) -> None:
        with _LOCK:  # threads of a sweep share one kernel: build or load it once
            self._kernel = _field_kernel(arch)
        self.objective, self.arch = objective, arch
        model = objective.model
        self.X = np.ascontiguousarray(objective.X, dtype=np.float64)
        self.Y = np.ascontiguousarray(np.asarray(objective.Y, dtype=np.float64).reshape(-1))
        n, P = self.X.shape[0], arch.n_params
        self.n, self.n_params = n, P
        if model.activation == "leaky_relu":
            a = float(model.negative_slope)
            slopes = (a + (1 - a) * 1.0, a + (1 - a) * float(model.relu_slope_at_zero), a + (1 - a) * 0.0)
        else:
            slopes = (1.0, float(model.relu_slope_at_zero), 0.0)
        loss = margin_loss(objective.loss)
        self._consts = np.array([float(isinstance(loss, LogisticLoss)),
                                 -float(np.log(n)) if objective.mean else 0.0, float(objective.mean), *slopes])
        pre = 2 + n
        self._slices = (slice(2, pre), slice(pre, pre + n * arch.hidden))
        d = pre + n * arch.hidden
        self._d, self._dq, self._dl, self._dd = d, d + P, d + P + n * P, d + 2 * P + n * P
        self._sizes = [d + P if want & GRADIENT else d for want in range(8)]  # buf's length for each want
        self._sizes = [self._dd + P * P if want & DESCENT_JACOBIAN else self._dd if want & MARGIN_JACOBIAN else size
                       for want, size in enumerate(self._sizes)]
        self._shape, self._work = (P,), (n, 4 * arch.hidden + 3)

    def __reduce__(self) -> tuple[Any, tuple[Objective, FieldArchitecture]]:
        return CompiledField, (self.objective, self.arch)  # the kernel is loaded again where it is unpickled

    def evaluate(self, theta: np.ndarray, log_scale: float = 0.0, normalize: bool = False,
                 want: int = GRADIENT) -> FieldEvaluation:
        """Everything at θ that ``want`` asks for (bits :data:`GRADIENT`, :data:`MARGIN_JACOBIAN`,
        :data:`DESCENT_JACOBIAN`); ``log_scale`` and ``normalize`` scale the descent direction (and its Jacobian)."""
        if want & DESCENT_JACOBIAN:
            want |= MARGIN_JACOBIAN | GRADIENT
        buf = np.empty(self._sizes[want])
        if type(theta) is not np.ndarray or theta.dtype != np.float64 or not theta.flags.c_contiguous:
            theta = np.ascontiguousarray(theta, dtype=np.float64)
        if theta.shape != self._shape:
            raise ValueError(f"θ must have shape ({self.n_params},), got {theta.shape}")
        work = np.empty(self._work)
        args = (theta, self.X, self.Y, self._consts, float(log_scale), bool(normalize), int(want), buf, work)
        self._kernel.field(*args)
        if want & (MARGIN_JACOBIAN | DESCENT_JACOBIAN):
            self._kernel.tangents(*args)
        P, d, dq, dl, dd = self.n_params, self._d, self._dq, self._dl, self._dd
        return FieldEvaluation(
            float(buf[0]), float(buf[1]), buf[self._slices[0]], buf[self._slices[1]],
            buf[d:d + P] if want & GRADIENT else None,
            buf[dq:dl].reshape(self.n, P) if want & MARGIN_JACOBIAN else None,
            buf[dl:dd] if want & MARGIN_JACOBIAN else None,
            buf[dd:dd + P * P].reshape(P, P) if want & DESCENT_JACOBIAN else None)


class _TensorNetworkFieldBase(_FieldQuantities):
    """What the tensor-network fields share: the data in float64 and :meth:`evaluate`, which checks θ and runs the
    subclass's ``_evaluate`` with the floating-point conditions it meets by design silenced."""

    _expected_errors: dict[str, str] = {}

    def __init__(self, objective: Objective) -> None:
        self.objective = objective
        self.model: LinearTensorNetwork = objective.model
        self.X = np.ascontiguousarray(objective.X, dtype=np.float64)
        self.n_params = self.model.n_params
        self._empty = np.empty(0)

    def evaluate(self, theta: np.ndarray, log_scale: float = 0.0, normalize: bool = False,
                 want: int = GRADIENT) -> FieldEvaluation:
        """Everything at θ that ``want`` asks for, as :meth:`CompiledField.evaluate` (no hidden pre-activations: the
        network is linear)."""
        if want & DESCENT_JACOBIAN:
            want |= MARGIN_JACOBIAN | GRADIENT
        theta = np.ascontiguousarray(theta, dtype=np.float64)
        if theta.shape != (self.n_params,):
            raise ValueError(f"θ must have shape ({self.n_params},), got {theta.shape}")
        with np.errstate(**self._expected_errors):
            return self._evaluate(theta, float(log_scale), bool(normalize), want)

    def _evaluate(self, theta: np.ndarray, log_scale: float, normalize: bool, want: int) -> FieldEvaluation:
        raise NotImplementedError


class TensorNetworkField(_TensorNetworkFieldBase):
    """The float64 field of a margin :class:`~numerics.losses.Objective` on a
    :class:`~numerics.tensor_network.LinearTensorNetwork`, with the analytic Jacobians the stiff solvers need.

    f(x) = xᵀβ(θ), so with β, B = ∂β/∂θ (one compiled call, :meth:`LinearTensorNetwork.compiled_beta`) and the
    margins q = y ⊙ Xβ: ∂q/∂θ = (y ⊙ X)B; the descent d = Σ_i a_i ∇q_i with a_i = e^{log(−ℓ'(q_i)) + log scale + c}
    is Bᵀ Xᵀ(a ⊙ y), computed as the generic backend does (the same operations: the same bits); its Jacobian is
    Σ_k g_k ∇²β_k + (∂q/∂θ)ᵀ diag(a ⊙ ρ) ∂q/∂θ + d ∇cᵀ with g = Xᵀ(a ⊙ y), ρ_i = (log(−ℓ'))'(q_i) and ∇c = −∇ log L
    under ``normalize`` (else 0). Any basis, loss (exponential, logistic), sum or mean; checked against the generic
    backend and central differences in tests/test_fast_fields.py."""

    _expected_errors = {"over": "ignore", "under": "ignore"}  # L beyond the float range: log L is what counts

    def __init__(self, objective: Objective) -> None:
        super().__init__(objective)
        self.Y = np.ascontiguousarray(np.asarray(objective.Y, dtype=np.float64).reshape(-1))
        self.loss = margin_loss(objective.loss)
        self.mean_log_scale = -float(np.log(self.X.shape[0])) if objective.mean else 0.0

    def _evaluate(self, theta: np.ndarray, log_scale: float, normalize: bool, want: int) -> FieldEvaluation:
        beta, B = self.model.compiled_beta(theta, bool(want & (MARGIN_JACOBIAN | GRADIENT)))
        margins = self.Y * (self.X @ beta)
        log_terms = self.loss.log_value(margins)
        log_loss = float(losses._logsumexp(log_terms) + self.mean_log_scale)
        loss = float(np.exp(log_loss))
        if not want & (GRADIENT | MARGIN_JACOBIAN):
            return FieldEvaluation(log_loss, loss, margins, self._empty, None, None, None, None)
        log_weights = self.loss.log_neg_derivative(margins) + self.mean_log_scale
        shift = log_scale - (log_loss if normalize else 0.0)
        weights = np.exp(log_weights + shift)
        g = self.X.T @ (weights * self.Y)
        descent = g @ B
        if not want & MARGIN_JACOBIAN:
            return FieldEvaluation(log_loss, loss, margins, self._empty, descent, None, None, None)
        margin_jacobian = (self.Y[:, None] * self.X) @ B
        log_loss_gradient = -(np.exp(log_weights - log_loss) @ margin_jacobian)
        descent_jacobian = None
        if want & DESCENT_JACOBIAN:
            slopes = weights * self.loss.log_neg_derivative_slope(margins)
            descent_jacobian = (self.model.compiled_hessian(theta, g)
                                + margin_jacobian.T @ (slopes[:, None] * margin_jacobian))
            if normalize:
                descent_jacobian -= np.outer(descent, log_loss_gradient)
        return FieldEvaluation(log_loss, loss, margins, self._empty, descent, margin_jacobian, log_loss_gradient,
                               descent_jacobian)


class TensorNetworkSquareField(_TensorNetworkFieldBase):
    """The float64 field of a square-loss :class:`~numerics.losses.Objective` (one output) on a
    :class:`~numerics.tensor_network.LinearTensorNetwork`, with its analytic Jacobian.

    With β, B = ∂β/∂θ (:meth:`LinearTensorNetwork.compiled_beta`) and the residuals r = Xβ − y: L = s·½Σr² (s = 1,
    or 1/n for a mean), ∇L = s·BᵀXᵀr, computed as the generic backend computes them (the same operations: the same
    bits), and the descent direction e^{log scale}(−∇L) (times 1/L under ``normalize``) has the Jacobian
    −e^{log scale}·s·(Σ_k g_k ∇²β_k + (XB)ᵀXB) with g = Xᵀr (minus d ∇log Lᵀ under ``normalize``). The
    :class:`FieldEvaluation`'s margins are the outputs f(x_i) = ⟨x_i, β⟩ here (there are no labels), its margin
    Jacobian their derivative XB."""

    # at an exact fit log 0 = −∞ and ∇ log L = ∇L / L = 0/0: the normalized direction is then not finite, by design
    _expected_errors = {"divide": "ignore", "invalid": "ignore"}

    def __init__(self, objective: Objective) -> None:
        super().__init__(objective)
        self.Y = np.ascontiguousarray(np.asarray(objective.Y, dtype=np.float64))  # n × 1, as the generic backend
        self.n = self.X.shape[0]

    def _scaled(self, total: Any) -> Any:
        return total / self.n if self.objective.mean else total

    def _evaluate(self, theta: np.ndarray, log_scale: float, normalize: bool, want: int) -> FieldEvaluation:
        beta, B = self.model.compiled_beta(theta, bool(want & (MARGIN_JACOBIAN | GRADIENT)))
        outputs = self.X @ beta  # one output per sample: a tensor network's f(x) = ⟨x, β⟩
        residuals = outputs - self.Y[:, 0]
        loss = float(self._scaled(0.5 * (residuals * residuals).sum()))
        log_loss = float(np.log(loss))
        if not want & (GRADIENT | MARGIN_JACOBIAN):
            return FieldEvaluation(log_loss, loss, outputs, self._empty, None, None, None, None)
        g = self.X.T @ residuals
        gradient = self._scaled(g @ B)
        scale = np.exp(log_scale - (log_loss if normalize else 0.0))
        descent = -gradient * scale
        if not want & MARGIN_JACOBIAN:
            return FieldEvaluation(log_loss, loss, outputs, self._empty, descent, None, None, None)
        output_jacobian = self.X @ B
        log_loss_gradient = gradient / loss
        descent_jacobian = None
        if want & DESCENT_JACOBIAN:
            hessian = self.model.compiled_hessian(theta, g) + output_jacobian.T @ output_jacobian
            descent_jacobian = -self._scaled(hessian) * scale
            if normalize:
                descent_jacobian -= np.outer(descent, log_loss_gradient)
        return FieldEvaluation(log_loss, loss, outputs, self._empty, descent, output_jacobian, log_loss_gradient,
                               descent_jacobian)


class NetworkSquareField(_FieldQuantities):
    """The float64 field of a square-loss :class:`~numerics.losses.Objective` on a :class:`~numerics.networks.Network`
    (any number of outputs and layers, ReLU, leaky ReLU or linear): L, log L, the outputs, the hidden pre-activations
    and the descent direction from one forward and one backward pass.

    Not compiled: the numpy operations of the generic backend (:meth:`Network.forward`, :meth:`Network.vjp`,
    :meth:`Objective.value` and :meth:`Objective.gradient`) in the same order, so the same bits (tested in
    tests/test_fast_fields.py), without the backend's dispatch and without the two further forward passes that the
    generic value and gradient make (the rank paper's flows evaluate the field 10⁵ times on a 2 × 2 × 2 network).
    Its :class:`FieldEvaluation`'s margins are the outputs Φ(θ; x_i), n × d_out. No analytic Jacobian: implicit
    solvers difference the field, as they do the generic one."""

    analytic_jacobian = False

    def __init__(self, objective: Objective) -> None:
        self.objective = objective
        model: Network = objective.model
        self.X, self.Y = objective.X, objective.Y
        self.n_params, self.n = model.n_params, self.X.shape[0]
        self._parts = tuple(zip(model.layers, model._slices))
        self._slopes = model._slopes  # σ'(z), the network's convention at 0 (ReLU and leaky ReLU)
        self._kinked = model.activation in ("relu", "leaky_relu")
        self._empty, self._shape = np.zeros(0), (self.n_params,)

    def evaluate(self, theta: np.ndarray, log_scale: float = 0.0, normalize: bool = False,
                 want: int = GRADIENT) -> FieldEvaluation:
        """L, log L, the outputs, the pre-activations and (``want`` & :data:`GRADIENT`) e^{log scale}(−∇L), divided
        by L under ``normalize``; Jacobians are not offered."""
        if want & (MARGIN_JACOBIAN | DESCENT_JACOBIAN):
            raise NotImplementedError("NetworkSquareField offers no Jacobians: implicit solvers difference it")
        if type(theta) is not np.ndarray or theta.dtype != np.float64 or theta.shape != self._shape:
            raise ValueError(f"θ must be a float64 vector of shape ({self.n_params},), got {np.shape(theta)}")
        matrices = [layer.matrix(theta[part]) for layer, part in self._parts]
        hidden, slopes, preactivations, h = [self.X], [], [], self.X
        for W in matrices[:-1]:
            z = h @ W.swapaxes(-1, -2)
            preactivations.append(z)
            if self._kinked:  # Network._backprop: σ(z) = z·σ'(z), σ'(0) by the network's convention
                slope = self._slopes(z)
                slopes.append(slope)
                z = z * slope
            hidden.append(z)
            h = z
        outputs = h @ matrices[-1].swapaxes(-1, -2)
        residuals = outputs - self.Y
        loss = self._scaled(0.5 * (residuals * residuals).sum(axis=(-2, -1)))
        log_loss = float(np.log(loss)) if loss != 0 else -math.inf  # −∞ at an exact fit, as the generic log_value
        pre = np.concatenate([z.ravel() for z in preactivations]) if len(preactivations) > 1 else \
            preactivations[0].ravel() if preactivations else self._empty
        if not want & GRADIENT:
            return FieldEvaluation(log_loss, float(loss), outputs, pre, None, None, None, None)
        grads: list[np.ndarray] = [self._empty] * len(matrices)
        delta = residuals
        for k in range(len(matrices) - 1, -1, -1):
            grads[k] = self._parts[k][0].pullback(delta.swapaxes(-1, -2) @ hidden[k])
            if k > 0:
                delta = delta @ matrices[k]
                if slopes:
                    delta = delta * slopes[k - 1]
        gradient = self._scaled(np.concatenate(grads, axis=-1))
        exponent = log_scale - (log_loss if normalize else 0.0)
        descent = -gradient if exponent == 0.0 else -gradient * np.exp(exponent)  # e⁰ = 1 exactly
        return FieldEvaluation(log_loss, float(loss), outputs, pre, descent, None, None, None)

    def _scaled(self, total: Any) -> Any:
        return total / self.n if self.objective.mean else total


def compiled_field(objective: Objective) -> _FieldQuantities | None:
    """The compiled field of ``objective`` (compiled the first time its architecture is met, seconds; then loaded
    from the disk cache), or None where the generic backend must serve it (:func:`field_architecture`, or inside
    :func:`generic_only`). On a linear tensor network a margin objective gets a :class:`TensorNetworkField`, a
    square-loss one a :class:`TensorNetworkSquareField`; a square-loss objective on a network a
    :class:`NetworkSquareField` (numpy, no kernel to compile)."""
    if losses._GENERIC_ONLY:
        return None
    if isinstance(objective.model, LinearTensorNetwork):
        if _tensor_square_field_runs(objective):
            return TensorNetworkSquareField(objective)
        return TensorNetworkField(objective) if _tensor_field_runs(objective) else None
    if _network_square_field_runs(objective):
        return NetworkSquareField(objective)
    arch = field_architecture(objective)
    return None if arch is None else CompiledField(objective, arch)


def _network_square_field_runs(objective: Objective) -> bool:
    """The square loss on float64 data (n × d_in, n × d_out) of a :class:`~numerics.networks.Network` whose layers
    give numpy matrices (dense, diagonal, shared weights) and whose slopes are floats."""
    return (not objective.is_margin and isinstance(objective.model, Network)
            and all(type(a) is np.ndarray and a.dtype == np.float64 and a.ndim == 2 for a in (objective.X, objective.Y))
            and isinstance(objective.model.relu_slope_at_zero, (int, float))
            and isinstance(objective.model.negative_slope, (int, float)))


def _float_numbers(data: Any) -> bool:
    return type(data) is np.ndarray and data.dtype.kind in "fiu"


def _float_margin_objective(objective: Objective) -> bool:
    """The exponential or logistic loss on real float data: what every compiled field needs of the objective."""
    return (objective.is_margin and type(margin_loss(objective.loss)) in (ExponentialLoss, LogisticLoss)
            and _float_numbers(objective.X) and _float_numbers(objective.Y))


def _tensor_field_runs(objective: Objective) -> bool:
    return _float_margin_objective(objective) and _float_numbers(objective.model.basis)


def _tensor_square_field_runs(objective: Objective) -> bool:
    """The square loss on real float data (Objective holds its targets to n × 1: a tensor network has one output)."""
    return (not objective.is_margin and _float_numbers(objective.X) and _float_numbers(objective.Y)
            and _float_numbers(objective.model.basis))


def margin_functions(model: Network, X: np.ndarray, y: np.ndarray) -> tuple[Callable[[np.ndarray], np.ndarray],
                                                                             Callable[[np.ndarray], np.ndarray]]:
    """θ ↦ q(θ) = y ⊙ Φ(θ; X) and θ ↦ ∂q/∂θ (n × p) in float64 for the constrained solvers (SLSQP calls them 10⁴–10⁵
    times): one compiled call each where a compiled field runs ``model``, else the generic forward pass and
    Jacobian. Raises ValueError for a model with more than one output (margins need one)."""
    if getattr(model, "d_out", 1) != 1:
        raise ValueError(f"margins need a model with one output, not {model.d_out}")
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if isinstance(model, Network):
        field = compiled_field(Objective(model, X, y, "exponential"))  # margins do not depend on the loss
        if field is not None:
            return field.margins, field.margin_jacobian
    return (lambda t: y * scalar_outputs(model, t, X)), (lambda t: y[:, None] * model.jacobian(t, X)[:, 0, :])


@contextmanager
def generic_only() -> Iterator[None]:
    """Within the block every objective, flow and local search runs on the generic backend, as without compiled
    fields (for comparisons and benchmarks; flows and fields built inside keep their backend afterwards)."""
    previous = losses._GENERIC_ONLY
    losses._GENERIC_ONLY = True
    try:
        yield
    finally:
        losses._GENERIC_ONLY = previous


def supports(objective: Objective) -> bool:
    """Whether :func:`compiled_field` can run ``objective``."""
    if isinstance(objective.model, LinearTensorNetwork):
        return _tensor_field_runs(objective)
    return field_architecture(objective) is not None


