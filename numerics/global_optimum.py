"""Global optimum of the max-margin problem of depth-2 ReLU networks, by enumerating activation patterns.

For a depth-2 ReLU network without shared weights, Φ(θ; x) = Σ_j v_j σ(w_jᵀx^(j)) with x^(j) the coordinates
neuron j sees (all of x when fully connected, x_j for a diagonal network), the problem

    min ‖θ‖²   subject to   y_i Φ(θ; x_i) ≥ 1

becomes convex piece by piece. With u_j = |v_j| w_j and s_j = sign v_j, ‖w_j‖² + v_j² ≥ 2‖u_j‖ (equality when
the neuron is balanced), so min ‖θ‖² = 2 min Σ_j ‖u_j‖ over the same constraints written in u. A *choice* is
one closed chamber P of the hyperplane arrangement {u : uᵀx_i^(j) = 0} together with an output sign s; on P the
neuron is linear, σ(uᵀx_i) = [i active in P] x_iᵀu, so for a fixed choice per neuron the problem is a
second-order cone program (SOCP). The chambers' closures cover the space, two neurons with the same choice can
be merged (the cone is convex and the norm subadditive), and a choice whose sign disagrees with the label of
every sample it activates only lowers margins; so the optimum with k interchangeable neurons is the best SOCP
over the sets of min(k, #choices) useful choices.

Certificates (exact arithmetic on the exact data, or on the binary values of float data):

* lower bound, by weak duality for *any* width: for multipliers α ≥ 0 and g_c(α) = s Σ_{i active in P} α_i y_i
  x_i, every neuron in choice c has s Σ_i α_i y_i σ(uᵀx_i) = g_cᵀu ≤ ρ_c(α)‖u‖ with ρ_c(α) = ‖Π_P(g_c(α))‖
  (the projection onto the chamber), hence min ‖θ‖² ≥ 2 Σ α_i / max_c ρ_c(α). ρ_c is bounded above by
  ‖g_c + Bᵀβ‖ for any β ≥ 0 (B the chamber's inequality rows), so rationalized solver multipliers give a
  rigorous bound, and an exact one when they are exactly optimal. :func:`dual_bound` applies this to given
  multipliers: at a KKT point θ (‖θ‖² = 2Σλ by Euler's identity) a bound equal to ‖θ‖² proves θ globally optimal;
* upper bound: a feasible point, exact. From the multipliers, each optimal neuron points along Π_P(g_c)
  and only its length t_c is unknown; t solves the active margin equations exactly. When that point is
  feasible its value 2Σt_c matches the lower bound exactly, and the optimum is known exactly. A rational
  rounding of the solver's point (output layer rescaled to minimum margin 1) is always available as ``point``.

:func:`layer_global_optimum` does the same for the first layer with the output weights fixed (problem (4) of
paper 001): one quadratic program per multiset of chambers, and the Lagrangian dual
Σ_i λ_i − ½ Σ_j max_c ‖Π_P(v_j g_c(λ))‖², whose maximizing neurons w_j = Π_P(v_j g_c(λ)) are exact.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.optimize
import sympy

from numerics import backend as B
from numerics import exact as E
from numerics.convex import parametrized_program
from numerics.exact import Exact
from numerics.networks import Dense, Diagonal, Network, scalar_outputs
from numerics.symbolic import sign_patterns
from numerics.tolerances import relative_scale

SOLVER = "CLARABEL"
_SOLVER_OPTIONS = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11,
                   "warm_start": False}  # the cached programs solve afresh: no result depends on an earlier solve
_TIGHT = 1e-7  # relative gap under which a bound counts as attained (then an exact match is attempted)
_ZERO = 1e-7  # relative size under which a solver's neuron or multiplier counts as zero
_DENOMINATOR_DIGITS = (2, 3, 4, 6)  # roundings of the solver's multipliers tried for exact dual bounds


# -- structure ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """A neuron's linear piece: a closed chamber of the arrangement of its inputs, and its output sign."""

    group: int  # receptive field (index into the structure's fields)
    pattern: tuple[int, ...]  # per sample: +1 active, −1 inactive, 0 the sample is 0 on this field
    sign: int  # sign of the output weight (full problem); +1 for the per-layer problem, where v_j is fixed

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.pattern) if p > 0)


