"""Paper 001's constructions as shared objects: their files, the checker's verdicts as evidence, the parametric
families of Remark 3.1, the normalized gradient flow, the exponential-integral closed forms of the
one-dimensional reductions, and the loss thresholds behind the hypothesis "L(θ(t₀)) < 1".

Single source of every construction: its file in ``examples/constructions/`` (data, the KKT point θ̃, θ(0), the
witness curve). :func:`document` returns a file's parsed content for variants (another point, activation or
input), :func:`construction` the validated object, :func:`report` the checker's answer (cached: several claims
ask for the same one). Families are documents in the same format built from a file.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import sympy

from numerics import exact as E
from numerics import kkt
from numerics.exact import Exact
from numerics.flows import GradientFlow, Trajectory
from numerics.losses import Objective
from numerics.metrics import angle
from numerics.networks import scalar_outputs
from numerics.threads import one_thread
from numerics.tolerances import at_most
from verify import Context
from verify.claim import Criterion, Decision, EvidenceKind, Verdict, tightness
from verify.construction import Construction, load_construction

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "constructions"
FILES = {
    "thm3.2": "margin_thm3_2.toml",
    "thm4.1-linear": "margin_thm4_1_linear.toml",
    "thm4.1-relu": "margin_thm4_1_relu.toml",
    "thm4.2.2": "margin_thm4_2.toml",
    "thm4.4-relu": "margin_thm4_4_relu.toml",
    "thm4.4-linear": "margin_thm4_4_linear.toml",
    "thm4.4-float": "margin_thm4_4_float.json",
    "thm5.1-depth3": "margin_thm5_1_depth3.toml",
    "thm5.1-depth4": "margin_thm5_1_depth4.toml",
    "thm5.1-depth5": "margin_thm5_1_depth5.toml",
    "thm5.1-depth10": "margin_thm5_1_depth10.toml",
    "thm5.3": "margin_thm5_3.toml",
    "lemC.6": "margin_thm4_3_lemC6.toml",
    "rem3.1": "margin_rem3_1_delta.toml",
    "lemC.6-delta": "margin_lemC6_delta.toml",
}
THM51_DEPTHS = (3, 4, 5, 10)  # the depths checked for Theorem 5.1 (instances)
LOSSES = ("exponential", "logistic")
FLOW_RTOL = 1e-8  # normalized flow (LSODA): R(θ) at ‖θ‖ = 300 agrees with rtol 1e-10 to ~1e-12
RIGOROUS = (EvidenceKind.EXACT, EvidenceKind.INTERVAL, EvidenceKind.SYMBOLIC)
ENCLOSURE_DPS = 50  # digits of the interval enclosures of losses and thresholds (rigorous at any precision)
mpmath.iv.dps = max(mpmath.iv.dps, ENCLOSURE_DPS)


# -- the construction files ------------------------------------------------------------------------------------
def document(name: str) -> dict[str, Any]:
    """The parsed content of a paper construction file (a fresh copy: callers may edit it)."""
    path = EXAMPLES / FILES[name]
    return json.loads(path.read_text()) if path.suffix == ".json" else tomllib.loads(path.read_text())


@functools.cache
def construction(name: str) -> Construction:
    """The validated construction of a paper file (exact data, θ̃, and θ(0) in floats)."""
    return load_construction(EXAMPLES / FILES[name])


@functools.cache
def report(name: str) -> Any:
    """``verify check`` on a paper file (a ``verify.checker.CheckReport``; cached)."""
    return check(EXAMPLES / FILES[name])


def check(source: Mapping[str, Any] | Path) -> Any:
    """``verify check`` on a document or a file."""
    from verify.checker import check_construction  # on use: the checker loads cvxpy and the KKT tools

    return check_construction(source)


def check_construction_object(doc: Mapping[str, Any]) -> Construction:
    """The validated construction of a document (exact model, data and θ)."""
    return load_construction(doc)


def with_properties(doc: Mapping[str, Any], *properties: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a document that checks only the given properties."""
    out = copy.deepcopy(dict(doc))
    out["properties"] = [dict(p) for p in properties]
    return out


def with_parameters(doc: Mapping[str, Any], layers: Sequence[Any]) -> dict[str, Any]:
    """A copy of a document at another point θ (given layer by layer, as in the file format)."""
    out = copy.deepcopy(dict(doc))
    out["parameters"] = {"layers": copy.deepcopy(list(layers))}
    return out


