"""Theorems 3 and 4 of Ji & Telgarsky (Sec. 3, App. C): gradient descent with Assumption 5's step sizes
minimizes the risk, grows every layer, aligns the layers, and (logistic loss) turns the first layer and the
end-to-end predictor towards the max-margin direction ū.

Both theorems are limits. They are checked by finite-time proxies: along Assumption-5 runs, the per-step facts
the proofs use (exact up to rounding) and monotone trends, read on the matched gradient-flow time
t_GF = Σ_{s<t} η_s. Under Assumption 5 the GD clock advances like R_t^{−(2L−2)} per step, so the asymptotic
regime is out of reach on CPU; its shape is shown on GD with a practical constant step, outside the theorems.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sympy

from numerics.metrics import angle
from numerics.tolerances import at_least, at_most
from numerics.trends import RateFit, fit_rate, is_monotone
from theorems.layer_alignment.common import (
    Dataset,
    admissible_initialization,
    ds2,
    ds3,
    ds_degenerate,
    layer_state,
    linear_network,
    max_margin_direction,
    orthogonal_part,
    risk,
    spans_space,
)
from theorems.layer_alignment.criteria import Named
from theorems.layer_alignment.descent_runs import (
    Case,
    DescentTrace,
    assumption5_trace,
    descent_trace,
)
from verify import Context, Decision, Tightness, claim, criterion, line, plain, tightness

MONOTONE_RTOL = 1e-9  # rounding allowed when a proxy is required to be monotone
IDENTITY_TOLERANCE = 1e-10  # float residual of a per-step identity, relative to its terms


def checkpoints(trace: DescentTrace, count: int, start: int = 1) -> np.ndarray:
    """Step indices spread evenly in log t (the scale on which these quantities move)."""
    return np.unique(np.geomspace(start, trace.steps, count).astype(int))


@dataclass(frozen=True)
class Proxies:
    """Theorem 3's quantities at log-spaced checkpoints of a trace."""

    steps: np.ndarray
    time: np.ndarray  # t_GF
    risk: np.ndarray
    frobenius: np.ndarray  # checkpoints × L
    rank_one_gap: np.ndarray  # 1 − σ_k/F_k, checkpoints × L
    product_deficit: np.ndarray  # 1 − |⟨w_prod/∏F_k, v_1⟩|


def proxies(trace: DescentTrace, vector: int, count: int = 40) -> Proxies:
    """Undefined directions (a zero layer) give NaN entries, which no monotonicity test accepts. ``vector`` picks the
    right singular vector of W_1 that w_prod is compared with (0: the top one, as in the theorem)."""
    steps = checkpoints(trace, count)
    states = [layer_state([W[t] for W in trace.layers]) for t in steps]
    with np.errstate(all="ignore"):
        frobenius = np.array([s.frobenius for s in states])
        gaps = np.array([s.rank_one_excess for s in states]) / (frobenius * (frobenius + [s.spectral for s in states]))
        deficit = np.array([1.0 - abs(float(s.w_prod @ (s.right[0] if vector == 0 else np.linalg.svd(
            s.layers[0])[2][vector]))) / np.prod(s.frobenius) for s in states])
    return Proxies(steps, trace.clock[steps], trace.risk[steps], frobenius, gaps, deficit)


def last_decade(time: np.ndarray) -> np.ndarray:
    """Mask of the checkpoints with t_GF ≥ t_GF(T)/10: past the transient of the saddle escape on these runs."""
    return time >= time[-1] / 10


RISK_DROP = 20.0  # the risk ends below R(W(0)) divided by this
RISK_EXPONENT = -0.5  # the risk decays at least like t_GF to this power over the last decade


