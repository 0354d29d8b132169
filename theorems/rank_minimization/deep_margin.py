"""Sec. 5 and App. E: max-margin deep ReLU networks have layers of small average stable rank (Thm 5).

Claims: ``rank.rem.homog`` (ReLU networks are homogeneous), ``rank.lem1`` (cited: gradient flow on exponentially
tailed losses converges in direction to a KKT point of Problem (6)), ``rank.thm5`` (Eq. (7)/(8) at a global optimum
of Problem (6)), ``rank.rem.sec5`` (loss → 0 forces ‖θ‖ → ∞; the ratio σ/F is scale-free),
``rank.thm5.construction`` (θ' with a width-2 tail and Eq. (20)), ``rank.lem15`` (optimal layers are balanced),
``rank.thm5.final`` (Eq. (21) and the AM–GM step).

Instances (unit inputs at angles 0.3 + jπ/4): "one class": labels +1 and the teacher N(x) = |x¹| + |x²| (B = 2,
margins in [1, √2]), where local optima of Problem (6) are smooth KKT points; "two classes": five labels +1 and
three −1 with a depth-2 teacher fitted by the same solver (margins ≥ 1). Exact instances use the teacher
5(|x¹| − |x²|) (outputs of both signs, |N| ≥ 1) on Pythagorean unit vectors.
"""

from __future__ import annotations

import numpy as np
import sympy

from numerics import backend
from numerics.descent import gradient_descent
from numerics.flows import FlowStatus, GradientFlow, Trajectory
from numerics.kkt import kkt_check, scale_free_cost
from numerics.losses import Objective
from numerics.metrics import angle
from numerics.min_norm import minimum_norm
from numerics.networks import Network, fully_connected, scalar_outputs
from numerics.tolerances import at_most
from numerics.trends import is_monotone, log_spaced
from theorems.rank_minimization.criteria import identities
from theorems.rank_minimization.deep_common import (
    PYTHAGOREAN_INPUTS,
    Candidate,
    Teacher,
    absolute_sum_teacher,
    circle_inputs,
    construction,
    construction_identities,
    contrast_teacher,
    fitted_teacher,
    identity_padded,
    local_solutions,
    padded,
    parameters,
    relu,
    student,
    student_widths,
)
from theorems.rank_minimization.deep_evidence import (
    algebra_control,
    balance_evidence,
    certificate_evidence,
    certificate_on_candidates,
    exact_construction,
    final_step_evidence,
    proof_algebra,
    relu_homogeneous,
)
from verify import Context, Decision, claim, criterion, line, tightness

INPUT_OFFSET = 0.3
STUDENT_WIDTH = 4
TWO_CLASS_LABELS = np.array([1, 1, 1, 1, 1, -1, -1, -1], dtype=float)
CONTROL_DEPTH, CONTROL_WIDTH = 6, 9  # identity layers I_9 (σ/F = 1/3) push the average ratio below Eq. (7)
EXACT_DEPTHS = (3, 4, 6)
FLOW_DEPTH = 3  # student depth of the gradient-flow checks (Lemma 1, Sec. 5 remark)
FLOW_END = 1e40  # gradient-flow time reached with the log clock
FLOW_ATTEMPTS = 20  # starts tried until a flow completes without sliding along a kink (seed 8: 5 were not enough)
SQUARE_STEPS, SQUARE_STEP_SIZE = 8000, 0.02  # the square-loss control of rank.rem.sec5


def one_class_instance() -> tuple[Teacher, np.ndarray, np.ndarray, float]:
    teacher = absolute_sum_teacher()
    return teacher, circle_inputs(8, INPUT_OFFSET), np.ones(8), float(teacher.frobenius_bound)


def two_class_instance(ctx: Context) -> tuple[Teacher, np.ndarray, np.ndarray, float]:
    X = circle_inputs(8, INPUT_OFFSET)
    teacher = fitted_teacher(X, TWO_CLASS_LABELS, STUDENT_WIDTH, ctx.rng("teacher"), starts=3)
    return teacher, X, TWO_CLASS_LABELS, float(teacher.frobenius_bound)


def candidates(ctx: Context, teacher: Teacher, X: np.ndarray, y: np.ndarray, depths: tuple[int, ...], warm: int,
               random: int, stream: str) -> list[Candidate]:
    return [c for kp in depths for c in local_solutions("margin", teacher, X, y, kp, STUDENT_WIDTH,
                                                        ctx.rng(f"{stream}-{kp}"), warm_starts=warm,
                                                        random_starts=random)]


def exact_teacher() -> Teacher:
    """5(|x¹| − |x²|): outputs of both signs with |N(x_i)| ≥ 1 on the Pythagorean inputs."""
    return contrast_teacher(sympy.sqrt(5))


def exact_labels(teacher: Teacher) -> np.ndarray:
    return np.array([sympy.sign(v) for v in teacher.outputs(np.array(PYTHAGOREAN_INPUTS, dtype=object))])