def result(rep: Any, check_name: str, layer: int | None = None, occurrence: int = 0) -> Any:
    """The ``occurrence``-th property result of a report with this check (and layer)."""
    name = check_name if layer is None else f"{check_name} (layer {layer})"
    matches = [r for r in rep.results if r.name == name]
    if len(matches) <= occurrence:
        raise KeyError(f"{rep.origin}: no property {name!r} number {occurrence}")
    return matches[occurrence]


def holds(res: Any) -> bool | None:
    """The property holds (True), fails (False), or is undecided (None)."""
    if res.verdict in (Verdict.CERTIFIED, Verdict.CONFIRMED):
        return True
    return False if res.verdict is Verdict.REFUTED else None


# -- the checker's answers as criteria -------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    """A construction document as a criterion argument: shown by its label, told apart by its content."""

    label: str
    text: str  # the document as canonical JSON

    def __repr__(self) -> str:
        return f"{self.label} #{hashlib.sha256(self.text.encode()).hexdigest()[:8]}"

    @property
    def doc(self) -> dict[str, Any]:
        return json.loads(self.text)


def source(name: str) -> Source:
    """A paper construction file as a criterion argument."""
    return edited(FILES[name], document(name))


def edited(label: str, doc: Mapping[str, Any]) -> Source:
    """An edited document (another point, data or activation) as a criterion argument."""
    return Source(label, json.dumps(doc, sort_keys=True, default=str))


@functools.cache
def checked(src: Source) -> Any:
    """``verify check`` on a source (cached: several claims and controls ask for the same one)."""
    return check(src.doc)


@functools.cache
def built(src: Source) -> Construction:
    """The validated construction of a source."""
    return load_construction(src.doc)


def resolve(name: str | Source) -> Construction:
    """The construction of a paper file (by name) or of a source, validated."""
    return construction(name) if isinstance(name, str) else built(name)


def _property_result(src: Source, prop: str) -> Any:
    name, _, occurrence = prop.partition(" #")
    return result(checked(src), name, occurrence=int(occurrence) - 1 if occurrence else 0)


def _property_as_asserted(construction: Source, prop: str, asserts: bool) -> Decision:
    res = _property_result(construction, prop)
    decided = holds(res)
    detail = f"{res.name}: {res.verdict.value} ({res.evidence.value}): {res.detail}"
    figures = dict(res.figures) | {"seconds": round(res.seconds, 3), "checker_evidence": res.evidence.value}
    return Decision(None if decided is None else decided == asserts, detail, figures)


PROPERTY = Criterion("verify check decides the property as the statement asserts", _property_as_asserted)


def record(ctx: Context, name: str, src: Source, prop: str, asserts: bool, conclusion: str) -> bool:
    """A checker property (``"kkt"``, ``"layer_optimum (layer 1)"``, ``"local_optimum #2"`` for the second one) as
    evidence for a conclusion asserting that it holds (``asserts``) or fails: a proof when the checker's evidence is
    exact/interval, else numeric support; a rigorous disagreement is a counterexample. Returns agreement."""
    application = PROPERTY(src, prop, asserts)
    kind = application.decision.figures.get("checker_evidence", "numeric")
    rigorous = kind in {k.value for k in RIGOROUS}
    if application.holds is False and rigorous:
        ctx.counterexample(name, kind, PROPERTY(src, prop, not asserts), conclusion=conclusion)
    elif rigorous:
        ctx.prove(name, kind, application, conclusion=conclusion)
    else:
        ctx.support(name, "numeric", application, conclusion=conclusion)
    return bool(application)


def record_report(ctx: Context, prefix: str, src: Source, asserted: Mapping[str, bool],
                  conclusions: Mapping[str, str]) -> bool:
    """Every listed property of a source's report as evidence: ``asserted`` maps property keys (``"kkt"``,
    ``"layer_optimum (layer 1)"``, …; repeated names get ``#2``, ``#3``) to what the statement asserts,
    ``conclusions`` maps each check name (``"kkt"``, ``"layer_optimum"``) to the conclusion it bears on."""
    seen: dict[str, int] = {}
    agree = True
    for res in checked(src).results:
        seen[res.name] = seen.get(res.name, 0) + 1
        key = res.name if seen[res.name] == 1 else f"{res.name} #{seen[res.name]}"
        if key in asserted:
            base = res.name.split(" (layer")[0]
            agree &= record(ctx, f"{prefix}: {key}", src, key, asserted[key], conclusions[base])
    return agree


def control_property(ctx: Context, name: str, src: Source, prop: str, asserts: bool, change: str) -> bool:
    """A negative control: the same checker criterion on a perturbed construction, rejected when the checker
    decides against the assertion there."""
    return ctx.control(name, PROPERTY(src, prop, asserts), change)


