"""Paper 001, Theorems 3.1 and 4.2 (1), Remark 4.1: the depth-2 and fully-connected *positive* results for linear
networks, checked on random seeded datasets against their convex references (hard-margin SVM, group lasso), plus
the finding that the hypothesis "L(θ(t₀)) < 1" is too weak for the logistic loss.

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
from numerics.networks import Network, diagonal, fully_connected, scalar_outputs
from numerics.tolerances import at_least, at_most
from numerics.trends import is_monotone
from theorems.margin_maximization import common as C
from theorems.margin_maximization import positive_oracles as P
from theorems.margin_maximization.definitions import teacher_data
from verify import Context, Decision, claim, criterion, plain, tightness

GAP_TOLERANCE = 1e-3  # relative gap between R(θ̂) and the convex reference at the largest norm
# The direction error enters R(θ̂) to second order, so 1 − cos∠(β, u*) ~ angle²/2 is of the order of the value gap:
# the same tolerance as GAP_TOLERANCE (the direction settles like 1/log t; at ‖θ‖ = 300 1 − cos reaches ~2e-5 on
# poorly conditioned draws), with the trend (increasing cosine) required as well.
COSINE_TOLERANCE = GAP_TOLERANCE
EXACT_ALIGNMENT = 1e-9  # 1 − cos∠(β, u*) of an exact limit; the flow's direction settles only like 1/log t
SOLVER_FLOOR = 1e-9  # convex references are accurate to ~1e-10: gaps below this are not required to keep decreasing


# -- a stationary point below the printed threshold ---------------------------------------------------------------
@criterion("a stationary point with every margin 0 and L(θ(0)) < threshold: the flow never moves (exact)")
def STATIONARY_BELOW(loss: str, threshold: str, output: tuple[int, int] = P.SADDLE_OUTPUT) -> Decision:
    s = P.saddle_instance(output)
    value = s.loss(loss)
    margins_zero = bool(np.all(E.signs(s.margins) == 0))
    below = bool(sympy.Lt(value, sympy.sympify(threshold)))
    return Decision(s.gradient_is_zero and margins_zero and below,
                    f"∇L(θ(0)) = 0: {s.gradient_is_zero}; margins all 0: {margins_zero}; L(θ(0)) = {value} < "
                    f"{threshold}: {below}", {"loss": str(value)})


def record_saddle(ctx: Context, theorem: str, conclusion: str) -> None:
    """The counterexample to the printed hypothesis (exact), and the controls: the same criterion with the
    exponential loss, with the threshold ℓ(0) = log 2 (the corrected hypothesis) and at a non-stationary point of
    the same margins does not find it."""
    s = P.saddle_instance()
    run = GradientFlow(Objective(s.net, B.to_float(s.X), B.to_float(s.y), "logistic")).solve(
        B.to_float(s.theta0), np.inf, clock="arclength", stop=[lambda t, th: 10.0 - float(np.linalg.norm(th))])
    ctx.counterexample(f"{theorem} with the logistic loss: a stationary point with L = log 2 < 1", "exact",
                       STATIONARY_BELOW("logistic", "1"),
                       "depth-2 linear network 2-2-1, one sample x = (1, 0), y = 1, θ(0) = [W1 = ((0, 1), (0, −1)), "
                       "v = 0]: every margin is 0 and Σ_i y_i ∇Φ(θ(0); x_i) = 0 exactly, so, L being smooth, "
                       "θ(t) ≡ θ(0) for all t; L(θ(t)) = log 2 < 1 at every t, yet no positive multiple of θ(0) is "
                       "feasible for Problem (2): the flow does not converge in direction to a KKT point, let alone a "
                       f"global optimum (the numerical flow agrees: status '{run.status.value}')",
                       {"flow_status": run.status.value}, conclusion=conclusion)
    ctx.control("the same instance with the exponential loss", STATIONARY_BELOW("exponential", "1"),
                "another loss: the exponential loss has L = 1 there, not < 1")
    ctx.control("the same instance under L < ℓ(0)", STATIONARY_BELOW("logistic", "log(2)"),
                "the corrected hypothesis: threshold 1 → ℓ(0) = log 2")
    ctx.control("the instance with output weights v = (1, 0)", STATIONARY_BELOW("logistic", "1", (1, 0)),
                "shifted point: v = 0 → (1, 0), every margin still 0 and L = log 2, but ∇_W₁Φ = v xᵀ ≠ 0",
                because="∇L(θ(0)) = 0: False")


# -- Theorem 3.1 ----------------------------------------------------------------------------------------------------
THM31_PRINTED = "L(θ(t₀)) < 1 implies convergence in direction to a global minimum (logistic loss)"
THM31_LIMIT = "the limit direction is a global minimum of value m‖u*‖^(2/m) (random teacher data; both losses)"
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
    conclusions={THM31_PRINTED: "refuted"},
    corrected_by="margin.thm3.1.corrected",
    erratum="literal",
    profiles={"quick": "exact stationary point of a 2-2-1 linear network with logistic loss log 2 < 1 (the flow never "
                       "moves); controls: the same point under the exponential loss and under L < log 2",
              "full": "as quick", "paper": "as quick"},
    notes=plain("The paper glosses L < 1 as 'every sample is classified correctly' (Thm 2.1). For the logistic loss "
                "that is false: L < 1 admits margins down to −log(e − 1), and here a stationary point with "
                "all margins 0 and L = log 2. With the threshold ℓ(0) (1 for the exponential loss, log 2 for the "
                "logistic loss) the theorem holds: margin.thm3.1.corrected."),
)
def check_thm31(ctx: Context) -> None:
    record_saddle(ctx, "Theorem 3.1", THM31_PRINTED)


def cosines_to(predictors: list[np.ndarray], direction: np.ndarray) -> tuple[float, ...]:
    """cos∠(β, direction) for each predictor β."""
    return tuple(float(np.cos(angle(beta, direction))) for beta in predictors)


def turned(direction: np.ndarray, radians: float) -> np.ndarray:
    """``direction`` turned by ``radians`` towards the first basis vector orthogonal to it."""
    unit = direction / np.linalg.norm(direction)
    other = np.eye(unit.size)[int(np.argmin(np.abs(unit)))]
    other = other - (other @ unit) * unit
    return np.cos(radians) * unit + np.sin(radians) * other / np.linalg.norm(other)


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
            predictors = [scalar_outputs(net, p.final, np.eye(4)) for p in path]
            rows.append({"depth": depth, "loss": loss, "reached": P.below_threshold(net, X, y, loss, path[0].final),
                         "gaps": gaps, "reference": reference, "cost": path[-1].cost, "predictors": predictors,
                         "cosines": cosines_to(predictors, svm.solution), "u_star": svm.solution,
                         "svm": svm.status})
    return rows


@claim(
    id="margin.thm3.1.corrected",
    ref="Thm 3.1, Sec. 3; proof in App. C.2",
    kind="theorem",
    title="Fully-connected linear networks: gradient flow reaches a global max-margin direction",
    statement=THM31_STATEMENT.format(threshold="ell(0)"),
    hypotheses=plain("fully-connected linear network of depth m ≥ 2", "exponential or logistic loss",
                     "L(θ(t0)) < ℓ(0) for some t0 (1 for the exponential loss, log 2 for the logistic loss)"),
    conclusions={THM31_LIMIT: "confirmed"},
    corrects="margin.thm3.1",
    profiles={"quick": "random teacher data (n = 8, d = 4), depths 2 and 3, both losses: arc-length flow to ‖θ‖ = 100, "
                       "300; R(θ̂) against m‖u*‖^(2/m) (certified SVM), predictor direction against u*; controls: a "
                       "diagonal network (not fully connected) on the same data, u* turned by 0.1 rad, the norms "
                       "reversed, the direction held to 1 − cos ≤ 1e-9",
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
        ctx.support(name, "numeric", NEAR(row["cost"], row["reference"], GAP_TOLERANCE),
                    f"finite-time proxy: flow from 0.5·N(0, I), L < ℓ(0) from ‖θ‖ = 100 on; R(θ̂) at ‖θ‖ = 100, 300 is "
                    f"{', '.join(f'{g:.1e}' for g in row['gaps'])} from m‖u*‖^(2/m) (certified SVM: "
                    f"{row['svm']})", conclusion=THM31_LIMIT)
        ctx.support(f"{name}: predictor direction", "numeric", ALIGNED(row["cosines"], COSINE_TOLERANCE),
                    "cos∠(β, u*) of the flow's predictor and the hard-margin SVM at ‖θ‖ = 100, 300",
                    conclusion=THM31_LIMIT)
    reached = [row for row in rows if row["reached"]]
    if reached:
        rising = max(reached, key=lambda row: row["cosines"][-1] - row["cosines"][0])
        ctx.control("the predictor direction against u* turned by 0.1 rad",
                    ALIGNED(cosines_to(rising["predictors"], turned(rising["u_star"], 0.1)), COSINE_TOLERANCE),
                    f"wrong limit: u* of depth {rising['depth']}, {rising['loss']} turned by 0.1 rad")
        ctx.control("the predictor direction read from the last norm back",
                    ALIGNED(rising["cosines"][::-1], COSINE_TOLERANCE),
                    f"the norms in reverse order (depth {rising['depth']}, {rising['loss']}, the row whose cosine "
                    "rises most): a direction moving away from u* at the end")
        ctx.control("the predictor direction already equal to u*",
                    ALIGNED(rising["cosines"], EXACT_ALIGNMENT),
                    f"wrong constant: tolerance {COSINE_TOLERANCE:g} → {EXACT_ALIGNMENT:g} (depth {rising['depth']}, "
                    f"{rising['loss']}): the finite-time direction claimed to be u* itself",
                    because="increasing: True")
    # control: a diagonal linear network (not fully connected) — its limit is measured against the same reference
    rng = ctx.rng("control")
    X, y = teacher_data(rng, 8, 4)
    net = diagonal(4, 2, "linear")
    found = P.flow_limits(net, X, y, "exponential", rng)
    reference = 2 * max_margin(X, y).norm
    ctx.control("a diagonal network against m‖u*‖^(2/m)",
                NEAR(found[0][-1].cost if found else float("nan"), reference, GAP_TOLERANCE),
                "another architecture: a depth-2 diagonal linear network (in N_no-share, not fully connected), whose "
                "limit is measured by the ℓ1 norm of β, not the SVM")


@criterion("|R(θ̂) − reference| / reference ≤ tolerance")
def NEAR(cost: float, reference: float, tolerance: float) -> Decision:
    gap = abs(cost - reference) / reference
    return Decision(None if not np.isfinite(gap) else at_most(gap, tolerance),
                    f"R(θ̂) = {cost:.8g} against {reference:.8g}: relative gap {gap:.2e} (threshold {tolerance:g})",
                    {"gap": gap, "tolerance": tolerance})


@criterion("cos∠(β, u*) increases along the norms and ends ≥ 1 − tolerance")
def ALIGNED(cosines: tuple[float, ...], tolerance: float) -> Decision:
    rising = all(at_least(b, a - 1e-12) for a, b in zip(cosines, cosines[1:]))
    return Decision(bool(rising and at_least(cosines[-1], 1 - tolerance)),
                    f"cos = {', '.join(f'{c:.10f}' for c in cosines)} (increasing: {rising}; threshold 1 − "
                    f"{tolerance:g})", {"cosine": cosines[-1], "tolerance": tolerance})


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


THM421 = "a limit whose units are all non-zero is a global minimum: ‖θ̃‖² = 2·OPT(8) (diagonal instances)"


@criterion("the relative gaps |R(θ̂) − 2·OPT(8)|/2·OPT(8) decrease along the norms and end ≤ tolerance")
def GAPS_CLOSE(gaps: tuple[float, ...], tolerance: float) -> Decision:
    decreasing = bool(is_monotone(list(gaps), "decreasing", atol=SOLVER_FLOOR))
    return Decision(bool(decreasing and at_most(gaps[-1], tolerance)),
                    f"gaps {', '.join(f'{g:.1e}' for g in gaps)} (decreasing: {decreasing}; last against threshold "
                    f"{tolerance:g})", {"final_gap": gaps[-1], "tolerance": tolerance})


def record_group_lasso(ctx: Context, name: str, result: dict, norms: tuple[float, ...]) -> None:
    gaps = result["gaps"]
    ctx.support(name, "numeric", GAPS_CLOSE(tuple(gaps), GAP_TOLERANCE),
                f"finite-time proxy: smallest unit share ‖u_j‖/max‖u_j‖ = {result['share']:.3f} > {NONZERO_SHARE} "
                f"(non-zero units), R(θ̂) settled (drift {result['drift']:.1e} ≤ {SETTLED:g}); "
                f"|R(θ̂) − 2·OPT(8)|/2·OPT(8) at ‖θ‖ = {', '.join(f'{n:g}' for n in norms)}: "
                f"see the gaps below; 2·OPT(8) = {result['target']:.6f} by the group-lasso SOCP "
                f"({result['reference'].message})",
                {"share": result["share"], "target": result["target"], "drift": result["drift"]},
                conclusion=THM421)


def diagonal_example() -> tuple[np.ndarray, np.ndarray]:
    """x1 = (1, 1/5), x2 = (1/5, 1), both labelled 1: the ℓ1 max-margin predictor (5/6, 5/6) has full support."""
    return np.array([[1.0, 0.2], [0.2, 1.0]]), np.ones(2)


RANDOM_DRAWS = 40  # data sets tried for the random instances (12 left only one judged at seed 3)


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
    conclusions={THM421: "confirmed"},
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
                "'Such θ̃ exists by Theorem 2.1' needs L < ℓ(0) for the logistic loss (see margin.thm3.1); "
                "the flows here reach it. Lemma C.4's balancedness, used in the proof, holds at every KKT point "
                "(see margin.def.problem2)."),
)
def check_thm421(ctx: Context) -> None:
    X, y = diagonal_example()
    rng = ctx.rng("flows")
    for loss in C.LOSSES:
        result = group_lasso_limit(diagonal(2, 2, "linear"), X, y, loss, rng, P.FLOW_NORMS)
        if not settled(result):
            ctx.support(f"diagonal example, {loss}", "numeric", False, "the flow's units vanished or it did not settle",
                        conclusion=THM421)
            continue
        record_group_lasso(ctx, f"diagonal example, {loss}", result, P.FLOW_NORMS)
    net = diagonal(3, 2, "linear")
    data = ctx.rng("data")
    wanted, judged, skipped = ctx.pick(quick=2, full=5), 0, 0
    for draw in range(RANDOM_DRAWS):
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
                {"judged": judged, "skipped": skipped}, conclusion=THM421)
    # control: Theorem 4.1's limit has a zero unit; the same comparison rejects it as a global optimum
    c = C.construction("thm4.1-linear")
    Xc, yc = np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float)
    limit = C.flow_of("thm4.1-linear", norm=300.0)
    target = 2 * P.group_lasso(c.float_model, Xc, yc).objective
    gaps = (abs(limit.cost - target) / target,)
    ctx.control("Theorem 4.1's limit (a zero unit)", GAPS_CLOSE(gaps, GAP_TOLERANCE),
                f"another construction: x = (1, 2), where the limit has a zero unit (R(θ̂) = {limit.cost:.6f} at "
                f"‖θ‖ = {np.linalg.norm(limit.final):.0f} vs "
                f"2·OPT(8) = {target:.6f}): the hypothesis fails and so does the conclusion")


# -- Remark 4.1 -------------------------------------------------------------------------------------------------
R41_EQUIV = "min{‖w1‖² + ‖w2‖² : w1 ∘ w2 = β} = 2‖β‖₁, so Problem (2) is Problem (3) in predictor space"
R41_THM41 = "Theorem 4.1's limit predictor is not optimal for Problem (3) (x = (1, 2))"
R41_THM42 = "a limit with non-zero weights gives an optimal predictor (x1 = (1, 1/5), x2 = (1/5, 1); exponential loss)"


@criterion("a² + b² − c|ab| ≡ (|a| − |b|)² for real a, b (sympy)")
def AM_GM(c: int) -> Decision:
    """With c = 2: ‖w1‖² + ‖w2‖² ≥ 2‖w1 ∘ w2‖₁, with equality iff |w1| = |w2|."""
    a, b = sympy.symbols("a b", real=True)
    holds = sympy.simplify(a**2 + b**2 - c * sympy.Abs(a * b) - (sympy.Abs(a) - sympy.Abs(b)) ** 2) == 0
    grid_a, grid_b = np.meshgrid(np.linspace(-2, 2, 8), np.linspace(-2, 2, 8))  # tightness per coordinate pair
    return Decision(holds, tightness=tightness("‖w_1‖² + ‖w_2‖² ≥ 2‖w_1 ∘ w_2‖₁ (per coordinate, a, b ∈ [−2, 2] ∖ 0)",
                                               grid_a**2 + grid_b**2, c * np.abs(grid_a * grid_b), sense="lower"))


@criterion("‖β‖₁ exceeds the certified ℓ1 max-margin LP optimum of the data (exact)")
def L1_WORSE(beta: tuple, X: np.ndarray, Y: np.ndarray) -> Decision:
    lp = max_margin(X, Y, norm="l1")
    l1 = sum(abs(b) for b in beta)
    if lp.status != "certified":
        return Decision(None, f"LP not certified: {lp.status}")
    return Decision(bool(E.sign(l1 - lp.certificate.objective) > 0),
                    f"‖β‖₁ = {l1} against the certified optimum {lp.certificate.objective} at β* = "
                    f"{tuple(lp.certificate.solution)}", {"l1": str(l1), "optimum": str(lp.certificate.objective)})


@criterion("max |β̂ − β*| ≤ 1e-3 and both weight coordinates above 5% of the largest")
def PREDICTOR_NEAR(beta_hat: np.ndarray, target: np.ndarray, weights: np.ndarray) -> Decision:
    gap = float(np.max(np.abs(np.asarray(beta_hat) - np.asarray(target))))
    shares = np.abs(weights) / np.max(np.abs(weights))
    return Decision(bool(at_most(gap, GAP_TOLERANCE) and float(np.min(shares)) > NONZERO_SHARE),
                    f"max |β̂ − β*| = {gap:.1e} (threshold {GAP_TOLERANCE:g}); smallest weight share "
                    f"{float(np.min(shares)):.3f} (threshold {NONZERO_SHARE})", {"gap": gap})


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
    conclusions={R41_EQUIV: "certified", R41_THM41: "certified", R41_THM42: "confirmed"},
    profiles={"quick": "sympy identity a² + b² − 2|ab| = (|a| − |b|)²; exact ℓ1 LP certificates on x = (1, 2) and on "
                       "x1 = (1, 1/5), x2 = (1/5, 1); Theorem 4.1's exact limit predictor (1, 0); the flow's predictor "
                       "on the second data set; controls: the identity with the constant 1, the LP optimum itself, "
                       "another data set's optimum",
              "full": "as quick", "paper": "as quick"},
    notes=plain("For diagonal networks 'non-zero weight vectors' means β̃ has full support, a strong condition since ℓ1 "
                "solutions are typically sparse."),
)
def check_rem41(ctx: Context) -> None:
    ctx.prove("‖θ‖² ≥ 2‖β‖₁ with equality iff balanced", "symbolic", AM_GM(2),
              "per coordinate w1[k]² + w2[k]² − 2|w1[k]w2[k]| = (|w1[k]| − |w2[k]|)² ≥ 0, zero iff |w1[k]| = "
              "|w2[k]|; any β is reached with equality, so min ‖θ‖² under the margins = 2·OPT(3) and θ is optimal iff "
              "it is balanced with β optimal for Problem (3)", conclusion=R41_EQUIV)
    ctx.control("the identity with the constant 1", AM_GM(1), "wrong constant: 2 → 1")
    c = C.construction("thm4.1-linear")
    beta = tuple(E.canonical(scalar_outputs(c.model, c.theta, E.to_exact(np.eye(2, dtype=int)))))
    ctx.prove("Theorem 4.1's limit predictor is not optimal for (3)", "exact", L1_WORSE(beta, c.X, c.Y),
              "x = (1, 2): the exact limit θ̃ of margin.thm4.1", conclusion=R41_THM41)
    lp = max_margin(c.X, c.Y, norm="l1")
    optimum = tuple(lp.certificate.solution) if lp.certificate else beta
    ctx.control("the LP optimum itself", L1_WORSE(optimum, c.X, c.Y), "another predictor: β̃ → the LP optimum β*")
    X, y = diagonal_example()
    fifth = sympy.Rational(1, 5)
    lp2 = max_margin(np.array([[1, fifth], [fifth, 1]], dtype=object), E.to_exact(np.ones(2, dtype=int)), norm="l1")
    net = diagonal(2, 2, "linear")
    found = P.flow_limits(net, X, y, "exponential", ctx.rng("flow"))
    if found is None or lp2.status != "certified":
        ctx.support("a limit with non-zero weights is ℓ1-optimal", "numeric", False,
                    f"no flow reached ‖θ‖ = 300 (or the LP was not certified: {lp2.status})", conclusion=R41_THM42)
        return
    theta = found[0][-1].rescaled
    beta_hat = scalar_outputs(net, theta, np.eye(2))
    target = np.asarray(lp2.solution, dtype=float)
    ctx.support("a limit with non-zero weights is ℓ1-optimal", "numeric", PREDICTOR_NEAR(beta_hat, target, theta[:2]),
                "finite-time proxy: x1 = (1, 1/5), x2 = (1/5, 1), exponential loss, ‖θ‖ = 300, against the certified "
                "LP optimum", conclusion=R41_THM42)
    ctx.control("the flow's predictor against x = (1, 2)'s optimum", PREDICTOR_NEAR(beta_hat, np.asarray(
        optimum, dtype=float), theta[:2]), "another reference: the ℓ1 optimum of x = (1, 2)")
    vanishing = np.array(theta[:2], dtype=float)
    vanishing[int(np.argmin(np.abs(vanishing)))] = 0.0
    ctx.control("the flow's predictor with a zero weight", PREDICTOR_NEAR(beta_hat, target, vanishing),
                "dropped hypothesis (non-zero weights): the smaller first-layer weight set to 0, β̂ kept")
