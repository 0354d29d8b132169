"""Paper 001, Sec. 4 and Apps. C.4–C.7: the depth-2 negative constructions other than Theorem 3.2 — Theorem 4.1
(diagonal networks), Theorem 4.2 part 2 (non-zero weights do not help ReLU), Theorem 4.4 (shared weights) and
Lemma C.6 (a local but not global limit with non-zero pre-activations).

Each construction is a file in ``examples/constructions/``; ``verify check`` certifies its static properties
exactly and the claims add the dynamics: the invariant set the flow stays on (exact), the exponential-integral
closed form of the reduced one-dimensional flow against the network's real-time flow, both losses,
and the choice of σ'(0) where a pre-activation is 0.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import sympy

from numerics import exact as E
from numerics.networks import scalar_outputs
from numerics.tolerances import below
from numerics.univariate import certified_sign
from theorems.margin_maximization import common as C
from verify import Context, Decision, claim, criterion, line, plain, tightness
from verify.construction import EPS

# -- Theorem 4.1 ---------------------------------------------------------------------------------------------------
K41 = "θ̃ = [w1 = w2 = (1, 0)] is a KKT point of the max-margin problem (x = (1, 2); linear and ReLU)"
N41 = "θ̃ is not a local minimum (x = (1, 2); linear and ReLU)"
D41 = "gradient flow from w1(0) = w2(0) = (1, 0) reaches zero loss and converges in direction to θ̃ (both losses)"
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
    conclusions={K41: "certified", N41: "certified", D41: "confirmed"},
    profiles={"quick": "verify check on the linear and ReLU files (exact KKT point, witness curve, second order, exact "
                       "global optimum); frozen coordinate and ray invariance exactly; closed form Ei(q) = Ei(1) + 2t "
                       "against the real-time flow to t = 1e12; flows for both losses and σ'(0) ∈ {0, 1/2, 1}; "
                       "controls: x = (2, 1), a feasible non-stationary point, a nudged θ(0), a wrong rate",
              "full": "as quick", "paper": "as quick"},
    notes=plain("Zero loss and directional convergence rest on the exact ray invariance and L(θ(0)) < ℓ(0) (with "
                "Theorem 2.1) and on numeric flows and closed forms (finite-time proxies): confirmed."),
)
def check_thm41(ctx: Context) -> None:
    conclusions = {"feasible": K41, "kkt": K41, "layer_optimum": K41, "local_optimum": N41, "global_optimum": N41,
                   "gf_limit": D41}
    C.record_report(ctx, "linear", C.source("thm4.1-linear"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "global_optimum": False,
                     "layer_optimum (layer 1)": True, "layer_optimum (layer 2)": True, "gf_limit": True}, conclusions)
    C.record_report(ctx, "ReLU", C.source("thm4.1-relu"),
                    {"kkt": True, "local_optimum": False, "local_optimum #2": False, "gf_limit": True}, conclusions)
    for name in ("thm4.1-linear", "thm4.1-relu"):
        c = C.construction(name)
        ctx.prove(f"{name}: coordinate 2 is frozen", "exact", C.FROZEN(C.source(name), E.to_exact(c.theta0), (1, 3)),
                  "with w1[2] = w2[2] = 0 every margin's gradient vanishes in both: the flow keeps them at 0",
                  conclusion=D41)
        C.record_ray(ctx, name, D41, control=name == "thm4.1-linear")
    C.limits_agree(ctx, "thm4.1-relu", slopes=True, conclusion=D41)
    C.limits_agree(ctx, "thm4.1-linear", slopes=False, conclusion=D41)
    C.record_closed_forms(ctx, "thm4.1-linear", [("q = w1[1]·w2[1]", 0, "1", 2)], D41)
    C.record_separation(ctx, "thm4.1-linear", D41)
    # controls: with |x[2]| < |x[1]| the limit is a global optimum, and the same checks say so; a feasible point
    # with inactive constraint is not stationary
    swapped = C.document("thm4.1-linear")
    swapped["data"]["inputs"] = [[2, 1]]
    swapped = C.with_parameters(C.with_properties(swapped, {"check": "local_optimum"}), [["1/sqrt(2)", 0],
                                                                                        [["1/sqrt(2)", 0]]])
    C.control_property(ctx, "'not a local minimum' for x = (2, 1)", C.edited("x = (2, 1)", swapped),
                       "local_optimum", False, "other data: x = (1, 2) → (2, 1), at its own balanced KKT point")
    doubled = C.with_parameters(C.with_properties(C.document("thm4.1-linear"), {"check": "kkt"}),
                                [[2, 0], [[1, 0]]])
    C.control_property(ctx, "KKT check with w1 doubled", C.edited("w1 = (2, 0)", doubled), "kkt", True,
                       "another point: w1 = (1, 0) → (2, 0) (margin 2, no active constraint)")


# -- Theorem 4.2 (2) -------------------------------------------------------------------------------------------
THM32_CURVE = ("eps*(16 - 17*eps)/4", "eps*(17*eps + 16)/4")  # Theorem 3.2's curve: improvement, distance²


K422 = "θ̃ is a KKT point whose hidden neurons all have non-zero incoming weights"
N422 = "θ̃ is not a local minimum"
D422 = "gradient flow from w_i(0) = 2x_i, v_i(0) = 2 reaches zero loss and converges in direction to θ̃ (both losses)"


def first_order_rate(improvement: str, distance_squared: str) -> sympy.Expr:
    """lim_{ε→0+} (‖θ̃‖² − ‖θ'(ε)‖²)/‖θ'(ε) − θ̃‖: positive for a first-order (linear in the distance) decrease."""
    return sympy.limit(sympy.sympify(improvement, locals={"eps": EPS}) /
                       sympy.sqrt(sympy.sympify(distance_squared, locals={"eps": EPS})), EPS, 0, "+")


@criterion("(‖θ̃‖² − ‖θ'(ε)‖²)/‖θ'(ε) − θ̃‖ has a positive limit as ε → 0+ (symbolic)")
def FIRST_ORDER(improvement: str, distance_squared: str) -> Decision:
    rate = first_order_rate(improvement, distance_squared)
    return Decision(bool(rate.is_positive), f"the limit is {rate}", {"rate": str(rate)})


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
    conclusions={K422: "certified", N422: "certified", D422: "confirmed"},
    profiles={"quick": "verify check on the file (Clarke-KKT point, witness curve, exact global optimum 4√2, GF "
                       "limit); exact invariance of the ray for σ'(0) ∈ {0, 1/2, 1}; first-order rate of the curve; "
                       "closed form Ei(q) = Ei(4) + 2t to t = 1e12; flows for both losses and every σ'(0); controls: "
                       "v_1 = 11/10, Theorem 3.2's limit and curve, a nudged θ(0), a wrong rate",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("Knife-edge: a 1e-6 perturbation of θ(0) sends the flow elsewhere (figure knife_edge_R of "
           "the flow evidence); the theorem needs the exact symmetric initialization, which floats keep exactly."),
           ("App. C.5.2 silently uses that the two zero-pre-activation inputs of each neuron are opposite, so their "
           "σ'(0) contributions cancel; checked here for σ'(0) ∈ {0, 1/2, 1}."),
           "Zero loss and directional convergence rest in part on numeric flows and closed forms: confirmed."),
)
def check_thm422(ctx: Context) -> None:
    src = C.source("thm4.2.2")
    C.record_report(ctx, "θ̃", src, {"feasible": True, "kkt": True, "local_optimum": False, "gf_limit": True},
                    {"feasible": K422, "kkt": K422, "local_optimum": N422, "gf_limit": D422})
    C.record(ctx, "θ̃ is not a global minimum (reference)", src, "global_optimum", False, N422)
    c = C.construction("thm4.2.2")
    ctx.prove("non-zero incoming weights at θ̃", "exact", C.NONZERO_INCOMING(src, E.to_exact(c.theta)),
              "every row w_j of the first layer of θ̃ is non-zero", conclusion=K422)
    thm32 = C.construction("thm3.2")
    ctx.control("non-zero incoming weights at Theorem 3.2's limit",
                C.NONZERO_INCOMING(C.source("thm3.2"), E.to_exact(thm32.theta)),
                "another construction: Theorem 3.2's θ̃ (a neuron with w = 0)")
    C.record_ray(ctx, "thm4.2.2", D422)
    curve = C.result(C.checked(src), "local_optimum").figures
    ctx.prove("first-order decrease along the curve", "symbolic",
              FIRST_ORDER(curve["curve_improvement"], curve["curve_distance_squared"]),
              "a feasible direction of strictly negative directional derivative (possible only at a non-smooth KKT "
              "point)", conclusion=N422)
    ctx.control("the same rate on Theorem 3.2's curve", FIRST_ORDER(*THM32_CURVE),
                "another curve: Theorem 3.2's, which decreases the norm only to second order")
    C.limits_agree(ctx, "thm4.2.2", slopes=True, conclusion=D422, knife=True)
    C.record_closed_forms(ctx, "thm4.2.2", [("q = α²", 0, "4", 2)], D422)
    C.record_separation(ctx, "thm4.2.2", D422)
    shifted = C.with_parameters(C.with_properties(C.document("thm4.2.2"), {"check": "kkt"}),
                                [[[0, 1], [1, 0], [0, -1], [-1, 0]], [["11/10", 1, 1, 1]]])
    C.control_property(ctx, "KKT check with v_1 = 11/10", C.edited("v_1 = 11/10", shifted), "kkt", True,
                       "another point: v_1 = 1 → 11/10")


# -- Theorem 4.4 ---------------------------------------------------------------------------------------------------
K44 = "θ̃ = [w = (0, 1), v = (1/√2, 1/√2)] is a KKT point of the max-margin problem (a = 4; linear and ReLU)"
I44 = "w̃ᵀx^(j) ≠ 0 for j = 1, 2"
N44 = "θ̃ is not a local minimum (a = 4; linear and ReLU)"
D44 = "gradient flow from w(0) = (0, 1), v(0) = (1/√2, 1/√2) reaches zero loss and converges in direction to θ̃ " \
      "(both losses)"
PAPER_CURVE_AT = sympy.Rational(1, 4)  # a point of the paper's ε-range where its ReLU margin formula fails
PAPER_EPS_RANGE = sympy.Rational(1, 2)  # App. C.7 moves along its curve for ε ∈ (0, 1/2)


def paper_relu_margin_step(upto: sympy.Rational = PAPER_EPS_RANGE, slope: int = 3
                           ) -> tuple[bool, bool, sympy.Expr, sympy.Expr]:
    """App. C.7's ReLU step along w' = (√ε, 1 − ε), v' = (1/√2 + √ε/2, 1/√2 − √ε/2): (the printed equality
    Φ = 1 + 3ε fails at ε = 1/4, the needed inequality Φ ≥ 1 + 3ε holds on (0, 1/2), the ε where the second
    patch's pre-activation vanishes, the engine's Φ_ReLU − (1 + 3ε) at ε = 1/4). Φ_ReLU − Φ_linear =
    Σ_j v_j'(σ(z_j) − z_j) ≥ 0 because v' > 0 on (0, 1/2); the engine's excess at 1/4 must be exactly that sum.
    ``upto`` (the interval's end) and ``slope`` (Φ_linear = 1 + slope·ε) are the paper's unless a test moves them."""
    c = C.construction("thm4.4-relu")
    eps = sympy.Symbol("e", positive=True)
    curve = np.array([sympy.sqrt(eps), 1 - eps, 1 / sympy.sqrt(2) + sympy.sqrt(eps) / 2,
                      1 / sympy.sqrt(2) - sympy.sqrt(eps) / 2], dtype=object)
    point = np.array([sympy.nsimplify(v.subs(eps, PAPER_CURVE_AT)) for v in curve], dtype=object)
    excess = E.canonical_number(scalar_outputs(c.model, point, c.X)[0] - (1 + slope * PAPER_CURVE_AT))
    fails = E.sign(excess) != 0
    outputs_positive = all(certified_sign(v, eps, upto).sign == 1 for v in curve[2:])
    z = [4 * sympy.sqrt(eps) + (1 - eps) / sympy.sqrt(2), -4 * sympy.sqrt(eps) + (1 - eps) / sympy.sqrt(2)]
    relu_gain = sum(v * (sympy.Max(0, zj) - zj) for v, zj in zip(curve[2:], z)).subs(eps, PAPER_CURVE_AT)
    explained = E.sign(excess - relu_gain) == 0
    flip = [r for r in sympy.solve(sympy.Eq(z[1], 0), eps) if r.is_positive]
    return bool(fails), bool(outputs_positive and explained), sympy.nsimplify(flip[0]) if flip else sympy.nan, excess


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
    conclusions={K44: "certified", I44: "certified", N44: "certified", D44: "confirmed"},
    profiles={"quick": "verify check on the ReLU, linear and floating-point files (exact KKT point, witness curve, "
                       "second order, per-layer optimality); non-zero inputs; exact ray invariance; closed form "
                       "Ei(q) = Ei(1) + 2t to t = 1e12; flows for both losses; the proof's ReLU step; controls: "
                       "a = 1/2, w doubled, Theorem 4.2 (2)'s limit, a nudged θ(0), a wrong rate",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("App. C.7 evaluates the ReLU margin of its curve as 1 + 3ε on all of (0, 1/2); the second patch's "
           "pre-activation −4√ε + (1 − ε)/√2 turns negative at ε = 17 − 12√2 ≈ 0.0294, beyond which the printed "
           "equality is false. The needed inequality Φ ≥ 1 + 3ε still holds since v' > 0 and σ(z) ≥ z, and "
           "the construction files certify the curve on (0, 1/100] (ReLU) and (0, 1/4] (linear)."),
           "Typos of App. C.7: 'Ψ(θ(0); x) = 1' is Φ; '∇_{v1}L = ∇_{v1}L' is ∇_{v1}L = ∇_{v2}L.",
           "Knife-edge: a 1e-6 perturbation of θ(0) leads to a near-global optimum (figure knife_edge_R).",
           "The floating-point file's KKT test is numeric and is not used; its interval feasibility and local "
           "optimum tests are."),
)
def check_thm44(ctx: Context) -> None:
    conclusions = {"feasible": K44, "kkt": K44, "layer_optimum": K44, "local_optimum": N44, "global_optimum": N44,
                   "gf_limit": D44}
    C.record_report(ctx, "ReLU", C.source("thm4.4-relu"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "global_optimum": False,
                     "layer_optimum (layer 1)": True, "layer_optimum (layer 1) #2": False,
                     "layer_optimum (layer 2)": True, "gf_limit": True}, conclusions)
    C.record_report(ctx, "linear", C.source("thm4.4-linear"),
                    {"feasible": True, "kkt": True, "local_optimum": False, "local_optimum #2": False,
                     "global_optimum": False, "layer_optimum (layer 1)": True, "layer_optimum (layer 2)": True,
                     "gf_limit": True}, conclusions)
    C.record_report(ctx, "float", C.source("thm4.4-float"), {"feasible": True, "local_optimum": False}, conclusions)
    c = C.construction("thm4.4-relu")
    ctx.prove("non-zero inputs at θ̃", "exact", C.NONZERO_INPUTS(C.source("thm4.4-relu"), E.to_exact(c.theta)),
              "⟨w̃, x^(1)⟩ = ⟨w̃, x^(2)⟩ = 1/√2 ≠ 0", conclusion=I44)
    thm422 = C.construction("thm4.2.2")
    ctx.control("non-zero inputs at Theorem 4.2 (2)'s limit",
                C.NONZERO_INPUTS(C.source("thm4.2.2"), E.to_exact(thm422.theta)),
                "another construction: Theorem 4.2 (2)'s θ̃ (zero pre-activations on orthogonal samples)")
    for name in ("thm4.4-relu", "thm4.4-linear"):
        C.record_ray(ctx, name, D44, control=name == "thm4.4-relu", exact_start=True)
    fails, holds_anyway, flip, excess = paper_relu_margin_step()
    ctx.support("App. C.7's ReLU margin step", "exact", holds_anyway,
                f"v' > 0 on (0, {PAPER_EPS_RANGE}) (certified), so Φ_ReLU(θ') ≥ Φ_lin(θ') = 1 + 3ε ≥ 1 along the whole "
                f"curve; the printed equality Φ_ReLU = 1 + 3ε {'fails' if fails else 'holds'} at ε = 1/4, where the "
                f"engine's Φ_ReLU − (1 + 3ε) = {excess} ≈ {float(excess):.4f} is exactly v_2'·(σ(z_2) − z_2) (the "
                f"second patch turns off at ε = {flip} ≈ {float(flip):.4f})",
                {"printed_equality_fails_at_1/4": fails, "excess_at_1/4": str(excess), "flip": str(flip)},
                conclusion=N44)
    C.limits_agree(ctx, "thm4.4-relu", slopes=False, conclusion=D44, knife=True)
    C.limits_agree(ctx, "thm4.4-linear", slopes=False, conclusion=D44)
    C.record_closed_forms(ctx, "thm4.4-relu", [("q = β²", 0, "1", 2)], D44)
    C.record_separation(ctx, "thm4.4-relu", D44)
    # controls: small a makes θ̃ the top singular pair of the linear network (globally optimal); w doubled is
    # feasible with an inactive constraint
    small = C.with_properties(C.patches_family_document("1/2", "linear"), {"check": "local_optimum"})
    C.control_property(ctx, "'not a local minimum' for a = 1/2 (linear)", C.edited("a = 1/2 (linear)", small),
                       "local_optimum", False, "other data: a = 4 → 1/2")
    doubled = C.with_parameters(C.with_properties(C.document("thm4.4-relu"), {"check": "kkt"}),
                                [[0, 2], [["1/sqrt(2)", "1/sqrt(2)"]]])
    C.control_property(ctx, "KKT check with w doubled", C.edited("w = (0, 2)", doubled), "kkt", True,
                       "another point: w = (0, 1) → (0, 2) (margin 2, no active constraint)")


# -- Lemma C.6 -----------------------------------------------------------------------------------------------------
PAPER_POINT = [[["2/sqrt(17)", "1/(2*sqrt(17))"], ["-5/4", -1]], [[2, 1]]]  # the proof's θ' (α̃ = 2, β̃ = 1)
RAY_OFF_RATIO = [[[0, 3], [0, -1]], [[3, 1]]]  # (α, β) = (3, 1) on the invariant rays: not a KKT point
RATIO_TIMES = tuple(10.0**k for k in (2, 5, 10, 20, 50, 100, 150, 200, 250, 300))  # real times for α/β = 2√(q1/q3)
KC6 = "θ̃ (α̃ = 2, β̃ = 1) is a KKT point (indeed a local minimum) of the max-margin problem"
IC6 = "w̃_jᵀx_i ≠ 0 for all i, j"
GC6 = "θ̃ is not a global minimum"
DC6 = "gradient flow from the given θ(0) reaches zero loss and converges in direction to θ̃ (both losses)"


def _point(label: str, layers: list) -> C.Source:
    return C.edited(label, C.with_parameters(C.with_properties(C.document("lemC.6"), {"check": "feasible"}), layers))


@criterion("θ is feasible (verify check, exact) and ‖θ‖² < the reference")
def SHORTER(point: C.Source, reference: int) -> Decision:
    feasible = C.result(C.checked(point), "feasible")
    theta = C.built(point).theta
    squared = E.canonical_number(E.dot(theta, theta))
    return Decision(C.holds(feasible) is True and E.sign(squared - reference) < 0,
                    f"{feasible.detail}; ‖θ‖² = {squared} against {reference}", {"squared_norm": str(squared)},
                    tightness("‖θ‖² < ‖θ̃‖² (a feasible point below the KKT value)", float(squared), float(reference)))


SCALED_TOLERANCE = 0.05  # |(2 − α/β)·log t − limit| at the last time


@criterion(f"α/β increasing in t and (2 − α/β)·log t within {SCALED_TOLERANCE:g} of the limit at the last time")
def SLOW_APPROACH(ratios: tuple[float, ...], scaled_last: float, limit: float) -> Decision:
    increasing = all(a < b for a, b in itertools.pairwise(ratios))
    gap = abs(scaled_last - limit)
    close = below(gap, SCALED_TOLERANCE)
    return Decision(bool(increasing and close),
                    f"α/β = {', '.join(f'{r:.5f}' for r in ratios)} (increasing: {increasing}); (2 − α/β)·log t = "
                    f"{scaled_last:.4f} against {limit:.4f} (gap {gap:.3g}, threshold {SCALED_TOLERANCE:g}: "
                    f"{'met' if close else 'not met'})",
                    {"gap": gap})


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
    conclusions={KC6: "certified", IC6: "certified", GC6: "certified", DC6: "confirmed"},
    profiles={"quick": "verify check on the file (exact KKT point λ = (2, 2, 1), second-order sufficiency, exact "
                       "global optimum √97/2, per-layer optimum 1721/1088, GF limit); the proof's θ' exactly; "
                       "closed forms of both margins to t = 1e12 and α/β up to t = 1e300; flows for both losses; "
                       "controls: (α, β) = (3, 1), Theorem 3.2's limit, a wrong rate, a flipped margin",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("The paper shows only α̃ ≥ 2, β̃ ≥ 1; the KKT conditions force α̃ = 2, β̃ = 1 (a point of the rays with "
           "another ratio is not a KKT point: control). Its '1/α̃² < 1/4' should read '≤'; the chain "
           "stays strict since 41/(16β̃²) ≤ 41/16 < 3."),
           "The proof's θ' (‖θ'‖² = 125/16) is far from the global optimum √97/2 ≈ 4.924 (neurons sharing x3).",
           ("Zero loss and directional convergence rest in part on numeric flows and closed forms (and α/β approaches "
            "2 only like 2 − log 2/log t in real time): confirmed; the limit point's properties are certified.")),
)
def check_lemC6(ctx: Context) -> None:
    src = C.source("lemC.6")
    C.record_report(ctx, "θ̃", src, {"feasible": True, "kkt": True, "local_optimum": True, "global_optimum": False,
                                    "layer_optimum (layer 1)": True, "layer_optimum (layer 1) #2": False,
                                    "layer_optimum (layer 2)": True, "gf_limit": True},
                    {"feasible": KC6, "kkt": KC6, "local_optimum": KC6, "layer_optimum": KC6, "global_optimum": GC6,
                     "gf_limit": DC6})
    c = C.construction("lemC.6")
    ctx.prove("non-zero pre-activations at θ̃", "exact", C.NONZERO_INPUTS(src, E.to_exact(c.theta)),
              "neuron 1: (1/2, 1/2, −2), neuron 2: (−1/4, −1/4, 1)", conclusion=IC6)
    thm32 = C.construction("thm3.2")
    ctx.control("non-zero pre-activations at Theorem 3.2's limit",
                C.NONZERO_INPUTS(C.source("thm3.2"), E.to_exact(thm32.theta)),
                "another construction: Theorem 3.2's θ̃ (neuron 2 has w = 0)")
    ctx.prove("the proof's θ' is feasible and shorter", "exact", SHORTER(_point("θ' of App. C.6", PAPER_POINT), 10),
              "θ' of App. C.6 against ‖θ̃‖² = 10", conclusion=GC6)
    ctx.control("a feasible point of the rays with (α, β) = (3, 1)", SHORTER(_point("(α, β) = (3, 1)", RAY_OFF_RATIO),
                                                                             10),
                "another point: θ' → (α, β) = (3, 1) on the invariant rays (feasible, ‖θ‖² = 20)")
    halved = [[[f"({v})/2" for v in row] for row in layer] for layer in PAPER_POINT]
    ctx.control("θ'/2, shorter but infeasible", SHORTER(_point("θ'/2", halved), 10),
                "another point: θ' → θ'/2 (‖θ‖² = 125/64, every margin divided by 4)", because="has margin")
    C.limits_agree(ctx, "lemC.6", slopes=False, conclusion=DC6)
    C.record_closed_forms(ctx, "lemC.6", [("q1 = α²/4", 0, "9/4", 1), ("q3 = β²", 2, "4", 2)], DC6)
    C.record_separation(ctx, "lemC.6", DC6)
    ratios = [ratio_in_real_time(t) for t in RATIO_TIMES]
    decades = [int(round(math.log10(t))) for t in RATIO_TIMES]
    scaled = [float((2 - r) * mpmath.log(t)) for r, t in zip(ratios, RATIO_TIMES)]
    log2, ratio_values = float(mpmath.log(2)), tuple(float(r) for r in ratios)
    ctx.support("α/β → 2 only like 2 − log 2/log t", "numeric", SLOW_APPROACH(ratio_values, scaled[-1], log2),
                f"from the closed forms (40 digits) at t = 1e{decades[0]} … 1e{decades[-1]}: real time is hopeless "
                "for directional limits (finite-time proxy)",
                {"ratio_at_1e300": float(ratios[-1]), "scaled_at_1e300": scaled[-1]},
                plot=line("Lemma C.6: α/β in real time (closed forms)",
                          {"(2 − α/β)·log t": (decades, scaled), "2 − α/β": (decades, [float(2 - r) for r in ratios])},
                          xlabel="log₁₀ t", ylabel="value", yscale="log", reference={"log 2": float(mpmath.log(2))}),
                conclusion=DC6)
    ctx.control("α/β read backwards", SLOW_APPROACH(ratio_values[::-1], scaled[-1], log2),
                "another path: the same ratios in reverse order (α/β falling in t)", because="increasing: False")
    # a tie at the end: "increasing" is strict, a ratio that stops moving is not approaching 2
    stalled = (*ratio_values[:-1], ratio_values[-2])
    ctx.control("α/β stalled at the last time", SLOW_APPROACH(stalled, scaled[-1], log2),
                f"another path: α/β at t = 1e{decades[-1]} → its value at 1e{decades[-2]} (equal consecutive ratios)",
                because="increasing: False")
    ctx.control("(2 − α/β)·log t → 1", SLOW_APPROACH(ratio_values, scaled[-1], 1.0),
                "wrong constant: the limit log 2 → 1", because=f"threshold {SCALED_TOLERANCE:g}: not met")
    off = C.with_parameters(C.with_properties(C.document("lemC.6"), {"check": "kkt"}), RAY_OFF_RATIO)
    C.control_property(ctx, "KKT check at (α, β) = (3, 1) on the invariant rays", C.edited("(α, β) = (3, 1)", off),
                       "kkt", True, "another point: (α, β) = (2, 1) → (3, 1)")
