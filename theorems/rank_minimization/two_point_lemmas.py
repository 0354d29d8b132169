"""Paper 000, Apps. B–C: the pointwise lemmas behind Thms 2–3 (Lemmas 3–5, 7–11 and Eq. (13)).

Each symbolic proof runs on :class:`PatternModel`: the network with every weight and datum a symbol and the ReLU
replaced by a fixed activation pattern, which is the network itself wherever that pattern holds (with σ'(0) = 0
at kinks). Numeric evidence runs the engines on the float network.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy

from numerics import exact as E
from numerics.descent import gradient_descent
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.symbolic import generic_loss, is_identically_zero, weight_matrices
from numerics.univariate import certified_sign
from theorems.rank_minimization.two_point_common import (
    FIRST,
    PRIVATE,
    SECOND,
    PatternModel,
    flow_run,
    grid_data,
    neurons,
    paper_data,
    reduced_state,
    region,
    uniform_directions,
)
from theorems.rank_minimization.two_point_setting import INTEGER_DATA, kink_points
from verify import Context, claim, line


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
@claim(
    id="rank.lem3",
    ref="Lemma 3, App. B",
    kind="lemma",
    title="A rank-deficient zero-loss W has nonzero antiparallel rows",
    statement=("Under Assumption 1, if $N_(W,V)(X) = Y$ and $op(\"rank\")(W) < 2$, then $w_1, w_2 != 0$ and "
               "$w_2 = alpha w_1$ for some $alpha < 0$."),
    hypotheses=["Assumption 1 (rank Y = 2)", "W, V ∈ R^{2×2}"],
    expected="certified",
    profiles={"quick": "symbolic determinant for every sign of w_1ᵀx_j; 2000 random rank-one W against Eckart–Young",
              "full": "20000 random W", "paper": "as full"},
)
def check_lem3(ctx: Context) -> None:
    alpha, u1, u2 = sympy.symbols("alpha u1 u2", positive=True)
    proportional = []
    for z1 in (u1, -u1, sympy.S.Zero):
        for z2 in (u2, -u2, sympy.S.Zero):  # pre-activations of w_1 on x_1, x_2; w_2 = αw_1 has α z
            hidden = sympy.Matrix([[sympy.Max(z1, 0), sympy.Max(z2, 0)],
                                   [sympy.Max(alpha * z1, 0), sympy.Max(alpha * z2, 0)]])
            proportional.append(is_identically_zero(hidden.det()).proved)
    ctx.prove("α > 0 makes σ(WX) singular", "symbolic", all(proportional),
              "for w_2 = αw_1 with α > 0, σ(αz) = ασ(z) for every sign of z, so det σ(WX) ≡ 0 over all 9 sign "
              "patterns; then rank(Vσ(WX)) ≤ 1 < rank Y; α = 0 and w_1 = 0 give a dead neuron (Lemma 4)",
              {"patterns": len(proportional)})

    rng = ctx.rng("rank-one")
    count = ctx.pick(2000, 20000)
    data = grid_data(2.0)
    sigma_min = float(np.linalg.svd(data.Y, compute_uv=False)[-1])
    gaps = []
    for _ in range(count):
        w = rng.normal(size=2) * np.exp(rng.uniform(-2, 2))
        W = np.array([w, rng.uniform(0.01, 10) * w])
        gaps.append(best_fit_gap(np.maximum(W @ data.X.T, 0), data.Y.T))
    ctx.support("Eckart–Young margin", "numeric", min(gaps) >= sigma_min - 1e-12,
                f"{count} random W with w_2 = αw_1, α > 0 (φ = 2 data): min_V ‖Vσ(WX) − Y‖_F ≥ σ_min(Y)",
                {"min_gap": min(gaps), "sigma_min_Y": sigma_min})

    negative = sympy.Matrix([[sympy.Max(u1, 0), sympy.Max(-u2, 0)], [sympy.Max(-alpha * u1, 0),
                                                                      sympy.Max(alpha * u2, 0)]])
    control = is_identically_zero(negative.det())
    ctx.control("α < 0", not control.proved,
                "the same determinant test with w_2 = αw_1, α < 0 (w_1 ∈ S_1°) is not identically 0: "
                + control.description)


@claim(
    id="rank.lem4",
    ref="Lemma 4, App. B",
    kind="lemma",
    title="A zero-loss network has no dead neuron",
    statement="Under Assumption 1, if $N_(W,V)(X) = Y$ then $w_i in.not cal(D)$ for $i = 1, 2$.",
    hypotheses=["Assumption 1"],
    expected="certified",
    profiles={"quick": "symbolic determinant on every pattern with a dead neuron; 2000 random dead-neuron networks",
              "full": "20000 random networks", "paper": "as full"},
)
def check_lem4(ctx: Context) -> None:
    dead = [is_identically_zero(with_row((0, 0), i).hidden.det()) for i in range(2)]
    ctx.prove("a dead row makes σ(WX) singular", "symbolic", all(z.proved for z in dead),
              "w_i ∈ D means σ(w_iᵀx_j) = 0 for j = 1, 2: with that row of the pattern 0 and the other neuron's "
              "pattern free, det σ(WX) ≡ 0, so rank(Vσ(WX)) ≤ 1 < rank Y")
    rng = ctx.rng("dead")
    count = ctx.pick(2000, 20000)
    data = paper_data()
    gaps = []
    for _ in range(count):
        W = rng.normal(size=(2, 2))
        W[0] = np.linalg.solve(data.X, -np.abs(rng.normal(size=2)))  # w_1ᵀx_j < 0 for both inputs: dead
        gaps.append(best_fit_gap(np.maximum(W @ data.X.T, 0), data.Y.T))
    ctx.support("loss bounded away from 0", "numeric", min(gaps) >= 1 - 1e-12,
                f"{count} random W with w_1 ∈ D on the Sec. 3.1 data (Y = I): min_V ‖Vσ(WX) − Y‖_F ≥ σ_min(Y) = 1",
                {"min_gap": min(gaps)})
    live = is_identically_zero(with_row((1, 0), 0).hidden.det())
    ctx.control("neuron in S_1 instead of D", not live.proved,
                "the same determinant test on the pattern w_1 ∈ S_1 is not identically 0: " + live.description)


@claim(
    id="rank.lem5",
    ref="Lemma 5, App. B",
    kind="lemma",
    title="A neuron that enters D is frozen, so zero loss is out of reach",
    statement=("Under Assumption 1, if gradient flow converges and $w_i(t) in cal(D)$ for some $i$ and $t >= 0$, "
               "then $N_(W(oo),V(oo))(X) != Y$: with $sigma'(0) = 0$ the gradient in $(w_i, v_i)$ vanishes on "
               "$cal(D)$, so $w_i$ stays in $cal(D)$ and Lemma 4 applies."),
    hypotheses=["Assumption 1", "σ'(0) = 0"],
    expected="certified",
    profiles={"quick": "symbolic gradient on the dead pattern; exact engine gradients at the D kinks; 3000 float GD "
                       "steps from a neuron on ∂D", "full": "as quick", "paper": "as quick"},
)
def check_lem5(ctx: Context) -> None:
    frozen = []
    for i in range(2):
        model = with_row((0, 0), i)
        gW, gV = model.gradient()
        frozen.append(is_identically_zero(sympy.Matrix([*gW[i, :], *gV[:, i]])).proved)
    ctx.prove("zero gradient on the dead pattern", "symbolic", all(frozen),
              "with neuron i's pattern row 0 (σ'(z) = 0 for z ≤ 0) and the other neuron free, ∂L/∂w_i ≡ 0 and "
              "∂L/∂v_i ≡ 0")
    objective = INTEGER_DATA.objective
    in_dead = [theta for theta in kink_points(INTEGER_DATA.X)
               if np.all(E.signs(INTEGER_DATA.X @ neurons(theta)[0][0]) <= 0)]
    moving = sum(bool(np.any(E.signs(objective.gradient(theta)[[0, 1, 4, 6]]))) for theta in in_dead)
    ctx.prove("engine: exact zero at the kinks of D", "exact", moving == 0,
              "every exact θ with w_1ᵀx_j ∈ {−1, 0} (incl. the rays of ∂D and w_1 = 0): the engine's gradient in "
              "(w_1, v_1) is exactly 0", {"points": len(in_dead)})

    def freezes(network) -> bool:
        data = INTEGER_DATA.as_float()
        theta0 = np.array([1.0, -2.0, 0.3, 0.9, 0.7, -0.4, 0.5, 0.8])  # w_1 ⊥ x_1, w_1ᵀx_2 = −3: on ∂D
        run = gradient_descent(Objective(network, data.X, data.Y, "square"), theta0, 3000, 1e-2,
                               record_every=3000)
        return bool(np.array_equal(run.final[[0, 1, 4, 6]], theta0[[0, 1, 4, 6]]))

    ctx.support("GD keeps the neuron on ∂D", "numeric", freezes(fully_connected([2, 2, 2])),
                "3000 steps of GD (η = 0.01) from w_1 on the boundary ray of D: (w_1, v_1) unchanged bit for bit")
    ctx.control("σ'(0) = 1", not freezes(fully_connected([2, 2, 2], relu_slope_at_zero=1.0)),
                "with σ'(0) = 1 the same run moves w_1 off ∂D")


# -- Lemmas 7–9 ----------------------------------------------------------------------------------------------
@claim(
    id="rank.lem7",
    ref="Lemma 7, App. B",
    kind="lemma",
    title="In S_i a neuron moves only along x_i",
    statement="Under Assumption 2, if $w_i(t) in cal(S)_i$ then $dot(w)_i(t) = c_t^((i)) x_i$ for some "
              "$c_t^((i)) in RR$ (namely $c_t^((i)) = -v_i^T (N(x_i) - y_i)$).",
    hypotheses=["Assumption 2", "σ'(0) = 0 (so the boundary ray of S_i counts)"],
    expected="certified",
    profiles={"quick": "symbolic gradient row on the pattern of S_i with the other neuron free; exact engine "
                       "gradients at S_i's kinks; 2000 random float points", "full": "20000 points",
              "paper": "as full"},
)
def check_lem7(ctx: Context) -> None:
    def along_input(row: tuple[int, int], i: int) -> bool:
        model = with_row(row, i)
        gW, _ = model.gradient()
        return is_identically_zero(gW[i, :].T - model.v(i).dot(model.residual[:, i]) * model.x(i)).proved

    ctx.prove("∂L/∂w_i = (v_iᵀr_i) x_i on S_i", "symbolic", along_input((1, 0), 0) and along_input((0, 1), 1),
              "neuron i on the pattern of S_i (active on x_i only), the other neuron's pattern free")
    objective = INTEGER_DATA.objective
    in_first = [theta for theta in kink_points(INTEGER_DATA.X)
                if tuple(E.signs(INTEGER_DATA.X @ neurons(theta)[0][0])) in ((1, 0), (1, -1))]
    parallel = all(E.sign(objective.gradient(theta)[0] * INTEGER_DATA.X[0][1]
                          - objective.gradient(theta)[1] * INTEGER_DATA.X[0][0]) == 0 for theta in in_first)
    ctx.prove("engine at S_1 and its boundary ray", "exact", parallel,
              "every exact θ with w_1 ∈ S_1 (w_1ᵀx_2 ∈ {−1, 0}): the engine's ∂L/∂w_1 is parallel to x_1",
              {"points": len(in_first)})

    rng = ctx.rng("points")
    data = grid_data(2.0)
    count = ctx.pick(2000, 20000)
    thetas = rng.normal(size=(count, 8))
    in_sector = region(thetas[:, :2], data.X) == FIRST
    gradients = data.objective.gradient(thetas[in_sector])
    worst = float(np.max(np.abs(gradients[:, 0] * data.X[0, 1] - gradients[:, 1] * data.X[0, 0])
                         / (1e-300 + np.linalg.norm(gradients[:, :2], axis=1))))
    ctx.support("random float points", "numeric", worst <= 1e-12,
                f"{int(in_sector.sum())} random θ with w_1 ∈ S_1: |det[ẇ_1, x_1]| ≤ 1e-12‖ẇ_1‖",
                {"points": int(in_sector.sum()), "max_relative_cross": worst})
    ctx.control("neuron active on both inputs", not along_input((1, 1), 0),
                "on the pattern of S (active on x_1 and x_2) the same identity fails")


def lemma8_bounds(eps: float) -> tuple[float, float]:
    """(tight lower bound on ‖w‖², Lemma 8's 1 − |ε|): ‖w‖² ≥ (ε + sqrt(ε² + 4))/2."""
    return (eps + np.sqrt(eps * eps + 4)) / 2, 1 - abs(eps)


@claim(
    id="rank.lem8",
    ref="Lemma 8, App. B",
    kind="lemma",
    title="Zero loss with w_i ∈ S_i forces ‖w_i‖, ‖v_i‖ ≥ sqrt(1 − |ε_i|)",
    statement=("Under Assumptions 1–2, if $N_(W,V)(X) = Y$ with $w_i in cal(S)_i$ for $i = 1, 2$ and "
               "$epsilon^((i)) = norm(w_i)^2 - norm(v_i)^2$, then $norm(w_i), norm(v_i) >= sqrt(1 - "
               "abs(epsilon^((i))))$."),
    hypotheses=["Assumptions 1–2"],
    expected="certified",
    profiles={"quick": "symbolic reduction to ‖w_i‖‖v_i‖ ≥ 1, the exact minimum under the constraint, Taylor + "
                       "interval sign certificates; 2000 random zero-loss networks",
              "full": "20000 networks", "paper": "as full"},
    notes=[("Loose: the exact minimum is ‖w_i‖² = (ε + sqrt(ε² + 4))/2, e.g. 0.9396² at ε = −1/4 where the lemma "
            "gives 0.866²; propagated through Lemma 6 it would raise Thm 2's radius to about 0.94 cos(φ/2)."),
           "For |ε| > 1 the bound is vacuous (the square root is undefined); it is used with |ε| < 1/4."],
)
def check_lem8(ctx: Context) -> None:
    model = PatternModel.build(PRIVATE)
    own_output = all(is_identically_zero(model.residual[:, i] - (model.w(i).dot(model.x(i)) * model.v(i) - model.y(i))
                                         ).proved for i in range(2))
    eps, e = sympy.Symbol("epsilon", real=True), sympy.Symbol("e", positive=True)
    tight = (eps + sympy.sqrt(eps**2 + 4)) / 2
    root = is_identically_zero(tight**2 - eps * tight - 1)  # ‖w‖² solves t² − εt − 1 = 0 at equality
    complement = is_identically_zero(tight - eps - tight.subs(eps, -eps))  # ‖v‖² = ‖w‖² − ε ≥ the mirror bound
    above_one = certified_sign(tight.subs(eps, e) - 1, e, 1)  # ε ∈ (0, 1]: tight ≥ 1 ≥ 1 − ε
    above_line = certified_sign(tight.subs(eps, -e) - (1 - e), e, 1)  # ε ∈ [−1, 0): tight ≥ 1 + ε
    ctx.prove("sqrt(1 − |ε|) ≤ tight bound ≤ ‖w_i‖", "symbolic",
              own_output and root.proved and complement.proved and above_one.sign == 1 and above_line.sign == 1,
              "on S_1×S_2, N(x_i) = (w_iᵀx_i)v_i, so zero loss gives 1 ≤ ‖w_i‖‖v_i‖; then t = ‖w_i‖² ≥ 0 has "
              "t(t − ε) ≥ 1, i.e. t ≥ (ε + sqrt(ε² + 4))/2 (the positive root), and ‖v_i‖² ≥ the same with −ε; "
              f"the root exceeds 1 − |ε| on (0, 1] ({above_one.description}) and on [−1, 0) "
              f"({above_line.description}), with equality at ε = 0; for |ε| > 1 the bound is vacuous")

    rng = ctx.rng("networks")
    count = ctx.pick(2000, 20000)
    data = grid_data(2.5)
    worst, ratios = np.inf, []
    for _ in range(count):
        w = uniform_directions(rng, (2,)) * np.exp(rng.uniform(-1, 1, size=(2, 1)))
        if not (region(w[0], data.X) == FIRST and region(w[1], data.X) == SECOND):
            continue
        v = data.Y / np.sum(w * data.X, axis=1)[:, None]  # zero loss: v_i = y_i / (w_iᵀx_i)
        for i in range(2):
            eps_i = w[i] @ w[i] - v[i] @ v[i]
            least = np.sqrt(max(0.0, 1 - abs(eps_i)))
            worst = min(worst, min(np.linalg.norm(w[i]), np.linalg.norm(v[i])) - least)
            ratios.append(least / np.sqrt(lemma8_bounds(-abs(eps_i))[0]))
    tightness = float(np.sqrt(0.75 / lemma8_bounds(-0.25)[0]))
    ctx.support("random zero-loss networks", "numeric", worst >= -1e-12,
                f"{len(ratios) // 2} zero-loss networks with w_i ∈ S_i (φ = 2.5): "
                "min(‖w_i‖, ‖v_i‖) − sqrt(1 − |ε|) ≥ 0",
                {"networks": len(ratios) // 2, "min_margin": worst, "tightness_at_eps_quarter": tightness,
                 "tightness_max_over_samples": max(ratios)})

    attaining = data.X[0] * np.sqrt(lemma8_bounds(-0.25)[0])  # ‖w‖² = tight bound, ε = −1/4, v = y/(wᵀx)
    violates = np.linalg.norm(attaining) < 1
    ctx.control("bound ‖w_i‖ ≥ 1", bool(violates),
                "the zero-loss network w_1 = 0.9396·x_1, v_1 = y_1/0.9396 (ε = −1/4) violates the stronger bound "
                "‖w_1‖ ≥ 1", {"norm": float(np.linalg.norm(attaining))})


def depth3_balance_identities() -> list[bool]:
    """Per-neuron balance for a depth-3 ReLU network (widths 2, 2, 2, 1) on a free-symbol pattern, any loss."""
    W1, W2, W3 = weight_matrices([2, 2, 2, 1])
    x = sympy.Matrix(2, 1, sympy.symbols("x0 x1", real=True))
    d1 = sympy.Matrix(2, 1, sympy.symbols("p0 p1", real=True))
    d2 = sympy.Matrix(2, 1, sympy.symbols("q0 q1", real=True))
    out = W3 * d2.multiply_elementwise(W2 * d1.multiply_elementwise(W1 * x))
    loss, _ = generic_loss(out)
    results = []
    for lower, upper in ((W1, W2), (W2, W3)):
        for i in range(lower.rows):
            incoming = sum(w * sympy.diff(loss, w) for w in lower[i, :])
            outgoing = sum(v * sympy.diff(loss, v) for v in upper[:, i])
            results.append(is_identically_zero(incoming - outgoing).proved)
    return results


@claim(
    id="rank.lem9",
    ref="Lemma 9, App. B (cited from Du et al. 2018)",
    kind="lemma",
    title="Gradient flow conserves each neuron's incoming-minus-outgoing squared norm",
    statement=("For a depth-$k$ ReLU network trained by gradient flow on any differentiable loss, "
               "$norm(W^((l))[i, :])^2 - norm(W^((l+1))[:, i])^2$ is constant in time for every hidden neuron, and so "
               "is $norm(W^((l)))_F^2 - norm(W^((l+1)))_F^2$."),
    hypotheses=["ReLU (positively homogeneous) activation, any σ'(0)", "gradient flow"],
    expected="assumed",
    cited=True,
    profiles={"quick": "symbolic identities (2×2 network on every pattern; depth 3 with a generic loss); float flows "
                       "to t = 50; the exact one-step GD identity", "full": "as quick", "paper": "as quick"},
)
def check_lem9(ctx: Context) -> None:
    model = PatternModel.build()
    gW, gV = model.gradient()
    per_neuron = [is_identically_zero(model.w(i).dot(gW[i, :].T) - model.v(i).dot(gV[:, i])) for i in range(2)]
    depth3 = depth3_balance_identities()
    ctx.support("⟨w_i, ∂L/∂w_i⟩ = ⟨v_i, ∂L/∂v_i⟩", "symbolic", all(z.proved for z in per_neuron) and all(depth3),
                "d/dt(‖w_i‖² − ‖v_i‖²) = −2(⟨w_i, ∂_{w_i}L⟩ − ⟨v_i, ∂_{v_i}L⟩) ≡ 0 on every activation pattern of the "
                "2×2 network (σ(z) = σ'(z)z) and for all four hidden neurons of a depth-3 network with a generic loss",
                {"identities": len(per_neuron) + len(depth3)})

    drift, curves = 0.0, {}
    for k, data in enumerate([paper_data(), grid_data(2.5)]):
        theta0 = ctx.rng(f"flow-{k}").normal(size=8) * 0.4
        run = flow_run(data, theta0, 50.0, loss_tol=1e-300)
        w, v = neurons(run.theta)
        balance = np.sum(w**2, axis=-1) - np.sum(v**2, axis=-1)
        drift = max(drift, float(np.max(np.abs(balance - balance[0]))))
        curves[f"{data.label}, neuron 1"] = (run.t[1:], np.abs(balance[1:, 0] - balance[0, 0]) + 1e-18)
    ctx.support("float flows", "numeric", drift <= 1e-8, "LSODA (rtol 1e-10) to t = 50 across kinks: drift ≤ 1e-8",
                {"max_drift": drift}, plot=line("Drift of ‖w_1‖² − ‖v_1‖² along gradient flow", curves, xlabel="t",
                                               ylabel="|drift|", xscale="log", yscale="log"))

    eta = sympy.Rational(1, 10)
    objective = INTEGER_DATA.objective
    theta = E.to_exact([sympy.Rational(1, 2), sympy.Rational(1, 3), -1, 2, sympy.Rational(3, 4), -1, 1, 2])
    gradient = objective.gradient(theta)
    step = theta - eta * gradient
    (w0, v0), (w1, v1), (gw, gv) = neurons(theta), neurons(step), neurons(gradient)
    change = np.sum(w1**2, axis=1) - np.sum(v1**2, axis=1) - np.sum(w0**2, axis=1) + np.sum(v0**2, axis=1)
    predicted = eta**2 * (np.sum(gw**2, axis=1) - np.sum(gv**2, axis=1))
    ctx.support("one GD step: Δ = η²(‖∂_wL‖² − ‖∂_vL‖²)", "exact", not np.any(E.signs(change - predicted)),
                "exact arithmetic on integer data: the balance changes by exactly the second-order term, so GD "
                "drifts by O(η²) per step")

    cross = is_identically_zero(model.w(0).dot(gW[0, :].T) - model.v(1).dot(gV[:, 1]))
    ctx.control("‖w_1‖² − ‖v_2‖² (another neuron's outgoing weights)", cross.refuted,
                "the same identity check refutes conservation of the mismatched pair: " + cross.description)


# -- App. C: Eq. (13), Lemmas 10–11 -------------------------------------------------------------------------
def private_decomposition(active) -> list[bool]:
    """Eq. (13) on a pattern: ∂L/∂v_i = (w_iᵀx_i)ϕ_i, ∂L/∂w_i = (v_iᵀϕ_i)x_i, L = ½Σ‖ϕ_i‖²
    with ϕ_i = (w_iᵀx_i)v_i − y_i."""
    model = PatternModel.build(active)
    gW, gV = model.gradient()
    phi = [model.w(i).dot(model.x(i)) * model.v(i) - model.y(i) for i in range(2)]
    checks = [gV[:, i] - model.w(i).dot(model.x(i)) * phi[i] for i in range(2)]
    checks += [gW[i, :].T - model.v(i).dot(phi[i]) * model.x(i) for i in range(2)]
    checks.append(sympy.Matrix([model.loss - sum(p.dot(p) for p in phi) / 2]))
    return [is_identically_zero(c).proved for c in checks]


@claim(
    id="rank.eq13",
    ref="Eq. (13), App. C",
    kind="equation",
    title="Inside S_1°×S_2° the loss and its gradient split by neuron",
    statement=("If $w_i in cal(S)_i without partial cal(S)_i$ for $i = 1, 2$, then with "
               "$phi_i = (w_i^T x_i) v_i - y_i$: $partial L \\/ partial v_i = (w_i^T x_i) phi_i$, "
               "$partial L \\/ partial w_i = (v_i^T phi_i) x_i$ and $L = 1\\/2 norm(phi_1)^2 + 1\\/2 norm(phi_2)^2$."),
    hypotheses=["Assumption 2"],
    expected="certified",
    profiles={"quick": "symbolic identities on the pattern of S_1×S_2", "full": "as quick", "paper": "as quick"},
)
def check_eq13(ctx: Context) -> None:
    identities = private_decomposition(PRIVATE)
    ctx.prove("Eq. (13)", "symbolic", all(identities),
              "five identities (two gradient blocks per neuron and the loss split) with every weight and datum "
              "symbolic, on the activation pattern of S_1×S_2", {"identities": len(identities)})
    shared = private_decomposition(((1, 1), (0, 1)))
    ctx.control("neuron 1 in S instead of S_1", not all(shared),
                "on the pattern where w_1 is active on both inputs the same identities fail",
                {"failing": len(shared) - sum(shared)})


def neuron_loss_rate(active) -> tuple[bool, bool]:
    """(dL¹/dt = −‖∇_{θ_1}L¹‖² on the pattern, ‖∂L/∂v_1‖ = (w_1ᵀx_1)‖y_1‖ at v_1 = 0 there)."""
    model = PatternModel.build(active)
    phi = model.w(0).dot(model.x(0)) * model.v(0) - model.y(0)
    loss1 = phi.dot(phi) / 2
    params = list(model.W[0, :]) + list(model.V[:, 0])
    own = sum(sympy.diff(loss1, p) ** 2 for p in params)
    rate = is_identically_zero(model.flow_derivative(loss1) + own).proved
    _, gV = model.gradient()
    at_zero = {model.V[0, 0]: 0, model.V[1, 0]: 0}
    start = is_identically_zero((gV[:, 0].dot(gV[:, 0]) - model.w(0).dot(model.x(0)) ** 2
                                 * model.y(0).dot(model.y(0))).subs(at_zero)).proved
    return rate, start


@claim(
    id="rank.lem10",
    ref="Lemma 10, App. C (Eq. (14))",
    kind="lemma",
    title="Each neuron's loss is nonincreasing in S_1°×S_2° and strictly decreasing at first from v = 0",
    statement=("While $w_i(t) in cal(S)_i without partial cal(S)_i$ for $i = 1, 2$: "
               "$d\\/(d t) L^i = -norm(nabla_(theta_i) L^i)^2 <= 0$ with $L^i = 1\\/2 norm(phi_i)^2$; if moreover this "
               "holds on $[0, t_1]$ and $v_i(0) = 0$, then $L^i(theta(t_1)) < L^i(theta(0))$."),
    hypotheses=["Assumptions 1–2", "v_i(0) = 0"],
    expected="certified",
    notes=[("The lemma does not restate its hypotheses; Assumptions 1–2 come from Thm 3's context (only y_i ≠ 0 and "
           "w_i ∈ S_i° are used).")],
    profiles={"quick": "symbolic Eq. (14) and the initial gradient; closed-form trajectories of 200 inits",
              "full": "2000 inits", "paper": "as full"},
)
def check_lem10(ctx: Context) -> None:
    rate, start = neuron_loss_rate(PRIVATE)
    ctx.prove("Eq. (14) and ‖∇L^i(0)‖ > 0", "symbolic", rate and start,
              "on S_1×S_2, dL¹/dt + ‖∇_{θ_1}L¹‖² ≡ 0 (L¹ depends on θ_1 only, and ∇_{θ_1}L = ∇_{θ_1}L¹); at v_1 = 0, "
              "‖∂L/∂v_1‖ = (w_1ᵀx_1)‖y_1‖ > 0, so the rate is negative on some [0, t_0] and L¹(t_1) < L¹(0) "
              "(same for neuron 2 by symmetry)")
    rng = ctx.rng("inits")
    count = ctx.pick(200, 2000)
    times = np.linspace(0, 20, 2001)[1:]
    worst_increase, worst_start = 0.0, -np.inf
    for a0 in np.exp(rng.uniform(np.log(1e-3), np.log(3.0), size=count)):
        a, b = reduced_state(a0, 0.0, times)
        loss = (a * b - 1) ** 2 / 2  # L^i = ½‖(ab − 1)y_i‖² for unit y_i
        worst_increase = max(worst_increase, float(np.max(np.diff(loss))))
        worst_start = max(worst_start, float(loss[0]) - 0.5)
    ctx.support("closed-form trajectories", "numeric", worst_increase <= 1e-15 and worst_start < 0,
                f"{count} inits (a_0 = w_iᵀx_i(0) ∈ [1e-3, 3], v_i(0) = 0), t ∈ (0, 20] on a grid of 0.01: L^i never "
                "increases and L^i(0.01) < L^i(0) = 1/2",
                {"max_increase": worst_increase, "max_first_value_minus_initial": worst_start})
    shared_rate, _ = neuron_loss_rate(((1, 1), (0, 1)))
    ctx.control("neuron 1 active on both inputs", not shared_rate,
                "on the pattern of S for neuron 1 the same identity dL¹/dt = −‖∇_{θ_1}L¹‖² fails")


@claim(
    id="rank.lem11",
    ref="Lemma 11, App. C",
    kind="lemma",
    title="From v = 0 the output weights stay on span{y_i} and v_iᵀϕ_i turns negative at once",
    statement=("If $w_i(0) in cal(S)_i without partial cal(S)_i$ and $v_i(0) = 0$ for $i = 1, 2$, then for all "
               "small $t' > 0$: $w_i(t) in cal(S)_i without partial cal(S)_i$ on $[0, t']$, "
               "$v_i(t')^T phi_i(t') < 0$, $v_i(t') in op(\"span\"){y_i}$ and $L^i(theta(t')) < L^i(theta(0))$."),
    hypotheses=["Assumptions 1–2", "v_i(0) = 0"],
    expected="certified",
    notes=["The lemma does not restate its hypotheses; Assumptions 1–2 come from Thm 3's context."],
    profiles={"quick": "symbolic g_i(0) = 0, ġ_i(0) < 0 and span invariance; 30-digit closed form near t = 0",
              "full": "as quick", "paper": "as quick"},
)
def check_lem11(ctx: Context) -> None:
    model = PatternModel.build(PRIVATE)
    g = model.v(0).dot(model.w(0).dot(model.x(0)) * model.v(0) - model.y(0))  # g_1 = v_1ᵀϕ_1
    at_zero = {model.V[0, 0]: 0, model.V[1, 0]: 0}
    rate = is_identically_zero(model.flow_derivative(g).subs(at_zero)
                               + model.w(0).dot(model.x(0)) * model.y(0).dot(model.y(0)))
    b = sympy.Symbol("b", real=True)
    on_span = {model.V[0, 0]: b * model.Yc[0, 0], model.V[1, 0]: b * model.Yc[1, 0]}
    _, gV = model.gradient()
    span = is_identically_zero(cross(gV[:, 0], model.y(0)).subs(on_span))
    ctx.prove("g_1(0) = 0, ġ_1(0) = −(w_1ᵀx_1)‖y_1‖², v̇_1 ∥ y_1 on span{y_1}", "symbolic",
              g.subs(at_zero) == 0 and rate.proved and span.proved,
              "on S_1×S_2: ġ_1 at v_1 = 0 equals −(w_1ᵀx_1)‖y_1‖² < 0, so g_1(t') < 0 for small t' > 0; at "
              "v_1 = b y_1 the field v̇_1 is parallel to y_1, so the linear ODE for v_1 keeps it on span{y_1}; "
              "S_1° is open and Lemma 10 gives the loss (neuron 2 by symmetry)")

    with mpmath.workdps(30):
        a0 = mpmath.mpf("0.3")
        ratios = []
        for t in (mpmath.mpf("1e-3"), mpmath.mpf("1e-4"), mpmath.mpf("1e-5"), mpmath.mpf("1e-6")):
            a, bt = reduced_state(a0, mpmath.mpf(0), t)
            ratios.append(float(bt * (a * bt - 1) / (-a0 * t)))  # g(t) = b(ab − 1) ≈ −a_0 t
    ctx.support("closed form near t = 0", "numeric", all(0 < r for r in ratios) and abs(ratios[-1] - 1) < 1e-5,
                "30-digit closed form, a_0 = 0.3: g(t)/(−a_0 t) → 1 as t = 1e-3 … 1e-6",
                {f"ratio_t{k}": r for k, r in enumerate(ratios)})

    with mpmath.workdps(30):
        a, bt = reduced_state(mpmath.mpf("0.3"), mpmath.mpf("-0.2"), mpmath.mpf("1e-6"))
        g_negative_start = float(bt * (a * bt - 1))
    ctx.control("v_i(0) = −0.2 y_i instead of 0", g_negative_start > 0,
                "with v_1(0) = −0.2y_1 the same closed form gives g_1(1e-6) > 0", {"g": g_negative_start})
