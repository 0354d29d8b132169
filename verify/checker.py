"""Certify or reject a user's construction, property by property (``verify check FILE``).

Each property has one function here that calls the engines of :mod:`numerics` and turns their answer into a
:class:`PropertyResult`: a verdict (certified / confirmed / refuted / inconclusive), the kind of evidence it
rests on, a one-line detail and figures. Evidence kinds:

* ``exact``: exact arithmetic on exact input (rationals, real algebraic numbers);
* ``interval``: rigorous on floating-point input, by ball arithmetic or by exact arithmetic on the binary
  values of the floats (a verdict that does not depend on how the floats were rounded);
* ``numeric``: floating point with a tolerance, or a numerical search that found nothing.

``certified`` and ``confirmed`` mean the property holds (proved / numerically), ``refuted`` that it fails.
:func:`check_construction` is the public entry point; it has no side effects.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import sympy

from numerics import backend as B
from numerics import certificates, global_optimum, kkt, metrics
from numerics import exact as E
from numerics.convex import ConvexReference, max_margin
from numerics.flows import FlowStatus, GradientFlow
from numerics.losses import Objective
from numerics.threads import one_thread
from verify.claim import EvidenceKind, Verdict
from verify.construction import EPS, Construction, PropertySpec, load_construction

Figure = float | int | str | bool
EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples" / "constructions"  # the shipped constructions

DEFAULT_RADII = (sympy.Rational(1, 10), sympy.Rational(1, 100), sympy.Rational(1, 1000))
DEFAULT_STARTS = 16  # global searches
LOCAL_STARTS = 16  # searches in a small ball
FLOAT_TOLERANCE = 1e-9  # feasibility and optimal values of float inputs, relative
KKT_TOLERANCE = 1e-6  # active set and stationarity residual of float inputs (numerics.kkt's default)
ANGLE_TOLERANCE = 1e-2  # radians, gf_limit for margin losses
POINT_TOLERANCE = 1e-6  # relative distance, gf_limit for the square loss
RANK_TOLERANCE = 1e-8  # singular values below this times σ1 are negligible (float input)
DEFAULT_NORM_HORIZON = 300.0  # margin losses: stop the flow when ‖θ(t)‖ reaches this times max(1, ‖θ(0)‖)
DEFAULT_TIME_HORIZON = 100.0  # square loss: real time
# gf_limit integrators in turn: LSODA (fast on the shipped constructions, at most a few thousand evaluations), then
# BDF where LSODA gets stuck (large starts of margin losses: the flow slides along ties of margins ~ ‖θ‖², stiffly)
FLOW_INTEGRATORS = (("LSODA", 20_000), ("BDF", 1_000_000))
_EXACT_EIGEN_SIZE = 4  # exact stable ranks for Gram matrices up to this size (eigenvalues in radicals)


@dataclass(frozen=True)
class PropertyResult:
    """The verdict on one property of a construction, with the evidence behind it."""

    name: str  # the check, with its layer when it has one: "rank (layer 1)"
    verdict: Verdict
    expected: str  # "holds" (certified or confirmed) or a verdict
    evidence: EvidenceKind  # exact, interval or numeric
    detail: str  # one line
    figures: dict[str, Figure] = field(default_factory=dict)
    seconds: float = 0.0
    where: str = ""

    @property
    def ok(self) -> bool:
        if self.expected == "holds":
            return self.verdict in (Verdict.CERTIFIED, Verdict.CONFIRMED)
        return self.verdict.value == self.expected

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "where": self.where, "verdict": self.verdict.value, "expected": self.expected,
                "ok": self.ok, "evidence": self.evidence.value, "detail": self.detail, "figures": dict(self.figures),
                "seconds": round(self.seconds, 4)}


@dataclass(frozen=True)
class CheckReport:
    """All properties of one construction; ``ok`` when each got the verdict the file expects."""

    origin: str
    title: str
    source: str
    architecture: str
    loss: str
    exact: bool
    results: tuple[PropertyResult, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.origin, "title": self.title, "source": self.source, "architecture": self.architecture,
                "loss": self.loss, "arithmetic": "exact" if self.exact else "float", "ok": self.ok,
                "seconds": round(self.seconds, 3), "properties": [r.to_json() for r in self.results]}


@dataclass(frozen=True)
class _Outcome:
    """What a check function decides; :func:`check_property` adds the name, timing and expectation."""

    verdict: Verdict
    evidence: EvidenceKind
    detail: str
    figures: dict[str, Any] = field(default_factory=dict)


# -- helpers ---------------------------------------------------------------------------------------------------
def _show(value: Any) -> str:
    """Exact numbers as themselves (with a decimal value when irrational), floats to 6 digits."""
    if isinstance(value, sympy.Basic):
        if value.is_Rational and len(str(value)) <= 24:
            return str(value)
        if value.is_Rational:  # typically the binary value of a float
            return f"{float(value):.17g}"
        return f"{value} ≈ {float(value):.6g}"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value)


def _figure(value: Any) -> Figure:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, sympy.Basic):
        if value.is_Integer:
            return int(value)
        return str(value) if value.is_Rational and len(str(value)) <= 24 else float(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf" if value < 0 else "nan")
    return str(value)


def _vector_text(values: Any) -> str:
    return "(" + ", ".join(_show(v) for v in np.asarray(values, dtype=object).ravel()) + ")"


def _rounded(values: np.ndarray, digits: int = 6) -> str:
    """A float vector to a few digits, without negative zeros."""
    return _vector_text(np.round(np.asarray(values, dtype=float), digits) + 0.0)


def _rigorous(c: Construction) -> EvidenceKind:
    return EvidenceKind.EXACT if c.exact else EvidenceKind.INTERVAL


def _exact_inputs(c: Construction) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """θ, X, Y exactly: the exact input, or the binary values of float input."""
    return E.to_exact(c.theta), E.to_exact(c.X), E.to_exact(c.Y)


def _float_inputs(c: Construction) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return B.to_float(c.theta), B.to_float(c.X), B.to_float(c.Y)


def _mode_inputs(c: Construction) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray]:
    """(model, θ, X, Y) in the construction's own arithmetic, for engines with an exact and a float mode."""
    return (c.model, *_exact_inputs(c)) if c.exact else (c.float_model, *_float_inputs(c))


def _min_margin(c: Construction) -> tuple[Any, int]:
    """Exact minimum margin (of the binary values for float input) and a sample attaining it."""
    theta, X, y = _exact_inputs(c)
    q = E.canonical(kkt.margins(c.model, theta, X, y))
    order = np.argsort(B.to_float(q))
    i = int(order[0])
    for j in order[1:]:
        if E.sign(q[j] - q[i]) < 0:
            i = int(j)
    return q[i], i


def _sample_text(c: Construction, i: int) -> str:
    """'sample i', or for multi-class outputs the sample and the pair of classes of constraint i."""
    if not c.classes:
        return f"sample {i}"
    sample, own, other = c.model.pairs[i]
    return f"sample {sample} (class {own} vs {other})"


def _unresolved_kink(c: Construction) -> str | None:
    """The KKT engine resolves Clarke subgradients at kinks of scalar ReLU networks only; for leaky ReLU and
    multi-class ReLU networks it would use the σ'(0) convention at a zero pre-activation of an active sample.
    Such a kink, described; None where there is none (or the network is linear)."""
    if c.linear or (c.network.activation == "relu" and not c.classes):
        return None
    theta, X, y = _exact_inputs(c)
    q = E.canonical(kkt.margins(c.model, theta, X, y))
    active = [i for i in range(len(q)) if E.sign(q[i] - 1) == 0] if c.exact else \
        [i for i in range(len(q)) if float(q[i]) - 1 <= KKT_TOLERANCE]
    if not active:
        return None
    for layer, Z in enumerate(c.model.preactivations(theta, X[active]), start=1):
        zero = np.argwhere(E.signs(E.canonical(Z)) == 0)
        if len(zero):
            row, neuron = (int(v) for v in zero[0])
            kind = "leaky ReLU" if c.network.activation == "leaky_relu" else "multi-class ReLU"
            return (f"the pre-activation of neuron {neuron} of hidden layer {layer} is 0 on active "
                    f"{_sample_text(c, active[row])}: Clarke subgradients at kinks of {kind} networks are not "
                    "supported (only at smooth points)")
    return None


def _second_order_supported(c: Construction) -> bool:
    """The second-order engine keeps the activation pattern of scalar ReLU networks only (and linear ones)."""
    return c.linear or (c.network.activation == "relu" and not c.classes)


def _feasibility(c: Construction) -> _Outcome | None:
    """None if θ is feasible for min ½‖θ‖² s.t. q ≥ 1 (up to rounding for float input), else why not."""
    q_min, i = _min_margin(c)
    below = E.sign(q_min - 1) < 0 if c.exact else float(q_min) < 1 - FLOAT_TOLERANCE
    if below:
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"θ is infeasible: {_sample_text(c, i)} has margin "
                        f"{_show(q_min)} < 1",
                        {"min_margin": _figure(q_min), "sample": i})
    return None


