"""Shared objects of Secs. 4–5 (Thms 4 and 5, App. D and E): teachers, the constructions θ', the bounds, the
certificate the proofs establish, and local solutions of Problems (2) and (6).

Problem (2) ("interpolation"): min ‖θ‖ s.t. N_θ(x_i) = y_i (labels ≥ 0). Problem (6) ("margin"):
min ½‖θ‖² s.t. y_i N_θ(x_i) ≥ 1 (labels ±1). N is a teacher of depth k whose layers have ‖W_l‖_F ≤ B;
the student has depth k' > k. Bounds are sympy expressions in (B, k, k'), so one function serves both the
symbolic proofs (with symbols) and the numerical checks (with numbers, through ``float``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import sympy

from numerics import backend
from numerics.metrics import frobenius_norm, spectral_norm
from numerics.min_norm import MinNormResult, minimum_norm
from numerics.networks import Network, fully_connected, scalar_outputs
from numerics.symbolic import ZeroTest, is_identically_zero
from numerics.tolerances import above, at_most

Problem = Literal["interpolation", "margin"]
PROBLEM_LABEL = {"interpolation": "Problem (2)", "margin": "Problem (6)"}

FEASIBILITY_TOL = 1e-8  # interpolation: max |N − y| / max |y|; margin: max(0, 1 − min_i y_i N(x_i))
BALANCE_TOL = 1e-6  # max_l ‖W_l‖_F / min_l ‖W_l‖_F − 1
# ‖θ‖² ≤ bound·(1 + NORM_TOL): where Eq. (18) is attained (θ' is then a local optimum), local solutions sit on the
# bound up to the solver's accuracy (~1e-11 relative); only that much excess is forgiven
NORM_TOL = 1e-9

# exact unit vectors (Pythagorean triples) for exact-arithmetic instances
PYTHAGOREAN_INPUTS = ((sympy.Rational(3, 5), sympy.Rational(4, 5)),
                      (sympy.Rational(-5, 13), sympy.Rational(12, 13)),
                      (sympy.Rational(-15, 17), sympy.Rational(-8, 17)),
                      (sympy.Rational(24, 25), sympy.Rational(-7, 25)))


# -- teachers ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Teacher:
    """The network N of Thms 4/5: bias-free ReLU layers W_1..W_k (float or exact entries), scalar output."""

    layers: tuple[np.ndarray, ...]

    @property
    def depth(self) -> int:
        return len(self.layers)

    @property
    def widths(self) -> list[int]:
        """d_0 (input), d_1, ..., d_k = 1."""
        return [self.layers[0].shape[1]] + [W.shape[0] for W in self.layers]

    @property
    def width(self) -> int:
        """The paper's width: the largest layer width."""
        return max(self.widths[1:])

    @property
    def frobenius_bound(self) -> sympy.Expr:
        """B = max_l ‖W_l‖_F, exact when the entries are."""
        return sympy.Max(*(sympy.sqrt(sum(sympy.sympify(v) ** 2 for v in W.ravel())) for W in self.layers))

    @property
    def network(self) -> Network:
        return fully_connected(self.widths)

    def outputs(self, X: np.ndarray) -> np.ndarray:
        return scalar_outputs(self.network, parameters(self.layers), X)


def parameters(layers: Sequence[np.ndarray]) -> np.ndarray:
    """Flat θ of a fully-connected network (row-major layers, the layout of :mod:`numerics.networks`)."""
    return np.concatenate([np.asarray(W).ravel() for W in layers])


def absolute_sum_teacher() -> Teacher:
    """N(x) = |x¹| + |x²| (depth 2, width 4, ‖W_1‖_F = ‖W_2‖_F = 2, full-rank first layer)."""
    first = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=object)
    return Teacher((first, np.array([[1, 1, 1, 1]], dtype=object)))


def contrast_teacher(scale: sympy.Expr | int = 1) -> Teacher:
    """N(x) = scale²·(|x¹| − |x²|): outputs of both signs (each layer scaled by ``scale``)."""
    first = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=object) * scale
    return Teacher((first, np.array([[1, 1, -1, -1]], dtype=object) * scale))


def circle_inputs(count: int, offset: float) -> np.ndarray:
    """``count`` unit vectors at angles offset + 2πj/count."""
    angles = offset + 2 * np.pi * np.arange(count) / count
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