@criterion("N_(sθ) = s^degree N_θ and (sW_1, W_2, W_3/s^compensation) computes N_θ on the exact instance, with "
           "some N_θ(x) ≠ 0")
def homogeneous_instance(net: Network, theta: np.ndarray, X: np.ndarray, scale: sympy.Expr, degree: int = 3,
                         compensation: int = 1) -> Decision:
    """The depth-3 statement: ``degree`` = 3 and ``compensation`` = 1 (anything else: a control)."""
    base = scalar_outputs(net, theta, X)
    scaled = scalar_outputs(net, theta * scale, X)
    layers = net.matrices(theta)
    moved = scalar_outputs(net, parameters([layers[0] * scale, layers[1], layers[2] / scale**compensation]), X)
    homogeneous = all(a - scale**degree * b == 0 for a, b in zip(scaled, base))
    rebalanced = all(a == b for a, b in zip(moved, base))
    nontrivial = any(b != 0 for b in base)  # on outputs that all vanish both identities hold vacuously
    ok = homogeneous and rebalanced and nontrivial
    return Decision(bool(ok), f"N_(sθ) = s^{degree} N_θ: {homogeneous}; (sW_1, W_2, W_3/s^{compensation}) computes "
                    f"N_θ: {rebalanced}; some output nonzero: {nontrivial}; outputs {[str(b) for b in base]}")


@claim(
    id="rank.rem.homog",
    ref="Sec. 5, before Lemma 1",
    kind="remark",
    title="Bias-free ReLU networks are positively homogeneous, layer by layer",
    statement=("For a bias-free fully-connected ReLU network of depth $k$ and $c > 0$: "
               "$N_(c theta)(x) = c^k N_theta(x)$; more generally scaling $W_i$ by $c$ and $W_j$ by $1\\/c$ leaves "
               "$N_theta$ unchanged."),
    hypotheses=["no biases", "ReLU activation", "c > 0"],
    conclusions={"N_(cθ) = c^k N_θ, and (cW_i, W_j/c) computes N_θ": "certified"},
    profiles={"quick": "exact case split σ(cz) = cσ(z); exact evaluation of a rational depth-3 network"},
    notes=[("Each hidden layer then satisfies $h_l (c theta) = c^l h_l (theta)$ by induction on $l$, from the "
            "one-line identity.")],
)
def check_homogeneity(ctx: Context) -> None:
    c = sympy.Symbol("c", positive=True)
    ctx.prove("σ(cz) = cσ(z) for c > 0", "symbolic", relu_homogeneous(c),
              "exact case split z = s ≥ 0 / z = −s ≤ 0; induction over the layers gives h_l(cθ) = c^l h_l(θ) and "
              "N_(cθ) = c^k N_θ")
    ctx.control("c < 0 in the case split", relu_homogeneous(-c), "the same case split refutes σ(−cz) = −cσ(z)")
    rng = ctx.rng("network")
    net = fully_connected([3, 4, 4, 1])
    theta = np.array([sympy.Rational(int(v), 7) for v in rng.integers(-9, 10, size=net.n_params)], dtype=object)
    X = np.array([[sympy.Rational(int(v), 5) for v in row] for row in rng.integers(-6, 7, size=(6, 3))], dtype=object)
    ctx.prove("exact instance", "exact", homogeneous_instance(net, theta, X, sympy.Rational(3, 2)),
              "rational network 3-4-4-1 on 6 rational inputs: N_(3θ/2) = (3/2)³N_θ and (3W_1/2, W_2, 2W_3/3) "
              "computes N_θ, exactly")
    ctx.control("c = −1", homogeneous_instance(net, theta, X, sympy.Integer(-1)),
                "N_(−θ) ≠ (−1)³N_θ on the same exact instance: homogeneity needs c > 0")
    ctx.control("degree 2 for a depth-3 network", homogeneous_instance(net, theta, X, sympy.Rational(3, 2), degree=2),
                "N_(3θ/2) ≠ (3/2)²N_θ on the same exact instance: the degree is the depth",
                because="N_(sθ) = s^2 N_θ: False")
    ctx.control("W_3 divided by c² instead of c",
                homogeneous_instance(net, theta, X, sympy.Rational(3, 2), compensation=2),
                "(3W_1/2, W_2, 4W_3/9) does not compute N_θ: the rescaling must cancel exactly",
                because="computes N_θ: False")
    ctx.control("the zero network", homogeneous_instance(net, theta * 0, X, sympy.Rational(3, 2)),
                "at θ = 0 every output vanishes and both identities hold vacuously: the instance shows nothing",
                because="some output nonzero: False")


LATE_CHECKPOINTS = 6  # the KKT residual and the angle are asked to decrease over the last checkpoints (t ≥ 1e15)
TARGET_KKT_RESIDUAL = 1e-6  # the target counts as a KKT point of Problem (6) up to this stationarity residual


