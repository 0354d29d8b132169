"""Paper 001, App. C.1–C.2: the auxiliary lemmas — conservation of layer and unit balances along gradient flow
(Lemmas C.1 and C.2, cited from Du et al. 2018; Lemma C.3 for depth-2 networks of N_no-share), balancedness of the
limit direction (Lemma C.4) and the AM–GM step of Theorem 3.1 (Lemma C.5).

Balances are measured along real-time gradient flows (numerics.flows, ReLU kinks located as events) and proved, where
the paper proves them, by the per-sample Euler identities of ``definitions.network_identities``: for any
differentiable loss, d/dt(‖w_in‖² − ‖w_out‖²) = −2 Σ_i ℓ'(q_i) y_i (⟨w_in, ∂Φ_i/∂w_in⟩ − ⟨w_out, ∂Φ_i/∂w_out⟩), so the
per-sample identity ⟨w_in, ∂Φ/∂w_in⟩ = ⟨w_out, ∂Φ/∂w_out⟩ is the whole lemma.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import sympy

from numerics import backend as B
from numerics.flows import GradientFlow
from numerics.losses import Objective
from numerics.networks import Dense, Network, diagonal, disjoint_patches, fully_connected
from numerics.trends import fit_rate
from theorems.margin_maximization import common as C
from theorems.margin_maximization import positive_oracles as P
from theorems.margin_maximization.definitions import (
    layer_norms,
    linear_activation,
    locally_connected,
    network_identities,
    neuron_parameters,
    relu_region,
    teacher_data,
    two_clusters,
    unit_imbalance,
)
from verify import Context, claim, line, plain

FLOW_TIME = 5.0
DRIFT_TOLERANCE = 1e-7  # relative to ‖θ(0)‖²; the real-time flow runs at rtol 1e-10 with kinks as events
Quantity = Callable[[Network, np.ndarray], np.ndarray]


def unit_quantity(net: Network, theta: np.ndarray) -> np.ndarray:
    return B.to_float(unit_imbalance(net, theta))


def layer_quantity(net: Network, theta: np.ndarray) -> np.ndarray:
    return -np.diff(B.to_float(layer_norms(net, theta)))


def weighted_layer_quantity(net: Network, theta: np.ndarray) -> np.ndarray:
    """‖u^(1)‖² − 2‖u^(2)‖² (a wrong constant: the negative control of the layer balance)."""
    norms = B.to_float(layer_norms(net, theta))
    return np.array([norms[0] - 2 * norms[1]])


def shared_unit_quantity(net: Network, theta: np.ndarray) -> np.ndarray:
    """‖w‖² − v_1² for the first unit of a network whose first layer may share weights."""
    incoming, outgoing = neuron_parameters(net, 1, 0)
    return np.array([theta[incoming] @ theta[incoming] - theta[outgoing] @ theta[outgoing]])


def drift(net: Network, X: np.ndarray, y: np.ndarray, theta0: np.ndarray, quantity: Quantity,
          loss: str = "logistic") -> tuple[float, int]:
    """max_t |I(θ(t)) − I(θ(0))| / ‖θ(0)‖² over the real-time flow on [0, 5] (21 checkpoints), and the number of
    activation-region changes the flow crossed."""
    times = np.linspace(0.0, FLOW_TIME, 21)
    run = GradientFlow(Objective(net, X, y, loss)).solve(theta0, FLOW_TIME, clock="real", rtol=1e-10, atol=1e-12,
                                                         t_eval=times)
    start = quantity(net, run.theta[0])
    worst = max(float(np.max(np.abs(quantity(net, theta) - start))) for theta in run.theta)
    return worst / float(theta0 @ theta0), run.n_crossings


def record_drifts(ctx: Context, cases: list[tuple[str, Network, Quantity]], what: str) -> None:
    rng = ctx.rng("data")
    for name, net, quantity in cases:
        X, y = two_clusters(rng, 6) if net.d_in == 2 else teacher_data(rng, 6, net.d_in)
        value, crossings = drift(net, X, y, rng.normal(size=net.n_params), quantity)
        ctx.support(name, "numeric", value <= DRIFT_TOLERANCE,
                    f"real-time flow (logistic loss, 6 samples) on t ∈ [0, {FLOW_TIME:g}], {crossings} activation "
                    f"changes: {what} drift by {value:.1e} ≤ {DRIFT_TOLERANCE:g} (relative to ‖θ(0)‖²)",
                    {"drift": value, "crossings": crossings})


# -- Lemmas C.1 and C.2 (cited) ---------------------------------------------------------------------------------------
@claim(
    id="margin.lemC.1",
    ref="Lemma C.1, App. C.1 (Du et al. 2018)",
    kind="lemma",
    title="Fully-connected networks: layer and unit balances are conserved by gradient flow",
    statement=("For a fully-connected linear or ReLU network of depth $m >= 2$ and any differentiable loss, gradient "
               "flow keeps $norm(W_j)_F^2 - norm(W_(j+1))_F^2$ constant for $j in [m - 1]$, and for every hidden unit "
               "$i$ of layer $j$ also $norm(W_j [i, :])^2 - norm(W_(j+1) [:, i])^2$ (incoming row against outgoing "
               "column)."),
    hypotheses=plain("fully-connected linear or ReLU network, depth m ≥ 2", "any differentiable loss; gradient flow"),
    expected="assumed",
    cited=True,
    profiles={"quick": "real-time flows (logistic loss, t ≤ 5, kinks as events) of 3-4-3-1 linear and ReLU networks: "
                       "drift of every layer and unit balance; the per-sample identities (sympy); control: "
                       "‖W_1‖² − 2‖W_2‖²", "full": "as quick", "paper": "as quick"},
    notes=plain("Cited, not proved in the paper; we assume it and show supporting evidence."),
)
def check_lemC1(ctx: Context) -> None:
    for act in ("linear", "relu"):
        net = fully_connected([3, 4, 3, 1], act)
        record_drifts(ctx, [(f"{act}: layer balances", net, layer_quantity),
                            (f"{act}: unit balances", net, unit_quantity)], "the balances")
        tests = network_identities(fully_connected([2, 3, 2, 1], act), relu_region() if act == "relu"
                                   else linear_activation, units=True)
        ctx.support(f"{act}: per-sample identities", "symbolic", all(t.holds for t in tests.values()),
                    "sympy on a symbolic 2-3-2-1 network (ReLU: one slope symbol per unit): ⟨u^(l), ∂Φ/∂u^(l)⟩ = Φ "
                    "for every layer and ⟨w_in, ∂Φ/∂w_in⟩ = ⟨w_out, ∂Φ/∂w_out⟩ for every unit, monomial by monomial")
    net = fully_connected([3, 4, 3, 1], "linear")
    X, y = teacher_data(ctx.rng("control"), 6, 3)
    value, _ = drift(net, X, y, ctx.rng("control").normal(size=net.n_params), weighted_layer_quantity)
    ctx.control("‖W_1‖² − 2‖W_2‖²", value > 1e3 * DRIFT_TOLERANCE,
                f"the same drift measurement on a wrong combination moves by {value:.2e}", {"drift": value})


def conv(act: str) -> Network:
    return Network((disjoint_patches(2, 2), Dense(1, 2)), act)


@claim(
    id="margin.lemC.2",
    ref="Lemma C.2, App. C.1 (Du et al. 2018)",
    kind="lemma",
    title="Networks in N: layer balances are conserved by gradient flow",
    statement=("For a linear or ReLU network in $cal(N)$ of depth $m >= 2$ (sparse and shared weights allowed) and any "
               "differentiable loss, gradient flow keeps $norm(u^((j)))^2 - norm(u^((j+1)))^2$ constant for "
               "$j in [m - 1]$."),
    hypotheses=plain("linear or ReLU network in N, depth m ≥ 2", "any differentiable loss; gradient flow"),
    expected="assumed",
    cited=True,
    profiles={"quick": "real-time flows (logistic loss, t ≤ 5, kinks as events) of the 2-patch convolution (linear, "
                       "ReLU) and a depth-3 diagonal ReLU network: drift of the layer balances; control: the unit "
                       "balance ‖w‖² − v_1² of the convolution (not conserved: shared weights)",
              "full": "as quick", "paper": "as quick"},
    notes=plain("Cited, not proved in the paper; we assume it and show supporting evidence. Per-unit balances are "
                "not claimed and fail with sharing (the control), which is why Theorem 4.4's construction escapes "
                "the positive results."),
)
def check_lemC2(ctx: Context) -> None:
    record_drifts(ctx, [("2-patch convolution, linear", conv("linear"), layer_quantity),
                        ("2-patch convolution, ReLU", conv("relu"), layer_quantity),
                        ("diagonal depth 3, ReLU", diagonal(3, 3, "relu"), layer_quantity)], "the layer balances")
    rng = ctx.rng("control")
    X, y = teacher_data(rng, 6, 4)
    value, _ = drift(conv("linear"), X, y, rng.normal(size=conv("linear").n_params), shared_unit_quantity)
    ctx.control("the unit balance with shared weights", value > 1e3 * DRIFT_TOLERANCE,
                f"the same measurement of ‖w‖² − v_1² on the convolution moves by {value:.2e}", {"drift": value})


# -- Lemma C.3 ---------------------------------------------------------------------------------------------------
NO_SHARE = {"locally connected d = 4, fields {1,2},{2,3},{3,4}": lambda act: locally_connected([[0, 1], [1, 2], [2, 3]],
                                                                                             4, act),
            "diagonal d = 3": lambda act: diagonal(3, 2, act)}


@claim(
    id="margin.lemC.3",
    ref="Lemma C.3, App. C.1",
    kind="lemma",
    title="Depth-2 networks without sharing: every unit's balance is conserved by gradient flow",
    statement=("For a depth-2 linear or ReLU network $Phi(theta; x) = sum_j v_j sigma(w_j^T x^j)$ of "
               "$cal(N)_\"no-share\"$ and any differentiable loss, gradient flow keeps $norm(w_j)^2 - v_j^2$ "
               "constant for every hidden unit $j$."),
    hypotheses=plain("depth-2 linear or ReLU network in N_no-share", "any differentiable loss; gradient flow"),
    expected="certified",
    profiles={"quick": "sympy per-sample identity ⟨w_j, ∂Φ/∂w_j⟩ = v_j ∂Φ/∂v_j on a locally connected and a diagonal "
                       "network (linear; ReLU with one slope symbol per unit, covering every σ'(0)); real-time flows "
                       "(logistic loss) of both; control: the same identity and flow on the 2-patch convolution",
              "full": "as quick", "paper": "as quick"},
    notes=plain("The proof's first display writes x_i^j inside the sum over l where x_i^l is meant (spec I13).",
                "The identity is d/dt(‖w_j‖² − v_j²) = −2 Σ_i ℓ'(q_i) y_i (⟨w_j, ∂Φ_i/∂w_j⟩ − v_j ∂Φ_i/∂v_j): the "
                "per-sample identity, proved here on two architectures, gives the lemma for any loss; for ReLU it "
                "rests on σ'(z)z = σ(z), true for every choice of σ'(0)."),
)
def check_lemC3(ctx: Context) -> None:
    for name, build in NO_SHARE.items():
        for act, activation in (("linear", linear_activation), ("relu", relu_region())):
            tests = network_identities(build(act), activation, units=True)
            units = {k: t for k, t in tests.items() if k.startswith("unit")}
            ctx.prove(f"{name}, {act}: per-sample identity", "symbolic", all(t.holds for t in units.values()),
                      f"sympy, symbolic θ and x: ⟨w_j, ∂Φ/∂w_j⟩ − v_j ∂Φ/∂v_j ≡ 0 for the {len(units)} units, monomial "
                      "by monomial (ReLU: σ(z) = s·z with a free slope s per unit)", {"units": len(units)})
    record_drifts(ctx, [(f"{name}, ReLU: flow", build("relu"), unit_quantity) for name, build in NO_SHARE.items()],
                  "the unit balances ‖w_j‖² − v_j²")
    shared = network_identities(conv("relu"), relu_region(), units=True)
    failed = [k for k, t in shared.items() if k.startswith("unit") and not t.holds]
    rng = ctx.rng("control")
    X, y = teacher_data(rng, 6, 4)
    value, _ = drift(conv("relu"), X, y, rng.normal(size=conv("relu").n_params), shared_unit_quantity)
    ctx.control("shared weights (2-patch convolution)", bool(failed) and value > 1e3 * DRIFT_TOLERANCE,
                f"the same identity fails for {failed} (the filter feeds both units) and the flow moves ‖w‖² − v_1² by "
                f"{value:.2e}", {"drift": value})


# -- Lemma C.4 ---------------------------------------------------------------------------------------------------
LIMIT_NORMS = (30.0, 100.0, 300.0)
BALANCE_TOLERANCE = 1e-4  # max_j |‖ŵ_j‖² − v̂_j²| / R(θ̂) at ‖θ‖ = 300 (it decays like ‖θ‖^(−2))


def limit_imbalance(net: Network, path: list[C.FlowLimit], quantity: Quantity) -> list[float]:
    """max over units of |balance(θ̂)| / R(θ̂) at each norm of the path."""
    return [float(np.max(np.abs(quantity(net, p.rescaled)))) / p.cost for p in path]


@claim(
    id="margin.lemC.4",
    ref="Lemma C.4, App. C.1",
    kind="lemma",
    title="Depth-2 networks without sharing: the limit direction is balanced unit by unit",
    statement=("For a depth-2 linear or ReLU network of $cal(N)_\"no-share\"$ and any differentiable loss, if "
               "$norm(theta(t)) -> infinity$ and $theta(t)$ converges in direction to $tilde(theta)$, then "
               "$norm(tilde(w)_j) = abs(tilde(v)_j)$ for every hidden unit $j$."),
    hypotheses=plain("depth-2 linear or ReLU network in N_no-share", "any differentiable loss",
                     "‖θ(t)‖ → ∞ and directional convergence"),
    expected="confirmed",
    profiles={"quick": "arc-length flows of a depth-2 ReLU network (two clusters) and a diagonal linear network (both "
                       "losses) to ‖θ‖ = 30, 100, 300: unit imbalance of θ̂ relative to R(θ̂), its rate in ‖θ‖ "
                       "(finite-time proxy); control: Theorem 4.4's shared-weight limit",
              "full": "as quick", "paper": "as quick"},
    notes=plain("θ̂ = θ/q_min^(1/2), so ‖ŵ_j‖² − v̂_j² = Δ_j/q_min with Δ_j conserved (Lemma C.3): the imbalance decays "
                "like ‖θ‖^(−2). The balance also holds at every KKT point (spec D2, margin.def.problem2), without "
                "gradient flow."),
)
def check_lemC4(ctx: Context) -> None:
    rng = ctx.rng("flows")
    X1, y1 = two_clusters(rng, 6)
    X2, y2 = teacher_data(rng, 6, 3)
    curves = {}
    for name, net, X, y, loss in (("depth-2 ReLU 2-3-1", fully_connected([2, 3, 1], "relu"), X1, y1, "exponential"),
                                  ("diagonal linear d = 3", diagonal(3, 2, "linear"), X2, y2, "logistic")):
        found = P.flow_limits(net, X, y, loss, rng, LIMIT_NORMS)
        if found is None:
            ctx.support(name, "trend", False, "no flow reached the norms with every sample separated")
            continue
        values = limit_imbalance(net, found[0], unit_quantity)
        rate = fit_rate(LIMIT_NORMS, values)
        ctx.support(name, "trend", values[-1] <= BALANCE_TOLERANCE and rate.exponent <= -1.5,
                    f"finite-time proxy ({loss}): max_j |‖ŵ_j‖² − v̂_j²| / R(θ̂) = "
                    f"{', '.join(f'{v:.1e}' for v in values)} at ‖θ‖ = 30, 100, 300, decaying like "
                    f"‖θ‖^{rate.exponent:.2f} "
                    f"(≤ −1.5; last ≤ {BALANCE_TOLERANCE:g})", {"final": values[-1], "rate": rate.exponent})
        curves[name] = (LIMIT_NORMS, values)
    if curves:
        ctx.support("imbalance curves", "trend", True, "unit imbalance of θ̂ along the flows",
                    plot=line("Lemma C.4: unit imbalance of the rescaled flow", curves, xlabel="‖θ‖",
                              ylabel="max |‖ŵ‖² − v̂²| / R", xscale="log", yscale="log"))
    c = C.construction("thm4.4-linear")
    flow = C.normalized_flow(c.float_model, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float), c.theta0,
                             c.loss, norm=300.0)
    shared = float(np.abs(shared_unit_quantity(c.float_model, flow.rescaled))[0]) / flow.cost
    ctx.control("Theorem 4.4's limit (shared filter)", shared > 1e3 * BALANCE_TOLERANCE,
                f"the same measure at the limit of the 2-patch convolution: |‖w̃‖² − ṽ_1²| / R = {shared:.3f}",
                {"imbalance": shared})


# -- Lemma C.5 ---------------------------------------------------------------------------------------------------
def tangent_line_proof() -> bool:
    """e^u ≥ 1 + u for real u: f = e^u − 1 − u has f' = e^u − 1 vanishing only at 0, f'' = e^u > 0 and f(0) = 0."""
    u = sympy.Symbol("u", real=True)
    f = sympy.exp(u) - 1 - u
    return sympy.solve(sympy.diff(f, u), u) == [0] and bool(sympy.diff(f, u, 2).is_positive) and f.subs(u, 0) == 0