def _slack(c: Construction, what: str) -> _Outcome | None:
    """Refuted optimality when no constraint is active: the objective is homogeneous (in θ, or in one layer), so
    scaling ``what`` down by a factor just below 1 stays feasible and shortens it. None if some margin is 1."""
    q_min, _ = _min_margin(c)
    if E.sign(q_min - 1) > 0 and (c.exact or float(q_min) > 1 + FLOAT_TOLERANCE):
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"no constraint is active (minimum margin {_show(q_min)} > 1): "
                        f"c·{what} with c slightly below 1 is feasible and shorter", {"min_margin": _figure(q_min)})
    return None


def _search_ball_radius(c: Construction, model: Any, theta: np.ndarray) -> float:
    """2‖θ₁‖ (θ₁ = θ at margin 1): a ball around θ₁ that holds every point of smaller norm."""
    _, X, y = _float_inputs(c)
    start = kkt.rescale_to_margin(model, B.to_float(theta), X, y)
    return 2.0 * float(np.linalg.norm(start))


@dataclass(frozen=True)
class _Search:
    """Local search at decreasing radii (stopped at the first without improvement), each better point
    re-certified exactly."""

    searches: tuple[kkt.LocalSearchResult, ...]
    witnesses: tuple[kkt.Witness | None, ...]  # per radius searched: the certified witness, or None

    @property
    def radii(self) -> tuple[float, ...]:
        return tuple(search.radius for search in self.searches)

    @property
    def all_certified(self) -> bool:
        """A certified better point at every radius requested (and at least one radius searched)."""
        return bool(self.witnesses) and all(witness is not None for witness in self.witnesses)

    @property
    def clean_radius(self) -> float | None:
        """The radius where the search found no better point, if it reached one (a search that evaluated
        nothing found nothing and proves nothing)."""
        return next((search.radius for search in self.searches if not search.improved and search.evaluations > 0),
                    None)

    def direction(self) -> np.ndarray | None:
        """(θ' − θ₁)/‖θ' − θ₁‖ for the witness at the smallest radius."""
        for search, witness in zip(reversed(self.searches), reversed(self.witnesses)):
            if witness is not None:
                step = B.to_float(witness.point) - search.start
                return step / np.linalg.norm(step)
        return None

    def summary(self) -> str:
        parts = []
        for search, witness in zip(self.searches, self.witnesses):
            if not search.improved:
                parts.append(f"r = {search.radius:g}: no better point found")
            elif witness is not None:
                parts.append(f"r = {search.radius:g}: ‖θ'‖² smaller by {float(witness.improvement):.3g}")
            else:
                parts.append(f"r = {search.radius:g}: better point found but not certified")
        return "; ".join(parts)


def _search(model_exact: Any, model_float: Any, theta: np.ndarray, X: np.ndarray, y: np.ndarray,
            radii: tuple[Any, ...], starts: int) -> _Search:
    """Local search at each radius, witnesses certified exactly; stops at the first radius with no improvement."""
    thetaf, Xf, yf = B.to_float(theta), B.to_float(X), B.to_float(y)
    searches, witnesses = [], []
    for radius in radii:
        result = kkt.local_search(model_float, thetaf, Xf, yf, float(radius), starts=starts, seed=0)
        searches.append(result)
        if not result.improved:
            witnesses.append(None)
            break
        witness = kkt.certify_witness(model_exact, E.to_exact(theta), E.to_exact(X), E.to_exact(y), result.best,
                                      E.to_exact_number(radius))
        witnesses.append(witness if witness.certified else None)
    return _Search(tuple(searches), tuple(witnesses))


def _search_figures(search: _Search) -> dict[str, Any]:
    figures: dict[str, Any] = {"radii": ", ".join(f"{r:g}" for r in search.radii),
                               "search_evaluations": sum(s.evaluations for s in search.searches)}
    direction = search.direction()
    if direction is not None:
        figures["direction"] = _rounded(direction, 6)
        last = [w for w in search.witnesses if w is not None][-1]
        figures["witness"] = _rounded(B.to_float(last.point), 8)
        figures["witness_improvement"] = _figure(float(last.improvement))
    return figures


# -- feasible ----------------------------------------------------------------------------------------------------
def check_feasible(c: Construction, spec: PropertySpec) -> _Outcome:
    """Margins ≥ 1 (margin losses) or zero loss (square loss), exactly on the input's values."""
    tolerance = float(spec.options.get("tolerance", FLOAT_TOLERANCE))
    theta, X, Y = _exact_inputs(c)
    if c.margin_loss:
        q_min, i = _min_margin(c)
        figures = {"min_margin": _figure(q_min), "sample": i}
        if E.sign(q_min - 1) >= 0:
            kind = "multi-class margin" if c.classes else "margin"
            return _Outcome(Verdict.CERTIFIED, _rigorous(c), f"every {kind} is ≥ 1 (minimum {_show(q_min)} at "
                                                             f"{_sample_text(c, i)})", figures)
        if not c.exact and float(q_min) >= 1 - tolerance:
            return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"minimum margin {float(q_min):.17g} at "
                            f"{_sample_text(c, i)}: ≥ 1 up to the tolerance {tolerance:g} (float rounding)", figures)
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"{_sample_text(c, i)} has margin {_show(q_min)} < 1", figures)
    residuals = E.canonical(c.model.forward(theta, X) - Y)
    worst = max(float(abs(r)) for r in residuals.ravel())
    figures = {"max_residual": worst}
    if np.all(E.signs(residuals) == 0):
        return _Outcome(Verdict.CERTIFIED, _rigorous(c), "zero loss: Φ(θ; x_i) = y_i for every sample", figures)
    scale = max(1.0, float(np.max(np.abs(B.to_float(Y)))))
    if not c.exact and worst <= tolerance * scale:
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"largest residual {worst:.3g}: zero loss up to the "
                        f"tolerance {tolerance:g}", figures)
    i = int(np.argmax(np.max(np.abs(B.to_float(residuals)), axis=1)))
    return _Outcome(Verdict.REFUTED, _rigorous(c), f"nonzero loss: Φ(θ; x_{i}) − y_{i} = "
                                                    f"{_vector_text(residuals[i])}", figures)


# -- kkt ---------------------------------------------------------------------------------------------------------
def check_kkt(c: Construction, spec: PropertySpec) -> _Outcome:
    """θ is a KKT point of min ½‖θ‖² s.t. y_iΦ(θ; x_i) ≥ 1 (Clarke subgradients at kinks); θ must be feasible
    with an active constraint, i.e. minimum margin 1."""
    tolerance = float(spec.options.get("tolerance", KKT_TOLERANCE))
    infeasible = _feasibility(c)
    if infeasible is not None:
        return _Outcome(infeasible.verdict, infeasible.evidence, f"not a KKT point: {infeasible.detail}",
                        infeasible.figures)
    slack = _slack(c, "θ")
    if slack is not None:  # say whether the margin-1 rescaling would be one (float: exact rescaling can be costly)
        model, theta, X, y = c.float_model, *_float_inputs(c)
        rescaled = kkt.kkt_check(model, theta, X, y, tol=KKT_TOLERANCE)
        after = f"; its rescaling θ/q_min^(1/{model.degree}) is numerically a KKT point with λ ≈ " \
                f"{_rounded(rescaled.multipliers, 6)}" if rescaled.status == "kkt" else ""
        return _Outcome(slack.verdict, slack.evidence, f"not a KKT point: {slack.detail}{after}", slack.figures)
    kink = _unresolved_kink(c)
    if kink is not None:
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"no verdict: {kink}")
    model, theta, X, y = _mode_inputs(c)
    result = kkt.kkt_check(model, theta, X, y, tol=tolerance)
    kind = EvidenceKind.EXACT if result.proved else EvidenceKind.NUMERIC
    figures: dict[str, Any] = {
        "active": ", ".join(map(str, result.active)), "multipliers": _vector_text(result.multipliers),
        "stationarity_residual": _figure(result.stationarity_residual),
        "complementarity_residual": _figure(result.complementarity_residual),
        "euler_residual": _figure(result.euler_residual),
        "clarke_kinks": sum(k.kind == "clarke" for k in result.kinks),
        "silent_kinks": sum(k.kind == "silent" for k in result.kinks)}
    if result.status in ("unsupported", "inconclusive"):
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, result.message, figures)
    kinks = [k for k in result.kinks if k.kind == "clarke"]
    at_kinks = f"; Clarke subgradients at {len(kinks)} kink(s), selections " \
               f"{', '.join(_show(k.selection) for k in kinks if k.selection is not None) or 'free'}" if kinks else ""
    if result.status == "kkt":
        verdict = Verdict.CERTIFIED if result.exact else Verdict.CONFIRMED
        residual = "exactly 0" if result.exact else f"{float(result.stationarity_residual):.2g}"
        if c.classes:
            figures["active_pairs"] = "; ".join(_sample_text(c, i) for i in result.active)
        what = "constraints (sample, class pairs; see active_pairs)" if c.classes else "samples"
        return _Outcome(verdict, kind, f"θ = Σ λ_i ∂q_i(θ) with λ = {_vector_text(result.multipliers)} on active "
                        f"{what} {list(result.active)}; stationarity residual {residual}{at_kinks}", figures)
    return _Outcome(Verdict.REFUTED, kind, f"not a KKT point: {result.message}; relative stationarity residual "
                    f"{_show(result.stationarity_residual)}{at_kinks}", figures)


