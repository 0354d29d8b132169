"""Finite-time proxies for asymptotic statements: monotonicity and fitted rates.

An asymptotic claim ("the angle → 0 like c/ln t") is checked on a finite horizon by (a) the proxy value at the
largest time and (b) the shape of its approach: monotone decrease, and a fitted rate whose exponent or slope lies
in a stated range; an affine fit in ln t with a bounded residual ("grows like c·ln t + O(1)"); a product that
settles at a constant ("f·g → c"). None of this proves a limit; verdicts built on it are ``confirmed``, never
``certified``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_TRANSFORMS = {"identity": lambda v: v, "log": np.log, "loglog": lambda v: np.log(np.log(v))}


def _transformed(x: np.ndarray, transform: str) -> np.ndarray:
    """g(x) for g = identity, ln or ln ln; non-finite where g is undefined."""
    if transform not in _TRANSFORMS:
        raise ValueError(f"unknown transform {transform!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        return _TRANSFORMS[transform](x)


@dataclass(frozen=True)
class RateFit:
    """y ≈ scale · g(x)^exponent fitted by least squares in log space over the given points."""

    exponent: float
    scale: float
    r_squared: float
    n_points: int

    def within(self, low: float, high: float) -> bool:
        return low <= self.exponent <= high


def fit_rate(x: Sequence[float], y: Sequence[float], transform: str = "identity") -> RateFit:
    """Fit log|y| = log scale + exponent · log g(x), with g = x, log x or log log x (``transform``).

    ``transform='log'`` fits y ≈ c (ln x)^p: the natural scale for gradient-flow quantities that move like
    powers of ln t under exponentially tailed losses.
    """
    x, y = np.asarray(x, dtype=float), np.abs(np.asarray(y, dtype=float))
    g = _transformed(x, transform)
    keep = (g > 0) & (y > 0) & np.isfinite(g) & np.isfinite(y)
    if keep.sum() < 3:
        raise ValueError("a rate needs at least three points with positive values")
    lx, ly = np.log(g[keep]), np.log(y[keep])
    exponent, intercept = np.polyfit(lx, ly, 1)
    residual = ly - (intercept + exponent * lx)
    spread = ((ly - ly.mean()) ** 2).sum()
    r_squared = 1.0 - (residual ** 2).sum() / spread if spread > 0 else 1.0
    return RateFit(float(exponent), float(np.exp(intercept)), float(r_squared), int(keep.sum()))


def is_monotone(y: Sequence[float], direction: str = "decreasing", rtol: float = 0.0, atol: float = 0.0) -> bool:
    """Whether consecutive values never move against ``direction`` by more than atol + rtol·|value|.

    A series with a non-finite value is not monotone (rtol·|inf| would allow any move, a jump to +inf included).
    """
    y = np.asarray(y, dtype=float)
    if not np.all(np.isfinite(y)):
        return False
    steps = np.diff(y) if direction == "increasing" else -np.diff(y)
    allowance = atol + rtol * np.abs(y[1:])
    return bool(np.all(steps >= -allowance))


def log_spaced(start: float, stop: float, count: int) -> np.ndarray:
    """Checkpoint times spread evenly in log t (the scale on which implicit-bias quantities move); 0 < start ≤ stop."""
    if not 0 < start <= stop or count < 1:  # also refuses NaN: log t of a nonpositive time is not a checkpoint
        raise ValueError(f"log_spaced needs 0 < start ≤ stop and count ≥ 1, got ({start}, {stop}, {count})")
    return np.logspace(np.log10(start), np.log10(stop), count)


@dataclass(frozen=True)
class AffineFit:
    """y ≈ intercept + slope · g(x), fitted by least squares; ``residuals`` are y − fit at the fitted points."""

    slope: float
    intercept: float
    residuals: tuple[float, ...]
    n_points: int

    @property
    def max_residual(self) -> float:
        return float(np.max(np.abs(self.residuals))) if self.residuals else 0.0

    def within(self, low: float, high: float) -> bool:
        return low <= self.slope <= high


def fit_affine(x: Sequence[float], y: Sequence[float], transform: str = "log") -> AffineFit:
    """Fit y = intercept + slope · g(x) with g = ln x (default: "grows like log t"), ln ln x or x itself.

    Unlike :func:`fit_rate` the values are not logged: the natural test of ‖w(t)‖ = c·ln t + O(1) and of
    ln L(t) = −ln t + O(ln ln t).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    g = _transformed(x, transform)
    keep = np.isfinite(g) & np.isfinite(y)
    if keep.sum() < 3:
        raise ValueError("an affine fit needs at least three finite points")
    slope, intercept = np.polyfit(g[keep], y[keep], 1)
    residuals = y[keep] - (intercept + slope * g[keep])
    return AffineFit(float(slope), float(intercept), tuple(map(float, residuals)), int(keep.sum()))


def residual_bounded(x: Sequence[float], y: Sequence[float], slope: float, bound: float,
                     transform: str = "log") -> tuple[bool, float]:
    """Whether y − slope·g(x) stays within an interval of width ``bound`` (y = slope·g(x) + O(1) on the window).

    Returns (holds, the observed width): the test of "y − c·ln t is bounded" with c given by the statement, where a
    wrong c shows as a width that grows with the window. Points where g is undefined (x ≤ 0 for ln) are skipped; a
    non-finite y where g is defined is unbounded (width inf).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    g = _transformed(x, transform)
    defined = np.isfinite(g)
    rest = y[defined] - slope * g[defined]
    if rest.size < 3:
        raise ValueError("a residual band needs at least three finite points")
    if not np.all(np.isfinite(rest)):
        return False, float("inf")
    width = float(rest.max() - rest.min())
    return width <= bound, width


def product_to_constant(f: Sequence[float], g: Sequence[float], constant: float, rtol: float,
                        tail: float = 0.25) -> tuple[bool, float]:
    """Whether f·g → ``constant``: over the last ``tail`` fraction of the points the product stays within rtol
    (relative) of the constant, and its distance to the constant does not grow along the tail.

    Returns (holds, the largest relative deviation over the tail). For example ‖θ(t)‖·L(t)^(1/…) → c, or
    ln t · angle(t) → c.
    """
    product = np.asarray(f, dtype=float) * np.asarray(g, dtype=float)
    if product.size < 4 or not 0 < tail <= 1:
        raise ValueError("a product trend needs at least four points and 0 < tail ≤ 1")
    last = product[-max(2, int(np.ceil(tail * product.size))):]
    deviation = np.abs(last - constant) / max(abs(constant), np.finfo(float).tiny)
    shrinking = deviation[-1] <= deviation[0] * (1 + 1e-12) + 1e-15
    worst = float(np.max(deviation)) if np.all(np.isfinite(deviation)) else float("inf")
    return bool(worst <= rtol and shrinking), worst