# -- Remark 3.1's families ---------------------------------------------------------------------------------------
def delta_family_document(delta: Any, third_point: bool = False) -> dict[str, Any]:
    """x1 = (1, δ), x2 = (−1, δ) (Theorem 3.2 at δ = 1/4) or with x3 = (0, −1) (Lemma C.6 at δ = 1/4), from the
    files at δ = 1/20. GF's KKT point: neuron 1 = (0, c) with output c = 1/√δ (plus neuron 2 = (0, −1) with
    output 1). The witness curve (no third point) is Theorem 3.2's for general δ:
    w1' = (ε√δ, (1 − ε)/√δ), w2' = (−√(2ε), 0), v' = (1/√δ, √(2ε)): both margins stay exactly 1 and
    ‖θ̃‖² − ‖θ'‖² = ε(2/δ − 4) − ε²(δ + 1/δ) > 0 for 0 < ε ≤ 1/4 when δ ≤ 1/4."""
    d = str(sympy.Rational(delta))
    out = document("lemC.6-delta" if third_point else "rem3.1")
    out["data"]["inputs"] = [[1, d], [-1, d]] + ([[0, -1]] if third_point else [])
    c = f"1/sqrt({d})"
    out["parameters"]["layers"] = [[[0, c], [0, -1]], [[c, 1]]] if third_point else [[[0, c], [0, 0]], [[c, 0]]]
    for prop in out["properties"]:
        if "witness" in prop:
            prop["witness"] = {"eps_max": "1/4", "layers": [[[f"eps*sqrt({d})", f"(1 - eps)/sqrt({d})"],
                                                            ["-sqrt(2*eps)", 0]], [[c, "sqrt(2*eps)"]]]}
    out["title"] = out["title"].replace("1/20", d)
    return out


def diagonal_family_document(second: Any) -> dict[str, Any]:
    """Theorem 4.1 with x = (1, X₂), X₂ > 1 (the paper's X₂ = 2): the KKT point w1 = w2 = (1, 0) stays, with the
    curve w' = (√(1 − ε), √(ε/X₂)) in both layers (margin 1, ‖θ'‖² = 2 − 2ε(1 − 1/X₂))."""
    x2 = str(sympy.Rational(second))
    out = document("thm4.1-linear")
    out["data"]["inputs"] = [[1, x2]]
    for prop in out["properties"]:
        if "witness" in prop:
            row = ["sqrt(1 - eps)", f"sqrt(eps/{x2})"]
            prop["witness"] = {"eps_max": "1/2", "layers": [row, [row]]}
    return out


def patches_family_document(a: Any, activation: str = "relu") -> dict[str, Any]:
    """Theorem 4.4 with x = (a, 1/√2, −a, 1/√2), a ≥ 1 (the paper's a = 4): θ̃ = [w = (0, 1), v = (1/√2, 1/√2)]
    and the paper's curve: margin 1 + (a − 1)ε for the linear network and ‖θ'‖² = 2 − ε/2 + ε², so the file's
    ε0 = 1/4 serves every a; for ReLU ε0 = 1/(4(a² + 1)) keeps the second patch on (−a√ε + (1 − ε)/√2 > 0)."""
    a = sympy.Rational(a)
    out = document("thm4.4-relu" if activation == "relu" else "thm4.4-linear")
    out["data"]["inputs"] = [[str(a), "1/sqrt(2)", str(-a), "1/sqrt(2)"]]
    if activation == "relu":
        for prop in out["properties"]:
            if "witness" in prop:
                prop["witness"]["eps_max"] = str(1 / (4 * (a**2 + 1)))
    return out


# -- losses and the hypothesis "L < 1" ---------------------------------------------------------------------------
def _interval(value: Any, dps: int) -> Any:
    """A rigorous mpmath interval around an exact (rational or algebraic) number."""
    value = sympy.sympify(value)
    if value.is_Rational:
        return mpmath.iv.mpf(int(value.p)) / int(value.q)
    with mpmath.workdps(dps + 10):  # at the default 53 bits approx and approx ± radius would round to one double
        approx = mpmath.mpf(str(sympy.N(value, dps + 10)))
        radius = (abs(approx) + 1) * mpmath.mpf(10) ** (-dps)
        return mpmath.iv.mpf([approx - radius, approx + radius])


