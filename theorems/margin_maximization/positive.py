"""Paper 001, Theorems 3.1 and 4.2 (1), Remark 4.1: the depth-2 and fully-connected *positive* results for linear
networks, checked on random seeded datasets against their convex references (hard-margin SVM, group lasso), plus
the finding that the hypothesis "L(θ(t₀)) < 1" is too weak for the logistic loss (spec I1).

The per-layer and ReLU positive results (Theorems 4.3, 5.2, 5.4) are in ``positive_deep``; the oracles (flows,
convex references, the saddle instance) in ``positive_oracles``.
"""

from __future__ import annotations

import numpy as np
import sympy

from numerics import backend as B
from numerics import exact as E
from numerics.convex import max_margin
from numerics.flows import GradientFlow
from numerics.losses import Objective
from numerics.metrics import angle
from numerics.networks import Network, diagonal, fully_connected
from numerics.trends import is_monotone
from theorems.margin_maximization import common as C
from theorems.margin_maximization import positive_oracles as P
from theorems.margin_maximization.definitions import teacher_data
from verify import Context, claim, plain

GAP_TOLERANCE = 1e-3  # relative gap between R(θ̂) and the convex reference at the largest norm
COSINE_TOLERANCE = 1e-5
SOLVER_FLOOR = 1e-9  # convex references are accurate to ~1e-10: gaps below this are not required to keep decreasing


# -- spec I1: a stationary point below the printed threshold ----------------------------------------------------
def record_saddle(ctx: Context, theorem: str) -> None:
    """The counterexample to the printed hypothesis (exact), and the controls: the same instance does not meet the
    hypothesis with the exponential loss or with the threshold ℓ(0) = log 2."""
    s = P.saddle_instance()
    logistic = s.loss("logistic")
    margins_zero = bool(np.all(E.signs(s.margins) == 0))
    below_one = bool(sympy.Lt(logistic, 1))
    run = GradientFlow(Objective(s.net, B.to_float(s.X), B.to_float(s.y), "logistic")).solve(
        B.to_float(s.theta0), np.inf, clock="arclength", stop=[lambda t, th: 10.0 - float(np.linalg.norm(th))])
    ctx.counterexample(f"{theorem} with the logistic loss: a stationary point with L = log 2 < 1", "exact",
                       s.gradient_is_zero and margins_zero and below_one,
                       "depth-2 linear network 2-2-1, one sample x = (1, 0), y = 1, θ(0) = [W1 = ((0, 1), (0, −1)), "
                       "v = 0]: every margin is 0 and Σ_i y_i ∇Φ(θ(0); x_i) = 0 exactly, so ∇L(θ(0)) = 0 and, L being "
                       "smooth, θ(t) ≡ θ(0) for all t; L(θ(t)) = log 2 < 1 at every t, yet no positive multiple of "
                       "θ(0) is feasible for Problem (2): the flow does not converge in direction to a KKT point, "
                       f"let alone a global optimum (the numerical flow agrees: status '{run.status.value}')",
                       {"loss": str(logistic), "flow_status": run.status.value})
    exponential = s.loss("exponential")
    ctx.control("the same instance with the exponential loss", not bool(sympy.Lt(exponential, 1)),
                f"with ℓ(q) = e^(−q) the same point has L = {exponential}, not < 1: the hypothesis fails, so the "
                "instance is no counterexample there")
    ctx.control("the same instance under L < ℓ(0)", not bool(sympy.Lt(logistic, sympy.log(2))),
                f"L(θ(0)) = {logistic} = ℓ(0) is not < ℓ(0): the corrected hypothesis excludes it")


# -- Theorem 3.1 ----------------------------------------------------------------------------------------------------
THM31_STATEMENT = ("For a fully-connected linear network of depth $m >= 2$ trained by gradient flow on the exponential "
                   "or logistic loss, if $L(theta(t_0)) < {threshold}$ at some time $t_0$, then $theta(t)$ converges "
                   "in direction to a global minimum of Problem (2); its value is $m norm(u^*)^(2\\/m)$ with $u^*$ the "
                   "hard-margin SVM of the data.")


