"""Paper 000, Apps. B–C: the pointwise lemmas behind Thms 2–3 (Lemmas 3–5, 7–11 and Eq. (13)).

Each symbolic proof runs on :class:`PatternModel`: the network with every weight and datum a symbol and the ReLU
replaced by a fixed activation pattern, which is the network itself wherever that pattern holds (with σ'(0) = 0
at kinks). Numeric evidence runs the engines on the float network.
"""

from __future__ import annotations

import numpy as np
import sympy

from numerics import exact as E
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.symbolic import generic_loss, is_identically_zero, weight_matrices
from numerics.tolerances import at_most
from numerics.univariate import certified_sign
from theorems.rank_minimization.criteria import all_vanish, identities
from theorems.rank_minimization.two_point_common import (
    FIRST,
    PRIVATE,
    PatternModel,
    flow_run,
    grid_data,
    neurons,
    paper_data,
)
from theorems.rank_minimization.two_point_setting import INTEGER_DATA, REGION_DEFINITIONS, kink_points
from verify import Context, Decision, claim, criterion, line, tightness


def cross(u: sympy.Matrix, v: sympy.Matrix) -> sympy.Expr:
    """u₁v₂ − u₂v₁: zero iff u ∥ v (in R²)."""
    return u[0] * v[1] - u[1] * v[0]


def with_row(row: tuple[int, int], i: int) -> PatternModel:
    """Neuron i on the fixed pattern ``row``, the other neuron on a pattern of free symbols."""
    model = PatternModel.build()
    active = model.active.copy()
    active[i, :] = sympy.Matrix([row])
    return PatternModel(active, model.W, model.V, model.Xc, model.Yc)


def best_fit_gap(H: np.ndarray, Y: np.ndarray) -> float:
    """min_V ‖VH − Y‖_F (columns convention) = ‖Y(I − H⁺H)‖_F."""
    return float(np.linalg.norm(Y - Y @ np.linalg.pinv(H) @ H))


# -- Lemmas 3–5 ---------------------------------------------------------------------------------------------
@criterion("det σ(WX) vanishes identically for w_2 = ratio·w_1, over the 9 sign patterns of (w_1ᵀx_1, w_1ᵀx_2)")
def parallel_rows_singular(ratio: sympy.Expr) -> Decision:
    """``ratio``: w_2 = ratio·w_1 (α > 0 in the lemma's proof; a control asks for −α); w_1ᵀx_j = ±u_j or 0 with
    u_j > 0."""
    u1, u2 = sympy.symbols("u1 u2", positive=True)
    determinants = {}
    for n1, z1 in (("+", u1), ("−", -u1), ("0", sympy.S.Zero)):
        for n2, z2 in (("+", u2), ("−", -u2), ("0", sympy.S.Zero)):
            hidden = sympy.Matrix([[sympy.Max(z1, 0), sympy.Max(z2, 0)],
                                   [sympy.Max(ratio * z1, 0), sympy.Max(ratio * z2, 0)]])
            determinants[f"signs ({n1}, {n2})"] = hidden.det()
    return all_vanish(determinants)


@claim(
    id="rank.lem3",
    ref="Lemma 3, App. B",
    kind="lemma",
    title="A rank-deficient zero-loss W has nonzero antiparallel rows",
    statement=("Under Assumption 1, if $N_(W,V)(X) = Y$ and $op(\"rank\")(W) < 2$, then $w_1, w_2 != 0$ and "
               "$w_2 = alpha w_1$ for some $alpha < 0$."),
    hypotheses=["Assumption 1 (rank Y = 2)", "W, V ∈ R^{2×2}"],
    conclusions={"w_1, w_2 ≠ 0 and w_2 = αw_1 with α < 0": "certified"},
    profiles={"quick": "symbolic determinant for every sign of w_1ᵀx_j", "full": "as quick", "paper": "as quick"},
)
def check_lem3(ctx: Context) -> None:
    alpha = sympy.Symbol("alpha", positive=True)
    ctx.prove("α > 0 makes σ(WX) singular", "symbolic", parallel_rows_singular(alpha),
              "for w_2 = αw_1 with α > 0, σ(αz) = ασ(z) for every sign of z, so det σ(WX) ≡ 0 over all 9 sign "
              "patterns; then rank(Vσ(WX)) ≤ 1 < rank Y; α = 0 and w_1 = 0 give a dead neuron (Lemma 4)")
    ctx.control("α < 0", parallel_rows_singular(-alpha),
                "the same determinant test with w_2 = αw_1, α < 0 is not identically 0 (w_1 ∈ S_1°, w_2 ∈ S_2°)")