def loss_enclosure(loss: str, margins: Sequence[Any], dps: int = ENCLOSURE_DPS) -> Any:
    """Σ_i ℓ(q_i) as an mpmath interval (rigorous) for exact margins q_i."""
    total = mpmath.iv.mpf(0)
    for q in margins:
        value = _interval(q, dps)
        total += mpmath.iv.exp(-value) if loss == "exponential" else mpmath.iv.log(1 + mpmath.iv.exp(-value))
    return total


def separation_threshold(loss: str) -> Any:
    """ℓ(0) as an mpmath interval: L < ℓ(0) forces every margin to be positive (ℓ is decreasing); it is 1 for
    the exponential loss and log 2 for the logistic loss (not 1, as the gloss of Thm 2.1 has it)."""
    return mpmath.iv.mpf(1) if loss == "exponential" else mpmath.iv.log(mpmath.iv.mpf(2))


def strictly_below(upper_of: Any, lower_of: Any) -> bool:
    """Interval comparison: every point of the first interval is below every point of the second."""
    return bool(upper_of.b < lower_of.a)


# -- normalized gradient flow ----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class FlowLimit:
    """A normalized (arc-length) gradient flow stopped at ‖θ‖ = ``norm``, and its margin-1 rescaling θ̂."""

    trajectory: Trajectory
    final: np.ndarray
    rescaled: np.ndarray  # θ̂ = θ / q_min^{1/L}
    cost: float  # R(θ) = ‖θ̂‖²
    first_order: kkt.KKTResult  # at θ̂, float, tolerance ``kkt_tol``
    settling: float  # angle between θ(s) and θ(s/3): the direction's change over the last two thirds
    kkt_tol: float  # the tolerance of ``first_order`` (active set, residuals)

    @property
    def multipliers(self) -> np.ndarray:
        return np.asarray(self.first_order.multipliers, dtype=float)


def normalized_flow(model: Any, X: np.ndarray, y: np.ndarray, theta0: np.ndarray, loss: str, norm: float = 300.0,
                    rtol: float = FLOW_RTOL, method: str = "LSODA", kkt_tol: float = 1e-3,
                    max_evaluations: int = 1_000_000) -> FlowLimit:
    """Gradient flow of Σ ℓ(y_iΦ(θ; x_i)) from θ(0), integrated in arc length (dθ/ds = −∇L/‖∇L‖, the same curve;
    margins grow like log t in real time) until ‖θ‖ = ``norm``; then θ̂, R(θ) and the KKT multipliers at θ̂.
    Several active margins make the normalized field stiff: LSODA, or BDF (cheapest at loose tolerances).
    ``max_evaluations`` bounds the cost (flows chattering across kinks can take minutes): past it the trajectory's
    status is ``evaluation_limit``."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    flow = GradientFlow(Objective(model, X, y, loss))
    with one_thread():  # implicit steps solve tiny linear systems: extra BLAS threads only cost time
        trajectory = flow.solve(np.asarray(theta0, dtype=float), math.inf, clock="arclength", method=method,
                                rtol=rtol, atol=rtol * 1e-2, stop=[lambda t, th: norm - float(np.linalg.norm(th))],
                                max_evaluations=max_evaluations)
    final = trajectory.final
    rescaled = kkt.rescale_to_margin(model, final, X, y)
    norms = np.linalg.norm(trajectory.theta, axis=1)
    third = trajectory.theta[int(np.argmin(np.abs(norms - norms[-1] / 3)))]
    return FlowLimit(trajectory, final, rescaled, float(rescaled @ rescaled),
                     kkt.kkt_check(model, rescaled, X, y, tol=kkt_tol), angle(third, final), kkt_tol)


def flow_of(name: str, loss: str | None = None, theta0: np.ndarray | None = None, norm: float = 300.0) -> FlowLimit:
    """The normalized flow of a paper construction from its own θ(0) (or ``theta0``), with its loss (or ``loss``)."""
    c = construction(name)
    start = c.theta0 if theta0 is None else theta0
    return normalized_flow(c.float_model, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float), start,
                           loss or c.loss, norm)


# -- closed forms of the one-dimensional reductions -------------------------------------------------------------
def ei_potential(q: Any, loss: str) -> Any:
    """F(q) with dF/dq = 1/(q·r(q)), r = −ℓ': Ei(q) (exponential), log q + Ei(q) (logistic). A reduction
    q' = κ q r(q) then integrates to F(q(t)) = F(q(0)) + κ t."""
    return mpmath.ei(q) if loss == "exponential" else mpmath.log(q) + mpmath.ei(q)