# -- bounds and scales (sympy in B, k, k') ------------------------------------------------------------------
def scales(problem: Problem, B: sympy.Expr, k: sympy.Expr, kp: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(α, β) of App. D (interpolation) or App. E (margin)."""
    base = 1 / sympy.sympify(B) if problem == "interpolation" else sympy.sqrt(2) / B
    return base ** ((sympy.sympify(kp) - k) / kp), base ** (-sympy.sympify(k) / kp)


def norm_bound(problem: Problem, B: sympy.Expr, k: sympy.Expr, kp: sympy.Expr) -> sympy.Expr:
    """Right-hand side of Eq. (18) (k'B^{2k/k'}) or Eq. (20) (2(2/B²)^{−k/k'}(k'+1))."""
    k, kp = sympy.sympify(k), sympy.sympify(kp)
    if problem == "interpolation":
        return (1 / sympy.sympify(B) ** 2) ** (-k / kp) * kp
    return 2 * (2 / sympy.sympify(B) ** 2) ** (-k / kp) * (kp + 1)


def construction_norm(problem: Problem, alpha: sympy.Expr, beta: sympy.Expr, B: sympy.Expr, k: sympy.Expr,
                      kp: sympy.Expr) -> sympy.Expr:
    """‖θ'‖² of the construction when every teacher layer has ‖W_l‖_F = B, summed layer by layer as in the
    proofs: k scaled teacher layers and k'−k scalars β (App. D); k−1 scaled layers, the doubled layer α[uᵀ; −uᵀ],
    k'−k−1 layers βI₂ and the row β(1, −1) (App. E)."""
    if problem == "interpolation":
        return k * alpha**2 * B**2 + (kp - k) * beta**2
    return (k - 1) * alpha**2 * B**2 + 2 * alpha**2 * B**2 + (kp - k - 1) * 2 * beta**2 + 2 * beta**2


def ratio_bound(problem: Problem, B: sympy.Expr, k: sympy.Expr, kp: sympy.Expr) -> sympy.Expr:
    """Right-hand side of Eq. (3) ((1/B)^{k/k'}) or Eq. (7) ((1/√2)(√2/B)^{k/k'}√(k'/(k'+1)))."""
    k, kp = sympy.sympify(k), sympy.sympify(kp)
    if problem == "interpolation":
        return (1 / sympy.sympify(B)) ** (k / kp)
    return (sympy.sqrt(2) / B) ** (k / kp) * sympy.sqrt(kp / (kp + 1)) / sympy.sqrt(2)


def harmonic_bound(problem: Problem, B: sympy.Expr, k: sympy.Expr, kp: sympy.Expr) -> sympy.Expr:
    """Right-hand side of Eq. (4) (B^{k/k'}) or Eq. (8) (√2 (B/√2)^{k/k'} √((k'+1)/k'))."""
    k, kp = sympy.sympify(k), sympy.sympify(kp)
    if problem == "interpolation":
        return sympy.sympify(B) ** (k / kp)
    return sympy.sqrt(2) * (B / sympy.sqrt(2)) ** (k / kp) * sympy.sqrt((kp + 1) / kp)


def bound_symbols() -> tuple[sympy.Symbol, sympy.Symbol, sympy.Symbol]:
    """B, k, k' as positive symbols (the identities below hold for all positive reals)."""
    return sympy.symbols("B k k'", positive=True)


def construction_identities(problem: Problem, alpha: sympy.Expr | None = None, beta: sympy.Expr | None = None
                            ) -> dict[str, ZeroTest]:
    """The algebra of the proof as identities in (B, k, k'): α^kβ^{k'−k} = 1 (θ' reproduces N), the layer-by-layer
    ‖θ'‖² equals the bound of Eq. (18)/(20), and the final step (bound/k')^{−1/2} equals the ratio bound.
    ``alpha``/``beta`` (expressions in the same symbols) replace the paper's scales, for negative controls."""
    B, k, kp = bound_symbols()
    paper_alpha, paper_beta = scales(problem, B, k, kp)
    alpha = paper_alpha if alpha is None else alpha
    beta = paper_beta if beta is None else beta
    return {
        "alpha^k beta^(k'-k) = 1": is_identically_zero(sympy.powsimp(alpha**k * beta ** (kp - k), force=True) - 1),
        "||theta'||^2 = norm bound": is_identically_zero(construction_norm(problem, alpha, beta, B, k, kp)
                                                          - norm_bound(problem, B, k, kp)),
        "(norm bound / k')^(-1/2) = ratio bound": is_identically_zero(
            (norm_bound(problem, B, k, kp) / kp) ** sympy.Rational(-1, 2) - ratio_bound(problem, B, k, kp)),
        "ratio bound x harmonic bound = 1": is_identically_zero(
            ratio_bound(problem, B, k, kp) * harmonic_bound(problem, B, k, kp) - 1),
    }


