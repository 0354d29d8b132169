"""Paper 001, Theorem 4.3 (depth-2 ReLU: non-zero inputs give a local optimum) and the per-layer results of
Sec. 5 (Theorem 5.2 for linear networks in N, Theorem 5.4 for ReLU networks in N), checked on gradient-flow limits
of random seeded instances against the convex problems the proofs use: Problem (11) with the activation pattern
frozen at the limit, and Problem (4) with the constraints linearized in one layer. Local optimality is probed by
local search (numerics.kkt) around the limit; the exact constructions of the paper (Lemma C.6, Theorems 4.2 (2),
5.3) give the 'not global' parts and the controls.
"""

from __future__ import annotations

import numpy as np

from numerics import kkt
from numerics.losses import Objective
from numerics.networks import Dense, Network, diagonal, disjoint_patches, fully_connected
from numerics.tolerances import at_most
from numerics.trends import is_monotone
from theorems.margin_maximization import common as C
from theorems.margin_maximization import positive_oracles as P
from theorems.margin_maximization.definitions import flow_path, teacher_data, two_clusters
from theorems.margin_maximization.positive import GAP_TOLERANCE, SOLVER_FLOOR, record_saddle
from verify import Context, Decision, claim, criterion, plain

KINK_DISTANCE = 1e-2  # scale-free distance of every pre-activation from 0 at θ̂ (the hypothesis' proxy)
SEARCH_TOLERANCE = 1e-6  # relative: local search may not beat the convex reference by more than this
SEARCH_STARTS = 8
RELU_EVALUATIONS = 50_000
RELU_DATA_SETS = 6  # two-cluster data sets tried for a limit with non-zero inputs (stated in the detail)


L43 = ("a limit with non-zero inputs is a local minimum, optimal for Problem (11) with its pattern frozen (random "
       "two-cluster instances; both losses)")
G43 = "it need not be a global minimum, even for fully-connected networks (Lemma C.6)"
THM52_PRINTED = "L(θ(t₀)) < 1 implies convergence in direction to a per-layer optimal KKT point (logistic loss)"
THM52_LAYERS = "every layer of the limit is a global minimum of its Problem (4) (random linear instances)"
L54 = "layer l of a limit with non-zero inputs from layer l on is a local minimum of Problem (4) (random fan instances)"
G54 = "it need not be a global one (Lemma C.6's first layer)"


@criterion("local search finds nothing below the reference by more than the tolerance (relative)")
def NOT_BEATEN(improvement: float, tolerance: float) -> Decision:
    return Decision(at_most(improvement, tolerance), f"relative improvement {improvement:.2e} (threshold "
                    f"{tolerance:g})", {"improvement": improvement, "tolerance": tolerance})


@criterion("every layer's relative gap to its Problem (4) optimum decreases along the norms and ends ≤ tolerance")
def LAYERS_OPTIMAL(gaps: tuple[tuple[float, ...], ...], tolerance: float) -> Decision:
    ok = all(at_most(row[-1], tolerance) and is_monotone(list(row), "decreasing", atol=SOLVER_FLOOR) for row in gaps)
    return Decision(bool(ok), "; ".join(f"layer {k + 1}: {', '.join(f'{g:.1e}' for g in row)}"
                                        for k, row in enumerate(gaps)) + f" (threshold {tolerance:g})",
                    {"worst_final_gap": max(row[-1] for row in gaps), "tolerance": tolerance})


def global_point_document() -> dict:
    """Theorem 4.1's network on x = (2, 1) at its balanced KKT point, which is a global optimum."""
    doc = C.document("thm4.1-linear")
    doc["data"]["inputs"] = [[2, 1]]
    return C.with_parameters(C.with_properties(doc, {"check": "global_optimum"}), [["1/sqrt(2)", 0],
                                                                                 [["1/sqrt(2)", 0]]])


