"""Invariants of gradient flow on deep linear networks (Ji & Telgarsky, Sec. 2, eq. (2)).

For W = (W_L, …, W_1) and any risk that depends on W only through the product W_L⋯W_1, the flow
dW_k/dt = −∂R/∂W_k keeps every adjacent-layer Gram difference W_{k+1}ᵀW_{k+1} − W_kW_kᵀ constant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath
import numpy as np
import sympy

from numerics import backend as B
from numerics import hp_ode
from numerics.flows import GradientFlow
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.symbolic import (
    ZeroTest,
    generic_loss,
    gradient_flow,
    is_identically_zero,
    lie_derivative,
    weight_matrices,
)
from numerics.trends import log_spaced
from verify import Context, claim, line

Gap = Callable[[Sequence[np.ndarray], int], np.ndarray]

DIMS = (2, 3, 2, 1)  # d_0 (input), d_1, d_2, d_L = 1: the control below needs d_0 = d_2
TOLERANCE = 1e-9  # float64 drift, relative to the size of the terms of the quantity
HIGH_PRECISION_TOLERANCE = mpmath.mpf("1e-25")


def gram_gap(layers: Sequence, k: int):
    """The statement's quantity C_k = W_{k+1}ᵀW_{k+1} − W_kW_kᵀ (layers W_1..W_L, k is 1-based)."""
    lower, upper = layers[k - 1], layers[k]
    return B.transpose(upper) @ upper - lower @ B.transpose(lower)


def transposed_gap(layers: Sequence, k: int):
    """The negative control: the same Grams taken on the other side, W_{k+1}W_{k+1}ᵀ − W_kᵀW_k."""
    lower, upper = layers[k - 1], layers[k]
    return upper @ B.transpose(upper) - B.transpose(lower) @ lower


# -- the check, applied to a candidate invariant ----------------------------------------------------
def derivative_vanishes_for_every_shape(gap: Gap) -> ZeroTest:
    """d/dt gap along the flow, with every matrix and the loss gradient symbolic in shape and entries.

    Layers above k+1 and below k enter only through the products A = W_L⋯W_{k+2} and B = W_{k−1}⋯W_1, and the
    loss only through G = ∂R/∂(W_L⋯W_1); so one noncommutative computation covers every depth, width and loss.
    """
    a, b, c, d = sympy.symbols("d_a d_b d_c d_0", integer=True, positive=True)
    above, upper = sympy.MatrixSymbol("A", 1, c), sympy.MatrixSymbol("V", c, b)
    lower, below = sympy.MatrixSymbol("W", b, a), sympy.MatrixSymbol("B", a, d)
    G = sympy.MatrixSymbol("G", 1, d)
    grad_upper = above.T * G * (lower * below).T  # ∂R/∂W_{k+1}
    grad_lower = (above * upper).T * G * below.T  # ∂R/∂W_k
    h = sympy.Symbol("h")  # d/dt Q(W(t)) = d/dh Q(W + h·dW/dt) at h = 0
    moved = gap([lower - h * grad_lower, upper - h * grad_upper], 1)
    return is_identically_zero(sympy.expand(moved).diff(h).subs(h, 0))


def derivative_vanishes_entrywise(gap: Gap, dims: Sequence[int], k: int) -> ZeroTest:
    """The same statement on explicit symbolic entries of a network with layer widths ``dims``."""
    layers = weight_matrices(dims)
    product = layers[-1]
    for W in reversed(layers[:-1]):
        product = product * W
    objective, _ = generic_loss(product)
    field = gradient_flow(objective, layers)
    return is_identically_zero(lie_derivative(gap(layers, k), layers, field))


def relative_drift(gap: Gap, net, thetas: np.ndarray, k: int) -> np.ndarray:
    """max-entry change of gap(t) − gap(0) over the size of its terms, at each checkpoint."""
    first = gap(net.matrices(thetas[0]), k)
    drifts = []
    for theta in thetas:
        layers = net.matrices(theta)
        scale = 1.0 + float(np.sum(layers[k - 1] ** 2) + np.sum(layers[k] ** 2))
        drifts.append(float(np.max(np.abs(gap(layers, k) - first))) / scale)
    return np.array(drifts)


