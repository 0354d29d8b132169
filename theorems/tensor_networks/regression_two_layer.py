"""Two-layer networks and a single data point in regression (paper 002, Sec. 5.2, App. G): Theorem 5's closed-form
limits and the cosh/sinh solution (75)–(78) behind them.

Theorem 5 covers any 2-layer linear tensor network, decomposable or not; the checks use a convolutional network with
filter length k_1 = 2 < d, a network with a random data-tensor map, the fully-connected network (repeated singular
values) and the diagonal network, each integrated by its own gradient flow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy

from numerics.symbolic import is_identically_zero
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)
from numerics.tolerances import above, at_most
from numerics.trends import fit_rate, is_monotone
from theorems.tensor_networks.regression_oracles import (
    Bundle,
    Records,
    compact_svd,
    flow_limit,
    g_inverse,
    limits_match,
    two_layer_limit,
)
from verify import Context, Decision, claim, criterion, plain, tightness

FORMULA_TOLERANCE = 1e-9  # |v_GF − v_formula| / max(1, |v_formula|): LSODA at rtol 1e-12 to t = 1e9

ARCHITECTURES: dict[str, Callable[[np.random.Generator], LinearTensorNetwork]] = {
    "conv k1=2, d=3": lambda rng: convolutional_tensor(3, [2]),
    "random M(x), 3x4": lambda rng: LinearTensorNetwork(rng.normal(size=(3, 3, 4))),
    "fully connected 3-2": lambda rng: fully_connected_tensor([3, 2]),
    "diagonal d=3": lambda rng: diagonal_tensor(3, 2),
}


@dataclass(frozen=True)
class SinglePointInstance:
    net: LinearTensorNetwork
    x: np.ndarray
    y: float
    v1_bar: np.ndarray
    v2_bar: np.ndarray

    def theta0(self, alpha: float) -> np.ndarray:
        return alpha * np.concatenate([self.v1_bar, self.v2_bar])

    def limit(self, alpha: float, **kwargs) -> np.ndarray:
        """Theorem 5's (v_1^∞, v_2^∞), concatenated."""
        result = two_layer_limit(self.net.data_tensor(self.x), self.y, alpha, self.v1_bar, self.v2_bar, **kwargs)
        return np.concatenate([result.v1, result.v2])


def admissible_directions(rng: np.random.Generator, net: LinearTensorNetwork, x: np.ndarray, margin: float = 0.2
                          ) -> tuple[np.ndarray, np.ndarray]:
    """(v̄_1, v̄_2) with [U_1ᵀv̄_1]_j² − [U_2ᵀv̄_2]_j² ∈ [margin, margin + 0.8] in the compact SVD of M(x), plus random
    components outside range(U_l) (Theorem 5 keeps them fixed)."""
    U1, s, U2 = compact_svd(net.data_tensor(x))
    e2 = 0.7 * rng.normal(size=s.size)
    e1 = rng.choice([-1.0, 1.0], s.size) * np.sqrt(e2**2 + margin + 0.8 * rng.uniform(size=s.size))
    g1, g2 = rng.normal(size=U1.shape[0]), rng.normal(size=U2.shape[0])
    return U1 @ e1 + 0.5 * (g1 - U1 @ (U1.T @ g1)), U2 @ e2 + 0.5 * (g2 - U2 @ (U2.T @ g2))


def single_point_instance(rng: np.random.Generator, net: LinearTensorNetwork) -> SinglePointInstance:
    x = rng.normal(size=net.d_in)
    y = float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0))
    return SinglePointInstance(net, x, y, *admissible_directions(rng, net, x))


def outside_parts(inst: SinglePointInstance) -> np.ndarray:
    """((I − U_1U_1ᵀ)v̄_1, (I − U_2U_2ᵀ)v̄_2): the part of the initialization the flow never moves."""
    U1, _, U2 = compact_svd(inst.net.data_tensor(inst.x))
    return np.concatenate([inst.v1_bar - U1 @ (U1.T @ inst.v1_bar), inst.v2_bar - U2 @ (U2.T @ inst.v2_bar)])


