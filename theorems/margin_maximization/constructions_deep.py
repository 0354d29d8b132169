"""Paper 001, Sec. 5 and Apps. C.8, C.10: Theorem 5.1 (deep diagonal networks: a KKT limit with non-zero inputs that
is not a local optimum, for every depth m ≥ 3) and Theorem 5.3 (the first layer of a ReLU KKT limit need not be a
local optimum of its own per-layer problem).

The constructions are the files ``margin_thm5_1_depth{3,4,5,10}.toml`` (the depths checked; each file has
one activation and the claim checks the other by editing the file's architecture) and ``margin_thm5_3.toml``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import sympy

from numerics import exact as E
from numerics import global_optimum
from theorems.margin_maximization import common as C
from theorems.margin_maximization.constructions import EULER_AT_KKT
from verify import Context, Decision, claim, criterion, plain, tightness


def other_activation(m: int) -> dict:
    """The depth-m file with the other activation, checking the KKT point and the witness curve only."""
    doc = C.document(f"thm5.1-depth{m}")
    doc["architecture"]["activation"] = "linear" if doc["architecture"]["activation"] == "relu" else "relu"
    return C.with_properties(doc, *[p for p in doc["properties"] if p["check"] == "kkt" or "witness" in p])


def paper_bases(eps: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr]:
    """The two coordinates' factors along the witness curve of App. C.8: 1 ± ε."""
    return 1 + eps, 1 - eps


def curve_shortens(depth: int | None = None, curve: Callable[[sympy.Symbol], tuple[sympy.Expr, sympy.Expr]]
                   = paper_bases) -> tuple[bool, sympy.Expr]:
    """g(ε) = (1 + ε)^p + (1 − ε)^p with p = 2/m has g(0) = 2, g'(0) = 0 and g'' = p(p − 1)·(positive) on (−1, 1);
    when p(p − 1) < 0, g(ε) < 2 — the curve is shorter than θ̃ — for every ε ∈ (0, 1), not only small ε.
    ``depth`` None: every m > 2 (m = 2 + k, k > 0); else that depth. ``curve``: the bases (tests give others, on
    which one of the three steps fails)."""
    k = sympy.Symbol("k", positive=True)
    m = 2 + k if depth is None else sympy.Integer(depth)
    eps = sympy.Symbol("e", positive=True)
    p = 2 / m
    bases = curve(eps)
    g = sum(base**p for base in bases)
    coefficient = sympy.factor(p * (p - 1))
    second = all(sympy.simplify(sympy.diff(base**p, eps, 2) - coefficient * base ** (p - 2)) == 0 for base in bases)
    at_zero = sympy.simplify(g.subs(eps, 0) - 2) == 0 and sympy.simplify(sympy.diff(g, eps).subs(eps, 0)) == 0
    return bool(second and at_zero and coefficient.is_negative), coefficient


K51 = "θ̃ is a KKT point whose hidden inputs are all non-zero (m = 3, 4, 5, 10; linear and ReLU)"
N51 = "θ̃ is not a local minimum (m = 3, 4, 5, 10; linear and ReLU)"
D51 = "gradient flow from w_j(0) = (1, 1) reaches zero loss and converges in direction to θ̃ (m = 3, 4, 5, 10; " \
      "both losses)"


@criterion("(1 + ε)^(2/m) + (1 − ε)^(2/m) < 2 on (0, 1) by strict concavity (symbolic; m = None: every m > 2)")
def SHORTENS(depth: int | None) -> Decision:
    proved, coefficient = curve_shortens(depth)
    depths = np.array(C.THM51_DEPTHS if depth is None else (depth,), dtype=float)[:, None]
    eps = np.linspace(0.0, 1.0, 41)[1:-1]  # tightness on ε ∈ (0, 1) at the checked depths
    return Decision(proved, f"g'' = {coefficient}·(positive)", {"coefficient": str(coefficient)},
                    tightness("(1 + ε)^(2/m) + (1 − ε)^(2/m) < 2 (ε ∈ (0, 1), the checked depths m)",
                              (1 + eps) ** (2 / depths) + (1 - eps) ** (2 / depths), 2.0))