@claim(
    id="margin.thm3.1",
    ref="Thm 3.1, Sec. 3; proof in App. C.2",
    kind="theorem",
    title="Fully-connected linear networks: gradient flow reaches a global max-margin direction (as printed)",
    statement=THM31_STATEMENT.format(threshold="1"),
    hypotheses=plain("fully-connected linear network of depth m ≥ 2", "exponential or logistic loss",
                     "L(θ(t0)) < 1 for some t0"),
    expected="refuted",
    corrected_by="margin.thm3.1.corrected",
    profiles={"quick": "exact stationary point of a 2-2-1 linear network with logistic loss log 2 < 1 (the flow never "
                       "moves); controls: the same point under the exponential loss and under L < log 2",
              "full": "as quick", "paper": "as quick"},
    notes=plain("The paper glosses L < 1 as 'every sample is classified correctly' (Thm 2.1). For the logistic loss "
                "that is false (spec I1): L < 1 admits margins down to −log(e − 1), and here a stationary point with "
                "all margins 0 and L = log 2. With the threshold ℓ(0) (1 for the exponential loss, log 2 for the "
                "logistic loss) the theorem holds: margin.thm3.1.corrected."),
)
def check_thm31(ctx: Context) -> None:
    record_saddle(ctx, "Theorem 3.1")


def fully_connected_limits(ctx: Context, depths: list[int], losses: tuple[str, ...]) -> list[dict]:
    """Gradient-flow limits of random fully-connected linear networks against m‖u*‖^(2/m)."""
    rng = ctx.rng("instances")
    rows = []
    for depth in depths:
        for loss in losses:
            X, y = teacher_data(rng, 8, 4)
            svm = max_margin(X, y)
            net = fully_connected([4] + [3] * (depth - 1) + [1], "linear")
            found = P.flow_limits(net, X, y, loss, rng)
            if found is None:
                rows.append({"depth": depth, "loss": loss, "reached": False})
                continue
            path, _ = found
            reference = depth * svm.norm ** (2 / depth)
            gaps = [abs(p.cost - reference) / reference for p in path]
            beta = net.forward(path[-1].final, np.eye(4))[:, 0]
            rows.append({"depth": depth, "loss": loss, "reached": P.below_threshold(net, X, y, loss, path[0].final),
                         "gaps": gaps, "reference": reference,
                         "cosine": float(np.cos(angle(beta, svm.solution))), "svm": svm.status})
    return rows


@claim(
    id="margin.thm3.1.corrected",
    ref="Thm 3.1, Sec. 3; proof in App. C.2",
    kind="theorem",
    title="Fully-connected linear networks: gradient flow reaches a global max-margin direction",
    statement=THM31_STATEMENT.format(threshold="ell(0)"),
    hypotheses=plain("fully-connected linear network of depth m ≥ 2", "exponential or logistic loss",
                     "L(θ(t0)) < ℓ(0) for some t0 (1 for the exponential loss, log 2 for the logistic loss)"),
    expected="confirmed",
    corrects="margin.thm3.1",
    profiles={"quick": "random teacher data (n = 8, d = 4), depths 2 and 3, both losses: arc-length flow to ‖θ‖ = 100, "
                       "300; R(θ̂) against m‖u*‖^(2/m) (certified SVM), predictor direction against u*; control: a "
                       "diagonal network (not fully connected) on the same data",
              "full": "depths 2, 3, 4", "paper": "as full"},
)
def check_thm31_corrected(ctx: Context) -> None:
    depths = ctx.pick(quick=[2, 3], full=[2, 3, 4])
    rows = fully_connected_limits(ctx, depths, C.LOSSES)
    for row in rows:
        name = f"depth {row['depth']}, {row['loss']}"
        if not row["reached"]:
            ctx.support(name, "numeric", False, "no flow reached the stated norms with L < ℓ(0)")
            continue
        ok = row["gaps"][-1] <= GAP_TOLERANCE and row["cosine"] >= 1 - COSINE_TOLERANCE and row["svm"] == "certified"
        ctx.support(name, "numeric", ok,
                    f"finite-time proxy: flow from 0.5·N(0, I), L < ℓ(0) from ‖θ‖ = 100 on; R(θ̂) at ‖θ‖ = 100, 300 is "
                    f"{', '.join(f'{g:.1e}' for g in row['gaps'])} from m‖u*‖^(2/m) = {row['reference']:.6f} "
                    f"(relative, ≤ {GAP_TOLERANCE:g}); cos∠(β, u*) = {row['cosine']:.8f} ≥ 1 − {COSINE_TOLERANCE:g}",
                    {"final_gap": row["gaps"][-1], "cosine": row["cosine"], "reference": row["reference"]})
    # control: a diagonal linear network (not fully connected) — its limit is measured against the same reference
    rng = ctx.rng("control")
    X, y = teacher_data(rng, 8, 4)
    net = diagonal(4, 2, "linear")
    found = P.flow_limits(net, X, y, "exponential", rng)
    reference = 2 * max_margin(X, y).norm
    gap = abs(found[0][-1].cost - reference) / reference if found else 0.0
    ctx.control("a diagonal network against m‖u*‖^(2/m)", gap > 10 * GAP_TOLERANCE,
                f"the same comparison for a depth-2 diagonal linear network (in N_no-share, not fully connected) "
                f"misses by {gap:.3f}: its limit is measured by the ℓ1 norm of β, not the SVM", {"gap": gap})


