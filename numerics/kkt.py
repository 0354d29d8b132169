"""KKT analysis of the parameter-space max-margin problem of a homogeneous model.

For a model Φ of degree L (a :class:`~numerics.networks.Network` with one output) and data (X, y ∈ {±1}ⁿ):

    min ½‖θ‖²   subject to   q_i(θ) = y_i Φ(θ; x_i) ≥ 1.

Tools:

* :func:`margins`, :func:`rescale_to_margin`, :func:`scale_free_cost` (R(θ) = ‖θ‖² / q_min^{2/L}, the squared
  norm of the margin-1 rescaling);
* :func:`kkt_check`: active set, multipliers λ ≥ 0 with θ = Σ λ_i ∂q_i(θ) and the residuals. At smooth points
  the multipliers come from NNLS. At kinks of ReLU networks (a hidden pre-activation exactly 0 on an active
  sample) the gradient is replaced by the Clarke subdifferential where it is known in closed form: a kink
  neuron with zero outgoing weights contributes nothing; a kink neuron of the first hidden layer, or one with
  zero incoming weights, contributes s·(its row gradient when switched on), s ∈ [0, 1], independently per
  sample and neuron (layers whose parameters each feed one neuron: dense or diagonal). Stationarity is then
  linear in (λ, μ = λ s) with 0 ≤ μ ≤ λ and is solved as an LP with HiGHS. Other kinks: status
  ``"unsupported"``. (Zero incoming weights alone do not make a kink harmless: the neuron's incoming weights
  still receive s·(outgoing signal)·(input).) A kink is a pre-activation that is exactly 0, also in float
  mode; ``smallest_preactivation`` shows how close the other ones come;
* :func:`second_order_check`: the second-order necessary condition at smooth KKT points with LICQ, and the
  sufficient one (H ≻ 0 on the critical subspace: a strict local minimum);
* :func:`lagrangian_curvature`: dᵀHd along a given direction (a critical d with dᵀHd < 0 proves θ is not a
  local minimum);
* :func:`local_search` and :func:`certify_witness`: numerical search for a better feasible point near θ and
  its exact re-certification (a proof that θ is not a local minimum within that radius);
* :func:`certify_witness_curve`: a curve θ'(ε) of better feasible points tending to θ, proved for every
  ε ∈ (0, ε0] (a proof that θ is not a local minimum);
* :func:`restrict_to_layer`: the per-layer problem (one layer free, the others fixed) as a degree-1 model,
  to which all of the above apply.

Exact mode: when θ, X or y is an object array of sympy numbers, margins, Jacobians, multipliers and residuals
are exact (``exact=True``); floats given alongside are converted exactly. Rational and real algebraic numbers
are supported (see :mod:`numerics.exact`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any, Literal

import mpmath
import numpy as np
import scipy.linalg
import scipy.optimize
import sympy
from sympy.calculus.finite_diff import finite_diff_weights

from numerics import backend as B
from numerics import exact as E
from numerics.backend import Array
from numerics.compiled_fields import margin_functions
from numerics.exact import Exact
from numerics.networks import Network, scalar_outputs
from numerics.threads import one_thread
from numerics.tolerances import above, relative_scale
from numerics.univariate import certified_sign

Number = float | Exact
KKTStatus = Literal["kkt", "not_kkt", "infeasible", "unsupported", "inconclusive"]


# -- margins and scale ---------------------------------------------------------------------------------
def margins(model: Network, theta: Any, X: Any, y: Any) -> np.ndarray:
    """q_i = y_i Φ(θ; x_i), float or exact according to the inputs."""
    theta, X, y, _ = _inputs(model, theta, X, y)
    return _margins(model, theta, X, y)


def rescale_to_margin(model: Network, theta: Any, X: Any, y: Any) -> np.ndarray:
    """θ / q_min^{1/L}: the positive rescaling with minimum margin exactly 1 (ValueError if q_min ≤ 0)."""
    theta, X, y, exact = _inputs(model, theta, X, y)
    return _rescale(model, theta, X, y, exact)[0]


def scale_free_cost(model: Network, theta: Any, X: Any, y: Any) -> Number:
    """R(θ) = ‖θ‖² / q_min^{2/L} (+inf in float mode when q_min ≤ 0)."""
    theta, X, y, exact = _inputs(model, theta, X, y)
    q_min = _min(_margins(model, theta, X, y), exact)
    if exact:
        if E.sign(q_min) <= 0:
            raise ValueError(f"R(θ) needs a positive minimum margin, got {q_min}")
        return E.canonical_number(E.dot(theta, theta) / q_min ** sympy.Rational(2, model.degree))
    return float(theta @ theta / q_min ** (2 / model.degree)) if q_min > 0 else math.inf


def _inputs(model: Network, theta: Any, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    exact = any(np.asarray(a).dtype == object for a in (theta, X, y))
    convert = E.to_exact if exact else (lambda a: np.asarray(a, dtype=np.float64))
    theta, X, y = convert(theta), convert(X), convert(y)
    if model.d_out != 1:
        raise ValueError(f"the max-margin problem needs a scalar model, got d_out = {model.d_out}")
    if theta.shape != (model.n_params,):
        raise ValueError(f"θ must have shape ({model.n_params},), got {theta.shape}")
    if X.ndim != 2 or X.shape[1] != model.d_in or y.shape != (X.shape[0],):
        raise ValueError(f"X must be n × {model.d_in} and y of length n, got X {X.shape} and y {y.shape}")
    return theta, X, y, exact


def _margins(model: Network, theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return y * scalar_outputs(model, theta, X)


def _min(values: np.ndarray, exact: bool) -> Number:
    if not exact:
        return float(np.min(values))
    canonical = E.canonical(values)
    order = np.argsort(B.to_float(canonical))
    smallest = canonical[order[0]]
    for v in canonical[order[1:]]:  # floats only sort; the exact minimum is confirmed by exact comparisons
        if E.sign(v - smallest) < 0:
            smallest = v
    return smallest


def _rescale(model: Network, theta: np.ndarray, X: np.ndarray, y: np.ndarray, exact: bool
             ) -> tuple[np.ndarray, Number]:
    """(θ / q_min^{1/L}, the factor 1 / q_min^{1/L})."""
    q_min = _min(_margins(model, theta, X, y), exact)
    if (E.sign(q_min) if exact else np.sign(q_min)) <= 0:
        raise ValueError(f"cannot rescale to margin 1: the minimum margin is {q_min} ≤ 0")
    if exact:
        factor = E.canonical_number(1 / sympy.root(q_min, model.degree))
        return E.canonical(theta * factor), factor
    factor = q_min ** (-1 / model.degree)
    return theta * factor, factor


def _active(q: np.ndarray, exact: bool, tol: float) -> tuple[int, ...]:
    if exact:
        return tuple(int(i) for i in np.flatnonzero(E.signs(q - 1) == 0))
    return tuple(int(i) for i in np.flatnonzero(q - 1 <= tol))


# -- kinks of ReLU networks ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Kink:
    """A hidden pre-activation exactly 0 on an active sample (layer 1 = first hidden layer)."""

    sample: int
    layer: int
    neuron: int
    kind: Literal["silent", "clarke"]  # silent: zero outgoing weights, no contribution to any subgradient
    selection: Number | None = None  # s ∈ [0, 1] picked by the multipliers (μ / λ); None if λ = 0 or silent


def _param_rows(layer) -> np.ndarray | None:
    """For each parameter of the layer the row (output neuron) it feeds; None if one feeds several."""
    basis = np.asarray(layer.matrix(np.eye(layer.n_params)))  # (n_params, d_out, d_in)
    feeds = np.any(basis != 0, axis=2)
    if np.any(feeds.sum(axis=1) != 1):
        return None
    return np.argmax(feeds, axis=1)


def _kinks(model: Network, theta: np.ndarray, X: np.ndarray, active: tuple[int, ...], exact: bool
           ) -> tuple[list[Kink], list[np.ndarray], str]:
    """Kinks on active samples, the Clarke direction (unsigned, in θ-space) of each "clarke" kink, and
    a reason when some kink is outside the supported cases (empty string otherwise)."""
    if not isinstance(model, Network) or model.activation != "relu" or not active:
        return [], [], ""
    matrices = model.matrices(theta)
    offsets = np.cumsum((0,) + model.sizes)
    on = dataclasses.replace(model, relu_slope_at_zero=1).jacobian(theta, X[list(active)])[:, 0, :]
    kinks, directions = [], []
    for layer, Z in enumerate(model.preactivations(theta, X), start=1):
        zero = (E.signs(Z[list(active)]) if exact else np.sign(Z[list(active)])) == 0
        W_in, W_out = matrices[layer - 1], matrices[layer]
        rows = _param_rows(model.layers[layer - 1])
        for a, k in zip(*np.nonzero(zero)):
            i = active[a]
            if _all_zero(W_out[:, k], exact):
                kinks.append(Kink(i, layer, int(k), "silent"))
                continue
            if not (layer == 1 or _all_zero(W_in[k, :], exact)):
                return kinks, directions, (f"sample {i}: neuron {k} of hidden layer {layer} has a zero "
                                           "pre-activation with non-zero incoming and outgoing weights")
            if rows is None:
                return kinks, directions, (f"sample {i}: kink in hidden layer {layer}, whose parameters are "
                                           "shared between neurons")
            # Switching this neuron on changes only the gradient block of its own incoming weights, which is 0
            # with the neuron off (σ'(0) = 0): the direction is that block of the gradient with σ'(0) = 1.
            block = offsets[layer - 1] + np.flatnonzero(rows == k)
            direction = np.zeros(model.n_params, dtype=theta.dtype)
            direction[block] = on[a, block]
            kinks.append(Kink(i, layer, int(k), "clarke"))
            directions.append(direction)
    return kinks, directions, ""


def _all_zero(values: np.ndarray, exact: bool) -> bool:
    return bool(np.all((E.signs(values) if exact else np.sign(values)) == 0))


# -- first order ---------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class KKTResult:
    """First-order analysis of θ (rescaled to minimum margin 1) for min ½‖θ‖² s.t. q ≥ 1."""

    status: KKTStatus
    exact: bool  # multipliers and residuals are exact (and then the status is proved)
    proved: bool  # the status is proved in exact arithmetic (exact, or an exact separating direction)
    message: str
    theta: np.ndarray  # the point analysed: the input rescaled to minimum margin 1
    scale: Number  # theta = scale · input
    margins: np.ndarray
    active: tuple[int, ...]
    multipliers: np.ndarray  # λ_i, zero off the active set
    kinks: tuple[Kink, ...]
    stationarity_residual: Number  # ‖θ − Σ λ_i g_i‖ / ‖θ‖ with g_i ∈ ∂q_i(θ) as chosen
    complementarity_residual: Number  # max_i λ_i |q_i − 1|
    euler_residual: Number  # |‖θ‖² − L Σ λ_i| / ‖θ‖² (Euler's identity ⟨θ, ∇q_i⟩ = L q_i)
    smallest_preactivation: float | None  # min |z| over non-zero hidden pre-activations of active samples
    separating_direction: np.ndarray | None = None  # exact u proving "not_kkt" at kinks (_separating_direction)

    @property
    def smooth(self) -> bool:
        """No kink on an active sample changes the subdifferential (all are absent or silent)."""
        return all(k.kind == "silent" for k in self.kinks)


def kkt_check(model: Network, theta: Any, X: Any, y: Any, *, tol: float = 1e-6) -> KKTResult:
    """KKT test of θ after rescaling to minimum margin 1.

    Float mode: samples with q_i − 1 ≤ tol are active and the status is "kkt" iff the stationarity residual
    is ≤ tol. Exact mode: q_i = 1 exactly, and "kkt"/"not_kkt" are proved: at smooth points by the exact
    NNLS optimality conditions (``exact=True``, residual exact), at Clarke kinks by an exact feasible point of
    the LP (``exact=True``) or an exact separating direction (``proved=True``, LP numbers). When no proof is
    found the float verdict is returned with ``proved=False`` and the reason in the message.
    """
    theta, X, y, exact = _inputs(model, theta, X, y)
    q = _margins(model, theta, X, y)
    n = len(y)
    if (E.sign(_min(q, True)) if exact else np.sign(np.min(q))) <= 0:
        return KKTResult("infeasible", exact, exact, "some margin is ≤ 0: no positive rescaling is feasible",
                         theta, math.nan, q, (), _zeros(n, exact), (), math.inf, math.inf, math.inf, None)
    theta, scale = _rescale(model, theta, X, y, exact)
    q = E.canonical(_margins(model, theta, X, y)) if exact else _margins(model, theta, X, y)
    active = _active(q, exact, tol)
    kinks, directions, unsupported = _kinks(model, theta, X, active, exact)
    smallest = _smallest_preactivation(model, theta, X, active)
    if unsupported:
        return KKTResult("unsupported", exact, False, f"Clarke subdifferential not supported: {unsupported}",
                         theta, scale, q, active, _zeros(n, exact), tuple(kinks), math.nan, math.nan, math.nan,
                         smallest)
    slope_off = dataclasses.replace(model, relu_slope_at_zero=0) if isinstance(model, Network) else model
    G = (y[list(active), None] * slope_off.jacobian(theta, X[list(active)])[:, 0, :]).T  # p × |A|: ∇q_i
    if directions:
        owners = [active.index(k.sample) for k in kinks if k.kind == "clarke"]
        D = np.stack([y[active[o]] * d for o, d in zip(owners, directions)], axis=1)
        found = _clarke_multipliers(G, D, owners, theta, exact, tol)
    else:
        found = _smooth_multipliers(G, theta, exact, tol)
    if found.failure:
        return KKTResult("inconclusive", False, False, found.failure, theta, scale, q, active, _zeros(n, False),
                         tuple(kinks), math.nan, math.nan, math.nan, smallest)
    lam = _zeros(n, found.exact)
    lam[list(active)] = found.lam
    kinks = _with_selections(kinks, lam, found.mu)
    status, residuals = _residuals(model, theta, q, lam, found.residual, found.exact, tol)
    message = found.note or ("stationary: θ = Σ λ_i g_i with g_i ∈ ∂q_i(θ)" if status == "kkt"
                             else "no multipliers λ ≥ 0 make θ stationary")
    return KKTResult(status, found.exact, found.exact or found.separation is not None, message, theta, scale, q,
                     active, lam, tuple(kinks), *residuals, smallest, found.separation)


@dataclass(frozen=True, eq=False)
class _Multipliers:
    lam: np.ndarray  # on the active set
    mu: np.ndarray  # per Clarke kink (empty at smooth points)
    residual: np.ndarray  # θ − Σ λ_i g_i
    exact: bool  # all of the above exact and the verdict proved
    note: str = ""
    separation: np.ndarray | None = None  # exact proof of non-stationarity
    failure: str = ""


def _zeros(n: int, exact: bool) -> np.ndarray:
    return np.array([sympy.Integer(0)] * n, dtype=object) if exact else np.zeros(n)


def _smallest_preactivation(model: Network, theta: np.ndarray, X: np.ndarray, active: tuple[int, ...]
                            ) -> float | None:
    if not isinstance(model, Network) or model.activation != "relu" or not active or model.depth < 2:
        return None
    values = np.concatenate([np.abs(B.to_float(Z[list(active)])).ravel()
                             for Z in model.preactivations(theta, X)])
    values = values[values > 0]
    return float(values.min()) if values.size else None


def _with_selections(kinks: list[Kink], lam: np.ndarray, mu: np.ndarray) -> list[Kink]:
    out, m = [], 0
    for kink in kinks:
        if kink.kind == "silent":
            out.append(kink)
            continue
        weight = lam[kink.sample]
        positive = (E.sign(weight) if isinstance(weight, sympy.Basic) else np.sign(weight)) > 0
        selection = (mu[m] / weight if isinstance(weight, sympy.Basic) else float(mu[m] / weight)) \
            if positive else None
        out.append(dataclasses.replace(kink, selection=selection))
        m += 1
    return out


def _residuals(model: Network, theta: np.ndarray, q: np.ndarray, lam: np.ndarray, residual: np.ndarray,
               exact: bool, tol: float) -> tuple[KKTStatus, tuple[Number, Number, Number]]:
    if exact:
        squared = E.dot(theta, theta)
        stationarity = E.canonical_number(sympy.sqrt(E.dot(residual, residual) / squared))
        complementarity = max((abs(v) for v in E.canonical(lam * (q - 1))), default=sympy.Integer(0))
        euler = E.canonical_number(abs(squared - model.degree * sum(lam)) / squared)
        return ("kkt" if E.sign(stationarity) == 0 else "not_kkt"), (stationarity, complementarity, euler)
    theta, q, lam, residual = (B.to_float(a) for a in (theta, q, lam, residual))
    squared = float(theta @ theta)
    stationarity = float(np.linalg.norm(residual)) / math.sqrt(squared)
    complementarity = float(np.max(np.abs(lam * (q - 1)), initial=0.0))
    euler = abs(squared - model.degree * float(np.sum(lam))) / squared
    return ("kkt" if stationarity <= tol else "not_kkt"), (stationarity, complementarity, euler)


def _smooth_multipliers(G: np.ndarray, theta: np.ndarray, exact: bool, tol: float) -> _Multipliers:
    """NNLS: min_{λ ≥ 0} ‖θ − Gλ‖."""
    Gf, thetaf = B.to_float(G).reshape(len(theta), -1), B.to_float(theta)
    lam, _ = scipy.optimize.nnls(Gf, thetaf) if Gf.shape[1] else (np.zeros(0), None)  # nnls aborts on p × 0
    numeric = _Multipliers(lam, np.zeros(0), thetaf - Gf @ lam, False)
    if not exact:
        return numeric
    # Exact NNLS: least squares on the numerically positive set P, then the optimality conditions
    # λ_P ≥ 0 and Gᵀr ≤ 0 off P (r = θ − Gλ) prove ‖r‖ is the exact minimum (0 ⇔ stationary).
    threshold = tol * relative_scale(lam)  # λ ≥ 0
    positive = [j for j in range(len(lam)) if lam[j] > threshold]
    exact_lam = np.array([sympy.Integer(0)] * G.shape[1], dtype=object)
    if positive:  # normal equations on P: always consistent
        G_P = G[:, positive]
        exact_lam[positive] = E.nearest_solution(E.canonical(G_P.T @ G_P), E.canonical(G_P.T @ theta),
                                                 E.rationalize(lam[positive]))
    lam_P = exact_lam[positive]
    residual = E.canonical(theta - G @ exact_lam)
    optimal = bool(np.all(E.signs(lam_P) >= 0)) and (
        bool(np.all(E.signs(residual) == 0)) or bool(np.all(E.signs(E.canonical(G.T @ residual)) <= 0)))
    if optimal:
        return _Multipliers(exact_lam, np.zeros(0), residual, True)
    return dataclasses.replace(numeric, note="exact NNLS certificate failed on the numerically positive "
                                             "set; float verdict")


def _clarke_multipliers(G: np.ndarray, D: np.ndarray, owners: list[int], theta: np.ndarray, exact: bool,
                        tol: float) -> _Multipliers:
    """min ‖θ − Gλ − Dμ‖₁ over λ ≥ 0, 0 ≤ μ_k ≤ λ_{owner(k)} (LP, HiGHS); exact feasible point if possible."""
    p, m, K = G.shape[0], G.shape[1], D.shape[1]
    M = np.hstack([G, D])
    Mf, thetaf = B.to_float(M), B.to_float(theta)
    # Variables (λ, μ, t): minimize Σ t subject to |θ − M(λ, μ)| ≤ t and μ_k − λ_owner ≤ 0.
    link = np.zeros((K, m + K))
    link[np.arange(K), owners] = -1.0
    link[np.arange(K), m + np.arange(K)] = 1.0
    A_ub = np.block([[-Mf, -np.eye(p)], [Mf, -np.eye(p)], [link, np.zeros((K, p))]])
    b_ub = np.concatenate([-thetaf, thetaf, np.zeros(K)])
    lp = scipy.optimize.linprog(np.concatenate([np.zeros(m + K), np.ones(p)]), A_ub=A_ub, b_ub=b_ub,
                                bounds=(0, None), method="highs")
    if lp.status != 0:  # the LP is feasible (λ = μ = 0, t = |θ|) and bounded, so this is a solver failure
        return _Multipliers(np.zeros(m), np.zeros(K), thetaf, False, failure=f"HiGHS: {lp.message}")
    x = lp.x[:m + K]
    numeric = _Multipliers(x[:m], x[m:], thetaf - Mf @ x, False)
    if not exact:
        return numeric
    if lp.fun > tol * float(np.sum(np.abs(thetaf))):
        separation = _separating_direction(G, D, owners, theta, lp.ineqlin.marginals)
        if separation is None:
            return dataclasses.replace(numeric, note="no exact separating direction found; float verdict")
        # Exact proof of non-stationarity: ⟨u, θ⟩ > 0 ≥ ⟨u, g⟩ for every g in Σ λ_i ∂q_i.
        return dataclasses.replace(
            numeric, separation=separation[0],
            note=f"not stationary, proved by an exact separating direction u: ⟨u, θ⟩ = {separation[1]} > 0 ≥ "
                 "⟨u, g⟩ for every combination g of subgradients; multipliers and residuals are the LP's")
    # Exact: the inequalities that are numerically tight become equalities, together with M x = θ.
    scale = relative_scale(x)
    tight = [np.eye(m + K)[j] for j in range(m + K) if x[j] <= tol * scale]
    tight += [row for row, value in zip(link, link @ x) if value >= -tol * scale]
    rows = np.vstack([np.array(tight, dtype=int).reshape(-1, m + K), E.canonical(M)])
    rhs = np.concatenate([np.zeros(len(tight), dtype=int), theta])
    point = E.nearest_solution(rows, rhs, E.rationalize(x))
    if point is not None and np.all(E.signs(point) >= 0) and np.all(E.signs(E.matvec(link, point)) <= 0):
        return _Multipliers(point[:m], point[m:], np.array([sympy.Integer(0)] * p, dtype=object), True)
    return dataclasses.replace(numeric, note="no exact feasible point of the Clarke LP found; float verdict")


def _separating_direction(G: np.ndarray, D: np.ndarray, owners: list[int], theta: np.ndarray,
                          marginals: np.ndarray) -> tuple[np.ndarray, Exact] | None:
    """An exact u with ⟨u, θ⟩ > 0 and ⟨u, g_i⟩ + Σ_{kinks k of i} max(0, ⟨u, d_k⟩) ≤ 0 for every active i.

    The cone {Σ λ_i g_i + Σ μ_k d_k : 0 ≤ μ_k ≤ λ_owner(k)} is generated by g_i + Σ_{k ∈ S} d_k (S any set
    of kinks of sample i), so such a u separates θ from it. Candidate: the LP dual (∂ dist_1 / ∂θ),
    rationalized, checked exactly.
    """
    p = len(theta)
    u = E.rationalize(marginals[p:2 * p] - marginals[:p])
    along_theta = E.dot(u, theta)
    along_g, along_d = E.matvec(G.T, u), E.matvec(D.T, u)
    worst = np.array(along_g, dtype=object)
    for k, owner in enumerate(owners):
        if E.sign(along_d[k]) > 0:
            worst[owner] = worst[owner] + along_d[k]
    if E.sign(along_theta) > 0 and np.all(E.signs(worst) <= 0):
        return u, along_theta
    return None


# -- second order --------------------------------------------------------------------------------------
SecondOrderStatus = Literal["satisfied", "violated", "inconclusive", "unsupported"]


@dataclass(frozen=True, eq=False)
class SecondOrderResult:
    """Second-order necessary condition dᵀ H d ≥ 0 on the critical cone, H = I − Σ λ_i ∇²q_i(θ)."""

    status: SecondOrderStatus
    exact: bool  # the Hessian, the cone and the verdict are exact
    message: str
    kkt: KKTResult
    min_curvature: float | None = None  # smallest eigenvalue of H on the larger critical subspace (float)
    direction: np.ndarray | None = None  # a critical direction d with dᵀHd < 0 when "violated"
    curvature: Number | None = None  # dᵀHd / ‖d‖² for that direction
    critical_dimension: int | None = None  # dimension of {d : ∇q_i·d = 0 for all i with λ_i > 0}
    sufficient: bool = False  # H ≻ 0 on that subspace ⊇ critical cone: second-order sufficient, strict local min


def _smooth_kkt_point(model: Network, first: KKTResult, X: Any, y: Any
                      ) -> tuple[bool, np.ndarray, np.ndarray, np.ndarray, list[int], np.ndarray, np.ndarray]:
    """The KKT point ``first`` in the arithmetic of its check: (exact, θ, X, y, the active samples, their
    multipliers λ, J with rows ∇q_i of the active margins)."""
    _, X, y, _ = _inputs(model, first.theta, X, y)
    exact = first.exact  # True only from kkt_check's exact branches, which float input never reaches
    theta = first.theta if exact else B.to_float(first.theta)
    X, y = (X, y) if exact else (B.to_float(X), B.to_float(y))
    active = list(first.active)
    lam = first.multipliers[active] if exact else B.to_float(first.multipliers)[active]
    J = y[active, None] * model.jacobian(theta, X[active])[:, 0, :]  # rows ∇q_i
    return exact, theta, X, y, active, lam, J


def second_order_check(model: Network, theta: Any, X: Any, y: Any, *, tol: float = 1e-6) -> SecondOrderResult:
    """Second-order necessary condition at a smooth KKT point with LICQ.

    The critical cone is C = {d : ∇q_i·d = 0 if λ_i > 0, ∇q_i·d ≥ 0 if i is active with λ_i = 0}. H is
    tested on the subspace V₊ = {∇q_i·d = 0, λ_i > 0} ⊇ C ("satisfied" if H ⪰ 0 there) and, when some active
    multiplier vanishes, on V₀ = {∇q_i·d = 0, i active} ⊆ C ("violated" if H has negative curvature there);
    in between the answer is "inconclusive". The Hessian comes from central differences of the gradient
    inside the current activation region, with a stencil exact for the polynomial degree L − 1 of the
    gradient (so it is exact in exact mode).
    """
    first = kkt_check(model, theta, X, y, tol=tol)
    if first.status != "kkt":
        return SecondOrderResult("unsupported", False, f"not a KKT point ({first.status}): {first.message}", first)
    if first.kinks:
        return SecondOrderResult("unsupported", False, "a hidden pre-activation of an active sample is 0: the "
                                 "constraint is not twice differentiable there", first)
    exact, theta, X, y, active, lam, J = _smooth_kkt_point(model, first, X, y)
    rank = len(E.independent_rows(J)) if exact else int(np.linalg.matrix_rank(J))
    if rank < len(active):
        return SecondOrderResult("unsupported", exact, "LICQ fails (active gradients are linearly dependent): "
                                 "multipliers are not unique", first)
    hessian = _lagrangian_hessian(model, theta, X[active], lam * y[active], exact)
    if hessian is None:
        return SecondOrderResult("unsupported", exact, "no finite-difference step keeps the activation pattern",
                                 first)
    signs = E.signs(lam) if exact else np.sign(np.where(above(lam, tol), lam, 0.0))
    positive = [a for a in range(len(active)) if signs[a] > 0]
    larger = _critical_subspace(J[positive], exact)
    test = _curvature_on(hessian, larger, exact, tol)
    base = dict(kkt=first, min_curvature=test.min_curvature, critical_dimension=larger.shape[1])
    if test.psd:
        if test.definite:
            return SecondOrderResult("satisfied", exact, "H ≻ 0 on the critical cone: second-order sufficient "
                                     "condition, a strict local minimum", sufficient=True, **base)
        return SecondOrderResult("satisfied", exact, "H ⪰ 0 on the critical cone", **base)
    if len(positive) < len(active):
        test = _curvature_on(hessian, _critical_subspace(J, exact), exact, tol)
    if test.direction is not None:
        return SecondOrderResult("violated", exact, "negative curvature along a critical direction: not a local "
                                 "minimum", direction=test.direction, curvature=test.curvature, **base)
    return SecondOrderResult("inconclusive", exact, "negative curvature only outside the critical subspace "
                             "of the degenerate constraints, or the exact tests were undecided", **base)


@dataclass(frozen=True, eq=False)
class DirectionalCurvature:
    """dᵀHd for a given direction d at a smooth KKT point, H = I − Σ λ_i ∇²q_i(θ) (exact for exact input)."""

    value: Number  # dᵀHd (not normalized by ‖d‖²)
    slopes: np.ndarray  # ∇q_i·d for the active samples
    critical: bool  # d is in the critical cone: ∇q_i·d = 0 where λ_i > 0, ≥ 0 where λ_i = 0 (active i)
    kkt: KKTResult


def lagrangian_curvature(model: Network, theta: Any, X: Any, y: Any, direction: Any) -> DirectionalCurvature:
    """The Lagrangian's curvature along ``direction`` at θ (rescaled to margin 1): a critical direction with
    dᵀHd < 0 violates the second-order necessary condition (θ is not a local minimum). Needs a KKT point with
    no kink on an active sample (ValueError otherwise)."""
    first = kkt_check(model, theta, X, y)
    if first.status != "kkt" or first.kinks:
        raise ValueError(f"needs a smooth KKT point, got {first.status} with {len(first.kinks)} kinks")
    exact, theta, X, y, active, lam, J = _smooth_kkt_point(model, first, X, y)
    d = E.to_exact(direction) if exact else np.asarray(B.to_float(direction), dtype=float)
    hessian = _lagrangian_hessian(model, theta, X[active], lam * y[active], exact)
    if hessian is None:
        raise ValueError("no finite-difference step keeps the activation pattern")
    if exact:
        slopes, value = E.canonical(E.matvec(J, d)), E.canonical_number(E.dot(d, E.matvec(hessian, d)))
        lam_signs, slope_signs = E.signs(lam), E.signs(slopes)
    else:
        slopes, value = J @ d, float(d @ hessian @ d)
        scale = relative_scale(J) * float(np.linalg.norm(d))
        lam_signs, slope_signs = np.sign(lam).astype(int), np.where(np.abs(slopes) <= 1e-9 * scale, 0,
                                                                    np.sign(slopes)).astype(int)
    critical = all((s == 0) if ls > 0 else (s >= 0) for s, ls in zip(slope_signs, lam_signs))
    return DirectionalCurvature(value, slopes, bool(critical), first)


def _critical_subspace(J: np.ndarray, exact: bool) -> np.ndarray:
    """Basis (columns) of {d : J d = 0}: exact in exact mode, orthonormal in float."""
    if exact:
        return E.nullspace(J)
    return scipy.linalg.null_space(J) if J.shape[0] else np.eye(J.shape[1])


@dataclass(frozen=True, eq=False)
class _Curvature:
    psd: bool
    min_curvature: float | None
    direction: np.ndarray | None = None
    curvature: Number | None = None
    definite: bool = False  # H ≻ 0 on span Z


def _curvature_on(H: np.ndarray, Z: np.ndarray, exact: bool, tol: float) -> _Curvature:
    """Is H ⪰ 0 (and H ≻ 0) on span Z? Otherwise a d = Z v with dᵀHd < 0 (exact in exact mode)."""
    if Z.shape[1] == 0:
        return _Curvature(True, None, definite=True)
    Zf, Hf = B.to_float(Z), B.to_float(H)
    reduced, gram = Zf.T @ Hf @ Zf, Zf.T @ Zf
    values, vectors = scipy.linalg.eigh(reduced, gram)
    smallest = float(values[0])
    if not exact:
        scale = relative_scale(Hf)
        if smallest >= -tol * scale:
            return _Curvature(True, smallest, definite=smallest > tol * scale)
        d = Zf @ vectors[:, 0]
        return _Curvature(False, smallest, d / np.linalg.norm(d), smallest)
    reduced_exact = sympy.Matrix(E.canonical(Z.T @ H @ Z))
    if reduced_exact.is_positive_semidefinite:
        return _Curvature(True, smallest, definite=bool(reduced_exact.is_positive_definite))
    lowest = vectors[:, 0]
    d = E.canonical(Z @ E.rationalize(lowest / np.max(np.abs(lowest))))
    curvature = E.canonical_number(E.dot(d, E.matvec(H, d)) / E.dot(d, d))
    return _Curvature(False, smallest, d, curvature) if E.sign(curvature) < 0 else _Curvature(False, smallest)


def _lagrangian_hessian(model: Network, theta: np.ndarray, X: np.ndarray, weights: np.ndarray, exact: bool
                        ) -> np.ndarray | None:
    """I − ∇²(Σ_i w_i Φ(θ; x_i)) by central differences of the gradient along each coordinate.

    Inside one activation region the gradient is a polynomial of degree L − 1 in θ, and a central stencil
    with 2m + 1 nodes differentiates polynomials of degree ≤ 2m exactly. The step is halved until every
    node keeps the activation pattern of θ.
    """
    m = max(1, math.ceil((model.degree - 1) / 2))
    nodes = list(range(-m, m + 1))
    stencil = finite_diff_weights(1, nodes, 0)[1][-1]  # exact rationals
    p = len(theta)
    base = _pattern(model, theta, X, exact)
    G = weights.reshape(-1, 1)
    columns = []
    for j in range(p):
        for k in range(4, 41):
            step = sympy.Rational(1, 2**k) if exact else 2.0**-k
            points = []
            for t in nodes:
                shifted = theta.copy()
                shifted[j] = shifted[j] + t * step
                points.append(shifted)
            if all(np.array_equal(_pattern(model, point, X, exact), base) for point in points):
                break
        else:
            return None
        column = sum((c if exact else float(c)) * model.vjp(point, X, G)
                     for c, point in zip(stencil, points) if c != 0) / step
        columns.append(column)
    hessian_psi = np.stack(columns, axis=1)
    identity = E.to_exact(np.eye(p, dtype=int)) if exact else np.eye(p)
    if exact:
        return E.canonical(identity - hessian_psi)
    return identity - (hessian_psi + hessian_psi.T) / 2


def _pattern(model: Network, theta: np.ndarray, X: np.ndarray, exact: bool) -> np.ndarray:
    """Signs of all hidden pre-activations (empty for linear models)."""
    if not isinstance(model, Network) or model.activation != "relu" or model.depth < 2:
        return np.zeros(0, dtype=int)
    Z = np.concatenate([z.reshape(-1) for z in model.preactivations(theta, X)])
    return E.signs(Z) if exact else np.sign(Z).astype(int)


# -- non-local-optimality: search and exact witness ----------------------------------------------------
@dataclass(frozen=True, eq=False)
class LocalSearchResult:
    """Best point found by minimizing ‖θ'‖² over {q(θ') ≥ 1} ∩ B(θ₁, radius), θ₁ = θ rescaled to margin 1."""

    start: np.ndarray  # θ₁
    best: np.ndarray  # best point found, rescaled to minimum margin exactly 1 (float) and inside the ball
    start_cost: float  # R(θ) = ‖θ₁‖²
    best_cost: float  # R(best) = ‖best‖²
    improvement: float  # start_cost − best_cost
    relative_improvement: float
    improved: bool  # relative_improvement > tol
    radius: float
    starts: int
    evaluations: int  # objective evaluations over all starts (the search's cost)


def local_search(model: Network, theta: Any, X: Any, y: Any, radius: float, *, starts: int = 16, seed: int = 0,
                 tol: float = 1e-9, method: Literal["SLSQP", "COBYLA"] = "SLSQP") -> LocalSearchResult:
    """Minimize the scale-free cost R near θ: ‖θ'‖² subject to q_i(θ') ≥ 1 and ‖θ' − θ₁‖ ≤ radius.

    Starts: θ₁ and ``starts − 1`` points θ₁ + ρ·radius·u (u uniform on the sphere, ρ ∈ [0.2, 0.9]) drawn from
    ``seed``. Candidates are rescaled to minimum margin 1 and kept only if still inside the ball (the solver
    uses radius·(1 − 1e-6) so that exact re-certification of the result fits in the ball).
    """
    theta, X, y = (B.to_float(a) for a in (theta, X, y))
    _inputs(model, theta, X, y)
    start, _ = _rescale(model, theta, X, y, exact=False)
    rng = np.random.default_rng(seed)
    points = [start]
    for _ in range(starts - 1):
        u = rng.standard_normal(len(start))
        points.append(start + rng.uniform(0.2, 0.9) * radius * u / np.linalg.norm(u))
    inner = radius * (1 - 1e-6)
    margins_of, jacobian_of = margin_functions(model, X, y)
    constraints = [
        {"type": "ineq", "fun": lambda t: margins_of(t) - 1, "jac": jacobian_of},
        {"type": "ineq", "fun": lambda t: inner**2 - np.sum((t - start) ** 2), "jac": lambda t: -2 * (t - start)},
    ]
    if method == "COBYLA":
        constraints = [{"type": c["type"], "fun": c["fun"]} for c in constraints]
    best, best_cost, evaluations = start, float(start @ start), 0
    with one_thread():  # tiny dense problems: extra BLAS threads only add overhead (10× on busy cores)
        for point in points:
            solution = scipy.optimize.minimize(lambda t: float(t @ t), point, jac=(lambda t: 2 * t)
                                               if method == "SLSQP" else None, constraints=constraints,
                                               method=method, options={"maxiter": 500})
            evaluations += int(solution.nfev)
            candidate = _repair(model, solution.x, X, y, start, radius, inner)
            if candidate is not None and float(candidate @ candidate) < best_cost:
                best, best_cost = candidate, float(candidate @ candidate)
    start_cost = float(start @ start)
    improvement = start_cost - best_cost
    return LocalSearchResult(start, best, start_cost, best_cost, improvement, improvement / start_cost,
                             improvement > tol * start_cost, float(radius), starts, evaluations)


def _repair(model: Network, point: np.ndarray, X: np.ndarray, y: np.ndarray, start: np.ndarray, radius: float,
            inner: float) -> np.ndarray | None:
    """Rescale to minimum margin 1 and pull back into the ball (solvers violate constraints slightly),
    alternating until both hold; None if that fails."""
    for _ in range(20):
        q_min = float(np.min(_margins(model, point, X, y))) if np.all(np.isfinite(point)) else -1.0
        if q_min <= 0:
            return None
        point = point * q_min ** (-1 / model.degree)
        distance = float(np.linalg.norm(point - start))
        if distance <= radius:
            return point
        point = start + (point - start) * (inner / distance)
    return None


@dataclass(frozen=True, eq=False)
class Witness:
    """Exact proof that θ₁ (θ rescaled to margin 1) is not a local minimum at this radius, when certified:
    ``point`` is feasible (min margin ≥ 1), within ``radius`` of θ₁, and has a smaller norm."""

    certified: bool
    message: str
    reference_squared_norm: Exact  # ‖θ₁‖² = R(θ)
    radius: Exact
    point: np.ndarray | None = None  # exact rational point
    min_margin: Exact | None = None
    squared_norm: Exact | None = None
    improvement: Exact | None = None  # reference_squared_norm − squared_norm
    distance: Exact | None = None  # ‖point − θ₁‖


def certify_witness(model: Network, theta: Any, X: Any, y: Any, candidate: Any, radius: Any) -> Witness:
    """Re-certify a candidate better point exactly (rationalize, rescale by an exact rational factor
    c ≥ q_min^{-1/L}, then check margins, norm and distance in exact arithmetic)."""
    theta, X, y, _ = _inputs(model, E.to_exact(theta), X, y)
    reference, _ = _rescale(model, theta, X, y, exact=True)
    reference_norm = E.dot(reference, reference)
    radius = E.to_exact_number(radius)
    exact_candidate = np.asarray(candidate).dtype == object
    roundings = [E.to_exact(candidate)] if exact_candidate else \
        [E.rationalize(candidate, 10**k) for k in (3, 6, 9, 12)] + [E.to_exact(candidate)]
    reason = "no rounding of the candidate worked"
    for point in roundings:
        q_min = _min(E.canonical(_margins(model, point, X, y)), True)
        if E.sign(q_min) <= 0:
            reason = f"the candidate has minimum margin {q_min} ≤ 0"
            continue
        point = E.canonical(_rational_upper_root(q_min, model.degree) * point)
        min_margin = _min(E.canonical(_margins(model, point, X, y)), True)
        squared = E.dot(point, point)
        difference = E.canonical(point - reference)
        distance_squared = E.dot(difference, difference)
        improvement = E.canonical_number(reference_norm - squared)
        checks = {"margin ≥ 1": E.sign(min_margin - 1) >= 0, "smaller norm": E.sign(improvement) > 0,
                  "inside the ball": E.sign(radius**2 - distance_squared) >= 0}
        failed = [name for name, ok in checks.items() if not ok]
        witness = Witness(not failed, "", reference_norm, radius, point, min_margin, squared, improvement,
                          sympy.sqrt(distance_squared))
        if not failed:
            return dataclasses.replace(witness, message="exact witness: feasible, inside the ball, smaller norm")
        reason = f"checks failed: {', '.join(failed)}"
    return Witness(False, reason, reference_norm, radius)


def _rational_upper_root(q: Exact, degree: int) -> Exact:
    """A rational c ≥ q^{-1/degree}, within about 1e-20 of it."""
    with mpmath.workdps(40):
        value = mpmath.mpf(sympy.N(q, 40)) ** (mpmath.mpf(-1) / degree)
        denominator = 10**20
        c = sympy.Rational(int(mpmath.ceil(value * denominator)), denominator)
    while E.sign(c**degree * q - 1) < 0:  # guard against the last digit
        c += sympy.Rational(1, denominator)
    return c


def _variable_margins(model: Network, curve: np.ndarray, X: np.ndarray, y: np.ndarray, variable: sympy.Symbol,
                      upper: Exact) -> tuple[np.ndarray | None, str]:
    """Margins y_i Φ(θ'(ε); x_i) as expressions in ε, each ReLU resolved by a sign proved on (0, upper]."""
    if not (isinstance(model, Network) and model.activation == "relu"):
        return y * scalar_outputs(model, curve, X), ""
    matrices = model.matrices(curve)
    h = X
    for layer, W in enumerate(matrices[:-1], start=1):
        z = h @ B.transpose(W)
        on = np.empty(z.shape, dtype=object)
        for (i, k), value in np.ndenumerate(z):
            sign = certified_sign(value, variable, upper)
            if sign.sign is None:
                return None, (f"the pre-activation {value} of neuron {k} of hidden layer {layer} on sample {i} has "
                              f"no constant sign proved on (0, {upper}]: {sign.description}")
            on[i, k] = 1 if sign.sign > 0 else 0
        h = z * on
    return y * (h @ B.transpose(matrices[-1]))[:, 0], ""


# -- non-local-optimality: an explicit curve of better points ------------------------------------------
@dataclass(frozen=True, eq=False)
class CurveWitness:
    """Proof, when certified, that θ is not a local minimum: for every ε ∈ (0, upper] the point θ'(ε) is
    feasible (q_i ≥ 1) and ‖θ'(ε)‖ < ‖θ‖, and ‖θ'(ε) − θ‖ → 0 as ε → 0+."""

    certified: bool
    message: str
    variable: sympy.Symbol
    upper: Exact
    margins: tuple[sympy.Expr, ...] = ()  # q_i(θ'(ε))
    improvement: sympy.Expr | None = None  # ‖θ‖² − ‖θ'(ε)‖²
    distance_squared: sympy.Expr | None = None  # ‖θ'(ε) − θ‖²
    direction: np.ndarray | None = None  # (θ'(ε) − θ)/‖θ'(ε) − θ‖ at ε = upper·10⁻¹² (float): the leaving direction


def certify_witness_curve(model: Network, theta: Any, X: Any, y: Any, curve: Any, variable: sympy.Symbol,
                          upper: Any) -> CurveWitness:
    """Prove θ is not a local minimum of min ½‖θ‖² s.t. q ≥ 1 with a curve θ'(ε) of sympy expressions in
    ``variable`` (one per parameter), for all ε ∈ (0, upper].

    θ is compared as given (no rescaling). Every sign is proved by :func:`numerics.univariate.certified_sign`
    (ReLU pre-activations: constant sign on the interval; q_i − 1: identically 0 or > 0; the norm decrease:
    > 0); the limit ‖θ'(ε) − θ‖² → 0 is sympy's one-sided limit, required to be exactly 0.
    """
    theta, X, y, _ = _inputs(model, E.to_exact(theta), X, y)
    upper = E.to_exact_number(upper)
    curve = np.array([sympy.sympify(c) for c in np.asarray(curve, dtype=object).ravel()], dtype=object)
    if curve.shape != theta.shape:
        raise ValueError(f"the curve must have {len(theta)} entries, got {curve.shape}")
    base = CurveWitness(False, "", variable, upper)
    margins, failure = _variable_margins(model, curve, X, y, variable, upper)
    if margins is None:
        return dataclasses.replace(base, message=failure)
    margins = tuple(sympy.simplify(q) for q in margins)
    base = dataclasses.replace(base, margins=margins)
    for i, q in enumerate(margins):
        sign = certified_sign(q - 1, variable, upper)
        if sign.sign == -1:
            return dataclasses.replace(base, message=f"infeasible: the margin of sample {i}, {q}, is < 1 for every "
                                                     f"ε ∈ (0, {upper}] ({sign.method} proof)")
        if sign.sign is None:
            return dataclasses.replace(base, message=f"the margin of sample {i}, {q}, is not proved ≥ 1 on "
                                                     f"(0, {upper}]: {sign.description}")
    improvement = sympy.simplify(E.dot(theta, theta) - sum(c**2 for c in curve))
    base = dataclasses.replace(base, improvement=improvement)
    sign = certified_sign(improvement, variable, upper)
    if sign.sign != 1:
        return dataclasses.replace(base, message=f"not better: ‖θ‖² − ‖θ'(ε)‖² = {improvement} is not proved > 0 "
                                                 f"on (0, {upper}]: {sign.description}")
    difference = curve - theta
    distance_squared = sympy.simplify(sum(c**2 for c in difference))
    base = dataclasses.replace(base, distance_squared=distance_squared)
    try:
        limit = sympy.limit(distance_squared, variable, 0, "+")
    except (NotImplementedError, ValueError, TypeError):
        return dataclasses.replace(base, message=f"could not take the limit of ‖θ'(ε) − θ‖² = {distance_squared} "
                                                 "as ε → 0+")
    if limit != 0:
        return dataclasses.replace(base, message=f"the curve does not tend to θ: ‖θ'(ε) − θ‖² → {limit} as ε → 0+")
    tiny = {variable: upper * sympy.Rational(1, 10**12)}
    step = np.array([sympy.N(c.subs(tiny), 40) for c in difference], dtype=object).astype(float)
    direction = step / np.linalg.norm(step) if np.any(step) else None
    return dataclasses.replace(base, certified=True, direction=direction, message=(
        f"for every ε ∈ (0, {upper}]: θ'(ε) is feasible (margins {', '.join(map(str, margins))}), "
        f"‖θ‖² − ‖θ'(ε)‖² = {improvement} > 0, and ‖θ'(ε) − θ‖² = {distance_squared} → 0"))


# -- the per-layer max-margin problem ----------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LayerRestriction:
    """u ↦ Φ(θ with the parameters of layer ``layer`` (0-based) replaced by u), the other layers fixed.

    A bias-free network is positively 1-homogeneous in each layer's parameters, so the per-layer max-margin
    problem min ½‖u‖² s.t. y_i Φ ≥ 1 is Problem (2) for this degree-1 model: :func:`kkt_check`,
    :func:`local_search` and :func:`certify_witness` apply to it unchanged (kinks are not analysed: it is not
    a :class:`Network`). Exact or float according to u; the fixed layers are kept in both forms.
    """

    model: Any
    theta: np.ndarray
    layer: int
    degree = 1

    @property
    def d_in(self) -> int:
        return self.model.d_in

    @property
    def d_out(self) -> int:
        return self.model.d_out

    @property
    def block(self) -> slice:
        start = sum(self.model.sizes[:self.layer])
        return slice(start, start + self.model.sizes[self.layer])

    @property
    def n_params(self) -> int:
        return self.model.sizes[self.layer]

    @functools.cached_property
    def _exact_theta(self) -> np.ndarray:
        return E.to_exact(self.theta)

    def embed(self, u: Array) -> np.ndarray:
        """The full parameter vector with this layer set to u."""
        exact = np.asarray(u).dtype == object
        full = (self._exact_theta if exact else B.to_float(self.theta)).copy()
        full[self.block] = u
        return full

    def forward(self, u: Array, X: Array) -> Array:
        return self.model.forward(self.embed(u), X)

    def vjp(self, u: Array, X: Array, G: Array) -> Array:
        return self.model.vjp(self.embed(u), X, G)[..., self.block]

    def jacobian(self, u: Array, X: Array) -> Array:
        return self.model.jacobian(self.embed(u), X)[..., self.block]


def restrict_to_layer(model: Any, theta: Any, layer: int) -> tuple[LayerRestriction, np.ndarray]:
    """The per-layer model of ``layer`` (0-based) at θ, and θ's own parameters of that layer."""
    theta = np.asarray(theta)
    if not 0 <= layer < len(model.sizes):
        raise ValueError(f"layer must lie in [0, {len(model.sizes)}), got {layer}")
    restriction = LayerRestriction(model, theta, layer)
    return restriction, theta[restriction.block].copy()