# -- local optimum -----------------------------------------------------------------------------------------------
_WITNESS_CURVES: dict[str, kkt.CurveWitness] = {}


def _witness_curve(model: Any, theta: np.ndarray, X: np.ndarray, y: np.ndarray, curve: Any, upper: Any
                   ) -> kkt.CurveWitness:
    """:func:`numerics.kkt.certify_witness_curve` in ε, once per process for the same inputs: a construction and its
    edited copies (another property list, a control's perturbation elsewhere) share witness curves, whose proof is
    deterministic and takes up to a second of sympy."""
    key = repr((model, *(np.asarray(a, dtype=object).tolist() for a in (theta, X, y, curve)), upper))
    if key not in _WITNESS_CURVES:
        _WITNESS_CURVES[key] = kkt.certify_witness_curve(model, theta, X, y, curve, EPS, upper)
    return _WITNESS_CURVES[key]


def check_local_optimum(c: Construction, spec: PropertySpec) -> _Outcome:
    """θ is a local minimum of min ½‖θ‖² s.t. q ≥ 1: refuted by a certified curve or witnesses at decreasing
    radii, certified by second-order sufficiency or global optimality, else confirmed by local search."""
    not_tight = _feasibility(c) or _slack(c, "θ")
    if not_tight is not None:
        return not_tight
    theta, X, y = _exact_inputs(c)
    curve_failure = ""
    if "witness" in spec.options and not _second_order_supported(c):
        curve_failure = "witness curves are certified for ReLU and linear networks only (the leaky ReLU signs along " \
                        "the curve are not resolved)"
    elif "witness" in spec.options:
        curve = _witness_curve(c.model, theta, X, y, spec.options["witness"], spec.options["eps_max"])
        figures = {"curve_margins": ", ".join(map(str, curve.margins)),
                   "curve_improvement": str(curve.improvement), "curve_distance_squared": str(curve.distance_squared)}
        if curve.certified:
            if curve.direction is not None:
                figures["direction"] = _rounded(curve.direction, 6)
            return _Outcome(Verdict.REFUTED, _rigorous(c), f"not a local minimum: {curve.message}", figures)
        curve_failure = f"the witness curve fails: {curve.message}"
    radii = tuple(spec.options.get("radii", DEFAULT_RADII))
    search = _search(c.model, c.float_model, theta, X, y, radii, LOCAL_STARTS)
    figures = _search_figures(search)
    model, theta_m, X_m, y_m = _mode_inputs(c)
    if _second_order_supported(c):
        second = kkt.second_order_check(model, theta_m, X_m, y_m)
    else:  # its finite-difference stencil would not keep the leaky ReLU pattern
        second = kkt.SecondOrderResult("unsupported", False, "no second-order test for leaky ReLU networks",
                                       kkt.kkt_check(model, theta_m, X_m, y_m))
    figures["second_order"] = second.status + (" (sufficient)" if second.sufficient else "")
    if curve_failure:
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"{curve_failure} (local search: "
                        f"{search.summary()})", figures)
    certificate = _local_certificate(c, second)
    if certificate is not None:
        if search.all_certified:  # better points down to the smallest radius: a bug in one of the two proofs
            return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"contradiction: {certificate.detail}, but "
                            f"local search certified better points at every radius ({search.summary()})", figures)
        farther = f"; better points exist farther away ({search.summary()}): the neighbourhood is smaller" \
            if any(w is not None for w in search.witnesses) else ""
        return _Outcome(certificate.verdict, certificate.evidence, certificate.detail + farther,
                        figures | certificate.figures)
    if second.status == "violated" and second.direction is not None:
        figures["curvature"] = _figure(second.curvature)
        direction = B.to_float(second.direction)
        figures["critical_direction"] = _rounded(direction / np.linalg.norm(direction), 6)
        evidence = EvidenceKind.EXACT if second.exact else (
            EvidenceKind.INTERVAL if search.all_certified else EvidenceKind.NUMERIC)
        return _Outcome(Verdict.REFUTED, evidence, f"not a local minimum: negative curvature dᵀHd/‖d‖² = "
                        f"{_show(second.curvature)} of the Lagrangian along a critical direction d (second-order "
                        f"necessary condition fails); witnesses: {search.summary()}", figures)
    if search.all_certified:
        smallest = min(search.radii)
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"not a local minimum within any of the radii: certified "
                        f"better feasible points at {search.summary()} (a proof for each radius down to {smallest:g}, "
                        "not below; a witness curve proves it for all)", figures)
    clean = search.clean_radius
    if clean is not None:
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"no better feasible point found within radius "
                        f"{clean:g} ({LOCAL_STARTS}-start local search; {search.summary()}); no second-order or "
                        "global certificate", figures)
    return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"better points found but not certified exactly: "
                    f"{search.summary()}", figures)


def _local_certificate(c: Construction, second: kkt.SecondOrderResult) -> _Outcome | None:
    """A proof of local optimality: second-order sufficiency, or global optimality where it can be certified."""
    if second.sufficient:
        verdict, evidence = (Verdict.CERTIFIED, EvidenceKind.EXACT) if second.exact else \
            (Verdict.CONFIRMED, EvidenceKind.NUMERIC)
        where = "the critical subspace is {0}" if second.min_curvature is None else \
            f"the Lagrangian Hessian is positive definite on the critical subspace, smallest eigenvalue " \
            f"{second.min_curvature:.4g}"
        return _Outcome(verdict, evidence, f"strict local minimum: second-order sufficient condition ({where})",
                        {"min_curvature": _figure(second.min_curvature)})
    if _global_reference(c) is not None:
        outcome = check_global_optimum(c, PropertySpec("global_optimum", "holds", {}, ""))
        if outcome.verdict is Verdict.CERTIFIED:
            return _Outcome(Verdict.CERTIFIED, outcome.evidence, f"a global minimum, hence local: {outcome.detail}",
                            outcome.figures)
    return None


# -- global optimum ----------------------------------------------------------------------------------------------
def _global_reference(c: Construction) -> str | None:
    """'svm' for linear fully-connected networks, 'l1' for depth-2 linear diagonal ones, 'patterns' for depth-2
    ReLU ones (fully connected or diagonal), else None."""
    if global_optimum.supports(c.model):
        return "patterns"
    if not c.linear:
        return None
    if c.family in ("fully_connected", "tensor/fully_connected"):
        return "svm"
    if c.family in ("diagonal", "tensor/diagonal") and c.model.degree == 2:
        return "l1"
    return None


def check_global_optimum(c: Construction, spec: PropertySpec) -> _Outcome:
    """θ minimizes ‖θ‖ among all feasible points: exactly via the predictor-space SVM (linear fully-connected:
    min ‖θ‖² = L‖u_svm‖^{2/L}) or ℓ1 problem (depth-2 linear diagonal: 2‖β*‖₁), by activation patterns for depth-2
    ReLU networks; otherwise a global search."""
    not_tight = _feasibility(c) or _slack(c, "θ")
    if not_tight is not None:
        return not_tight
    theta, X, y = _exact_inputs(c)
    squared = E.canonical([E.dot(theta, theta)])[0]
    reference = _global_reference(c)
    if reference is None:
        return _global_search(c, spec, squared)
    if reference == "patterns":
        return _pattern_optimum(c, squared)
    L = c.model.degree
    solved = max_margin(X, y) if reference == "svm" else max_margin(X, y, norm="l1")
    if solved.status == "failed":
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"the convex reference failed: {solved.message}")
    formula = f"{L}·‖u_svm‖^(2/{L})" if reference == "svm" else "2·‖β*‖₁"
    if solved.certificate is None:
        optimum = L * solved.norm ** (2 / L) if reference == "svm" else 2 * solved.norm
        return _compare_numeric(float(squared), optimum, formula, solved)
    norm = solved.certificate.norm
    optimum = E.canonical([L * norm ** sympy.Rational(2, L) if reference == "svm" else 2 * norm])[0]
    gap = E.canonical([squared - optimum])[0]
    figures = {"squared_norm": _figure(squared), "optimum": _figure(optimum), "gap": _figure(gap)}
    if E.sign(gap) == 0:
        return _Outcome(Verdict.CERTIFIED, _rigorous(c), f"‖θ‖² = {_show(squared)} equals the global minimum "
                        f"{formula} = {_show(optimum)} (exact {solved.problem.norm} certificate)", figures)
    if not c.exact and abs(float(gap)) <= FLOAT_TOLERANCE * float(optimum):
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"‖θ‖² = {float(squared):.12g} equals the global "
                        f"minimum {formula} = {_show(optimum)} up to rounding", figures)
    return _Outcome(Verdict.REFUTED, _rigorous(c), f"‖θ‖² = {_show(squared)} exceeds the global minimum {formula} = "
                    f"{_show(optimum)} (exact {solved.problem.norm} certificate)", figures)