# -- Theorem 4.2 (1) --------------------------------------------------------------------------------------------
NONZERO_SHARE = 0.05  # a unit counts as non-zero at θ̂ when ‖u_j‖ > 0.05·max_j ‖u_j‖ (the proxy of w̃_j ≠ 0)


def group_lasso_limit(net: Network, X: np.ndarray, y: np.ndarray, loss: str, rng: np.random.Generator,
                      norms: tuple[float, ...]) -> dict | None:
    """The flow's R(θ̂) at each norm against 2·OPT(8), and the smallest unit share at the last norm."""
    found = P.flow_limits(net, X, y, loss, rng, norms)
    if found is None:
        return None
    path, _ = found
    reference = P.group_lasso(net, X, y)
    target = 2 * reference.objective
    sizes = [float(np.linalg.norm(u)) for u in P.neuron_products(net, path[-1].rescaled)]
    return {"gaps": [abs(p.cost - target) / target for p in path], "target": target, "share": min(sizes) / max(sizes),
            "drift": abs(path[-1].cost - path[-2].cost) / path[-1].cost, "reference": reference}


RANDOM_NORMS = (100.0, 300.0, 1000.0)  # random diagonal instances settle to ~1e-6 in R(θ̂) at ‖θ‖ = 1000
SETTLED = 1e-4  # relative change of R(θ̂) between the last two norms below which the direction counts as settled


def settled(result: dict | None) -> bool:
    """The finite-time proxy applies: the flow reached the norms, its units are non-zero (the hypothesis' proxy) and
    R(θ̂) moved by less than ``SETTLED`` over the last norm interval (a flow drifting towards a vanishing unit moves
    logarithmically slowly and is not judged)."""
    return result is not None and result["share"] > NONZERO_SHARE and result["drift"] <= SETTLED


def record_group_lasso(ctx: Context, name: str, result: dict, norms: tuple[float, ...]) -> None:
    gaps = result["gaps"]
    ok = gaps[-1] <= GAP_TOLERANCE and is_monotone(gaps, "decreasing", atol=SOLVER_FLOOR)
    ctx.support(name, "numeric", ok,
                f"finite-time proxy: smallest unit share ‖u_j‖/max‖u_j‖ = {result['share']:.3f} > {NONZERO_SHARE} "
                f"(non-zero units), R(θ̂) settled (drift {result['drift']:.1e} ≤ {SETTLED:g}); "
                f"|R(θ̂) − 2·OPT(8)|/2·OPT(8) at ‖θ‖ = {', '.join(f'{n:g}' for n in norms)}: "
                f"{', '.join(f'{g:.1e}' for g in gaps)} (decreasing, last ≤ {GAP_TOLERANCE:g}); "
                f"2·OPT(8) = {result['target']:.6f} by the group-lasso SOCP "
                f"({result['reference'].message})",
                {"final_gap": gaps[-1], "share": result["share"], "target": result["target"]})


def diagonal_example() -> tuple[np.ndarray, np.ndarray]:
    """x1 = (1, 1/5), x2 = (1/5, 1), both labelled 1: the ℓ1 max-margin predictor (5/6, 5/6) has full support."""
    return np.array([[1.0, 0.2], [0.2, 1.0]]), np.ones(2)