def theorem3_trend(trace: DescentTrace, vector: int, drop: float = RISK_DROP,
                   exponent: float = RISK_EXPONENT) -> dict[str, float]:
    """Finite-time proxy of Theorem 3 on one run: risk nonincreasing at every step, down by a factor ``drop`` and
    decaying at least like t^exponent over the last decade of t_GF; every ‖W_k‖_F and the product alignment improving
    there."""
    p = proxies(trace, vector=vector)
    steps_ok = bool(np.all(at_most(np.diff(trace.risk), MONOTONE_RTOL * trace.risk[:-1])))
    late = last_decade(p.time)
    fit = fit_rate(p.time[late], p.risk[late])
    window = p.frobenius[late]
    with np.errstate(divide="ignore", invalid="ignore"):  # a critical start stays at 0: its growth is nan
        growth = window[-1] / window[0]  # per layer, over the last decade
    norms_grow = all(is_monotone(window[:, k], "increasing", MONOTONE_RTOL) for k in range(window.shape[1])) and bool(
        np.all(growth > 1))
    aligning = is_monotone(p.product_deficit[late], "decreasing", MONOTONE_RTOL)
    decayed = bool(p.risk[-1] <= trace.risk[0] / drop)
    return {"risk_falls": bool(steps_ok and decayed and fit.exponent <= exponent), "final_risk": float(p.risk[-1]),
            "risk_exponent_late": fit.exponent, "gf_time": float(p.time[-1]),
            "final_product_deficit": float(p.product_deficit[-1]), "risk_nonincreasing_every_step": steps_ok,
            "norms_increasing_late": norms_grow, "min_norm_growth_late": float(growth.min()),
            "product_alignment_improving_late": aligning}


def nonseparable(data: Dataset) -> Dataset:
    """The data with the first point mirrored (z and −z both present): no direction separates them."""
    return Dataset(f"{data.name} + mirrored point", np.vstack([data.Z, -data.Z[:1]]))


def theorem3_cases(ctx: Context) -> list[Case]:
    def case(label: str, data: Dataset, widths: tuple[int, ...], scale: float, steps: int) -> Case:
        objective = risk(linear_network(widths), data, "logistic")
        return Case(label, data, objective, admissible_initialization(objective, ctx.rng(f"init {label}"), scale),
                    steps)

    cases = [case("DS2 [2, 3, 1]", ds2(), (2, 3, 1), 0.3, ctx.pick(5000, 20000)),
             case("DS3 [3, 3, 1]", ds3(), (3, 3, 1), 0.3, ctx.pick(5000, 20000))]
    if ctx.pick(False, True):
        cases.append(case("DS3 [3, 3, 3, 1]", ds3(), (3, 3, 3, 1), 0.5, 40000))
    return cases


THEOREM3_PARTS = {"risk": "risk_falls", "norms": "norms_increasing_late",
                  "alignment": "product_alignment_improving_late"}


@criterion("finite-time proxy of one conclusion of Theorem 3 on every run (over the last decade of t_GF)")
def theorem3_part(runs: Named, part: str, vector: int = 0, drop: float = RISK_DROP, exponent: float = RISK_EXPONENT):
    failed, figures = [], {}
    for label, trace in runs.value:
        trend = theorem3_trend(trace, vector, drop, exponent)
        figures.update({f"{label}: {k}": v for k, v in trend.items() if not isinstance(v, bool)})
        if not trend[THEOREM3_PARTS[part]]:
            failed.append(label)
    return not failed, f"fails on {failed}" if failed else "every run", figures