@criterion("L(t) ≤ L(0) exp(−factor·α²λ‖s‖²t) at every checkpoint while L(t) > 1e-25 L(0): factor·α²λ‖s‖²t ≤ "
           "ln(L(0)/L(t))")
def loss_bound_73(runs: Records, factor: float) -> Decision:
    worst = 0.0
    exponents, decays = [], []
    for run in runs:
        t, losses = run["t"], run["losses"]
        printed = 2 * run["alpha"] ** 2 * run["lam"] * run["s_squared"]  # (73)'s rate decides where to look
        rate = factor / 2 * printed
        meaningful = (t > 0) & (printed * t < 50) & above(losses, 1e-25 * losses[0])  # above rounding
        exponent, decay = rate * t[meaningful], -np.log(losses[meaningful] / losses[0])
        worst = max(worst, float(np.max(exponent / decay)))  # the decision and the tightness read the same arrays
        exponents.append(exponent)
        decays.append(decay)
    limit = 1 + 1e-6  # the flow's integration error in the measured decay
    return Decision(at_most(worst, limit), f"max of bound exponent / measured decay = {worst:.4g} (≤ {limit:.7g})",
                    {"max_exponent_over_decay": worst},
                    tightness("(73): L(t) ≤ L(0) exp(−2α²λ‖s‖²t), as exponents 2α²λ‖s‖²t ≤ ln(L(0)/L(t))",
                              np.concatenate(exponents), np.concatenate(decays)))


@criterion("as α decreases: sign ν* = expected_sign and |ν*| increases; once α ≤ settled the spread of the limits "
           "of β over the directions decreases, and over α ≤ 1e-5 its fitted exponent in α is at least share "
           "(half by default) of 1 − s_2/s_1")
def forgets_direction(alphas: np.ndarray, nus: np.ndarray, limits: Bundle, expected_sign: float,
                      singular_values: np.ndarray, settled: float, share: float = 0.5) -> Decision:
    spreads = np.array([max(float(np.linalg.norm(a - b)) for a in betas for b in betas) for betas in limits])
    late, window = at_most(alphas, 1e-5), alphas <= settled
    fit = fit_rate(alphas[late], spreads[late])
    predicted = 1 - singular_values[-1] / singular_values[0] if len(singular_values) > 1 else 1.0
    follows = bool(np.all(np.sign(nus) == expected_sign)) and is_monotone(np.abs(nus), "increasing")
    decreasing = is_monotone(spreads[window])
    steps = spreads[window][1:] / spreads[window][:-1]
    required = share * predicted
    holds = follows and decreasing and fit.exponent >= required
    return Decision(bool(holds), f"sign and growth of ν*: {follows}; spread decreasing for α ≤ {settled:g}: "
                           f"{decreasing} (largest ratio of consecutive spreads {np.max(steps):.3f}, at most 1), ∝ "
                           f"α^{fit.exponent:.3f} for α ≤ 1e-5 (at least {required:.3f} = {share:g}·(1 − s_2/s_1) "
                           f"required{'' if fit.exponent >= required else ': too slow'})",
                    {"spread_rate": fit.exponent, "predicted_rate": predicted, "min_spread_rate": required,
                     "max_spread_step_ratio": float(np.max(steps)), "settled_alpha": settled}
                    | {f"nu_alpha{a:g}": v for a, v in zip(alphas, nus)}
                    | {f"spread_alpha{a:g}": v for a, v in zip(alphas, spreads)})


MAX_SINGULAR_RATIO = 0.7  # s_2/s_1 of M(x) for the α-sweep: the spread then decays at least like α^0.3
SETTLED_ALPHA = 1e-3  # α^(1 − s_2/s_1) ≤ 10^(−0.9) from here on: the spread's leading term dominates


