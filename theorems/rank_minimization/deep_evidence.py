"""Evidence shared by the claims of Thms 4 and 5: the proof algebra, exact constructions, the certificate on
local optima, balance (Lemmas 14/15) and the final step (Eqs. (19)/(21); the Lipschitz and AM–GM chain is sampled
on random networks, not proved)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import sympy

from numerics.metrics import spectral_norm
from numerics.networks import Network, fully_connected, scalar_outputs
from numerics.tolerances import at_most
from theorems.rank_minimization.criteria import identities
from theorems.rank_minimization.deep_common import (
    BALANCE_TOL,
    FEASIBILITY_TOL,
    NORM_TOL,
    PROBLEM_LABEL,
    PYTHAGOREAN_INPUTS,
    Candidate,
    Problem,
    Teacher,
    bound_symbols,
    certificate,
    construction,
    construction_identities,
    holds_for_both_signs,
    norm_bound,
    padded,
    parameters,
    ratio_bound,
    relu,
    scales,
    student,
    student_widths,
    summarize,
)
from verify import Context, Decision, criterion, line, tightness

EXACT_STUDENT_WIDTH = 6  # wider than the teachers' 4: the exact instances also exercise the zero padding


def exact_construction_gaps(problem: Problem, teacher: Teacher, kp: int, bound_of: Problem | None = None,
                            last_row: tuple[sympy.Expr, ...] | None = None) -> tuple[list[sympy.Expr], sympy.Expr]:
    """(N'(x_i) − N(x_i) on the Pythagorean inputs, ‖θ'‖² − bound), exactly, θ' zero-padded into width 6; the bound
    is that of ``bound_of``'s equation (default: ``problem``'s own, Eq. (18) or (20)). ``last_row`` (a control)
    multiplies θ''s last layer entry by entry."""
    X = np.array(PYTHAGOREAN_INPUTS, dtype=object)
    layers = construction(problem, teacher, kp)
    if last_row is not None:
        layers[-1] = layers[-1] * np.array([last_row], dtype=object)
    layers = padded(layers, student_widths(2, EXACT_STUDENT_WIDTH, kp))
    outputs = scalar_outputs(student(2, EXACT_STUDENT_WIDTH, kp), parameters(layers), X)
    gaps = [sympy.simplify(o - t) for o, t in zip(outputs, teacher.outputs(X))]
    squared = sum(sympy.sympify(v) ** 2 for W in layers for v in W.ravel())
    bound = norm_bound(bound_of or problem, teacher.frobenius_bound, teacher.depth, kp)
    return gaps, sympy.simplify(squared - bound)


@criterion("the proof's identity holds in positive symbols (B, k, k')")
def proof_identity(problem: Problem, identity: str, alpha_factor: sympy.Expr = sympy.Integer(1),
                   beta_factor: sympy.Expr = sympy.Integer(1)) -> Decision:
    """One identity of :func:`construction_identities` with the paper's α, β times the given factors (1: the
    paper's scales; anything else: a control)."""
    B, k, kp = bound_symbols()
    alpha, beta = scales(problem, B, k, kp)
    test = construction_identities(problem, alpha=alpha * alpha_factor, beta=beta * beta_factor)[identity]
    return Decision(True if test.proved else (False if test.refuted else None), test.description)


@criterion("θ' (zero-padded into width 6, exact) reproduces every output and, for margins, keeps y_i N'(x_i) ≥ 1")
def exact_construction(tail: Problem, teacher: Teacher, kp: int, margin_labels: bool,
                       bound_of: Problem | None = None, last_row: tuple[sympy.Expr, ...] | None = None) -> Decision:
    """App. D's (``tail`` = "interpolation", width-1 tail) or App. E's ("margin", width-2 tail) construction for
    ``teacher`` on the rational unit inputs; with ``margin_labels`` the labels are sign N(x_i) and the margins
    must stay ≥ 1, else N'(x_i) must equal N(x_i). ‖θ'‖² must equal the bound of Eq. (18)/(20) exactly (the
    other equation's bound with ``bound_of``: a control; ``last_row``: see :func:`exact_construction_gaps`)."""
    gaps, norm_gap = exact_construction_gaps(tail, teacher, kp, bound_of, last_row)
    targets = teacher.outputs(np.array(PYTHAGOREAN_INPUTS, dtype=object))
    if margin_labels:
        margins = [sympy.simplify(sympy.sign(t) * (t + g)) for t, g in zip(targets, gaps)]
        holds = min(margins) >= 1 and all(g == 0 for g in gaps) and norm_gap == 0
        detail = (f"N'(x_i) − N(x_i) = {gaps}; margins {margins} (all ≥ 1: {min(margins) >= 1}); ‖θ'‖² − bound = "
                  f"{norm_gap}")
    else:
        holds = all(g == 0 for g in gaps) and norm_gap == 0
        detail = f"N'(x_i) − N(x_i) = {gaps}; ‖θ'‖² − bound = {norm_gap}"
    detail += f" (‖θ'‖² equals the bound: {norm_gap == 0})"
    return Decision(bool(holds), detail, {"nonzero_gaps": sum(g != 0 for g in gaps)})


