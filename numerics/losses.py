"""Losses and the training objective, computed in log space where exponential tails would underflow.

Margin losses act on q_i = y_i Φ(θ; x_i): exponential ℓ(q) = e^{−q}, logistic ℓ(q) = log(1 + e^{−q}).
The square loss acts on outputs: ½‖Φ(θ; x_i) − y_i‖². ``Objective`` sums (or averages) over samples and
gives the gradient and, for margin losses, the descent direction scaled by e^{shift} without forming the
(possibly sub-1e-300) loss itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import mpmath
import numpy as np
from scipy.special import logsumexp

from numerics import backend as B
from numerics.backend import Array


class Model(Protocol):
    degree: int
    d_out: int
    n_params: int

    def forward(self, theta: Array, X: Array) -> Array: ...

    def vjp(self, theta: Array, X: Array, G: Array) -> Array: ...


def _is_object(x: Any) -> bool:
    return not B.is_torch(x) and np.asarray(x).dtype == object


def _mp_map(fn, q: Array) -> np.ndarray:
    q = np.asarray(q, dtype=object)
    out = np.empty(q.shape, dtype=object)
    for index, value in np.ndenumerate(q):
        out[index] = fn(mpmath.mpf(value) if not isinstance(value, mpmath.mpf) else value)
    return out


class MarginLoss:
    """ℓ(q) with ℓ' < 0; subclasses give ℓ, log ℓ and log(−ℓ') stably for float64, mpmath and torch."""

    name: str

    def value(self, q: Array) -> Array:
        raise NotImplementedError

    def log_value(self, q: Array) -> Array:
        raise NotImplementedError

    def log_neg_derivative(self, q: Array) -> Array:
        """log(−ℓ'(q))."""
        raise NotImplementedError

    def log_neg_derivative_slope(self, q: np.ndarray) -> np.ndarray:
        """d/dq log(−ℓ'(q)) for float64 q (the Jacobians of the compiled fields)."""
        raise NotImplementedError

    def derivative(self, q: Array) -> Array:
        lw = self.log_neg_derivative(q)
        if _is_object(q):
            return -_mp_map(mpmath.exp, lw)
        return -(lw.exp() if B.is_torch(lw) else np.exp(lw))


class ExponentialLoss(MarginLoss):
    name = "exponential"

    def value(self, q: Array) -> Array:
        if _is_object(q):
            return _mp_map(lambda v: mpmath.exp(-v), q)
        return (-q).exp() if B.is_torch(q) else np.exp(-q)

    def log_value(self, q: Array) -> Array:
        return -q

    def log_neg_derivative(self, q: Array) -> Array:
        return -q

    def log_neg_derivative_slope(self, q: np.ndarray) -> np.ndarray:
        return -np.ones_like(q)


class LogisticLoss(MarginLoss):
    name = "logistic"

    def value(self, q: Array) -> Array:
        if _is_object(q):
            return _mp_map(lambda v: mpmath.log1p(mpmath.exp(-v)), q)
        if B.is_torch(q):
            import torch

            return torch.nn.functional.softplus(-q)
        return np.logaddexp(0.0, -q)

    def log_value(self, q: Array) -> Array:
        # log log(1 + e^{-q}) = -q + log(log1p(u)/u) with u = e^{-q} for q > 0 (no underflow of u matters)
        if _is_object(q):
            return _mp_map(lambda v: mpmath.log(mpmath.log1p(mpmath.exp(-v))), q)
        if B.is_torch(q):
            import torch

            u = torch.exp(-q.abs())
            pos = -q + torch.log(torch.where(u > 0, torch.log1p(u) / torch.where(u > 0, u, 1), 1))
            return torch.where(q > 0, pos, torch.log(torch.nn.functional.softplus(-q)))
        q = np.asarray(q, dtype=float)
        u = np.exp(-np.abs(q))
        with np.errstate(divide="ignore", invalid="ignore"):  # np.where evaluates both branches
            ratio = np.where(u > 0, np.log1p(u) / np.where(u > 0, u, 1.0), 1.0)
            return np.where(q > 0, -q + np.log(ratio), np.log(np.logaddexp(0.0, -q)))

    def log_neg_derivative(self, q: Array) -> Array:
        # −ℓ'(q) = 1/(1 + e^{q})
        if _is_object(q):
            return _mp_map(lambda v: -mpmath.log1p(mpmath.exp(v)), q)
        if B.is_torch(q):
            import torch

            return -torch.nn.functional.softplus(q)
        return -np.logaddexp(0.0, q)

    def log_neg_derivative_slope(self, q: np.ndarray) -> np.ndarray:
        # d/dq −log(1 + e^q) = −σ(q) = −e^{−log(1 + e^{−q})}
        return -np.exp(-np.logaddexp(0.0, -q))


MARGIN_LOSSES: dict[str, MarginLoss] = {"exponential": ExponentialLoss(), "logistic": LogisticLoss()}


def margin_loss(name: str | MarginLoss) -> MarginLoss:
    """The loss registered under ``name``; a :class:`MarginLoss` instance (defined elsewhere) is returned as is."""
    if isinstance(name, MarginLoss):
        return name
    try:
        return MARGIN_LOSSES[name]
    except KeyError:
        raise ValueError(f"unknown margin loss {name!r} (choose from {', '.join(MARGIN_LOSSES)})") from None


def _logsumexp(values: Array) -> Array:
    """log Σ exp over the last axis."""
    if _is_object(values):
        top = max(values)
        return top + mpmath.log(sum(mpmath.exp(v - top) for v in values))
    if B.is_torch(values):
        return values.logsumexp(-1)
    if type(values) is np.ndarray and values.dtype == np.float64 and values.size:
        return float_logsumexp(values)
    return logsumexp(values, axis=-1)


_SAFE = 1e300  # |values| below it: v − max(v) is finite


def float_logsumexp(values: np.ndarray) -> np.ndarray | np.float64:
    """``scipy.special.logsumexp(values, axis=-1)`` for a nonempty float64 array, operation for operation (the
    maxima counted apart, log1p of the rest; where that is not finite, log Σ e^v), without scipy's array-API
    dispatch: a tenth of the time, which flows of margin losses spend on every field evaluation. A vector of
    finite values takes a shorter path (no error-state context, no axes: a few µs) with the same operations."""
    if values.ndim == 0:  # scipy reads a 0-d array as one value
        values = values.reshape(1)
    if values.ndim == 1:
        top = values.max()
        if top < _SAFE and values.min() > -_SAFE:  # finite, and the shift below cannot overflow
            at_top = values == top
            count = np.float64(np.count_nonzero(at_top))
            rest = np.exp(np.where(at_top, -np.inf, values) - top).sum()
            if rest != 0:
                rest = rest / count
            out = np.log1p(rest) + np.log(count) + top
            if math.isfinite(out):
                return out
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        top = np.max(values, axis=-1, keepdims=True)
        at_top = values == top
        count = np.sum(at_top, axis=-1, keepdims=True, dtype=np.float64)
        rest = np.sum(np.exp(np.where(at_top, -np.inf, values) - top), axis=-1, keepdims=True)
        rest = np.where(rest == 0, rest, rest / count)
        out = np.log1p(rest) + np.log(count) + top
        finite = np.isfinite(out)
        if not finite.all():  # scipy's fallback (C99 edge cases of exp and log)
            out = np.where(finite, out, np.log(np.sum(np.exp(values), axis=-1, keepdims=True)))
    out = out[..., 0]
    return out[()] if out.ndim == 0 else out


def _exp(x: Array) -> Array:
    if _is_object(x):
        return _mp_map(mpmath.exp, x)
    return x.exp() if B.is_torch(x) else np.exp(x)


_GENERIC_ONLY = False  # set by numerics.compiled_fields.generic_only(): every objective on the generic backend


@dataclass(frozen=True, eq=False)
class Objective:
    """L(θ) = Σ_i ℓ_i(θ) (or the mean with ``mean=True``) for a model on data (X, Y).

    ``loss`` is "square" (Y: n × d_out targets) or a margin loss (Y: n labels ±1, scalar output): a name from
    ``MARGIN_LOSSES`` or a :class:`MarginLoss` instance.
    θ may carry a leading run axis (runs × p): every quantity then gets the same leading axis.
    One float64 vector θ of a margin loss on a network the compiled fields run, or of the square loss on a linear
    tensor network, goes through :meth:`compiled` (the same numbers to rounding, without the backend's per-operation
    dispatch); everything else through the backend.
    """

    model: Model
    X: Array
    Y: Array
    loss: str | MarginLoss
    mean: bool = False

    def __post_init__(self) -> None:
        if _GENERIC_ONLY:  # built inside numerics.compiled_fields.generic_only(): the generic backend for good
            object.__setattr__(self, "_compiled_field", None)
        d_in = getattr(self.model, "d_in", None)
        if d_in is not None and (np.ndim(self.X) != 2 or np.shape(self.X)[1] != d_in):
            # the compiled fields would read the first d_in columns of a wider X and ignore the rest
            raise ValueError(f"the model takes inputs of dimension {d_in}: X must be n × {d_in}, "
                             f"got shape {np.shape(self.X)}")
        if self.loss != "square":
            margin_loss(self.loss)
            if self.model.d_out != 1:
                raise ValueError("margin losses need a scalar-output model")
            if np.shape(self.Y) != (np.shape(self.X)[0],):
                raise ValueError(f"a margin loss needs n = {np.shape(self.X)[0]} labels Y of shape (n,), "
                                 f"got {np.shape(self.Y)}")
        elif np.shape(self.Y) != (np.shape(self.X)[0], self.model.d_out):
            # a (n,) target would broadcast against the (n, 1) outputs into an n × n residual
            raise ValueError(f"the square loss needs targets Y of shape (n, d_out) = "
                             f"({np.shape(self.X)[0]}, {self.model.d_out}), got {np.shape(self.Y)}")

    @property
    def is_margin(self) -> bool:
        return self.loss != "square"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its compiled field (a process that unpickles it loads its own from the disk cache)."""
        state = dict(self.__dict__)
        state.pop("_compiled_field", None)
        return state

    def compiled(self, theta: Any = None) -> Any:
        """The compiled float64 field (:class:`numerics.compiled_fields.CompiledField`) that serves θ, or None where
        the generic backend does: θ not one float64 numpy vector (mpmath, sympy, intervals, torch, a batch of
        runs), or an objective it does not run (:func:`numerics.compiled_fields.field_architecture`). θ = None:
        whether one float64 vector would be served. Compiled (or loaded from the disk cache) on first use."""
        if _GENERIC_ONLY or theta is not None and not (type(theta) is np.ndarray and theta.dtype == np.float64
                                                       and theta.ndim == 1):
            return None
        try:
            return self.__dict__["_compiled_field"]
        except KeyError:
            from numerics.compiled_fields import compiled_field

            field = compiled_field(self)
            object.__setattr__(self, "_compiled_field", field)
            return field

    @property
    def n(self) -> int:
        return self.X.shape[0]

    def _log_scale(self, like: Array) -> Array | float:
        """log of the 1/n of a mean (0 for a sum), in the number system of ``like``."""
        if not self.mean:
            return 0.0
        return -mpmath.log(self.n) if _is_object(like) else -float(np.log(self.n))

    def _scaled(self, total: Array) -> Array:
        if not self.mean:
            return total
        return total / (mpmath.mpf(self.n) if _is_object(total) else self.n)

    def margins(self, theta: Array) -> Array:
        """q_i = y_i Φ(θ; x_i) (margin losses only)."""
        if (fast := self.compiled(theta)) is not None:
            return fast.margins(theta)
        return self.Y * self.model.forward(theta, self.X)[..., 0]

    def residuals(self, theta: Array) -> Array:
        """Φ(θ; x_i) − y_i (square loss only), n × d_out."""
        return self.model.forward(theta, self.X) - self.Y

    def value(self, theta: Array) -> Array:
        if (fast := self.compiled(theta)) is not None:
            return np.float64(fast.value(theta))
        if not self.is_margin:
            r = self.residuals(theta)
            return self._scaled(0.5 * (r * r).sum(axis=(-2, -1)))
        return self._scaled(margin_loss(self.loss).value(self.margins(theta)).sum(axis=-1))

    def log_value(self, theta: Array) -> Array:
        """log L(θ), accurate when L is far below the float64 range (margin losses)."""
        if (fast := self.compiled(theta)) is not None:
            return np.float64(fast.log_value(theta))
        if not self.is_margin:
            value = self.value(theta)
            if _is_object(value):
                return mpmath.log(value)
            return value.log() if B.is_torch(value) else np.log(value)
        return self._margin_log_value(self.margins(theta))

    def _margin_log_value(self, margins: Array) -> Array:
        log_terms = margin_loss(self.loss).log_value(margins)
        return _logsumexp(log_terms) + self._log_scale(log_terms)

    def log_value_and_descent(self, theta: Array) -> tuple[float, Array | None]:
        """(log L(θ) as a float, −∇L(θ)/L(θ)): :meth:`log_value` and ``descent(θ, log_scale=−log L)`` with the same
        operations, the margins computed once for a margin loss on the generic backend (the loss clock's field
        evaluates both at every point). The direction is None where log L is not finite."""
        if not self.is_margin or self.compiled(theta) is not None:
            log_loss = float(self.log_value(theta))
            return log_loss, self.descent(theta, log_scale=-log_loss) if np.isfinite(log_loss) else None
        margins = self.margins(theta)
        log_loss = float(self._margin_log_value(margins))
        if not np.isfinite(log_loss):
            return log_loss, None
        return log_loss, self._margin_descent(theta, margins, -log_loss)

    def log_weights(self, theta: Array) -> Array:
        """log(−ℓ'(q_i)) + log(scale): −∇L = Σ_i e^{log_weights_i} y_i ∇Φ(θ; x_i)."""
        return self._log_weights_at(self.margins(theta))

    def _log_weights_at(self, margins: Array) -> Array:
        lw = margin_loss(self.loss).log_neg_derivative(margins)
        return lw + self._log_scale(lw)

    def _margin_descent(self, theta: Array, margins: Array, log_scale: Array | float) -> Array:
        weights = _exp(self._log_weights_at(margins) + log_scale)
        return self.model.vjp(theta, self.X, (weights * self.Y)[..., None])

    def descent(self, theta: Array, log_scale: Array | float = 0.0) -> Array:
        """e^{log_scale}·(−∇L(θ)), with the scale folded into the per-sample weights (no overflow)."""
        if isinstance(log_scale, (float, int, np.floating)) and (fast := self.compiled(theta)) is not None:
            return fast.descent(theta, float(log_scale))
        if not self.is_margin:
            return -self.gradient(theta) * _exp(log_scale)
        return self._margin_descent(theta, self.margins(theta), log_scale)

    def gradient(self, theta: Array) -> Array:
        if not self.is_margin:
            return self._scaled(self.model.vjp(theta, self.X, self.residuals(theta)))
        return -self.descent(theta)
