"""Paper 001, Sec. 4 and Apps. C.4–C.7: the depth-2 negative constructions other than Theorem 3.2 — Theorem 4.1
(diagonal networks), Theorem 4.2 part 2 (non-zero weights do not help ReLU), Theorem 4.4 (shared weights) and
Lemma C.6 (a local but not global limit with non-zero pre-activations).

Each construction is a file in ``examples/constructions/``; ``verify check`` certifies its static properties
exactly and the claims add the dynamics: the invariant set the flow stays on (exact), the exponential-integral
closed form of the reduced one-dimensional flow against the network's real-time flow (spec D6), both losses,
and the choice of σ'(0) where a pre-activation is 0.
"""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import sympy

from numerics import exact as E
from numerics.univariate import certified_sign
from theorems.margin_maximization import common as C
from verify import Context, claim, line, plain
from verify.construction import EPS


# -- Theorem 4.1 ---------------------------------------------------------------------------------------------------
@claim(
    id="margin.thm4.1",
    ref="Thm 4.1, Sec. 4; proof in App. C.4",
    kind="theorem",
    title="Depth-2 diagonal networks (linear or ReLU): a KKT limit that is not a local optimum",
    statement=("For $Phi(theta; x) = w_2^T sigma(op(\"diag\")(w_1) x)$ with $w_1, w_2 in RR^2$ and $sigma$ linear or "
               "ReLU, and the exponential or logistic loss, there are one sample $(x, y)$ and an initialization such "
               "that gradient flow reaches zero loss and converges in direction to a KKT point of the max-margin "
               "problem that is not a local minimum (here $x = (1, 2)$, $y = 1$, $w_1(0) = w_2(0) = (1, 0)$)."),
    hypotheses=plain("depth-2 diagonal network, linear or ReLU (any σ'(0))", "exponential or logistic loss"),
    expected="certified",
    profiles={"quick": "verify check on the linear and ReLU files (exact KKT point, witness curve, second order, exact "
                       "global optimum); frozen coordinate exactly; closed form Ei(q) = Ei(1) + 2t against the "
                       "real-time flow to t = 1e12; flows for both losses and σ'(0) ∈ {0, 1/2, 1}; control x = (2, 1)",
              "full": "as quick", "paper": "as quick"},
)
def check_thm41(ctx: Context) -> None:
    C.record_report(ctx, "linear", C.report("thm4.1-linear"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "global_optimum": False,
                     "layer_optimum (layer 1)": True, "layer_optimum (layer 2)": True, "gf_limit": True})
    C.record_report(ctx, "ReLU", C.report("thm4.1-relu"),
                    {"kkt": True, "local_optimum": False, "local_optimum #2": False, "gf_limit": True})
    for name in ("thm4.1-linear", "thm4.1-relu"):
        c = C.construction(name)
        ctx.prove(f"{name}: coordinate 2 is frozen", "exact", C.frozen_coordinates(c.model, c.theta0, c.X, [1, 3]),
                  "with w1[2] = w2[2] = 0 every margin's gradient vanishes in both, for σ'(0) ∈ {0, 1/2, 1}: the flow "
                  "keeps them at 0")
        ctx.prove(f"{name}: the flow stays on the ray of θ(0)", "exact",
                  C.flow_stays_on_ray(c.model, c.theta0, c.X, c.Y), "Σ_i ∇q_i(θ(0)) is a multiple of θ(0) (exact)")
    C.limits_agree(ctx, "thm4.1-relu", slopes=True)
    C.limits_agree(ctx, "thm4.1-linear", slopes=False)
    C.record_closed_forms(ctx, "thm4.1-linear", [("q = w1[1]·w2[1]", 0, "1", 2)])
    C.record_separation(ctx, "thm4.1-linear")
    # control: with |x[2]| < |x[1]| the limit is a global optimum, and the same checks say so
    swapped = C.document("thm4.1-linear")
    swapped["data"]["inputs"] = [[2, 1]]
    swapped = C.with_parameters(C.with_properties(swapped, {"check": "local_optimum"}), [["1/sqrt(2)", 0],
                                                                                        [["1/sqrt(2)", 0]]])
    local = C.result(C.check(swapped), "local_optimum")
    ctx.control("'not a local minimum' for x = (2, 1)", C.rejects(local, False), local.detail)