@claim(
    id="align.thm3",
    ref="Theorem 3, Sec. 3 (proof in App. C)",
    kind="theorem",
    title="GD with Assumption 5's steps: risk → 0, every layer grows, the product aligns with v_1",
    statement=("Under Assumptions 1, 2, 4 and 5, gradient descent gives $R(W(t)) -> 0$, "
               "$norm(W_k (t))_F -> infinity$ for every $k$, and "
               "$|chevron.l w_\"prod\" (t) \\/ product_k norm(W_k (t))_F, v_1 (t) chevron.r| -> 1$, with $v_1$ the "
               "top right "
               "singular vector of $W_1$."),
    hypotheses=plain("Assumptions 1, 2, 4, 5 (logistic loss, the implementable Assumption 5)",
                "linearly separable data with ‖z_i‖ ≤ 1"),
    conclusions={"R(W(t)) → 0": "confirmed", "‖W_k(t)‖_F → ∞ for every k": "confirmed",
                 "|⟨w_prod/∏_k‖W_k‖_F, v_1⟩| → 1": "confirmed"},
    profiles={"quick": "DS2 [2,3,1] and DS3 [3,3,1] under Assumption 5 (5000 steps, t_GF ≈ 50): finite-time proxies, "
                       "per conclusion; controls: non-separable data, a critical start, the second singular vector",
              "full": "20000-step runs and DS3 [3,3,3,1] (40000 steps)", "paper": "as full"},
    notes=plain(("The printed text reads 'limt /wprod (t) L k=1 Wk(t) F , v1(t) = 1' with the absolute value, norms "
            "and product hard to read; the reading |⟨w_prod/∏_k‖W_k‖_F, v_1⟩| → 1 is Theorem 1's third bullet."),
           ("Finite-time proxy: risk nonincreasing at every step, below R(W(0))/20 at the end and decaying at least "
            "like "
           "t_GF^(−1/2) over the last decade of t_GF, every ‖W_k‖_F increasing there, and 1 − |⟨w_prod/∏F_k, v_1⟩| "
           "decreasing there (earlier, after the saddle escape, the alignment quantities have a transient bump)."),
           ("The proof ends 'The other results follow from Lemma 7'; it means Lemma 8. The proof also writes C^L/2 "
            "where L − 1 factors give C^(L−1)/2 (align.thm1.proof-facts)."),
           ("Per-layer rank one and adjacent alignment follow from align.lem8.corrected; the summed identity behind "
           "them is align.eq28.corrected.")),
)
def check_thm3(ctx: Context) -> None:
    risk_conclusion, norms_conclusion, alignment_conclusion = ctx.conclusions
    cases = theorem3_cases(ctx)
    runs = Named(f"{len(cases)} Assumption-5 runs: " + "; ".join(case.label for case in cases),
                 [(case.label, assumption5_trace(case.objective, case.theta0, case.steps)) for case in cases])
    ctx.support("risk: finite-time proxy", "trend", theorem3_part(runs, "risk"),
                f"risk nonincreasing at every step, down {RISK_DROP:g}-fold and decaying like t^(≤ {RISK_EXPONENT:g})",
                conclusion=risk_conclusion)
    ctx.support("norms: finite-time proxy", "trend", theorem3_part(runs, "norms"),
                "every ‖W_k‖_F increasing over the last decade of t_GF", conclusion=norms_conclusion)
    ctx.support("product alignment: finite-time proxy", "trend", theorem3_part(runs, "alignment"),
                "1 − |⟨w_prod/∏F_k, v_1⟩| decreasing over the last decade of t_GF", conclusion=alignment_conclusion)
    case = cases[0]
    mirrored = nonseparable(case.data)
    objective = risk(case.objective.model, mirrored, "logistic")
    stuck = assumption5_trace(objective, admissible_initialization(objective, ctx.rng("nonseparable"), 0.3), case.steps)
    ctx.control("non-separable data (a point and its mirror image)",
                theorem3_part(Named(f"{case.label} with a mirrored point", [("non-separable", stuck)]), "risk"),
                "the risk is bounded below by (ℓ(q) + ℓ(−q))/n ≥ 2ℓ(0)/n")
    critical = assumption5_trace(case.objective, np.zeros_like(case.theta0), case.steps)
    ctx.control("critical start W(0) = 0 (Assumption 2 dropped)",
                theorem3_part(Named(f"{case.label} from W(0) = 0", [("critical", critical)]), "norms"),
                "the gradient vanishes: the norms stay 0")
    ctx.control("second right singular vector of W_1", theorem3_part(runs, "alignment", vector=1),
                "v_2 in place of v_1: w_prod becomes orthogonal to it")
    # the risk proxy's two thresholds, each too strong for these runs while the other is kept
    drop, exponent = 1e4, -5.0
    ctx.control(f"risk down {drop:g}-fold", theorem3_part(runs, "risk", drop=drop),
                f"drop {RISK_DROP:g} → {drop:g}: far more than t_GF of tens to hundreds allows at a c/t rate")
    ctx.control(f"risk decaying like t^({exponent:g})", theorem3_part(runs, "risk", exponent=exponent),
                f"exponent {RISK_EXPONENT:g} → {exponent:g}: far faster than these runs decay (risk_exponent_late)")


# -- Theorem 4 ---------------------------------------------------------------------------------------------------------