DEAD_ROW = identities("det σ(WX) vanishes identically on the pattern")


@claim(
    id="rank.lem4",
    ref="Lemma 4, App. B",
    kind="lemma",
    title="A zero-loss network has no dead neuron",
    statement="Under Assumption 1, if $N_(W,V)(X) = Y$ then $w_i in.not cal(D)$ for $i = 1, 2$.",
    hypotheses=["Assumption 1"],
    conclusions={"no neuron of a zero-loss network lies in D": "certified"},
    profiles={"quick": "symbolic determinant on every pattern with a dead neuron", "full": "as quick",
              "paper": "as quick"},
)
def check_lem4(ctx: Context) -> None:
    ctx.prove("a dead row makes σ(WX) singular", "symbolic",
              DEAD_ROW({f"neuron {i + 1} dead": with_row((0, 0), i).hidden.det() for i in range(2)}),
              "w_i ∈ D means σ(w_iᵀx_j) = 0 for j = 1, 2: with that row of the pattern 0 and the other neuron's "
              "pattern free, det σ(WX) ≡ 0, so rank(Vσ(WX)) ≤ 1 < rank Y")
    ctx.control("neuron in S_1 instead of D",
                DEAD_ROW({f"neuron {i + 1} dead": with_row((1, 0), i).hidden.det() for i in range(2)}),
                "the same determinant test on the pattern w_i ∈ S_1 is not identically 0")


FROZEN = identities("the dead neuron's gradient vanishes identically")


@criterion("the engine's exact gradient in (w_1, v_1) is 0 at every exact point with w_1 ∈ D")
def frozen_at_dead_kinks(relu_slope_at_zero: float) -> Decision:
    data = INTEGER_DATA
    objective = Objective(fully_connected([2, 2, 2], relu_slope_at_zero=relu_slope_at_zero), data.X, data.Y,
                          "square")
    in_dead = [theta for theta in kink_points(data.X) if np.all(E.signs(data.X @ neurons(theta)[0][0]) <= 0)]
    moving = sum(bool(np.any(E.signs(objective.gradient(theta)[[0, 1, 4, 6]]))) for theta in in_dead)
    return Decision(moving == 0, f"{moving} of {len(in_dead)} points move", {"points": len(in_dead),
                                                                            "moving": moving})


@claim(
    id="rank.lem5",
    ref="Lemma 5, App. B",
    kind="lemma",
    title="A neuron that enters D is frozen, so zero loss is out of reach",
    statement=("Under Assumption 1, if gradient flow converges and $w_i(t) in cal(D)$ for some $i$ and $t >= 0$, "
               "then $N_(W(oo),V(oo))(X) != Y$: with $sigma'(0) = 0$ the gradient in $(w_i, v_i)$ vanishes on "
               "$cal(D)$, so $w_i$ stays in $cal(D)$ and Lemma 4 applies."),
    hypotheses=["Assumption 1", "σ'(0) = 0"],
    conclusions={"a neuron in D is frozen, so N(X) ≠ Y at the limit": "certified"},
    profiles={"quick": "symbolic gradient on the dead pattern; exact engine gradients at the D kinks",
              "full": "as quick", "paper": "as quick"},
)
def check_lem5(ctx: Context) -> None:
    def gradient_of_dead(i: int, row: tuple[int, int]) -> sympy.Matrix:
        model = with_row(row, i)
        gW, gV = model.gradient()
        return sympy.Matrix([*gW[i, :], *gV[:, i]])

    ctx.prove("zero gradient on the dead pattern", "symbolic",
              FROZEN({f"neuron {i + 1}": gradient_of_dead(i, (0, 0)) for i in range(2)}),
              "with neuron i's pattern row 0 (σ'(z) = 0 for z ≤ 0) and the other neuron free, ∂L/∂w_i ≡ 0 and "
              "∂L/∂v_i ≡ 0; so w_i stays in D and Lemma 4 excludes zero loss")
    ctx.prove("engine: exact zero at the kinks of D", "exact", frozen_at_dead_kinks(0.0),
              "every exact θ with w_1ᵀx_j ∈ {−1, 0} (incl. the rays of ∂D and w_1 = 0): the engine's gradient in "
              "(w_1, v_1) is exactly 0")
    ctx.control("σ'(0) = 1", frozen_at_dead_kinks(1.0),
                "with σ'(0) = 1 the same exact test finds points of ∂D where the neuron moves")