@criterion("along the flow the smoothed margin increases, eventually (over the last checkpoints) the KKT residual "
           f"and the angle to the target decrease, and the target is a KKT point of Problem (6) (residual ≤ "
           f"{TARGET_KKT_RESIDUAL:g})")
def approaches_kkt_point(thetas: np.ndarray, target: np.ndarray, net: Network, X: np.ndarray, y: np.ndarray,
                         completed: bool, late: int = LATE_CHECKPOINTS) -> Decision:
    # The smoothed margin is monotone once the data are separated (Lyu & Li); the residual and the angle are only
    # eventually monotone: early on the direction can move away from its limit (seen: residual 0.22 → 0.26 between
    # t = 1e5 and 1e10 before it decreases), so they are read over the late checkpoints.
    objective = Objective(net, X, y, "exponential")
    smoothed = [-float(objective.log_value(th)) / float(np.linalg.norm(th)) ** net.depth for th in thetas]
    residuals = [float(kkt_check(net, th, X, y, tol=np.inf).stationarity_residual) for th in thetas]
    angles = [angle(th, target) for th in thetas]
    target_residual = float(kkt_check(net, target, X, y, tol=np.inf).stationarity_residual)
    holds = (completed and len(thetas) >= late and is_monotone(smoothed, "increasing")
             and is_monotone(residuals[-late:], "decreasing") and is_monotone(angles[-late:], "decreasing")
             and at_most(target_residual, TARGET_KKT_RESIDUAL))
    return Decision(bool(holds), f"smoothed margin {smoothed[0]:.4f} → {smoothed[-1]:.4f}; KKT residual "
                    f"{residuals[0]:.3f} → {residuals[-1]:.3f}; angle to the target {angles[0]:.3f} → "
                    f"{angles[-1]:.3f} rad; KKT residual of the target {target_residual:.1e}; {len(thetas)} "
                    f"checkpoints (at least {late} asked: {len(thetas) >= late})",
                    {"final_residual": residuals[-1], "final_angle": angles[-1], "target_residual": target_residual},
                    )


@claim(
    id="rank.lem1",
    ref="Lemma 1 (Lyu & Li 2019; Ji & Telgarsky 2020)",
    kind="lemma",
    title="Gradient flow on exponentially tailed losses converges in direction to a KKT point of Problem (6)",
    statement=("For a homogeneous ReLU network trained by gradient flow on the exponential or logistic loss of a "
               "binary dataset, if the loss tends to 0 then $theta(t) \\/ norm(theta(t))$ converges to the direction "
               "of a KKT point of $min 1/2 norm(theta)^2$ subject to $y_i N_theta(x_i) >= 1$."),
    hypotheses=["homogeneous ReLU network", "exponential or logistic loss", "L(θ(t)) → 0"],
    conclusions={"θ(t)/‖θ(t)‖ converges to the direction of a KKT point of Problem (6)": "assumed"},
    cited=True,
    profiles={"quick": "one gradient flow (log clock, t ≤ 1e40), depth-3 width-4 student, exponential loss: "
                       "smoothed margin, KKT residual and scale-free cost along the flow (finite-time proxy)"},
    notes=[("Cited, not proved in the paper. Lyu–Li also need the loss to drop below ℓ(0)/n once (implied by "
            "L → 0), and KKT is in the Clarke sense. The paper says 'average' loss; Eq. (5) is a sum (irrelevant)."),
           ("Lemma 1 gives a KKT point, Thm 5 needs a global optimum: their combination in the paper is heuristic "
            "(a KKT point need not be optimal).")],
)
def check_lem1(ctx: Context) -> None:
    teacher, X, y, _ = one_class_instance()
    net = student(2, STUDENT_WIDTH, FLOW_DEPTH)
    run = exponential_flow(ctx, teacher, X, y, net)
    separated = [i for i, theta in enumerate(run.theta) if np.min(y * scalar_outputs(net, theta, X)) > 0]
    times, thetas = run.t[separated], run.theta[separated]
    limit = minimum_norm(net, X, y, "margin", thetas[-1])  # the KKT point the direction is heading to
    completed = run.status is FlowStatus.COMPLETED
    residuals = [float(kkt_check(net, th, X, y, tol=np.inf).stationarity_residual) for th in thetas]
    angles = [angle(th, limit.theta) for th in thetas]
    ctx.support("flow direction approaches a KKT point (finite-time proxy)", "trend",
                approaches_kkt_point(thetas, limit.theta, net, X, y, completed),
                f"exponential loss to t = {times[-1]:.0e}: the smoothed margin −log L/‖θ‖^{FLOW_DEPTH}, the KKT "
                f"residual of θ(t)/q_min^(1/{FLOW_DEPTH}) (NNLS over all samples) and the angle to the KKT point "
                f"reached by the local solver from θ(T) are monotone over the last {LATE_CHECKPOINTS} checkpoints "
                "(the margin over all); convergence is logarithmically slow",
                {"final_time": times[-1], "limit_kkt_residual": limit.stationarity,
                 "final_scale_free_cost": scale_free_cost(net, thetas[-1], X, y),
                 "limit_squared_norm": limit.squared_norm},
                plot=line("Lemma 1: gradient flow on the exponential loss",
                          {"KKT residual": (times, residuals), "angle to the KKT point": (times, angles)},
                          xlabel="t", xscale="log", yscale="log"))
    theta_prime = np.asarray(backend.to_float(parameters(padded(construction("margin", teacher, FLOW_DEPTH),
                                                                student_widths(2, STUDENT_WIDTH, FLOW_DEPTH)))))
    ctx.control("convergence to θ' instead", approaches_kkt_point(thetas, theta_prime, net, X, y, completed),
                "the same test towards θ' (feasible, not a KKT point): the angle grows and θ' is not stationary")
    ctx.control("only the last checkpoints, one fewer than asked",
                approaches_kkt_point(thetas[-(LATE_CHECKPOINTS - 1):], limit.theta, net, X, y, completed),
                f"the same test on the last {LATE_CHECKPOINTS - 1} checkpoints: too short a record to show an eventual "
                "trend, whatever its direction", because="asked: False)")