def first_layer_step_residuals(trace: DescentTrace, u_bar: np.ndarray) -> dict[str, float]:
    """The per-step facts of Theorem 4's proof, along a trace (worst over steps):

    * identity: ‖W_1(t+1)‖_F² = ‖W_1‖_F² − 2η⟨w_prod, ∇R(w_prod)⟩ + η²‖∂R/∂W_1‖_F² (relative residual);
    * (38): ‖Π_⊥W_1(t+1)‖_F² ≤ ‖Π_⊥W_1‖_F² − 2η⟨Π_⊥w_prod, ∇R(w_prod)⟩ + η²‖∂R/∂W_1‖_F² (relative slack);
    * (39): η²‖∂R/∂W_1‖_F² ≤ η‖∇R(W)‖² ≤ 2(R(W(t)) − R(W(t+1))) (relative slacks);
    * ‖Π_⊥W_1(t+1)‖_F ≤ ‖Π_⊥W_1(t)‖_F + 1 (slack).
    ⟨w_prod, ∇R(w_prod)⟩ is read off the layer gradient: ⟨W_1, ∂R/∂W_1⟩ (and ⟨Π_⊥W_1, ∂R/∂W_1⟩ for Π_⊥).
    """
    terms = _first_layer_terms(trace, u_bar)
    square, perp_square, step_square = terms["square"], terms["perp_square"], terms["step_square"]
    scale = 1.0 + square[:-1] + step_square
    identity = np.abs(square[1:] - (square[:-1] - 2 * trace.step_sizes * terms["inner"] + step_square)) / scale
    bound38 = terms["right_38"] - perp_square[1:]
    weighted, drop, perp = terms["weighted"], terms["drop"], np.sqrt(perp_square)
    return {"identity_W1": float(identity.max()), "slack_38": float(np.min(bound38 / scale)),
            "slack_39_left": float(np.min(weighted - step_square)),
            "slack_39_right": float(np.min((drop - weighted) / (1.0 + trace.risk[:-1]))),
            "slack_unit_growth": float(np.min(perp[:-1] + 1.0 - perp[1:]))}


def _first_layer_terms(trace: DescentTrace, u_bar: np.ndarray) -> dict[str, np.ndarray]:
    W1, G1 = trace.layers[0], trace.layer_gradients[0]
    eta = trace.step_sizes
    projected = orthogonal_part(W1, u_bar)
    perp_square = np.sum(projected**2, axis=(1, 2))
    perp_inner = np.sum(projected[:-1] * G1, axis=(1, 2))
    step_square = eta**2 * np.sum(G1**2, axis=(1, 2))
    return {"square": np.sum(W1**2, axis=(1, 2)), "perp_square": perp_square,
            "inner": np.sum(W1[:-1] * G1, axis=(1, 2)), "step_square": step_square,
            "right_38": perp_square[:-1] - 2 * eta * perp_inner + step_square,
            "weighted": eta * trace.gradient_norms_squared, "drop": 2.0 * (trace.risk[:-1] - trace.risk[1:])}


def first_layer_step_bounds(traces: Sequence[DescentTrace], u_bar: np.ndarray) -> tuple[Tightness, ...]:
    """How tight the inequalities among the proof's per-step facts are, at every step of every trace."""
    sides: dict[str, tuple[list, list]] = {}
    for trace in traces:
        terms = _first_layer_terms(trace, u_bar)
        perp = np.sqrt(terms["perp_square"])
        for label, measured, limit in (
                ("(38) ‖Π_⊥W_1(t+1)‖_F² ≤ ‖Π_⊥W_1(t)‖_F² − 2η_t⟨Π_⊥w_prod, ∇R⟩ + η_t²‖∂R/∂W_1‖_F²",
                 terms["perp_square"][1:], terms["right_38"]),
                ("(39) η_t²‖∂R/∂W_1‖_F² ≤ η_t‖∇R(W(t))‖²", terms["step_square"], terms["weighted"]),
                ("(39) η_t‖∇R(W(t))‖² ≤ 2(R(W(t)) − R(W(t+1)))", terms["weighted"], terms["drop"]),
                ("‖Π_⊥W_1(t+1)‖_F ≤ ‖Π_⊥W_1(t)‖_F + 1", perp[1:], perp[:-1] + 1.0)):
            sides.setdefault(label, ([], []))
            sides[label][0].append(measured)
            sides[label][1].append(limit)
    return tuple(tightness(label, np.concatenate(m), np.concatenate(b)) for label, (m, b) in sides.items())