@dataclass(frozen=True, eq=False)
class _Structure:
    """Receptive fields of a supported network and the data restricted to them, exact and float."""

    model: Network
    fields: tuple[tuple[int, ...], ...]  # input coordinates seen by each group of neurons
    slots: tuple[tuple[int, ...], ...]  # the model's hidden neurons in each group
    X: np.ndarray  # exact
    y: np.ndarray  # exact
    Xf: np.ndarray
    yf: np.ndarray

    def rows(self, group: int, exact: bool = True) -> np.ndarray:
        X = self.X if exact else self.Xf
        return X[:, list(self.fields[group])]

    def chambers(self, group: int) -> list[tuple[int, ...]]:
        """Sign patterns of the chambers (open regions) of the arrangement of the group's nonzero inputs."""
        rows = self.rows(group)
        nonzero = [i for i in range(len(rows)) if np.any(E.signs(rows[i]) != 0)]
        try:
            patterns = sign_patterns(rows[nonzero])
        except (TypeError, ValueError):  # irrational inputs: the combinatorics of nearby rationals (generic data)
            patterns = sign_patterns(E.rationalize(B.to_float(rows[nonzero]), 10**12))
        full = []
        for pattern in patterns:
            signs = [0] * len(rows)
            for i, s in zip(nonzero, pattern):
                signs[i] = s
            full.append(tuple(signs))
        return full

    def cone(self, choice: Choice, exact: bool = True) -> np.ndarray:
        """Rows b with bᵀu ≥ 0 describing the chamber (p_i x_i for every sample nonzero on the field)."""
        rows = self.rows(choice.group, exact)
        return np.array([p * rows[i] for i, p in enumerate(choice.pattern) if p != 0]).reshape(-1, rows.shape[1])

    def contribution(self, choice: Choice, exact: bool = True, scale: Any = 1) -> np.ndarray:
        """A (n × field) with margin_i += A_i·u for a neuron in this choice (times ``scale``: v_j per layer)."""
        rows, y = self.rows(choice.group, exact), (self.y if exact else self.yf)
        on = np.array([1 if p > 0 else 0 for p in choice.pattern])
        return (choice.sign * scale * y * on)[:, None] * rows


def supports(model: Any) -> bool:
    """Depth-2 ReLU networks with a scalar output and no shared weights (fully connected or diagonal)."""
    return (isinstance(model, Network) and model.activation == "relu" and model.depth == 2 and model.d_out == 1
            and isinstance(model.layers[0], (Dense, Diagonal)) and isinstance(model.layers[1], Dense))


def _structure(model: Network, X: Any, y: Any) -> _Structure:
    if not supports(model):
        raise ValueError("the pattern enumeration needs a depth-2 ReLU network (fully connected or diagonal) "
                         "with a scalar output")
    Xe, ye = E.to_exact(X), E.to_exact(y)
    if Xe.ndim != 2 or Xe.shape[1] != model.d_in or ye.shape != (Xe.shape[0],):
        raise ValueError(f"X must be n × {model.d_in} and y of length n, got {Xe.shape} and {ye.shape}")
    if isinstance(model.layers[0], Dense):
        fields, slots = (tuple(range(model.d_in)),), (tuple(range(model.layers[0].d_out)),)
    else:
        fields, slots = tuple((j,) for j in range(model.d_in)), tuple((j,) for j in range(model.d_in))
    return _Structure(model, fields, slots, Xe, ye, B.to_float(Xe), B.to_float(ye))


def _choices(s: _Structure, signs: Sequence[int] = (1, -1)) -> list[Choice]:
    """Useful choices: some activated sample's label agrees with the output sign."""
    out = []
    for group in range(len(s.fields)):
        for pattern in s.chambers(group):
            for sign in signs:
                if any(p > 0 and sign * s.yf[i] > 0 for i, p in enumerate(pattern)):
                    out.append(Choice(group, pattern, sign))
    return out


# -- projections onto a chamber, and the dual bound -----------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Projection:
    point: np.ndarray  # g + Bᵀβ (exact): Π_P(g) when ``exact``
    squared: Exact  # ‖point‖² ≥ ‖Π_P(g)‖²
    exact: bool  # β is the exact minimizer: point is the projection