def spread_instance(rng: np.random.Generator, net: LinearTensorNetwork, max_draws: int = 200
                    ) -> tuple[np.ndarray, int]:
    """x ~ N(0, I) redrawn until s_2/s_1 ≤ MAX_SINGULAR_RATIO in the compact SVD of M(x) (about 43% of the draws of
    the convolutional network are rejected), and the number of draws rejected. Near s_2 = s_1 the spread of the
    limits decays like α^(1 − s_2/s_1), too slowly to be read at any α a float reaches."""
    for rejected in range(max_draws):
        x = rng.normal(size=net.d_in)
        s = compact_svd(net.data_tensor(x))[1]
        if s[-1] / s[0] <= MAX_SINGULAR_RATIO:
            return x, rejected
    raise RuntimeError(f"no x with s_2/s_1 ≤ {MAX_SINGULAR_RATIO} in {max_draws} draws")


THM5_MINIMUM = "gradient flow reaches a global minimizer: L(t) ≤ L(0) exp(−2α²λ‖s‖²t) (73) (4 architectures)"
THM5_FORMULA = "the limits (v_1^∞, v_2^∞) are the closed form with ν = g^(−1)(y/α²) (4 architectures)"
THM5_SMALL_ALPHA = ("as α → 0, |g^(−1)(y/α²)| → ∞ with the sign of y, and the limits forget the direction "
                    "(finite-α proxy)")