def _dataset(ctx: Context, stream: str, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """n points in the unit ball with ±1 labels from a random teacher (Ji & Telgarsky's setting: ‖x‖ ≤ 1)."""
    rng = ctx.rng(stream)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * 1.25
    y = np.sign(X @ rng.normal(size=d))
    y[y == 0] = 1.0
    return X, y


@claim(
    id="align.eq2",
    ref="Eq. (2) (= eq. (5)), Sec. 2",
    kind="equation",
    title="Adjacent-layer Gram differences are conserved by gradient flow",
    statement=("For a deep linear network $x |-> W_L dots.c W_1 x$ trained by gradient flow on any risk that "
               "depends on the weights only through $W_L dots.c W_1$, the matrix "
               "$W_(k+1)^T W_(k+1) - W_k W_k^T$ does not change in time, for every $1 <= k < L$."),
    hypotheses=["deep linear network, any layer widths", "risk differentiable in the end-to-end map",
                "continuous-time gradient flow (the discrete analogue is Lemma 8)"],
    expected="certified",
    profiles={
        "quick": "symbolic proof for all shapes; 30-digit integration to t = 1; float64 flows to t = 1e4 "
                 "for 3 losses × 1 dataset",
        "full": "as quick with 3 datasets per loss",
        "paper": "as full",
    },
    notes=["The dump loses the transposes; $W_(k+1)^T W_(k+1) - W_k W_k^T$ is the only reading whose two "
           "sides have the same shape ($d_k times d_k$)."],
)
def check_eq2(ctx: Context) -> None:
    # 1. proof: the derivative of the quantity along the flow is the zero matrix, for every shape and loss
    proof = derivative_vanishes_for_every_shape(gram_gap)
    ctx.prove("d/dt = 0 for all shapes and losses", "symbolic", proof.proved,
              "noncommutative sympy: W_(k+1)ᵀ∂R/∂W_(k+1) = (∂R/∂W_k)W_kᵀ makes the derivative vanish; "
              + proof.description, {"method": proof.method or "none"})
    for k in range(1, len(DIMS) - 1):
        explicit = derivative_vanishes_entrywise(gram_gap, DIMS, k)
        ctx.prove(f"d/dt = 0 entrywise, k = {k}", "symbolic", explicit.proved,
                  f"explicit entries, widths {DIMS}, generic loss gradient: {explicit.description}")

    # 2. 30-digit integration of a logistic-loss flow: the drift stays at the working precision
    net = fully_connected(list(DIMS), "linear")
    X, y = _dataset(ctx, "data-mp", 4, DIMS[0])
    theta0 = ctx.rng("init-mp").normal(size=net.n_params) * 0.7
    with mpmath.workdps(30):
        objective = Objective(net, B.to_object(X, "mp"), B.to_object(y, "mp"), "logistic", mean=True)
        solution = hp_ode.integrate(lambda t, z: objective.descent(z), 0, theta0, 1, t_eval=[0.25, 0.5, 0.75])
        layers0 = net.matrices(solution.y[0])
        worst = max(max(abs(v) for v in (gram_gap(net.matrices(z), k) - gram_gap(layers0, k)).ravel())
                    for z in solution.y for k in range(1, len(DIMS) - 1))
    ctx.support("30-digit flow, t ∈ [0, 1]", "numeric",
                solution.status is hp_ode.HPStatus.COMPLETED and worst <= HIGH_PRECISION_TOLERANCE,
                f"Bulirsch–Stoer at 30 digits, logistic loss: max |C(t) − C(0)| ≤ {HIGH_PRECISION_TOLERANCE}",
                {"max_abs_drift": float(worst), "tolerance": float(HIGH_PRECISION_TOLERANCE),
                 "nfev": solution.nfev})

    # 3. float64 flows to t = 1e4 for three losses; the control quantity goes through the same measurement
    times = log_spaced(1e-2, 1e4, 25)
    worst_drift, worst_control, curves = 0.0, np.inf, {}
    for loss in ("logistic", "exponential", "square"):
        for index in range(ctx.pick(1, 3)):
            X, y = _dataset(ctx, f"data-{loss}-{index}", 6, DIMS[0])
            targets = y if loss != "square" else y[:, None] * 0.8
            flow = GradientFlow(Objective(net, X, targets, loss, mean=True))
            theta0 = ctx.rng(f"init-{loss}-{index}").normal(size=net.n_params) * 0.5
            run = flow.solve(theta0, times[-1], clock="log", t_eval=times)
            for k in range(1, len(DIMS) - 1):
                drift = relative_drift(gram_gap, net, run.theta, k)
                worst_drift = max(worst_drift, float(drift.max()))
            control = relative_drift(transposed_gap, net, run.theta, 1)
            worst_control = min(worst_control, float(control.max()))
            if index == 0:
                curves[f"{loss}: statement"] = (run.t[1:], np.maximum(drift[1:], 1e-18))
                curves[f"{loss}: control"] = (run.t[1:], np.maximum(control[1:], 1e-18))
    ctx.support("float64 flows to t = 1e4", "numeric", worst_drift <= TOLERANCE,
                f"log-time LSODA (rtol 1e-10), logistic/exponential/square losses: relative drift ≤ {TOLERANCE}",
                {"max_relative_drift": worst_drift, "tolerance": TOLERANCE},
                plot=line("Drift of the Gram differences along gradient flow", curves, xlabel="t",
                          ylabel="relative drift", xscale="log", yscale="log", reference={"tolerance": TOLERANCE}))

    # negative controls: the transposed Grams are not conserved, and every check says so
    shape_free = derivative_vanishes_for_every_shape(transposed_gap)
    entrywise = derivative_vanishes_entrywise(transposed_gap, DIMS, 1)
    ctx.control("transposed Grams: symbolic checks", not shape_free.proved and not entrywise.proved
                and entrywise.refuted,
                "W_(k+1)W_(k+1)ᵀ − W_kᵀW_k: no cancellation in the free algebra, and on explicit entries a random "
                "rational point gives a nonzero derivative", {"refuted_by_spot_check": entrywise.refuted})
    ctx.control("transposed Grams: numeric check", worst_control > 1e3 * TOLERANCE,
                f"the same drift measurement on the same flows exceeds {1e3 * TOLERANCE:g} in every run",
                {"min_over_runs_of_max_relative_drift": worst_control})


# -- align.eq3: the trace of eq. (2) ---------------------------------------------------------------------------
def _squared_norm(W):
    return sum(np.asarray(W, dtype=object).ravel() ** 2)


def frobenius_gap(layers: Sequence, k: int):
    """The statement's quantity of eq. (3): ‖W_{k+1}‖_F² − ‖W_k‖_F² (the trace of gram_gap)."""
    return _squared_norm(layers[k]) - _squared_norm(layers[k - 1])


def frobenius_sum(layers: Sequence, k: int):
    """The negative control: ‖W_{k+1}‖_F² + ‖W_k‖_F²."""
    return _squared_norm(layers[k]) + _squared_norm(layers[k - 1])


@claim(
    id="align.eq3",
    ref="Eq. (3), Sec. 2.1 (and eq. (7))",
    kind="equation",
    title="Differences of squared Frobenius norms are conserved by gradient flow",
    statement=("Along gradient flow $norm(W_(k+1)(t))_F^2 - norm(W_(k+1)(0))_F^2 = norm(W_k (t))_F^2 - "
               "norm(W_k (0))_F^2$ for every $1 <= k < L$: all layers' squared Frobenius norms change at one "
               "common rate."),
    hypotheses=["deep linear network, any layer widths", "risk differentiable in the end-to-end map",
                "continuous-time gradient flow"],
    expected="certified",
    profiles={"quick": "trace of the shape-free proof of eq. (2) and explicit-entry Lie derivatives; float64 flows to "
                       "t = 1e4 for 3 losses × 1 data set",
              "full": "as quick with 3 data sets per loss", "paper": "as full"},
)
def check_eq3(ctx: Context) -> None:
    shape_free = derivative_vanishes_for_every_shape(gram_gap)
    layers = weight_matrices(DIMS)
    trace_is_gap = all(is_identically_zero(sympy.Matrix(gram_gap(layers, k)).trace() - frobenius_gap(layers, k)).proved
                       for k in range(1, len(DIMS) - 1))
    ctx.prove("trace of eq. (2)", "symbolic", shape_free.proved and trace_is_gap,
              "d/dt C_k = 0 for C_k = W_(k+1)ᵀW_(k+1) − W_kW_kᵀ in the free matrix algebra (every shape), and "
              f"tr C_k = ‖W_(k+1)‖_F² − ‖W_k‖_F² entrywise: {shape_free.description}")
    for k in range(1, len(DIMS) - 1):
        explicit = derivative_vanishes_entrywise(frobenius_gap, DIMS, k)
        ctx.prove(f"d/dt = 0 entrywise, k = {k}", "symbolic", explicit.proved,
                  f"explicit entries, widths {DIMS}, generic loss gradient: {explicit.description}")
    net = fully_connected(list(DIMS), "linear")
    times = log_spaced(1e-2, 1e4, 25)
    worst_drift, worst_control = 0.0, np.inf
    for loss in ("logistic", "exponential", "square"):
        for index in range(ctx.pick(1, 3)):
            X, y = _dataset(ctx, f"data-{loss}-{index}", 6, DIMS[0])
            targets = y if loss != "square" else y[:, None] * 0.8
            flow = GradientFlow(Objective(net, X, targets, loss, mean=True))
            theta0 = ctx.rng(f"init-{loss}-{index}").normal(size=net.n_params) * 0.5
            run = flow.solve(theta0, times[-1], clock="log", t_eval=times)
            for k in range(1, len(DIMS) - 1):
                worst_drift = max(worst_drift, float(relative_drift(frobenius_gap, net, run.theta, k).max()))
            worst_control = min(worst_control, float(relative_drift(frobenius_sum, net, run.theta, 1).max()))
    ctx.support("float64 flows to t = 1e4", "numeric", worst_drift <= TOLERANCE,
                f"log-time LSODA (rtol 1e-10), logistic/exponential/square losses: relative drift ≤ {TOLERANCE}",
                {"max_relative_drift": worst_drift, "tolerance": TOLERANCE})
    symbolic_control = derivative_vanishes_entrywise(frobenius_sum, DIMS, 1)
    ctx.control("sum of squared norms", symbolic_control.refuted and worst_control > 1e3 * TOLERANCE,
                "‖W_(k+1)‖_F² + ‖W_k‖_F²: a random rational point gives a nonzero derivative, and the drift on the "
                "same flows exceeds the tolerance", {"min_over_runs_of_max_relative_drift": worst_control})