def _project(g: np.ndarray, cone: np.ndarray) -> _Projection:
    """Π_P(g) for P = {u : cone·u ≥ 0} via Moreau: g + Bᵀβ with β = argmin_{β≥0} ‖g + Bᵀβ‖ (exact when the
    numerically positive set gives an exact β ≥ 0 whose point lies in P and is orthogonal to Bᵀβ)."""
    g = E.canonical(g)
    if cone.shape[0] == 0:
        return _Projection(g, E.dot(g, g), True)
    gf, Bf = B.to_float(g), B.to_float(cone)
    beta, _ = scipy.optimize.nnls(-Bf.T, gf)
    threshold = _ZERO * relative_scale(beta)  # β ≥ 0
    positive = [k for k in range(len(beta)) if beta[k] > threshold]
    candidates = []
    if positive:
        Bp = cone[positive]
        normal = E.canonical(Bp @ Bp.T)
        # normal equations of a Gram matrix are consistent: nearest_solution never returns None here
        solved = E.nearest_solution(normal, E.canonical(-(Bp @ g)), E.rationalize(beta[positive]))
        if np.all(E.signs(solved) >= 0):
            exact_beta = np.array([sympy.Integer(0)] * len(beta), dtype=object)
            exact_beta[positive] = solved
            candidates.append(exact_beta)
    else:
        candidates.append(np.array([sympy.Integer(0)] * len(beta), dtype=object))
    candidates.append(E.rationalize(np.maximum(beta, 0.0)))
    for exact_beta in candidates:
        point = E.canonical(g + E.matvec(cone.T, exact_beta))
        inside = bool(np.all(E.signs(E.matvec(cone, point)) >= 0))
        orthogonal = E.sign(E.dot(point, E.matvec(cone.T, exact_beta))) == 0
        if inside and orthogonal:
            return _Projection(point, E.dot(point, point), True)
    point = E.canonical(g + E.matvec(cone.T, candidates[-1]))  # any β ≥ 0 bounds ‖Π_P(g)‖ from above
    return _Projection(point, E.dot(point, point), False)


def _direction_sum(s: _Structure, choice: Choice, alpha: np.ndarray, scale: Any = 1) -> np.ndarray:
    """g_c(α) = Σ_i α_i (row i of the choice's contribution matrix)."""
    return E.matvec(s.contribution(choice, True, scale).T, alpha)


@dataclass(frozen=True, eq=False)
class DualBound:
    """min ‖θ‖² ≥ ``value`` = 2 Σα / max_c ρ_c(α), for every width; exact."""

    value: Exact
    multipliers: np.ndarray  # α (exact, ≥ 0)
    rho_squared: Exact  # max_c ρ_c(α)² (an upper bound when ``exact`` is False)
    worst: Choice | None  # the choice attaining it
    exact: bool  # every ρ_c attaining the maximum is an exact projection norm


def dual_bound(model: Network, X: Any, y: Any, multipliers: Any) -> DualBound:
    """Rigorous lower bound on min ‖θ‖² s.t. y_iΦ(θ; x_i) ≥ 1 from any multipliers α ≥ 0 (see the module text).

    At a KKT point with multipliers λ, ‖θ‖² = 2Σλ (Euler), so ``value`` = ‖θ‖² (ρ_max ≤ 1) proves θ is a global
    minimum, over networks of any width."""
    s = _structure(model, X, y)
    alpha = E.canonical(multipliers)
    if np.any(E.signs(alpha) < 0):
        raise ValueError("multipliers must be ≥ 0")
    return _dual_bound(s, _choices(s), alpha)


def _dual_bound(s: _Structure, choices: Sequence[Choice], alpha: np.ndarray) -> DualBound:
    total = E.canonical_number(sum(alpha))
    worst, worst_squared, exact = None, sympy.Integer(0), True
    for choice in choices:
        projection = _project(_direction_sum(s, choice, alpha), s.cone(choice))
        if E.sign(projection.squared - worst_squared) > 0:
            worst, worst_squared, exact = choice, projection.squared, projection.exact
    if E.sign(worst_squared) == 0:  # no neuron can serve these multipliers: the problem is infeasible
        value = sympy.oo if E.sign(total) > 0 else sympy.Integer(0)
        return DualBound(value, alpha, worst_squared, worst, exact)
    value = E.canonical_number(2 * total / sympy.sqrt(worst_squared))
    return DualBound(value, alpha, worst_squared, worst, exact)


# -- the enumeration ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Neuron:
    """One neuron of an optimal point: its choice and its (float) parameters in balanced form."""

    choice: Choice
    u: np.ndarray  # |v| w (float)


@dataclass(frozen=True, eq=False)
class GlobalOptimum:
    """min ‖θ‖² (or ‖W₁‖² for the per-layer problem), numerically and with exact bounds.

    ``lower ≤ optimum ≤ upper``: ``lower`` is rigorous (None if no bound could be certified), ``upper`` is the
    value of an exactly feasible point; ``optimum`` is the exact value when both meet. ``point`` is an exactly
    feasible rational θ (or first layer) in the model's layout, with ‖point‖² ≥ upper.
    """

    value: float  # the best solver value
    lower: Exact | None
    upper: Exact
    optimum: Exact | None
    point: np.ndarray
    neurons: tuple[Neuron, ...]
    programs: int  # convex programs solved
    message: str

    @property
    def exact(self) -> bool:
        return self.optimum is not None