@claim(
    id="tensor.thm5",
    ref="Theorem 5, Sec. 5.2 (proof App. G), and the text after it",
    kind="theorem",
    title="Two layers and one data point in regression: limits in closed form",
    statement=("For a 2-layer linear tensor network, one point $(x, y)$, the compact SVD "
               "$M(x) = U_1 \"diag\"(s) U_2^T$ and directions with $[U_1^T macron(v)_1]_j^2 - [U_2^T macron(v)_2]_j^2 "
               ">= lambda > 0$, gradient flow from $v_l(0) = alpha macron(v)_l$ reaches a global minimizer with "
               "$v_1^oo = alpha U_1 (e_1 dot.o cosh(nu s) + e_2 dot.o sinh(nu s)) + alpha (I - U_1 U_1^T) "
               "macron(v)_1$, $v_2^oo = alpha U_2 (e_1 dot.o sinh(nu s) + e_2 dot.o cosh(nu s)) + alpha "
               "(I - U_2 U_2^T) macron(v)_2$, where $e_l = U_l^T macron(v)_l$, $nu = g^(-1)(y \\/ alpha^2)$ and "
               "$g(nu) = sum_j s_j ((e_(1 j)^2 + e_(2 j)^2)\\/2 sinh(2 s_j nu) + e_(1 j) e_(2 j) cosh(2 s_j nu))$ "
               "is strictly increasing. As $alpha -> 0$, $|nu| -> oo$ and the limit no longer depends on the "
               "direction (text after the theorem)."),
    hypotheses=plain("2-layer linear tensor network, any k_1, k_2", "one data point, square loss",
                     "[U_1ᵀv̄_1]_j² − [U_2ᵀv̄_2]_j² ≥ λ > 0 for every j of the compact SVD"),
    conclusions={THM5_MINIMUM: "confirmed", THM5_FORMULA: "confirmed", THM5_SMALL_ALPHA: "confirmed"},
    profiles={"quick": "4 architectures × α ∈ {1, 0.3}; loss bound (73) along the flows; α-sweep of the "
                       "formula 1e-1 → 1e-8 for the text after the theorem (conv network, x with s_2/s_1 ≤ 0.7)",
              "full": "4 architectures × 3 instances × α ∈ {2, 1, 0.3, 0.1}", "paper": "as full"},
    notes=plain(("The text after the theorem says g^(−1)(y/α²) → ∞ as α → 0; that holds for y > 0, for y < 0 it "
                 "tends to −∞ (|g^(−1)| → ∞ in both cases, which is what the argument needs). Checked below."),
                ("As α → 0 the leading singular pair's coordinates of v_l stay of order 1 (fixed by y) while the "
                 "others scale like α^(1 − s_j/s_1) and the complement parts like α (suite-derived, from the closed "
                 "form with e^(2 s_1 ν) ∝ α^(−2)); the spread of the limits over directions decays like "
                 "α^(1 − s_2/s_1), slowly when s_2 ≈ s_1 (like α^0.03 at s_2/s_1 = 0.97: invisible at any α a float "
                 "reaches; the text's 'the top singular vectors dominate' needs s_1 > s_2). The instance is therefore "
                 "drawn where the decay has margin: x is redrawn until s_2/s_1 ≤ 0.7 in M(x)'s SVD (the draws "
                 "rejected are recorded in the figures). Above α ≈ 1e-3 the terms in α^(2(1 − s_2/s_1)) and α still "
                 "compete with the leading one and the spread can grow from one α to the next, so the proxy asks the "
                 "spread to decrease for α ≤ 1e-3 and reads the rate for α ≤ 1e-5, asking for at least half of it."),
                ("Fully-connected networks have repeated singular values ‖x‖; the formula does not depend on the "
                 "basis chosen inside a repeated block, but the λ-condition does: it is imposed in numpy's SVD "
                 "basis.")),
)
def check_theorem_5(ctx: Context) -> None:
    limits, predicted, wrong_power, wrong_power_limits, no_complement, no_complement_limits = [], [], [], [], [], []
    runs = []
    for name, build in ARCHITECTURES.items():
        for index in range(ctx.pick(1, 3)):
            rng = ctx.rng(f"{name} #{index}")
            inst = single_point_instance(rng, build(rng))
            X, y = inst.x[None, :], np.array([inst.y])
            for alpha in ctx.pick([1.0, 0.3], [2.0, 1.0, 0.3, 0.1]):
                times = np.concatenate([[0.0], np.logspace(-2, 9, 40)])
                limit = flow_limit(inst.net, X, y, inst.theta0(alpha), t_eval=times)
                limits.append(limit.theta)
                predicted.append(inst.limit(alpha))
                if alpha != 1.0:  # at α = 1 every power of α is the same
                    wrong_power_limits.append(limit.theta)
                    wrong_power.append(inst.limit(alpha, scale_exponent=1))
                outside = outside_parts(inst)
                if np.linalg.norm(outside) > 0.1:  # the diagonal network has no such part
                    no_complement_limits.append(limit.theta)
                    no_complement.append(predicted[-1] - alpha * outside)
                formula = two_layer_limit(inst.net.data_tensor(inst.x), inst.y, alpha, inst.v1_bar, inst.v2_bar)
                runs.append({"alpha": alpha, "lam": formula.gap, "s_squared": np.sum(formula.singular_values**2),
                             "t": limit.trajectory.t,
                             "losses": np.array([0.5 * (inst.net.beta(theta) @ inst.x - inst.y) ** 2
                                                 for theta in limit.trajectory.theta])})
    limits_all = Bundle(limits)
    ctx.support("gradient-flow limits = Theorem 5's formula", "numeric",
                limits_match(limits_all, Bundle(predicted), FORMULA_TOLERANCE),
                "LSODA (log clock, rtol 1e-12, t = 1e9) on each network vs the closed form (brentq for g^(−1)), "
                "θ = (v_1, v_2)", conclusion=THM5_FORMULA)
    ctx.control("g^(−1)(y/α) in place of g^(−1)(y/α²)",
                limits_match(Bundle(wrong_power_limits), Bundle(wrong_power), FORMULA_TOLERANCE),
                "the runs with α ≠ 1")
    ctx.control("orthogonal-complement terms dropped",
                limits_match(Bundle(no_complement_limits), Bundle(no_complement), FORMULA_TOLERANCE),
                "without α(I − U_lU_lᵀ)v̄_l (the flow never moves that part)")
    runs = Records(runs)
    bound = loss_bound_73(runs, 2.0)
    ctx.support("loss bound (73) along the flows", "numeric", bound,
                "41 checkpoints per flow; the tightness ratio is the bound's exponent over the measured decay "
                "(1 = attained)",
                conclusion=THM5_MINIMUM)
    ctx.control("rate multiplied by 100", loss_bound_73(runs, 200.0), "a rate 100 times (73)'s is violated")
    # at the criterion's edge: the rate raised until the bound's exponent exceeds the decay by 5 % at one checkpoint
    edge = 2.0 * 1.05 / bound.decision.figures["max_exponent_over_decay"]
    ctx.control("rate 5 % past the tightest checkpoint", loss_bound_73(runs, edge),
                "a rate just past what the flows attain is violated")

    # the text after the theorem: |g^{-1}(y/α²)| → ∞ with the sign of y, and the limits forget v̄ as α → 0
    rng = ctx.rng("text claims")
    net = convolutional_tensor(3, [2])
    x, rejected = spread_instance(rng, net)
    y = float(rng.uniform(0.5, 2.0) * rng.choice([-1.0, 1.0]))
    directions = [admissible_directions(rng, net, x) for _ in range(3)]
    alphas = np.logspace(-1, -8, 8)  # the closed form only: no flow needed
    nus, betas = [], []
    for alpha in alphas:
        predictions = [two_layer_limit(net.data_tensor(x), y, alpha, v1, v2) for v1, v2 in directions]
        betas.append(np.array([net.beta(np.concatenate([p.v1, p.v2])) for p in predictions]))
        nus.append(predictions[0].nu)
    nus, betas = np.array(nus), Bundle(betas)
    singular_values = compact_svd(net.data_tensor(x))[1]
    ctx.support("|g^(−1)(y/α²)| → ∞ with the sign of y; limits forget the initial direction (finite-α proxy)",
                "trend", forgets_direction(alphas, nus, betas, float(np.sign(y)), singular_values, SETTLED_ALPHA),
                f"conv k1 = 2, d = 3, x drawn with s_2/s_1 ≤ {MAX_SINGULAR_RATIO:g} ({rejected} draws of x rejected "
                f"for s_2/s_1 > {MAX_SINGULAR_RATIO:g}; s_2/s_1 = {singular_values[-1] / singular_values[0]:.3f}), "
                f"three directions satisfying the condition, y = {y:.3f}, Theorem 5's formula at α = 1e-1 → 1e-8",
                {"x_draws_rejected": rejected, "singular_ratio": singular_values[-1] / singular_values[0],
                 "max_singular_ratio": MAX_SINGULAR_RATIO},
                conclusion=THM5_SMALL_ALPHA)
    ctx.control("ν* with the sign of −y (g^(−1) → +∞ read for every y)",
                forgets_direction(alphas, nus, betas, -float(np.sign(y)), singular_values, SETTLED_ALPHA),
                "the same sweep")
    ctx.control("|ν*| read as decreasing when α decreases", forgets_direction(alphas, nus[::-1], betas,
                                                                              float(np.sign(y)), singular_values,
                                                                              SETTLED_ALPHA),
                "ν*: the sweep's values in reverse order (the same signs)", because="sign and growth of ν*: False")
    # the fitted exponent is close to 1 − s_2/s_1 on the drawn instances: twice it is out of reach
    ctx.control("the spread decaying like α^(2(1 − s_2/s_1))", forgets_direction(alphas, nus, betas,
                                                                                 float(np.sign(y)), singular_values,
                                                                                 SETTLED_ALPHA, 2.0),
                "share of the exponent 1 − s_2/s_1 required: 1/2 → 2", because="too slow")


