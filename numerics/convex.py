"""Convex reference problems without intercept, solved by two solvers and certified in exact arithmetic.

A problem minimizes a weighted norm of β subject to margin or interpolation constraints:

* norm ``"l2"``: f(β) = ½ Σ_j c_j β_j² (a QP; c = 1 gives the hard-margin SVM and min-ℓ2 interpolation),
* norm ``"l1"``: f(β) = Σ_j c_j |β_j| (an LP),
* constraint ``"margin"``: y_i⟨β, x_i⟩ ≥ 1, i.e. A β ≥ b with A = diag(y) X, b = 1,
* constraint ``"interpolation"``: ⟨β, x_i⟩ = y_i, i.e. A β = b with A = X, b = y.

Duals α follow the Lagrangian f(β) − αᵀ(Aβ − b): α ≥ 0 for margins, free for interpolation, so the SVM
solution is w* = Σ_i α_i y_i x_i. The dual objective is bᵀα − ½ Σ_j (Aᵀα)_j² / c_j for ``"l2"`` and bᵀα
under |Aᵀα|_j ≤ c_j for ``"l1"``.

``ConvexProblem.solve`` (1) solves with CLARABEL, (2) re-solves with a second solver (OSQP for QPs, HiGHS for
LPs, SCS if that one fails) and records the discrepancy, (3) reads the active constraints (and for ``"l1"``
the support and signs of β) off the numeric solution, solves the resulting linear KKT system exactly and
verifies primal feasibility, dual feasibility, stationarity, complementary slackness and a zero duality gap
in exact arithmetic. The status is ``"certified"`` only if all of them hold exactly, ``"solved"`` if only the
numeric solution is available (the message says why), ``"failed"`` if the solver failed (infeasible data,
solver error, no convergence; the message is the solver's).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import cvxpy as cp
import numpy as np
import sympy

from numerics import backend as B
from numerics import exact as E
from numerics.exact import Exact
from numerics.tolerances import relative_scale

Norm = Literal["l2", "l1"]
Constraint = Literal["margin", "interpolation"]
Status = Literal["certified", "solved", "failed"]

PRIMARY_SOLVER = "CLARABEL"
SECOND_SOLVER = {"l2": "OSQP", "l1": "HIGHS"}
FALLBACK_SOLVER = "SCS"
# warm_start=False: a cached (parametrized) problem is solved afresh, not from the solver state its last solve left,
# so a result does not depend on what this process solved before (cvxpy warm-starts by default)
_SOLVER_OPTIONS: dict[str, dict[str, Any]] = {
    "CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "warm_start": False},
    "OSQP": {"eps_abs": 1e-10, "eps_rel": 1e-10, "max_iter": 200_000, "polishing": True, "warm_start": False},
    "HIGHS": {"output_flag": False, "log_to_console": False,  # no solver log on stdout (see _quiet_highs)
              "warm_start": False},
    "SCS": {"eps": 1e-9, "max_iters": 200_000, "warm_start": False},
}
# Relative thresholds under which a numeric slack, dual or coordinate counts as zero. The first one that
# yields a verified certificate wins; all of them are tried before giving up.
_ZERO_THRESHOLDS = (1e-6, 1e-8, 1e-4)


@dataclass(frozen=True)
class CrossCheck:
    """The second solver's answer compared with the primary one (gaps relative to max(1, primary size))."""

    solver: str
    status: str
    objective_gap: float
    solution_gap: float  # meaningless for "l1" when the optimal face is not a point
    agree: bool
    tolerance: float