def proof_algebra(ctx: Context, problem: Problem, names: tuple[str, ...], conclusion: str | None = None) -> None:
    for name in names:
        ctx.prove(name, "symbolic", proof_identity(problem, name), "identity in positive symbols (B, k, k')",
                  conclusion=conclusion)


def algebra_control(ctx: Context, problem: Problem, name: str) -> None:
    """The same identity with a wrong scale: β·B^(1/k') (App. D) or α·2^(1/k') (App. E)."""
    B, _, kp = bound_symbols()
    if problem == "interpolation":
        ctx.control("β with a wrong exponent", proof_identity(problem, name, beta_factor=B ** (1 / kp)),
                    "β = B^{(k+1)/k'}: the same identity check refutes it")
    else:
        ctx.control("α with a wrong constant", proof_identity(problem, name, alpha_factor=2 ** (1 / kp)),
                    "α = 2^{1/k'}(√2/B)^{(k'−k)/k'}: the same identity check refutes it")


def rescaling_derivative() -> tuple[sympy.Expr, sympy.Expr]:
    """(d/dγ (γ²a + b/γ²) at γ = 1, 2a − 2b) for a = ‖W_i‖_F², b = ‖W_j‖_F² (proof of Lemma 14)."""
    gamma = sympy.Symbol("gamma", positive=True)
    a, b = sympy.symbols("a b", nonnegative=True)
    return sympy.diff(gamma**2 * a + b / gamma**2, gamma).subs(gamma, 1), 2 * a - 2 * b


def rescaled(layers: list[np.ndarray], i: int, j: int, gamma: sympy.Expr) -> list[np.ndarray]:
    """W_i ↦ γW_i and W_j ↦ W_j/γ (the curve of the proof of Lemmas 14/15)."""
    out = list(layers)
    out[i], out[j] = layers[i] * gamma, layers[j] / gamma
    return out


RESCALING = identities("d/dγ(γ²‖W_i‖² + γ⁻²‖W_j‖²) at γ = 1 minus (2‖W_i‖² − 2‖W_j‖²) vanishes identically")


@criterion("σ(γz) − γσ(z) vanishes for every real z (exact case split z ≥ 0 / z ≤ 0)")
def relu_homogeneous(gamma: sympy.Expr) -> Decision:
    z = sympy.Symbol("z", real=True)
    test = holds_for_both_signs(relu(gamma * z) - gamma * relu(z), z)
    return Decision(True if test.proved else (False if test.refuted else None), test.description)


@criterion("W_1 ↦ γW_1, W_k' ↦ W_k'/γ leaves the network's outputs unchanged (exact)")
def rescaling_keeps_outputs(layers: list[np.ndarray], inputs: np.ndarray, gamma: sympy.Expr) -> Decision:
    net = fully_connected([layers[0].shape[1]] + [W.shape[0] for W in layers])
    original = net.forward(parameters(layers), inputs)
    moved = net.forward(parameters(rescaled(layers, 0, len(layers) - 1, gamma)), inputs)
    differing = sum(sympy.simplify(a - b) != 0 for a, b in zip(original.ravel(), moved.ravel()))
    return Decision(differing == 0, f"{differing} of {original.size} outputs change", {"changed": differing})