def exponential_flow(ctx: Context, teacher: Teacher, X: np.ndarray, y: np.ndarray, net: Network) -> Trajectory:
    """Gradient flow on the exponential loss (log clock) from a perturbed, shrunk θ' (which separates the data);
    starts whose flow slides along a kink (the engine stops there) are replaced, at most FLOW_ATTEMPTS times."""
    theta_prime = np.asarray(backend.to_float(parameters(padded(construction("margin", teacher, net.depth),
                                                                student_widths(net.d_in, STUDENT_WIDTH, net.depth)))))
    objective = Objective(net, X, y, "exponential")
    flow = GradientFlow(objective)
    rng = ctx.rng("flow start")
    for _ in range(FLOW_ATTEMPTS):
        theta0 = 0.5 * theta_prime + 0.3 * rng.normal(size=net.n_params)
        # the lemma's hypothesis L → 0, met with margin: a start that separates the data is scaled up (margins grow
        # like c^depth) until its loss is below 1/n, so that every term is below ℓ(0) and the flow, which decreases
        # the loss, keeps the data separated; unscaled starts may collapse to θ = 0 (L = 1 forever, seed 8)
        margins = y * scalar_outputs(net, theta0, X)
        if np.min(margins) <= 0:
            continue
        while float(objective.value(theta0)) >= 1 / len(y):
            theta0 = 1.5 * theta0
        run = flow.solve(theta0, FLOW_END, clock="log", t_eval=log_spaced(1.0, FLOW_END, 9))
        if run.status is FlowStatus.COMPLETED:
            return run
    raise RuntimeError(f"no start of {FLOW_ATTEMPTS} drawn separated the data with a flow that completed")


