"""Finite-time proxies for asymptotic statements: monotonicity and fitted rates.

An asymptotic claim ("the angle → 0 like c/ln t") is checked on a finite horizon by (a) the proxy value at the
largest time and (b) the shape of its approach: monotone decrease, and a fitted rate whose exponent or slope lies
in a stated range. None of this proves a limit; verdicts built on it are ``confirmed``, never ``certified``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


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
    transforms = {"identity": lambda v: v, "log": np.log, "loglog": lambda v: np.log(np.log(v))}
    if transform not in transforms:
        raise ValueError(f"unknown transform {transform!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        g = transforms[transform](x)
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
    """Whether consecutive values never move against ``direction`` by more than atol + rtol·|value|."""
    y = np.asarray(y, dtype=float)
    steps = np.diff(y) if direction == "increasing" else -np.diff(y)
    allowance = atol + rtol * np.abs(y[1:])
    return bool(np.all(steps >= -allowance))


def log_spaced(start: float, stop: float, count: int) -> np.ndarray:
    """Checkpoint times spread evenly in log t (the scale on which implicit-bias quantities move)."""
    return np.logspace(np.log10(start), np.log10(stop), count)