def balance_evidence(ctx: Context, problem: Problem, exact_layers: list[np.ndarray],
                     exact_inputs: np.ndarray) -> None:
    """Lemmas 14/15: the proof (symbolic) and its invariance on an exact instance."""
    derivative, expected = rescaling_derivative()
    ctx.prove("derivative along the rescaling curve", "symbolic",
              RESCALING({"d/dγ(γ²a + b/γ²) − (2a − 2b)": derivative - expected}),
              "d/dγ(γ²‖W_i‖² + γ⁻²‖W_j‖²) at γ = 1 equals 2‖W_i‖² − 2‖W_j‖²; it vanishes only if ‖W_i‖_F = ‖W_j‖_F, "
              "so an optimum (where the norm is stationary along the curve) is balanced")
    gamma = sympy.Symbol("gamma", positive=True)
    ctx.prove("the curve keeps the network function", "symbolic", relu_homogeneous(gamma),
              "σ(γz) = γσ(z) for γ > 0, so scaling W_i by γ and W_j by 1/γ leaves N unchanged (and keeps every "
              "constraint of the problem)")
    ctx.control("γ < 0", relu_homogeneous(-gamma), "the same case split refutes σ(γz) = γσ(z) for γ < 0")
    ctx.prove("invariance on an exact instance", "exact",
              rescaling_keeps_outputs(exact_layers, exact_inputs, sympy.Rational(3, 2)),
              "θ' with W_1 ↦ (3/2)W_1, W_k' ↦ (2/3)W_k': identical outputs in exact arithmetic")
    ctx.control("γ = −3/2 on the exact instance", rescaling_keeps_outputs(exact_layers, exact_inputs,
                                                                          sympy.Rational(-3, 2)),
                "the same exact evaluation finds changed outputs: the rescaling needs γ > 0")


def smallest_singular_value(W: np.ndarray) -> float:
    return float(np.linalg.svd(W, compute_uv=False)[-1])


CHAIN_TOLERANCE = 1e-12  # both inequalities of the chain, relative to the bound
_SHARP_UNITS = (np.array([0.6, 0.8]), np.array([0.8, 0.6]), np.array([0.6, 0.8]))  # nonnegative unit vectors


def _sharp_network(scale: float = 1.5) -> tuple[Network, np.ndarray, np.ndarray]:
    """A ReLU network on which both inequalities are equalities: W_l = c u_l u_(l−1)ᵀ (l = 1, 2) and W_3 = c u_2ᵀ
    with nonnegative unit u_l, so every layer has ‖W_l‖σ = c, no ReLU is cut on x = u_0 and N(x) = c³ = ‖x‖Π‖W_l‖σ."""
    u0, u1, u2 = _SHARP_UNITS
    net = fully_connected([2, 2, 2, 1])
    layers = [scale * np.outer(u1, u0), scale * np.outer(u2, u1), scale * u2[None, :]]
    return net, net.join(layers), u0[None, :]


@criterion("|N(x)| ≤ ‖x‖ Π_l norm(W_l) ≤ ‖x‖ ((1/k') Σ_l norm(W_l))^k' on random ReLU networks and one where both "
           f"are equalities (up to {CHAIN_TOLERANCE:g} relative)")
def lipschitz_chain(norm: Callable[[np.ndarray], float], seed: int, samples: int) -> Decision:
    """max over random ReLU networks and inputs, and a network where both are equalities (_sharp_network), of
    |N(x)| / (‖x‖ Π_l norm(W_l)) and of Π_l norm(W_l) / ((1/k') Σ_l norm(W_l))^{k'} (both ≤ 1 for the spectral
    norm: 1-Lipschitz ReLU, AM–GM; both 1 on the sharp network)."""
    rng = np.random.default_rng(seed)
    worst_lipschitz = worst_am_gm = 0.0
    outputs, products, means = [], [], []
    cases = []
    for _ in range(samples):
        depth = int(rng.integers(2, 6))
        widths = [int(w) for w in rng.integers(1, 6, size=depth)] + [1]
        net = fully_connected(widths)
        cases.append((net, rng.normal(size=net.n_params) * rng.uniform(0.2, 3.0), rng.normal(size=(1, widths[0]))))
    cases.append(_sharp_network())
    for net, theta, x in cases:
        norms = np.array([norm(W) for W in net.matrices(theta)])
        product = float(np.prod(norms))
        output = abs(float(net.forward(theta, x)[0, 0]))
        ratio = output / (np.linalg.norm(x) * product)
        worst_lipschitz = max(worst_lipschitz, float(ratio))
        worst_am_gm = max(worst_am_gm, product / float(np.mean(norms)) ** norms.size)
        outputs.append(output)
        products.append((float(np.linalg.norm(x)) * product, product))
        means.append(float(np.mean(norms)) ** norms.size)
    lipschitz_limit, am_gm_limit = 1 + CHAIN_TOLERANCE, 1 + CHAIN_TOLERANCE  # both ratios are at most 1
    holds = at_most(worst_lipschitz, lipschitz_limit) and at_most(worst_am_gm, am_gm_limit)
    return Decision(bool(holds), f"{samples} networks (depth 2–5, widths 1–5) and one where both are equalities: "
                    f"max |N(x)|/(‖x‖Π norm) = {worst_lipschitz:.13g} (pass if ≤ {lipschitz_limit!r}), max Π "
                    f"norm/(mean norm)^k' = {worst_am_gm:.13g} (pass if ≤ {am_gm_limit!r})",
                    {"max_lipschitz_ratio": worst_lipschitz, "max_am_gm_ratio": worst_am_gm, "samples": samples},
                    (tightness("|N(x)| ≤ ‖x‖ Π_l ‖W_l‖", outputs, [scaled for scaled, _ in products]),
                     tightness("Π_l ‖W_l‖ ≤ ((1/k') Σ_l ‖W_l‖)^k' (AM–GM)", [p for _, p in products], means)))