# -- Theorem 4.3 ---------------------------------------------------------------------------------------------------
def relu_depth2_limit(loss: str, rng: np.random.Generator, data: np.random.Generator) -> dict | None:
    """A depth-2 ReLU limit with non-zero inputs on two-cluster data (up to RELU_DATA_SETS tried): R(θ̂) against
    2·OPT(11) with its frozen pattern, and local search in half the pattern-stable ball."""
    net = fully_connected([2, 3, 1], "relu")
    for attempt in range(RELU_DATA_SETS):
        X, y = two_clusters(data, 6)
        # a flow that needs more than RELU_EVALUATIONS per norm segment chatters along a kink: its limit would have a
        # zero pre-activation, outside the hypothesis, so it is not followed further (it cost minutes at seed 2)
        found = P.flow_limits(net, X, y, loss, rng, max_evaluations=RELU_EVALUATIONS)
        if found is None:
            continue
        theta = found[0][-1].rescaled
        if P.smallest_relative_preactivation(net, theta, X) <= KINK_DISTANCE:
            continue
        # units with the same activation pattern see the same features, so Problem (11) with them merged has the
        # same value (‖u‖ + ‖u'‖ ≥ ‖u + u'‖); merging keeps the SOCP well conditioned (duplicate blocks made the
        # dual solver return 'optimal_inaccurate')
        pattern = np.unique(P.first_layer_pattern(net, theta, X), axis=1)
        frozen = P.group_lasso(fully_connected([2, pattern.shape[1], 1], "relu"), X, y, pattern)
        if frozen.objective is None:  # the reference could not be computed: this data set is not judged
            continue
        target = 2 * frozen.objective
        radius = 0.5 * P.pattern_stable_radius(net, theta, X)
        search = kkt.local_search(net, theta, X, y, radius, starts=SEARCH_STARTS, seed=attempt)
        return {"gap": abs(found[0][-1].cost - target) / target, "target": target, "radius": radius,
                "beaten": (target - search.best_cost) / target, "attempts": attempt + 1}
    return None


@claim(
    id="margin.thm4.3",
    ref="Thm 4.3, Sec. 4; proof in App. C.6",
    kind="theorem",
    title="Depth-2 ReLU networks without sharing: non-zero inputs make the limit a local optimum",
    statement=("For a depth-2 ReLU network of $cal(N)_\"no-share\"$ trained by gradient flow on the exponential or "
               "logistic loss with $L(theta(t_0)) < 1$ at some $t_0$, if the limit KKT point $tilde(theta)$ has "
               "$tilde(w)_j^T x_i^j != 0$ for all $i, j$, then $tilde(theta)$ is a local minimum of Problem (2); it is "
               "then optimal for the convex Problem (11) with the activation pattern of $tilde(theta)$ frozen. It need "
               "not be a global minimum, even for fully-connected networks."),
    hypotheses=plain("depth-2 ReLU network in N_no-share", "exponential or logistic loss; L(θ(t0)) < 1 for some t0",
                     "every hidden pre-activation of the limit is non-zero on every sample"),
    conclusions={L43: "confirmed", G43: "certified"},
    profiles={"quick": "random two-cluster data (n = 6), fully-connected 2-3-1 ReLU, both losses: arc-length flow to "
                       "‖θ‖ = 300; R(θ̂) against 2·OPT(11) (SOCP, frozen pattern); SLSQP local search (8 starts) in "
                       "half the pattern-stable ball; Lemma C.6's exact point (local, not global); control: the same "
                       "local search at Theorem 4.2 (2)'s limit (zero pre-activations)",
              "full": "as quick", "paper": "as quick"},
    notes=plain("Finite-time proxy for the limit; local search supports local optimality but does not prove it. The "
                "pattern-stable radius min |w_jᵀx_i^j|/‖x_i^j‖ is where Problem (11)'s bound applies exactly.",
                "'Such θ̃ exists by Theorem 2.1' needs L < ℓ(0) for the logistic loss (see margin.thm3.1)."),
)
def check_thm43(ctx: Context) -> None:
    rng, data = ctx.rng("flows"), ctx.rng("data")
    for loss in C.LOSSES:
        found = relu_depth2_limit(loss, rng, data)
        if found is None:
            ctx.support(f"random instance, {loss}", "numeric", False,
                        f"no flow limit with non-zero inputs in {RELU_DATA_SETS} data sets", conclusion=L43)
            continue
        ctx.support(f"random instance, {loss}: R(θ̂) = 2·OPT(11)", "numeric", at_most(found["gap"], GAP_TOLERANCE),
                    f"finite-time proxy (‖θ‖ = 300, data set {found['attempts']} of at most {RELU_DATA_SETS}): "
                    "non-zero pre-activations; "
                    f"|R(θ̂) − 2·OPT(11)|/2·OPT(11) = {found['gap']:.1e} (threshold {GAP_TOLERANCE:g})",
                    {"gap": found["gap"]}, conclusion=L43)
        ctx.support(f"random instance, {loss}: local search", "numeric",
                    NOT_BEATEN(found["beaten"], SEARCH_TOLERANCE),
                    f"local search within {found['radius']:.3f} (half the pattern-stable radius) against 2·OPT(11)",
                    {"radius": found["radius"]}, conclusion=L43)
    lemma = C.source("lemC.6")
    C.record(ctx, "Lemma C.6: a fully-connected limit that is a local minimum", lemma, "local_optimum", True, G43)
    C.record(ctx, "… and not a global one", lemma, "global_optimum", False, G43)
    C.control_property(ctx, "'not a global minimum' at a global optimum", C.edited("x = (2, 1)",
                                                                                   global_point_document()),
                       "global_optimum", False, "another construction: Theorem 4.1's network on x = (2, 1)")
    # control: Theorem 4.2 (2)'s limit has zero pre-activations; the same local search beats it
    c = C.construction("thm4.2.2")
    X, y = np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float)
    theta = np.asarray(c.theta, dtype=float)
    search = kkt.local_search(c.float_model, theta, X, y, 0.05, starts=SEARCH_STARTS)
    ctx.control("local search at Theorem 4.2 (2)'s limit", NOT_BEATEN(search.relative_improvement, SEARCH_TOLERANCE),
                "dropped hypothesis: Theorem 4.2 (2)'s limit (zero pre-activations), search within 0.05 of θ̃")


