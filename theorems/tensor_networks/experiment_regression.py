"""The regression experiment of paper 002 (Sec. 6, Figure 1 and Figure 3 top-left).

Two-layer linear fully-connected (hidden width 2), diagonal and full-length convolutional networks on the single
point x = [1, 2], y = 1; initial directions chosen so that β(Θ(0)) = α² z̄_j for random z̄_1..z̄_4 ∈ R²; gradient
descent with η = 1e-3 for T = 5000 steps, at α ∈ {0.01, 0.5, 1}; Theorem 5 predicts each limit. The paper gives no
numbers beyond the three reference interpolants, which are recorded as ``paper_*`` figures next to ours. The paper
does not say how the initial directions are built, nor the hidden width; the constructions below (documented in
:func:`initial_directions`) are ours.
"""

from __future__ import annotations

import numpy as np

from numerics.convex import min_norm_interpolation
from numerics.descent import gradient_descent
from numerics.losses import Objective
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)
from numerics.trends import is_monotone
from theorems.tensor_networks.regression_oracles import flow_limit, two_layer_limit
from verify import Context, claim, line, plain

X = np.array([[1.0, 2.0]])
Y = np.array([1.0])
STEP, STEPS = 1e-3, 5000  # the paper's gradient descent
ALPHAS = (1.0, 0.5, 0.01)
PAPER_REFERENCES = {"fully connected": (0.2, 0.4), "diagonal": (0.0, 0.5), "convolutional": (0.33, 0.33)}
GD_TOLERANCE = 2e-3  # GD at η = 1e-3 stops at T = 5000 (residual up to ~1e-4) and its limit differs from GF's by O(η)
FLOW_TOLERANCE = 1e-9

NETWORKS: dict[str, LinearTensorNetwork] = {
    "fully connected": fully_connected_tensor([2, 2]),
    "diagonal": diagonal_tensor(2, 2),
    "convolutional": convolutional_tensor(2, [2]),
}