@dataclass(frozen=True, eq=False)
class Certificate:
    """Exact optimality certificate: exact (β, α) and the outcome of each exact KKT test."""

    solution: np.ndarray  # β, object array of sympy numbers
    duals: np.ndarray  # α
    slacks: np.ndarray  # Aβ − b: margins minus 1, or interpolation residuals
    objective: Exact  # f(β)
    dual_objective: Exact
    gap: Exact  # f(β) − dual objective
    norm: Exact  # ‖β‖ in the problem's weighted norm (√(Σ c_j β_j²) or Σ c_j |β_j|)
    primal_feasible: bool
    dual_feasible: bool
    stationary: bool  # c β = Aᵀα ("l2"); (Aᵀα)_j = c_j sign β_j on the support ("l1")
    complementary: bool  # α_i (Aβ − b)_i = 0 for all i
    zero_gap: bool

    @property
    def verified(self) -> bool:
        return self.primal_feasible and self.dual_feasible and self.stationary and self.complementary \
            and self.zero_gap

    @property
    def margin(self) -> Exact:
        """1 / ‖β‖: the (normalized) margin for margin problems."""
        return 1 / self.norm

    @property
    def direction(self) -> np.ndarray:
        """β / ‖β‖."""
        return E.canonical(self.solution / self.norm)

    def failed_tests(self) -> list[str]:
        names = ("primal_feasible", "dual_feasible", "stationary", "complementary", "zero_gap")
        return [name for name in names if not getattr(self, name)]


@dataclass(frozen=True, eq=False)
class ConvexReference:
    """Result of :meth:`ConvexProblem.solve`. Float fields come from the certificate when there is one."""

    problem: ConvexProblem
    status: Status
    message: str
    solver: str
    solution: np.ndarray | None = None  # β (float64)
    duals: np.ndarray | None = None  # α (float64)
    objective: float | None = None  # f(β)
    numeric_objective: float | None = None  # f(β) as the primary solver reported it
    active: tuple[int, ...] = ()  # constraints holding with equality (support vectors of an SVM)
    support: tuple[int, ...] = ()  # coordinates with β_j ≠ 0
    cross_check: CrossCheck | None = None
    certificate: Certificate | None = None

    @property
    def norm(self) -> float:
        beta, c = self._require_solution(), self.problem.float_weights
        if self.problem.norm == "l2":
            return float(np.sqrt(np.sum(c * beta**2)))
        return float(np.sum(c * np.abs(beta)))

    @property
    def margin(self) -> float:
        return 1.0 / self.norm

    @property
    def direction(self) -> np.ndarray:
        return self._require_solution() / self.norm

    def _require_solution(self) -> np.ndarray:
        if self.solution is None:
            raise ValueError(f"no solution: status {self.status!r} ({self.message})")
        return self.solution


@dataclass(frozen=True, eq=False)
class ConvexProblem:
    """min f_c(β) under margin or interpolation constraints on data X (n × d), y (n); see the module doc.

    X, y and the weights may be float arrays or object arrays of exact sympy numbers.
    """

    norm: Norm
    constraint: Constraint
    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray | None = None
    exact_A: np.ndarray = field(init=False, repr=False, compare=False)
    exact_b: np.ndarray = field(init=False, repr=False, compare=False)
    exact_weights: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.norm not in ("l2", "l1"):
            raise ValueError(f"norm must be 'l2' or 'l1', got {self.norm!r}")
        if self.constraint not in ("margin", "interpolation"):
            raise ValueError(f"constraint must be 'margin' or 'interpolation', got {self.constraint!r}")
        X, y = E.to_exact(self.X), E.to_exact(self.y)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(f"X must be n × d and y of length n, got X {X.shape} and y {y.shape}")
        c = E.to_exact(np.ones(X.shape[1], dtype=int) if self.weights is None else self.weights)
        if c.shape != (X.shape[1],) or np.any(E.signs(c) <= 0):
            raise ValueError("weights must be d positive numbers")
        if self.constraint == "margin":
            A, b = y[:, None] * X, np.array([sympy.Integer(1)] * X.shape[0], dtype=object)
        else:
            A, b = X, y
        object.__setattr__(self, "exact_A", A)
        object.__setattr__(self, "exact_b", b)
        object.__setattr__(self, "exact_weights", c)

    @property
    def float_weights(self) -> np.ndarray:
        return B.to_float(self.exact_weights)

    def solve(self) -> ConvexReference:
        primary = _solve_numeric(self, PRIMARY_SOLVER)
        if primary.failure is not None:
            return ConvexReference(self, "failed", primary.failure, PRIMARY_SOLVER)
        cross = _cross_check(self, primary)
        certificate, reason = _certify(self, primary)
        notes = [] if cross.agree else [
            f"{cross.solver} disagrees with {PRIMARY_SOLVER}: objective gap {cross.objective_gap:.2e}, "
            f"solution gap {cross.solution_gap:.2e} (tolerance {cross.tolerance:.0e}, status {cross.status})"]
        if certificate is None:
            active, support = _numeric_sets(self, primary, _ZERO_THRESHOLDS[0])
            return ConvexReference(self, "solved", "; ".join([f"not certified: {reason}", *notes]),
                                   PRIMARY_SOLVER, primary.beta, primary.alpha, primary.objective,
                                   primary.objective, active, support, cross)
        return ConvexReference(
            self, "certified", "; ".join(["exact KKT certificate verified", *notes]), PRIMARY_SOLVER,
            B.to_float(certificate.solution), B.to_float(certificate.duals), float(certificate.objective),
            primary.objective, tuple(int(i) for i in np.flatnonzero(E.signs(certificate.slacks) == 0)),
            tuple(int(j) for j in np.flatnonzero(E.signs(certificate.solution) != 0)), cross, certificate)