@dataclass(frozen=True, eq=False)
class _Program:
    """The convex program of one shape of choices, its data (contribution and cone matrices) as parameters."""

    problem: cp.Problem
    variables: list[cp.Variable]  # u_c per choice
    margin_constraint: cp.Constraint
    parameters: list[cp.Parameter]  # the contributions, then the nonempty cones, in the choices' order


def _program(n: int, widths: tuple[int, ...], cone_rows: tuple[int, ...], full: bool) -> _Program:
    """Σ‖u_c‖ (``full``) or ½Σ‖u_c‖² s.t. Σ_c A_c u_c ≥ 1 and C_c u_c ≥ 0, built once per shape and thread
    (:func:`numerics.convex.parametrized_program`)."""
    def build() -> _Program:
        us = [cp.Variable(width) for width in widths]
        contributions = [cp.Parameter((n, width)) for width in widths]
        cones = [cp.Parameter((rows, width)) for rows, width in zip(cone_rows, widths) if rows]
        margins = sum((A @ u for A, u in zip(contributions, us)), np.zeros(n))
        margin_constraint = margins >= 1
        cone_constraints = [C @ u >= 0 for C, u in zip(cones, [u for u, rows in zip(us, cone_rows) if rows])]
        cost = sum(cp.norm(u, 2) for u in us) if full else 0.5 * sum(cp.sum_squares(u) for u in us)
        problem = cp.Problem(cp.Minimize(cost), [margin_constraint] + cone_constraints)
        return _Program(problem, us, margin_constraint, contributions + cones)

    return parametrized_program(("global_optimum", n, widths, cone_rows, full), build)


def _solve(s: _Structure, choices: Sequence[Choice], scales: Sequence[Any] | None = None
           ) -> tuple[float, list[np.ndarray], np.ndarray] | None:
    """The convex program of one set of choices: Σ‖u_c‖ (full problem) or ½Σ‖w_c‖² with fixed output weights
    ``scales`` (per layer). Returns (value, neurons, margin multipliers) or None when infeasible."""
    contributions = [s.contribution(c, False, 1.0 if scales is None else float(scales[k]))
                     for k, c in enumerate(choices)]
    cones = [s.cone(c, False) for c in choices]
    program = _program(len(s.yf), tuple(A.shape[1] for A in contributions), tuple(C.shape[0] for C in cones),
                       scales is None)
    for parameter, value in zip(program.parameters, contributions + [C for C in cones if C.shape[0]]):
        parameter.value = value
    problem, us, margin_constraint = program.problem, program.variables, program.margin_constraint
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "may be inaccurate": the certificates decide
            problem.solve(solver=SOLVER, **_SOLVER_OPTIONS)
    except cp.error.SolverError:
        return None
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        return None
    return float(problem.value), [np.asarray(u.value, dtype=float) for u in us], \
        np.maximum(np.asarray(margin_constraint.dual_value, dtype=float), 0.0)


def _rational_directions(alpha: np.ndarray) -> list[np.ndarray]:
    """α/max α rounded to simple rationals of growing denominators (the full problem's bound depends only on
    the direction of α; the simplest rounding is often the exact optimum)."""
    top = float(np.max(alpha))
    if top <= 0:
        return [E.to_exact(np.zeros(len(alpha), dtype=int))]
    scaled = np.where(alpha > _ZERO * top, alpha / top, 0.0)
    return [E.rationalize(scaled, 10**k) for k in _DENOMINATOR_DIGITS]


def _best_bound(s: _Structure, choices: Sequence[Choice], alpha: np.ndarray, enough: Exact | None = None
                ) -> DualBound:
    """The largest of the dual bounds of the rounded directions of α (stopping once one reaches ``enough``)."""
    best = None
    for direction in _rational_directions(alpha):
        bound = _dual_bound(s, choices, direction)
        if best is None or E.sign(bound.value - best.value) > 0:
            best = bound
        if enough is not None and E.sign(best.value - enough) >= 0:
            break
    return best


def _covered(s: _Structure, choices: Sequence[Choice]) -> bool:
    """Every sample is activated, with a sign that agrees with its label, by some choice."""
    return all(any(c.pattern[i] > 0 and c.sign * s.yf[i] > 0 for c in choices) for i in range(len(s.yf)))


def global_optimum(model: Network, X: Any, y: Any, *, bounds: bool = True) -> GlobalOptimum:
    """min ‖θ‖² s.t. y_iΦ(θ; x_i) ≥ 1 for a depth-2 ReLU network (fully connected or diagonal), by enumeration.

    ``bounds=False`` skips the exact lower bound and the exact optimum (only the solver value and an exactly
    feasible rational point: enough to refute a claimed optimum, and much cheaper on data with large rationals).
    Data far from unit size (max |x| outside [0.01, 100]) are solved scaled by a power of 100 and the result
    scaled back exactly (the message says so).
    Raises ValueError for unsupported models, or when the data cannot be separated by the network.
    """
    return _at_moderate_size(_structure(model, X, y), 2, lambda s: _enumerate(s, bounds))