# -- Theorem 4.2 (2) -------------------------------------------------------------------------------------------
THM32_CURVE = ("eps*(16 - 17*eps)/4", "eps*(17*eps + 16)/4")  # Theorem 3.2's curve: improvement, distance²


def first_order_rate(improvement: str, distance_squared: str) -> sympy.Expr:
    """lim_{ε→0+} (‖θ̃‖² − ‖θ'(ε)‖²)/‖θ'(ε) − θ̃‖: positive for a first-order (linear in the distance) decrease."""
    return sympy.limit(sympy.sympify(improvement, locals={"eps": EPS}) /
                       sympy.sqrt(sympy.sympify(distance_squared, locals={"eps": EPS})), EPS, 0, "+")


@claim(
    id="margin.thm4.2.2",
    ref="Thm 4.2 (2), Sec. 4; proof in App. C.5.2",
    kind="theorem",
    title="Depth-2 ReLU, 4 neurons: non-zero incoming weights do not make the KKT limit locally optimal",
    statement=("For a fully-connected depth-2 ReLU network with input dimension 2 and 4 hidden neurons, and the "
               "exponential or logistic loss, there are data and an initialization such that gradient flow reaches "
               "zero loss and converges in direction to a KKT point that is not a local minimum although every "
               "hidden neuron has non-zero incoming weights (here $x in {plus.minus e_1, plus.minus e_2}$, all "
               "$y_i = 1$, $w_i(0) = 2 x_i$, $v_i(0) = 2$)."),
    hypotheses=plain("fully-connected depth-2 ReLU network, width 4, any σ'(0)", "exponential or logistic loss"),
    expected="certified",
    profiles={"quick": "verify check on the file (Clarke-KKT point, witness curve, exact global optimum 4√2, GF "
                       "limit); exact invariance of the ray for σ'(0) ∈ {0, 1/2, 1}; first-order rate of the curve; "
                       "closed form Ei(q) = Ei(4) + 2t to t = 1e12; flows for both losses and every σ'(0)",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("Knife-edge (spec I11): a 1e-6 perturbation of θ(0) sends the flow elsewhere (figure knife_edge_R of "
           "the flow evidence); the theorem needs the exact symmetric initialization, which floats keep exactly."),
           ("App. C.5.2 silently uses that the two zero-pre-activation inputs of each neuron are opposite, so their "
           "σ'(0) contributions cancel (spec I5); checked here for σ'(0) ∈ {0, 1/2, 1}.")),
)
def check_thm422(ctx: Context) -> None:
    rep = C.report("thm4.2.2")
    C.record_report(ctx, "θ̃", rep, {"feasible": True, "kkt": True, "local_optimum": False, "gf_limit": True})
    C.record(ctx, "θ̃ is not a global minimum (reference)", C.result(rep, "global_optimum"), False)
    c = C.construction("thm4.2.2")
    ctx.prove("non-zero incoming weights at θ̃", "exact", C.nonzero_incoming(c.model, c.theta),
              "every row w_j of the first layer of θ̃ is non-zero")
    ctx.prove("the flow stays on the ray of θ(0)", "exact", C.flow_stays_on_ray(c.model, c.theta0, c.X, c.Y),
              "all four margins are equal at θ(0) and Σ_i ∇q_i(θ(0)) ∝ θ(0) for σ'(0) ∈ {0, 1/2, 1} (the σ'(0) terms "
              "of opposite inputs cancel)")
    curve = C.result(rep, "local_optimum").figures
    rate = first_order_rate(curve["curve_improvement"], curve["curve_distance_squared"])
    ctx.prove("first-order decrease along the curve", "symbolic", bool(rate.is_positive),
              f"(‖θ̃‖² − ‖θ'(ε)‖²)/‖θ'(ε) − θ̃‖ → {rate} > 0 as ε → 0+: a feasible direction of strictly negative "
              "directional derivative (possible only at a non-smooth KKT point)", {"rate": str(rate)})
    ctx.control("the same rate on Theorem 3.2's curve", first_order_rate(*THM32_CURVE) == 0,
                "Theorem 3.2's curve decreases the norm only to second order: the limit is 0")
    thm32 = C.construction("thm3.2")
    ctx.control("non-zero incoming weights at Theorem 3.2's limit", not C.nonzero_incoming(thm32.model, thm32.theta),
                "the same test on Theorem 3.2's θ̃ (a neuron with w = 0) fails")
    C.limits_agree(ctx, "thm4.2.2", slopes=True, knife=True)
    C.record_closed_forms(ctx, "thm4.2.2", [("q = α²", 0, "4", 2)])
    C.record_separation(ctx, "thm4.2.2")
    shifted = C.with_parameters(C.with_properties(C.document("thm4.2.2"), {"check": "kkt"}),
                                [[[0, 1], [1, 0], [0, -1], [-1, 0]], [["11/10", 1, 1, 1]]])
    kkt_shifted = C.result(C.check(shifted), "kkt")
    ctx.control("KKT check with v_1 = 11/10", C.rejects(kkt_shifted, True), kkt_shifted.detail)