def holds_for_both_signs(expression: sympy.Expr, z: sympy.Symbol) -> ZeroTest:
    """Exact case split for an identity in a real z built from max(0, ·): substitute z = s and z = −s with s ≥ 0
    (sympy then evaluates every max) and test both results for identical vanishing. Returns the failing case, or
    the second case when both vanish."""
    s = sympy.Symbol("s", nonnegative=True)
    positive = is_identically_zero(expression.subs(z, s))
    return positive if not positive.proved else is_identically_zero(expression.subs(z, -s))


def relu(z: sympy.Expr) -> sympy.Expr:
    return sympy.Max(0, z)


# -- the constructions θ' -------------------------------------------------------------------------------------
def construction(problem: Problem, teacher: Teacher, kp: int) -> list[np.ndarray]:
    """θ' of App. D (width-1 tail of scalars β) or App. E (width-2 tail computing σ(N) and σ(−N)).

    Entries are exact when the teacher's are; B is the teacher's largest Frobenius norm."""
    k = teacher.depth
    alpha, beta = scales(problem, teacher.frobenius_bound, k, kp)
    if problem == "interpolation":
        head = [W * alpha for W in teacher.layers]
        tail = [np.array([[beta]], dtype=object) for _ in range(kp - k)]
    else:
        u = teacher.layers[-1]
        head = [W * alpha for W in teacher.layers[:-1]] + [np.concatenate([u, -u]) * alpha]
        identity = np.array([[beta, 0], [0, beta]], dtype=object)
        tail = [identity for _ in range(kp - k - 1)] + [np.array([[beta, -beta]], dtype=object)]
    return head + tail


def padded(layers: Sequence[np.ndarray], widths: Sequence[int]) -> list[np.ndarray]:
    """The layers placed top-left into zero matrices of a student with layer widths ``widths`` (d_0, ..., d_k').

    The extra units receive and send zero weights, so the function and every norm are unchanged."""
    out = []
    for W, rows, cols in zip(layers, widths[1:], widths[:-1]):
        W = np.asarray(W)
        if W.shape[0] > rows or W.shape[1] > cols:
            raise ValueError(f"a {W.shape} layer does not fit into {rows} × {cols}")
        P = np.zeros((rows, cols), dtype=W.dtype)
        P[:W.shape[0], :W.shape[1]] = W
        out.append(P)
    return out