@claim(
    id="margin.thm4.2.1",
    ref="Thm 4.2 (1), Sec. 4; proof in App. C.5.1",
    kind="theorem",
    title="Depth-2 linear networks without sharing: a limit with non-zero units is a global optimum",
    statement=("For a depth-2 linear network $Phi(theta; x) = sum_j v_j w_j^T x^j$ of $cal(N)_\"no-share\"$ trained by "
               "gradient flow on the exponential or logistic loss with $L(theta(t_0)) < 1$ at some $t_0$, if every "
               "hidden unit of the limit KKT point $tilde(theta)$ has $tilde(w)_j != 0$, then $tilde(theta)$ is a "
               "global minimum of Problem (2): "
               "$norm(tilde(theta))^2 = 2 min {sum_j norm(u_j) : y_i sum_j u_j^T x_i^j >= 1}$ "
               "(the group-lasso Problem (8))."),
    hypotheses=plain("depth-2 linear network in N_no-share (sparse first layer, no sharing)",
                     "exponential or logistic loss; L(θ(t0)) < 1 for some t0",
                     "every hidden unit of the limit has non-zero incoming weights"),
    expected="confirmed",
    profiles={"quick": "the diagonal example x1 = (1, 1/5), x2 = (1/5, 1) (both losses) and two random depth-2 "
                       "diagonal networks (teacher data, n = 8, d = 3, ℓ1 optimum of full support, both losses): "
                       "arc-length flow to ‖θ‖ = 100, 300 (1000 for the random ones), R(θ̂) against 2·OPT(8) "
                       "(SOCP); control: Theorem 4.1's limit (a zero unit), "
                       "R = 2 vs 2·OPT(8) = 1",
              "full": "five random diagonal networks", "paper": "as full"},
    notes=plain("Finite-time proxy. Instances are drawn where the group-lasso optimum has no zero unit: on random "
                "locally connected networks (n ≤ 10) the optimum of (8) is typically sparse and the flow then "
                "approaches a limit with a vanishing unit only logarithmically (R(θ̂) still 1e-3 to 1e-2 off at ‖θ‖ = "
                "1000), where the hypothesis cannot be decided at finite time.",
                "'Such θ̃ exists by Theorem 2.1' needs L < ℓ(0) for the logistic loss (spec I1, margin.thm3.1); "
                "the flows here reach it. Lemma C.4's balancedness, used in the proof, holds at every KKT point "
                "(spec D2)."),
)
def check_thm421(ctx: Context) -> None:
    X, y = diagonal_example()
    rng = ctx.rng("flows")
    for loss in C.LOSSES:
        result = group_lasso_limit(diagonal(2, 2, "linear"), X, y, loss, rng, P.FLOW_NORMS)
        if not settled(result):
            ctx.support(f"diagonal example, {loss}", "numeric", False, "the flow's units vanished or it did not settle")
            continue
        record_group_lasso(ctx, f"diagonal example, {loss}", result, P.FLOW_NORMS)
    net = diagonal(3, 2, "linear")
    data = ctx.rng("data")
    wanted, judged, skipped = ctx.pick(quick=2, full=5), 0, 0
    for draw in range(12):
        if judged == wanted:
            break
        X, y = teacher_data(data, 8, 3)
        if len(max_margin(X, y, norm="l1").support) < 3:  # the ℓ1 optimum (= Problem (8)) has a zero unit
            continue
        result = group_lasso_limit(net, X, y, C.LOSSES[draw % 2], rng, RANDOM_NORMS)
        if not settled(result):
            skipped += 1
            continue
        judged += 1
        record_group_lasso(ctx, f"random diagonal network {judged} ({C.LOSSES[draw % 2]})", result, RANDOM_NORMS)
    ctx.support("random instances judged", "numeric", judged == wanted,
                f"{judged} random data sets with a full-support ℓ1 optimum were judged (wanted {wanted}); {skipped} "
                "flows were not judged (a unit vanishing, or R(θ̂) still drifting)",
                {"judged": judged, "skipped": skipped})
    # control: Theorem 4.1's limit has a zero unit; the same comparison rejects it as a global optimum
    c = C.construction("thm4.1-linear")
    Xc, yc = np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float)
    limit = C.flow_of("thm4.1-linear", norm=300.0)
    target = 2 * P.group_lasso(c.float_model, Xc, yc).objective
    sizes = [float(np.linalg.norm(u)) for u in P.neuron_products(c.float_model, limit.rescaled)]
    gap = abs(limit.cost - target) / target
    ctx.control("Theorem 4.1's limit (a zero unit)", gap > GAP_TOLERANCE and min(sizes) <= NONZERO_SHARE * max(sizes),
                f"the same test on x = (1, 2): R(θ̂) = {limit.cost:.6f} vs 2·OPT(8) = {target:.6f} (gap {gap:.2f}); "
                f"the unit share is {min(sizes) / max(sizes):.1e}: the hypothesis fails and so does the conclusion",
                {"gap": gap})


# -- Remark 4.1 -------------------------------------------------------------------------------------------------
def am_gm_per_coordinate() -> bool:
    """a² + b² − 2|ab| = (|a| − |b|)² for real a, b: ‖w1‖² + ‖w2‖² ≥ 2‖w1 ∘ w2‖₁, with equality iff |w1| = |w2|."""
    a, b = sympy.symbols("a b", real=True)
    return sympy.simplify(a**2 + b**2 - 2 * sympy.Abs(a * b) - (sympy.Abs(a) - sympy.Abs(b)) ** 2) == 0


