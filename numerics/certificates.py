"""Rigorous enclosures with python-flint: exact ranks, singular values, interval certification of inequalities.

Everything returned here is a proof, not an estimate: exact rational arithmetic (``fmpq_mat``) or ball
arithmetic (``arb``), whose every operation returns a ball that contains the exact result. Enclosures are
reported as :class:`Interval` (lo, hi) float pairs rounded outward, so the float interval still contains the
exact value. Float inputs are taken at their exact binary value (a float is a rational number).

Methods
-------
* Exact rank: ``fmpq_mat.rank`` (fraction-free elimination over Q).
* Singular values (:func:`enclose_singular_values`): a float SVD W ≈ U Σ Vᵀ verified in ball arithmetic.
  Let B = Uᵀ W V = D + F (D its diagonal, F the rest), η_U ≥ ‖UᵀU − I‖₂ and η_V ≥ ‖VᵀV − I‖₂.
  Weyl's inequality gives |σ_i(B) − σ_i(D)| ≤ ‖F‖₂ ≤ ‖F‖_F, and σ_i(XAY) ≤ ‖X‖‖Y‖σ_i(A), applied to
  B = UᵀWV and to W = U⁻ᵀ B V⁻¹, gives
  σ_i(B)/√((1+η_U)(1+η_V)) ≤ σ_i(W) ≤ σ_i(B)/√((1−η_U)(1−η_V)).
  The enclosures are as wide as the float SVD is inaccurate (≈ n·2⁻⁵³·σ1 absolute), never fail for
  repeated or zero singular values, and cost O(mn(m+n)) ball operations.
* Inequalities (:func:`certify_positive`): f is evaluated on a ball covering each cell of a box; a cell
  is certified when the enclosure of f lies above the threshold, and otherwise bisected up to a depth limit.
  Functions are written by the caller with arb operations, or translated from sympy by
  :func:`interval_function`. Use :func:`power` rather than ``**`` for integer powers: python-flint's
  ``arb.__pow__`` goes through exp/log and returns NaN or very wide balls on balls near or below zero.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from flint import arb, arb_mat, ctx, fmpq, fmpq_mat

Exact = int | float | str | Fraction | fmpq | sympy.Rational  # a number taken at its exact rational value


# -- result types -----------------------------------------------------------------------------------------

_LARGEST = sys.float_info.max


def _float_below(x: arb) -> float:
    """The largest float ≤ the exact point x (−inf for NaN)."""
    if not x.is_finite():
        return -math.inf
    value = float(x)
    if arb(value) > x:
        value = math.nextafter(value, -math.inf)
    return value


def _float_above(x: arb) -> float:
    """The smallest float ≥ the exact point x (+inf for NaN)."""
    if not x.is_finite():
        return math.inf
    value = float(x)
    if arb(value) < x:
        value = math.nextafter(value, math.inf)
    return value


@dataclass(frozen=True)
class Interval:
    """A closed interval [lo, hi] of floats; from a ball it is rounded outward, so it contains the exact value."""

    lo: float
    hi: float

    @staticmethod
    def from_arb(x: arb) -> Interval:
        """[lower, upper] of the ball, rounded outward; a NaN or infinite ball gives (−inf, inf)."""
        if not x.is_finite():
            return Interval(-math.inf, math.inf)
        return Interval(_float_below(x.lower()), _float_above(x.upper()))

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def contains(self, value: float) -> bool:
        return self.lo <= value <= self.hi

    def __str__(self) -> str:
        return f"[{self.lo:.6g}, {self.hi:.6g}]"


Box = tuple[Interval, ...]


@dataclass(frozen=True)
class Enclosure:
    """Rigorous enclosures of a list of real quantities; ``certified`` when every interval is finite."""

    certified: bool
    intervals: tuple[Interval, ...]
    description: str


@dataclass(frozen=True)
class RankCertificate:
    """``certified``: rank(W) ≥ ``rank`` is proved (σ_rank > 0).

    Whether or not it is, W lies within ``spectral_distance`` (= an upper bound on σ_{rank+1}) in spectral
    norm and within ``frobenius_distance`` (≥ √Σ_{i>rank} σ_i²) in Frobenius norm of a matrix of rank ≤ ``rank``.
    """

    certified: bool
    rank: int
    sigma_rank: Interval
    spectral_distance: float
    frobenius_distance: float
    description: str


@dataclass(frozen=True)
class CellResult:
    """One cell of the initial grid: certified, or the sub-cells left uncertified by the bisection."""

    box: Box
    certified: bool
    lower_bound: float  # min over the final sub-cells of the lower end of f's enclosure (rounded down)
    uncertified: tuple[Box, ...]


@dataclass(frozen=True)
class IntervalCertificate:
    """``certified``: f > threshold (or ≥ with ``strict=False``) holds on every point of the box.

    ``witness`` is a point where the inequality certainly fails (found on uncertified sub-cells), which
    refutes the statement; ``None`` when no such point was found.
    """

    certified: bool
    threshold: Fraction
    strict: bool
    cells: tuple[CellResult, ...]
    min_lower_bound: float
    evaluations: int
    witness: tuple[Fraction, ...] | None
    witness_value: Interval | None
    description: str

    @property
    def certified_cells(self) -> tuple[Box, ...]:
        return tuple(cell.box for cell in self.cells if cell.certified)

    @property
    def failed_cells(self) -> tuple[Box, ...]:
        return tuple(cell.box for cell in self.cells if not cell.certified)


# -- exact rationals ---------------------------------------------------------------------------------------

def to_fmpq(value: Any) -> fmpq:
    """The exact rational value of an int, float, str, Fraction or sympy Rational.

    A float counts at its binary value (0.1 is 3602879701896397/2⁵⁵); a string is read as an exact decimal or
    fraction ('0.1' is 1/10, '16/17')."""
    if isinstance(value, fmpq):
        return value
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        numerator, denominator = float(value).as_integer_ratio()
        return fmpq(numerator, denominator)
    if isinstance(value, (int, np.integer)):
        return fmpq(int(value))
    if isinstance(value, sympy.Basic):
        if not value.is_Rational:
            raise ValueError(f"{value} is not a rational number")
        return fmpq(int(value.p), int(value.q))
    fraction = Fraction(value)
    return fmpq(fraction.numerator, fraction.denominator)


def to_fmpq_mat(W: Any) -> fmpq_mat:
    """Exact rational copy of a matrix (fmpq_mat, sympy Matrix, nested lists or arrays of exact numbers/floats)."""
    if isinstance(W, fmpq_mat):
        return W
    rows = W.tolist() if hasattr(W, "tolist") else [list(row) for row in W]
    if not rows or not rows[0]:
        raise ValueError("empty matrix")
    return fmpq_mat([[to_fmpq(v) for v in row] for row in rows])


def exact_rank(W: Any) -> int:
    """rank(W) over Q; floats count at their exact binary values (so float noise makes a matrix full rank)."""
    return to_fmpq_mat(W).rank()


# -- singular values -----------------------------------------------------------------------------------------

def _arb_matrix(W: Any) -> tuple[arb_mat, np.ndarray]:
    """W as a ball matrix (exact for floats, rounded balls for rationals) and as float64."""
    if isinstance(W, (fmpq_mat, sympy.MatrixBase)) or np.asarray(W).dtype == object:
        exact = to_fmpq_mat(W)
        entries = [[arb(exact[i, j]) for j in range(exact.ncols())] for i in range(exact.nrows())]
        approx = np.array([[float(exact[i, j]) for j in range(exact.ncols())] for i in range(exact.nrows())])
        return arb_mat(entries), approx
    approx = np.asarray(W, dtype=np.float64)
    if approx.ndim != 2 or approx.size == 0 or not np.all(np.isfinite(approx)):
        raise ValueError("expected a nonempty finite matrix")
    return arb_mat(approx.tolist()), approx


def _frobenius_upper(M: arb_mat) -> arb:
    """An exact point ≥ ‖M‖_F = √trace(MᵀM)."""
    return (M.transpose() * M).trace().sqrt().upper()


def _sorted_descending(points: list[arb]) -> list[arb]:
    """Exact points sorted in decreasing order (exact comparisons; the points are balls of radius 0)."""
    return sorted(points, key=functools.cmp_to_key(lambda a, b: -1 if a > b else (1 if a < b else 0)))


def enclose_singular_values(W: Any, *, prec: int = 128) -> Enclosure:
    """Rigorous enclosures of σ_1 ≥ … ≥ σ_min(m,n) of a float or rational matrix (method in the module doc)."""
    with ctx.workprec(prec):
        M, approx = _arb_matrix(W)
        m, n = approx.shape
        U, _, Vt = np.linalg.svd(approx)
        Ub, Vb = arb_mat(U.tolist()), arb_mat(Vt.T.tolist())
        B = Ub.transpose() * M * Vb
        defect_u = _frobenius_upper(Ub.transpose() * Ub - arb_mat(np.eye(m).tolist()))
        defect_v = _frobenius_upper(Vb.transpose() * Vb - arb_mat(np.eye(n).tolist()))
        k = min(m, n)
        diagonal = [B[i, i] for i in range(k)]
        for i in range(k):
            B[i, i] = arb(0)
        off_diagonal = _frobenius_upper(B)
        if not (defect_u < 1 and defect_v < 1):
            unbounded = tuple(Interval(0.0, math.inf) for _ in range(k))
            return Enclosure(False, unbounded, f"singular values of a {m}×{n} matrix: float SVD too inaccurate")
        shrink = ((1 + defect_u) * (1 + defect_v)).sqrt()
        grow = ((1 - defect_u) * (1 - defect_v)).sqrt()
        lows = _sorted_descending([d.abs_lower() for d in diagonal])
        highs = _sorted_descending([d.abs_upper() for d in diagonal])
        intervals = []
        for low, high in zip(lows, highs):
            lower = ((low - off_diagonal) / shrink).lower()
            upper = ((high + off_diagonal) / grow).upper()
            intervals.append(Interval(max(0.0, _float_below(lower)), _float_above(upper)))
    width = max(interval.width for interval in intervals)
    return Enclosure(True, tuple(intervals), f"singular values of a {m}×{n} matrix enclosed (float SVD + Weyl "
                                             f"bound), widths ≤ {width:.2e}")


def certify_rank(W: Any, rank: int, *, prec: int = 128) -> RankCertificate:
    """Prove rank(W) ≥ ``rank`` from σ_rank > 0; bound the distance from W to the matrices of rank ≤ ``rank``."""
    enclosure = enclose_singular_values(W, prec=prec)
    k = len(enclosure.intervals)
    if not 0 <= rank <= k:
        raise ValueError(f"rank must lie in [0, {k}] for this matrix, got {rank}")
    sigma = enclosure.intervals[rank - 1] if rank > 0 else Interval(math.inf, math.inf)  # σ_0 = +∞
    tail = enclosure.intervals[rank:]
    spectral = tail[0].hi if tail else 0.0
    with ctx.workprec(prec):
        squares = sum((arb(t.hi) * arb(t.hi) for t in tail), arb(0))
        frobenius = _float_above(squares.sqrt().upper())
    certified = enclosure.certified and sigma.lo > 0
    verdict = "certified" if certified else "NOT certified"
    return RankCertificate(
        certified, rank, sigma, spectral, frobenius,
        f"rank ≥ {rank} {verdict}: σ_{rank} ∈ {sigma}; distance to rank ≤ {rank}: ≤ {spectral:.3e} (spectral), "
        f"≤ {frobenius:.3e} (Frobenius)")


# -- functions on balls ------------------------------------------------------------------------------------

def ball(lo: Exact, hi: Exact | None = None) -> arb:
    """A ball containing the exact rational interval [lo, hi] (the point lo if hi is None).

    Radii have 30-bit mantissas, so the ball sticks out of [lo, hi] by up to 2⁻³⁰ of its width; it is clipped
    at 0 when lo ≥ 0 (or hi ≤ 0) so that cells starting at 0 stay inside the domain of sqrt and friends.
    """
    left = to_fmpq(lo)
    if hi is None:
        return arb(left)
    right = to_fmpq(hi)
    return _ball_between(arb(left), arb(right), nonnegative=left >= 0, nonpositive=right <= 0)


def _ball_between(a: arb, b: arb, *, nonnegative: bool = False, nonpositive: bool = False) -> arb:
    """A ball containing [a.lower(), b.upper()], clipped to [0, ∞) or (−∞, 0] when that interval is known to be."""
    union = a.lower().union(b.upper())
    if nonnegative:
        return union.nonnegative_part()
    if nonpositive:
        return -(-union).nonnegative_part()
    return union


def power(x: arb, exponent: int) -> arb:
    """x**exponent for an integer exponent, tight on balls that contain zero or negative numbers."""
    if exponent < 0:
        return 1 / power(x, -exponent)
    if exponent % 2:  # (x⁰ = 1 takes the even branch: both ends' repeated products are 1)
        lower, upper = x.lower(), x.upper()
        return _ball_between(_repeated_product(lower, exponent), _repeated_product(upper, exponent))
    lower, upper = x.abs_lower(), x.abs_upper()
    return _ball_between(_repeated_product(lower, exponent), _repeated_product(upper, exponent), nonnegative=True)


def _repeated_product(x: arb, exponent: int) -> arb:
    result, base = arb(1), x
    while exponent:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result


_UNARY: dict[type, Callable[[arb], arb]] = {
    sympy.exp: arb.exp, sympy.log: arb.log, sympy.sin: arb.sin, sympy.cos: arb.cos, sympy.tan: arb.tan,
    sympy.atan: arb.atan, sympy.asin: arb.asin, sympy.acos: arb.acos, sympy.sinh: arb.sinh,
    sympy.cosh: arb.cosh, sympy.tanh: arb.tanh, sympy.Abs: abs,
}


def _to_arb(expr: sympy.Basic, values: Mapping[sympy.Symbol, arb]) -> arb:
    if expr.is_Symbol:
        return values[expr]
    if expr.is_Rational:
        return arb(to_fmpq(expr))
    if expr.is_Float:  # a binary number: exact as a rational
        return arb(to_fmpq(sympy.Rational(expr)))
    if expr is sympy.pi:
        return arb.pi()
    if expr is sympy.E:
        return arb(1).exp()
    if expr.is_Add:
        return functools.reduce(lambda a, b: a + b, (_to_arb(arg, values) for arg in expr.args))
    if expr.is_Mul:
        return functools.reduce(lambda a, b: a * b, (_to_arb(arg, values) for arg in expr.args))
    if expr.is_Pow:
        base, exponent = expr.args
        b = _to_arb(base, values)
        if exponent.is_Integer:
            return power(b, int(exponent))
        if exponent == sympy.S.Half:
            return b.sqrt()
        if exponent == -sympy.S.Half:
            return b.rsqrt()
        return (_to_arb(exponent, values) * b.log()).exp()
    if type(expr) in _UNARY:
        return _UNARY[type(expr)](_to_arb(expr.args[0], values))
    raise ValueError(f"no ball rule for {type(expr).__name__} in {expr}")


def interval_function(expr: sympy.Expr, variables: Sequence[sympy.Symbol]) -> Callable[..., arb]:
    """A function of arb balls that encloses the real sympy expression ``expr`` of ``variables``.

    Supports + − × ÷, integer and rational powers, exp, log, trig, atan, hyperbolic functions and Abs;
    anything else raises ValueError. Complex intermediate values (log of a negative ball) give NaN balls,
    which never certify anything.
    """
    expr = sympy.sympify(expr)
    variables = tuple(variables)

    def evaluate(*balls: arb) -> arb:
        return _to_arb(expr, dict(zip(variables, balls, strict=True)))

    return evaluate


def enclose(f: Callable[..., arb], box: Sequence[tuple[Exact, Exact]], *, prec: int = 53) -> Interval:
    """An interval containing f(x) for every x in the box (one ball evaluation, no refinement)."""
    with ctx.workprec(prec):
        return Interval.from_arb(f(*(ball(lo, hi) for lo, hi in box)))


# -- certification of inequalities by bisection ------------------------------------------------------------

_ExactBox = tuple[tuple[fmpq, fmpq], ...]


def _grid(box: _ExactBox, cells: Sequence[int]) -> list[_ExactBox]:
    axes = [[(lo + (hi - lo) * fmpq(i, count), lo + (hi - lo) * fmpq(i + 1, count)) for i in range(count)]
            for (lo, hi), count in zip(box, cells)]
    grid: list[_ExactBox] = [()]
    for axis in axes:
        grid = [cell + (piece,) for cell in grid for piece in axis]
    return grid


def _bisect(cell: _ExactBox, scale: Sequence[fmpq]) -> tuple[_ExactBox, _ExactBox]:
    """Halve the cell along its widest side, widths measured relative to the initial cell's."""
    axis = max(range(len(cell)), key=lambda i: (cell[i][1] - cell[i][0]) / scale[i])
    lo, hi = cell[axis]
    middle = (lo + hi) / 2
    return (cell[:axis] + ((lo, middle),) + cell[axis + 1:], cell[:axis] + ((middle, hi),) + cell[axis + 1:])