def steps_hold(residuals: dict[str, float]) -> bool:
    return at_most(residuals["identity_W1"], IDENTITY_TOLERANCE) and at_least(min(
        residuals["slack_38"], residuals["slack_39_left"], residuals["slack_39_right"],
        residuals["slack_unit_growth"]), -IDENTITY_TOLERANCE)


@dataclass(frozen=True)
class Alignment:
    time: np.ndarray
    angle: np.ndarray  # ∠(w_prod, target)
    singular_deficit: np.ndarray  # 1 − |⟨v_1, target⟩|
    perpendicular_ratio: np.ndarray  # ‖Π_⊥W_1‖_F/‖W_1‖_F (Π_⊥ for the target)


def alignment(trace: DescentTrace, target: np.ndarray, count: int = 40) -> Alignment:
    steps = checkpoints(trace, count)
    states = [layer_state([W[t] for W in trace.layers]) for t in steps]
    W1 = trace.layers[0][steps]
    return Alignment(trace.clock[steps], np.array([angle(s.w_prod, target) for s in states]),
                     np.array([1.0 - min(1.0, abs(float(s.right[0] @ target))) for s in states]),
                     np.linalg.norm(orthogonal_part(W1, target), axis=(1, 2)) / np.linalg.norm(W1, axis=(1, 2)))


PROXY_EXPONENT = -0.25  # the proxies must decay at least like (ln t)^(−1/4): a nonzero limit gives about 0


def converging(a: Alignment) -> tuple[bool, RateFit]:
    """Finite-time proxy of ∠(w_prod, target) → 0: over the last decade of t_GF the angle and 1 − |⟨v_1, target⟩|
    decrease, and the angle decays at least like (ln t)^PROXY_EXPONENT (a fit in ln t; approaching a nonzero limit
    gives an exponent near 0)."""
    late = last_decade(a.time)
    fit = fit_rate(a.time[late], a.angle[late], "log")
    ok = (is_monotone(a.angle[late], "decreasing", MONOTONE_RTOL)
          and is_monotone(a.singular_deficit[late], "decreasing", MONOTONE_RTOL) and fit.exponent <= PROXY_EXPONENT)
    return ok, fit


STEEP_EXPONENT = -4.0  # the rate control: the runs fit −0.5 to −1.2 in ln t
EARLY_REGIME_CEILING = 0.35  # the proxies end below this (rad, or ratio): 0.03–0.24 towards ū over 23 seeds,
# 0.50–0.71 towards a support vector, whose angle can still fall like (ln t)^(−0.3) in the early regime


@criterion("finite-time proxy of one conclusion of Theorem 4 on every run: over the last decade of t_GF the "
           "quantity decreases at least like (ln t)^exponent (a fitted exponent ≤ exponent) and ends at most at the "
           "ceiling: ∠(w_prod, target) for w_prod, ‖Π_⊥W_1‖_F/‖W_1‖_F (Π_⊥ for the target, the proof's mechanism) "
           "for v_1")
def theorem4_part(runs: Named, target: Named, part: str, ceiling: float = EARLY_REGIME_CEILING,
                  exponent: float = PROXY_EXPONENT):
    failed, figures = [], {"ceiling": ceiling, "exponent": exponent}
    for label, trace in runs.value:
        a = alignment(trace, target.value)
        late = last_decade(a.time)
        name, proxy = ("perpendicular_ratio", a.perpendicular_ratio) if part == "first layer" else ("angle", a.angle)
        fit = fit_rate(a.time[late], proxy[late], "log")
        final = float(proxy[-1])  # the value compared is the value reported
        ok = is_monotone(proxy[late], "decreasing", MONOTONE_RTOL) and fit.exponent <= exponent and final <= ceiling
        if part == "first layer":
            figures[f"{label}: final_singular_deficit"] = float(a.singular_deficit[-1])
        figures[f"{label}: final_{name}"] = final
        figures[f"{label}: {name}_exponent_in_ln_t"] = fit.exponent
        figures[f"{label}: gf_time"] = float(a.time[-1])
        if not ok:
            failed.append(label)
    return not failed, f"fails on {failed}" if failed else "every run", figures