@claim(
    id="margin.thm5.1",
    ref="Thm 5.1, Sec. 5; proof in App. C.8",
    kind="theorem",
    title="Diagonal networks of depth m ≥ 3: a KKT limit with non-zero inputs that is not a local optimum",
    statement=("For every $m >= 3$, a depth-$m$ diagonal network (linear or ReLU) trained by gradient flow on the "
               "exponential or logistic loss from $w_j(0) = (1, 1)$ on the single sample $x = (1, 1)$, $y = 1$, "
               "reaches zero loss and converges in direction to the KKT point "
               "$tilde(w)_j = (2^(-1\\/m), 2^(-1\\/m))$, whose hidden inputs are all non-zero and which is "
               "not a local minimum of the max-margin problem."),
    hypotheses=plain("depth-m diagonal network, m ≥ 3, linear or ReLU", "exponential or logistic loss"),
    conclusions={K51: "certified", N51: "certified", D51: "confirmed"},
    profiles={"quick": "verify check on the files for m = 3, 4, 5, 10 (exact KKT point λ = 2^(1−2/m), witness curve, "
                       "second order at m = 3, global and per-layer optima, GF limit) and the other activation's KKT "
                       "point and curve; non-zero inputs and Euler's identity exactly; the curve lowers the norm on "
                       "all of (0, 1) (symbolic, every m > 2); flows with both losses; controls: depth 2, a feasible "
                       "non-stationary point, a nudged θ(0), a moved target",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("The paper proves the decrease 'for every sufficiently small ε'; it holds for every ε ∈ (0, 1) by "
                 "strict concavity of s ↦ s^(2/m)."),
                ("The statement is for every m ≥ 3; the KKT point, the witness curve and the flow are checked exactly "
                 "at m = 3, 4, 5, 10 only, so the conclusions are named with these instances. The symbolic "
                 "concavity step (the curve is shorter than θ̃) covers every m > 2."),
                "Zero loss and directional convergence rest in part on numeric flows: confirmed."),
)
def check_thm51(ctx: Context) -> None:
    conclusions = {"feasible": K51, "kkt": K51, "local_optimum": N51, "global_optimum": N51,
                   "gf_limit": D51}
    for m in C.THM51_DEPTHS:
        name = f"thm5.1-depth{m}"
        C.record_report(ctx, f"m = {m}", C.source(name),
                        {"feasible": True, "kkt": True, "local_optimum": False, "local_optimum #2": False,
                         "global_optimum": False, "gf_limit": True}, conclusions)
        C.record_report(ctx, f"m = {m}, other activation", C.edited(f"depth {m}, other activation",
                                                                    other_activation(m)),
                        {"kkt": True, "local_optimum": False}, conclusions)
        c = C.construction(name)
        ctx.prove(f"m = {m}: non-zero inputs", "exact", C.NONZERO_INPUTS(C.source(name), E.to_exact(c.theta)),
                  "every hidden pre-activation is non-zero", conclusion=K51)
        ctx.prove(f"m = {m}: Euler's identity", "exact", EULER_AT_KKT(C.source(name), m), "‖θ̃‖² = m·Σλ", conclusion=K51)
        if m == C.THM51_DEPTHS[0]:
            ctx.control(f"m = {m}: Euler's identity with degree m − 1", EULER_AT_KKT(C.source(name), m - 1),
                        "wrong constant: ‖θ̃‖² = mΣλ → (m − 1)Σλ", because="exact: True")
        C.record_ray(ctx, name, D51, control=m == 3)
    ctx.prove("the curve is shorter for every ε ∈ (0, 1) (every m > 2)", "symbolic", SHORTENS(None),
              "g(ε) = (1+ε)^(2/m) + (1−ε)^(2/m) with m = 2 + k, k > 0: g(0) = 2, g'(0) = 0, g'' < 0 (a strengthening "
              "of the paper's 'small ε')", conclusion=N51)
    ctx.control("the concavity step at depth 2", SHORTENS(2),
                "another depth: m = 2, where p(p − 1) = 0 (g ≡ 2) and the same argument does not shorten θ̃")
    for m in (3, 4):
        C.limits_agree(ctx, f"thm5.1-depth{m}", slopes=False, conclusion=D51)
    # controls: at depth 2 the same point is a global optimum, and the same check says so; a point with margin 2
    depth2 = C.document("thm5.1-depth3")
    depth2["architecture"]["depth"] = 2
    depth2.pop("initialization")
    depth2 = C.with_parameters(C.with_properties(depth2, {"check": "local_optimum"}),
                               [["2^(-1/2)", "2^(-1/2)"], [["2^(-1/2)", "2^(-1/2)"]]])
    C.control_property(ctx, "'not a local minimum' at depth 2", C.edited("depth 2", depth2), "local_optimum", False,
                       "another depth: m = 3 → 2")
    doubled = C.document("thm5.1-depth3")
    layers = doubled["parameters"]["layers"]
    layers[0] = [f"2*({v})" for v in layers[0]]
    doubled = C.with_properties(doubled, {"check": "kkt"})
    C.control_property(ctx, "KKT check at m = 3 with the first layer doubled", C.edited("m = 3, w1 doubled", doubled),
                       "kkt", True, "another point: w̃_1 → 2w̃_1 (margin 2, no active constraint)")