# -- Lemmas 7–9 ----------------------------------------------------------------------------------------------
ALONG_INPUT = identities("∂L/∂w_i − (v_iᵀr_i)x_i vanishes identically on the pattern")


@criterion("the engine's ∂L/∂w_1 is parallel to x_1 at every exact θ with w_1 ∈ S_1 (integer data), and those θ cover "
           "both the open part of S_1 and its boundary ray")
def gradient_along_first_input(relu_slope_at_zero: float, points: list[np.ndarray]) -> Decision:
    """``relu_slope_at_zero``: the engine's σ'(0) (the paper: 0)."""
    X = INTEGER_DATA.X
    objective = Objective(fully_connected([2, 2, 2], relu_slope_at_zero=relu_slope_at_zero), X, INTEGER_DATA.Y,
                          "square")
    first_neuron = [(theta, tuple(int(v) for v in E.signs(X @ neurons(theta)[0][0]))) for theta in points]
    in_first = [theta for theta, s in first_neuron if REGION_DEFINITIONS[FIRST](s)]  # Definition 1's S_1
    seen = sorted({s for _, s in first_neuron if REGION_DEFINITIONS[FIRST](s)}, reverse=True)
    gradients = [objective.gradient(theta) for theta in in_first]
    parallel = all(E.sign(cross(g[:2], X[0])) == 0 for g in gradients)
    covered = seen == [(1, 0), (1, -1)]  # w_1ᵀx_2 < 0 (open part) and w_1ᵀx_2 = 0 (boundary ray)
    return Decision(parallel and covered, f"{len(in_first)} points with w_1 ∈ S_1; ∂L/∂w_1 parallel to x_1 at all of "
                    f"them: {parallel}; sign patterns of w_1 seen: {seen} (open part and boundary ray: {covered})",
                    {"points": len(in_first), "patterns": str(seen)})


@claim(
    id="rank.lem7",
    ref="Lemma 7, App. B",
    kind="lemma",
    title="In S_i a neuron moves only along x_i",
    statement="Under Assumption 2, if $w_i(t) in cal(S)_i$ then $dot(w)_i(t) = c_t^((i)) x_i$ for some "
              "$c_t^((i)) in RR$ (namely $c_t^((i)) = -v_i^T (N(x_i) - y_i)$).",
    hypotheses=["Assumption 2", "σ'(0) = 0 (so the boundary ray of S_i counts)"],
    conclusions={"ẇ_i ∥ x_i while w_i ∈ S_i": "certified"},
    profiles={"quick": "symbolic gradient row on the pattern of S_i with the other neuron free; exact engine "
                       "gradients at S_i's kinks", "full": "as quick", "paper": "as quick"},
)
def check_lem7(ctx: Context) -> None:
    def along_input(row: tuple[int, int], i: int) -> sympy.Matrix:
        model = with_row(row, i)
        gW, _ = model.gradient()
        return gW[i, :].T - model.v(i).dot(model.residual[:, i]) * model.x(i)

    ctx.prove("∂L/∂w_i = (v_iᵀr_i) x_i on S_i", "symbolic",
              ALONG_INPUT({"neuron 1 in S_1": along_input((1, 0), 0), "neuron 2 in S_2": along_input((0, 1), 1)}),
              "neuron i on the pattern of S_i (active on x_i only), the other neuron's pattern free")
    ctx.control("neuron active on both inputs",
                ALONG_INPUT({"neuron 1 in S_1": along_input((1, 1), 0), "neuron 2 in S_2": along_input((0, 1), 1)}),
                "on the pattern of S (active on x_1 and x_2) the same identity fails")
    points = kink_points(INTEGER_DATA.X)
    ctx.prove("engine at S_1 and its boundary ray", "exact", gradient_along_first_input(0.0, points),
              "every exact θ with w_1 ∈ S_1, on its open part (w_1ᵀx_2 < 0) and its boundary ray (w_1ᵀx_2 = 0), "
              "both present: the engine's ∂L/∂w_1 is parallel to x_1")
    ctx.control("σ'(0) = 1 convention", gradient_along_first_input(1.0, points),
                "with σ'(0) = 1 the neuron counts as active on x_2 on the boundary ray, and the engine's ∂L/∂w_1 there "
                "picks up a component along x_2", because="parallel to x_1 at all of them: False")
    open_part = [theta for theta in points if E.sign(INTEGER_DATA.X[1] @ neurons(theta)[0][0]) != 0]
    ctx.control("the boundary ray left out", gradient_along_first_input(0.0, open_part),
                "the same test on the points with w_1ᵀx_2 ≠ 0 only: the boundary ray, where the convention σ'(0) = 0 "
                "matters, is not covered", because="open part and boundary ray: False")