# -- Theorem 5.2 -----------------------------------------------------------------------------------------------
THM52_STATEMENT = ("For a linear network in $cal(N)$ of depth $m >= 2$ (sparse and shared weights allowed) trained by "
                   "gradient flow on the exponential or logistic loss, if $L(theta(t_0)) < {threshold}$ at some $t_0$, "
                   "then $theta(t)$ converges in direction to a KKT point $tilde(theta)$ of Problem (2) whose every "
                   "layer $tilde(u)^((l))$ is a global minimum of the per-layer Problem (4) with respect to "
                   "$tilde(theta)$.")


@claim(
    id="margin.thm5.2",
    ref="Thm 5.2, Sec. 5; proof in App. C.9",
    kind="theorem",
    title="Linear networks in N: every layer of the limit is per-layer optimal (as printed)",
    statement=THM52_STATEMENT.format(threshold="1"),
    hypotheses=plain("linear network in N of depth m ≥ 2", "exponential or logistic loss", "L(θ(t0)) < 1 for some t0"),
    conclusions={THM52_PRINTED: "refuted"},
    corrected_by="margin.thm5.2.corrected",
    erratum="literal",
    profiles={"quick": "exact stationary point of a 2-2-1 linear network (in N) with logistic loss log 2 < 1; "
                       "controls: the same point under the exponential loss and under L < log 2",
              "full": "as quick", "paper": "as quick"},
    notes=plain("As for margin.thm3.1: with the logistic loss, L < 1 does not force correct classification, "
                "and a stationary point with L = log 2 never converges in direction to a KKT point. The per-layer "
                "conclusion holds under L < ℓ(0): margin.thm5.2.corrected."),
)
def check_thm52(ctx: Context) -> None:
    record_saddle(ctx, "Theorem 5.2", THM52_PRINTED)


def linear_instances(rng: np.random.Generator) -> list[tuple[str, Network, np.ndarray, np.ndarray]]:
    X4, y4 = teacher_data(rng, 5, 4)
    X3, y3 = teacher_data(rng, 5, 3)
    return [("2-patch convolution (shared filter)", Network((disjoint_patches(2, 2), Dense(1, 2)), "linear"), X4, y4),
            ("diagonal, depth 3", diagonal(3, 3, "linear"), X3, y3),
            ("fully connected 3-3-2-1", fully_connected([3, 3, 2, 1], "linear"), X3, y3)]


# the normalized flow's direction settles like a power of 1/‖θ‖ (each layer's gap falls ~10× per 3.16× in ‖θ‖ from
# ‖θ‖ = 300 on), but the constant depends on the instance: the diagonal depth-3 instance of seed 20240605 (logistic
# loss) had gaps 2.8e-2, 4.4e-3, 4.5e-4 at ‖θ‖ = 100, 300, 1000, so the proxy is read at ‖θ‖ = 1000
THM52_NORMS = (100.0, 300.0, 1000.0)
SHIFT_DRAWS = 1000  # draws of the shifted point until it separates the data (seed 20240620 rejected 14)