EI_DPS = 40  # digits of the closed form's root (compared in floats)


def ei_margin(q0: Any, rate: Any, t: Any, loss: str, dps: int = EI_DPS) -> mpmath.mpf:
    """The solution q(t) of q' = κ q r(q), q(0) = q0 > 0.5: F(q(t)) = F(q0) + κt, inverted on the log scale (an
    absolute tolerance on F fails for astronomically large targets)."""
    with mpmath.workdps(dps):
        q0, rate, t = (mpmath.mpf(sympy.Rational(v).p) / sympy.Rational(v).q if isinstance(v, sympy.Rational)
                       else mpmath.mpf(v) for v in (q0, rate, t))
        target = ei_potential(q0, loss) + rate * t
        if target <= 0:
            raise ValueError("the closed form needs F(q0) > 0 (q0 above ≈ 0.5)")
        guess = max(q0, mpmath.log(target) + mpmath.log(max(mpmath.log(target), 1)))
        return mpmath.findroot(lambda q: mpmath.log(ei_potential(q, loss)) - mpmath.log(target), guess)


CLOSED_FORM_TIMES = (1.0, 10.0, 100.0, 1e4, 1e8, 1e12)  # real times where the flow meets the closed form
CLOSED_FORM_TOLERANCE = 1e-7  # relative; the log-clock flow (LSODA, rtol 1e-10) agrees to ~1e-9


@dataclass(frozen=True)
class ClosedFormAgreement:
    """A margin of a construction's real-time gradient flow against F(q(t)) = F(q(0)) + κt."""

    worst: float  # max relative deviation over the times
    times: tuple[float, ...]  # the real times compared
    margins: tuple[float, ...]  # the flow's margin at each time
    closed: tuple[float, ...]  # the closed form at each time
    evaluations: int

    @property
    def agrees(self) -> bool:
        return at_most(self.worst, CLOSED_FORM_TOLERANCE)


def closed_form_agreement(name: str, sample: int, start: Any, rate: Any, loss: str,
                          times: Sequence[float] = CLOSED_FORM_TIMES) -> ClosedFormAgreement:
    """Integrate the construction's gradient flow in real time (log clock) from its θ(0) and compare the margin
    of ``sample`` with the solution of q' = κ q r(q), q(0) = ``start`` (``rate`` = κ)."""
    c = construction(name)
    objective = Objective(c.float_model, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float), loss)
    with one_thread():
        run = GradientFlow(objective).solve(c.theta0, times[-1], clock="log", t_eval=np.asarray(times))
    margins = tuple(float(objective.margins(theta)[sample]) for theta in run.theta)
    closed = tuple(float(ei_margin(sympy.Rational(start), rate, t, loss)) for t in run.t)
    worst = max(abs(q - e) / e for q, e in zip(margins, closed))
    return ClosedFormAgreement(worst, tuple(float(t) for t in times), margins, closed, run.nfev)


# -- evidence about a construction's flow and limit point -------------------------------------------------------
SLOPES = (sympy.Integer(0), sympy.Rational(1, 2), sympy.Integer(1))  # σ'(0) choices
PERTURBATION = 1e-6  # the symmetric initializations are knife-edge
LIMIT_TOLERANCE = 1e-4  # R(θ) and θ̂ at ‖θ‖ = 1000 (directions settle like 1/‖θ‖² when margins differ, Lemma C.6)


def frozen_coordinates(model, theta: np.ndarray, X: np.ndarray, coordinates: list[int]) -> bool:
    """The gradient of every margin vanishes in ``coordinates`` at θ, exactly, for every σ'(0) in SLOPES (the
    flow never moves them while they keep these values)."""
    for slope in SLOPES:
        variant = dataclasses.replace(model, relu_slope_at_zero=slope)
        J = variant.jacobian(E.to_exact(theta), E.to_exact(X))[:, 0, :]
        if np.any(E.signs(E.canonical(J[:, coordinates])) != 0):
            return False
    return True