def _pattern_optimum(c: Construction, squared: Any) -> _Outcome:
    """Depth-2 ReLU networks (``numerics.global_optimum``): θ's own KKT multipliers λ bound min ‖θ'‖² from below
    by 2Σλ/ρ(λ) over networks of any width, which proves global optimality when it reaches ‖θ‖² = 2Σλ; otherwise
    the enumeration of activation patterns brackets the optimum between an exact dual bound and an exactly
    feasible point."""
    theta, X, y = _exact_inputs(c)
    first = kkt.kkt_check(c.model, theta, X, y)
    if first.status == "kkt" and first.exact:
        bound = global_optimum.dual_bound(c.model, X, y, first.multipliers)
        if E.sign(bound.value - squared) >= 0:
            return _Outcome(Verdict.CERTIFIED, _rigorous(c), f"‖θ‖² = {_show(squared)} is the global minimum over "
                            f"networks of any width: θ's KKT multipliers λ = {_vector_text(first.multipliers)} are "
                            "dual feasible for every activation pattern (max_c ‖Π_c(g_c(λ))‖ ≤ 1), so every feasible "
                            "θ' has ‖θ'‖² ≥ 2Σλ = ‖θ‖² (exact)", {"squared_norm": _figure(squared),
                                                                 "dual_bound": _figure(bound.value)})
    slack = 0 if c.exact else FLOAT_TOLERANCE * float(squared)
    result, bracket = _enumerate_patterns(lambda bounds: global_optimum.global_optimum(c.model, X, y, bounds=bounds),
                                          squared, slack)
    figures = {"squared_norm": _figure(squared), "optimum_upper": _figure(result.upper),
               "optimum_value": result.value, "programs": result.programs}
    if result.lower is not None:
        figures["optimum_lower"] = _figure(result.lower)
    if result.optimum is not None:
        figures["optimum"] = _figure(result.optimum)
    if _beats(result.upper, squared, slack):
        figures["better_point"] = _rounded(B.to_float(result.point), 8)
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"not a global minimum: the global optimum {bracket} < ‖θ‖² = "
                        f"{_show(squared)} ({result.message}; an exactly feasible point attains "
                        f"{float(result.upper):.8g})", figures)
    if result.lower is not None and E.sign(result.lower - squared) >= 0:
        return _Outcome(Verdict.CERTIFIED, _rigorous(c), f"‖θ‖² = {_show(squared)} is the global minimum "
                        f"({result.message})", figures)
    if abs(result.value - float(squared)) <= FLOAT_TOLERANCE * max(1.0, float(squared)):
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"‖θ‖² = {float(squared):.12g} equals the global "
                        f"optimum {bracket} up to the tolerance {FLOAT_TOLERANCE:g} ({result.message})", figures)
    return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"‖θ‖² = {float(squared):.12g}, global optimum "
                    f"{bracket} ({result.message})", figures)


def _beats(upper: Any, squared: Any, slack: float) -> bool:
    """An exactly feasible value ``upper`` below ``squared`` by more than ``slack`` (0 for exact input)."""
    return E.sign(upper - squared) < 0 and float(squared) - float(upper) > slack


def _enumerate_patterns(solve: Callable[[bool], global_optimum.GlobalOptimum], squared: Any, slack: float
                        ) -> tuple[global_optimum.GlobalOptimum, str]:
    """``solve(bounds)`` enumerates activation patterns: first without exact lower bounds (a better feasible point
    refutes and needs none), then with them. The result, and its bracket of the optimum as text."""
    result = solve(False)
    if not _beats(result.upper, squared, slack):
        result = solve(True)
    bracket = f"= {_show(result.optimum)}" if result.optimum is not None else (
        f"in [{_show(result.lower)}, {_show(result.upper)}]" if result.lower is not None else
        f"≤ {_show(result.upper)}")
    return result, bracket


def _compare_numeric(squared: float, optimum: float, formula: str, solved: ConvexReference) -> _Outcome:
    figures = {"squared_norm": squared, "optimum": optimum}
    if not (math.isfinite(optimum) and optimum > 0):
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"no usable optimum: {formula} = {optimum:.10g} "
                        f"({solved.message})", figures)
    if squared < optimum * (1 - 1e-6):  # θ is feasible, so this says the numeric optimum is wrong, not θ
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"the numeric optimum {formula} = {optimum:.10g} "
                        f"exceeds ‖θ‖² = {squared:.10g} of a feasible point: the solver is off ({solved.message})",
                        figures)
    if abs(squared - optimum) <= 1e-6 * optimum:
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"‖θ‖² = {squared:.10g} ≈ {formula} = {optimum:.10g} "
                        f"(numeric: {solved.message})", figures)
    return _Outcome(Verdict.REFUTED, EvidenceKind.NUMERIC, f"‖θ‖² = {squared:.10g} > {formula} = {optimum:.10g} "
                    f"(numeric: {solved.message})", figures)


def _global_search(c: Construction, spec: PropertySpec, squared: Any) -> _Outcome:
    theta, X, y = _exact_inputs(c)
    starts = int(spec.options.get("starts", DEFAULT_STARTS))
    radius = _search_ball_radius(c, c.float_model, theta)
    search = _search(c.model, c.float_model, theta, X, y, (radius,), starts)
    figures: dict[str, Any] = {"squared_norm": _figure(squared), "starts": starts, "radius": radius,
                               "search_evaluations": search.searches[0].evaluations}
    witness = search.witnesses[0]
    if witness is not None:
        figures |= {"better_squared_norm": _figure(witness.squared_norm),
                    "better_point": _rounded(B.to_float(witness.point), 8)}
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"not a global minimum: a feasible point with ‖θ'‖² = "
                        f"{float(witness.squared_norm):.8g} < ‖θ₁‖² = {float(witness.reference_squared_norm):.8g} "
                        f"(found by a {starts}-start search, certified exactly)", figures)
    if search.searches[0].improved:
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, "a better point was found but could not be "
                        "certified exactly", figures)
    return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"no feasible point of smaller norm found by a "
                    f"{starts}-start search in the ball of radius {radius:.4g} around θ (which holds every such "
                    "point); no exact certificate for this architecture", figures)


# -- gradient flow -----------------------------------------------------------------------------------------------
def check_gf_limit(c: Construction, spec: PropertySpec) -> _Outcome:
    """Gradient flow from θ(0): its direction tends to θ's (margin losses, θ ≠ 0) or it tends to θ."""
    _, X, Y = _float_inputs(c)
    theta = B.to_float(c.theta)
    objective = Objective(c.float_model, X, Y, c.loss)
    clock = spec.options.get("clock", "arclength" if c.margin_loss else "real")
    untimed = c.margin_loss and clock in ("arclength", "loss")  # these clocks can run past t = 1e308
    time_horizon = float(spec.options.get("time", math.inf if untimed else DEFAULT_TIME_HORIZON))
    start_norm = float(np.linalg.norm(B.to_float(c.theta0)))
    # The default stopping norm grows with the start: from ‖θ(0)‖ > 1 the flow still travels a factor
    # DEFAULT_NORM_HORIZON (an absolute 300 would stop a large start at once, or after a negligible path).
    norm_horizon = float(spec.options["norm"]) if "norm" in spec.options else (
        DEFAULT_NORM_HORIZON * max(1.0, start_norm) if c.margin_loss and "time" not in spec.options else math.inf)
    if start_norm >= norm_horizon:  # the flow would stop before its first step: no evidence either way
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"no evidence: the start is already beyond the "
                        f"stopping norm (‖θ(0)‖ = {start_norm:.6g} ≥ norm = {norm_horizon:g}), so the flow would stop "
                        "before its first step: raise `norm` (or leave it out: the default stops at "
                        f"{DEFAULT_NORM_HORIZON:g}·max(1, ‖θ(0)‖))",
                        {"start_norm": start_norm, "norm": norm_horizon, "evaluations": 0})
    stops = [lambda t, th: norm_horizon - float(np.linalg.norm(th))] if math.isfinite(norm_horizon) else []
    flow = GradientFlow(objective)
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # expm1 overflows to t = inf past t ≈ 1e308: harmless
        for method, budget in FLOW_INTEGRATORS:  # LSODA; an implicit method if LSODA gets stuck
            trajectory = flow.solve(c.theta0, time_horizon, clock=clock, stop=stops, method=method,
                                    max_evaluations=budget)
            if trajectory.status not in (FlowStatus.EVALUATION_LIMIT, FlowStatus.FAILED):
                break
        final = trajectory.final
        log_loss = float(objective.log_value(final))
    direction = c.margin_loss and bool(np.any(theta))
    t_end = trajectory.t[-1]
    horizon = (f"‖θ‖ = {np.linalg.norm(final):.4g}, {clock} clock s = {trajectory.s[-1]:.4g}"
               + (f", t = {t_end:.4g}" if math.isfinite(t_end) else ", t not tracked")
               + ("" if method == FLOW_INTEGRATORS[0][0] else f", integrated with {method}: "
                  f"{FLOW_INTEGRATORS[0][0]} stopped early"))
    figures: dict[str, Any] = {"clock": clock, "status": trajectory.status.value,
                               "final_norm": float(np.linalg.norm(final)), "clock_value": float(trajectory.s[-1]),
                               "time": _figure(t_end),
                               "log_loss": log_loss, "evaluations": trajectory.nfev,
                               "kink_crossings": trajectory.n_crossings, "final_point": _rounded(final, 6),
                               "integrator": method, "start_norm": start_norm}
    if math.isfinite(norm_horizon):
        figures["norm"] = norm_horizon
    if not trajectory.s[-1] > 0:  # the flow never left θ(0): nothing is known about its limit
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"no evidence: the flow did not move from θ(0) "
                        f"({trajectory.status.value}: {trajectory.message})", figures)
    limit = spec.options.get("limit", "theta")
    if limit != "theta":
        tolerance = float(spec.options.get("tolerance", ANGLE_TOLERANCE))
        gap, measure, limit_figures = _limit_gap(c, spec, final, tolerance)
        figures |= limit_figures
        middle = _third_way(trajectory.theta)
        if middle is not None and np.any(middle):
            figures["gap_at_a_third"] = _limit_gap(c, spec, middle, tolerance)[0]
        direction = True  # a property of the direction of θ(t): no "still moving" test
    elif direction:
        tolerance = float(spec.options.get("tolerance", ANGLE_TOLERANCE))
        gap = metrics.angle(final, theta) if np.any(final) else math.pi
        figures["angle"] = gap
        middle = _third_way(trajectory.theta)
        if middle is not None and np.any(middle):
            figures["angle_at_a_third"] = metrics.angle(middle, theta)
        measure = f"angle between θ(t) and θ {gap:.3g} rad"
    else:
        tolerance = float(spec.options.get("tolerance", POINT_TOLERANCE))
        gap = float(np.linalg.norm(final - theta)) / max(1.0, float(np.linalg.norm(theta)))
        figures["relative_distance"] = gap
        measure = f"relative distance from θ(t) to θ {gap:.3g}"
    if trajectory.status in (FlowStatus.FAILED, FlowStatus.SLIDING, FlowStatus.CROSSING_LIMIT,
                             FlowStatus.EVALUATION_LIMIT):
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"the flow stopped early ({trajectory.message}) "
                        f"at {horizon}; {measure}", figures)
    if gap > tolerance and not direction and trajectory.status is FlowStatus.COMPLETED:
        moved = _recent_motion(trajectory)
        figures["motion_over_last_half"] = moved
        if moved > tolerance:  # a limit elsewhere is not shown while the flow is still on its way
            return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"the flow is still moving at the horizon "
                            f"(relative displacement {moved:.3g} over the last half of the time, > tolerance "
                            f"{tolerance:g}): raise `time`; at {horizon}: {measure}", figures)
    verdict = Verdict.CONFIRMED if gap <= tolerance else Verdict.REFUTED
    relation = "≤" if gap <= tolerance else ">"
    loss = f"loss {math.exp(log_loss):.4g}" if log_loss > -700 else f"loss e^{log_loss:.4g}"
    return _Outcome(verdict, EvidenceKind.NUMERIC, f"after {horizon} ({trajectory.nfev} evaluations, {loss}): "
                    f"{measure} {relation} tolerance {tolerance:g}", figures)