def shifted_point(net: Network, theta: np.ndarray, X: np.ndarray, y: np.ndarray, rng: np.random.Generator
                  ) -> tuple[np.ndarray, int]:
    """θ moved by 10% of its norm in a random direction, redrawn until every margin y_iΦ(θ'; x_i) is positive (the
    shifted point must be a feasible direction for Problem (4)); the point and how many draws were rejected."""
    for rejected in range(SHIFT_DRAWS):
        shifted = theta + 0.1 * np.linalg.norm(theta) * rng.normal(size=net.n_params) / np.sqrt(net.n_params)
        if float(np.min(Objective(net, X, y, "exponential").margins(shifted))) > 0:
            return shifted, rejected
    raise RuntimeError(f"no shifted point with positive margins in {SHIFT_DRAWS} draws")


def per_layer_gaps(net: Network, path: list[C.FlowLimit], X: np.ndarray, y: np.ndarray) -> list[list[float]]:
    """Relative gaps ‖û^(l)‖² vs OPT4_l for every layer (rows) at every norm of the path (columns)."""
    return [[P.layer_problem(net, p.final, X, y, layer).relative_gap for p in path] for layer in range(net.depth)]


@claim(
    id="margin.thm5.2.corrected",
    ref="Thm 5.2, Sec. 5; proof in App. C.9",
    kind="theorem",
    title="Linear networks in N: every layer of the limit is per-layer optimal",
    statement=THM52_STATEMENT.format(threshold="ell(0)"),
    hypotheses=plain("linear network in N of depth m ≥ 2", "exponential or logistic loss",
                     "L(θ(t0)) < ℓ(0) for some t0 (1 for the exponential loss, log 2 for the logistic loss)"),
    conclusions={THM52_LAYERS: "confirmed"},
    corrects="margin.thm5.2",
    profiles={"quick": "random teacher data: 2-patch convolution (shared weights), diagonal depth 3, fully connected "
                       "depth 3, exponential and logistic loss alternately; arc-length flow to ‖θ‖ = 100, 300, 1000; "
                       "each layer against its Problem (4) QP; the exact limits of Theorems 4.1 and 4.4 (linear); "
                       "control: a shifted point (θ̂ moved by 10% of its norm, redrawn until it separates the data)",
              "full": "both losses on every architecture", "paper": "as full"},
    notes=plain(("Finite-time proxy: each layer's relative gap to its Problem (4) optimum must decrease along "
                 "‖θ‖ = 100, 300, 1000 and end ≤ 1e-3. The gaps fall roughly like ‖θ‖^-2 with a constant that "
                 "depends on the instance (diagonal depth 3, logistic loss, seed 20240605: 2.8e-2, 4.4e-3, 4.5e-4), "
                 "so the proxy is read at ‖θ‖ = 1000, not 300."),
                ("The control moves θ̂ by 10% of its norm in a random direction; a draw that leaves a sample "
                 "unseparated (seed 20240620: minimum margin −7.6e3 on the 2-patch convolution) has no Problem (4) "
                 "and is redrawn, and the number of rejected draws is recorded.")),
)
def check_thm52_corrected(ctx: Context) -> None:
    rng = ctx.rng("instances")
    for index, (name, net, X, y) in enumerate(linear_instances(rng)):
        losses = ctx.pick(quick=[C.LOSSES[index % 2]], full=list(C.LOSSES))
        for loss in losses:
            found = P.flow_limits(net, X, y, loss, rng, norms=THM52_NORMS)
            if found is None:
                ctx.support(f"{name}, {loss}", "numeric", False, "no flow reached the stated norms",
                            conclusion=THM52_LAYERS)
                continue
            gaps = tuple(tuple(row) for row in per_layer_gaps(net, found[0], X, y))
            ctx.support(f"{name}, {loss}: L < ℓ(0)", "numeric", P.below_threshold(net, X, y, loss, found[0][0].final),
                        "the hypothesis holds from ‖θ‖ = 100 on", conclusion=THM52_LAYERS,
                        tightness=P.threshold_tightness(net, X, y, loss, found[0][0].final))
            ctx.support(f"{name}, {loss}", "numeric", LAYERS_OPTIMAL(gaps, GAP_TOLERANCE),
                        "finite-time proxy: |‖û^(l)‖² − OPT4_l|/OPT4_l per layer at ‖θ‖ = "
                        + ", ".join(f"{norm:g}" for norm in THM52_NORMS),
                        conclusion=THM52_LAYERS)
            if index == 0:
                shifted, rejected = shifted_point(net, found[0][-1].final, X, y, rng)
                moved = tuple((P.layer_problem(net, shifted, X, y, layer).relative_gap,) for layer in range(net.depth))
                ctx.control(f"a shifted point ({loss})", LAYERS_OPTIMAL(moved, GAP_TOLERANCE),
                            "another point: θ̂ moved by 10% of its norm, redrawn until it separates the data",
                            f"{rejected} shifted draws rejected (a sample not separated)",
                            {"shifted_draws_rejected": rejected})
    for name, layers in (("thm4.4-linear", (1, 2)), ("thm4.1-linear", (1, 2))):
        C.record(ctx, f"{name}: the flow's limit", C.source(name), "gf_limit", True, THM52_LAYERS)
        for layer in layers:
            C.record(ctx, f"{name}: layer {layer} solves Problem (4)", C.source(name),
                     f"layer_optimum (layer {layer})", True, THM52_LAYERS)