def balanced_factors(target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with a ⊙ b = target and a_j² − b_j² > 0: a_j = √(2|target_j| + 1/2), b = target / a."""
    a = np.sqrt(2 * np.abs(target) + 0.5)
    return a, target / a


def initial_directions(name: str, z_bar: np.ndarray) -> np.ndarray:
    """θ̄ = (v̄_1, v̄_2) with β(θ̄) = z̄ and Theorem 5's condition met (our construction; the paper gives none).

    * diagonal: w̄_1 ⊙ w̄_2 = z̄ with w̄_1 = a, w̄_2 = b from :func:`balanced_factors`;
    * convolutional (d = 2): M(x) = F diag(√2 F x) F with F = [[1, 1], [1, −1]]/√2, so β = √2 F (Fw̄_1 ⊙ Fw̄_2);
      the balanced factors of F z̄/√2 are the DFT coefficients of w̄_1, w̄_2;
    * fully connected: W̄_1 = c R with R the rotation for which xᵀR = ‖x‖(1, 1)/√2, and w̄_2 = W̄_1^{−1} z̄; in the
      SVD M(x) = I ⊗ x with U_1 = [e_k ⊗ x/‖x‖], U_2 = I the condition reads c²/2 − [w̄_2]_k² ≥ λ, and
      c² = 1/4 + √(1/16 + 2‖z̄‖²) gives c²/2 − ‖z̄‖²/c² = 1/8 > 0 (and moderate weights, so GD at η = 1e-3 is stable).
    """
    if name == "diagonal":
        return np.concatenate(balanced_factors(z_bar))
    if name == "convolutional":
        F = np.array([[1.0, 1.0], [1.0, -1.0]]) / np.sqrt(2)
        a, b = balanced_factors(F @ z_bar / np.sqrt(2))
        return np.concatenate([F @ a, F @ b])
    u = X[0] / np.linalg.norm(X[0])
    u_perp = np.array([-u[1], u[0]])
    R = np.column_stack([u + u_perp, u - u_perp]) / np.sqrt(2)
    W1 = np.sqrt(0.25 + np.sqrt(1 / 16 + 2 * z_bar @ z_bar)) * R
    return np.concatenate([W1.ravel(order="F"), np.linalg.solve(W1, z_bar)])


def canonical_gap(v1: np.ndarray, v2: np.ndarray) -> float:
    """Theorem 5's min_j [U_1ᵀv̄_1]_j² − [U_2ᵀv̄_2]_j² for the fully-connected network in the SVD
    M(x) = I ⊗ x with U_1 = [e_k ⊗ x/‖x‖], U_2 = I (numpy's basis of the repeated singular value ‖x‖ is arbitrary):
    [U_1ᵀv̄_1]_k = xᵀW̄_1 e_k / ‖x‖ (column k of W̄_1 = v̄_1[2k : 2k + 2], column-major)."""
    W1 = v1.reshape(2, 2, order="F")
    return float(np.min((X[0] @ W1) ** 2 / (X[0] @ X[0]) - v2**2))


def references() -> dict[str, np.ndarray]:
    """Minimum ℓ2, ℓ1 and DFT-domain ℓ1 interpolants of x = [1, 2], y = 1, certified (numerics.convex).

    DFT-ℓ1: ‖Fz‖_1 with F = T/√2, T = [[1, 1], [1, −1]]; minimize ‖u‖_1 under X T^{−1} u = y (T^{−1} = T/2).
    """
    T = np.array([[1.0, 1.0], [1.0, -1.0]])
    results = {"fully connected": min_norm_interpolation(X, Y, "l2"),
               "diagonal": min_norm_interpolation(X, Y, "l1"),
               "convolutional": min_norm_interpolation(X @ T / 2, Y, "l1")}
    if any(result.status != "certified" for result in results.values()):
        raise RuntimeError("a reference interpolant was not certified")
    solutions = {name: result.solution for name, result in results.items()}
    solutions["convolutional"] = T @ solutions["convolutional"] / 2
    return solutions


def spread(points: list[np.ndarray]) -> float:
    return max(float(np.linalg.norm(a - b)) for a in points for b in points)


@claim(
    id="tensor.exp.regression",
    ref="Sec. 6 (Regression), Figure 1 and Figure 3 (top left)",
    kind="experiment",
    title="Regression with 2-layer FC, diagonal and convolutional networks on x = [1, 2]: Theorem 5's predictions",
    statement=("On the point $x = [1, 2]$, $y = 1$, with initial directions giving $beta(Theta(0)) = alpha^2 "
               "macron(z)_j$, gradient descent ($eta = 10^(-3)$, $T = 5000$) on 2-layer linear fully-connected, "
               "diagonal and convolutional networks ends at the limits predicted by Theorem 5, for "
               "$alpha in {0.01, 0.5, 1}$; networks started at the same $beta$ move differently, the limits depend "
               "less on the initial direction when $alpha$ is small, and they approach the minimum $ell_2$, $ell_1$ "
               "and DFT-domain $ell_1$ interpolants $[0.2, 0.4]$, $[0, 0.5]$, $[1\\/3, 1\\/3]$."),
    hypotheses=plain("one data point, square loss", "Theorem 5's condition on the initial directions",
                "hidden width 2 for the fully-connected network (unspecified in the paper)"),
    expected="confirmed",
    profiles={"quick": "2 random directions; GD (η = 1e-3, T = 5000) and gradient flow at α ∈ {1, 0.5, 0.01}",
              "full": "4 random directions, as quick",
              "paper": "4 random directions (the paper's scale), as full"},
    notes=plain("The spec's id is 'exp.regression'; registered with the paper prefix as 'tensor.exp.regression'.",
           ("E14: the paper does not give the hidden width, the construction of the initial directions, or the "
           "seeds; ours are documented in experiment_regression.initial_directions. The paper's 0.33 is 1/3 "
           "rounded."),
           ("The paper judges accuracy visually; here GD's endpoint must lie within 2e-3 of the prediction (GD "
           "discretization and the finite horizon), and the gradient flow's limit within 1e-9.")),
)
def check_regression_experiment(ctx: Context) -> None:
    refs = references()
    paper_gap = max(float(np.max(np.abs(refs[name] - np.array(value)))) for name, value in PAPER_REFERENCES.items())
    ctx.support("reference interpolants match the paper's", "convex", paper_gap <= 5e-3,
                "certified min-ℓ2, min-ℓ1 and min DFT-ℓ1 interpolants against the paper's printed values (2 decimals)",
                {f"{name}_{k}": float(refs[name][k]) for name in refs for k in range(2)}
                | {f"paper_{name}_{k}": value[k] for name, value in PAPER_REFERENCES.items() for k in range(2)}
                | {"max_gap_to_paper": paper_gap})

    rng = ctx.rng("directions")
    directions = [rng.normal(size=2) for _ in range(ctx.pick(2, 4))]
    starts = {name: [initial_directions(name, z) for z in directions] for name in NETWORKS}
    gd_gap, flow_gap = dict.fromkeys(ALPHAS, 0.0), dict.fromkeys(ALPHAS, 0.0)
    worst_case: tuple[float, str, np.ndarray, np.ndarray] = (-1.0, "", np.zeros(0), np.zeros(0))
    cross, worst_gap_to_condition = np.inf, np.inf
    limits: dict[tuple[str, float], list[np.ndarray]] = {}
    trajectories: dict[float, dict[str, tuple[list[float], list[float]]]] = {alpha: {} for alpha in ALPHAS}
    paths: dict[tuple[float, int], dict[str, np.ndarray]] = {}  # GD's β at every 50th step
    for name, net in NETWORKS.items():
        objective = Objective(net, X, Y[:, None], "square")
        for index, theta_bar in enumerate(starts[name]):
            v1, v2 = net.split(theta_bar)
            for alpha in ALPHAS:
                prediction = two_layer_limit(net.data_tensor(X[0]), float(Y[0]), alpha, v1, v2)
                condition = canonical_gap(v1, v2) if name == "fully connected" else prediction.gap
                worst_gap_to_condition = min(worst_gap_to_condition, condition)
                beta_star = net.beta(np.concatenate([prediction.v1, prediction.v2]))
                run = gradient_descent(objective, alpha * theta_bar, STEPS, STEP, record_every=50)
                betas = np.array([net.beta(theta) for theta in run.theta])
                gap = float(np.max(np.abs(betas[-1] - beta_star)))
                gd_gap[alpha] = max(gd_gap[alpha], gap)
                if gap > worst_case[0]:
                    worst_case = (gap, name, alpha * theta_bar, beta_star)
                flow_gap[alpha] = max(flow_gap[alpha], float(np.max(np.abs(
                    flow_limit(net, X, Y, alpha * theta_bar).beta - beta_star))))
                limits.setdefault((name, alpha), []).append(beta_star)
                paths.setdefault((alpha, index), {})[name] = betas
                trajectories[alpha][f"{name}, z̄_{index + 1}"] = (betas[:, 0].tolist(), betas[:, 1].tolist())
    for index in range(len(directions)):  # control at α = 0.01, where the limits are far apart
        for name, betas in paths[(0.01, index)].items():
            for other in NETWORKS:
                if other != name:
                    cross = min(cross, float(np.max(np.abs(betas[-1] - limits[(other, 0.01)][index]))))
    ctx.support("Theorem 5's condition holds for every start", "numeric", worst_gap_to_condition > 0,
                "min_j [U_1ᵀv̄_1]_j² − [U_2ᵀv̄_2]_j² > 0 in numpy's compact SVD (diagonal, convolutional) and in the "
                "canonical SVD I ⊗ x (fully connected)", {"min_gap": worst_gap_to_condition})
    for alpha, figure in ((0.01, "Figure 1, left"), (1.0, "Figure 1, right"), (0.5, "Figure 3, top left")):
        ctx.support(f"limits as predicted, α = {alpha:g}", "numeric",
                    gd_gap[alpha] <= GD_TOLERANCE and flow_gap[alpha] <= FLOW_TOLERANCE,
                    f"GD (η = 1e-3, T = 5000) ends within {GD_TOLERANCE:g} of Theorem 5's limit, gradient flow "
                    f"(LSODA, t = 1e9) within {FLOW_TOLERANCE:g}, for every network and direction",
                    {"max_gd_gap": gd_gap[alpha], "max_flow_gap": flow_gap[alpha], "gd_tolerance": GD_TOLERANCE},
                    plot=line(f"GD trajectories of β at α = {alpha:g} ({figure})", trajectories[alpha],
                              xlabel="β_1", ylabel="β_2"))

    # GD's remaining gap is its O(η) bias: the worst run repeated with η/2 for 2T steps halves it
    worst_gap, worst_name, worst_start, worst_prediction = worst_case
    net = NETWORKS[worst_name]
    halved = gradient_descent(Objective(net, X, Y[:, None], "square"), worst_start, 2 * STEPS, STEP / 2,
                              record_every=2 * STEPS)
    ratio = float(np.max(np.abs(net.beta(halved.final) - worst_prediction))) / worst_gap
    ctx.support("GD's gap is its O(η) discretization bias", "numeric", 0.4 <= ratio <= 0.6,
                f"the run farthest from its prediction ({worst_name}, gap {worst_gap:.2e}) repeated with η = 5e-4 "
                "for 10000 steps lands at half the distance (ratio within [0.4, 0.6])", {"gap_ratio_half_step": ratio})

    spreads = {name: [spread(limits[(name, alpha)]) for alpha in ALPHAS] for name in NETWORKS}
    distances = {name: [max(float(np.linalg.norm(b - refs[name])) for b in limits[(name, alpha)]) for alpha in ALPHAS]
                 for name in NETWORKS}
    # same start, different paths: at α = 0.01 every network travels from β ≈ 0 to its limit; the closest two
    # networks' GD paths still separate (at α = 1 a direction with xᵀz̄ ≈ y barely moves at all)
    distinct = min(min(float(np.max(np.linalg.norm(by_name[a] - by_name[b], axis=1)))
                       for a in NETWORKS for b in NETWORKS if a < b)
                   for (alpha, _), by_name in paths.items() if alpha == 0.01)
    ctx.support("small α: less dependence on the direction, closer to the min-norm interpolants", "trend",
                all(is_monotone(values) for values in spreads.values())
                and all(is_monotone(values) for values in distances.values()) and distinct > 1e-2,
                "along α = 1 → 0.5 → 0.01 the spread of the predicted limits over directions and their largest "
                "distance to the network's reference interpolant both decrease; at α = 0.01, for every direction, any "
                "two of the networks, started at the same β, are more than 1e-2 apart somewhere along their GD paths",
                {f"spread_{name}_alpha{alpha:g}": value for name in NETWORKS
                 for alpha, value in zip(ALPHAS, spreads[name])}
                | {f"distance_{name}_alpha{alpha:g}": value for name in NETWORKS
                   for alpha, value in zip(ALPHAS, distances[name])} | {"min_path_separation": distinct},
                plot=line("Distance of the predicted limits to the min-norm interpolants", {
                    name: (ALPHAS, values) for name, values in distances.items()}, xlabel="α",
                    ylabel="max distance", xscale="log", yscale="log"))
    ctx.control("another architecture's prediction", cross > GD_TOLERANCE,
                "at α = 0.01 each GD endpoint is farther than the tolerance from the other two networks' predictions",
                {"min_cross_gap": cross})