# -- Theorem 4.4 ---------------------------------------------------------------------------------------------------
PAPER_CURVE_AT = sympy.Rational(1, 4)  # a point of the paper's ε-range where its ReLU margin formula fails


def paper_relu_margin_step() -> tuple[bool, bool, sympy.Expr]:
    """App. C.7's ReLU step along w' = (√ε, 1 − ε), v' = (1/√2 + √ε/2, 1/√2 − √ε/2): (the printed equality
    Φ = 1 + 3ε fails at ε = 1/4, the needed inequality Φ ≥ 1 + 3ε holds on (0, 1/2), the ε where the second
    patch's pre-activation vanishes). Φ_ReLU − Φ_linear = Σ_j v_j'(σ(z_j) − z_j) ≥ 0 because v' > 0 on (0, 1/2)."""
    c = C.construction("thm4.4-relu")
    eps = sympy.Symbol("e", positive=True)
    curve = np.array([sympy.sqrt(eps), 1 - eps, 1 / sympy.sqrt(2) + sympy.sqrt(eps) / 2,
                      1 / sympy.sqrt(2) - sympy.sqrt(eps) / 2], dtype=object)
    point = np.array([sympy.nsimplify(v.subs(eps, PAPER_CURVE_AT)) for v in curve], dtype=object)
    relu = E.canonical(c.model.forward(point, c.X)[:, 0])[0]
    fails = E.sign(relu - (1 + 3 * PAPER_CURVE_AT)) != 0
    outputs_positive = all(certified_sign(v, eps, sympy.Rational(1, 2)).sign == 1 for v in curve[2:])
    z2 = -4 * sympy.sqrt(eps) + (1 - eps) / sympy.sqrt(2)
    flip = [r for r in sympy.solve(sympy.Eq(z2, 0), eps) if r.is_positive]
    return bool(fails), bool(outputs_positive), sympy.nsimplify(flip[0]) if flip else sympy.nan