def flow_stays_on_ray(model, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> bool:
    """At θ all margins are equal, so −∇L ∝ Σ_i ∇q_i; if that is a multiple of θ for every σ'(0), the flow stays
    on the ray of θ (exactly, by uniqueness, and by homogeneity for every point of the ray)."""
    theta, X, y = E.to_exact(theta), E.to_exact(X), E.to_exact(y)
    q = E.canonical(y * scalar_outputs(model, theta, X))
    if np.any(E.signs(E.canonical(q - q[0])) != 0):
        return False
    for slope in SLOPES:
        variant = dataclasses.replace(model, relu_slope_at_zero=slope)
        g = E.canonical((y[:, None] * variant.jacobian(theta, X)[:, 0, :]).sum(axis=0))
        k = int(np.flatnonzero(E.signs(theta) != 0)[0])
        if np.any(E.signs(E.canonical(g - g[k] / theta[k] * theta)) != 0):
            return False
    return True


def nonzero_inputs(model, theta: np.ndarray, X: np.ndarray) -> bool:
    """Every hidden pre-activation of every sample is non-zero (exactly)."""
    return all(np.all(E.signs(E.canonical(z)) != 0) for z in model.preactivations(E.to_exact(theta), E.to_exact(X)))


def nonzero_incoming(model, theta: np.ndarray) -> bool:
    """Every hidden neuron of the first layer has a non-zero incoming weight vector."""
    W = model.matrices(E.to_exact(theta))[0]
    return all(np.any(E.signs(row) != 0) for row in W)


def _at(construction: Source) -> tuple[Any, np.ndarray, np.ndarray]:
    c = built(construction)
    return c.model, c.X, c.Y


FROZEN = Criterion("every margin's gradient vanishes in these coordinates at θ, for σ'(0) ∈ {0, 1/2, 1} (exact)",
                   lambda construction, theta, coordinates: frozen_coordinates(_at(construction)[0], theta,
                                                                               _at(construction)[1],
                                                                               list(coordinates)))
RAY = Criterion("equal margins and Σ_i y_i∇Φ(θ; x_i) ∝ θ for σ'(0) ∈ {0, 1/2, 1} (exact): the flow stays on the "
                "ray of θ", lambda construction, theta: flow_stays_on_ray(*_at(construction)[:1], theta,
                                                                          *_at(construction)[1:]))
NONZERO_INPUTS = Criterion("every hidden pre-activation is non-zero at θ (exact)",
                           lambda construction, theta: nonzero_inputs(_at(construction)[0], theta,
                                                                      _at(construction)[1]))
NONZERO_INCOMING = Criterion("every first-layer neuron has a non-zero incoming weight vector at θ (exact)",
                             lambda construction, theta: nonzero_incoming(_at(construction)[0], theta))


@functools.cache
def _agreement(name: str, sample: int, start: str, rate: int, loss: str) -> ClosedFormAgreement:
    return closed_form_agreement(name, sample, start, rate, loss)


def _closed_form_matches(construction: str, sample: int, start: str, rate: int, loss: str,
                         tolerance: float) -> Decision:
    agreement = _agreement(construction, sample, start, rate, loss)
    times = ", ".join(f"{t:.12g}" for t in agreement.times)
    return Decision(at_most(agreement.worst, tolerance),
                    f"F(q(t)) = F({start}) + {rate}t with F = {'Ei' if loss == 'exponential' else 'log + Ei'}: the "
                    f"network's real-time flow (log clock) matches at t = {times} to {agreement.worst:.1e} "
                    f"(relative; threshold {tolerance:g}; closed form solved at {EI_DPS} digits)",
                    {"worst": agreement.worst, "tolerance": tolerance, "q_at_1e12": agreement.margins[-1],
                     "evaluations": agreement.evaluations})


CLOSED_FORM = Criterion("the real-time flow's margin follows F(q(t)) = F(q(0)) + κt", _closed_form_matches)


def nudged(theta: np.ndarray) -> np.ndarray:
    """θ with its first zero entry set to 1/2 (or its first entry raised by 1/2): a control point off the ray."""
    out = np.array(E.to_exact(theta), dtype=object)
    zeros = np.flatnonzero(E.signs(out) == 0)
    k = int(zeros[0]) if len(zeros) else 0
    out[k] = out[k] + sympy.Rational(1, 2)
    return out


def record_ray(ctx: Context, name: str, conclusion: str, control: bool = True, exact_start: bool = False) -> None:
    """The flow from the file's θ(0) stays on its ray (exact); the control asks the same at a nudged θ(0).
    ``exact_start``: θ(0) is θ̃ itself (the file's θ(0) is its float rounding)."""
    src, c = source(name), construction(name)
    theta0 = E.to_exact(c.theta if exact_start else c.theta0)
    ctx.prove(f"{name}: the flow stays on the ray of θ(0)", "exact", RAY(src, theta0),
              "Σ_i ∇q_i(θ(0)) is a multiple of θ(0) with equal margins, exactly", conclusion=conclusion)
    if control:
        ctx.control(f"{name}: ray invariance at a nudged θ(0)", RAY(src, nudged(theta0)),
                    "another initialization: one entry of θ(0) moved by 1/2")


def record_closed_forms(ctx: Context, name: str, reductions: list[tuple[str, int, str, int]], conclusion: str) -> None:
    """Each reduction (what, sample, q(0), κ): the real-time flow's margin against F(q(t)) = F(q(0)) + κt for
    both losses, with the control κ → 2κ rejected by the same criterion."""
    for what, sample, start, rate in reductions:
        for loss in LOSSES:
            ctx.support(f"closed form of {what} ({loss})", "numeric",
                        CLOSED_FORM(name, sample, start, rate, loss, CLOSED_FORM_TOLERANCE), conclusion=conclusion)
        ctx.control(f"closed form of {what} with rate {2 * rate}",
                    CLOSED_FORM(name, sample, start, 2 * rate, "exponential", CLOSED_FORM_TOLERANCE),
                    f"wrong rate: κ = {rate} → {2 * rate}")


def _loss_below_zero_loss(loss: str, margins: tuple[str, ...]) -> Decision:
    value = loss_enclosure(loss, [sympy.sympify(q) for q in margins])
    threshold = separation_threshold(loss)
    return Decision(strictly_below(value, threshold),
                    f"Σℓ(q_i) ∈ [{float(value.a):.6f}, {float(value.b):.6f}] against ℓ(0) ∈ "
                    f"[{float(threshold.a):.6f}, {float(threshold.b):.6f}] (interval arithmetic at "
                    f"{mpmath.iv.dps} digits, margins enclosed to ±(|q| + 1)·1e-{ENCLOSURE_DPS})",
                    {"loss_low": float(value.a), "loss_high": float(value.b), "threshold": float(threshold.a)},
                    tightness("Σ_i ℓ(q_i) < ℓ(0) (upper end of the loss over the lower end of ℓ(0))",
                              float(value.b), float(threshold.a)))


SEPARATES = Criterion("Σ_i ℓ(q_i) < ℓ(0) (interval): then every margin is positive", _loss_below_zero_loss)


def initial_margins(name: str) -> tuple[str, ...]:
    """The exact margins at a construction's θ(0) (as strings)."""
    c = construction(name)
    return tuple(str(q) for q in E.canonical(c.Y * scalar_outputs(c.model, E.to_exact(c.theta0), c.X)))


def record_separation(ctx: Context, name: str, conclusion: str) -> None:
    """L(θ(0)) < ℓ(0) for both losses (the hypothesis of Thm 2.1, in the form that forces positive margins); the
    control flips the sign of the first margin (a misclassified sample at θ(0))."""
    q = initial_margins(name)
    for loss in LOSSES:
        ctx.prove(f"{loss}: L(θ(0)) < ℓ(0)", "interval", SEPARATES(loss, q), f"margins {q} at θ(0)",
                  conclusion=conclusion)
    flipped = (str(-sympy.sympify(q[0])),) + q[1:]
    ctx.control("L(θ(0)) < ℓ(0) with the first sample misclassified", SEPARATES("exponential", flipped),
                "dropped hypothesis: the first margin's sign flipped")


@functools.cache
def _limits(name: str, slopes: bool) -> tuple[tuple[np.ndarray, float, str], ...]:
    c = construction(name)
    models = [dataclasses.replace(c.float_model, relu_slope_at_zero=float(s)) for s in SLOPES] if slopes \
        else [c.float_model]
    out = []
    for model in models:
        for loss in LOSSES:
            flow = normalized_flow(model, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float), c.theta0,
                                   loss, norm=1000.0)
            out.append((flow.rescaled, flow.cost, f"{loss}, σ'(0) = {model.relu_slope_at_zero:g}"))
    return tuple(out)


