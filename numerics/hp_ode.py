"""High-precision adaptive ODE integration over mpmath: Gragg–Bulirsch–Stoer extrapolation.

The state is a numpy object array of ``mpmath.mpf`` and all arithmetic runs at ``mpmath.mp.dps``. One step of
size H runs Gragg's modified midpoint rule with n_j = 2j substeps (j = 1, 2, ...) and extrapolates the results
to H → 0 in powers of H² (Aitken–Neville); row j of the tableau has order 2j. A step is accepted at the first
row whose last two entries agree to the tolerance, so the order adapts itself (up to 2·``max_rows``), and the
next step size is chosen by the work per unit step of the rows computed (Hairer–Wanner's ODEX rule).
``mpmath.odefun`` is not used: it is Taylor-only, caps its step and does not stop at kinks.

Piecewise-smooth fields (ReLU networks) are integrated inside one region only: with ``region`` given (for a
network, ``numerics.flows.activation_region(objective)``: the ReLU sign pattern), the label is checked after
every accepted step; when it changed, the crossing time is located by bisection on the step size to working
precision and the integration stops with status ``region_exit``; the caller restarts from ``exit.y_after``.
A state that lands exactly on the kink (a zero in the sign pattern) makes the restart report one more exit at
the same time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

import mpmath
import numpy as np

from numerics import backend as B

Field = Callable[[mpmath.mpf, np.ndarray], np.ndarray]
Region = Callable[[np.ndarray], np.ndarray]

_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.94, 0.02, 4.0  # step-size control (Hairer–Wanner ODEX values)


class HPStatus(str, Enum):
    COMPLETED = "completed"
    REGION_EXIT = "region_exit"
    FAILED = "failed"  # too many steps, or the step size underflowed


@dataclass(frozen=True)
class RegionExit:
    """Where the solution leaves its region: the crossing lies in [t, t + width], width ≈ working precision."""

    t: mpmath.mpf
    y: np.ndarray  # state at t, still in the starting region
    width: mpmath.mpf
    t_after: mpmath.mpf  # a time just past the crossing (t + width unless that step failed)
    y_after: np.ndarray  # state at t_after, in the next region: restart from here
    before: np.ndarray  # region label at the start
    after: np.ndarray  # region label at t_after


@dataclass(frozen=True)
class HPSolution:
    """Checkpoints (requested times that were reached, then the stopping point) and the cost."""

    t: list[mpmath.mpf]
    y: list[np.ndarray]
    status: HPStatus
    message: str
    nfev: int
    n_steps: int
    n_rejected: int
    exit: RegionExit | None = None


class _Extrapolation:
    """The GBS stepper with its tolerances and counters."""

    def __init__(self, fun: Field, rtol: mpmath.mpf, atol: mpmath.mpf, max_rows: int) -> None:
        self.fun, self.rtol, self.atol = fun, rtol, atol
        self.substeps = [2 * (j + 1) for j in range(max_rows)]
        # Aitken–Neville factors (n_j / n_{j−k})² − 1, exact in working precision
        self.factors = [[mpmath.mpf(self.substeps[j]) ** 2 / self.substeps[j - k] ** 2 - 1 for k in range(j + 1)]
                        for j in range(max_rows)]
        self.work = [int(w) for w in np.cumsum([1] + [n - 1 for n in self.substeps])[1:]]  # evaluations up to row j
        self.nfev = self.n_steps = self.n_rejected = 0

    def f(self, t: mpmath.mpf, y: np.ndarray) -> np.ndarray:
        self.nfev += 1
        return self.fun(t, y)

    def _midpoint(self, t: mpmath.mpf, y: np.ndarray, f0: np.ndarray, h: mpmath.mpf, n: int) -> np.ndarray:
        """Gragg's modified midpoint rule with n substeps over [t, t + h] (n − 1 new evaluations)."""
        small = h / n
        previous, current = y, y + small * f0
        for m in range(1, n):
            previous, current = current, previous + (2 * small) * self.f(t + m * small, current)
        return current

    def _error(self, a: np.ndarray, b: np.ndarray, y: np.ndarray) -> float:
        scale = self.atol + self.rtol * np.abs(y)
        return float(max(np.abs(a - b) / scale))

    def step(self, t: mpmath.mpf, y: np.ndarray, f0: np.ndarray, h: mpmath.mpf
             ) -> tuple[np.ndarray | None, mpmath.mpf]:
        """One extrapolated step of size h: (y(t + h) or None if rejected, proposed next step size).

        The step is accepted at the first converged row; it is rejected as soon as the error estimates stop
        decreasing (too large a step, or a kink inside it).
        """
        table: list[np.ndarray] = []
        sizes: list[mpmath.mpf] = [h / 4]  # proposed step per row (row 0 has no error estimate)
        last_err = np.inf
        for j, n in enumerate(self.substeps):
            row = [self._midpoint(t, y, f0, h, n)]
            for k in range(1, j + 1):
                row.append(row[k - 1] + (row[k - 1] - table[k - 1]) / self.factors[j][k])
            table = row
            if j == 0:
                continue
            err = self._error(row[-1], row[-2], y)
            if not np.isfinite(err) or (j >= 3 and err >= last_err):
                break  # no convergence in sight: too large a step, or a kink of the field inside it
            last_err = err
            factor = _MAX_FACTOR if err == 0 else _SAFETY * (0.65 / err) ** (1.0 / (2 * j + 1))
            sizes.append(h * mpmath.mpf(min(_MAX_FACTOR, max(_MIN_FACTOR, factor))))
            if err <= 1.0:
                self.n_steps += 1
                return row[-1], self._next_size(j, sizes)
        self.n_rejected += 1
        return None, min(sizes[-1], h / 4)

    def _next_size(self, j: int, sizes: list[mpmath.mpf]) -> mpmath.mpf:
        """Step proposal after acceptance at row j: lower, keep or raise the order by the work per unit step
        A_i/h_i of the rows (raising scales the step by the cost ratio A_{j+1}/A_j, as in ODEX)."""
        work = [self.work[i] / float(sizes[i]) for i in range(len(sizes))]
        if j >= 2 and work[j - 1] < 0.8 * work[j]:
            return sizes[j - 1]
        if j + 1 < len(self.substeps) and (j == 1 or work[j] < 0.9 * work[j - 1]):
            return sizes[j] * mpmath.mpf(self.work[j + 1]) / self.work[j]
        return sizes[j]