@criterion("on S_1×S_2 zero loss gives ‖w_i‖² ≥ (ε + sqrt(ε² + 4))/2 ≥ bound(ε) for ε ∈ [−1, 1]")
def lemma8_chain(bound: sympy.Expr, eps: sympy.Symbol) -> Decision:
    """``bound``: the claimed lower bound on ‖w_i‖² (and, with −ε, on ‖v_i‖²) as an expression in ``eps``."""
    model = PatternModel.build(PRIVATE)
    own_output = all(is_identically_zero(model.residual[:, i] - (model.w(i).dot(model.x(i)) * model.v(i)
                                                                 - model.y(i))).proved for i in range(2))
    e = sympy.Symbol("e", positive=True)
    tight = (eps + sympy.sqrt(eps**2 + 4)) / 2
    root = is_identically_zero(tight**2 - eps * tight - 1).proved  # ‖w‖² solves t² − εt − 1 = 0 at equality
    complement = is_identically_zero(tight - eps - tight.subs(eps, -eps)).proved  # ‖v‖² = ‖w‖² − ε: mirror bound
    signs = [certified_sign(tight.subs(eps, s * e) - bound.subs(eps, s * e), e, 1) for s in (1, -1)]
    detail = (f"N(x_i) = (w_iᵀx_i)v_i on S_1×S_2: {own_output}; root identity: {root}; mirror identity: "
              f"{complement}; tight root − bound on ε ∈ (0, 1]: {signs[0].description}; on ε ∈ [−1, 0): "
              f"{signs[1].description}")
    # tightness on the instances ε = −1, −0.95, …, 1: the smallest ‖w_i‖ at zero loss (the tight root) against
    # the bound, both as printed (square roots)
    grid = np.linspace(-1.0, 1.0, 41)
    smallest = [float(sympy.sqrt(tight.subs(eps, sympy.Float(g)))) for g in grid]
    bounds = [float(sympy.sqrt(sympy.Max(bound.subs(eps, sympy.Float(g)), 0))) for g in grid]
    record = tightness("‖w_i‖, ‖v_i‖ ≥ sqrt(1 − |ε_i|) (at the smallest ‖w_i‖ with zero loss, ε_i ∈ [−1, 1])",
                       smallest, bounds, sense="lower")
    if not (own_output and root and complement):
        return Decision(None, detail, tightness=record)
    if all(c.sign in (0, 1) for c in signs):
        return Decision(True, detail, tightness=record)
    return Decision(False if any(c.sign == -1 for c in signs) else None, detail, tightness=record)