def worst_slack(rng: np.random.Generator, m: int, constant: float, c_sign: float, samples: int) -> float:
    """min of (Σa_j² − constant·C²)/max(1, C²) over random (a, C), C = c_sign·|N(0, 1)|, satisfying Πa_j ≥ C^m
    (negative entries, a_j = 0 and C = 0 included), plus the equality points a_j = C (C > 0) or a = 0 (C < 0)."""
    a = rng.normal(size=(samples, m)) * rng.uniform(0.1, 3.0, (samples, 1))
    a[: samples // 10, 0] = 0.0
    c = c_sign * np.abs(rng.normal(size=samples))
    c[samples // 10: samples // 5] = 0.0
    ok = np.prod(a, axis=1) >= c**m
    a, c = a[ok], c[ok]
    boundary_c = c_sign * np.abs(rng.normal(size=100))
    boundary = [(np.full((100, m), np.abs(boundary_c)[:, None]) * (1 if c_sign > 0 else 0), boundary_c)]
    values = [(np.sum(a**2, axis=1) - constant * c**2) / np.maximum(1.0, c**2)]
    for ab, cb in boundary:
        keep = np.prod(ab, axis=1) >= cb**m
        values.append((np.sum(ab[keep] ** 2, axis=1) - constant * cb[keep] ** 2) / np.maximum(1.0, cb[keep] ** 2))
    return float(min(np.min(v) for v in values if v.size))


@claim(
    id="margin.lemC.5",
    ref="Lemma C.5, App. C.2",
    kind="lemma",
    title="AM–GM step: a product bound on m reals bounds their sum of squares",
    statement=("If $a_1, dots, a_m in RR$ satisfy $product_(j=1)^m a_j >= C^m$ for some $C >= 0$, then "
               "$sum_(j=1)^m a_j^2 >= m C^2$, with equality when $abs(a_j) = C$ for all $j$."),
    hypotheses=plain("a_1, …, a_m real (any signs)", "C ≥ 0"),
    expected="certified",
    profiles={"quick": "symbolic proof (tangent line e^u ≥ 1 + u, sympy); 10^5 random instances for m = 2 … 6 and the "
                       "equality case; controls: the constant m + 1, and C < 0 (m = 3)",
              "full": "as quick", "paper": "as quick"},
    notes=plain("The paper's proof reduces to equality and uses Lagrange multipliers without showing that a minimizer "
                "exists (spec I6). Proof used here, for every m: if C = 0 there is nothing to show; otherwise no "
                "a_j is 0 and Π|a_j| ≥ Πa_j ≥ C^m. Write |a_j| = C e^(x_j): then Σx_j ≥ 0 and Σa_j² = C² Σ e^(2x_j) ≥ "
                "C² Σ(1 + 2x_j) ≥ mC², by e^u ≥ 1 + u."),
)
def check_lemC5(ctx: Context) -> None:
    ctx.prove("tangent-line inequality", "symbolic", tangent_line_proof(),
              "sympy: f(u) = e^u − 1 − u has its only critical point at u = 0, f'' = e^u > 0 and f(0) = 0, so f ≥ 0 on "
              "ℝ; with |a_j| = Ce^(x_j), Σx_j ≥ 0 and Σa_j² ≥ C²Σ(1 + 2x_j) ≥ mC² (see notes)")
    rng = ctx.rng("samples")
    samples = ctx.pick(quick=20_000, full=200_000)
    slack = min(worst_slack(rng, m, m, 1.0, samples) for m in range(2, 7))
    ctx.support("random instances", "numeric", slack >= -1e-12,
                f"{5 * samples} draws, m = 2 … 6, negative entries, zeros and C = 0 included, plus a_j = C: smallest "
                f"(Σa_j² − mC²)/max(1, C²) = {slack:.2e} ≥ −1e-12 (0 is attained at a_j = C)", {"worst_slack": slack})
    wrong = min(worst_slack(rng, m, m + 1, 1.0, samples) for m in range(2, 7))
    ctx.control("constant m + 1", wrong < -0.5, f"the same search with m + 1 in place of m finds slack {wrong:.2f}",
                {"worst_slack": wrong})
    negative = worst_slack(rng, 3, 3, -1.0, samples)
    ctx.control("C < 0 (m = 3)", negative < -0.5,
                f"the same search with C < 0 (then a = 0 satisfies Πa ≥ C³) finds slack {negative:.2f}",
                {"worst_slack": negative})