def past_the_overshoot(objective, theta0: np.ndarray, steps: int, target: np.ndarray,
                       extensions: int = 2) -> DescentTrace:
    """An Assumption-5 run of ``steps`` steps, or 3× and 9× as many while its last decade is still in the overshoot
    after the saddle escape (∠(w_prod, ū) dips below its late value and rises again, so it is not yet decreasing
    over the last decade): the finite-time proxy is read once the angle decreases again; its rate is not looked at
    here (at seed 20240610 the 20000-step run's angle rises from 0.0377 to 0.0429 within its last decade; at 60000
    steps it decreases like (ln t)^(−0.28))."""
    for _ in range(extensions + 1):
        trace = assumption5_trace(objective, theta0, steps)
        measured = alignment(trace, target)
        angles = measured.angle[last_decade(measured.time)]
        if is_monotone(angles, "decreasing", MONOTONE_RTOL):
            return trace
        steps *= 3
    return trace


@criterion("the proof's per-step facts at every step: the ‖W_1‖ identity, (38), (39) and the +1 bound")
def first_layer_steps(runs: Named, target: Named):
    residuals = [first_layer_step_residuals(trace, target.value) for _, trace in runs.value]
    return Decision(all(steps_hold(r) for r in residuals), "", {
        f"{label}: {k}": v for (label, _), r in zip(runs.value, residuals) for k, v in r.items()},
                    first_layer_step_bounds([trace for _, trace in runs.value], target.value))


@criterion("ū certified, the support vectors span R^d (Assumption 3), every support vector has a positive dual")
def theorem4_data(data: Dataset) -> Decision:
    svm = max_margin_direction(data)
    duals = svm.duals[list(svm.support)]
    certified, spans, positive = bool(svm.certified), spans_space(data, svm), bool(np.all(duals > 0))
    return Decision(certified and spans and positive, f"certified: {certified}; support spans R^{data.d}: {spans}; "
                    f"positive duals on the support: {positive}", {"margin": svm.margin,
                                                                      "smallest_support_dual": float(np.min(duals))})


def lifted(data: Dataset) -> Dataset:
    """The same points in one more dimension (last coordinate 0): ū, γ and the duals are kept, but the support
    vectors no longer span the space (Assumption 3 fails)."""
    exact = None if data.exact_Z is None else np.hstack([data.exact_Z, np.full((data.n, 1), sympy.S.Zero)])
    return Dataset(f"{data.name} in R^{data.d + 1}", np.hstack([data.Z, np.zeros((data.n, 1))]), exact)


