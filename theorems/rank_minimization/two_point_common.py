"""Shared objects of paper 000, Sec. 3 and Apps. A–C: two inputs in R², a width-2 depth-2 ReLU network with two
outputs, the regions of Definition 1, the constants of Thms 2–3 and Lemma 6, and the exact solution of gradient
flow while each neuron serves its own input (the reduced ODE behind Lemmas 12–13, App. C).

Conventions. X and Y hold x_1, x_2 and y_1, y_2 as rows (the network convention; the paper uses columns).
θ = (W, V) flattened row-major: neuron i has incoming weights w_i = W[i, :] and outgoing weights v_i = V[:, i].
Functions run on float64 arrays and on object arrays of sympy (exact) or mpmath numbers; formulas that need
sqrt, exp or trigonometry take a :class:`Functions` namespace (``FLOAT``, ``MPMATH``, ``EXACT`` or ``BALL``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import mpmath
import numpy as np
import sympy
from flint import arb, fmpq

from numerics import backend as B
from numerics import exact as E
from numerics.flows import FlowStatus, GradientFlow, Trajectory, loss_below
from numerics.losses import Objective
from numerics.metrics import angle
from numerics.networks import fully_connected
from numerics.tolerances import at_most, below

NETWORK = fully_connected([2, 2, 2])  # W: 2 hidden × 2 inputs, V: 2 outputs × 2 hidden, σ'(0) = 0
EXACT_ZERO_TOLERANCE = 1e-12  # float64 residuals counted as 0 when deciding the oracle's regime
MPMATH_SLACK_DIGITS = 5  # mpmath residuals up to 10^(slack − dps) count as 0: a few operations' rounding

# -- number systems ---------------------------------------------------------------------------------------
Functions = SimpleNamespace
FLOAT = Functions(num=lambda p, q=1: p / q, sqrt=np.sqrt, exp=np.exp, sin=np.sin, cos=np.cos, asin=np.arcsin,
                  atan=np.arctan, sign=np.sign, pi=np.pi, min=np.minimum, max=np.maximum)
MPMATH = Functions(num=lambda p, q=1: mpmath.mpf(p) / q, sqrt=mpmath.sqrt, exp=mpmath.exp, sin=mpmath.sin,
                   cos=mpmath.cos, asin=mpmath.asin, atan=mpmath.atan, sign=mpmath.sign, pi=mpmath.pi, min=min,
                   max=max)
EXACT = Functions(num=sympy.Rational, sqrt=sympy.sqrt, exp=sympy.exp, sin=sympy.sin, cos=sympy.cos, asin=sympy.asin,
                  atan=sympy.atan, sign=sympy.sign, pi=sympy.pi, min=sympy.Min, max=sympy.Max)
BALL = Functions(num=lambda p, q=1: arb(fmpq(p, q)), sqrt=arb.sqrt, exp=arb.exp, sin=arb.sin, cos=arb.cos,
                 asin=arb.asin, atan=arb.atan, sign=arb.sgn, pi=arb.pi(), min=arb.min,
                 max=arb.max)  # python-flint balls; π is a 53-bit ball, valid (if no tighter) at any precision


def functions_for(x: Any) -> Functions:
    """The namespace matching the number system of x (an array, or a scalar)."""
    sample = np.asarray(x, dtype=object).ravel()[0] if np.ndim(x) else x
    if isinstance(sample, arb):
        return BALL
    if isinstance(sample, sympy.Basic):
        return EXACT
    if isinstance(sample, mpmath.mpf):
        return MPMATH
    return FLOAT


# -- datasets ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TwoPoints:
    """A labeled dataset of Sec. 3: inputs x_1, x_2 (rows of X) and targets y_1, y_2 (rows of Y)."""

    X: np.ndarray
    Y: np.ndarray
    label: str = ""

    @property
    def phi(self) -> float:
        """∠(x_1, x_2) in float64."""
        return angle(self.X[0], self.X[1])

    @property
    def objective(self) -> Objective:
        """The square loss of Eq. (1), L = ½ Σ_i ‖N(x_i) − y_i‖²."""
        return Objective(NETWORK, self.X, self.Y, "square")

    def as_float(self) -> TwoPoints:
        return TwoPoints(B.to_float(self.X), B.to_float(self.Y), self.label)


def symmetric_inputs(sin_half: Any, cos_half: Any) -> np.ndarray:
    """Rows x_1 = (s, c), x_2 = (−s, c): unit vectors at angle 2·atan2(s, c) when s² + c² = 1, mirror images in
    the vertical axis (the frame of the radius counterexample, rank.cex.thm2-radius)."""
    return np.array([[sin_half, cos_half], [-sin_half, cos_half]])


GRID_ANGLES = (1.6, 2.0, 2.5, 3.0)  # the suite's φ grid for Thms 2–3 (targets unit, independent, not orthogonal)


def paper_data(exact: bool = False) -> TwoPoints:
    """Sec. 3.1: x_1 ∝ (1, 0.99), x_2 ∝ (−1, 0.99), y_i = e_i (here in exact radicals if ``exact``)."""
    if exact:
        norm = sympy.sqrt(19801) / 100
        X = symmetric_inputs(1 / norm, sympy.Rational(99, 100) / norm)
        return TwoPoints(X, np.array([[sympy.Integer(1), sympy.Integer(0)], [sympy.Integer(0), sympy.Integer(1)]]),
                         "Sec. 3.1 data (exact)")
    norm = np.hypot(1.0, 0.99)
    return TwoPoints(symmetric_inputs(1 / norm, 0.99 / norm), np.eye(2), "Sec. 3.1 data")


def grid_data(phi: Any, f: Functions = FLOAT) -> TwoPoints:
    """Inputs at angle φ and the grid targets e_1, (cos 0.7, sin 0.7), unit to the precision of ``f``."""
    turn = f.num(7, 10)
    targets = np.array([[f.num(1), f.num(0)], [f.cos(turn), f.sin(turn)]])
    return TwoPoints(symmetric_inputs(f.sin(phi / 2), f.cos(phi / 2)), targets, f"φ = {float(phi):g}")


def grid_datasets(angles: tuple[float, ...] = GRID_ANGLES) -> list[TwoPoints]:
    """The paper's dataset and the suite's angle grid (targets e_1, (cos 0.7, sin 0.7))."""
    return [paper_data()] + [grid_data(phi) for phi in angles]


def pythagorean_data(sin_half: sympy.Rational, cos_half: sympy.Rational, Y: Any = None) -> TwoPoints:
    """Rational unit inputs at angle 2·atan(s/c) (s² + c² = 1), exact; targets default to the identity."""
    sin_half, cos_half = sympy.Rational(sin_half), sympy.Rational(cos_half)
    if sin_half ** 2 + cos_half ** 2 != 1:
        raise ValueError(f"sin(φ/2) = {sin_half}, cos(φ/2) = {cos_half}: their squares must sum to 1")
    X = symmetric_inputs(sin_half, cos_half)
    Y = np.array(Y if Y is not None else [[1, 0], [0, 1]], dtype=object)
    return TwoPoints(X, E.to_exact(Y), f"exact, sin(φ/2) = {sin_half}")


# -- parameters -------------------------------------------------------------------------------------------
def pack(W: Any, V: Any) -> np.ndarray:
    """θ from W (rows w_i) and V (columns v_i); a leading run axis is kept."""
    W, V = np.asarray(W), np.asarray(V)
    return np.concatenate([W.reshape(*W.shape[:-2], 4), V.reshape(*V.shape[:-2], 4)], axis=-1)


def unpack(theta: Any) -> tuple[np.ndarray, np.ndarray]:
    """(W, V) of θ (also for a leading run axis)."""
    theta = np.asarray(theta)
    return theta[..., :4].reshape(*theta.shape[:-1], 2, 2), theta[..., 4:].reshape(*theta.shape[:-1], 2, 2)


def neurons(theta: Any) -> tuple[np.ndarray, np.ndarray]:
    """(w, v) with w[..., i, :] = w_i and v[..., i, :] = v_i."""
    W, V = unpack(theta)
    return W, np.swapaxes(V, -1, -2)


def from_neurons(w: Any, v: Any) -> np.ndarray:
    return pack(w, np.swapaxes(np.asarray(v), -1, -2))


# -- regions (Definition 1) -------------------------------------------------------------------------------
DEAD, BOTH, FIRST, SECOND = "D", "S", "S1", "S2"


def activation_signs(w: Any, X: Any) -> np.ndarray:
    """Signs of (wᵀx_1, wᵀx_2) (last axis), exact for object arrays."""
    z = np.asarray(w) @ np.asarray(X).T
    return E.signs(z) if np.asarray(z).dtype == object else np.sign(z).astype(int)


def region(w: Any, X: Any) -> np.ndarray:
    """Definition 1 for each w (last axis): S if active on both inputs, S_j if active on x_j only, else D."""
    s = activation_signs(w, X)
    first, second = s[..., 0] > 0, s[..., 1] > 0
    return np.where(first & second, BOTH, np.where(first, FIRST, np.where(second, SECOND, DEAD)))


def open_sector(w: Any, X: Any) -> np.ndarray:
    """j ∈ {1, 2} where w ∈ S_j° (wᵀx_j > 0 > wᵀx_{3−j}), else 0."""
    s = activation_signs(w, X)
    return np.where((s[..., 0] > 0) & (s[..., 1] < 0), 1, np.where((s[..., 1] > 0) & (s[..., 0] < 0), 2, 0))


def in_private_sectors(theta: Any, X: Any) -> np.ndarray:
    """θ has (w_1, w_2) ∈ S_1°×S_2° or S_2°×S_1°: each input has its own neuron (the event of Thm 3's proof)."""
    sectors = open_sector(neurons(theta)[0], X)
    return (sectors[..., 0] > 0) & (sectors[..., 1] > 0) & (sectors[..., 0] != sectors[..., 1])


# -- constants of Thms 2–3 and Lemma 6 (φ = ∠(x_1, x_2)) ----------------------------------------------------
def thm2_radius(phi: Any, f: Functions = FLOAT) -> Any:
    """min{1/2, (√3/2) cos(φ/2)}: Thm 2's bound on ‖w_i(0)‖."""
    return f.min(f.sqrt(f.num(3)) / 2 * f.cos(phi / 2), f.num(1, 2))


def thm3_radius_terms(phi: Any, f: Functions = FLOAT) -> tuple[Any, Any]:
    """The two terms (√3/2) sin((π − φ)/4) and (√3/2) sin(φ − π/2) of Thm 3's radius."""
    half_root3 = f.sqrt(f.num(3)) / 2
    return half_root3 * f.sin((f.pi - phi) / 4), half_root3 * f.sin(phi - f.pi / 2)


def thm3_radius(phi: Any, f: Functions = FLOAT) -> Any:
    return f.min(*thm3_radius_terms(phi, f))


def thm3_norm_lower(f: Functions = FLOAT) -> Any:
    """√3/2: the lower end of Thm 3 (ii)."""
    return f.sqrt(f.num(3, 4))


def thm3_norm_upper(phi: Any, f: Functions = FLOAT) -> Any:
    """sqrt(1/4 + 4/(3 sin² φ)): the upper end of Thm 3 (ii)."""
    return f.sqrt(f.num(1, 4) + 4 / (3 * f.sin(phi) ** 2))


def thm3_deviation_interval(phi: Any, f: Functions = FLOAT) -> tuple[Any, Any]:
    """[(π − 2φ)/2, (π − φ)/4]: each of two mirrored neurons at angle δ from its input (their angle φ + 2δ) meets
    Thm 3 (i) exactly when δ lies here."""
    return (f.pi - 2 * phi) / 2, (f.pi - phi) / 4


def thm3_angle_interval(phi: Any, f: Functions = FLOAT) -> tuple[Any, Any]:
    """[π − φ, π/2 + φ/2]: Thm 3 (i), the angle φ + 2δ at the ends of :func:`thm3_deviation_interval`."""
    low, high = thm3_deviation_interval(phi, f)
    return phi + 2 * low, phi + 2 * high


def thm3_probability(phi: Any, f: Functions = FLOAT) -> Any:
    """2 (φ/2π)²: Thm 3's lower bound on Pr[E]."""
    return 2 * (phi / (2 * f.pi)) ** 2


def lemma6_norm_upper(phi: Any, w0_norm: Any, f: Functions = FLOAT) -> Any:
    """sqrt(1/4 + 4/(3 cos² max{arcsin(2‖w_i(0)‖/√3), φ − π/2})): the upper end of Lemma 6's norm interval."""
    deviation = f.max(f.asin(2 * w0_norm / f.sqrt(f.num(3))), phi - f.pi / 2)
    return f.sqrt(f.num(1, 4) + 4 / (3 * f.cos(deviation) ** 2))


def lemma6_angle_interval(phi: Any, max_w0_norm: Any, f: Functions = FLOAT) -> tuple[Any, Any]:
    """[π − φ, φ + 2 arcsin(2 max_i‖w_i(0)‖/√3)): Lemma 6's angle interval (open at the top)."""
    return f.pi - phi, phi + 2 * f.asin(2 * max_w0_norm / f.sqrt(f.num(3)))


# -- the reduced flow inside S_1°×S_2° (App. C) ---------------------------------------------------------------
def reduced_field(a: Any, b: Any) -> tuple[Any, Any]:
    """(ȧ, ḃ) = (b(1 − ab), a(1 − ab)) for a = w_iᵀx_i, b = v_iᵀy_i (unit x_i, y_i, v_i ∈ span{y_i})."""
    gap = 1 - a * b
    return b * gap, a * gap


def reduced_state(a0: Any, b0: Any, t: Any, f: Functions | None = None) -> tuple[Any, Any]:
    """Exact solution (a(t), b(t)) of the reduced ODE from (a0, b0) with a0 + b0 ≠ 0.

    c = a² − b² is conserved; s = (a + b)² solves ṡ = (4s − s² + c²)/2 with roots s± = 2 ± Λ, Λ = sqrt(4 + c²);
    then a = (u + c/u)/2, b = (u − c/u)/2 with u = sign(a0 + b0)·sqrt(s). ``t`` may be an array (float) and
    the limit is :func:`reduced_limit`.
    """
    f = f or functions_for(a0)
    c = a0 * a0 - b0 * b0
    root = f.sqrt(4 + c * c)
    s_plus, s_minus = 2 + root, 2 - root
    u0 = a0 + b0
    s0 = u0 * u0
    decay = (s0 - s_plus) / (s0 - s_minus) * f.exp(-root * t)
    s = (s_plus - s_minus * decay) / (1 - decay)
    u = f.sqrt(s) * f.sign(u0)
    return (u + c / u) / 2, (u - c / u) / 2


def reduced_limit(a0: Any, b0: Any, f: Functions | None = None) -> tuple[Any, Any]:
    """(a_∞, b_∞) for a0 + b0 > 0: a_∞² = (c + sqrt(c² + 4))/2 with c = a0² − b0², and b_∞ = 1/a_∞."""
    f = f or functions_for(a0)
    c = a0 * a0 - b0 * b0
    a_limit = f.sqrt((c + f.sqrt(c * c + 4)) / 2)
    return a_limit, 1 / a_limit


@dataclass(frozen=True)
class ServingNeuron:
    """Neuron i in S_j° serving input j alone: w_i = p + a x_j (p ⊥ x_j), v_i = b y_j."""

    point: int  # j, 0-based
    p: np.ndarray
    a: Any
    b: Any


def serving_neurons(theta: Any, data: TwoPoints) -> list[ServingNeuron] | None:
    """The reduced coordinates of θ, or None when θ is outside the oracle's regime.

    The regime (where :func:`oracle` is gradient flow exactly): unit inputs and targets, each neuron in its own
    open sector S_j°, v_i = b y_j with b ≥ 0 and ab ≤ 1 for a = w_iᵀx_j (then a never decreases, so w_i only
    moves away from the other input and the flow stays in S_1°×S_2°).
    """
    w, v = neurons(theta)
    sectors = open_sector(w, data.X)
    if sorted(int(s) for s in sectors) != [1, 2]:
        return None
    served = []
    for i in range(2):
        j = int(sectors[i]) - 1
        x, y = data.X[j], data.Y[j]
        a, b = w[i] @ x, v[i] @ y
        p, off_span = w[i] - a * x, v[i] - b * y
        if not negligible(off_span, 1 + abs(b)) or b < 0 or a * b > 1:
            return None
        served.append(ServingNeuron(j, p, a, b))
    return served


def zero_tolerance(sample: Any) -> Any:
    """The largest |entry| (at scale 1) that :func:`negligible` counts as 0 in ``sample``'s number system: 0 for
    sympy numbers, 10^(MPMATH_SLACK_DIGITS − dps) for mpmath at the working precision, else EXACT_ZERO_TOLERANCE."""
    if isinstance(sample, sympy.Basic):
        return 0
    if isinstance(sample, mpmath.mpf):
        return mpmath.mpf(10) ** (MPMATH_SLACK_DIGITS - mpmath.mp.dps)
    return EXACT_ZERO_TOLERANCE


def negligible(values: Any, scale: Any = 1) -> bool:
    """All entries 0: exactly for sympy numbers, up to :func:`zero_tolerance` × ``scale`` for mpmath and float64."""
    values = np.asarray(values)
    sample = values.ravel()[0]
    if isinstance(sample, sympy.Basic):
        return not np.any(E.signs(values))
    return at_most(max(abs(value) for value in values.ravel()), zero_tolerance(sample) * scale)


def oracle(theta0: Any, data: TwoPoints, t: Any = None) -> np.ndarray:
    """θ(t) of gradient flow in closed form; θ(∞) when t is None.

    Valid in the regime of :func:`serving_neurons` (raises ValueError outside it); exact for object arrays.
    """
    served = serving_neurons(theta0, data)
    if served is None:
        raise ValueError("θ(0) is outside the closed-form regime (each neuron in its own S_j°, v_i = b y_j, b ≥ 0, "
                         "ab ≤ 1)")
    rows_w, rows_v = [], []
    for neuron in served:
        a, b = reduced_limit(neuron.a, neuron.b) if t is None else reduced_state(neuron.a, neuron.b, t)
        rows_w.append(neuron.p + a * data.X[neuron.point])
        rows_v.append(b * data.Y[neuron.point])
    return from_neurons(np.array(rows_w), np.array(rows_v))


# -- gradient flow and descent runs -------------------------------------------------------------------------
def flow_run(data: TwoPoints, theta0: np.ndarray, t_end: float = 300.0, loss_tol: float = 1e-14) -> Trajectory:
    """Gradient flow (LSODA, region events) until L < loss_tol or t_end."""
    objective = data.objective
    return GradientFlow(objective).solve(theta0, t_end, stop=[loss_below(objective, loss_tol)])


@dataclass(frozen=True)
class FlowEnds:
    """Where gradient flows from a batch of initializations stopped."""

    initial: np.ndarray  # runs × 8
    final: np.ndarray  # runs × 8
    loss: np.ndarray
    crossings: np.ndarray  # kink crossings per run
    sliding: np.ndarray  # the flow slid along a kink (not continued; such runs decide nothing)

    def converged(self, loss_tol: float) -> np.ndarray:
        return below(self.loss, loss_tol) & ~self.sliding


def flow_ends(data: TwoPoints, thetas: np.ndarray, t_end: float = 300.0, loss_tol: float = 1e-14) -> FlowEnds:
    """:func:`flow_run` from every row of ``thetas``."""
    runs = [flow_run(data, theta, t_end, loss_tol) for theta in thetas]
    objective = data.objective
    return FlowEnds(np.asarray(thetas), np.array([r.final for r in runs]),
                    np.array([float(objective.value(r.final)) for r in runs]),
                    np.array([r.n_crossings for r in runs]),
                    np.array([r.status is FlowStatus.SLIDING for r in runs]))


def uniform_directions(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Unit vectors in R², uniform on the circle (last axis of size 2)."""
    angles = rng.uniform(0.0, 2 * np.pi, size=shape)
    return np.stack([np.cos(angles), np.sin(angles)], axis=-1)


NormSampler = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]


def uniform_norms(high: float, low: float = 0.0) -> NormSampler:
    return lambda rng, shape: rng.uniform(low, high, shape)


def fixed_norm(radius: float) -> NormSampler:
    return lambda rng, shape: np.full(shape, radius)


def random_inits(rng: np.random.Generator, runs: int, w_norms: NormSampler, v_norms: NormSampler) -> np.ndarray:
    """runs × 8 initializations: every w_i, v_i an independent uniform direction times a norm drawn by the
    given samplers (each called with the shape (runs, 2))."""
    w = uniform_directions(rng, (runs, 2)) * w_norms(rng, (runs, 2))[..., None]
    v = uniform_directions(rng, (runs, 2)) * v_norms(rng, (runs, 2))[..., None]
    return from_neurons(w, v)


# -- limits: rank, angle, norms ----------------------------------------------------------------------------
def row_angle(W: np.ndarray) -> np.ndarray:
    """∠(w_1, w_2) for each W of a batch (runs × 2 × 2), accurate near 0 and π."""
    W = np.asarray(W, dtype=float).reshape(-1, 2, 2)
    return np.array([angle(M[0], M[1]) for M in W])


def relative_sigma_min(W: np.ndarray) -> np.ndarray:
    """σ_2(W)/σ_1(W) for each W of a batch."""
    values = np.linalg.svd(np.asarray(W, dtype=float).reshape(-1, 2, 2), compute_uv=False)
    return values[:, 1] / values[:, 0]


def thm3_event(thetas: np.ndarray, losses: np.ndarray, phi: float, loss_tol: float) -> np.ndarray:
    """Thm 3's event E at the final iterates: zero loss (< loss_tol), (i) the angle of the rows of W in
    [π − φ, π/2 + φ/2] and (ii) every row norm in (√3/2, sqrt(1/4 + 4/(3 sin² φ)))."""
    W, _ = unpack(np.asarray(thetas, dtype=float).reshape(-1, 8))
    low, high = thm3_angle_interval(phi)
    norms = np.linalg.norm(W, axis=-1)
    good_norms = np.all((norms > thm3_norm_lower()) & (norms < thm3_norm_upper(phi)), axis=-1)
    nonzero = np.all(norms > 0, axis=-1)
    angles = np.full(len(W), np.nan)  # the angle is undefined (and E false) when a row is 0
    angles[nonzero] = row_angle(W[nonzero])  # read apart from (ii), so each condition decides E on its own
    return below(np.asarray(losses), loss_tol) & good_norms & (angles >= low) & (angles <= high)


# -- the network on a fixed activation pattern, in symbols ---------------------------------------------------
@dataclass(frozen=True)
class PatternModel:
    """N_{W,V} with every entry a symbol and the ReLU replaced by a fixed 0/1 pattern ``active`` (neurons ×
    inputs): σ(WX) = active ⊙ (WX), σ'(WX) = active. Matrices use the paper's column convention (Xc has the
    inputs as columns, Yc the targets). Where no pre-activation is 0 this is the network itself; at a kink it is
    the network with σ'(0) = 0 whenever ``active`` is 0 there."""

    active: sympy.Matrix
    W: sympy.Matrix
    V: sympy.Matrix
    Xc: sympy.Matrix
    Yc: sympy.Matrix

    @staticmethod
    def build(active: Any = None) -> PatternModel:
        """The model on a 0/1 pattern; ``None`` gives a pattern of free symbols d_ij, which covers all of them."""

        def matrix(name: str) -> sympy.Matrix:
            return sympy.Matrix(2, 2, lambda r, c: sympy.Symbol(f"{name}{r + 1}{c + 1}", real=True))

        return PatternModel(matrix("d") if active is None else sympy.Matrix(active), matrix("w"), matrix("v"),
                            matrix("x"), matrix("y"))

    @property
    def hidden(self) -> sympy.Matrix:
        return self.active.multiply_elementwise(self.W * self.Xc)

    @property
    def residual(self) -> sympy.Matrix:
        """N(X) − Y, one column per input (column j is ϕ_j in App. C's notation when neuron j serves x_j)."""
        return self.V * self.hidden - self.Yc

    @property
    def loss(self) -> sympy.Expr:
        return sum(r**2 for r in self.residual) / 2

    @property
    def parameters(self) -> list[sympy.Symbol]:
        return list(self.W) + list(self.V)

    def gradient(self, loss: sympy.Expr | None = None) -> tuple[sympy.Matrix, sympy.Matrix]:
        """(∂L/∂W, ∂L/∂V) by differentiation of ``loss`` (default: L)."""
        loss = self.loss if loss is None else loss
        return self.W.applyfunc(lambda s: sympy.diff(loss, s)), self.V.applyfunc(lambda s: sympy.diff(loss, s))

    def paper_gradient(self) -> tuple[sympy.Matrix, sympy.Matrix]:
        """Lemma 7's formulas: ∂L/∂W = (σ'(WX) ⊙ Vᵀ(Vσ(WX) − Y))Xᵀ, ∂L/∂V = (Vσ(WX) − Y)σ(WX)ᵀ."""
        return (self.active.multiply_elementwise(self.V.T * self.residual) * self.Xc.T,
                self.residual * self.hidden.T)

    def flow_derivative(self, quantity: sympy.Expr) -> sympy.Expr:
        """d/dt quantity along gradient flow dθ/dt = −∇L on this pattern."""
        gW, gV = self.gradient()
        return -sum(sympy.diff(quantity, s) * g for s, g in zip(self.parameters, list(gW) + list(gV)))

    def w(self, i: int) -> sympy.Matrix:
        return self.W[i, :].T

    def v(self, i: int) -> sympy.Matrix:
        return self.V[:, i]

    def x(self, j: int) -> sympy.Matrix:
        return self.Xc[:, j]

    def y(self, j: int) -> sympy.Matrix:
        return self.Yc[:, j]


PRIVATE = ((1, 0), (0, 1))  # neuron i active on x_i only: (w_1, w_2) ∈ S_1°×S_2°


# -- Thm 1's rank-one interpolant (App. A) -----------------------------------------------------------------
def fit_output_layer(W: Any, data: TwoPoints) -> np.ndarray:
    """The least-squares output layer V = Y σ(WX)^† (Lemma 2's choice, in the row convention), exact for object
    arrays; with σ(WX) of full rank it interpolates."""
    H = (np.asarray(data.X) @ np.asarray(W).T) * B.positive(np.asarray(data.X) @ np.asarray(W).T)
    if np.asarray(H).dtype == object:
        pinv = np.array(sympy.Matrix(H).pinv().applyfunc(sympy.simplify).tolist(), dtype=object)
    else:
        pinv = np.linalg.pinv(H)
    return (pinv @ np.asarray(data.Y)).T


def rank_one_hidden_layer(X: Any) -> np.ndarray:
    """App. A: w_1 = x_1/‖x_1‖ − x_2/‖x_2‖ and w_2 = −w_1 (so rank W = 1 unless w_1 = 0)."""
    f = functions_for(X)
    first = X[0] / f.sqrt(X[0] @ X[0]) - X[1] / f.sqrt(X[1] @ X[1])
    return np.array([first, -first])


def rank_one_interpolant(data: TwoPoints) -> np.ndarray:
    """θ = (W, V) of Thm 1: the rank-one W of App. A with the least-squares output layer."""
    W = rank_one_hidden_layer(data.X)
    return pack(W, fit_output_layer(W, data))


def exact_rank(M: Any) -> int:
    """rank of a 2×2 matrix of rational or real algebraic numbers, exactly (from the signs of det M and entries)."""
    M = np.asarray(M, dtype=object)
    if M.shape != (2, 2):
        raise ValueError(f"expected a 2×2 matrix, got shape {M.shape}")
    if E.sign(M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]) != 0:
        return 2
    return int(bool(np.any(E.signs(M))))