@claim(
    id="rank.lem8",
    ref="Lemma 8, App. B",
    kind="lemma",
    title="Zero loss with w_i ∈ S_i forces ‖w_i‖, ‖v_i‖ ≥ sqrt(1 − |ε_i|)",
    statement=("Under Assumptions 1–2, if $N_(W,V)(X) = Y$ with $w_i in cal(S)_i$ for $i = 1, 2$ and "
               "$epsilon^((i)) = norm(w_i)^2 - norm(v_i)^2$, then $norm(w_i), norm(v_i) >= sqrt(1 - "
               "abs(epsilon^((i))))$."),
    hypotheses=["Assumptions 1–2"],
    conclusions={"‖w_i‖, ‖v_i‖ ≥ sqrt(1 − |ε_i|) (|ε_i| ≤ 1)": "certified"},
    profiles={"quick": "symbolic reduction to ‖w_i‖‖v_i‖ ≥ 1, the exact minimum under the constraint, Taylor + "
                       "interval sign certificates", "full": "as quick", "paper": "as quick"},
    notes=[("Loose: the exact minimum is ‖w_i‖² = (ε + sqrt(ε² + 4))/2, e.g. 0.9396² at ε = −1/4 where the lemma "
            "gives 0.866²; propagated through Lemma 6 it would raise Thm 2's radius to about 0.94 cos(φ/2)."),
           "For |ε| > 1 the bound is vacuous (the square root is undefined); it is used with |ε| < 1/4."],
)
def check_lem8(ctx: Context) -> None:
    eps = sympy.Symbol("epsilon", real=True)
    ctx.prove("sqrt(1 − |ε|) ≤ tight bound ≤ ‖w_i‖", "symbolic", lemma8_chain(1 - sympy.Abs(eps), eps),
              "on S_1×S_2, N(x_i) = (w_iᵀx_i)v_i, so zero loss gives 1 ≤ ‖w_i‖‖v_i‖; then t = ‖w_i‖² ≥ 0 has "
              "t(t − ε) ≥ 1, i.e. t ≥ (ε + sqrt(ε² + 4))/2 (the positive root), and ‖v_i‖² ≥ the same with −ε; "
              "the root is at least 1 − |ε| on [−1, 1] (equality at ε = 0); for |ε| > 1 the bound is vacuous")
    ctx.control("bound ‖w_i‖ ≥ 1", lemma8_chain(sympy.Integer(1), eps),
                "the same chain with the bound 1 fails: the tight root is below 1 for ε < 0 (e.g. 0.9396² at "
                "ε = −1/4, attained by w_1 = 0.9396·x_1, v_1 = y_1/0.9396)")


def depth3_balance_identities() -> dict[str, sympy.Expr]:
    """Per-neuron balance for a depth-3 ReLU network (widths 2, 2, 2, 1) on a free-symbol pattern, any loss."""
    W1, W2, W3 = weight_matrices([2, 2, 2, 1])
    x = sympy.Matrix(2, 1, sympy.symbols("x0 x1", real=True))
    d1 = sympy.Matrix(2, 1, sympy.symbols("p0 p1", real=True))
    d2 = sympy.Matrix(2, 1, sympy.symbols("q0 q1", real=True))
    out = W3 * d2.multiply_elementwise(W2 * d1.multiply_elementwise(W1 * x))
    loss, _ = generic_loss(out)
    results = {}
    for layer, (lower, upper) in enumerate(((W1, W2), (W2, W3))):
        for i in range(lower.rows):
            incoming = sum(w * sympy.diff(loss, w) for w in lower[i, :])
            outgoing = sum(v * sympy.diff(loss, v) for v in upper[:, i])
            results[f"depth 3, layer {layer + 1}, neuron {i + 1}"] = incoming - outgoing
    return results


BALANCE = identities("⟨w, ∂L/∂w⟩ − ⟨v, ∂L/∂v⟩ vanishes identically")