# -- App. G.2 ----------------------------------------------------------------------------------------------------
def cosh_sinh_residuals(sign: int) -> list[sympy.Expr]:
    """One coordinate of (74)–(76): with R(t) = ∫_0^t r and ν = −R, the candidate η_1 = α(e_1 cosh(sν) +
    e_2 sinh(sν)), η_2 = α(e_1 sinh(sν) + e_2 cosh(sν)) (``sign`` = −1 flips ν, a control). Residuals of
    η_1' = −r s η_2, η_2' = −r s η_1, of the initial values, and of s η_1 η_2 = α² s ((e_1² + e_2²)/2 sinh(2sν)
    + e_1 e_2 cosh(2sν)) (the summand of (76))."""
    t = sympy.Symbol("t", real=True)
    s, alpha = sympy.symbols("s alpha", positive=True)
    e1, e2 = sympy.symbols("e1 e2", real=True)
    R = sympy.Function("R")(t)
    nu = -sign * R
    eta1 = alpha * (e1 * sympy.cosh(s * nu) + e2 * sympy.sinh(s * nu))
    eta2 = alpha * (e1 * sympy.sinh(s * nu) + e2 * sympy.cosh(s * nu))
    r = R.diff(t)
    summand = alpha**2 * s * ((e1**2 + e2**2) / 2 * sympy.sinh(2 * s * nu) + e1 * e2 * sympy.cosh(2 * s * nu))
    at_zero = {R: 0}
    return [eta1.diff(t) + r * s * eta2, eta2.diff(t) + r * s * eta1,
            eta1.subs(at_zero) - alpha * e1, eta2.subs(at_zero) - alpha * e2,
            (s * eta1 * eta2 - summand).rewrite(sympy.exp)]