def _limit_gap(c: Construction, spec: PropertySpec, point: np.ndarray, tolerance: float
               ) -> tuple[float, str, dict[str, Any]]:
    """How far θ(t) is from the claimed property of the limit (float; 0 when it holds exactly), in words."""
    if spec.options["limit"] == "aligned":
        ratio, misfit, figures = _alignment_errors(c.network.matrices(point), _pairs(c, spec))
        gap = max(ratio, misfit)
        return gap, (f"alignment of θ(t): largest σ2/σ1 {ratio:.3g}, largest ∠(v_(k+1), ±u_k) {misfit:.3g}, "
                     f"worst {gap:.3g}"), figures
    target = _target(c, spec.options["direction"])
    beta = np.asarray(c.predictor(point), dtype=float)
    if target.matrix is None or not np.any(beta):
        return math.pi, f"no comparison ({target.message or 'the predictor of θ(t) is 0'})", {}
    if target.l1_norm is not None:
        outcome = _direction_verdict(c, beta, target, tolerance, False)
        gap = abs(outcome.figures["l1_margin"] - outcome.figures["l1_optimum"]) / outcome.figures["l1_optimum"]
        return gap, f"relative gap between the ℓ1 margin of θ(t)'s predictor and the optimum {gap:.3g}", \
            outcome.figures
    angle = metrics.angle(beta, B.to_float(target.matrix))
    return angle, f"angle between θ(t)'s end-to-end predictor and {target.text} {angle:.3g} rad", \
        {"angle": angle, "predictor": _rounded(beta.reshape(-1) / np.linalg.norm(beta), 6)}


def _recent_motion(trajectory: Any) -> float:
    """‖θ(T) − θ(T/2)‖ / max(1, ‖θ(T)‖) on the real clock (the recorded state nearest T/2)."""
    t, states = np.asarray(trajectory.t, dtype=float), trajectory.theta
    half = int(np.argmin(np.abs(t - t[-1] / 2)))
    final = states[-1]
    return float(np.linalg.norm(final - states[half])) / max(1.0, float(np.linalg.norm(final)))


def _third_way(states: np.ndarray) -> np.ndarray | None:
    """The recorded state whose norm is closest to a third of the final norm (a convergence trend)."""
    norms = np.linalg.norm(states, axis=1)
    if len(states) < 3:
        return None
    return states[int(np.argmin(np.abs(norms - norms[-1] / 3)))]


# -- rank and stable rank ----------------------------------------------------------------------------------------
def _layer_matrix(c: Construction, layer: int, exact: bool) -> np.ndarray:
    theta = E.to_exact(c.theta) if exact else B.to_float(c.theta)
    return (c.model if exact else c.float_model).matrices(theta)[layer - 1]


def check_rank(c: Construction, spec: PropertySpec) -> _Outcome:
    """rank W_l = value: exact for exact input; for floats exact on the binary values, else enclosure-certified
    singular values with a relative threshold."""
    layer, value = spec.options["layer"], spec.options["value"]
    if c.exact:
        W = _layer_matrix(c, layer, exact=True)
        rank = len(E.independent_rows(W))
        verdict = Verdict.CERTIFIED if rank == value else Verdict.REFUTED
        return _Outcome(verdict, EvidenceKind.EXACT, f"rank W_{layer} = {rank} (exact)", {"rank": rank})
    W = _layer_matrix(c, layer, exact=False)
    binary_rank = certificates.exact_rank(W)
    if binary_rank == value:
        return _Outcome(Verdict.CERTIFIED, EvidenceKind.INTERVAL, f"rank W_{layer} = {value} exactly (on the binary "
                        "values of the floats)", {"rank": binary_rank})
    tolerance = float(spec.options.get("tolerance", RANK_TOLERANCE))
    intervals = certificates.enclose_singular_values(W).intervals
    top = intervals[0]
    above = sum(s.lo > tolerance * top.hi for s in intervals)
    below = sum(s.hi <= tolerance * top.lo for s in intervals)
    figures = {"singular_values": ", ".join(str(s) for s in intervals), "exact_rank_of_floats": binary_rank,
               "tolerance": tolerance}
    if above == value and above + below == len(intervals):
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"numerical rank {value}: σ_1..σ_{value} > "
                        f"{tolerance:g}·σ_1 ≥ the others (enclosed); the floats' exact rank is {binary_rank}", figures)
    if above > value or len(intervals) - below < value:
        rank_text = f"at least {above}" if above > value else f"at most {len(intervals) - below}"
        return _Outcome(Verdict.REFUTED, EvidenceKind.INTERVAL, f"numerical rank {rank_text} ≠ {value} (singular "
                        f"values enclosed, threshold {tolerance:g}·σ_1)", figures)
    return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, "a singular value straddles the threshold "
                    f"{tolerance:g}·σ_1", figures)


