"""Edges of the high-precision GBS integrator pinned against closed forms and hand-computed instances (32 digits).

Quadratures y' = p(t) make the extrapolation tableau exact rational arithmetic: Gragg's midpoint rule with n
substeps is the composite midpoint rule with n/2 panels, and row j of the tableau (n = 2, 4, …, 2j + 2) integrates
polynomials of degree ≤ 2j + 1 exactly, after (j + 1)² evaluations. A field that is 1 everywhere (y = t) makes every
step exact, so the region-exit bisection can be checked against the known crossing time.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from test_hp_ode import DPS, scaled_error, working_precision  # noqa: F401 (autouse fixture: 32 digits)

from numerics import backend as B
from numerics.hp_ode import HPStatus, _Extrapolation, _locate_exit, integrate

SAFETY, MIN_FACTOR, MAX_FACTOR, LIMIT = 0.94, 0.02, 4.0, 0.65  # Hairer–Wanner ODEX step-size control


def mp(value: Fraction | int | str) -> mpmath.mpf:
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value)


def vec(*values) -> np.ndarray:
    return B.to_object(list(values), "mp")


def constant_field(value: int | float = 1):
    return lambda t, y: np.array([mpmath.mpf(value)] * len(y), dtype=object)


def polynomial_field(coefficients: dict[int, Fraction]):
    """y' = Σ c_k t^k (independent of y)."""
    return lambda t, y: np.array([sum(mp(c) * t**k for k, c in coefficients.items())], dtype=object)