@claim(
    id="rank.thm5",
    ref="Thm. 5, Sec. 5 (proof App. E)",
    kind="theorem",
    title="Max-margin deep ReLU networks have layers of small average stable rank",
    statement=("Let binary labels include a point with $norm(x_i) <= 1$, and let a ReLU network of depth $k >= 2$ and "
               "width $m >= 2$ with $norm(W_l)_F <= B$ satisfy $y_i N(x_i) >= 1$. If $theta^*$ minimizes "
               "$norm(theta)$ among ReLU networks of depth $k' > k$, all hidden layers at least $m$ wide, with "
               "$y_i N_theta(x_i) >= 1$, then $1/k' sum_(l=1)^(k') norm(W_l^*)_sigma \\/ norm(W_l^*)_F >= "
               "1/sqrt(2) (sqrt(2)\\/B)^(k\\/k') sqrt(k'\\/(k'+1))$; equivalently the harmonic mean of "
               "$norm(W_l^*)_F \\/ norm(W_l^*)_sigma$ is at most $sqrt(2) (B\\/sqrt(2))^(k\\/k') sqrt((k'+1)\\/k')$."),
    hypotheses=["labels ±1; some $i$ with $norm(x_i) <= 1$",
                "teacher: depth $k >= 2$, width $m >= 2$, $norm(W_l)_F <= B$, margins $>= 1$",
                "student: depth k' > k, every hidden layer ≥ m wide", "$theta^*$ a global optimum of Problem (6)"],
    conclusions={"Eq. (7)/(8) at a global optimum of Problem (6)": "confirmed"},
    profiles={"quick": "proof algebra in symbols; certificate on local optima of Problem (6) from 1 warm + 3 random "
                       "starts per depth: one class k' ∈ {3, 4, 6}, two classes k' ∈ {3, 4}",
              "full": "2 warm + 6 random starts: one class k' ∈ {3, 4, 6, 8}, two classes k' ∈ {3, 4, 6}"},
    notes=[("Width: as for Thm 4, the embedding of θ' (hidden widths of N, then 2) needs every hidden layer of the "
            "student to be at least m wide (the paper's width is the largest layer width)."),
           ("Typo in App. E: $norm(theta^*) <= norm(theta)$ should read $norm(theta^*) <= norm(theta')$; the last "
            "layer $beta (1, -1)$ is a $1 times 2$ row."),
           ("Confirmed, not certified: the proof's algebra is symbolic, but its step |N(x)| ≤ Π‖W_l‖σ ≤ "
            "(mean ‖W_l‖σ)^k' is only sampled (rank.thm5.final)."),
           ("Only a global optimum is covered; the paper's reading 'GF converges to low rank' combines it with "
            "Lemma 1, which only gives a KKT point. The numerical part checks the proof's certificate on local "
            "optima and asserts Eq. (7) only where its hypotheses hold."),
           ("Lemma 15 is not needed: with $s_l = norm(W_l)_sigma$ and $f_l = norm(W_l)_F$, AM–GM gives "
            "$1/k' sum_l s_l \\/ f_l >= (product_l f_l)^(-1\\/k')$ (the product of the $s_l$ is at least 1) and "
            "$(product_l f_l)^(2\\/k') <= norm(theta)^2 \\/ k'$, so the norm bound of Eq. (20) alone implies Eq. (7)."),
           ("The two-class instance has optima on ReLU kinks (the solver's smooth KKT residual stays near 0.1 "
            "there); the certificate does not need stationarity.")],
)
def check_thm5(ctx: Context) -> None:
    proof_algebra(ctx, "margin", tuple(construction_identities("margin")))
    algebra_control(ctx, "margin", "||theta'||^2 = norm bound")
    teacher, X, y, B = one_class_instance()
    warm, random = ctx.pick(quick=1, full=2), ctx.pick(quick=3, full=6)
    found = candidates(ctx, teacher, X, y, ctx.pick(quick=(3, 4, 6), full=(3, 4, 6, 8)), warm, random, "one")
    pairs = certificate_evidence(ctx, "margin", "one class, N(x) = |x¹| + |x²|", found, X, y, B, teacher.depth,
                                 every_depth=True)
    teacher_2, X_2, y_2, B_2 = two_class_instance(ctx)
    found_2 = candidates(ctx, teacher_2, X_2, y_2, ctx.pick(quick=(3, 4), full=(3, 4, 6)), warm, random, "two")
    certificate_evidence(ctx, "margin", "two classes, fitted teacher", found_2, X_2, y_2, B_2, teacher_2.depth,
                         every_depth=False)
    control = [(CONTROL_DEPTH, identity_padded(teacher, CONTROL_DEPTH, CONTROL_WIDTH))]
    ctx.control("norm hypothesis dropped",
                certificate_on_candidates("margin", pairs + control, X, y, B, teacher.depth, require_norm_bound=False),
                f"with [W_1, I_{CONTROL_WIDTH}, …, W_2] (balanced, k' = {CONTROL_DEPTH}, margins ≥ 1, ‖θ‖² above the "
                "bound) among the candidates and the norm hypothesis dropped, the same certificate finds Eq. (7) "
                "violated")
    ctx.control("bound raised to 1 (all layers rank 1)",
                certificate_on_candidates("margin", pairs, X, y, B, teacher.depth, ratio_bound=1.0),
                "with the right-hand side of Eq. (7) replaced by 1 the same certificate fails on the candidates")


REWEIGHTED_ROW = (sympy.Rational(17, 13), sympy.Rational(7, 13))  # a control's last-row weights: 17² + 7² = 2·13²
SPLIT = identities("σ(z) − σ(−z) − z vanishes for z = s ≥ 0 and z = −s ≤ 0")