def max_margin(X: Any, y: Any, norm: Norm = "l2", weights: Any = None) -> ConvexReference:
    """min f_c(β) s.t. y_i⟨β, x_i⟩ ≥ 1 (hard-margin SVM without intercept for norm "l2")."""
    return ConvexProblem(norm, "margin", X, y, weights).solve()


def min_norm_interpolation(X: Any, y: Any, norm: Norm = "l2", weights: Any = None) -> ConvexReference:
    """min f_c(β) s.t. Xβ = y."""
    return ConvexProblem(norm, "interpolation", X, y, weights).solve()


# -- numeric solves ------------------------------------------------------------------------------------
_HIGHS_LOCK = threading.Lock()
_highs_banner_done = False


def _quiet_highs() -> None:
    """Swallow the banner HiGHS writes to file descriptor 1 ("Running HiGHS ... Copyright ...").

    highspy's C library prints it when the first ``highspy.Highs`` of a process is constructed, before any option
    can be set, so ``output_flag=False`` (set for every solve in ``_SOLVER_OPTIONS``) cannot stop it. Build that
    first instance once here with fd 1 pointed at /dev/null; later instances print nothing. A no-op without
    highspy.
    """
    global _highs_banner_done
    with _HIGHS_LOCK:
        if _highs_banner_done:
            return
        _highs_banner_done = True
        try:
            import highspy
        except ImportError:
            return
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as sink:
                os.dup2(sink.fileno(), 1)
                try:
                    highspy.Highs()
                finally:
                    os.dup2(saved, 1)
        finally:
            os.close(saved)


@dataclass(frozen=True, eq=False)
class _Numeric:
    solver: str
    status: str
    failure: str | None = None
    beta: np.ndarray | None = None
    alpha: np.ndarray | None = None
    objective: float | None = None
    slacks: np.ndarray | None = None

    @property
    def scale(self) -> float:
        """Size against which slacks and coordinates are judged zero."""
        return relative_scale(self.beta, self.slacks)


@dataclass(frozen=True, eq=False)
class _Template:
    """One cvxpy problem per (norm, constraint, shape, solver) whose data are parameters (DPP): cvxpy compiles it
    once and later solves only refill the solver's matrices, instead of canonicalizing a new problem each time."""

    problem: cp.Problem
    beta: cp.Variable
    constraint: cp.Constraint
    A: cp.Parameter
    b: cp.Parameter
    scale: cp.Parameter  # √c for "l2", c for "l1"


_PROGRAMS = threading.local()  # a program's parameters are state: one set per thread

T = TypeVar("T")


def parametrized_program(key: Hashable, build: Callable[[], T]) -> T:
    """The object ``build()`` makes for ``key`` (a cvxpy problem whose data are parameters, with its variables and
    constraints), built once per thread and key. A DPP problem is compiled on its first solve; later solves with new
    parameter values only refill the solver's matrices, where a problem built afresh is canonicalized every time
    (several milliseconds for the small programs here). Callers set every parameter before each solve."""
    programs = _PROGRAMS.__dict__.setdefault("cache", {})
    if key not in programs:
        programs[key] = build()
    return programs[key]


def _clear_programs() -> None:
    """Forget this thread's programs (the next call of each key builds afresh), as ``lru_cache``'s cache_clear."""
    _PROGRAMS.__dict__.pop("cache", None)


