"""Paper 001, Sec. 5 and Apps. C.8, C.10: Theorem 5.1 (deep diagonal networks: a KKT limit with non-zero inputs that
is not a local optimum, for every depth m ≥ 3) and Theorem 5.3 (the first layer of a ReLU KKT limit need not be a
local optimum of its own per-layer problem).

The constructions are the files ``margin_thm5_1_depth{3,4,5,10}.toml`` (the depths the spec lists; each file has
one activation and the claim checks the other by editing the file's architecture) and ``margin_thm5_3.toml``.
"""

from __future__ import annotations

import sympy

from numerics import exact as E
from numerics import global_optimum, kkt
from theorems.margin_maximization import common as C
from verify import Context, claim, plain


def other_activation(m: int) -> dict:
    """The depth-m file with the other activation, checking the KKT point and the witness curve only."""
    doc = C.document(f"thm5.1-depth{m}")
    doc["architecture"]["activation"] = "linear" if doc["architecture"]["activation"] == "relu" else "relu"
    return C.with_properties(doc, *[p for p in doc["properties"] if p["check"] == "kkt" or "witness" in p])


def curve_shortens(depth: int | None = None) -> tuple[bool, sympy.Expr]:
    """g(ε) = (1 + ε)^p + (1 − ε)^p with p = 2/m has g(0) = 2, g'(0) = 0 and g'' = p(p − 1)·(positive) on (−1, 1);
    when p(p − 1) < 0, g(ε) < 2 — the curve is shorter than θ̃ — for every ε ∈ (0, 1), not only small ε (spec I8).
    ``depth`` None: every m > 2 (m = 2 + k, k > 0); else that depth."""
    k = sympy.Symbol("k", positive=True)
    m = 2 + k if depth is None else sympy.Integer(depth)
    eps = sympy.Symbol("e", positive=True)
    p = 2 / m
    bases = (1 + eps, 1 - eps)
    g = sum(base**p for base in bases)
    coefficient = sympy.factor(p * (p - 1))
    second = all(sympy.simplify(sympy.diff(base**p, eps, 2) - coefficient * base ** (p - 2)) == 0 for base in bases)
    at_zero = sympy.simplify(g.subs(eps, 0) - 2) == 0 and sympy.simplify(sympy.diff(g, eps).subs(eps, 0)) == 0
    return bool(second and at_zero and coefficient.is_negative), coefficient


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
    expected="certified",
    profiles={"quick": "verify check on the files for m = 3, 4, 5, 10 (exact KKT point λ = 2^(1−2/m), witness curve, "
                       "second order at m = 3, global and per-layer optima, GF limit) and the other activation's KKT "
                       "point and curve; non-zero inputs and Euler's identity exactly; the curve lowers the norm on "
                       "all of (0, 1) (symbolic, every m > 2); flows with both losses; control m = 2",
              "full": "as quick", "paper": "as quick"},
    notes=plain(("The paper proves the decrease 'for every sufficiently small ε'; it holds for every ε ∈ (0, 1) by "
                 "strict concavity of s ↦ s^(2/m) (spec I8)."),
                "The depths checked are those the spec lists (3, 4, 5, 10); the symbolic step covers every m > 2."),
)
def check_thm51(ctx: Context) -> None:
    for m in C.THM51_DEPTHS:
        name = f"thm5.1-depth{m}"
        rep = C.report(name)
        C.record_report(ctx, f"m = {m}", rep,
                        {"feasible": True, "kkt": True, "local_optimum": False, "local_optimum #2": False,
                         "global_optimum": False, "layer_optimum (layer 1)": True,
                         f"layer_optimum (layer {m})": True, "gf_limit": True})
        C.record_report(ctx, f"m = {m}, other activation", C.check(other_activation(m)),
                        {"kkt": True, "local_optimum": False})
        c = C.construction(name)
        first = kkt.kkt_check(c.model, c.theta, c.X, c.Y)
        squared, total = E.dot(c.theta, c.theta), E.canonical([sum(first.multipliers)])[0]
        ctx.prove(f"m = {m}: non-zero inputs and Euler's identity", "exact",
                  C.nonzero_inputs(c.model, c.theta, c.X) and first.exact and E.sign(squared - m * total) == 0,
                  f"every hidden pre-activation is non-zero; ‖θ̃‖² = {squared} = m·Σλ with λ = {total}",
                  {"squared_norm": str(squared), "multiplier": str(total)})
        ctx.prove(f"m = {m}: the flow stays on the ray of θ(0)", "exact",
                  C.flow_stays_on_ray(c.model, E.to_exact(c.theta0), c.X, c.Y),
                  "at w_j = (1, 1) the gradient is a multiple of θ, for σ'(0) ∈ {0, 1/2, 1}")
    proved, coefficient = curve_shortens()
    ctx.prove("the curve is shorter for every ε ∈ (0, 1)", "symbolic", proved,
              f"g(ε) = (1+ε)^(2/m) + (1−ε)^(2/m) with m = 2 + k, k > 0: g(0) = 2, g'(0) = 0, "
              f"g'' = {coefficient}·(positive) < 0 (strengthening of the paper's 'small ε', spec I8)")
    for m in (3, 4):
        C.limits_agree(ctx, f"thm5.1-depth{m}", slopes=False)
    # control: at depth 2 the same point is a global optimum, and the same check says so
    depth2 = C.document("thm5.1-depth3")
    depth2["architecture"]["depth"] = 2
    depth2.pop("initialization")
    depth2 = C.with_parameters(C.with_properties(depth2, {"check": "local_optimum"}),
                               [["2^(-1/2)", "2^(-1/2)"], [["2^(-1/2)", "2^(-1/2)"]]])
    local = C.result(C.check(depth2), "local_optimum")
    ctx.control("'not a local minimum' at depth 2", C.rejects(local, False), local.detail)
    ctx.control("the concavity step at depth 2", not curve_shortens(2)[0],
                "for m = 2 the coefficient p(p − 1) is 0 (g ≡ 2): the same argument does not shorten θ̃")


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
    expected="certified",
    profiles={"quick": "verify check on the file (KKT point; a witness curve that moves only the first layer, exact; "
                       "the output layer's QP); the first layer's global optimum by activation patterns; GF limit "
                       "from Theorem 4.2 (2)'s file; controls: the same layer check on the output layer and on "
                       "Lemma C.6's first layer",
              "full": "as quick", "paper": "as quick"},
)
def check_thm53(ctx: Context) -> None:
    rep = C.report("thm5.3")
    C.record_report(ctx, "θ̃", rep, {"kkt": True, "layer_optimum (layer 1)": False})
    C.record(ctx, "gradient flow reaches θ̃ (Theorem 4.2 (2)'s run)", C.result(C.report("thm4.2.2"), "gf_limit"), True)
    c = C.construction("thm5.3")
    layer = global_optimum.layer_global_optimum(c.model, c.theta, c.X, c.Y)
    first = c.model.split(E.to_exact(c.theta))[0]
    squared = E.dot(first, first)
    ctx.prove("the first layer's problem has a much smaller optimum", "exact",
              layer.optimum is not None and E.sign(layer.optimum - squared) < 0,
              f"activation patterns: min ‖W1‖² = {layer.optimum} < ‖W̃1‖² = {squared} ({layer.message})",
              {"layer_optimum": str(layer.optimum), "layer_squared_norm": str(squared)})
    output = C.result(rep, "layer_optimum", layer=2)
    ctx.control("the same layer check on the output layer", C.rejects(output, False), output.detail)
    lemma = C.result(C.report("lemC.6"), "layer_optimum", layer=1)
    ctx.control("the same layer check on Lemma C.6's first layer", C.rejects(lemma, False), lemma.detail)