# -- Theorem 5.4 ---------------------------------------------------------------------------------------------------
DEEP_NORMS = (100.0, 300.0, 1000.0)
DEEP_EVALUATIONS = 20_000  # per norm segment; a settled flow of a fan instance needs a few thousand
SETTLED = 1e-4  # relative change of R(θ̂) between ‖θ‖ = 300 and 1000 below which a flow is judged


def deep_limits(rng: np.random.Generator, loss: str, wanted: int, draws: int) -> tuple[list, int]:
    """Fan instances (positive_oracles.fan_instance) whose flow reaches ‖θ‖ = 1000 within the cost bound, has
    settled and keeps every pre-activation away from 0 (the hypothesis' proxy): up to ``wanted`` of them as
    (net, X, y, points), and how many draws were not judged."""
    judged, skipped = [], 0
    for _ in range(draws):
        if len(judged) == wanted:
            break
        net, X, y, theta0 = P.fan_instance(rng)
        path = flow_path(net, X, y, theta0, loss, DEEP_NORMS, max_evaluations=DEEP_EVALUATIONS)
        if len(path) < len(DEEP_NORMS):
            skipped += 1
            continue
        points = [limit.final for limit in path]
        costs = [float(kkt.scale_free_cost(net, p, X, y)) for p in points[-2:]]
        rescaled = kkt.rescale_to_margin(net, points[-1], X, y)
        if abs(costs[1] - costs[0]) / costs[1] > SETTLED or P.smallest_relative_preactivation(net, rescaled, X) \
                <= KINK_DISTANCE:
            skipped += 1
            continue
        judged.append((net, X, y, points))
    return judged, skipped


def layer_search(net, theta: np.ndarray, X: np.ndarray, y: np.ndarray, layer: int, radius: float,
                 seed: int) -> float:
    """Local search on Problem (4) of ``layer`` around θ's layer: the relative improvement over ‖u^(l)‖²."""
    restriction, u = kkt.restrict_to_layer(net, theta, layer)
    return kkt.local_search(restriction, u, X, y, radius, starts=SEARCH_STARTS, seed=seed).relative_improvement