UNDERSTATEMENT = 1e-9  # the control's wrong norm: ‖W‖σ(1 − 1e-9), just past CHAIN_TOLERANCE on the sharp network


def understated_spectral_norm(W: np.ndarray) -> float:
    """A wrong norm for the control at the tolerance's edge: ‖W‖σ (1 − UNDERSTATEMENT)."""
    return spectral_norm(W) * (1 - UNDERSTATEMENT)


FINAL_ALGEBRA = identities("bound/k' minus the printed per-layer bound vanishes identically")


def final_step_evidence(ctx: Context, problem: Problem, samples: int, algebra: str, chain: str) -> None:
    """Eq. (19)/(21) and the closing algebra (symbolic, conclusion ``algebra``); the step 1 ≤ |N*(x_i)| ≤
    ‖x_i‖ Π‖W*_l‖_σ ≤ (mean ‖W*_l‖_σ)^{k'} on random networks (numeric, conclusion ``chain``)."""
    B, k, kp = bound_symbols()
    per_layer = norm_bound(problem, B, k, kp) / kp  # Eq. (19)/(21): (B*)² ≤ ‖θ'‖²/k'
    expected = B ** (2 * k / kp) if problem == "interpolation" else 2 * (2 / B**2) ** (-k / kp) * (kp + 1) / kp
    ctx.prove("per-layer bound (B*)² = ‖θ'‖²/k'", "symbolic",
              FINAL_ALGEBRA({"bound/k' − printed": per_layer - expected}),
              "balanced layers share ‖θ*‖² ≤ bound equally: bound/k' simplifies to the printed right-hand side",
              conclusion=algebra)
    ctx.control("printed bound without its constant",
                FINAL_ALGEBRA({"bound/k' − printed": per_layer - expected / 2}),
                "the same identity check refutes half the printed bound")
    ctx.prove("mean σ ≥ 1 and B* ≤ (bound/k')^½ give the ratio bound", "symbolic",
              proof_identity(problem, "(norm bound / k')^(-1/2) = ratio bound"),
              "(1/k')Σσ_l/F_l = (1/B*)(1/k')Σσ_l ≥ 1/B* ≥ (bound/k')^(-1/2), and that equals the printed bound",
              conclusion=algebra)
    seed = int(ctx.rng("random networks").integers(2**32))
    ctx.support("|N(x)| ≤ ‖x‖Π‖W_l‖σ ≤ ‖x‖(mean ‖W_l‖σ)^k'", "numeric", lipschitz_chain(spectral_norm, seed, samples),
                "sampled, not proved: ReLU is 1-Lipschitz with σ(0) = 0 and ‖Wv‖ ≤ ‖W‖σ‖v‖ (first inequality), "
                "AM–GM (second)", conclusion=chain)
    ctx.control("σ_min in place of ‖·‖σ", lipschitz_chain(smallest_singular_value, seed, samples),
                "the same chain with the smallest singular value fails")
    ctx.control(f"‖·‖σ understated by {UNDERSTATEMENT:g}", lipschitz_chain(understated_spectral_norm, seed, samples),
                f"the sharp network's |N(x)| exceeds ‖x‖Π(1 − {UNDERSTATEMENT:g})‖W_l‖σ by about "
                f"{3 * UNDERSTATEMENT:g} (three layers), above the {CHAIN_TOLERANCE:g} allowance")


