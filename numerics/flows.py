"""Gradient flow dθ/dt = −∇L(θ) of any :class:`~numerics.losses.Objective`, integrated with scipy's ``solve_ivp``.

Four clocks parametrize the same curve by a variable s; the real time t is exact or integrated alongside:

* ``real``: s = t.
* ``log``: s = log(1 + t), dθ/ds = e^s·(−∇L) from ``Objective.descent(θ, log_scale=s)``. For exponentially
  tailed losses this field stays O(1) as t → ∞, so t = 1e12 costs a few hundred evaluations.
* ``loss``: ds = L dt, dθ/ds = −∇L/L.
* ``arclength``: ds = ‖∇L‖ dt, dθ/ds = −∇L/‖∇L‖ (‖θ‖ grows ≈ s). It is undefined where ∇L = 0 (e.g. every
  ReLU unit dead); the flow then stops with status ``stationary``.

For ``loss`` and ``arclength`` the state carries τ = log(1 + t) with dτ/ds = exp(−τ − log(ds/dt)), so nothing
overflows; a terminal event stops the integration at τ = log(1 + t_end). With ``t_end = inf`` these two clocks
do not track t at all (recorded as nan) and the flow runs until a stop condition fires: this reaches margins far
beyond log t = 709, where τ's equation, with Jacobian −dτ/ds, would also make every solver crawl.

Margin losses on small networks run on a compiled field (:mod:`numerics.compiled_fields`, the same numbers to
rounding): the field, the kink events and stop conditions cost a few microseconds, and implicit methods (BDF,
Radau, LSODA) get the field's analytic Jacobian instead of finite differences (:meth:`GradientFlow.jacobian`; it is
charged as len(z) evaluations, what the finite differences cost, so ``max_evaluations`` bounds the same work). BDF
factorizes and solves in LAPACK directly (the same calls as scipy's, without their per-call wrappers). The square
loss on networks runs on a numpy field with the generic backend's bits (:class:`~numerics.compiled_fields.
NetworkSquareField`), which offers no Jacobian: implicit methods difference it, as they do the generic field.

ReLU networks have a discontinuous vector field across the kinks w·x = 0. The curve is integrated one
activation region at a time: a single terminal event min(sign·pre-activation) over the watched entries (those
with nonzero sign at the start of the region) stops the integrator at the crossing; the state is pushed just
past the kink by a tiny Euler step and the integrator restarts. Pre-activations that are exactly 0 at a restart
and stay there (a unit with w = 0 has zero gradient since σ'(0) = 0) are not watched. Where the field on the new
side sends the crossed entries straight back (both sides point into the kink: Filippov sliding), or regions
follow each other in a vanishing time (chattering among kinks), the flow stops with status ``sliding`` instead
of looping; ``max_crossings`` bounds the number of crossings.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

import numpy as np
from scipy.integrate import BDF, solve_ivp
from scipy.linalg import LinAlgWarning, get_lapack_funcs
from scipy.optimize import brentq
from scipy.sparse import issparse

from numerics.compiled_fields import DESCENT_JACOBIAN
from numerics.losses import Model, Objective
from numerics.tolerances import relative_scale

Clock = Literal["real", "log", "loss", "arclength"]
CLOCKS: tuple[Clock, ...] = ("real", "log", "loss", "arclength")

StopCondition = Callable[[float, np.ndarray], float]
"""f(t, θ): the flow stops when f crosses zero from above."""

_NUDGE = 1e-13  # first Euler step past a kink, relative to max(1, |s|); grown ×8 up to 4.1e-10 if needed
_PROBE = 1e-8  # Euler probe past a kink, relative to max(1, |s|): returning across it within this is sliding
_TINY_SEGMENT = 1e-8  # a region left after less than this (relative to max(1, |s|)) counts towards chattering
_CHATTERING_SEGMENTS = 10  # this many tiny regions in a row is taken as sliding along kinks


class FlowStatus(str, Enum):
    COMPLETED = "completed"  # reached t_end
    STOPPED = "stopped"  # a stop condition fired
    STATIONARY = "stationary"  # ∇L = 0 (or L = 0) where the loss/arclength clock needs it nonzero
    SLIDING = "sliding"  # the flow slides along a kink, or chatters across kinks
    CROSSING_LIMIT = "crossing_limit"  # more kink crossings than allowed
    EVALUATION_LIMIT = "evaluation_limit"  # more right-hand-side evaluations than allowed
    FAILED = "failed"  # the integrator failed


@dataclass(frozen=True)
class Trajectory:
    """Checkpoints of a flow; the last row is always where the flow stopped."""

    t: np.ndarray  # real times
    theta: np.ndarray  # len(t) × n_params
    s: np.ndarray  # clock variable
    clock: Clock
    nfev: int  # right-hand-side evaluations
    crossing_times: np.ndarray  # real times of activation-region changes
    status: FlowStatus
    message: str

    @property
    def n_crossings(self) -> int:
        return len(self.crossing_times)

    @property
    def final(self) -> np.ndarray:
        return self.theta[-1]


def has_kinks(model: Model) -> bool:
    """Whether the model's vector field can jump (ReLU activations)."""
    return getattr(model, "activation", "linear") == "relu"