@criterion("(75) with ν = sign·(−∫r) solves (74) with its initial values, s η_1 η_2 is (76)'s summand (generic R(t), "
           "s, e_1, e_2, α), and (e_1² + e_2²)/2 − |e_1 e_2| = (|e_1| − |e_2|)²/2")
def cosh_sinh_solves(sign: int) -> Decision:
    solution = is_identically_zero(sympy.Matrix(cosh_sinh_residuals(sign)))
    e1, e2 = sympy.symbols("e1 e2", real=True)
    gap = is_identically_zero((e1**2 + e2**2) / 2 - sympy.Abs(e1 * e2) - (sympy.Abs(e1) - sympy.Abs(e2)) ** 2 / 2)
    if solution.refuted or gap.refuted:
        return Decision(False, f"residual nonzero ({solution.description})")
    if not (solution.proved and gap.proved):
        return Decision(None, "neither proved nor refuted")
    return Decision(True, f"{solution.description}; {gap.description}",
                    {"solution_method": solution.method, "gap_method": gap.method})


@criterion("along each flow, ν read off f(t) = α² g(ν) reproduces U_lᵀv_l(t) through (75), with e_1 and e_2 in the "
           "given order, to the tolerance")
def flow_follows_cosh_sinh(runs: Records, swapped: bool, tolerance: float) -> Decision:
    worst = 0.0
    for run in runs:
        s, e1, e2, alpha = run["s"], run["e1"], run["e2"], run["alpha"]
        a, b = (e2, e1) if swapped else (e1, e2)
        for eta, value in zip(run["eta"], run["f"]):
            nu = g_inverse(s, e1, e2, value / alpha**2)
            predicted = np.concatenate([alpha * (a * np.cosh(nu * s) + b * np.sinh(nu * s)),
                                        alpha * (a * np.sinh(nu * s) + b * np.cosh(nu * s))])
            worst = max(worst, float(np.max(np.abs(eta - predicted))))
    return Decision(at_most(worst, tolerance), f"max |η(t) − (75)| = {worst:.1e}, tolerance {tolerance:g}",
                    {"max_deviation": worst, "tolerance": tolerance})


G2_SOLUTION = "(75) solves (74), f = α² g(ν), and g is strictly increasing (symbolic)"
G2_FLOW = "the networks' flows follow (75) (4 architectures)"