@claim(
    id="rank.lem9",
    ref="Lemma 9, App. B (cited from Du et al. 2018)",
    kind="lemma",
    title="Gradient flow conserves each neuron's incoming-minus-outgoing squared norm",
    statement=("For a depth-$k$ ReLU network trained by gradient flow on any differentiable loss, "
               "$norm(W^((l))[i, :])^2 - norm(W^((l+1))[:, i])^2$ is constant in time for every hidden neuron, and so "
               "is $norm(W^((l)))_F^2 - norm(W^((l+1)))_F^2$."),
    hypotheses=["ReLU (positively homogeneous) activation, any σ'(0)", "gradient flow"],
    conclusions={"‖w_i‖² − ‖v_i‖² is conserved along gradient flow": "assumed"},
    cited=True,
    profiles={"quick": "symbolic identities (2×2 network on every pattern; depth 3 with a generic loss); float flows "
                       "to t = 50; the exact one-step GD identity", "full": "as quick", "paper": "as quick"},
)
def check_lem9(ctx: Context) -> None:
    model = PatternModel.build()
    gW, gV = model.gradient()
    per_neuron = {f"2×2, neuron {i + 1}": model.w(i).dot(gW[i, :].T) - model.v(i).dot(gV[:, i]) for i in range(2)}
    ctx.support("⟨w_i, ∂L/∂w_i⟩ = ⟨v_i, ∂L/∂v_i⟩", "symbolic", BALANCE({**per_neuron, **depth3_balance_identities()}),
                "d/dt(‖w_i‖² − ‖v_i‖²) = −2(⟨w_i, ∂_{w_i}L⟩ − ⟨v_i, ∂_{v_i}L⟩) ≡ 0 on every activation pattern of the "
                "2×2 network (σ(z) = σ'(z)z) and for all four hidden neurons of a depth-3 network with a generic loss")
    ctx.control("‖w_1‖² − ‖v_2‖² (another neuron's outgoing weights)",
                BALANCE({**per_neuron, "2×2, neuron 1": model.w(0).dot(gW[0, :].T) - model.v(1).dot(gV[:, 1])}),
                "the same identity check refutes conservation of the mismatched pair")

    drift, curves = 0.0, {}
    for k, data in enumerate([paper_data(), grid_data(2.5)]):
        theta0 = ctx.rng(f"flow-{k}").normal(size=8) * 0.4
        run = flow_run(data, theta0, 50.0, loss_tol=1e-300)
        w, v = neurons(run.theta)
        balance = np.sum(w**2, axis=-1) - np.sum(v**2, axis=-1)
        drift = max(drift, float(np.max(np.abs(balance - balance[0]))))
        curves[f"{data.label}, neuron 1"] = (run.t[1:], np.abs(balance[1:, 0] - balance[0, 0]) + 1e-18)
    drift_limit = 1e-8
    ctx.support("float flows", "numeric", at_most(drift, drift_limit),
                f"LSODA (rtol 1e-10) to t = 50 across kinks: drift ≤ {drift_limit:g}",
                {"max_drift": drift}, plot=line("Drift of ‖w_1‖² − ‖v_1‖² along gradient flow", curves, xlabel="t",
                                               ylabel="|drift|", xscale="log", yscale="log"))

    eta = sympy.Rational(1, 10)
    objective = INTEGER_DATA.objective
    # v's squared entries have different row and column sums, so a sum over the wrong axis shows
    theta = E.to_exact([sympy.Rational(1, 2), sympy.Rational(1, 3), -1, 2, sympy.Rational(3, 4), -1, 3, 2])
    gradient = objective.gradient(theta)
    step = theta - eta * gradient
    (w0, v0), (w1, v1), (gw, gv) = neurons(theta), neurons(step), neurons(gradient)
    change = np.sum(w1**2, axis=1) - np.sum(v1**2, axis=1) - np.sum(w0**2, axis=1) + np.sum(v0**2, axis=1)
    predicted = eta**2 * (np.sum(gw**2, axis=1) - np.sum(gv**2, axis=1))
    ctx.support("one GD step: Δ = η²(‖∂_wL‖² − ‖∂_vL‖²)", "exact", not np.any(E.signs(change - predicted)),
                f"exact arithmetic on integer data, η = {eta}: the balance changes by exactly the second-order term, "
                "so GD drifts by O(η²) per step", {"eta": str(eta), "balance_changes": str(tuple(E.canonical(change)))})


# -- App. C: Eq. (13), Lemmas 10–11 -------------------------------------------------------------------------
def private_decomposition(active) -> dict[str, sympy.Matrix]:
    """Eq. (13) on a pattern: ∂L/∂v_i = (w_iᵀx_i)ϕ_i, ∂L/∂w_i = (v_iᵀϕ_i)x_i, L = ½Σ‖ϕ_i‖²
    with ϕ_i = (w_iᵀx_i)v_i − y_i."""
    model = PatternModel.build(active)
    gW, gV = model.gradient()
    phi = [model.w(i).dot(model.x(i)) * model.v(i) - model.y(i) for i in range(2)]
    checks = {f"∂L/∂v_{i + 1}": gV[:, i] - model.w(i).dot(model.x(i)) * phi[i] for i in range(2)}
    checks.update({f"∂L/∂w_{i + 1}": gW[i, :].T - model.v(i).dot(phi[i]) * model.x(i) for i in range(2)})
    checks["L"] = sympy.Matrix([model.loss - sum(p.dot(p) for p in phi) / 2])
    return checks