def _limits_reach(construction: str, target: np.ndarray, slopes: bool, tolerance: float) -> Decision:
    target = np.asarray(target, dtype=float)
    squared, rows, deviations = float(target @ target), [], []
    for rescaled, cost, label in _limits(construction, slopes):
        deviations += [abs(cost - squared) / squared, float(np.linalg.norm(rescaled - target))]
        rows.append(f"{label}: R = {cost:.10g}")
    worst = float(np.max(deviations))  # NaN (a failed flow) stays NaN and fails; Python's max would drop it
    ok = at_most(worst, tolerance)
    return Decision(ok, f"arc-length flows to ‖θ‖ = 1000 from the file's θ(0): {'; '.join(rows)}; "
                    f"θ̂ and R within {worst:.1e} of the target and its squared norm {squared:.10g} (threshold "
                    f"{tolerance:g}, finite-time proxy)", {"worst": worst, "tolerance": tolerance, "target": squared})


LIMITS = Criterion("normalized flows of both losses end at the target direction and norm", _limits_reach)


def limits_agree(ctx: Context, name: str, slopes: bool, conclusion: str, knife: bool = False) -> None:
    """Normalized flows from the file's θ(0) with both losses (and every σ'(0) for ReLU kinks) end at the file's
    KKT point: R(θ) = ‖θ̃‖² and the same direction; the control moves the target's first coordinate by 1/10.
    ``knife``: also report where a perturbed θ(0) ends."""
    c = construction(name)
    target = np.asarray(c.theta, dtype=float)
    figures = {"knife_edge_R": knife_edge(name)} if knife else {}
    perturbed = (f"from θ(0) + 1e-6 noise the flow ends at R = {figures['knife_edge_R']:.6g} instead (the symmetric "
                 "initialization is knife-edge)" if knife else "")
    ctx.support("GF limit: both losses" + (", every σ'(0)" if slopes else "") + f" ({name})", "numeric",
                LIMITS(name, target, slopes, LIMIT_TOLERANCE), perturbed, figures, conclusion=conclusion)
    moved = target.copy()
    moved[int(np.flatnonzero(target)[0])] += 0.1
    ctx.control(f"GF limit against a moved target ({name})", LIMITS(name, moved, slopes, LIMIT_TOLERANCE),
                "wrong limit: one non-zero coordinate of θ̃ moved by 1/10")