def check_stable_rank(c: Construction, spec: PropertySpec) -> _Outcome:
    """‖W_l‖_F²/‖W_l‖_σ² = value (or ≤ at_most): exactly when sympy finds the eigenvalues of WᵀW (on the binary
    values of float input), else from rigorously enclosed singular values; float equality up to a tolerance."""
    layer = spec.options["layer"]
    W = _layer_matrix(c, layer, exact=True)
    if np.all(E.signs(W) == 0):
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"W_{layer} = 0 has no stable rank")
    value = _exact_stable_rank(W)
    if value is not None:
        figures = {"stable_rank": _figure(value)}
        text = f"the stable rank of W_{layer} is {_show(value)} exactly"
        if "at_most" in spec.options:
            holds = E.sign(E.to_exact_number(spec.options["at_most"]) - value) >= 0
            return _Outcome(Verdict.CERTIFIED if holds else Verdict.REFUTED, _rigorous(c),
                            f"{text}, {'≤' if holds else '>'} {_show(spec.options['at_most'])}", figures)
        claimed = spec.options["value"]
        if E.sign(value - E.to_exact_number(claimed)) == 0:
            return _Outcome(Verdict.CERTIFIED, _rigorous(c), text, figures)
        if c.exact:
            return _Outcome(Verdict.REFUTED, EvidenceKind.EXACT, f"{text}, not {_show(claimed)}", figures)
    elif c.exact and not all(v.is_Rational for v in W.ravel()):
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, "no exact eigenvalues for this matrix")
    bounds = _stable_rank_bounds(W)
    if bounds is None:
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"σ_1 of W_{layer} is not enclosed away from 0")
    low, high = bounds
    figures = {"stable_rank_low": float(low), "stable_rank_high": float(high)}
    enclosed = f"stable rank of W_{layer} in [{float(low):.10g}, {float(high):.10g}] (enclosed)"
    if "at_most" in spec.options:
        bound = _fraction(spec.options["at_most"])
        if high <= bound or low > bound:
            verdict = Verdict.CERTIFIED if high <= bound else Verdict.REFUTED
            return _Outcome(verdict, EvidenceKind.INTERVAL, f"{enclosed} {'≤' if high <= bound else '>'} "
                            f"{float(bound):g}", figures)
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"{enclosed} straddles {float(bound):g}", figures)
    claimed = float(spec.options["value"])
    tolerance = float(spec.options.get("tolerance", FLOAT_TOLERANCE))
    if claimed * (1 - tolerance) <= float(low) and float(high) <= claimed * (1 + tolerance):
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"{enclosed}: equal to {claimed:g} up to the "
                        f"relative tolerance {tolerance:g}", figures)
    if float(high) < claimed * (1 - tolerance) or float(low) > claimed * (1 + tolerance):
        return _Outcome(Verdict.REFUTED, EvidenceKind.INTERVAL, f"{enclosed} ≠ {claimed:g}", figures)
    return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"{enclosed}: too wide to decide", figures)


def _exact_stable_rank(W: np.ndarray) -> Any | None:
    """‖W‖_F²/λ_max(WᵀW) exactly, when the Gram matrix is small enough for sympy to find its eigenvalues in
    radicals; None otherwise."""
    if min(W.shape) > _EXACT_EIGEN_SIZE:
        return None
    gram = E.canonical(W.T @ W if W.shape[1] <= W.shape[0] else W @ W.T)
    frobenius = E.canonical([np.trace(gram)])[0]
    try:
        eigenvalues = list(sympy.Matrix(gram).eigenvals())
        largest = max(eigenvalues, key=lambda v: float(sympy.re(sympy.N(v, 30))))
        value = E.canonical([frobenius / largest])[0]
        E.sign(value)  # raises unless it is a real algebraic number we can compare exactly
        return value
    except (E.NotAlgebraicError, ArithmeticError, ValueError, TypeError, NotImplementedError):
        return None


def _stable_rank_bounds(W: np.ndarray) -> tuple[Fraction, Fraction] | None:
    """Rigorous rational bounds on ‖W‖_F²/σ_1² from enclosed singular values (interval ends are exact floats);
    None when σ_1 is not enclosed away from 0."""
    intervals = certificates.enclose_singular_values(W).intervals
    lows, highs = [Fraction(s.lo) for s in intervals], [Fraction(s.hi) for s in intervals]
    if lows[0] <= 0 or not all(math.isfinite(s.hi) for s in intervals):
        return None
    return sum(v * v for v in lows) / (highs[0] * highs[0]), sum(v * v for v in highs) / (lows[0] * lows[0])


def _fraction(value: Any) -> Fraction:
    """A sympy rational or float as a Fraction (irrational numbers through their float value)."""
    if isinstance(value, sympy.Rational):
        return Fraction(int(value.p), int(value.q))
    return Fraction(float(value))


# -- layer alignment ---------------------------------------------------------------------------------------------
def _aligned_exact(matrices: list[np.ndarray], pairs: list[int]) -> tuple[bool, str, dict[str, Any]]:
    """Exactly: every W_k of the pairs has rank one and, for each pair (k, k + 1), the row space of W_{k+1} is the
    column space of W_k (rank [W_k | W_{k+1}ᵀ] = 1), i.e. the top right singular vector of W_{k+1} is the top left
    one of W_k (up to the joint sign convention of singular vectors)."""
    layers = sorted({k for pair in pairs for k in (pair, pair + 1)})
    ranks = {k: len(E.independent_rows(E.canonical(matrices[k - 1]))) for k in layers}
    figures: dict[str, Any] = {"ranks": ", ".join(f"W_{k}: {ranks[k]}" for k in layers)}
    for k in layers:
        if ranks[k] != 1:
            return False, f"W_{k} has rank {ranks[k]}, not 1", figures
    for k in pairs:
        joint = np.concatenate([matrices[k - 1], matrices[k].T], axis=1)
        if len(E.independent_rows(E.canonical(joint))) != 1:
            return False, (f"W_{k} and W_{k + 1} are rank one but not aligned: the top right singular vector of "
                           f"W_{k + 1} is not ± the top left singular vector of W_{k}"), figures
    return True, "", figures


def _alignment_errors(matrices: list[np.ndarray], pairs: list[int]) -> tuple[float, float, dict[str, Any]]:
    """Float: max over the layers of σ2/σ1 (distance from rank one) and over the pairs of the angle between
    v_{k+1} and ±u_k (radians)."""
    layers = sorted({k for pair in pairs for k in (pair, pair + 1)})
    svd = {k: np.linalg.svd(np.asarray(matrices[k - 1], dtype=float)) for k in layers}
    ratio = {k: (float(svd[k][1][1] / svd[k][1][0]) if len(svd[k][1]) > 1 and svd[k][1][0] > 0 else
                 (0.0 if svd[k][1][0] > 0 else math.inf)) for k in layers}
    misfit = {}
    for k in pairs:  # the angle between v_{k+1} and ±u_k (singular vectors have no sign)
        angle = metrics.angle(svd[k + 1][2][0], svd[k][0][:, 0])
        misfit[k] = min(angle, math.pi - angle)
    figures = {"rank_one_ratios": ", ".join(f"W_{k}: {ratio[k]:.3g}" for k in layers),
               "alignment_errors": ", ".join(f"({k}, {k + 1}): {misfit[k]:.3g}" for k in pairs)}
    return max(ratio.values()), max(misfit.values()), figures


def _pairs(c: Construction, spec: PropertySpec) -> list[int]:
    if "layer" in spec.options:
        return [spec.options["layer"]]
    return list(range(1, len(c.network.layers)))


def check_aligned(c: Construction, spec: PropertySpec) -> _Outcome:
    """Adjacent layers rank one and aligned (W_k = s_k u_k v_kᵀ with v_{k+1} = ±u_k): exactly for exact input and
    on the binary values of floats, else singular vectors in floating point against a tolerance."""
    pairs = _pairs(c, spec)
    where = f"layers {pairs[0]} and {pairs[0] + 1}" if len(pairs) == 1 else f"all {len(pairs) + 1} layers"
    matrices = c.network.matrices(E.to_exact(c.theta))
    holds, why, figures = _aligned_exact(matrices, pairs)
    if holds:
        return _Outcome(Verdict.CERTIFIED, _rigorous(c), f"{where}: rank one and aligned, W_(k+1)'s row space = W_k's "
                        "column space for each adjacent pair (exact" + ("" if c.exact else
                                                                       ", on the binary values of the floats") + ")",
                        figures)
    if c.exact:
        return _Outcome(Verdict.REFUTED, EvidenceKind.EXACT, f"not aligned: {why} (exact)", figures)
    tolerance = float(spec.options.get("tolerance", RANK_TOLERANCE))
    ratio, misfit, float_figures = _alignment_errors(c.network.matrices(B.to_float(c.theta)), pairs)
    figures |= float_figures | {"tolerance": tolerance}
    if ratio <= tolerance and misfit <= tolerance:
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"{where}: rank one and aligned up to the tolerance "
                        f"{tolerance:g} (largest σ2/σ1 {ratio:.3g}, largest ∠(v_(k+1), ±u_k) {misfit:.3g}); "
                        f"exactly on the floats' binary values: {why}", figures)
    return _Outcome(Verdict.REFUTED, EvidenceKind.NUMERIC, f"not aligned within the tolerance {tolerance:g}: largest "
                    f"σ2/σ1 {ratio:.3g}, largest ∠(v_(k+1), ±u_k) {misfit:.3g}", figures)


# -- the end-to-end predictor's direction -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Target:
    """The claimed direction: a matrix (d_out × d_in; rows of a vector for scalar outputs), exact when it can be,
    or the ℓ1 max-margin value (the ℓ1 direction need not be unique: it is decided by the margin)."""

    text: str
    matrix: np.ndarray | None  # exact object array, or float when only a numeric solution exists
    exact: bool
    l1_norm: Any = None  # ‖β*‖₁ of the ℓ1 max-margin problem: a direction is optimal iff its ℓ1 margin is 1/‖β*‖₁
    message: str = ""


def _kesler(inputs: np.ndarray, labels: np.ndarray, classes: int) -> np.ndarray:
    """Rows (e_(y_i) − e_j) ⊗ x_i, j ≠ y_i: multi-class margins of W are ⟨row, vec W⟩ (row-major)."""
    rows = []
    for x, y in zip(inputs, labels):
        for j in range(classes):
            if j != int(y):
                row = np.array([0 * x[0]] * (classes * len(x)), dtype=inputs.dtype)
                row[int(y) * len(x):(int(y) + 1) * len(x)] = x
                row[j * len(x):(j + 1) * len(x)] = -x
                rows.append(row)
    return np.array(rows, dtype=inputs.dtype)