@claim(
    id="margin.rem4.1",
    ref="Remark 4.1, Sec. 4",
    kind="remark",
    title="Depth-2 diagonal linear networks in predictor space: the ℓ1 max-margin problem",
    statement=("For a depth-2 diagonal linear network ($beta = w_1 dot.o w_2$), minimizing $norm(theta)$ under the "
               "constraints of Problem (2) is minimizing $norm(beta)_1$ under $y_i chevron.l beta, x_i chevron.r >= 1$ "
               "(Problem (3)), since $min {norm(w_1)^2 + norm(w_2)^2 : w_1 dot.o w_2 = beta} = 2 norm(beta)_1$. Hence "
               "gradient flow may reach a predictor that is not optimal for Problem (3) (Theorem 4.1), while a limit "
               "with non-zero weight vectors gives an optimal one (Theorem 4.2 (1))."),
    hypotheses=plain("depth-2 diagonal linear network", "exponential or logistic loss"),
    expected="certified",
    profiles={"quick": "sympy identity a² + b² − 2|ab| = (|a| − |b|)²; exact ℓ1 LP certificates on x = (1, 2) and on "
                       "x1 = (1, 1/5), x2 = (1/5, 1); Theorem 4.1's exact limit predictor (1, 0); the flow's predictor "
                       "on the second data set; control: Theorem 4.1's predictor against the LP optimum",
              "full": "as quick", "paper": "as quick"},
    notes=plain("For diagonal networks 'non-zero weight vectors' means β̃ has full support, a strong condition since ℓ1 "
                "solutions are typically sparse."),
)
def check_rem41(ctx: Context) -> None:
    ctx.prove("‖θ‖² ≥ 2‖β‖₁ with equality iff balanced", "symbolic", am_gm_per_coordinate(),
              "per coordinate w1[k]² + w2[k]² − 2|w1[k]w2[k]| = (|w1[k]| − |w2[k]|)² ≥ 0 (sympy), zero iff |w1[k]| = "
              "|w2[k]|; any β is reached with equality, so min ‖θ‖² under the margins = 2·OPT(3) and θ is optimal iff "
              "it is balanced with β optimal for Problem (3)")
    c = C.construction("thm4.1-linear")
    beta = E.canonical(c.model.forward(c.theta, E.to_exact(np.eye(2, dtype=int)))[:, 0])
    lp = max_margin(c.X, c.Y, norm="l1")
    l1 = sum(abs(b) for b in beta)
    worse = lp.status == "certified" and E.sign(l1 - lp.certificate.objective) > 0
    ctx.prove("Theorem 4.1's limit predictor is not optimal for (3)", "exact", worse,
              f"x = (1, 2): the exact limit θ̃ of margin.thm4.1 has β̃ = {tuple(beta)} with ‖β̃‖₁ = {l1}; the certified "
              f"ℓ1 LP optimum is {lp.certificate.objective if lp.certificate else '?'} at β* = "
              f"{tuple(lp.certificate.solution) if lp.certificate else '?'}", {"l1_limit": str(l1)})
    X, y = diagonal_example()
    fifth = sympy.Rational(1, 5)
    lp2 = max_margin(np.array([[1, fifth], [fifth, 1]], dtype=object), E.to_exact(np.ones(2, dtype=int)), norm="l1")
    net = diagonal(2, 2, "linear")
    found = P.flow_limits(net, X, y, "exponential", ctx.rng("flow"))
    ok, gap = found is not None and lp2.status == "certified", float("nan")
    if ok:
        theta = found[0][-1].rescaled
        beta_hat = net.forward(theta, np.eye(2))[:, 0]
        gap = float(np.max(np.abs(beta_hat - lp2.solution)))
        shares = np.abs(theta[:2]) / np.max(np.abs(theta[:2]))
        ok = gap <= GAP_TOLERANCE and float(np.min(shares)) > NONZERO_SHARE
    ctx.support("a limit with non-zero weights is ℓ1-optimal", "numeric", ok,
                f"finite-time proxy: x1 = (1, 1/5), x2 = (1/5, 1), exponential loss, ‖θ‖ = 300: the flow's predictor "
                f"β̂ is within {gap:.1e} (≤ {GAP_TOLERANCE:g}) of the certified LP optimum "
                f"{tuple(lp2.certificate.solution) if lp2.certificate else '?'}, with non-zero weights in both "
                "coordinates")
    ctx.control("Theorem 4.1's predictor as an ℓ1 optimum", worse,
                "the same comparison with the certified LP optimum rejects β̃ = (1, 0) of x = (1, 2) (‖β̃‖₁ = 1 > 1/2)")