@criterion("the first layer's per-layer problem (activation patterns, exact) has an optimum below ‖W̃1‖²")
def FIRST_LAYER_SHORTER(name: str | C.Source, bounds: bool = True) -> Decision:
    c = C.resolve(name)
    layer = global_optimum.layer_global_optimum(c.model, c.theta, c.X, c.Y, bounds=bounds)
    first = c.model.split(E.to_exact(c.theta))[0]
    squared = E.dot(first, first)
    # the best layer found (``upper``) is the optimum only when a lower bound meets it (``optimum`` set)
    certified = layer.optimum is not None
    return Decision(certified and E.sign(layer.upper - squared) < 0,
                    f"activation patterns: min ‖W1‖² = {layer.optimum} against ‖W̃1‖² = {squared} (best layer found "
                    f"{layer.upper}, certified optimal: {certified}; {layer.message})",
                    {"layer_optimum": str(layer.optimum), "layer_squared_norm": str(squared)})


K53 = "θ̃ is a KKT point of the max-margin problem"
L53 = "the first layer of θ̃ is not a local minimum of its per-layer problem"
D53 = "gradient flow reaches zero loss and converges in direction to θ̃ (the file's loss)"


@claim(
    id="margin.thm5.3",
    ref="Thm 5.3, Sec. 5; proof in App. C.10",
    kind="theorem",
    title="Depth-2 ReLU: the first layer of the KKT limit is not even a local optimum of its per-layer problem",
    statement=("With the data and initialization of Theorem 4.2 (2), gradient flow reaches zero loss and converges "
               "in direction to a KKT point $tilde(theta)$ whose first layer is not a local minimum of "
               "$min 1\\/2 norm(W_1)^2$ s.t. $y_i Phi(theta'; x_i) >= 1$, where $theta'$ is $tilde(theta)$ with "
               "the first layer replaced by $W_1$."),
    hypotheses=plain("fully-connected depth-2 ReLU network, width 4, on ±e1, ±e2 with labels +1",
                     "exponential or logistic loss; w_i(0) = 2x_i, v_i(0) = 2"),
    conclusions={K53: "certified", L53: "certified", D53: "confirmed"},
    profiles={"quick": "verify check on the file (KKT point; a witness curve that moves only the first layer, exact; "
                       "the output layer's QP); the first layer's global optimum by activation patterns; GF limit "
                       "from Theorem 4.2 (2)'s file; controls: the same layer check on the output layer and on "
                       "Lemma C.6's first layer, the first layer's optimum without its lower bound, the KKT check "
                       "at v_1 = 11/10, the GF check against another point",
              "full": "as quick", "paper": "as quick"},
    notes=plain("Gradient flow reaching θ̃ rests on a numeric flow (Theorem 4.2 (2)'s file): confirmed."),
)
def check_thm53(ctx: Context) -> None:
    src = C.source("thm5.3")
    C.record_report(ctx, "θ̃", src, {"kkt": True, "layer_optimum (layer 1)": False},
                    {"kkt": K53, "layer_optimum": L53})
    C.record(ctx, "gradient flow reaches θ̃ (Theorem 4.2 (2)'s run)", C.source("thm4.2.2"), "gf_limit", True, D53)
    ctx.prove("the first layer's problem has a much smaller optimum", "exact", FIRST_LAYER_SHORTER("thm5.3"),
              conclusion=L53)
    ctx.control("the same first-layer optimum at Theorem 3.2's limit", FIRST_LAYER_SHORTER("thm3.2"),
                "another construction: Theorem 3.2's θ̃, whose first layer solves its per-layer problem")
    ctx.control("the same first layer without its lower bound", FIRST_LAYER_SHORTER("thm5.3", bounds=False),
                "dropped certificate: the solver's best layer alone, no Lagrangian lower bound (not proved optimal)",
                because="certified optimal: False")
    C.control_property(ctx, "the same layer check on the output layer", src, "layer_optimum (layer 2)", False,
                       "another layer: 1 → 2 (a convex QP that θ̃ solves)")
    C.control_property(ctx, "the same layer check on Lemma C.6's first layer", C.source("lemC.6"),
                       "layer_optimum (layer 1)", False, "another construction: Lemma C.6")
    shifted = C.with_parameters(C.with_properties(C.document("thm5.3"), {"check": "kkt"}),
                                [[[0, 1], [1, 0], [0, -1], [-1, 0]], [["11/10", 1, 1, 1]]])
    C.control_property(ctx, "KKT check with v_1 = 11/10", C.edited("v_1 = 11/10", shifted), "kkt", True,
                       "another point: v_1 = 1 → 11/10")
    elsewhere = C.with_parameters(C.with_properties(C.document("thm4.2.2"), {"check": "gf_limit"}),
                                  [[[0, 1], [1, 0], [0, -1], [-1, 0]], [[2, 1, 1, 1]]])
    C.control_property(ctx, "GF check against another direction", C.edited("v = (2, 1, 1, 1)", elsewhere),
                       "gf_limit", True, "another target: v = (1, 1, 1, 1) → (2, 1, 1, 1)")