def _target(c: Construction, direction: Any) -> _Target:
    if not isinstance(direction, str):
        entries = np.array(direction, dtype=object)
        if any(isinstance(v, float) for v in entries.ravel()):
            return _Target("the given direction", E.to_exact(entries), False)
        return _Target("the given direction", entries, True)
    X, y = E.to_exact(c.inputs), E.to_exact(c.labels)
    if c.classes:
        solved = max_margin(_kesler(X, c.labels, c.classes), np.array([sympy.Integer(1)] * (len(y) * (c.classes - 1)),
                                                                       dtype=object))
    else:
        solved = max_margin(X, y, norm="l1" if direction == "l1_max_margin" else "l2")
    name = {"l2_max_margin": "the ℓ2 max-margin direction", "l1_max_margin": "the ℓ1 max-margin direction"}[direction]
    if solved.status == "failed":
        return _Target(name, None, False, message=f"the max-margin problem failed: {solved.message}")
    shape = (c.classes, -1) if c.classes else (1, -1)
    if solved.certificate is not None:
        matrix = np.array(solved.certificate.solution, dtype=object).reshape(shape)
        return _Target(name + " (exact certificate)", matrix, True,
                       solved.certificate.norm if direction == "l1_max_margin" else None)
    return _Target(name + f" (numeric: {solved.message})", np.asarray(solved.solution, dtype=float).reshape(shape),
                   False, solved.norm if direction == "l1_max_margin" else None)


def _l1_margin_gap(beta: np.ndarray, X: np.ndarray, y: np.ndarray, l1_norm: Any) -> Any:
    """min_i y_i⟨β, x_i⟩·‖β*‖₁ − ‖β‖₁: zero iff β attains the optimal ℓ1 margin 1/‖β*‖₁ (negative otherwise)."""
    values = E.canonical(y * (X @ beta))
    smallest = min(values, key=lambda v: float(v))
    for v in values:
        if E.sign(v - smallest) < 0:
            smallest = v
    norm = sum((v if E.sign(v) >= 0 else -v) for v in beta)
    return E.canonical([smallest * l1_norm - norm])[0]


def _direction_verdict(c: Construction, beta: np.ndarray, target: _Target, tolerance: float, rigorous: bool
                       ) -> _Outcome:
    """Is the predictor β (exact when ``rigorous``, else float) in the direction of the target?"""
    flat = beta.reshape(-1)
    figures: dict[str, Any] = {"predictor": _rounded(B.to_float(flat), 8)}
    if target.matrix is None:
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"no reference direction: {target.message}")
    if rigorous and np.all(E.signs(E.canonical(flat)) == 0) or not rigorous and not np.any(B.to_float(flat)):
        return _Outcome(Verdict.REFUTED, _rigorous(c) if rigorous else EvidenceKind.NUMERIC, "the end-to-end predictor "
                        "is 0: it has no direction", figures)
    evidence = _rigorous(c) if rigorous else EvidenceKind.NUMERIC
    if target.l1_norm is not None:
        if rigorous and target.exact:
            gap = _l1_margin_gap(flat, E.to_exact(c.inputs), E.to_exact(c.labels), target.l1_norm)
            figures["l1_margin_gap"] = _figure(gap)
            if E.sign(gap) == 0:
                return _Outcome(Verdict.CERTIFIED, evidence, f"the predictor attains the optimal ℓ1 margin "
                                f"1/‖β*‖₁ = {_show(E.canonical([1 / target.l1_norm])[0])}: it is an ℓ1 max-margin "
                                f"direction ({target.text})", figures)
            if c.exact:
                return _Outcome(Verdict.REFUTED, evidence, f"the predictor's ℓ1-normalized margin is below the optimum "
                                f"1/‖β*‖₁ = {_show(E.canonical([1 / target.l1_norm])[0])} ({target.text})", figures)
        Xf, yf, bf = B.to_float(c.inputs), B.to_float(c.labels), B.to_float(flat)
        margin = float(np.min(yf * (Xf @ bf))) / float(np.sum(np.abs(bf)))
        optimum = 1.0 / float(target.l1_norm)
        figures |= {"l1_margin": margin, "l1_optimum": optimum}
        verdict = Verdict.CONFIRMED if abs(margin - optimum) <= tolerance * optimum else Verdict.REFUTED
        return _Outcome(verdict, EvidenceKind.NUMERIC, f"ℓ1-normalized margin {margin:.8g} vs the optimum "
                        f"{optimum:.8g} ({target.text}; relative tolerance {tolerance:g})", figures)
    reference = target.matrix.reshape(-1)
    if rigorous and target.exact:
        parallel = len(E.independent_rows(E.canonical(np.stack([flat, reference])))) == 1
        positive = E.sign(E.canonical([E.dot(flat, reference)])[0]) > 0
        if parallel and positive:
            return _Outcome(Verdict.CERTIFIED, evidence, f"the end-to-end predictor is a positive multiple of "
                            f"{target.text} {_vector_text(reference)}", figures)
        if c.exact:
            why = "the opposite direction" if parallel else "not parallel to it"
            return _Outcome(Verdict.REFUTED, evidence, f"the end-to-end predictor {_vector_text(flat)} is {why} of "
                            f"{target.text} {_vector_text(reference)}", figures)
    bf, rf = B.to_float(flat), B.to_float(reference)
    angle = metrics.angle(bf, rf)
    figures |= {"angle": angle, "reference": _rounded(rf, 8)}
    verdict = Verdict.CONFIRMED if angle <= tolerance else Verdict.REFUTED
    relation = "≤" if angle <= tolerance else ">"
    return _Outcome(verdict, EvidenceKind.NUMERIC, f"angle between the end-to-end predictor and {target.text} "
                    f"{angle:.3g} rad {relation} tolerance {tolerance:g}", figures)


def check_predictor_direction(c: Construction, spec: PropertySpec) -> _Outcome:
    """The end-to-end linear predictor W_L⋯W_1 (β of a tensor network) is a positive multiple of the given vector
    or of the ℓ2 max-margin solution (exact SVM certificate), or attains the optimal ℓ1 margin."""
    target = _target(c, spec.options["direction"])
    beta = c.predictor(E.to_exact(c.theta))
    outcome = _direction_verdict(c, beta, target, float(spec.options.get("tolerance", RANK_TOLERANCE)), True)
    if c.biased:
        outcome = dataclasses.replace(outcome, detail=outcome.detail + " (the weights' product; biases are not part "
                                                                       "of the direction)")
    return outcome


# -- per-layer max margin ----------------------------------------------------------------------------------------
def check_layer_optimum(c: Construction, spec: PropertySpec) -> _Outcome:
    """With the other layers fixed, is layer l the minimum-norm solution of y_iΦ ≥ 1 (problem (4) of paper 001)?

    Convex QP when Φ is linear in the layer (linear networks, the last layer): certified exactly. Otherwise the
    local question is exact where the activation pattern of the later layers is frozen on active samples (the
    problem is then locally the linearized QP), else answered by local search; the global one by a search.
    """
    layer, scope = spec.options["layer"], spec.options.get("scope", "global")
    not_tight = _feasibility(c) or _slack(c, f"the layer {layer} parameters")
    if not_tight is not None:
        return not_tight
    theta, X, y = _exact_inputs(c)
    if "witness" in spec.options:
        return _layer_curve(c, spec, layer)
    restriction, u = kkt.restrict_to_layer(c.model, theta, layer - 1)
    float_restriction, _ = kkt.restrict_to_layer(c.float_model, B.to_float(theta), layer - 1)
    linear = c.linear or layer == len(c.model.sizes)
    if linear:
        return _layer_qp(c, restriction, u, X, y, range(len(y)), layer, "its margin constraints are linear in it")
    frozen = _frozen_later_pattern(c, theta, X, y, layer)
    if frozen is not None:
        local = _layer_qp(c, restriction, u, X, y, frozen, layer,
                          "the activation pattern after it is frozen on the active samples, so locally the problem "
                          "is the QP of the linearized active constraints", local=True)
    else:
        search = _search(restriction, float_restriction, u, X, y, tuple(spec.options.get("radii", DEFAULT_RADII)),
                         LOCAL_STARTS)
        if search.all_certified:
            local = _Outcome(Verdict.REFUTED, _rigorous(c), f"layer {layer} is not a local minimum of its problem: "
                             f"certified better points at {search.summary()} (only layer {layer} changes)",
                             _search_figures(search))
        elif search.clean_radius is not None:
            local = _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"layer {layer}: no better point found within "
                             f"radius {search.clean_radius:g} (local search at a kink of the later layers; numeric)",
                             _search_figures(search))
        else:
            local = _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"layer {layer}: {search.summary()}",
                             _search_figures(search))
    if scope == "local" or local.verdict in (Verdict.REFUTED, Verdict.INCONCLUSIVE):
        return local
    if layer == 1 and global_optimum.supports(c.model):
        return _layer_patterns(c, local, u)
    starts = int(spec.options.get("starts", DEFAULT_STARTS))
    radius = _search_ball_radius(c, float_restriction, u)
    search = _search(restriction, float_restriction, u, X, y, (radius,), starts)
    witness = search.witnesses[0]
    figures = local.figures | {"global_starts": starts, "global_radius": radius}
    if witness is not None:
        figures["better_layer"] = _rounded(B.to_float(witness.point), 8)
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"layer {layer} is {local.verdict.value} as a local minimum "
                        f"but not global: ‖u'‖² = {float(witness.squared_norm):.8g} < "
                        f"{float(witness.reference_squared_norm):.8g} "
                        f"for a feasible u' (found by a {starts}-start search, certified exactly)", figures)
    return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"{local.detail}; no better layer found by a "
                    f"{starts}-start global search (numeric)", figures)