@claim(
    id="tensor.aux.G2",
    ref="App. G.2, eqs. (74)–(78)",
    kind="equation",
    title="cosh/sinh solution of the two-layer single-point flow, and f(∞) = α² g(ν)",
    statement=("With $eta_l = U_l^T v_l$ and $nu(t) = -integral_0^t r$, the flow (74) is solved by $eta_1 = alpha "
               "(e_1 dot.o cosh(nu s) + e_2 dot.o sinh(nu s))$, $eta_2 = alpha (e_1 dot.o sinh(nu s) + e_2 dot.o "
               "cosh(nu s))$; hence $f(x; Theta(t)) = alpha^2 g(nu(t))$, and $g$ is strictly increasing when "
               "$e_(1 j)^2 != e_(2 j)^2$ for every $j$, since $(e_(1 j)^2 + e_(2 j)^2)\\/2 - |e_(1 j) e_(2 j)| = "
               "(|e_(1 j)| - |e_(2 j)|)^2 \\/ 2$."),
    hypotheses=plain("Theorem 5's setting", "e_l = U_lᵀ v̄_l"),
    conclusions={G2_SOLUTION: "certified", G2_FLOW: "confirmed"},
    profiles={"quick": "symbolic (generic R(t), s, e_1, e_2, α); one flow per architecture at α = 0.5",
              "full": "as quick with α ∈ {0.3, 1}", "paper": "as full"},
    notes=plain("That the network's flow in the coordinates η_l = U_lᵀv_l is (74) is App. G's derivation; it is "
                "checked on each network's own flow (numerically), the solution of (74) symbolically."),
)
def check_cosh_sinh(ctx: Context) -> None:
    ctx.prove("(75) solves (74); s η_1 η_2 is (76)'s summand; g is increasing", "symbolic", cosh_sinh_solves(1),
              "generic R(t) = ∫r: both ODE residuals, the initial values and the product identity vanish; a = (e_1² + "
              "e_2²)/2 > |b| = |e_1 e_2| unless |e_1| = |e_2|, and d/dν (a sinh 2sν + b cosh 2sν) = 2s(a cosh + "
              "b sinh) ≥ 2s(a − |b|) cosh > 0", conclusion=G2_SOLUTION)
    ctx.control("ν = +∫r in place of −∫r", cosh_sinh_solves(-1), "the sign-flipped candidate fails (74)")

    # numeric: along each network's flow, ν(t) read off f(t) = α² g(ν) reproduces η_1(t), η_2(t) through (75)
    runs = []
    for name, build in ARCHITECTURES.items():
        rng = ctx.rng(name)
        inst = single_point_instance(rng, build(rng))
        U1, s, U2 = compact_svd(inst.net.data_tensor(inst.x))
        e1, e2 = U1.T @ inst.v1_bar, U2.T @ inst.v2_bar
        for alpha in ctx.pick([0.5], [0.3, 1.0]):
            limit = flow_limit(inst.net, inst.x[None, :], np.array([inst.y]), inst.theta0(alpha),
                               t_eval=np.logspace(-2, 9, 25))
            etas, values = [], []
            for theta in limit.trajectory.theta:
                v1, v2 = inst.net.split(theta)
                etas.append(np.concatenate([U1.T @ v1, U2.T @ v2]))
                values.append(float(inst.net.beta(theta) @ inst.x))
            runs.append({"s": s, "e1": e1, "e2": e2, "alpha": alpha, "eta": etas, "f": values})
    runs = Records(runs)
    ctx.support("(75) along the flows", "numeric", flow_follows_cosh_sinh(runs, False, 1e-9),
                "4 architectures, 25 checkpoints each: ν from α² g(ν) = f(t) (brentq), then η(t) against (75)",
                conclusion=G2_FLOW)
    ctx.control("e_1 and e_2 swapped in (75)", flow_follows_cosh_sinh(runs, True, 1e-9),
                "the same reading of ν with the roles of the two layers exchanged")