@claim(
    id="margin.thm5.4",
    ref="Thm 5.4, Sec. 5; proof in App. C.11",
    kind="theorem",
    title="ReLU networks in N: with non-zero inputs from layer l on, layer l of the limit is per-layer locally optimal",
    statement=("For a ReLU network in $cal(N)$ of depth $m >= 2$ trained by gradient flow on the exponential or "
               "logistic loss with $L(theta(t_0)) < 1$ at some $t_0$, let $tilde(theta)$ be the limit KKT point and "
               "$l in [m]$. If the inputs of every unit in the layers $>= l$ are non-zero on every sample at "
               "$tilde(theta)$, then $tilde(u)^((l))$ is a local minimum of the per-layer Problem (4) with respect to "
               "$tilde(theta)$; it need not be a global one."),
    hypotheses=plain("ReLU network in N of depth m ≥ 2", "exponential or logistic loss; L(θ(t0)) < 1 for some t0",
                     "non-zero inputs to every unit of the layers ≥ l at the limit"),
    conclusions={L54: "confirmed", G54: "certified"},
    profiles={"quick": "random 'fan' instances (depth-3 ReLU 2-3-2-1, three points labelled 1), one judged per loss: "
                       "arc-length flow to ‖θ‖ = 100, 300, 1000 (cost-bounded; judged when settled with non-zero "
                       "inputs); every layer against its linearized Problem (4) (QP) and local search on Problem (4) "
                       "within 1% of ‖û^(l)‖; Lemma C.6's exact first layer (local, not global); control: the same "
                       "search on Theorem 5.3's first layer", "full": "three judged instances per loss",
              "paper": "as full"},
    notes=plain("With the activation patterns of the layers ≥ l frozen, Φ is linear in u^(l) near the limit, so the "
                "linearized QP is Problem (4) on a small ball (App. C.11); local search supports local optimality "
                "without proving it. Finite-time proxy for the limit.",
                "The random instances that settle within the cost bound end with every unit active on every sample "
                "(flows towards mixed patterns cross kinks for a long time or approach a zero pre-activation); the "
                "exact Lemma C.6 point supplies a limit with a mixed pattern (certified local, not global).",
                "'Such θ̃ exists by Theorem 2.1' needs L < ℓ(0) for the logistic loss (see margin.thm3.1)."),
)
def check_thm54(ctx: Context) -> None:
    rng = ctx.rng("instances")
    wanted = ctx.pick(quick=1, full=3)
    # 42 % of fan draws are judged (51 of 120 at seeds 1 and 2, both losses); at a rate of 0.35 or more, 24 draws find
    # no judged instance with probability ≤ 3e-5 and 40 draws fewer than three with probability ≤ 1e-5 (8 draws
    # missed three with probability 0.27: full profile, seed 20240602)
    draws = ctx.pick(quick=24, full=40)
    for loss in C.LOSSES:
        judged, skipped = deep_limits(rng, loss, wanted, draws=draws)
        ctx.support(f"instances judged ({loss})", "numeric", len(judged) == wanted,
                    f"{len(judged)} fan instances judged (wanted {wanted}, at most {draws} draws); {skipped} flows "
                    f"not judged (over "
                    f"{DEEP_EVALUATIONS} evaluations per segment, R(θ̂) still drifting by more than {SETTLED:g}, or a "
                    f"pre-activation within {KINK_DISTANCE:g} of 0)", {"judged": len(judged), "skipped": skipped},
                    conclusion=L54)
        for index, (net, X, y, points) in enumerate(judged):
            theta = kkt.rescale_to_margin(net, points[-1], X, y)
            rows = []
            for layer in range(net.depth):
                gaps = [P.layer_problem(net, p, X, y, layer) for p in points]
                radius = 0.01 * np.sqrt(gaps[-1].squared_norm)
                improvement = layer_search(net, theta, X, y, layer, radius, seed=layer)
                beaten = (gaps[-1].optimum - gaps[-1].squared_norm * (1 - improvement)) / gaps[-1].optimum
                rows.append(([g.relative_gap for g in gaps], beaten))
            pattern = net.preactivations(theta, X)[0] > 0
            ctx.support(f"fan instance {index + 1}, {loss}: linearized Problem (4)", "numeric",
                        LAYERS_OPTIMAL(tuple(tuple(g) for g, _ in rows), GAP_TOLERANCE),
                        "finite-time proxy: 2-3-2-1 ReLU, n = 3, all labels 1, first-layer pattern "
                        f"{pattern.astype(int).tolist()}; per layer |‖û^(l)‖² − OPT|/OPT at ‖θ‖ = 100, 300, 1000",
                        conclusion=L54)
            ctx.support(f"fan instance {index + 1}, {loss}: local search", "numeric",
                        NOT_BEATEN(max(b for _, b in rows), SEARCH_TOLERANCE),
                        "how far local search within 1% of ‖û^(l)‖ gets below OPT, worst layer", conclusion=L54)
    lemma = C.source("lemC.6")
    C.record(ctx, "Lemma C.6: the first layer is a local minimum of Problem (4)", lemma, "layer_optimum (layer 1)",
             True, G54)
    C.record(ctx, "… and not a global one", lemma, "layer_optimum (layer 1) #2", False, G54)
    C.control_property(ctx, "'not global' for Lemma C.6's output layer", lemma, "layer_optimum (layer 2)", False,
                       "another layer: 1 → 2 (a convex QP that θ̃ solves)")
    c = C.construction("thm5.3")
    improvement = layer_search(c.float_model, np.asarray(c.theta, dtype=float), np.asarray(c.X, dtype=float),
                               np.asarray(c.Y, dtype=float), 0, 0.05, seed=0)
    ctx.control("local search on Theorem 5.3's first layer (zero inputs)", NOT_BEATEN(improvement, SEARCH_TOLERANCE),
                "dropped hypothesis: Theorem 5.3's first layer (zero inputs), search within 0.05")