@claim(
    id="margin.thm4.4",
    ref="Thm 4.4, Sec. 4; proof in App. C.7",
    kind="theorem",
    title="Shared weights (two-patch convolution): a KKT limit with non-zero inputs that is not a local optimum",
    statement=("For $Phi(theta; x) = sum_(j=1)^2 v_j sigma(w^T x^((j)))$ with one filter $w in RR^2$ on the patches "
               "$x^((1)) = (x_1, x_2)$, $x^((2)) = (x_3, x_4)$, $sigma$ linear or ReLU, and the exponential or "
               "logistic loss, there are one sample and an initialization such that gradient flow reaches zero loss "
               "and converges in direction to a KKT point $tilde(theta)$ that is not a local minimum, with "
               "$tilde(w)^T x^((j)) != 0$ for $j = 1, 2$ (here $x = (4, 1\\/sqrt(2), -4, 1\\/sqrt(2))$, "
               "$w(0) = (0, 1)$, $v(0) = (1\\/sqrt(2), 1\\/sqrt(2))$)."),
    hypotheses=plain("depth-2 network with one shared filter on two disjoint patches (class N, not N_no-share)",
                "linear or ReLU; exponential or logistic loss"),
    expected="certified",
    profiles={"quick": "verify check on the ReLU, linear and floating-point files (exact KKT point, witness curve, "
                       "second order, per-layer optimality); non-zero inputs; exact ray invariance; closed form "
                       "Ei(q) = Ei(1) + 2t to t = 1e12; flows for both losses; the proof's ReLU step (spec I3); "
                       "control a = 1/2",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("App. C.7 evaluates the ReLU margin of its curve as 1 + 3ε on all of (0, 1/2); the second patch's "
           "pre-activation −4√ε + (1 − ε)/√2 turns negative at ε = 17 − 12√2 ≈ 0.0294, beyond which the printed "
           "equality is false (spec I3). The needed inequality Φ ≥ 1 + 3ε still holds since v' > 0 and σ(z) ≥ z, and "
           "the construction files certify the curve on (0, 1/100] (ReLU) and (0, 1/4] (linear)."),
           "Typos of App. C.7 (spec I13): 'Ψ(θ(0); x) = 1' is Φ; '∇_{v1}L = ∇_{v1}L' is ∇_{v1}L = ∇_{v2}L.",
           "Knife-edge (spec I11): a 1e-6 perturbation of θ(0) leads to a near-global optimum (figure knife_edge_R)."),
)
def check_thm44(ctx: Context) -> None:
    C.record_report(ctx, "ReLU", C.report("thm4.4-relu"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "global_optimum": False,
                     "layer_optimum (layer 1)": True, "layer_optimum (layer 1) #2": False,
                     "layer_optimum (layer 2)": True, "gf_limit": True})
    C.record_report(ctx, "linear", C.report("thm4.4-linear"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "local_optimum #2": False,
                     "global_optimum": False, "layer_optimum (layer 1)": True, "layer_optimum (layer 2)": True,
                     "gf_limit": True})
    C.record_report(ctx, "float", C.report("thm4.4-float"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "gf_limit": True})
    c = C.construction("thm4.4-relu")
    ctx.prove("non-zero inputs at θ̃", "exact", C.nonzero_inputs(c.model, c.theta, c.X),
              "⟨w̃, x^(1)⟩ = ⟨w̃, x^(2)⟩ = 1/√2 ≠ 0")
    for name in ("thm4.4-relu", "thm4.4-linear"):
        flows = C.construction(name)
        ctx.prove(f"{name}: the flow stays on the ray of θ(0)", "exact",
                  C.flow_stays_on_ray(flows.model, E.to_exact(flows.theta), flows.X, flows.Y),
                  "Σ_i ∇q_i(θ) is a multiple of θ at θ = θ(0) (exactly, at 1/√2): the mirror symmetry of the patches "
                  "is kept")
    fails, holds_anyway, flip = paper_relu_margin_step()
    ctx.support("App. C.7's ReLU margin step (spec I3)", "exact", holds_anyway,
                f"v' > 0 on (0, 1/2) (certified), so Φ_ReLU(θ') ≥ Φ_lin(θ') = 1 + 3ε ≥ 1 along the whole curve; the "
                f"printed equality Φ_ReLU = 1 + 3ε {'fails' if fails else 'holds'} at ε = 1/4 (the second patch turns "
                f"off at ε = {flip} ≈ {float(flip):.4f})", {"printed_equality_fails_at_1/4": fails, "flip": str(flip)})
    C.limits_agree(ctx, "thm4.4-relu", slopes=False, knife=True)
    C.limits_agree(ctx, "thm4.4-linear", slopes=False)
    C.record_closed_forms(ctx, "thm4.4-relu", [("q = β²", 0, "1", 2)])
    C.record_separation(ctx, "thm4.4-relu")
    # controls: small a makes θ̃ the top singular pair of the linear network (globally optimal); Theorem 4.2 (2)'s
    # limit has zero pre-activations
    small = C.with_properties(C.patches_family_document("1/2", "linear"), {"check": "local_optimum"})
    local = C.result(C.check(small), "local_optimum")
    ctx.control("'not a local minimum' for a = 1/2 (linear)", C.rejects(local, False), local.detail)
    thm422 = C.construction("thm4.2.2")
    ctx.control("non-zero inputs at Theorem 4.2 (2)'s limit", not C.nonzero_inputs(thm422.model, thm422.theta,
                                                                                  thm422.X),
                "the same test on Theorem 4.2 (2)'s θ̃ (zero pre-activations on orthogonal samples) fails")