def integrate(fun: Field, t0: float | mpmath.mpf, y0: Sequence | np.ndarray, t_end: float | mpmath.mpf, *,
              t_eval: Sequence[float | mpmath.mpf] | None = None, rtol: float | mpmath.mpf | None = None,
              atol: float | mpmath.mpf | None = None, region: Region | None = None, max_rows: int = 16,
              max_steps: int = 100_000) -> HPSolution:
    """Integrate y' = fun(t, y) from (t0, y0) to t_end at ``mpmath.mp.dps`` digits.

    ``rtol``/``atol`` default to 10^−(dps−2); ``t_eval`` lists times to record (the stopping point is always the
    last entry). With ``region`` (state ↦ label array) the integration stops where the label changes.
    ``max_rows`` bounds the extrapolation tableau (order ≤ 2·max_rows); ``max_steps`` the accepted steps.
    """
    eps = mpmath.mpf(10) ** (-(mpmath.mp.dps - 2))
    rtol = eps if rtol is None else mpmath.mpf(rtol)
    atol = eps if atol is None else mpmath.mpf(atol)
    t, t_end = mpmath.mpf(t0), mpmath.mpf(t_end)
    y = B.to_object(y0, "mp")
    stepper = _Extrapolation(fun, rtol, atol, max_rows)
    targets = sorted({mpmath.mpf(v) for v in (t_eval or [])} | {t_end})
    if targets[0] < t or targets[-1] > t_end:
        raise ValueError("need t0 ≤ t_eval ≤ t_end")
    label = region(y) if region is not None else None
    f0 = stepper.f(t, y)
    h = min(t_end - t, (max(np.abs(y)) + 1) / (max(np.abs(f0)) + mpmath.mp.eps) / 10)  # first guess; adapts fast
    times: list[mpmath.mpf] = []
    states: list[np.ndarray] = []

    def solution(status: HPStatus, message: str, exit: RegionExit | None = None) -> HPSolution:
        if not times or times[-1] != t:
            times.append(t)
            states.append(y)
        return HPSolution(times, states, status, message, stepper.nfev, stepper.n_steps, stepper.n_rejected, exit)

    for target in targets:
        while t < target:
            if stepper.n_steps >= max_steps:
                return solution(HPStatus.FAILED, f"more than {max_steps} steps")
            f0 = stepper.f(t, y) if f0 is None else f0
            h_try = min(h, target - t)
            y_new, h = stepper.step(t, y, f0, h_try)
            if y_new is None:
                if h <= mpmath.mp.eps * max(1, abs(t)):
                    return solution(HPStatus.FAILED, f"step size underflow at t = {mpmath.nstr(t, 12)}")
                continue
            if region is not None and not np.array_equal(region(y_new), label):
                exit = _locate_exit(stepper, region, label, t, y, t + h_try, y_new)
                t, y = exit.t, exit.y
                return solution(HPStatus.REGION_EXIT, f"region changed at t = {mpmath.nstr(t, 20)}", exit)
            t = target if h_try == target - t else t + h_try
            y, f0 = y_new, None
        times.append(t)
        states.append(y)
    return solution(HPStatus.COMPLETED, "reached t_end")


def _locate_exit(stepper: _Extrapolation, region: Region, label: np.ndarray, t_lo: mpmath.mpf, y_lo: np.ndarray,
                 t_hi: mpmath.mpf, y_hi: np.ndarray) -> RegionExit:
    """Bisection on the step size: keep [t_lo, t_hi] with the old region at t_lo and a new one at t_hi.

    Each trial is one step from the current left end, so late trials are short, cheap steps. A trial step that
    does not converge has the kink inside it (a step half as long as an accepted one from an earlier point
    would converge on a smooth field), so it counts as past the crossing.
    """
    width_goal = 4 * mpmath.mp.eps * max(1, abs(t_hi))
    t_after, y_after = t_hi, y_hi  # the latest state computed in the new region
    f_lo = stepper.f(t_lo, y_lo)
    while t_hi - t_lo > width_goal:
        t_mid = t_lo + (t_hi - t_lo) / 2
        y_mid, _ = stepper.step(t_lo, y_lo, f_lo, t_mid - t_lo)
        if y_mid is not None and np.array_equal(region(y_mid), label):
            t_lo, y_lo = t_mid, y_mid
            f_lo = stepper.f(t_lo, y_lo)
        else:
            t_hi = t_mid
            if y_mid is not None:
                t_after, y_after = t_mid, y_mid
    y_hi, _ = stepper.step(t_lo, y_lo, f_lo, t_hi - t_lo)
    if y_hi is not None and not np.array_equal(region(y_hi), label):
        t_after, y_after = t_hi, y_hi
    return RegionExit(t_lo, y_lo, t_hi - t_lo, t_after, y_after, label, region(y_after))