@claim(
    id="rank.thm5.construction",
    ref="App. E, Eq. (20)",
    kind="construction",
    title="The scaled teacher with a sign-splitting width-2 tail keeps every output and has the norm of Eq. (20)",
    statement=("With $alpha = (sqrt(2)\\/B)^((k'-k)\\/k')$ and $beta = (sqrt(2)\\/B)^(-k\\/k')$, layers "
               "$alpha W_1, dots, alpha W_(k-1)$, $alpha mat(u^T; -u^T)$, $k'-k-1$ layers $beta I_2$ and the row "
               "$beta (1, -1)$ compute $beta^(k'-k)(sigma(alpha^k N(x)) - sigma(-alpha^k N(x))) = N(x)$ for every "
               "$x$, and $norm(theta')^2 <= alpha^2 B^2 (k+1) + 2 beta^2 (k'-k) = 2 (2\\/B^2)^(-k\\/k') (k'+1)$."),
    hypotheses=["$norm(W_l)_F <= B$ (u: the teacher's output weights)", "k' > k", "m ≥ 2 (the tail has width 2)"],
    conclusions={"θ' computes N with ‖θ'‖² = 2(2/B²)^(−k/k')(k'+1) (symbolic; exact for k' = 3, 4, 6)": "certified"},
    profiles={"quick": "identities in symbols; σ(z) − σ(−z) = z by exact case split; exact θ' for 5(|x¹| − |x²|), "
                       "k' ∈ {3, 4, 6}, padded into width 6, on 4 rational unit inputs with outputs of both signs"},
    notes=["k' = k + 1 is included (no identity layers; the row β(1, −1) follows the doubled layer directly)."],
)
def check_thm5_construction(ctx: Context) -> None:
    proof_algebra(ctx, "margin", ("alpha^k beta^(k'-k) = 1", "||theta'||^2 = norm bound"))
    algebra_control(ctx, "margin", "||theta'||^2 = norm bound")
    z, s_ = sympy.Symbol("z", real=True), sympy.Symbol("s", nonnegative=True)
    split = relu(z) - relu(-z) - z
    ctx.prove("σ(z) − σ(−z) = z", "symbolic", SPLIT({"z = s": split.subs(z, s_), "z = −s": split.subs(z, -s_)}),
              "exact case split")
    ctx.control("σ(z) + σ(−z) in place of σ(z) − σ(−z)", SPLIT({"z = s": (relu(z) + relu(-z) - z).subs(z, s_),
                                                                 "z = −s": (relu(z) + relu(-z) - z).subs(z, -s_)}),
                "the same case split refutes the sum: the tail must subtract")
    teacher = exact_teacher()
    labels = exact_labels(teacher)
    for kp in EXACT_DEPTHS:
        ctx.prove(f"exact instance, k' = {kp}", "exact", exact_construction("margin", teacher, kp, True),
                  f"N(x) = 5(|x¹| − |x²|) (B = 2√5, labels {[int(v) for v in labels]}): N'(x_i) = N(x_i), margins "
                  "≥ 1 and ‖θ'‖² equal to the bound, exactly")
    ctx.control("width-1 tail instead", exact_construction("interpolation", teacher, 3, True),
                "App. D's tail on the same teacher: the negative points drop to 0, so margins fall below 1")
    ctx.control("teacher with margins below 1", exact_construction("margin", contrast_teacher(1), 3, True),
                "N(x) = |x¹| − |x²| (scale 1 instead of √5): θ' still reproduces every output with the norm of "
                "Eq. (20), but the margins |N(x_i)| fall below 1: the same exact check fails",
                because="(all ≥ 1: False)")
    ctx.control("norm bound of Eq. (18) instead of Eq. (20)",
                exact_construction("margin", teacher, 3, True, bound_of="interpolation"),
                "the same exact θ' against App. D's bound k'B^(2k/k'): ‖θ'‖² differs from it",
                because="(‖θ'‖² equals the bound: False)")
    wide = contrast_teacher(5)  # N(x) = 25(|x¹| − |x²|): margins wide enough to stay ≥ 1 under the reweighting
    ctx.control("last row (17/13, −7/13)β in place of (1, −1)β", exact_construction("margin", wide, 3, True,
                                                                                     last_row=REWEIGHTED_ROW),
                "the tail's last row reweighted on the same circle ((17/13)² + (7/13)² = 2: ‖θ'‖² still equals Eq. "
                "(20)'s bound) on N(x) = 25(|x¹| − |x²|): every margin stays ≥ 1, but N' ≠ N and the same exact check "
                "fails", because="(all ≥ 1: True); ‖θ'‖² − bound = 0")


@claim(
    id="rank.lem15",
    ref="Lemma 15, App. E",
    kind="lemma",
    title="Optimal solutions of Problem (6) have layers of equal Frobenius norm",
    statement="If $theta^*$ is a global optimum of Problem (6), then $norm(W_i^*)_F = norm(W_j^*)_F$ for all $i < j$.",
    hypotheses=["bias-free ReLU network", "$theta^*$ optimal for Problem (6)"],
    conclusions={"‖W_i*‖_F = ‖W_j*‖_F at an optimum": "certified"},
    profiles={"quick": "symbolic derivative and case split; exact invariance on θ' (k' = 3)"},
    notes=[("The rescaling $gamma |-> (gamma W_i, W_j \\/ gamma)$ keeps every margin $y_i N(x_i)$, so the proof of "
            "Lemma 14 applies verbatim, at every local optimum.")],
)
def check_lem15(ctx: Context) -> None:
    balance_evidence(ctx, "margin", construction("margin", exact_teacher(), 3),
                     np.array(PYTHAGOREAN_INPUTS, dtype=object))