def _show(x: fmpq) -> str:
    """An integer as such (3), a float's shortest repr when x is that float exactly (0.1), else p/q (16/17)."""
    try:
        approx = float(x)
    except OverflowError:  # beyond the float range
        return str(x)
    return str(x) if x.q == 1 or to_fmpq(approx) != x else repr(approx)


def _rational_below(x: fmpq) -> float:
    """The largest float ≤ the rational x, decided exactly (a 64-bit ball of x could straddle a float)."""
    try:
        value = int(x.p) / int(x.q)  # int / int is correctly rounded (what float(Fraction) computes)
    except OverflowError:
        return -math.inf if x < 0 else _LARGEST
    return math.nextafter(value, -math.inf) if to_fmpq(value) > x else value


def _rational_above(x: fmpq) -> float:
    """The smallest float ≥ the rational x, decided exactly."""
    return -_rational_below(-x)


def _as_interval_box(cell: _ExactBox) -> Box:
    """An exact cell as float intervals rounded outward (each contains its exact side)."""
    return tuple(Interval(_rational_below(lo), _rational_above(hi)) for lo, hi in cell)


def _fraction(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


@dataclass
class _Bisection:
    """Bisection state shared by the cells of one certification: the budget spent and the first counterexample."""

    f: Callable[..., arb]
    threshold: arb
    strict: bool
    max_depth: int
    max_evaluations: int
    evaluations: int = 0
    witness: tuple[fmpq, ...] | None = None
    witness_value: Interval | None = None

    def evaluate(self, balls: Sequence[arb]) -> arb:
        self.evaluations += 1
        return self.f(*balls)

    def holds(self, value: arb) -> bool:
        """f > threshold (f ≥ threshold) is certain on the whole ball."""
        return bool(value > self.threshold) if self.strict else bool(value >= self.threshold)

    def fails(self, value: arb) -> bool:
        """f ≤ threshold (f < threshold) is certain on the whole ball."""
        return bool(value <= self.threshold) if self.strict else bool(value < self.threshold)

    def certify(self, initial: _ExactBox) -> CellResult:
        scale = [max(hi - lo, fmpq(1, 2**64)) for lo, hi in initial]
        stack, lowest, uncertified = [(initial, 0)], math.inf, []
        while stack:
            cell, depth = stack.pop()
            if self.evaluations >= self.max_evaluations:  # budget spent: the rest stays uncertified
                lowest = -math.inf
                uncertified.append(cell)
                continue
            value = self.evaluate([ball(lo, hi) for lo, hi in cell])
            if self.holds(value):
                lowest = min(lowest, _float_below(value.lower()))
                continue
            violated_everywhere = self.fails(value)
            if depth < self.max_depth and not violated_everywhere:
                stack.extend((half, depth + 1) for half in _bisect(cell, scale))
                continue
            lowest = min(lowest, _float_below(value.lower()))
            uncertified.append(cell)
            if self.witness is None:
                self._look_for_counterexample(cell)
        return CellResult(_as_interval_box(initial), not uncertified, lowest,
                          tuple(_as_interval_box(cell) for cell in uncertified))

    def _look_for_counterexample(self, cell: _ExactBox) -> None:
        point = tuple((lo + hi) / 2 for lo, hi in cell)
        value = self.evaluate([arb(x) for x in point])
        if self.fails(value):
            self.witness, self.witness_value = point, Interval.from_arb(value)


def certify_positive(
    f: Callable[..., arb],
    box: Sequence[tuple[Exact, Exact]],
    *,
    threshold: Exact = 0,
    strict: bool = True,
    cells: int | Sequence[int] = 1,
    max_depth: int = 30,
    max_evaluations: int = 20_000,
    prec: int = 53,
) -> IntervalCertificate:
    """Prove f(x) > threshold (≥ with ``strict=False``) for every x in the closed box.

    ``box`` gives exact bounds per variable (floats at their binary value, or '16/17' style strings);
    f takes one arb per variable. The box is cut into ``cells`` equal cells per axis; each cell is certified
    by ball evaluation and bisection of the sub-cells that fail, at most ``max_depth`` halvings deep and at
    most ``max_evaluations`` evaluations overall. A sub-cell on which f certainly violates the inequality is
    not bisected further, and the midpoint of an uncertified sub-cell where the violation is certain becomes
    the ``witness``. Statements on half-open ranges such as ε ∈ (0, a] must be certified on [δ, a] (the
    description names the closed box certified) and the end near 0 argued separately, e.g. by a series or
    exact sign analysis.
    """
    exact_box: _ExactBox = tuple((to_fmpq(lo), to_fmpq(hi)) for lo, hi in box)
    if any(lo > hi for lo, hi in exact_box):
        raise ValueError(f"empty box {box}")
    counts = [cells] * len(exact_box) if isinstance(cells, int) else list(cells)
    c = to_fmpq(threshold)
    with ctx.workprec(prec):
        search = _Bisection(f, arb(c), strict, max_depth, max_evaluations)
        results = tuple(search.certify(initial) for initial in _grid(exact_box, counts))
    certified = all(cell.certified for cell in results)
    claim = f"f {'>' if strict else '≥'} {_show(c)}"
    where = " × ".join(f"[{_show(lo)}, {_show(hi)}]" for lo, hi in exact_box)
    if certified:
        description = f"{claim} certified on {where} ({len(results)} cells, {search.evaluations} ball evaluations)"
    else:
        failed = sum(not cell.certified for cell in results)
        description = f"{claim} NOT certified on {where}: {failed}/{len(results)} cells failed"
        if search.witness:
            description += f"; counterexample f({', '.join(map(_show, search.witness))}) ∈ {search.witness_value}"
    return IntervalCertificate(
        certified, _fraction(c), strict, results, min(cell.lower_bound for cell in results), search.evaluations,
        tuple(map(_fraction, search.witness)) if search.witness else None, search.witness_value, description)