# the bounds of the certificate, in words: Eq. (3)/(7) (the conclusion) and Eq. (18)/(20) (its norm hypothesis)
EQUATIONS = {
    "interpolation": ("Eq. (3): (1/k') Σ_l ‖W_l‖σ/‖W_l‖F ≥ (1/B)^(k/k')", "Eq. (18): ‖θ‖² ≤ k'B^(2k/k')"),
    "margin": ("Eq. (7): (1/k') Σ_l ‖W_l‖σ/‖W_l‖F ≥ (1/√2)(√2/B)^(k/k') √(k'/(k'+1))",
               "Eq. (20): ‖θ‖² ≤ 2(B²/2)^(k/k')(k'+1)"),
}


@criterion("Eq. (3)/(7) holds on every candidate meeting the asserted hypotheses, and enough candidates meet them")
def certificate_on_candidates(problem: Problem, candidates: list[tuple[int, list[np.ndarray]]], X: np.ndarray,
                              y: np.ndarray, B: float, k: int, require_norm_bound: bool = True,
                              ratio_bound: float | None = None, every_depth: bool = True) -> Decision:
    """``candidates``: (k', layers) pairs. The proof asserts Eq. (3)/(7) on feasible, balanced candidates within
    the norm bound of Eq. (18)/(20); a control may drop the norm hypothesis or replace the ratio bound."""
    certificates = [(kp, certificate(problem, layers, X, y, B, k, ratio_bound_override=ratio_bound))
                    for kp, layers in candidates]
    asserted = [(kp, c) for kp, c in certificates
                if c.feasible and c.balanced and (c.within_norm_bound or not require_norm_bound)]
    violations = [c for _, c in asserted if not c.conclusion]
    depths = {kp for kp, _ in certificates}
    covered = {kp for kp, _ in asserted} == depths if every_depth else bool(asserted)
    detail = (f"{len(candidates)} candidates, Eq. asserted on {len(asserted)}, violated on {len(violations)}; "
              f"coverage ({'every k′' if every_depth else 'some candidate'}): {covered}")
    equation, norm_equation = EQUATIONS[problem]
    records = (tightness(equation, [c.average_ratio for _, c in asserted], [c.ratio_bound for _, c in asserted],
                         sense="lower"),
               tightness(norm_equation, [c.squared_norm for _, c in asserted], [c.norm_bound for _, c in asserted]))
    if violations:
        return Decision(False, detail, {"asserted": len(asserted), "violations": len(violations)}, records)
    return Decision(True if covered else None, detail, {"asserted": len(asserted), "violations": 0}, records)


def certificate_evidence(ctx: Context, problem: Problem, instance: str, found: Sequence[Candidate], X: np.ndarray,
                         y: np.ndarray, B: float, k: int, *, every_depth: bool,
                         conclusion: str | None = None) -> list[tuple[int, list[np.ndarray]]]:
    """Record the certificate of the proof on local optima: Eq. (3)/(7) is asserted only where its three
    hypotheses hold. Passes if none of those violates it and some (with ``every_depth``: some at every k') exist.
    Returns the candidates as (k', layers) for the controls."""
    summary, _ = summarize(problem, found, X, y, B, k)
    depths = sorted({c.kp for c in found})
    pairs = [(c.kp, c.layers) for c in found]
    equation, norm_equation = ("(3)", "(18)") if problem == "interpolation" else ("(7)", "(20)")
    coverage = "at every k'" if every_depth else "exists"
    ctx.support(f"certificate on local optima of {PROBLEM_LABEL[problem]}: {instance}", "numeric",
                certificate_on_candidates(problem, pairs, X, y, B, k, every_depth=every_depth),
                f"{summary.candidates} local optima for k' ∈ {depths}: {summary.feasible} feasible "
                f"(≤ {FEASIBILITY_TOL:g}), {summary.balanced} of these balanced (≤ {BALANCE_TOL:g}), "
                f"{summary.certified} also within the norm bound of Eq. {norm_equation} (up to {NORM_TOL:g}); "
                f"Eq. {equation} is asserted only on those (pass: no violation, and a certified candidate "
                f"{coverage})",
                {"candidates": summary.candidates, "feasible": summary.feasible, "balanced": summary.balanced,
                 "hypotheses_hold": summary.certified, "min_slack": summary.min_slack, "B": B},
                plot=line(f"Eq. {equation}: average spectral-to-Frobenius ratio ({instance})",
                          {"bound": (depths, [float(ratio_bound(problem, B, k, kp)) for kp in depths]),
                           "smallest-norm local optimum": (list(summary.best_average_ratio),
                                                           list(summary.best_average_ratio.values()))},
                          xlabel="depth k'", ylabel="(1/k') Σ ‖W‖σ/‖W‖F"), conclusion=conclusion)
    return pairs