def _decade_pairs(Xf: np.ndarray) -> int:
    """k with 100^k·max|x| in [0.1, 10] (0 when max|x| already lies in [0.01, 100]): the solvers' absolute
    thresholds hold for data of moderate size, and a power of 100 rescales exactly (all-zero data: 0)."""
    top = float(np.max(np.abs(Xf))) if Xf.size else 0.0
    if top == 0.0 or 1e-2 <= top <= 1e2:
        return 0
    return -round(math.log10(top) / 2)


def _at_moderate_size(s: _Structure, degree: int, solve: Callable[[_Structure], GlobalOptimum]) -> GlobalOptimum:
    """``solve(s)``; for data far from unit size, ``solve`` on X' = 100^k X and the result mapped back exactly
    (:func:`_unscaled`, the margins of degree ``degree`` in the point)."""
    pairs = _decade_pairs(s.Xf)
    if pairs == 0:
        return solve(s)
    Xs = E.canonical(s.X * sympy.Integer(100) ** pairs)
    return _unscaled(solve(_Structure(s.model, s.fields, s.slots, Xs, s.y, B.to_float(Xs), s.yf)), pairs, degree)


def _unscaled(found: GlobalOptimum, pairs: int, degree: int) -> GlobalOptimum:
    """The optimum for data X from the one for X' = 100^k X, where the margins have degree ``degree`` in the point
    and 1 in x: the point 10^(2k/degree)·θ' has the same margins on X as θ' on X' (θ: degree 2; a first layer with
    the output weights fixed: degree 1). Values scale by the square of that factor, u = |v| w by 100^k."""
    root = sympy.Integer(10) ** (2 * pairs // degree)
    scale, neuron_scale = root**2, float(sympy.Integer(100) ** pairs)

    def times(value: Exact | None) -> Exact | None:
        return None if value is None else E.canonical_number(value * scale)

    neurons = tuple(Neuron(n.choice, n.u * neuron_scale) for n in found.neurons)
    return GlobalOptimum(found.value * float(scale), times(found.lower), times(found.upper), times(found.optimum),
                         E.canonical(found.point * root), neurons, found.programs,
                         found.message + f"; solved on the data scaled by 100^{pairs} (exactly)")


def _enumerate(s: _Structure, bounds: bool) -> GlobalOptimum:
    choices = _choices(s)
    subsets = _subsets(s, choices)
    programs, best = 0, None
    for subset in subsets:
        if not _covered(s, subset):
            continue
        solved = _solve(s, subset)
        programs += 1
        if solved is not None and (best is None or solved[0] < best[0]):
            best = (solved[0], subset, solved[1], solved[2])
    if best is None:
        raise ValueError("no choice of activation patterns separates the data")
    value, subset, us, alpha = best
    value = 2.0 * value
    neurons = tuple(Neuron(c, u) for c, u in zip(subset, us) if np.linalg.norm(u) > _ZERO * relative_scale(value))
    point = _rational_point(s, neurons)
    if not bounds:
        return GlobalOptimum(value, None, E.dot(point, point), None, point, neurons, programs,
                             f"{programs} convex programs over {len(choices)} choices (no lower bound requested)")
    # lower bound: the best set's multipliers, checked against every choice (any width) ...
    bound = _best_bound(s, choices, alpha)
    lower, how = bound.value, "one set of multipliers for every choice"
    if float(lower) < value * (1 - _TIGHT):  # ... or set by set when more neurons would do better
        own = _best_bound(s, subset, alpha).value
        lower, how, extra = _lower_by_subsets(s, [other for other in subsets if other != subset], own)
        programs += extra
    upper, optimum = _exact_upper(s, bound, neurons, value)
    if upper is None:
        upper = E.dot(point, point)
    if lower is not None and optimum is None and E.sign(lower - upper) == 0:
        optimum = upper
    message = (f"{programs} convex programs over {len(choices)} choices; lower bound from {how}" +
               ("; exact optimum" if optimum is not None else ""))
    return GlobalOptimum(value, lower, upper, optimum, point, neurons, programs, message)


def _subsets(s: _Structure, choices: Sequence[Choice]) -> list[tuple[Choice, ...]]:
    """Per group min(#neurons, #choices) distinct choices, combined across groups."""
    per_group = []
    for group, slots in enumerate(s.slots):
        mine = [c for c in choices if c.group == group]
        per_group.append(list(itertools.combinations(mine, min(len(slots), len(mine)))))
    return [tuple(itertools.chain.from_iterable(parts)) for parts in itertools.product(*per_group)]


def _lower_by_subsets(s: _Structure, subsets: Sequence[tuple[Choice, ...]], target: Exact
                      ) -> tuple[Exact | None, str, int]:
    """min(target, each set's own dual bound); a set's bound is refined only until it reaches ``target``.
    None if an infeasible set has no certificate."""
    lower, programs = target, 0
    same_sign = bool(np.all(s.yf > 0) or np.all(s.yf < 0))
    for subset in subsets:
        if not _covered(s, subset):
            if same_sign:
                continue  # an uncovered sample gets only contributions ≤ 0: the set is infeasible
            return None, "set-by-set bounds (an infeasible set is not certified)", programs
        solved = _solve(s, subset)
        programs += 1
        if solved is None:
            return None, "set-by-set bounds (an infeasible set is not certified)", programs
        value = _best_bound(s, subset, solved[2], enough=target).value
        lower = value if E.sign(value - lower) < 0 else lower
    return lower, "the multipliers of each set of choices", programs


def _exact_upper(s: _Structure, bound: DualBound, neurons: Sequence[Neuron], value: float
                 ) -> tuple[Exact | None, Exact | None]:
    """The point whose neurons point along Π_P(g_c(α)) with lengths solving the active margins exactly:
    (its value 2Σt, that value again if it equals the dual bound), or (None, None) if it is not feasible."""
    if not bound.exact or not neurons or E.sign(bound.rho_squared) <= 0:
        return None, None
    alpha = bound.multipliers
    directions, constraint_rows = [], []
    for neuron in neurons:
        projection = _project(_direction_sum(s, neuron.choice, alpha), s.cone(neuron.choice))
        if not projection.exact or E.sign(projection.squared - bound.rho_squared) != 0:
            return None, None
        direction = E.canonical(projection.point / sympy.sqrt(projection.squared))
        directions.append(direction)
        constraint_rows.append(E.matvec(s.contribution(neuron.choice), direction))
    M = np.array(constraint_rows, dtype=object).T  # margins = M t
    active = [i for i in range(len(alpha)) if E.sign(alpha[i]) > 0]
    start = E.rationalize([np.linalg.norm(neuron.u) for neuron in neurons])
    lengths = E.nearest_solution(M[active], np.array([sympy.Integer(1)] * len(active), dtype=object), start)
    if lengths is None or np.any(E.signs(lengths) < 0):
        return None, None
    if np.any(E.signs(E.canonical(E.matvec(M, lengths) - 1)) < 0):
        return None, None
    upper = E.canonical_number(2 * sum(lengths))
    return upper, (upper if E.sign(upper - bound.value) == 0 else None)


def _rational_point(s: _Structure, neurons: Sequence[Neuron]) -> np.ndarray:
    """An exactly feasible rational θ near the solver's neurons: balanced rounding, then the output layer scaled
    by 1/q_min (margins are linear in it)."""
    model = s.model
    k = model.layers[0].d_out if isinstance(model.layers[0], Dense) else model.d_in
    W = np.array([[sympy.Integer(0)] * model.d_in for _ in range(k)], dtype=object)
    v = np.array([sympy.Integer(0)] * k, dtype=object)
    free = {group: list(slots) for group, slots in enumerate(s.slots)}
    for neuron in neurons:
        slot = free[neuron.choice.group].pop(0)
        length = float(np.linalg.norm(neuron.u))
        root = math.sqrt(length)
        field = list(s.fields[neuron.choice.group])
        W[slot, field] = E.rationalize(neuron.u / root, 10**12)
        v[slot] = neuron.choice.sign * E.rationalize([root], 10**12)[0]
    first = W.ravel() if isinstance(model.layers[0], Dense) else np.array([W[j, j] for j in range(k)], dtype=object)
    theta = np.concatenate([first, v])
    theta[len(first):] = E.canonical(theta[len(first):] / _smallest(s.y * scalar_outputs(model, theta, s.X)))
    return theta


def _smallest(values: np.ndarray) -> Exact:
    """The exact minimum (floats only order the candidates)."""
    values = E.canonical(values)
    smallest = values[int(np.argmin(B.to_float(values)))]
    for value in values:
        if E.sign(value - smallest) < 0:
            smallest = value
    return smallest


# -- the first layer with fixed output weights (problem (4), layer 1) ---------------------------------------------
def layer_global_optimum(model: Network, theta: Any, X: Any, y: Any, *, bounds: bool = True) -> GlobalOptimum:
    """min ‖W₁‖² over the first layer, the output layer of θ fixed, s.t. y_iΦ ≥ 1; by enumeration of one chamber
    (or none) per neuron, multisets among neurons with the same field and output weight; ``point`` is the
    first layer's parameter vector.

    Lower bound: the Lagrangian dual with the best assignment's multipliers over every chamber; when that
    leaves a gap (the problem is not convex), the minimum over assignments of each one's own dual bound.
    ``bounds=False``: the solver value and an exactly feasible rational layer only. Data far from unit size are
    rescaled as in :func:`global_optimum`."""
    return _at_moderate_size(_structure(model, X, y), 1, lambda s: _layer_enumerate(s, theta, bounds))


def _layer_enumerate(s: _Structure, theta: Any, bounds: bool) -> GlobalOptimum:
    model = s.model
    outputs = E.canonical(model.split(E.to_exact(theta))[1])
    slot_group = {slot: group for group, slots in enumerate(s.slots) for slot in slots}
    options = [[Choice(slot_group[slot], pattern, 1) for pattern in s.chambers(slot_group[slot])
                if any(p > 0 and float(outputs[slot]) * s.yf[i] > 0 for i, p in enumerate(pattern))]
               for slot in range(len(outputs))]
    assignments = _assignments(slot_group, outputs, options)
    best, programs = None, 0
    for assignment in assignments:
        if not assignment:
            continue
        solved = _solve(s, [c for _, c in assignment], [outputs[slot] for slot, _ in assignment])
        programs += 1
        if solved is not None and (best is None or 2.0 * solved[0] < best[0]):
            best = (2.0 * solved[0], assignment, solved[1], solved[2])
    if best is None:
        raise ValueError("no choice of activation patterns satisfies the margins with these output weights")
    value, assignment, ws, lam = best
    neurons = tuple(Neuron(c, w) for (_, c), w in zip(assignment, ws))
    if not bounds:
        layer = _rounded_layer(model, s, assignment, ws, outputs)
        return GlobalOptimum(value, None, E.dot(layer, layer), None, layer, neurons, programs,
                             f"{programs} quadratic programs (no lower bound requested)")
    lower, exact_layer = _best_layer_bound(s, options, outputs, lam)
    how = "the Lagrangian dual at the best assignment's multipliers"
    if float(lower) < value * (1 - _TIGHT):  # a duality gap: bound each assignment by its own dual
        own, exact_layer = _best_layer_bound(s, _own_options(assignment, len(outputs)), outputs, lam)
        others = [other for other in assignments if other and other != assignment]
        lower, extra = _layer_bound_by_assignments(s, others, outputs, own)
        programs += extra
        how = "each assignment's own Lagrangian dual"
    layer = None if exact_layer is None else _layer_vector(model, s, exact_layer)
    if layer is not None and np.any(E.signs(_layer_margins(model, s, layer, outputs) - 1) < 0):
        layer = None
    if layer is None:
        layer = _rounded_layer(model, s, assignment, ws, outputs)
    upper = E.dot(layer, layer)
    optimum = upper if lower is not None and E.sign(lower - upper) == 0 else None
    message = f"{programs} quadratic programs; lower bound from {how}" + ("; exact optimum" if optimum else "")
    return GlobalOptimum(value, lower, upper, optimum, layer, neurons, programs, message)


def _rounded_layer(model: Network, s: _Structure, assignment: Sequence[tuple[int, Choice]], ws: Sequence[np.ndarray],
                   outputs: np.ndarray) -> np.ndarray:
    """The solver's layer rounded to rationals and scaled to minimum margin 1 (margins are linear in it)."""
    layer = _layer_vector(model, s, {slot: E.rationalize(w, 10**12) for (slot, _), w in zip(assignment, ws)})
    return E.canonical(layer / _smallest(_layer_margins(model, s, layer, outputs)))


def _assignments(slot_group: dict[int, int], outputs: np.ndarray, options: Sequence[Sequence[Choice]]
                 ) -> list[list[tuple[int, Choice]]]:
    """Every assignment of a useful chamber or none to each neuron, up to permuting interchangeable neurons."""
    classes: dict[tuple[int, Exact], list[int]] = {}
    for slot in range(len(outputs)):
        classes.setdefault((slot_group[slot], outputs[slot]), []).append(slot)
    per_class = []
    for slots in classes.values():
        menu = [None] + list(options[slots[0]])
        per_class.append([list(zip(slots, combo)) for combo in itertools.combinations_with_replacement(menu,
                                                                                                       len(slots))])
    return [[(slot, c) for part in parts for slot, c in part if c is not None]
            for parts in itertools.product(*per_class)]


def _layer_margins(model: Network, s: _Structure, layer: np.ndarray, outputs: np.ndarray) -> np.ndarray:
    return E.canonical(s.y * scalar_outputs(model, np.concatenate([layer, outputs]), s.X))


def _best_layer_bound(s: _Structure, options: Sequence[Sequence[Choice]], outputs: np.ndarray, lam: np.ndarray,
                      enough: Exact | None = None) -> tuple[Exact, dict[int, np.ndarray] | None]:
    """The largest dual bound over roundings of λ (stopping once one reaches ``enough``), with its maximizer."""
    best = None
    top = float(np.max(np.abs(lam))) if len(lam) else 0.0
    # rounded relative to the largest multiplier's decade (any λ ≥ 0 gives a valid bound): on data of large norm the
    # multipliers are tiny, and fixed denominators would round them all to 0; decimal steps keep decimal λ exact
    scale = sympy.Rational(10) ** min(0, int(np.floor(np.log10(top)))) if top > 0 else sympy.Integer(1)
    for digits in _DENOMINATOR_DIGITS:
        candidate = _layer_dual(s, options, outputs, E.rationalize(lam / float(scale), 10**digits) * scale)
        if best is None or E.sign(candidate[0] - best[0]) > 0:
            best = candidate
        if enough is not None and E.sign(best[0] - enough) >= 0:
            break
    return best


def _layer_bound_by_assignments(s: _Structure, assignments: Sequence[Sequence[tuple[int, Choice]]],
                                outputs: np.ndarray, target: Exact) -> tuple[Exact | None, int]:
    """min(target, each assignment's dual bound), refining an assignment's bound only until it reaches
    ``target``; None when an infeasible assignment is not certified."""
    lower, programs = target, 0
    nonnegative = all(float(outputs[slot]) * s.yf[i] >= 0 for slot in range(len(outputs)) for i in range(len(s.yf)))
    for assignment in assignments:
        if not _covered_with(s, assignment, outputs):
            if nonnegative:
                continue  # every contribution is ≥ 0 and some sample gets none: infeasible
            return None, programs
        solved = _solve(s, [c for _, c in assignment], [outputs[slot] for slot, _ in assignment])
        programs += 1
        if solved is None:
            return None, programs
        value = _best_layer_bound(s, _own_options(assignment, len(outputs)), outputs, solved[2], enough=target)[0]
        lower = value if E.sign(value - lower) < 0 else lower
    return lower, programs


def _own_options(assignment: Sequence[tuple[int, Choice]], width: int) -> list[list[Choice]]:
    """Per neuron the chamber the assignment gives it (none: the neuron stays 0)."""
    return [[c for slot_, c in assignment if slot_ == slot] for slot in range(width)]


def _covered_with(s: _Structure, assignment: Sequence[tuple[int, Choice]], outputs: np.ndarray) -> bool:
    return all(any(c.pattern[i] > 0 and float(outputs[slot]) * s.yf[i] > 0 for slot, c in assignment)
               for i in range(len(s.yf)))


def _layer_dual(s: _Structure, options: Sequence[Sequence[Choice]], outputs: np.ndarray, lam: np.ndarray
                ) -> tuple[Exact, dict[int, np.ndarray] | None]:
    """(2·d(λ), the maximizing first layer when every projection is exact): d(λ) = Σλ − ½Σ_j max_c ‖Π_P(v_j g_c)‖²
    bounds min ½‖W₁‖² from below for any λ ≥ 0 (max over the chambers each neuron may use)."""
    penalty, layer, exact = sympy.Integer(0), {}, True
    for slot, slot_options in enumerate(options):
        best = None
        for choice in slot_options:
            projection = _project(_direction_sum(s, choice, lam, outputs[slot]), s.cone(choice))
            if best is None or E.sign(projection.squared - best.squared) > 0:
                best = projection
        if best is not None and E.sign(best.squared) > 0:
            penalty += best.squared
            layer[slot] = best.point
            exact = exact and best.exact
    return E.canonical_number(2 * sum(lam) - penalty), (layer if exact else None)


def _layer_vector(model: Network, s: _Structure, rows: dict[int, np.ndarray]) -> np.ndarray:
    """The first layer's parameter vector with the given neurons' incoming weights (the others 0)."""
    slot_group = {slot: group for group, slots in enumerate(s.slots) for slot in slots}
    if isinstance(model.layers[0], Dense):
        W = np.array([[sympy.Integer(0)] * model.d_in for _ in range(model.layers[0].d_out)], dtype=object)
        for slot, row in rows.items():
            W[slot, list(s.fields[slot_group[slot]])] = row
        return W.ravel()
    vector = np.array([sympy.Integer(0)] * model.d_in, dtype=object)
    for slot, row in rows.items():
        vector[slot] = row[0]
    return vector