def midpoint_tableau(coefficients: dict[int, Fraction], rows: int) -> list[list[Fraction]]:
    """The exact extrapolation tableau of ∫₀¹ p: composite midpoint rule with n/2 panels for n = 2, 4, …, then
    Aitken–Neville in H² with the factors (n_j / n_{j−k})² − 1."""
    def midpoint(n: int) -> Fraction:
        return sum(Fraction(2, n) * sum(c * Fraction(2 * i + 1, n) ** k for k, c in coefficients.items())
                   for i in range(n // 2))

    table: list[list[Fraction]] = []
    for j in range(rows):
        row = [midpoint(2 * j + 2)]
        for k in range(1, j + 1):
            row.append(row[k - 1] + (row[k - 1] - table[-1][k - 1]) / (Fraction(j + 1, j - k + 1) ** 2 - 1))
        table.append(row)
    return table


def proposal(err: float, j: int) -> float:
    """ODEX step factor of row j for the scaled error err (clamped)."""
    return min(MAX_FACTOR, max(MIN_FACTOR, SAFETY * (LIMIT / err) ** (1 / (2 * j + 1))))


# --- the extrapolation step -----------------------------------------------------------------------------------


@pytest.mark.parametrize("m", range(5))
def test_row_m_plus_1_integrates_degree_2m_plus_1_exactly(m: int) -> None:
    """y' = t^{2m+1} on [1, 2]: rows 1..m are not exact (row 0 has no error estimate), row m + 1 is, so the step is
    accepted there after Σ_{i ≤ m+1} (n_i − 1) = (m + 2)² evaluations (f0 given): y(2) = 1 + (2^{2m+2} − 1)/(2m + 2)."""
    stepper = _Extrapolation(polynomial_field({2 * m + 1: Fraction(1)}), mp("1e-30"), mp("1e-30"), 16)
    t0, y0 = mp(1), vec(1)
    y, _ = stepper.step(t0, y0, stepper.fun(t0, y0), mp(1))
    exact = 1 + (mp(2) ** (2 * m + 2) - 1) / (2 * m + 2)
    assert y is not None and scaled_error(y, [exact]) < 10
    assert stepper.nfev == (m + 2) ** 2 and stepper.n_steps == 1 and stepper.n_rejected == 0
    assert stepper.substeps[:3] == [2, 4, 6] and stepper.work[:4] == [2, 5, 10, 17]  # A_j = 1 + (j + 1)²


def test_exact_step_raises_by_the_largest_factor_and_the_cost_ratio() -> None:
    """y' = 1: row 1 agrees exactly with row 0 (err = 0), so factor = 4 and, accepted at row 1, the order goes up:
    4H · A_2/A_1 = 4 · 10/5 = 8H."""
    stepper = _Extrapolation(constant_field(), mp("1e-30"), mp("1e-30"), 16)
    y, h_next = stepper.step(mp(0), vec(3), vec(1), mp("0.5"))
    assert y is not None and y[0] == mp("3.5")
    assert h_next == 4
    assert stepper.nfev == 4 and stepper.n_steps == 1


def test_unclamped_row_one_proposal() -> None:
    """∫₀¹ t²: row 0 = 1/4, row 1 = [5/16, 1/3] (exact), err = (1/48)/atol. With err = 0.65/8 the factor is
    0.94 · 8^{1/3} = 1.88; accepted at row 1 the next step is 1.88 · A_2/A_1 = 3.76."""
    atol = mp(Fraction(1, 48)) / (mpmath.mpf(LIMIT) / 8)
    stepper = _Extrapolation(polynomial_field({2: Fraction(1)}), mp(0), atol, 16)
    y, h_next = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is not None and abs(y[0] - mp(1) / 3) < mp("1e-30")
    assert abs(h_next - mp("3.76")) < 1e-12


@pytest.mark.parametrize("err, h_next", [
    (LIMIT * (SAFETY / 0.1) ** 3, 0.1),  # factor 0.1, under the cap h/4
    (LIMIT * (SAFETY / 0.2) ** 3, 0.2),
    (1e12, MIN_FACTOR),  # the factor is clamped from below
    (LIMIT * 8, 0.25),  # factor 0.47: the rejection never proposes more than h/4
])
def test_rejected_step_proposal(err: float, h_next: float) -> None:
    """With max_rows = 2 the only error estimate is row 1's, err = (1/48)/atol > 1: the step is rejected and the
    proposal is min(h · clamp(0.94 (0.65/err)^{1/3}), h/4)."""
    atol = mp(Fraction(1, 48)) / mpmath.mpf(err)
    stepper = _Extrapolation(polynomial_field({2: Fraction(1)}), mp(0), atol, 2)
    y, proposed = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is None and stepper.n_rejected == 1 and stepper.n_steps == 0
    assert abs(proposed - h_next) < 1e-12 * h_next


def test_rejected_when_row_one_barely_misses() -> None:
    """err = 1 is accepted (≤ 1), slightly more is rejected."""
    d = Fraction(1, 48)
    for err, accepted in [(Fraction(1), True), (Fraction(1) + Fraction(1, 10**6), False)]:
        stepper = _Extrapolation(polynomial_field({2: Fraction(1)}), mp(0), mp(d / err), 2)
        y, _ = stepper.step(mp(0), vec(0), vec(0), mp(1))
        assert (y is not None) is accepted


@pytest.mark.parametrize("cubic, branch", [(Fraction(0), "raise"), (Fraction(-1, 2), "keep"),
                                           (Fraction(-3, 4), "lower")])
def test_order_selection_after_row_two(cubic: Fraction, branch: str) -> None:
    """y' = t⁵ + c t³ on [0, 1]: row 1 is off, row 2 is exact. atol is chosen so that row 2's err is 1/2; row 1's
    err follows from the exact tableau. ODEX: with work per unit step W_i = A_i/h_i, lower the order if
    W_1 < 0.8 W_2, else raise (h_2 · A_3/A_2) if W_2 < 0.9 W_1, else keep h_2."""
    coefficients = {5: Fraction(1), 3: cubic}
    table = midpoint_tableau(coefficients, 3)
    d1, d2 = abs(table[1][1] - table[1][0]), abs(table[2][2] - table[2][1])
    atol = 2 * d2
    s1, s2 = proposal(float(d1 / atol), 1), proposal(0.5, 2)
    w1, w2 = 5 / s1, 10 / s2
    expected = {"lower": s1, "keep": s2, "raise": s2 * 17 / 10}[branch]
    assert branch == ("lower" if w1 < 0.8 * w2 else "raise" if w2 < 0.9 * w1 else "keep")
    stepper = _Extrapolation(polynomial_field(coefficients), mp(0), mp(atol), 16)
    y, h_next = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is not None and abs(y[0] - mp(Fraction(1, 6) + cubic / 4)) < mp("1e-30")
    assert stepper.nfev == 9  # accepted at row 2
    assert abs(h_next - expected) < 1e-12
    # with only three rows there is no higher order to raise to: keep h_2
    if branch == "raise":
        stepper = _Extrapolation(polynomial_field(coefficients), mp(0), mp(atol), 3)
        assert abs(stepper.step(mp(0), vec(0), vec(0), mp(1))[1] - s2) < 1e-12


@pytest.mark.parametrize("max_rows, h_next", [(3, 8), (2, 4)])
def test_order_is_raised_only_when_a_next_row_exists(max_rows: int, h_next: int) -> None:
    """y' = 1 accepted at row 1 with factor 4: raise to 4 · A_2/A_1 = 8 if row 2 exists, else keep 4."""
    stepper = _Extrapolation(constant_field(), mp("1e-30"), mp("1e-30"), max_rows)
    assert stepper.step(mp(0), vec(0), vec(1), mp(1))[1] == h_next


def scaled_tableau_errors(coefficients: dict[int, Fraction], rows: int, atol: Fraction) -> list[float]:
    table = midpoint_tableau(coefficients, rows)
    return [float(abs(table[j][j] - table[j][j - 1]) / atol) for j in range(1, rows)]


def test_growing_error_at_row_two_does_not_reject() -> None:
    """y' = t⁵ − 0.9 t³: scaled errors 2 (row 1), ≈ 3.5 (row 2, larger), 0 (row 3, exact). Divergence only counts
    from row 3 on, so the step is accepted at row 3 after 16 evaluations."""
    coefficients = {5: Fraction(1), 3: Fraction(-9, 10)}
    atol = abs(midpoint_tableau(coefficients, 2)[1][1] - midpoint_tableau(coefficients, 2)[1][0]) / 2
    errs = scaled_tableau_errors(coefficients, 4, atol)
    assert errs[0] == 2 and errs[1] > errs[0] > 1 and errs[2] == 0
    stepper = _Extrapolation(polynomial_field(coefficients), mp(0), mp(atol), 16)
    y, _ = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is not None and abs(y[0] - mp(Fraction(1, 6) - Fraction(9, 40))) < mp("1e-30")
    assert stepper.nfev == 16 and stepper.n_rejected == 0


def test_growing_error_at_row_three_rejects() -> None:
    """y' = t⁷ − 2 t⁵: scaled errors ≈ 5500, 2, ≈ 20, 0 (rows 1–4). The estimate grows at row 3, so the step is
    rejected there (16 evaluations) although row 4 would be exact; the proposal is at most h/4."""
    coefficients = {7: Fraction(1), 5: Fraction(-2)}
    table = midpoint_tableau(coefficients, 3)
    atol = abs(table[2][2] - table[2][1]) / 2
    errs = scaled_tableau_errors(coefficients, 5, atol)
    assert errs[0] > errs[1] == 2 and errs[2] > errs[1] and errs[3] == 0
    stepper = _Extrapolation(polynomial_field(coefficients), mp(0), mp(atol), 16)
    y, proposed = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is None and stepper.nfev == 16 and stepper.n_rejected == 1 and proposed == mp("0.25")


# --- integrate: tolerances, checkpoints, stopping rules ----------------------------------------------------------


def growth(t, y):
    return y


def test_default_tolerance_is_ten_to_minus_dps_minus_two() -> None:
    default = integrate(growth, 0, [1], 1)
    tol = mpmath.mpf(10) ** -(DPS - 2)
    explicit = integrate(growth, 0, [1], 1, rtol=tol, atol=tol)
    assert default.nfev == explicit.nfev and default.y[-1][0] == explicit.y[-1][0]
    looser = integrate(growth, 0, [1], 1, rtol=tol * 10, atol=tol)
    tighter = integrate(growth, 0, [1], 1, rtol=tol, atol=tol * 1e-3)
    assert looser.y[-1][0] != default.y[-1][0] and tighter.nfev != default.nfev
    assert scaled_error(looser.y[-1], [mpmath.e]) < 1000


def test_checkpoint_at_the_start_and_bounds_of_t_eval() -> None:
    sol = integrate(growth, "0.25", [1], 1, t_eval=["0.25", "0.5"])
    assert sol.status is HPStatus.COMPLETED and sol.t == [mp("0.25"), mp("0.5"), mp(1)]
    assert sol.y[0][0] == 1 and scaled_error(sol.y[1], [mpmath.exp(mp("0.25"))]) < 100
    with pytest.raises(ValueError, match="t_eval"):
        integrate(growth, "0.25", [1], 1, t_eval=["0.125", "0.5"])
    with pytest.raises(ValueError, match="t_eval"):
        integrate(growth, 0, [1], 1, t_eval=["0.5", 2])


def test_step_budget_edge_and_stopping_point_after_a_checkpoint() -> None:
    full = integrate(growth, 0, [1], 4, t_eval=["0.5"])
    k = full.n_steps
    assert full.status is HPStatus.COMPLETED and k >= 3
    exact = integrate(growth, 0, [1], 4, t_eval=["0.5"], max_steps=k)
    assert exact.status is HPStatus.COMPLETED and exact.n_steps == k
    short = integrate(growth, 0, [1], 4, t_eval=["0.5"], max_steps=k - 1)
    assert short.status is HPStatus.FAILED and short.message == f"more than {k - 1} steps"
    assert short.n_steps == k - 1 and len(short.t) == 2 and short.t[0] == mp("0.5") < short.t[1] < 4
    for t, y in zip(short.t, short.y):
        assert scaled_error(y, [mpmath.exp(t)]) < 100


@pytest.mark.parametrize("t0", [mp(1) / 3, -mp(1) / 3, -7])
def test_first_step_reaches_a_target_exactly(t0: mpmath.mpf) -> None:
    """y' = 0: every step is exact and the first guess is the whole interval t_end − t0, so one step lands on
    t_end."""
    sol = integrate(constant_field(0), t0, [5], 10)
    assert sol.status is HPStatus.COMPLETED and sol.t == [mp(10)]
    assert sol.n_steps == 1 and sol.n_rejected == 0 and sol.nfev == 5 and sol.y[-1][0] == 5


def test_partial_steps_advance_by_h_and_the_last_one_lands_on_the_target() -> None:
    """y' = 1 from (−1/4, 10⁶): the first guess covers the interval, t_eval cuts it to 1/8 (to t = −1/8), the exact
    step proposes 8 · 1/8 = 1 (to t = 7/8), then 8 is cut to 1/4 (to t_end = 9/8). y = 10⁶ + t + 1/4 throughout."""
    sol = integrate(constant_field(), "-0.25", [10**6], "1.125", t_eval=["-0.125"])
    assert sol.status is HPStatus.COMPLETED and sol.t == [mp("-0.125"), mp("1.125")] and sol.n_steps == 3
    assert [y[0] for y in sol.y] == [10**6 + mp("0.125"), 10**6 + mp("1.375")]


@pytest.mark.parametrize("t0", ["0.25", "2", "0.75", "4", mp(1) / 3])
def test_step_size_underflow(t0: str | mpmath.mpf) -> None:
    """A field that is NaN off the start point never converges: each rejection quarters h (from H = 1), and the
    integration fails at the first h ≤ eps · max(1, |t0|); the message gives t0 to 12 digits."""
    start = mp(t0)

    def poisoned(t, y):
        return np.array([mpmath.mpf(1) if t == start else mpmath.nan], dtype=object)

    sol = integrate(poisoned, start, [10], start + 1)
    threshold = mpmath.mp.eps * max(1, abs(start))
    k = next(k for k in range(1, 200) if mpmath.mpf(4) ** -k <= threshold)
    assert sol.status is HPStatus.FAILED and sol.n_rejected == k and sol.n_steps == 0
    assert sol.message == f"step size underflow at t = {mpmath.nstr(start, 12)}"
    assert sol.t == [start] and sol.y[0][0] == 10


# --- region exits ---------------------------------------------------------------------------------------------


def threshold_region(c: mpmath.mpf):
    return lambda y: np.array([mpmath.sign(v - c) for v in y], dtype=object)


@pytest.mark.parametrize("t_lo, t_hi", [("0", "1"), ("0", "0.5625"), ("-0.625", "0.5"), ("1", "2.125"),
                                        ("-0.25", "0.875"), ("0", "0.875"), ("0", "1.125"), ("0.5", "3")])
def test_bisection_stops_at_the_width_goal(t_lo: str, t_hi: str) -> None:
    """y = t and the region sign(y − c), c strictly inside: the bisection halves [t_lo, t_hi] until its width is
    at most 4 eps max(1, |t_hi|), so it ends with goal/2 < width ≤ goal around c."""
    lo, hi = mp(t_lo), mp(t_hi)
    c = lo + (hi - lo) * mp("0.3")
    region = threshold_region(c)
    stepper = _Extrapolation(constant_field(), mpmath.mp.eps * 100, mpmath.mp.eps * 100, 16)
    exit = _locate_exit(stepper, region, region(vec(lo)), lo, vec(lo), hi, vec(hi))
    goal = 4 * mpmath.mp.eps * max(1, abs(hi))
    assert goal / 2 < exit.width <= goal
    assert exit.t <= c <= exit.t + exit.width and exit.t_after == exit.t + exit.width
    ulps = 8 * mpmath.mp.eps * max(1, abs(hi))  # y = t up to the rounding of the steps
    assert abs(exit.y[0] - exit.t) <= ulps and abs(exit.y_after[0] - exit.t_after) <= ulps
    assert exit.before.tolist() == [-1] and exit.after.tolist() == [1]


def test_region_exit_at_a_known_crossing() -> None:
    c = mp(1) / 3
    region = threshold_region(c)
    sol = integrate(constant_field(), 0, [0], 1, t_eval=["0.125"], region=region)
    assert sol.status is HPStatus.REGION_EXIT and sol.exit is not None
    exit = sol.exit
    assert exit.t <= c <= exit.t_after and exit.width <= 4 * mpmath.mp.eps
    assert sol.t == [mp("0.125"), exit.t] and sol.y[-1] is exit.y
    assert sol.message == f"region changed at t = {mpmath.nstr(exit.t, 20)}"
    assert "0.33333333333333333333" in sol.message


def test_landing_on_the_kink_is_a_new_region() -> None:
    """At y = c exactly the label is 0, a region of its own: the exit lies just before c and y_after is on it."""
    c = mp("0.25")
    region = threshold_region(c)
    sol = integrate(constant_field(), 0, [0], 1, region=region)
    exit = sol.exit
    assert sol.status is HPStatus.REGION_EXIT and exit is not None
    assert exit.t < c <= exit.t_after and exit.before.tolist() == [-1]
    assert exit.after.tolist() == [0] if exit.t_after == c else [1]


def test_trial_steps_that_fail_at_the_kink_count_as_past_it() -> None:
    """y' = 1 below c = 0.3 and NaN above: a trial step converges only if its interior evaluation points (up to 3/4
    of the step, rows 0 and 1) stay below c. Failed trials move t_hi but leave t_after at the last converged state
    past the crossing; here the final step over [t, t + width] fails as well, so t_after lies beyond t + width."""
    c = mp("0.3")
    region = threshold_region(c)

    def field(t, y):
        return np.array([mpmath.mpf(1) if y[0] <= c else mpmath.nan], dtype=object)

    stepper = _Extrapolation(field, mpmath.mp.eps * 100, mpmath.mp.eps * 100, 16)
    exit = _locate_exit(stepper, region, region(vec(0)), mp(0), vec(0), mp(1), vec(1))
    assert stepper.n_rejected > 0 and exit.width <= 4 * mpmath.mp.eps
    assert exit.t <= c <= exit.t + exit.width < exit.t_after <= exit.t + 4 * exit.width
    assert exit.y[0] == exit.t and exit.y_after[0] == exit.t_after
    assert exit.after.tolist() == [1] and np.array_equal(region(exit.y_after), exit.after)


def test_error_estimate_that_stops_decreasing_rejects() -> None:
    """y' = t⁷ + b t⁵ with b = −7757/4032 chosen so that rows 2 and 3 have the same error, |T₂₂ − T₂₁| = |T₃₃ − T₃₂|
    = 31/221184 (row 4 is exact): with atol = half of it both scaled errors are 2. An estimate that does not
    decrease (≥, ties included) rejects the step at row 3 although row 4 would converge."""
    coefficients = {7: Fraction(1), 5: Fraction(-7757, 4032)}
    atol = Fraction(31, 221184) / 2
    errs = scaled_tableau_errors(coefficients, 5, atol)
    assert errs[0] > 2 and errs[1] == errs[2] == 2 and errs[3] == 0
    stepper = _Extrapolation(polynomial_field(coefficients), mp(0), mp(atol), 16)
    y, proposed = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is None and stepper.nfev == 16 and stepper.n_rejected == 1 and proposed == mp("0.25")


@pytest.mark.parametrize("err1, tie", [(2.2746118283966914, "lower"), (6.0941031925065685, "raise")])
def test_order_selection_ties_keep_the_order(err1: float, tie: str) -> None:
    """Both ODEX order changes need a strict gain: W_1 < 0.8 W_2 to lower, W_2 < 0.9 W_1 to raise. With row 2's
    scaled error 1/2 and row 1's error err1 (a double found so that the tie is exact in floating point, reached by
    the t³ coefficient of y' = t⁵ + c t³), the tie keeps the order: the proposal is h_2."""
    s1, s2 = proposal(err1, 1), proposal(0.5, 2)
    w1, w2 = 5 / s1, 10 / s2
    assert (w1 == 0.8 * w2) if tie == "lower" else (w2 == 0.9 * w1)
    table = midpoint_tableau({5: Fraction(1)}, 3)
    atol = 2 * abs(table[2][2] - table[2][1])
    d1 = Fraction(err1) * atol  # wanted |T₁₁ − T₁₀|; the t³ term adds c · (T₁₁ − T₁₀ of t³) = c/32
    coefficients = {5: Fraction(1), 3: (d1 - (table[1][1] - table[1][0])) * 32}
    assert scaled_tableau_errors(coefficients, 3, atol) == [err1, 0.5]
    stepper = _Extrapolation(polynomial_field(coefficients), mp(0), mp(atol), 16)
    y, h_next = stepper.step(mp(0), vec(0), vec(0), mp(1))
    assert y is not None and stepper.nfev == 9
    assert h_next == s2