# -- Lemma C.6 -----------------------------------------------------------------------------------------------------
PAPER_POINT = [[["2/sqrt(17)", "1/(2*sqrt(17))"], ["-5/4", -1]], [[2, 1]]]  # the proof's θ' (α̃ = 2, β̃ = 1)
RAY_OFF_RATIO = [[[0, 3], [0, -1]], [[3, 1]]]  # (α, β) = (3, 1) on the invariant rays: not a KKT point
RATIO_TIMES = (1e2, 1e10, 1e50, 1e100, 1e300)  # real times for α/β = 2√(q1/q3) from the closed forms


def ratio_in_real_time(t: float) -> mpmath.mpf:
    """α(t)/β(t) of Lemma C.6's flow (exponential loss) from the closed forms q1 = α²/4, q3 = β²."""
    q1 = C.ei_margin(sympy.Rational(9, 4), 1, t, "exponential")
    q3 = C.ei_margin(4, 2, t, "exponential")
    return 2 * mpmath.sqrt(q1 / q3)


@claim(
    id="margin.lemC.6",
    ref="Lemma C.6, App. C.6 (completes Thms 4.3 and 5.4)",
    kind="lemma",
    title="Depth-2 ReLU, 2 neurons: a KKT limit with non-zero pre-activations that is not a global optimum",
    statement=("On $x_1 = (1, 1\\/4)$, $x_2 = (-1, 1\\/4)$, $x_3 = (0, -1)$, all labels 1, gradient flow of a "
               "depth-2 ReLU network with two neurons from $w_1(0) = (0, 3)$, $v_1(0) = 3$, $w_2(0) = (0, -2)$, "
               "$v_2(0) = 2$ reaches zero loss and converges in direction to a KKT point $tilde(theta)$ with "
               "$tilde(w)_j^T x_i != 0$ for all $i, j$ that is not a global minimum."),
    hypotheses=plain("fully-connected depth-2 ReLU network, width 2", "exponential or logistic loss"),
    expected="certified",
    profiles={"quick": "verify check on the file (exact KKT point λ = (2, 2, 1), second-order sufficiency, exact "
                       "global optimum √97/2, per-layer optimum 1721/1088, GF limit); the proof's θ' exactly; "
                       "closed forms of both margins to t = 1e12 and α/β up to t = 1e300; flows for both losses",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("The paper shows only α̃ ≥ 2, β̃ ≥ 1; the KKT conditions force α̃ = 2, β̃ = 1 (a point of the rays with "
           "another ratio is not a KKT point: control). Its '1/α̃² < 1/4' should read '≤' (spec I4); the chain "
           "stays strict since 41/(16β̃²) ≤ 41/16 < 3."),
           "The proof's θ' (‖θ'‖² = 125/16) is far from the global optimum √97/2 ≈ 4.924 (neurons sharing x3)."),
)
def check_lemC6(ctx: Context) -> None:
    rep = C.report("lemC.6")
    C.record_report(ctx, "θ̃", rep, {"feasible": True, "kkt": True, "local_optimum": True, "global_optimum": False,
                                    "layer_optimum (layer 1)": True, "layer_optimum (layer 1) #2": False,
                                    "layer_optimum (layer 2)": True, "gf_limit": True})
    c = C.construction("lemC.6")
    ctx.prove("non-zero pre-activations at θ̃", "exact", C.nonzero_inputs(c.model, c.theta, c.X),
              "neuron 1: (1/2, 1/2, −2), neuron 2: (−1/4, −1/4, 1)")
    paper = C.check(C.with_parameters(C.with_properties(C.document("lemC.6"), {"check": "feasible"}), PAPER_POINT))
    point = C.construction("lemC.6").model  # the same network
    theta_paper = np.concatenate([np.array(sympy.sympify(["2/sqrt(17)", "1/(2*sqrt(17))", "-5/4", -1]),
                                           dtype=object), np.array([2, 1], dtype=object)])
    squared = E.canonical([E.dot(theta_paper, theta_paper)])[0]
    ctx.prove("the proof's θ' is feasible and shorter", "exact",
              C.holds(C.result(paper, "feasible")) is True and E.sign(squared - E.dot(c.theta, c.theta)) < 0,
              f"θ' of App. C.6: {C.result(paper, 'feasible').detail}; ‖θ'‖² = {squared} < ‖θ̃‖² = 10",
              {"squared_norm": str(squared), "layers_model": point.depth})
    C.limits_agree(ctx, "lemC.6", slopes=False)
    C.record_closed_forms(ctx, "lemC.6", [("q1 = α²/4", 0, "9/4", 1), ("q3 = β²", 2, "4", 2)])
    C.record_separation(ctx, "lemC.6")
    ratios = [ratio_in_real_time(t) for t in RATIO_TIMES]
    scaled = [float((2 - r) * mpmath.log(t)) for r, t in zip(ratios, RATIO_TIMES)]
    ctx.support("α/β → 2 only like 2 − log 2/log t", "numeric",
                all(a < b for a, b in itertools.pairwise(ratios)) and abs(scaled[-1] - float(mpmath.log(2))) < 0.05,
                f"from the closed forms (40 digits): α/β = {', '.join(f'{float(r):.5f}' for r in ratios)} at t = "
                f"1e2 … 1e300; (2 − α/β)·log t = {scaled[-1]:.4f} → log 2 = {float(mpmath.log(2)):.4f}: real time "
                "is hopeless for directional limits (finite-time proxy)", {"ratio_at_1e300": float(ratios[-1])},
                plot=line("Lemma C.6: α/β in real time (closed forms)",
                          {"(2 − α/β)·log t": ([float(t) for t in RATIO_TIMES], scaled)}, xlabel="t",
                          ylabel="(2 − α/β) log t", xscale="log", reference={"log 2": float(mpmath.log(2))}))
    off = C.result(C.check(C.with_parameters(C.with_properties(C.document("lemC.6"), {"check": "kkt"}),
                                             RAY_OFF_RATIO)), "kkt")
    ctx.control("KKT check at (α, β) = (3, 1) on the invariant rays", C.rejects(off, True), off.detail)
    thm32 = C.construction("thm3.2")
    ctx.control("non-zero pre-activations at Theorem 3.2's limit",
                not C.nonzero_inputs(thm32.model, thm32.theta, thm32.X),
                "the same test on Theorem 3.2's θ̃ (neuron 2 has w = 0) fails")