def signs(values: np.ndarray) -> np.ndarray:
    """+1/0/−1 of float or object (mpmath, sympy) entries, as ints, without converting to float."""
    values = np.asarray(values)
    return np.asarray(values > 0, dtype=int) - np.asarray(values < 0, dtype=int)


def hidden_preactivations(objective: Objective, theta: np.ndarray) -> np.ndarray:
    """All hidden pre-activations w·x on the data, flattened (empty for a single-layer model)."""
    if (fast := objective.compiled(theta)) is not None:
        return fast.preactivations(theta)
    parts = objective.model.preactivations(theta, objective.X)
    return np.concatenate([np.ravel(z) for z in parts]) if parts else np.zeros(0)


def activation_region(objective: Objective) -> Callable[[np.ndarray], np.ndarray] | None:
    """θ ↦ sign pattern of the hidden pre-activations (the activation region), or None for kink-free models."""
    if not has_kinks(objective.model):
        return None
    return lambda theta: signs(hidden_preactivations(objective, theta))


def loss_below(objective: Objective, threshold: float) -> StopCondition:
    """Stop condition L(θ) < threshold (compared in log space, so thresholds below 1e-308 work)."""
    return log_loss_below(objective, float(np.log(threshold)))


def log_loss_below(objective: Objective, log_threshold: float) -> StopCondition:
    """Stop condition log L(θ) < log_threshold: e.g. −1e8, a loss no float can hold (margin losses)."""
    return lambda t, theta: float(objective.log_value(theta)) - log_threshold