parametrized_program.cache_clear = _clear_programs  # type: ignore[attr-defined]


def _template(norm: Norm, constraint: Constraint, shape: tuple[int, int], solver: str) -> _Template:
    def build() -> _Template:
        A, b = cp.Parameter(shape), cp.Parameter(shape[0])
        scale, beta = cp.Parameter(shape[1], nonneg=True), cp.Variable(shape[1])
        objective = 0.5 * cp.sum_squares(cp.multiply(scale, beta)) if norm == "l2" else \
            cp.norm1(cp.multiply(scale, beta))
        con = A @ beta >= b if constraint == "margin" else A @ beta == b
        return _Template(cp.Problem(cp.Minimize(objective), [con]), beta, con, A, b, scale)

    return parametrized_program(("convex", norm, constraint, shape, solver), build)


def _solve_numeric(problem: ConvexProblem, solver: str) -> _Numeric:
    A, b, c = B.to_float(problem.exact_A), B.to_float(problem.exact_b), problem.float_weights
    template = _template(problem.norm, problem.constraint, A.shape, solver)
    template.A.value, template.b.value = A, b
    template.scale.value = np.sqrt(c) if problem.norm == "l2" else c
    cvx_problem, beta, constraint = template.problem, template.beta, template.constraint
    if solver == "HIGHS":
        _quiet_highs()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "solution may be inaccurate": the status says so
            cvx_problem.solve(solver=solver, **_SOLVER_OPTIONS[solver])
    except (cp.error.SolverError, ValueError, ArithmeticError) as error:
        return _Numeric(solver, "error", failure=f"{solver} error: {error}")
    if cvx_problem.status != cp.OPTIMAL or beta.value is None:
        return _Numeric(solver, str(cvx_problem.status), failure=f"{solver} status: {cvx_problem.status}")
    value = np.asarray(beta.value, dtype=np.float64)
    dual = constraint.dual_value
    # cvxpy's equality duals ν enter as f + νᵀ(Aβ − b); ours as f − αᵀ(Aβ − b).
    alpha = np.full(A.shape[0], np.nan) if dual is None else np.asarray(dual, dtype=np.float64).reshape(-1)
    if problem.constraint == "interpolation":
        alpha = -alpha
    return _Numeric(solver, str(cvx_problem.status), None, value, alpha, float(cvx_problem.value),
                    A @ value - b)


def _cross_check(problem: ConvexProblem, primary: _Numeric, tolerance: float = 1e-6) -> CrossCheck:
    second = _solve_numeric(problem, SECOND_SOLVER[problem.norm])
    if second.failure is not None:
        fallback = _solve_numeric(problem, FALLBACK_SOLVER)
        second = fallback if fallback.failure is None else second
    if second.failure is not None:
        return CrossCheck(second.solver, second.failure, np.inf, np.inf, False, tolerance)
    size = relative_scale(primary.objective)
    objective_gap = abs(primary.objective - second.objective) / size
    solution_gap = float(np.max(np.abs(primary.beta - second.beta)) / relative_scale(primary.beta))
    # An LP may have a whole optimal face, so only the objectives must agree there.
    agree = objective_gap <= tolerance and (problem.norm == "l1" or solution_gap <= np.sqrt(tolerance))
    return CrossCheck(second.solver, second.status, objective_gap, solution_gap, bool(agree), tolerance)