SPLIT = identities("Eq. (13)'s gradient blocks and loss split vanish identically on the pattern")


@claim(
    id="rank.eq13",
    ref="Eq. (13), App. C",
    kind="equation",
    title="Inside S_1°×S_2° the loss and its gradient split by neuron",
    statement=("If $w_i in cal(S)_i without partial cal(S)_i$ for $i = 1, 2$, then with "
               "$phi_i = (w_i^T x_i) v_i - y_i$: $partial L \\/ partial v_i = (w_i^T x_i) phi_i$, "
               "$partial L \\/ partial w_i = (v_i^T phi_i) x_i$ and $L = 1\\/2 norm(phi_1)^2 + 1\\/2 norm(phi_2)^2$."),
    hypotheses=["Assumption 2"],
    conclusions={"Eq. (13): gradient and loss split by neuron on S_1°×S_2°": "certified"},
    profiles={"quick": "symbolic identities on the pattern of S_1×S_2", "full": "as quick", "paper": "as quick"},
)
def check_eq13(ctx: Context) -> None:
    ctx.prove("Eq. (13)", "symbolic", SPLIT(private_decomposition(PRIVATE)),
              "five identities (two gradient blocks per neuron and the loss split) with every weight and datum "
              "symbolic, on the activation pattern of S_1×S_2")
    ctx.control("neuron 1 in S instead of S_1", SPLIT(private_decomposition(((1, 1), (0, 1)))),
                "on the pattern where w_1 is active on both inputs the same identities fail")


def neuron_loss_rate(active) -> dict[str, sympy.Expr]:
    """(dL¹/dt = −‖∇_{θ_1}L¹‖² on the pattern, ‖∂L/∂v_1‖ = (w_1ᵀx_1)‖y_1‖ at v_1 = 0 there)."""
    model = PatternModel.build(active)
    phi = model.w(0).dot(model.x(0)) * model.v(0) - model.y(0)
    loss1 = phi.dot(phi) / 2
    params = list(model.W[0, :]) + list(model.V[:, 0])
    own = sum(sympy.diff(loss1, p) ** 2 for p in params)
    _, gV = model.gradient()
    at_zero = {model.V[0, 0]: 0, model.V[1, 0]: 0}
    return {"dL¹/dt + ‖∇_{θ_1}L¹‖²": model.flow_derivative(loss1) + own,
            "‖∂L/∂v_1‖² − (w_1ᵀx_1)²‖y_1‖² at v_1 = 0": (gV[:, 0].dot(gV[:, 0]) - model.w(0).dot(model.x(0)) ** 2
                                                     * model.y(0).dot(model.y(0))).subs(at_zero)}


NEURON_RATE = identities("Eq. (14) and the initial gradient norm vanish identically on the pattern")


@claim(
    id="rank.lem10",
    ref="Lemma 10, App. C (Eq. (14))",
    kind="lemma",
    title="Each neuron's loss is nonincreasing in S_1°×S_2° and strictly decreasing at first from v = 0",
    statement=("While $w_i(t) in cal(S)_i without partial cal(S)_i$ for $i = 1, 2$: "
               "$d\\/(d t) L^i = -norm(nabla_(theta_i) L^i)^2 <= 0$ with $L^i = 1\\/2 norm(phi_i)^2$; if moreover this "
               "holds on $[0, t_1]$ and $v_i(0) = 0$, then $L^i(theta(t_1)) < L^i(theta(0))$."),
    hypotheses=["Assumptions 1–2", "v_i(0) = 0"],
    conclusions={"dL^i/dt = −‖∇_(θ_i)L^i‖² ≤ 0, and L^i(t_1) < L^i(0) from v_i(0) = 0": "certified"},
    notes=[("The lemma does not restate its hypotheses; Assumptions 1–2 come from Thm 3's context (only y_i ≠ 0 and "
           "w_i ∈ S_i° are used).")],
    profiles={"quick": "symbolic Eq. (14) and the initial gradient", "full": "as quick", "paper": "as quick"},
)
def check_lem10(ctx: Context) -> None:
    ctx.prove("Eq. (14) and ‖∇L^i(0)‖ > 0", "symbolic", NEURON_RATE(neuron_loss_rate(PRIVATE)),
              "on S_1×S_2, dL¹/dt + ‖∇_{θ_1}L¹‖² ≡ 0 (L¹ depends on θ_1 only, and ∇_{θ_1}L = ∇_{θ_1}L¹); at v_1 = 0, "
              "‖∂L/∂v_1‖ = (w_1ᵀx_1)‖y_1‖ > 0, so the rate is negative on some [0, t_0] and L¹(t_1) < L¹(0) "
              "(same for neuron 2 by symmetry)")
    ctx.control("neuron 1 active on both inputs", NEURON_RATE(neuron_loss_rate(((1, 1), (0, 1)))),
                "on the pattern of S for neuron 1 the same identity dL¹/dt = −‖∇_{θ_1}L¹‖² fails")