@claim(
    id="align.thm4",
    ref="Theorem 4, Sec. 3 (proof in App. C)",
    kind="theorem",
    title="GD on the logistic loss turns the first layer and the predictor towards the max-margin direction",
    statement=("Under Assumptions 2, 3 and 5, for the logistic loss and almost all data, gradient descent gives "
               "$|chevron.l v_1 (t), macron(u) chevron.r| -> 1$ and "
               "$w_\"prod\" (t) \\/ product_k norm(W_k (t))_F -> macron(u)$, the max-margin direction."),
    hypotheses=plain("logistic loss (Assumptions 1, 4)", "Assumption 2", ("Assumption 3 and positive support-vector "
                                                                          "duals "
                "(the 'almost all data' of Lemma 3)"), "Assumption 5 (implementable reading)"),
    conclusions={"|⟨v_1(t), ū⟩| → 1": "confirmed", "w_prod(t)/∏_k‖W_k(t)‖_F → ū": "confirmed"},
    profiles={"quick": "DS3 (A3 certified) [3,3,1] under Assumption 5 for 20000 steps (t_GF ≈ 145; 3× or 9× as many "
                       "while a run ends in the overshoot after the saddle escape): the proof's per-step "
                       "facts at every step and a finite-time proxy; outside the theorem: constant step 1 for 10000 "
                       "steps "
                       "(t = 1e4); controls: the same proxy against wrong directions, a limit reached in finite "
                       f"time and a decay like (ln t)^({STEEP_EXPONENT:g})",
              "full": "two starts (scales 0.3, 0.1) with 60000 Assumption-5 steps, 40000 constant steps",
              "paper": "as full"},
    notes=plain(("The printed text reads 'limt v1(t), u¯ = 1, and limt /wprod(t) L k=1 Wk(t) F = u¯' with the absolute "
            "value and norms hard to read; read as |⟨v_1, ū⟩| → 1 and w_prod/∏_k‖W_k‖_F → ū."),
           ("Finite-time proxy: over the last decade of t_GF, ∠(w_prod, ū) and 1 − |⟨v_1, ū⟩| decrease and the angle "
           f"decays at least like (ln t)^({PROXY_EXPONENT:g}); under Assumption 5 only the early regime (t_GF ≈ 150, "
           "angle ≈ 0.07–0.16) "
           "is reachable — after the saddle escape the angle overshoots for t_GF ≲ 15 — so the constant-step run "
           "(outside the theorem, labelled) shows the c/ln t shape and resolves the limit from nearby directions."),
           ("For v_1 the proxy is the proof's mechanism, ‖Π_⊥W_1‖_F/‖W_1‖_F decreasing: 1 − |⟨v_1, ū⟩| itself is "
            "already ~1e-3 in the early regime and wanders at that level (on some seeds it rises over the last "
            "decade), so its monotonicity is no usable proxy."),
           ("On DS2 the constant-step angle first dips (to ≈ 0.008 rad at t ≈ 200) and then rises towards its "
           "c/ln t asymptote from below (0.03 at t ≈ 7000), so monotone proxies are taken on DS3."),
           ("Per-step facts of the proof checked: ‖W_1(t+1)‖_F² = ‖W_1‖_F² − 2η⟨w_prod, ∇R⟩ + η²‖∂R/∂W_1‖_F², (38), "
            "(39) and "
           "‖Π_⊥W_1(t+1)‖_F ≤ ‖Π_⊥W_1(t)‖_F + 1. The proof's t_3 step needs t_3 to be the last entry time before t_4."),
           ("DS3's hypotheses (certified max-margin direction, Assumption 3, positive duals) are checked as an "
            "item, with DSdeg (a support vector of dual 0) as its control.")),
)
def check_thm4(ctx: Context) -> None:
    first_layer, product = ctx.conclusions
    data = ds3()
    svm = max_margin_direction(data)
    ctx.support("DS3 meets the theorem's data hypotheses", "convex", theorem4_data(data),
                "the max-margin direction ū is certified, the support vectors span R³ (Assumption 3) and every one "
                "has a positive dual", conclusion=first_layer)
    ctx.control("DSdeg: a support vector with dual 0", theorem4_data(ds_degenerate()), change="data: DS3 → DSdeg",
                because="positive duals on the support: False")
    ctx.control("DS2 lifted to R³: its two support vectors span a plane", theorem4_data(lifted(ds2())),
                change="data: DS3 → DS2 with a third coordinate 0", because="support spans R^3: False")
    u_bar = Named("ū of DS3 (certified)", svm.direction)
    objective = risk(linear_network((3, 3, 1)), data, "logistic")
    traces, extended = [], {}
    for scale in ctx.pick((0.3,), (0.3, 0.1)):
        theta0 = admissible_initialization(objective, ctx.rng(f"init {scale}"), scale)
        trace = past_the_overshoot(objective, theta0, ctx.pick(20000, 60000), svm.direction)
        traces.append((f"scale {scale}", trace))
        extended[f"scale {scale}: steps"] = trace.steps
    runs = Named(f"{len(traces)} Assumption-5 runs on DS3 [3,3,1]", traces)
    ctx.support("the proof's per-step facts", "numeric", first_layer_steps(runs, u_bar),
                f"{sum(t.steps for _, t in traces)} Assumption-5 steps: the ‖W_1‖ identity to {IDENTITY_TOLERANCE:g}, "
                f"(38), (39) and the +1 bound with slack ≥ −{IDENTITY_TOLERANCE:g}",
                {"margin": svm.margin} | extended, conclusion=first_layer)
    ctx.support("v_1: finite-time proxy under Assumption 5", "trend", theorem4_part(runs, u_bar, "first layer"),
                f"‖Π_⊥W_1‖_F/‖W_1‖_F decreasing over the last decade of t_GF, at least like "
                f"(ln t)^({PROXY_EXPONENT:g}), ending ≤ {EARLY_REGIME_CEILING:g} (early regime; 1 − |⟨v_1, ū⟩| ≤ that "
                "ratio squared over σ_1²/‖W_1‖_F², and it is reported)", conclusion=first_layer)
    ctx.support("w_prod: finite-time proxy under Assumption 5", "trend", theorem4_part(runs, u_bar, "product"),
                f"∠(w_prod, ū) decreasing over the last decade of t_GF, at least like (ln t)^({PROXY_EXPONENT:g}), "
                f"ending ≤ {EARLY_REGIME_CEILING:g} rad (early regime)", conclusion=product)
    # the asymptotic shape, outside the theorem: a practical constant step
    theta0 = admissible_initialization(objective, ctx.rng("practical"), 0.1)
    practical = descent_trace(objective, theta0, ctx.pick(10000, 40000), 1.0)
    shape = alignment(practical, svm.direction)
    constant = Named(f"constant-step run (η = 1, outside Assumption 5), DS3 [3,3,1], {practical.steps} steps",
                     [("constant step", practical)])
    ctx.support("outside the theorem: constant step η = 1", "trend", theorem4_part(constant, u_bar, "product"),
                "the same proxy on a run that reaches the c/ln t regime; illustration of the asymptotic shape, not an "
                "instance of Assumption 5", {"final_perpendicular_ratio": float(shape.perpendicular_ratio[-1])},
                conclusion=product,
                plot=line("Constant-step GD (outside Assumption 5): alignment with ū", {
                    "∠(w_prod, ū)": (shape.time, shape.angle),
                    "1 − |⟨v_1, ū⟩|": (shape.time, np.maximum(shape.singular_deficit, 1e-18)),
                    "‖Π_⊥W_1‖_F / ‖W_1‖_F": (shape.time, shape.perpendicular_ratio)},
                    xlabel="t = Σ η_s", ylabel="", xscale="log", yscale="log"))
    # controls: the same proxies against wrong limit directions, each where the runs can resolve it
    mean = data.Z.mean(axis=0) / np.linalg.norm(data.Z.mean(axis=0))
    ctx.control("wrong limit on the constant-step run: the mean direction of the data",
                theorem4_part(constant, Named("the mean direction of DS3", mean), "product"),
                f"∠(ū, mean z) = {angle(svm.direction, mean):.3f} rad, resolved by the constant-step run")
    vertex = data.Z[svm.support[0]] / np.linalg.norm(data.Z[svm.support[0]])
    ctx.control("wrong limit on the Assumption-5 runs: a support vector's direction",
                theorem4_part(runs, Named("the direction of a support vector of DS3", vertex), "first layer"),
                f"∠(ū, z_s) = {angle(svm.direction, vertex):.3f} rad")
    ctx.control("wrong limit on the Assumption-5 runs (w_prod): a support vector's direction",
                theorem4_part(runs, Named("the direction of a support vector of DS3", vertex), "product"),
                "the early-regime runs cannot resolve directions as close as the mean (0.14 rad), but this one")
    # the limit reached in finite time: the proxies decrease at the rate but stay above a ceiling of 0
    for part in ("first layer", "product"):
        ctx.control(f"the limit reached within the run ({part})", theorem4_part(runs, u_bar, part, ceiling=0.0),
                    f"ceiling {EARLY_REGIME_CEILING:g} → 0: the proxy would have to vanish at a finite time")
    # a decay far faster than the runs': the exponent is measured, not merely negative
    for part in ("first layer", "product"):
        ctx.control(f"a faster decay asked ({part})", theorem4_part(runs, u_bar, part, exponent=STEEP_EXPONENT),
                    f"exponent {PROXY_EXPONENT:g} → {STEEP_EXPONENT:g}: (ln t)^({STEEP_EXPONENT:g}) is far steeper "
                    "than a c/ln t approach")