FINAL_ALGEBRA_5 = "Eq. (21) and the closing algebra"
FINAL_CHAIN_5 = "1 ≤ y_iN*(x_i) ≤ Π‖W_l*‖σ ≤ (mean ‖W_l*‖σ)^k' (sampled on random networks)"


@claim(
    id="rank.thm5.final",
    ref="App. E, Eq. (21) and the display after it",
    kind="equation",
    title="Balanced layers of Frobenius norm at most the bound of Eq. (21) and mean spectral norm at least 1",
    statement=("For a balanced optimum, $(B^*)^2 <= 2 (2\\/B^2)^(-k\\/k') (k'+1)\\/k'$ (Eq. (21)); and for "
               "$norm(x_i) <= 1$, $1 <= y_i N^*(x_i) <= abs(N^*(x_i)) <= product_l norm(W_l^*)_sigma <= "
               "(1/k' sum_l norm(W_l^*)_sigma)^(k')$, hence Eq. (7)."),
    hypotheses=["$theta^*$ balanced (Lemma 15) with $norm(theta^*)^2$ bounded by Eq. (20)",
                "some $norm(x_i) <= 1$, $abs(y_i) = 1$"],
    conclusions={FINAL_ALGEBRA_5: "certified", FINAL_CHAIN_5: "confirmed"},
    profiles={"quick": "symbolic final algebra; ReLU-Lipschitz and AM–GM chain on 2000 random networks",
              "full": "20000 random networks"},
)
def check_thm5_final(ctx: Context) -> None:
    final_step_evidence(ctx, "margin", ctx.pick(quick=2000, full=20000), FINAL_ALGEBRA_5, FINAL_CHAIN_5)


SEC5_SCALE = "‖cW‖σ/‖cW‖F = ‖W‖σ/‖W‖F for c > 0"
SEC5_NORM = "L → 0 forces ‖θ‖ → ∞, with ‖θ‖² ≥ k(−log L/max‖x‖)^(2/k) (one flow, finite-time proxy)"
SCALE_FREE = identities("the ratio of the scaled norms minus the ratio vanishes identically")