def _layer_curve(c: Construction, spec: PropertySpec, layer: int) -> _Outcome:
    """A witness curve that changes only this layer: certified, it proves the layer is not a local minimum of its
    own problem (the other layers, and so their norm, stay fixed)."""
    theta, X, y = _exact_inputs(c)
    if not _second_order_supported(c):
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, "no verdict: witness curves are certified for "
                        "ReLU and linear networks only (the leaky ReLU signs along the curve are not resolved)")
    curve = np.array(spec.options["witness"], dtype=object)
    block = kkt.restrict_to_layer(c.model, theta, layer - 1)[0].block
    outside = np.ones(len(theta), dtype=bool)
    outside[block] = False
    moved = [k for k in np.flatnonzero(outside) if sympy.simplify(curve[k] - theta[k]) != 0]
    if moved:
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"the witness curve changes parameters outside "
                        f"layer {layer} (entries {moved} of θ)")
    result = _witness_curve(c.model, theta, X, y, curve, spec.options["eps_max"])
    figures = {"curve_margins": ", ".join(map(str, result.margins)), "curve_improvement": str(result.improvement),
               "curve_distance_squared": str(result.distance_squared)}
    if result.certified:
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"layer {layer} is not a local minimum of its max-margin "
                        f"problem (only layer {layer} moves): {result.message}", figures)
    return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"the witness curve fails: {result.message}", figures)


def _layer_patterns(c: Construction, local: _Outcome, u: np.ndarray) -> _Outcome:
    """The first layer of a depth-2 ReLU network: its problem's global optimum by activation patterns
    (``numerics.global_optimum.layer_global_optimum``), bracketed exactly."""
    theta, X, y = _exact_inputs(c)
    squared = E.dot(u, u)
    slack = 0 if c.exact else FLOAT_TOLERANCE * float(squared)
    result, bracket = _enumerate_patterns(
        lambda bounds: global_optimum.layer_global_optimum(c.model, theta, X, y, bounds=bounds), squared, slack)
    figures = local.figures | {"layer_optimum_upper": _figure(result.upper), "layer_programs": result.programs}
    if result.lower is not None:
        figures["layer_optimum_lower"] = _figure(result.lower)
    if _beats(result.upper, squared, slack):
        figures["better_layer"] = _rounded(B.to_float(result.point), 8)
        return _Outcome(Verdict.REFUTED, _rigorous(c), f"layer 1 is {local.verdict.value} as a local minimum but not "
                        f"global: its problem's optimum {bracket} < ‖u‖² = {_show(squared)} ({result.message})",
                        figures)
    if result.lower is not None and E.sign(result.lower - squared) >= 0:
        return _Outcome(local.verdict, local.evidence, f"{local.detail}; and a global one: optimum {bracket} "
                        f"({result.message})", figures)
    if abs(result.value - float(squared)) <= FLOAT_TOLERANCE * max(1.0, float(squared)):
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"{local.detail}; the enumeration gives the "
                        f"optimum {bracket}, ‖u‖² up to the tolerance {FLOAT_TOLERANCE:g} ({result.message})", figures)
    return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"{local.detail}; but the enumeration neither proves "
                    f"nor refutes global optimality: optimum {bracket}, solver value {result.value:.12g} vs ‖u‖² = "
                    f"{float(squared):.12g} ({result.message})", figures)


def _frozen_later_pattern(c: Construction, theta: np.ndarray, X: np.ndarray, y: np.ndarray, layer: int
                          ) -> list[int] | None:
    """The active samples if none has a zero pre-activation in hidden layers ≥ ``layer``; None otherwise."""
    q = E.canonical(kkt.margins(c.model, theta, X, y))
    active = [i for i in range(len(q)) if E.sign(q[i] - 1) == 0] if c.exact else \
        [i for i in range(len(q)) if float(q[i]) - 1 <= KKT_TOLERANCE]
    later = c.model.preactivations(theta, X)[layer - 1:]
    for z in later:
        rows = z[active]
        zero = E.signs(rows) == 0 if c.exact else np.abs(B.to_float(rows)) <= KKT_TOLERANCE
        if np.any(zero):
            return None
    return active


def _layer_qp(c: Construction, restriction: kkt.LayerRestriction, u: np.ndarray, X: np.ndarray, y: np.ndarray,
              samples: Any, layer: int, why: str, local: bool = False) -> _Outcome:
    """Compare u with the minimum-norm solution of c_iᵀu ≥ 1, c_i = y_i ∂Φ/∂u (exact QP certificate)."""
    samples = list(samples)
    C = y[samples, None] * restriction.jacobian(u, X[samples])[:, 0, :]
    solved = max_margin(C, np.array([sympy.Integer(1)] * len(samples), dtype=object))
    scope = "local" if local else "global"
    squared = E.canonical([E.dot(u, u)])[0]
    if solved.status == "failed":
        return _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC, f"layer QP failed: {solved.message}")
    if solved.certificate is None:
        return _compare_numeric(float(squared), solved.norm**2, "the layer QP optimum", solved)
    optimum = E.canonical([solved.certificate.norm**2])[0]
    gap = E.canonical([squared - optimum])[0]
    figures = {"layer_squared_norm": _figure(squared), "layer_optimum": _figure(optimum),
               "layer_multipliers": _vector_text(solved.certificate.duals)}
    if E.sign(gap) == 0:
        return _Outcome(Verdict.CERTIFIED, _rigorous(c), f"layer {layer} is a {scope} minimum of its max-margin "
                        f"problem: {why}, and ‖u‖² = {_show(squared)} is its optimum (exact QP certificate)", figures)
    if not c.exact and abs(float(gap)) <= FLOAT_TOLERANCE * max(1.0, float(optimum)):
        return _Outcome(Verdict.CONFIRMED, EvidenceKind.NUMERIC, f"layer {layer} is a {scope} minimum of its "
                        f"max-margin problem up to rounding: {why}, and ‖u‖² = {float(squared):.12g} equals its "
                        f"optimum {float(optimum):.12g} (QP certified on the binary values)", figures)
    return _Outcome(Verdict.REFUTED, _rigorous(c), f"layer {layer} is not a {scope} minimum of its max-margin "
                    f"problem: {why}, whose optimum {_show(optimum)} < ‖u‖² = {_show(squared)} (exact QP certificate"
                    f"{'; the segment towards the optimum improves arbitrarily close' if local else ''})", figures)


# -- driver ------------------------------------------------------------------------------------------------------
CHECKERS: dict[str, Callable[[Construction, PropertySpec], _Outcome]] = {
    "feasible": check_feasible, "kkt": check_kkt, "local_optimum": check_local_optimum,
    "global_optimum": check_global_optimum, "gf_limit": check_gf_limit, "rank": check_rank,
    "stable_rank": check_stable_rank, "layer_optimum": check_layer_optimum, "aligned": check_aligned,
    "predictor_direction": check_predictor_direction,
}


def check_property(c: Construction, spec: PropertySpec) -> PropertyResult:
    start = time.perf_counter()
    try:
        with one_thread():  # tiny dense problems: extra BLAS threads only add overhead
            outcome = CHECKERS[spec.check](c, spec)
    except (ValueError, ArithmeticError, NotImplementedError, np.linalg.LinAlgError) as exc:
        # An engine refused this input (degenerate data, a zero matrix, a solver failure): say so.
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        outcome = _Outcome(Verdict.INCONCLUSIVE, EvidenceKind.NUMERIC,
                           f"could not decide: {type(exc).__name__}: {first_line}")
    name = f"{spec.check} (layer {spec.options['layer']})" if "layer" in spec.options else spec.check
    figures = {key: _figure(value) for key, value in outcome.figures.items()}
    detail = " ".join(outcome.detail.split())
    return PropertyResult(name, outcome.verdict, spec.expect, outcome.evidence, detail, figures,
                          time.perf_counter() - start, spec.where)


def check_construction(source: str | Path | Mapping[str, Any]) -> CheckReport:
    """Load a construction (path to .toml/.json, or a parsed document) and check every property it lists.

    Raises :class:`verify.construction.ConstructionError` on bad input.
    """
    start = time.perf_counter()
    construction = load_construction(source)
    results = tuple(check_property(construction, spec) for spec in construction.properties)
    return CheckReport(construction.origin, construction.title, construction.source, construction.architecture,
                       construction.loss, construction.exact, results, time.perf_counter() - start)