def _numeric_sets(problem: ConvexProblem, numeric: _Numeric, threshold: float
                  ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Active constraints (all of them for interpolation) and support of β̂ at a relative zero threshold."""
    zero = threshold * numeric.scale
    active = np.flatnonzero(np.abs(numeric.slacks) <= zero) if problem.constraint == "margin" \
        else np.arange(len(numeric.slacks))
    return tuple(int(i) for i in active), tuple(int(j) for j in np.flatnonzero(np.abs(numeric.beta) > zero))


# -- exact certificate ---------------------------------------------------------------------------------
def _certify(problem: ConvexProblem, numeric: _Numeric) -> tuple[Certificate | None, str]:
    """Exact re-solve on the detected active set for each zero threshold; the first verified one wins."""
    if np.any(~np.isfinite(numeric.alpha)):
        return None, "the solver returned no dual values"
    reason, tried = "", set()
    for threshold in _ZERO_THRESHOLDS:
        active, support = _numeric_sets(problem, numeric, threshold)
        if (active, support) in tried:
            continue
        tried.add((active, support))
        try:
            certificate = _exact_kkt_point(problem, numeric, active, support)
        except (E.NotAlgebraicError, ArithmeticError) as error:
            return None, f"no exact arithmetic for these data ({error})"
        if certificate is None:
            reason = f"exact KKT system on active set {active} is inconsistent"
        elif certificate.verified:
            return certificate, ""
        else:
            reason = f"exact tests failed on active set {active}: {', '.join(certificate.failed_tests())}"
    if problem.norm == "l1":  # an LP: some vertex of the optimal face is optimal too
        vertex = _certify_vertex(problem, numeric, tried)
        if vertex is not None:
            return vertex, ""
    return None, reason


_VERTEX_CANDIDATES = 64  # supports tried at most when the solver returned a point inside an optimal face


def _certify_vertex(problem: ConvexProblem, numeric: _Numeric,
                    tried: set[tuple[tuple[int, ...], tuple[int, ...]]]) -> Certificate | None:
    """The ℓ1 problem is an LP, so a vertex of its optimal face is optimal: where the solver returned a point inside
    a face (coordinates tied to rounding, e.g. equal singular values, split the weight) the exact KKT system on its
    support is inconsistent, but on a sub-support of at most as many coordinates as active constraints it holds.
    Tries those sub-supports (largest |β̂_j| first), each with its active set."""
    from itertools import combinations

    for active, support in sorted(tried):
        if len(support) <= len(active):
            continue
        ranked = sorted(support, key=lambda j: -abs(numeric.beta[j]))
        candidates = [tuple(sorted(c)) for size in range(1, len(active) + 1) for c in combinations(ranked, size)]
        for subset in candidates[:_VERTEX_CANDIDATES]:
            try:
                certificate = _exact_kkt_point(problem, numeric, active, subset)
            except (E.NotAlgebraicError, ArithmeticError):
                return None
            if certificate is not None and certificate.verified:
                return certificate
    return None


def _exact_kkt_point(problem: ConvexProblem, numeric: _Numeric, active: tuple[int, ...],
                     support: tuple[int, ...]) -> Certificate | None:
    A, b, c = problem.exact_A, problem.exact_b, problem.exact_weights
    n, d = A.shape
    # Prefer constraints with large duals when a dependent subset has to be dropped.
    active = tuple(sorted(active, key=lambda i: -abs(numeric.alpha[i])))
    start_beta, start_alpha = E.rationalize(numeric.beta), E.rationalize(numeric.alpha)
    if problem.norm == "l2":
        # Unknowns (β, α_S): c ⊙ β − A_Sᵀ α_S = 0 and A_S β = b_S.
        A_S = A[list(active)]
        M = np.block([[np.diag(c), -A_S.T], [A_S, np.zeros((len(active), len(active)), dtype=int)]])
        r = np.concatenate([np.zeros(d, dtype=int), b[list(active)]])
        z = E.nearest_solution(M, r, np.concatenate([start_beta, start_alpha[list(active)]]))
        if z is None:
            return None
        beta, alpha = z[:d], _scatter(z[d:], active, n)
    else:
        # Primal: β_j = 0 off the support and A_S β = b_S. Dual: α_i = 0 off the active set and
        # (Aᵀα)_j = c_j sign(β̂_j) on the support. Two independent affine problems.
        off_support = [j for j in range(d) if j not in support]
        beta = E.nearest_solution(np.vstack([np.eye(d, dtype=int)[off_support], A[list(active)]]),
                                  np.concatenate([np.zeros(len(off_support), dtype=int), b[list(active)]]),
                                  start_beta)
        inactive = [i for i in range(n) if i not in active]
        sign_hat = np.sign(numeric.beta[list(support)]).astype(int)
        alpha = E.nearest_solution(np.vstack([np.eye(n, dtype=int)[inactive], A[:, list(support)].T]),
                                   np.concatenate([np.zeros(len(inactive), dtype=int),
                                                   c[list(support)] * sign_hat]), start_alpha)
        if beta is None or alpha is None:
            return None
    return _verify(problem, beta, alpha)


def _scatter(values: np.ndarray, indices: tuple[int, ...], size: int) -> np.ndarray:
    out = np.array([sympy.Integer(0)] * size, dtype=object)
    out[list(indices)] = values
    return out


def _verify(problem: ConvexProblem, beta: np.ndarray, alpha: np.ndarray) -> Certificate:
    """Every KKT condition tested in exact arithmetic."""
    A, b, c = problem.exact_A, problem.exact_b, problem.exact_weights
    slacks = E.canonical(E.matvec(A, beta) - b)
    correlation = E.matvec(A.T, alpha)  # Aᵀα
    slack_signs, alpha_signs = E.signs(slacks), E.signs(alpha)
    if problem.constraint == "margin":
        primal_feasible = bool(np.all(slack_signs >= 0))
        dual_feasible = bool(np.all(alpha_signs >= 0))
    else:
        primal_feasible, dual_feasible = bool(np.all(slack_signs == 0)), True
    complementary = bool(np.all(E.signs(alpha * slacks) == 0))
    dual_linear = E.dot(b, alpha)
    if problem.norm == "l2":
        stationary = bool(np.all(E.signs(c * beta - correlation) == 0))
        objective = E.dot(c * beta, beta) / 2
        dual_objective = dual_linear - E.dot(correlation / c, correlation) / 2
        norm = sympy.sqrt(E.canonical_number(2 * objective))
    else:
        beta_signs = E.signs(beta)
        on_support = beta_signs != 0
        stationary = bool(np.all(E.signs(correlation[on_support] - c[on_support] * beta_signs[on_support]) == 0))
        dual_feasible = dual_feasible and bool(np.all(E.signs(c - E.signs(correlation) * correlation) >= 0))
        objective = E.dot(c, beta_signs * beta)
        dual_objective = dual_linear
        norm = objective
    gap = E.canonical_number(objective - dual_objective)
    return Certificate(beta, alpha, slacks, E.canonical_number(objective), E.canonical_number(dual_objective), gap,
                       norm, primal_feasible, dual_feasible, stationary, complementary,
                       E.sign(gap) == 0)


# -- group norms (second-order cone programs) ------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class GroupNormReference:
    """min Σ_g ‖B_g β‖₂ under margin or interpolation constraints, solved as a primal and as a dual SOCP.

    No exact certificate: ``gap`` (primal minus dual optimal value, relative to max(1, primal)) and the
    second solver's ``solution_gap`` are the evidence of optimality.
    """

    status: Literal["solved", "failed"]
    message: str
    solution: np.ndarray | None = None  # β
    objective: float | None = None  # Σ_g ‖B_g β‖₂
    dual_objective: float | None = None  # bᵀα at the dual optimum
    gap: float = np.inf
    solution_gap: float = np.inf  # max |β − β_second| / max(1, max |β|)
    duals: np.ndarray | None = None  # α at the dual optimum
    block_duals: np.ndarray | None = None  # ‖u_g‖₂ at the dual optimum: 1 on blocks with B_g β ≠ 0

    @property
    def margin(self) -> float:
        """1 / norm: the normalized margin of a margin problem."""
        return 1.0 / self.objective


def complex_l1_blocks(C: np.ndarray) -> list[np.ndarray]:
    """Blocks B_j = [Re C_j; Im C_j] with Σ_j ‖B_j β‖₂ = Σ_j |[Cβ]_j| = ‖Cβ‖₁ for real β."""
    C = np.asarray(C, dtype=complex)
    return [np.vstack([C[j].real, C[j].imag]) for j in range(C.shape[0])]


def group_norm_problem(X: Any, y: Any, blocks: list[np.ndarray], constraint: Constraint = "margin"
                       ) -> GroupNormReference:
    """min Σ_g ‖B_g β‖₂ s.t. y_i⟨β, x_i⟩ ≥ 1 (``"margin"``) or Xβ = y (``"interpolation"``).

    Dual: max bᵀα s.t. Aᵀα = Σ_g B_gᵀ u_g, ‖u_g‖₂ ≤ 1 (and α ≥ 0 for margins), with A = diag(y)X, b = 1 or
    A = X, b = y. Solved with CLARABEL; the primal is re-solved with SCS for the cross-check.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if constraint == "margin":
        A, b = y[:, None] * X, np.ones(len(y))
    else:
        A, b = X, y
    blocks = [np.atleast_2d(np.asarray(B_g, dtype=float)) for B_g in blocks]

    def primal(solver: str, epigraph: bool = False, accept_inaccurate: bool = False) -> np.ndarray | str:
        """β, or why not. ``epigraph``: Σ t_g with ‖B_g β‖₂ ≤ t_g as explicit cones (the same problem, handed to
        the solver in another form, for an independent cross-check)."""
        beta = cp.Variable(A.shape[1])
        if epigraph:
            t = cp.Variable(len(blocks))
            cost, cones = cp.sum(t), [cp.SOC(t[g], B_g @ beta) for g, B_g in enumerate(blocks)]
        else:
            cost, cones = sum(cp.norm(B_g @ beta, 2) for B_g in blocks), []
        feasible = A @ beta >= b if constraint == "margin" else A @ beta == b
        problem = cp.Problem(cp.Minimize(cost), [feasible, *cones])
        accepted = (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) if accept_inaccurate else (cp.OPTIMAL,)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "may be inaccurate": the measured gaps decide
                problem.solve(solver=solver, **_SOLVER_OPTIONS[solver])
        except (cp.error.SolverError, ValueError, ArithmeticError) as error:
            return f"{solver} error: {error}"
        if problem.status not in accepted:
            return f"{solver} status: {problem.status}"
        value = None if beta.value is None else np.asarray(beta.value, dtype=float)
        if value is None or not np.all(np.isfinite(value)):
            return f"{solver} returned no finite solution (status {problem.status})"
        return value

    beta = primal(PRIMARY_SOLVER)
    if isinstance(beta, str):
        return GroupNormReference("failed", beta)
    alpha = cp.Variable(A.shape[0], nonneg=constraint == "margin")
    u = [cp.Variable(B_g.shape[0]) for B_g in blocks]
    dual = cp.Problem(cp.Maximize(b @ alpha), [A.T @ alpha == sum(B_g.T @ u_g for B_g, u_g in zip(blocks, u))]
                      + [cp.norm(u_g, 2) <= 1 for u_g in u])
    try:
        dual.solve(solver=PRIMARY_SOLVER, **_SOLVER_OPTIONS[PRIMARY_SOLVER])
    except (cp.error.SolverError, ValueError, ArithmeticError) as error:
        return GroupNormReference("failed", f"dual {PRIMARY_SOLVER} error: {error}")
    if dual.status != cp.OPTIMAL or dual.value is None or not np.isfinite(dual.value) or alpha.value is None:
        return GroupNormReference("failed", f"dual {PRIMARY_SOLVER} status: {dual.status}")
    objective = float(sum(np.linalg.norm(B_g @ beta) for B_g in blocks))
    # Cross-check: SCS (a different algorithm; an inaccurate answer still counts, its gap is measured), else
    # CLARABEL on the epigraph form. Only if both fail is the solution gap unknown (inf), and the message says why.
    second, second_name, failures = None, "", []
    for solver, epigraph in ((FALLBACK_SOLVER, False), (PRIMARY_SOLVER, True)):
        answer = primal(solver, epigraph=epigraph, accept_inaccurate=True)
        if isinstance(answer, str):
            failures.append(answer)
            continue
        second, second_name = answer, solver + (" (epigraph form)" if epigraph else "")
        break
    solution_gap = np.inf if second is None else \
        float(np.max(np.abs(beta - second)) / relative_scale(beta))
    gap = (objective - float(dual.value)) / max(1.0, objective)
    cross = f"{second_name} solution gap {solution_gap:.1e}" if second is not None else \
        f"no cross-check ({'; '.join(failures)})"
    if second is not None and failures:
        cross += f" ({'; '.join(failures)})"
    return GroupNormReference("solved", f"primal–dual gap {gap:.1e}, {cross}", beta, objective, float(dual.value),
                              float(gap), solution_gap, np.asarray(alpha.value, dtype=float),
                              np.array([float(np.linalg.norm(u_g.value)) for u_g in u]))