def loss_norm_floor(log_losses: np.ndarray, radius: float, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """(the checkpoints with L < 1, where the bound is informative; k(−log L/max‖x‖)^(2/k) at those)."""
    positive = log_losses < 0
    return positive, depth * (-log_losses[positive] / radius) ** (2 / depth)


@criterion("on a completed flow that reaches L < 1, ‖θ(t)‖² ≥ k(−log L/max‖x‖)^(2/k) at every checkpoint with L < 1")
def norm_above_loss_bound(norms: np.ndarray, log_losses: np.ndarray, radius: float, depth: int,
                          completed: bool) -> Decision:
    positive, lower = loss_norm_floor(log_losses, radius, depth)
    reached, above = bool(positive.any()), bool(np.all(norms[positive] ** 2 >= lower))
    return Decision(completed and reached and above, f"flow completed: {completed}; checkpoints with L < 1: "
                    f"{int(positive.sum())}; bound holds at all of them: {above}",
                    {"checkpoints_below_1": int(positive.sum())})


NO_SATURATION = 0.25  # ‖θ‖^k must gain over the second half at least this fraction of its first-half gain


@criterion("‖θ‖ increases monotonically and ‖θ‖^k does not saturate: its gain over the second half of the log-time "
           f"grid is at least {NO_SATURATION:g} times its gain over the first half")
def norm_grows(norms: np.ndarray, depth: int) -> Decision:
    # under exponential tails ‖θ(t)‖^k grows like ln t/γ (affine on a log-time grid: equal gains per half, ratio ≈ 1);
    # a bounded norm saturates (ratio → 0). Scale-free, unlike a relative growth of ‖θ‖, which depends on the start
    powers = np.asarray(norms, dtype=float) ** depth
    middle = len(powers) // 2
    first, second = powers[middle] - powers[0], powers[-1] - powers[middle]
    ratio = float(second / first) if first > 0 else 0.0  # no first-half gain: ratio 0, which fails the test
    holds = is_monotone(norms, "increasing") and ratio >= NO_SATURATION
    return Decision(bool(holds), f"‖θ‖: {norms[0]:.3f} → {norms[middle]:.3f} → {norms[-1]:.3f}; gain of ‖θ‖^{depth} "
                    f"over the second half / first half = {ratio:.3f} (≥ {NO_SATURATION} asked)",
                    {"gain_ratio": ratio, "final_norm": float(norms[-1])})


@claim(
    id="rank.rem.sec5",
    ref="Sec. 5, after Thm. 5",
    kind="remark",
    title="Vanishing exponential loss forces the parameter norm to infinity; the rank surrogate is scale-free",
    statement=("For the exponential or logistic loss, $L(theta(t)) -> 0$ implies $norm(theta(t)) -> infinity$ "
               "(indeed $norm(theta)^2 >= k (ell^(-1)(L) \\/ max_i norm(x_i))^(2\\/k)$), and "
               "$norm(c W)_sigma \\/ norm(c W)_F = norm(W)_sigma \\/ norm(W)_F$ for $c > 0$."),
    hypotheses=["exponentially tailed loss", "bias-free ReLU network of depth k"],
    conclusions={SEC5_SCALE: "certified", SEC5_NORM: "confirmed"},
    profiles={"quick": "one gradient flow on the exponential loss (log clock, t ≤ 1e40); the norm lower bound at "
                       "every checkpoint and the growth of ‖θ‖ (finite-time proxy); square-loss flow as control"},
    notes=[("The lower bound follows from $min_i q_i >= -log L$ (each term of the sum is at most $L$) and "
            "$abs(N(x)) <= norm(x) product_l norm(W_l)_sigma <= norm(x) (norm(theta)^2 \\/ k)^(k\\/2)$ (AM–GM).")],
)
def check_sec5(ctx: Context) -> None:
    c = sympy.Symbol("c", positive=True)
    spectral, frobenius = sympy.symbols("s f", positive=True)
    ctx.prove("σ/F is scale-free", "symbolic",
              SCALE_FREE({"(cs)/(cf) − s/f": (c * spectral) / (c * frobenius) - spectral / frobenius}),
              "‖cW‖σ = c‖W‖σ and ‖cW‖F = c‖W‖F for c > 0, so the ratio cancels c", conclusion=SEC5_SCALE)
    ctx.control("Frobenius norm scaled by c²", SCALE_FREE({"(cs)/(cf) − s/f": (c * spectral) / (c**2 * frobenius)
                                                          - spectral / frobenius}),
                "the same identity check refutes the ratio when numerator and denominator scale differently")
    teacher, X, y, _ = one_class_instance()
    net = student(2, STUDENT_WIDTH, FLOW_DEPTH)
    run = exponential_flow(ctx, teacher, X, y, net)
    objective = Objective(net, X, y, "exponential")
    log_losses = np.array([float(objective.log_value(th)) for th in run.theta])
    norms = np.linalg.norm(run.theta, axis=1)
    radius = float(np.max(np.linalg.norm(X, axis=1)))
    positive, lower = loss_norm_floor(log_losses, radius, FLOW_DEPTH)
    completed = run.status is FlowStatus.COMPLETED
    ctx.support("‖θ(t)‖² ≥ k(−log L/max‖x‖)^(2/k) (every checkpoint with L < 1)", "numeric",
                norm_above_loss_bound(norms, log_losses, radius, FLOW_DEPTH, completed),
                f"exponential loss to t = {run.t[-1]:.0e}: log L falls to {log_losses[-1]:.1f}; the lower bound holds "
                f"at all {int(positive.sum())} checkpoints with L < 1",
                {"final_log_loss": log_losses[-1], "final_lower_bound": float(lower[-1]) if positive.any() else "none",
                 "flow_status": run.status.value}, conclusion=SEC5_NORM,
                tightness=tightness("‖θ(t)‖² ≥ k(−log L/max‖x‖)^(2/k)", norms[positive] ** 2, lower, sense="lower"),
                plot=line("Sec. 5: norm growth under the exponential loss",
                          {"‖θ(t)‖²": (run.t[positive], norms[positive] ** 2),
                           "k(−log L/max‖x‖)^(2/k)": (run.t[positive], lower)},
                          xlabel="t", xscale="log"))
    ctx.control("the linear model's bound (depth 1)", norm_above_loss_bound(norms, log_losses, radius, 1, completed),
                f"(−log L/max‖x‖)², the bound for depth 1, exceeds ‖θ(t)‖² late in the same depth-{FLOW_DEPTH} flow: "
                "the exponent 2/k is needed", because="bound holds at all of them: False")
    early = log_losses >= 0
    ctx.control("only the checkpoints before L < 1",
                norm_above_loss_bound(norms[early], log_losses[early], radius, FLOW_DEPTH, completed),
                "the same flow cut before the loss drops below 1: the bound is never informative there, so the "
                "record shows nothing", because="checkpoints with L < 1: 0;")
    ctx.support("‖θ(t)‖ grows (finite-time proxy)", "trend", norm_grows(norms, FLOW_DEPTH),
                "monotone increase over the log-time grid, ‖θ‖^k not saturating", conclusion=SEC5_NORM)
    square = gradient_descent(Objective(net, X, y[:, None], "square"), run.theta[0], SQUARE_STEPS, SQUARE_STEP_SIZE,
                              record_every=SQUARE_STEPS // 8)
    decrease = float(square.loss[-1] / square.loss[0])
    ctx.control("square loss instead", norm_grows(np.linalg.norm(square.theta, axis=1), FLOW_DEPTH),
                f"GD on the square loss (targets y_i) from the same start drives the loss down by {decrease:.1e}, but "
                "the same growth test fails", figures={"loss_decrease": decrease})