def balanced(layers: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each layer rescaled by c_l > 0 with Π c_l = 1 so that all Frobenius norms are equal (float).

    Positive homogeneity of ReLU keeps the network function unchanged."""
    norms = np.array([frobenius_norm(W) for W in layers])
    common = float(np.exp(np.mean(np.log(norms))))
    return [np.asarray(backend.to_float(W)) * (common / norm) for W, norm in zip(layers, norms)]


def identity_padded(teacher: Teacher, kp: int, width: int) -> list[np.ndarray]:
    """[W_1, ..., W_{k−1}, I_width, ..., I_width, W_k] (k'−k identities, zero-padded), balanced (float).

    It computes N exactly (the identities act on ReLU outputs, which are ≥ 0) with high-rank middle layers:
    feasible and balanced, but with a large norm, so it violates the norm hypothesis of the certificate."""
    widths = teacher.widths
    inner = [np.eye(width) for _ in range(kp - teacher.depth)]
    head = padded(teacher.layers[:-1], widths[:-2] + [width])
    last = padded(teacher.layers[-1:], [width, 1])
    return balanced(head + inner + last)


# -- layer norms and the certificate ----------------------------------------------------------------------
@dataclass(frozen=True)
class LayerNorms:
    frobenius: np.ndarray
    spectral: np.ndarray

    @property
    def ratios(self) -> np.ndarray:
        """‖W_l‖_σ / ‖W_l‖_F (nan for a zero layer: such a network computes 0 and is never a candidate)."""
        return np.divide(self.spectral, self.frobenius, out=np.full_like(self.spectral, np.nan),
                         where=self.frobenius > 0)

    @property
    def average_ratio(self) -> float:
        """Left-hand side of Eq. (3)/(7)."""
        return float(np.mean(self.ratios))

    @property
    def balance_gap(self) -> float:
        smallest = self.frobenius.min()
        return float(self.frobenius.max() / smallest - 1) if smallest > 0 else math.inf

    @property
    def squared_norm(self) -> float:
        return float(np.sum(self.frobenius**2))

    @property
    def mean_spectral(self) -> float:
        return float(np.mean(self.spectral))


def layer_norms(layers: Sequence[np.ndarray]) -> LayerNorms:
    return LayerNorms(np.array([frobenius_norm(W) for W in layers]), np.array([spectral_norm(W) for W in layers]))


def feasibility_gap(problem: Problem, outputs: np.ndarray, y: np.ndarray) -> float:
    """Interpolation: max |N − y| / max |y|; margin: max(0, 1 − min_i y_i N(x_i))."""
    if problem == "interpolation":
        return float(np.max(np.abs(outputs - y)) / np.max(np.abs(y)))
    return float(max(0.0, 1.0 - np.min(y * outputs)))


@dataclass(frozen=True)
class Certificate:
    """What the proof of Thm 4/5 establishes about one parameter vector: if it is feasible for Problem (2)/(6),
    balanced, and ‖θ‖² ≤ the bound of Eq. (18)/(20), then Eq. (3)/(7) holds."""

    feasibility_gap: float
    balance_gap: float
    squared_norm: float
    norm_bound: float
    average_ratio: float
    ratio_bound: float

    @property
    def feasible(self) -> bool:
        return at_most(self.feasibility_gap, FEASIBILITY_TOL)

    @property
    def balanced(self) -> bool:
        return at_most(self.balance_gap, BALANCE_TOL)

    @property
    def within_norm_bound(self) -> bool:
        return at_most(self.squared_norm, self.norm_bound * (1 + NORM_TOL))

    @property
    def hypotheses(self) -> bool:
        return self.feasible and self.balanced and self.within_norm_bound

    @property
    def conclusion(self) -> bool:
        """Eq. (3)/(7), strictly as printed."""
        return self.average_ratio >= self.ratio_bound


def certificate(problem: Problem, layers: Sequence[np.ndarray], X: np.ndarray, y: np.ndarray, B: float, k: int,
                ratio_bound_override: float | None = None) -> Certificate:
    """The certificate of ``layers`` (a student of depth len(layers)) for teacher bound B and teacher depth k.

    ``ratio_bound_override`` replaces the right-hand side of Eq. (3)/(7) (negative controls)."""
    kp = len(layers)
    float_layers = [np.asarray(backend.to_float(W)) for W in layers]
    norms = layer_norms(float_layers)
    network = fully_connected([float_layers[0].shape[1]] + [W.shape[0] for W in float_layers])
    outputs = scalar_outputs(network, parameters(float_layers), np.asarray(X, dtype=float))
    bound = float(ratio_bound(problem, B, k, kp)) if ratio_bound_override is None else ratio_bound_override
    return Certificate(feasibility_gap(problem, outputs, np.asarray(y, dtype=float)), norms.balance_gap,
                       norms.squared_norm, float(norm_bound(problem, B, k, kp)), norms.average_ratio, bound)


# -- local solutions of Problems (2) and (6) ----------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """A local solution of Problem (2)/(6) found from one start."""

    start: str  # "warm" (θ' plus noise) or "random" (He initialization)
    kp: int
    result: MinNormResult
    layers: list[np.ndarray]


def student_widths(d_in: int, width: int, kp: int) -> list[int]:
    """Layer widths (d_0, ..., d_k') of a student of depth k' whose hidden layers all have width ``width``."""
    return [d_in] + [width] * (kp - 1) + [1]


def student(d_in: int, width: int, kp: int) -> Network:
    return fully_connected(student_widths(d_in, width, kp))


def he_initialization(rng: np.random.Generator, net: Network) -> np.ndarray:
    return np.concatenate([rng.normal(size=layer.n_params) * np.sqrt(2 / layer.shape[1]) for layer in net.layers])


def local_solutions(problem: Problem, teacher: Teacher, X: np.ndarray, y: np.ndarray, kp: int, width: int,
                    rng: np.random.Generator, *, warm_starts: int, random_starts: int,
                    noise: float = 1e-2) -> list[Candidate]:
    """Local solutions of Problem (2)/(6) for a student of depth k' and hidden width ``width``, from
    ``warm_starts`` perturbations of the zero-padded construction θ' and ``random_starts`` He initializations."""
    net = student(X.shape[1], width, kp)
    theta_prime = np.asarray(backend.to_float(parameters(padded(construction(problem, teacher, kp),
                                                                student_widths(X.shape[1], width, kp)))))
    starts = [("warm", theta_prime + noise * rng.normal(size=net.n_params)) for _ in range(warm_starts)]
    starts += [("random", he_initialization(rng, net)) for _ in range(random_starts)]
    out = []
    for label, theta0 in starts:
        result = minimum_norm(net, X, y, problem, theta0)
        out.append(Candidate(label, kp, result, net.matrices(result.theta)))
    return out


@dataclass(frozen=True)
class CertificateSummary:
    """The certificate over the candidates of one or more depths k'."""

    candidates: int
    feasible: int
    balanced: int  # feasible and balanced
    certified: int  # feasible, balanced and within the norm bound: the hypotheses hold
    violations: int  # candidates meeting the hypotheses whose conclusion fails (must be 0)
    depths_without_certified: tuple[int, ...]  # k' for which no candidate met the hypotheses
    min_slack: float  # min over certified candidates of average ratio − ratio bound
    ratio_tightness: float  # max over certified candidates of ratio bound / average ratio (1 = attained)
    norm_tightness: float  # min over feasible candidates of ‖θ‖² / norm bound (Eq. (18)/(20); 1 = attained)
    best_average_ratio: dict[int, float]  # per k': average ratio of the smallest-norm feasible candidate


def summarize(problem: Problem, candidates: Sequence[Candidate], X: np.ndarray, y: np.ndarray, B: float,
              k: int) -> tuple[CertificateSummary, list[Certificate]]:
    certificates = [certificate(problem, c.layers, X, y, B, k) for c in candidates]
    feasible = [(c, cert) for c, cert in zip(candidates, certificates) if cert.feasible]
    certified = [cert for cert in certificates if cert.hypotheses]
    depths = sorted({c.kp for c in candidates})
    best: dict[int, float] = {}
    for kp in depths:
        at_depth = [cert for c, cert in feasible if c.kp == kp]
        if at_depth:
            best[kp] = min(at_depth, key=lambda cert: cert.squared_norm).average_ratio
    certified_depths = {c.kp for c, cert in zip(candidates, certificates) if cert.hypotheses}
    summary = CertificateSummary(
        candidates=len(candidates), feasible=len(feasible),
        balanced=sum(cert.balanced for _, cert in feasible), certified=len(certified),
        violations=sum(not cert.conclusion for cert in certified),
        depths_without_certified=tuple(kp for kp in depths if kp not in certified_depths),
        min_slack=min((cert.average_ratio - cert.ratio_bound for cert in certified), default=float("nan")),
        ratio_tightness=max((cert.ratio_bound / cert.average_ratio for cert in certified), default=float("nan")),
        norm_tightness=min((cert.squared_norm / cert.norm_bound for _, cert in feasible), default=float("nan")),
        best_average_ratio=best)
    return summary, certificates


def fitted_teacher(X: np.ndarray, y: np.ndarray, width: int, rng: np.random.Generator, starts: int) -> Teacher:
    """A depth-2 teacher for labels ±1: the smallest-norm local solution of Problem (6) at depth 2 from
    ``starts`` He initializations, scaled to minimum margin exactly 1 (at least 1 in float) and balanced."""
    net = student(X.shape[1], width, 2)
    best = min((minimum_norm(net, X, y, "margin", he_initialization(rng, net)) for _ in range(starts)),
               key=lambda r: (above(r.violation, FEASIBILITY_TOL), r.squared_norm))
    layers = balanced(net.matrices(best.theta))
    margin = float(np.min(y * scalar_outputs(net, parameters(layers), X)))
    scale = margin ** -0.5 * (1 + 1e-12)  # the margin scales like scale²; the factor absorbs rounding
    return Teacher(tuple(W * scale for W in layers))