START = identities("g_1(0), ġ_1(0) + (w_1ᵀx_1)‖y_1‖² and v̇_1 × y_1 on span{y_1} vanish identically")


@claim(
    id="rank.lem11",
    ref="Lemma 11, App. C",
    kind="lemma",
    title="From v = 0 the output weights stay on span{y_i} and v_iᵀϕ_i turns negative at once",
    statement=("If $w_i(0) in cal(S)_i without partial cal(S)_i$ and $v_i(0) = 0$ for $i = 1, 2$, then for all "
               "small $t' > 0$: $w_i(t) in cal(S)_i without partial cal(S)_i$ on $[0, t']$, "
               "$v_i(t')^T phi_i(t') < 0$, $v_i(t') in op(\"span\"){y_i}$ and $L^i(theta(t')) < L^i(theta(0))$."),
    hypotheses=["Assumptions 1–2", "v_i(0) = 0"],
    conclusions={"v_i(t')ᵀϕ_i(t') < 0 and v_i(t') ∈ span{y_i} for small t' > 0": "certified"},
    notes=["The lemma does not restate its hypotheses; Assumptions 1–2 come from Thm 3's context."],
    profiles={"quick": "symbolic g_i(0) = 0, ġ_i(0) < 0 and span invariance", "full": "as quick",
              "paper": "as quick"},
)
def check_lem11(ctx: Context) -> None:
    model = PatternModel.build(PRIVATE)
    g = model.v(0).dot(model.w(0).dot(model.x(0)) * model.v(0) - model.y(0))  # g_1 = v_1ᵀϕ_1
    b = sympy.Symbol("b", real=True)
    on_span = {model.V[0, 0]: b * model.Yc[0, 0], model.V[1, 0]: b * model.Yc[1, 0]}
    _, gV = model.gradient()

    def start_identities(v0: sympy.Expr) -> dict[str, sympy.Expr]:
        """At v_1(0) = v0·y_1 (the lemma: v0 = 0)."""
        start = {model.V[0, 0]: v0 * model.Yc[0, 0], model.V[1, 0]: v0 * model.Yc[1, 0]}
        return {"g_1(0)": g.subs(start),
                "ġ_1(0) + (w_1ᵀx_1)‖y_1‖²": (model.flow_derivative(g) + model.w(0).dot(model.x(0))
                                             * model.y(0).dot(model.y(0))).subs(start),
                "v̇_1 × y_1 at v_1 = b y_1": cross(gV[:, 0], model.y(0)).subs(on_span)}

    ctx.prove("g_1(0) = 0, ġ_1(0) = −(w_1ᵀx_1)‖y_1‖², v̇_1 ∥ y_1 on span{y_1}", "symbolic",
              START(start_identities(sympy.Integer(0))),
              "on S_1×S_2: ġ_1 at v_1 = 0 equals −(w_1ᵀx_1)‖y_1‖² < 0, so g_1(t') < 0 for small t' > 0; at "
              "v_1 = b y_1 the field v̇_1 is parallel to y_1, so the linear ODE for v_1 keeps it on span{y_1}; "
              "S_1° is open and Lemma 10 gives the loss (neuron 2 by symmetry)")
    ctx.control("v_1(0) = −0.2 y_1 instead of 0", START(start_identities(sympy.Rational(-1, 5))),
                "from v_1(0) = −0.2y_1 the same identities fail: g_1(0) = 0.04w_1ᵀx_1 + 0.2 ≠ 0 (and > 0)")