class _DenseBDF(BDF):
    """scipy's BDF with its dense LU factorizations and solves sent to LAPACK directly: the same getrf/getrs on the
    same arrays (the same bits, the same finiteness errors and singularity warnings), without the per-call wrappers
    (batching, array-API conversions), which cost more than the tiny solves of a small network's flow."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if issparse(self.J) or self.y.dtype != np.float64:
            return
        getrf, getrs = get_lapack_funcs(("getrf", "getrs"), (self.I,))

        def lu(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            self.nlu += 1
            if not np.isfinite(A).all():
                raise ValueError("array must not contain infs or NaNs")
            factors, pivots, info = getrf(A, overwrite_a=True)
            if info < 0:
                raise ValueError(f"illegal value in {-info}th argument of internal getrf (lu_factor)")
            if info > 0:
                warnings.warn(f"Diagonal number {info} is exactly zero. Singular matrix.", LinAlgWarning,
                              stacklevel=2)
            return factors, pivots

        def solve_lu(LU: tuple[np.ndarray, np.ndarray], b: np.ndarray) -> np.ndarray:
            if not np.isfinite(b).all():
                raise ValueError("array must not contain infs or NaNs")
            x, info = getrs(LU[0], LU[1], b, overwrite_b=True)
            if info != 0:
                raise ValueError(f"illegal value in {-info}th argument of internal gesv|posv")
            return x

        self.lu, self.solve_lu = lu, solve_lu


class _EvaluationLimit(Exception):
    """Raised through ``solve_ivp`` when a flow has used up its evaluations."""


class _Counter:
    def __init__(self, fun: Callable[[float, np.ndarray], np.ndarray], limit: int) -> None:
        self.fun, self.count, self.limit = fun, 0, limit

    def __call__(self, s: float, z: np.ndarray) -> np.ndarray:
        self.count += 1
        if self.count > self.limit:
            raise _EvaluationLimit
        return self.fun(s, z)

    def jacobian(self, jac: Callable[[float, np.ndarray], np.ndarray]) -> Callable[[float, np.ndarray], np.ndarray]:
        """``jac`` charged as len(z) evaluations, what the finite-difference Jacobian it replaces costs: the
        evaluation count and limit measure the same work whichever Jacobian a solver uses."""
        def counted(s: float, z: np.ndarray) -> np.ndarray:
            self.count += z.size
            if self.count > self.limit:
                raise _EvaluationLimit
            return jac(s, z)

        return counted


def _tau(clock: Clock, s: np.ndarray | float, z: np.ndarray, track_time: bool = True) -> np.ndarray | float:
    """log(1 + t) at clock value(s) s with state(s) z (columns); nan where t is not tracked."""
    if clock == "real":
        return np.log1p(s)
    if clock == "log":
        return s
    return z[-1] if track_time else np.nan


def _terminal(fun: Callable[[float, np.ndarray], float]) -> Callable[[float, np.ndarray], float]:
    fun.terminal, fun.direction = True, -1  # type: ignore[attr-defined]
    return fun


_IMPLICIT = ("BDF", "Radau", "LSODA")  # solve_ivp methods that use a Jacobian


class GradientFlow:
    """Gradient flow of ``objective``; :meth:`solve` integrates it from θ(0) up to a real time t_end.

    Where the objective has a compiled field (:meth:`Objective.compiled`: margin losses on small networks) the
    field, the kink events and the stop conditions run on it, and implicit methods get its analytic Jacobian
    (:meth:`jacobian`) instead of finite differences."""

    def __init__(self, objective: Objective) -> None:
        self.objective = objective
        self.region = activation_region(objective)
        self.compiled = objective.compiled()

    # -- clocks ---------------------------------------------------------------------------------
    def field(self, clock: Clock, s: float, z: np.ndarray, track_time: bool = True) -> np.ndarray:
        """dz/ds with z = θ, or z = (θ, τ = log(1 + t)) for the loss and arclength clocks if ``track_time``.

        Where ∇L = 0 or L = 0 the loss/arclength field is undefined; it returns 0 there (the integrator then
        stands still, and :meth:`solve` reports ``stationary``).
        """
        if self.compiled is not None:
            return self._compiled_field(clock, s, z, track_time)
        if clock == "real":
            return self.objective.descent(z)
        if clock == "log":
            return self.objective.descent(z, log_scale=s)
        if not track_time:
            return self._normalized_descent(clock, z)[0]
        direction, log_rate = self._normalized_descent(clock, z[:-1])
        if not np.isfinite(log_rate):
            return np.zeros_like(z)
        return np.append(direction, np.exp(-z[-1] - log_rate))

    def _normalized_descent(self, clock: Clock, theta: np.ndarray) -> tuple[np.ndarray, float]:
        """(dθ/ds, log ds/dt) for the loss clock (−∇L/L, log L) or the arclength clock (−∇L/‖∇L‖, log ‖∇L‖).

        log ds/dt is −inf where the clock is undefined (L = 0, or ∇L = 0 for arclength).
        """
        with np.errstate(divide="ignore"):
            log_loss, direction = self.objective.log_value_and_descent(theta)  # −∇L/L: O(1) however small L is
        if direction is None:
            return np.zeros_like(theta), -np.inf
        return self._normalize(clock, log_loss, direction)

    def _compiled_field(self, clock: Clock, s: float, z: np.ndarray, track_time: bool) -> np.ndarray:
        """:meth:`field` on the compiled field, step for step as the generic branch."""
        if clock in ("real", "log"):
            return self.compiled.evaluate(z, s if clock == "log" else 0.0).descent
        carries_time = track_time
        point = self.compiled.evaluate(z[:-1] if carries_time else z, 0.0, True)
        direction, log_rate = self._normalize(clock, point.log_loss, point.descent)
        if not carries_time:
            return direction
        if not np.isfinite(log_rate):
            return np.zeros_like(z)
        return np.append(direction, np.exp(-z[-1] - log_rate))

    @staticmethod
    def _normalize(clock: Clock, log_loss: float, direction: np.ndarray) -> tuple[np.ndarray, float]:
        """(dθ/ds, log ds/dt) from log L and −∇L/L, as :meth:`_normalized_descent`."""
        if not np.isfinite(log_loss):
            return np.zeros_like(direction), -np.inf
        if clock == "loss":
            return direction, log_loss
        norm = float(np.linalg.norm(direction))
        if norm == 0.0:
            return direction, -np.inf
        return direction / norm, log_loss + np.log(norm)

    def jacobian(self, clock: Clock, s: float, z: np.ndarray, track_time: bool = True) -> np.ndarray:
        """∂(dz/ds)/∂z of :meth:`field`, analytic (compiled fields only): with d = e^{log scale}(−∇L) and its
        Jacobian J from the compiled field, the arclength field d/‖d‖ has (I − ffᵀ)J/‖d‖; the τ row of the loss and
        arclength clocks is −(dτ/ds)·(∇ log ds/dt, 1). Zero where the clock is undefined (the field is 0 there)."""
        if self.compiled is None or not self.compiled.analytic_jacobian:
            raise TypeError("analytic Jacobians need a compiled field that offers them (Objective.compiled)")
        if clock in ("real", "log"):
            return self.compiled.evaluate(z, s if clock == "log" else 0.0,
                                          want=DESCENT_JACOBIAN).descent_jacobian.copy()
        theta = z[:-1] if track_time else z
        p = theta.size
        point = self.compiled.evaluate(theta, 0.0, True, DESCENT_JACOBIAN)
        out = np.zeros((z.size, z.size))
        d, J = point.descent, point.descent_jacobian
        if not np.isfinite(point.log_loss):
            return out
        if clock == "loss":
            out[:p, :p], log_rate, rate_gradient = J, point.log_loss, point.log_loss_gradient
        else:
            norm = float(np.linalg.norm(d))
            if norm == 0.0:
                return out
            f = d / norm
            out[:p, :p] = (J - np.outer(f, f @ J)) / norm
            log_rate = point.log_loss + np.log(norm)
            rate_gradient = point.log_loss_gradient + (f @ J) / norm
        if track_time:
            rate = np.exp(-z[-1] - log_rate)
            out[-1, :p] = -rate * rate_gradient
            out[-1, -1] = -rate
        return out

    def _clock_end(self, clock: Clock, theta0: np.ndarray, t_end: float) -> float:
        """s at t_end, or for the implicit clocks an upper bound on it (the flow then stops by an event).

        L is nonincreasing, so ∫L dt ≤ L(0)·t and ∫‖∇L‖ dt ≤ √(t·∫‖∇L‖² dt) ≤ √(t·L(0)).
        """
        if clock == "real":
            return t_end
        if clock == "log":
            return float(np.log1p(t_end))
        if not np.isfinite(t_end):
            return np.inf  # untracked time: a stop condition ends the flow (and L(0) may underflow to 0)
        loss0 = float(self.objective.value(theta0))
        bound = loss0 * t_end if clock == "loss" else np.sqrt(loss0 * t_end)
        return 2.0 * bound + 1.0

    # -- kinks ----------------------------------------------------------------------------------
    def _pattern(self, z: np.ndarray) -> np.ndarray:
        return self.region(z[: self.objective.model.n_params])

    def _kink_event(self, pattern: np.ndarray) -> Callable[[float, np.ndarray], float] | None:
        watched = np.flatnonzero(pattern)
        if watched.size == 0:
            return None
        expected = pattern[watched]
        n = self.objective.model.n_params
        return _terminal(lambda s, z: float(np.min(expected * hidden_preactivations(self.objective, z[:n])[watched])))

    def _step_off_kink(self, s: float, z: np.ndarray, velocity: np.ndarray, pattern: np.ndarray
                       ) -> tuple[float, np.ndarray]:
        """A tiny Euler step along ``velocity`` = dz/ds so that entries at (or within rounding of) a kink take their
        new side.

        Returns (s, z) unchanged if no step up to 8⁴·10⁻¹³ ≈ 4.1e-10·max(1, |s|) changes the activation pattern (a
        grazing touch, or units parked at exactly 0 such as w = 0).
        """
        scale = relative_scale(s)
        for k in range(5):
            delta = _NUDGE * 8.0**k * scale
            z_new = z + delta * velocity
            if not np.array_equal(self._pattern(z_new), pattern):
                return s + delta, z_new
        return s, z

    def _slides(self, s: float, z: np.ndarray, velocity: np.ndarray, before: np.ndarray, after: np.ndarray
                ) -> bool:
        """Whether the field just past a kink sends the entries that crossed straight back (Filippov sliding)."""
        crossed = (after != before) & (before != 0)
        probe = z + _PROBE * relative_scale(s) * velocity
        return bool(np.any(self._pattern(probe)[crossed] == before[crossed]))

    # -- integration ----------------------------------------------------------------------------
    def solve(self, theta0: np.ndarray, t_end: float, *, clock: Clock = "real", method: str = "LSODA",
              rtol: float = 1e-10, atol: float = 1e-12, t_eval: Sequence[float] | np.ndarray | None = None,
              stop: Sequence[StopCondition] = (), max_crossings: int = 10_000,
              max_evaluations: int = 1_000_000) -> Trajectory:
        """Integrate from θ(0) = ``theta0`` until real time ``t_end``, a stop condition, or a failure.

        ``t_eval``: increasing real times in [0, t_end] to record (default: every accepted step); the last row is
        always where the flow stopped. ``t_end = inf`` (loss and arclength clocks, with a stop condition): t is
        not tracked and the flow ends only by a stop condition. ``method``: any ``solve_ivp`` method. LSODA
        (default) switches to BDF where the flow turns stiff, as it does near a minimum of the square loss; DOP853
        gives the most accuracy per evaluation on non-stiff flows (margin losses on the log clock) but its error
        estimate misses its stability limit there (checkpoints off by ~1e4·rtol). Explicit methods keep units
        parked at a kink (w = 0) exactly at 0; implicit steps may move them by rounding. ``max_evaluations``
        bounds the cost: past it the flow ends with status ``evaluation_limit`` where its current region began.
        """
        if clock not in CLOCKS:
            raise ValueError(f"unknown clock {clock!r} (choose from {', '.join(CLOCKS)})")
        if not t_end > 0:
            raise ValueError("t_end must be positive")
        implicit = clock in ("loss", "arclength")
        track_time = bool(np.isfinite(t_end))
        if not track_time and not (implicit and stop and t_eval is None):
            raise ValueError("t_end = inf needs the loss or arclength clock, a stop condition and no t_eval")
        requested = None if t_eval is None else np.asarray(t_eval, dtype=float)
        if requested is not None and (np.any(np.diff(requested) <= 0) or requested[0] < 0 or requested[-1] > t_end):
            raise ValueError("t_eval must be increasing real times within [0, t_end]")
        theta0 = np.array(theta0, dtype=float)
        n = theta0.size
        carries_time = implicit and track_time
        s, z = 0.0, np.append(theta0, 0.0) if carries_time else theta0
        s_end, tau_end = self._clock_end(clock, theta0, t_end), float(np.log1p(t_end))
        rhs = _Counter(lambda s_, z_: self.field(clock, s_, z_, track_time), max_evaluations)
        jacobian = {"jac": rhs.jacobian(lambda s_, z_: self.jacobian(clock, s_, z_, track_time))} \
            if self.compiled is not None and self.compiled.analytic_jacobian and method in _IMPLICIT else {}
        log = _Log(clock, requested, track_time)
        crossings: list[float] = []

        def finish(status: FlowStatus, message: str) -> Trajectory:
            log.close(s, z, reached_end=status is FlowStatus.COMPLETED, t_end=float(t_end))
            t, s_values, states = log.arrays()
            return Trajectory(t, states[:, :n], s_values, clock, rhs.count, np.array(crossings), status, message)

        stop_events = [_terminal(lambda s_, z_, f=f: f(float(np.expm1(_tau(clock, s_, z_, track_time))), z_[:n]))
                       for f in stop]
        for index, event in enumerate(stop_events):
            if event(s, z) <= 0:
                return finish(FlowStatus.STOPPED, f"stop condition {index} holds at the start")
        end_event = _terminal(lambda s_, z_: tau_end - z_[-1])
        pattern = self._pattern(z) if self.region is not None else None
        if pattern is not None and np.any(pattern == 0):
            log.start(s, z)
            s, z = self._step_off_kink(s, z, rhs(s, z), pattern)  # units at exactly 0 that move pick their side
            pattern = self._pattern(z)
        tiny_regions = 0
        while True:
            undefined = rhs(s, z)[-1] == 0.0 if carries_time else implicit and not np.any(rhs(s, z))
            if undefined:  # dτ/ds = 0 (untracked: the whole field is 0) only where the clock is undefined
                what = "L" if clock == "loss" else "∇L"
                return finish(FlowStatus.STATIONARY,
                              f"{what} = 0 at s = {s:.6g}: the {clock} clock is undefined")
            kink_event = self._kink_event(pattern) if pattern is not None else None
            events = stop_events + ([end_event] if carries_time else []) + ([kink_event] if kink_event else [])
            log.start(s, z)
            s_start = s
            try:
                sol = solve_ivp(rhs, (s, s_end), z, method=_DenseBDF if method == "BDF" else method, rtol=rtol,
                            atol=atol, **jacobian,
                                t_eval=log.segment_eval(s_end), events=events or None,
                                dense_output=log.needs_dense_output)
            except _EvaluationLimit:  # the cost bound: the trajectory ends where the last region began
                return finish(FlowStatus.EVALUATION_LIMIT, f"more than {max_evaluations} evaluations")
            # solve_ivp leaves empty lists when no requested time was passed
            sol.t, sol.y = np.asarray(sol.t, dtype=float), np.asarray(sol.y, dtype=float).reshape(z.size, -1)
            fired = next((i for i, ts in enumerate(sol.t_events or []) if len(ts)), None)
            if fired is not None:
                s, z = float(sol.t_events[fired][-1]), sol.y_events[fired][-1].copy()
            elif sol.t.size:
                s, z = float(sol.t[-1]), sol.y[:, -1].copy()
            log.segment(sol, s, z)
            if sol.status == -1:
                return finish(FlowStatus.FAILED, sol.message)
            if fired is None:
                if carries_time:  # s passed its bound on s(t_end) without reaching t_end: the field vanished
                    return finish(FlowStatus.STATIONARY, "the flow stalled before t_end")
                return finish(FlowStatus.COMPLETED, "reached t_end")
            if fired < len(stop_events):
                return finish(FlowStatus.STOPPED, f"stop condition {fired} reached")
            if events[fired] is end_event:
                return finish(FlowStatus.COMPLETED, "reached t_end")
            # a kink: step into the new region and restart there
            t_kink = float(np.expm1(_tau(clock, s, z, track_time)))
            s, z = self._step_off_kink(s, z, rhs(s, z), pattern)
            new_pattern = self._pattern(z)
            if not np.array_equal(new_pattern, pattern):
                crossings.append(t_kink)
            if self._slides(s, z, rhs(s, z), pattern, new_pattern):
                return finish(FlowStatus.SLIDING, f"the flow slides along a kink from t = {t_kink:.6g}: "
                                                  "the field on both sides points into it")
            pattern = new_pattern
            tiny_regions = tiny_regions + 1 if s - s_start < _TINY_SEGMENT * relative_scale(s) else 0
            if tiny_regions >= _CHATTERING_SEGMENTS:
                return finish(FlowStatus.SLIDING, f"{tiny_regions} activation regions left in a vanishing time "
                                                  f"near t = {t_kink:.6g}: the flow slides along kinks")
            if len(crossings) > max_crossings:
                return finish(FlowStatus.CROSSING_LIMIT, f"more than {max_crossings} kink crossings")


class _Log:
    """Checkpoints of one :meth:`GradientFlow.solve` call, collected segment by segment.

    Without requested times every accepted step is kept. Requested real times map exactly to s on the real
    and log clocks (handed to ``solve_ivp`` as ``t_eval``); on the loss and arclength clocks they are located
    by root finding on τ(s) of the segment's dense output.
    """

    def __init__(self, clock: Clock, requested: np.ndarray | None, track_time: bool = True) -> None:
        self.clock, self.requested, self.track_time = clock, requested, track_time
        self.next = 0  # first requested time not yet recorded
        self.t: list[float] = []
        self.s: list[float] = []
        self.z: list[np.ndarray] = []
        implicit = clock in ("loss", "arclength")
        self.needs_dense_output = requested is not None and implicit
        if requested is not None and not implicit:
            self.requested_s = requested if clock == "real" else np.log1p(requested)

    def _add(self, s: float, z: np.ndarray, t: float | None = None) -> None:
        self.s.append(float(s))
        self.z.append(np.array(z, dtype=float))
        self.t.append(float(np.expm1(_tau(self.clock, s, z, self.track_time))) if t is None else float(t))

    def _add_requested(self, s: float, z: np.ndarray) -> None:
        self._add(s, z, self.requested[self.next])
        self.next += 1

    def _pending_tau(self) -> float:
        return float(np.log1p(self.requested[self.next])) if self.next < self.requested.size else np.inf

    def start(self, s: float, z: np.ndarray) -> None:
        """A segment starts at (s, z): the very first point, or requested times skipped by a step off a kink."""
        if self.requested is None:
            if not self.s:
                self._add(s, z)
            return
        while self._pending_tau() <= _tau(self.clock, s, z):
            self._add_requested(s, z)

    def segment_eval(self, s_end: float) -> np.ndarray | None:
        if self.requested is None or self.needs_dense_output:
            return None
        return np.append(self.requested_s[self.next:][self.requested_s[self.next:] < s_end], s_end)

    def segment(self, sol: Any, s: float, z: np.ndarray) -> None:
        """Record what a ``solve_ivp`` segment that stopped at (s, z) passed."""
        if self.requested is None:
            for k in range(1, sol.t.size):
                self._add(sol.t[k], sol.y[:, k])
        elif not self.needs_dense_output:
            for k in range(sol.t.size):
                if self.next < self.requested.size and sol.t[k] == self.requested_s[self.next]:
                    self._add_requested(sol.t[k], sol.y[:, k])
        else:
            while self._pending_tau() <= z[-1]:
                target = self._pending_tau()
                k = int(np.searchsorted(sol.y[-1], target))
                if k == 0 or sol.y[-1][k] == target:
                    s_hit = sol.t[k]
                else:
                    s_hit = brentq(lambda u: sol.sol(u)[-1] - target, sol.t[k - 1], sol.t[k], xtol=1e-300)
                self._add_requested(s_hit, sol.sol(s_hit))

    def close(self, s: float, z: np.ndarray, reached_end: bool, t_end: float) -> None:
        """The stopping point is always the last row (and it is t_end if the flow got there)."""
        while reached_end and self.requested is not None and self.next < self.requested.size:
            self._add_requested(s, z)  # t_end itself, located by the end event up to rounding
        if reached_end and self.t and self.t[-1] == t_end and self.s[-1] != s:
            # t_end was requested and located as a root of τ on the dense output: the end event's point is the same
            # time up to rounding, and takes that row instead of adding a second one at t_end
            self.s[-1], self.z[-1] = float(s), np.array(z, dtype=float)
        elif not self.s or self.s[-1] != s:
            self._add(s, z)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.array(self.t), np.array(self.s), np.array(self.z)