def knife_edge(name: str) -> float:
    """R(θ) at ‖θ‖ = 1000 from θ(0) + a 1e-6 Gaussian perturbation: the symmetric limits are unstable."""
    c = construction(name)
    rng = np.random.default_rng(0)
    start = c.theta0 + PERTURBATION * rng.standard_normal(c.theta0.shape)
    return normalized_flow(c.float_model, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float), start,
                           c.loss, norm=1000.0).cost


# -- Theorem 3.2's initializations ------------------------------------------------------------------------------
def in_thm32_hypotheses(theta0: np.ndarray, X: np.ndarray) -> bool:
    """⟨w1(0), x_i⟩ > 0 and ⟨w2(0), x_i⟩ < 0 for both samples, and v1(0) > 0 (θ = [w1, w2, v])."""
    W = np.asarray(theta0[:4], dtype=float).reshape(2, 2)
    Z = np.asarray(X, dtype=float) @ W.T
    return bool(np.all(Z[:, 0] > 0) and np.all(Z[:, 1] < 0) and theta0[4] > 0)


def xavier_initializations(rng: np.random.Generator, count: int) -> np.ndarray:
    """θ(0) for the 2-2-1 network with Xavier-normal layers: W ~ N(0, 2/(2 + 2)), v ~ N(0, 2/(2 + 1))."""
    W = rng.normal(scale=math.sqrt(2 / 4), size=(count, 4))
    v = rng.normal(scale=math.sqrt(2 / 3), size=(count, 2))
    return np.hstack([W, v])


def thm32_initializations(rng: np.random.Generator, count: int, X: np.ndarray) -> np.ndarray:
    """``count`` Xavier-normal draws conditioned on Theorem 3.2's hypotheses (rejection sampling)."""
    kept: list[np.ndarray] = []
    while len(kept) < count:
        batch = xavier_initializations(rng, 20_000)
        kept += [theta for theta in batch if in_thm32_hypotheses(theta, X)]
    return np.array(kept[:count])


def neuron_products(theta: np.ndarray) -> np.ndarray:
    """u_j = v_j w_j for the 2-2-1 network (rows j = 1, 2) — the vectors of Figure 1."""
    return np.asarray(theta[4:6], dtype=float)[:, None] * np.asarray(theta[:4], dtype=float).reshape(2, 2)


def diagonal_optimum(depth: int, x: np.ndarray) -> Exact:
    """One sample with positive entries, depth-m diagonal network, m ≥ 2: min ‖θ‖² = m·(max_k x_k)^(−2/m).
    Per coordinate Σ_j w_j[k]² ≥ m|β_k|^(2/m) (AM–GM, Lemma C.5); t ↦ t^(2/m) is subadditive, and
    Σ_k β_k x_k ≥ 1 forces Σ_k |β_k| ≥ 1/max x; all weight on the largest input attains it."""
    largest = max(E.to_exact(x), key=float)
    return E.canonical_number(depth * largest ** sympy.Rational(-2, depth))
