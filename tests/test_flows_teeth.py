"""Edges of numerics.flows that the closed-form trajectories of tests/test_flows.py leave open.

Pinned here: every clock's right-hand side (θ part and dτ/ds = e^{−τ}/(ds/dt)) against hand-computed values on the
generic backend (square loss, L = ½r²) and on the compiled field (exponential loss on Φ = a·w, where −∇L/L = (a, w)
and log L = −aw), zero where the clock is undefined; the analytic Jacobian against central differences of the
field; the evaluation count (one per field call, len(z) per Jacobian); the LAPACK-direct BDF (the same bits,
LU count and warnings as scipy's BDF); the step off a kink (first try 1e-13·max(1, |s|), grown ×8 over five tries)
and the sliding probe (1e-8·max(1, |s|)); the chattering rule (ten tiny regions after the first crossing); the
edges of the argument checks, the crossing limit, a stop condition that is exactly 0 at the start, the loss
clock's bound on s(t_end) (L nonincreasing: ∫L dt ≤ L(0)·t), checkpoints inside a segment's first step and before
t_end, and the recorded steps (solve_ivp's own accepted steps).
"""

from __future__ import annotations

import warnings
from contextlib import nullcontext
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import scipy.sparse
from scipy.integrate import solve_ivp
from scipy.linalg import LinAlgWarning
from test_flows import (
    balanced_exp_margin,
    orthogonal_relu_problem,
    product_kink_time,
    regression_flow,
    regression_objective,
    sliding_problem,
)

from numerics.compiled_fields import generic_only
from numerics.flows import (
    CLOCKS,
    FlowStatus,
    GradientFlow,
    _DenseBDF,
    activation_region,
    hidden_preactivations,
    log_loss_below,
    loss_below,
    signs,
)
from numerics.losses import Objective
from numerics.networks import fully_connected

# -- right-hand sides against hand-computed values -------------------------------------------------------------
# generic backend: L = ½r² with r = a + 2b − 3 on x = (1, 2), y = 3; at (a, b) = (0.5, 0.25): r = −2, L = 2,
# −∇L = −r·(1, 2) = (2, 4), ‖∇L‖ = 2√5
SQUARE_X, SQUARE_Y, SQUARE_THETA = np.array([[1.0, 2.0]]), np.array([3.0]), np.array([0.5, 0.25])


def square_objective() -> Objective:
    return regression_objective(SQUARE_X, SQUARE_Y)


# compiled field: L = e^{−q}, q = a·w on x = 1, y = 1 (θ = (w, a)): −∇L = e^{−q}(a, w), −∇L/L = (a, w), log L = −q
def exponential_objective() -> Objective:
    return Objective(fully_connected([1, 1, 1], "linear"), np.ones((1, 1)), np.ones(1), "exponential")


W, A, TAU = 0.5, 0.8, 0.3


@pytest.mark.parametrize("fast", [False, True])
def test_square_loss_fields_match_hand_computed_values(fast: bool) -> None:
    """Every clock's field of a square-loss objective, on the generic backend and on its numpy field."""
    with nullcontext() if fast else generic_only():
        flow = GradientFlow(square_objective())
    assert (flow.compiled is not None) is fast
    descent = np.array([2.0, 4.0])
    z = np.append(SQUARE_THETA, TAU)
    np.testing.assert_allclose(flow.field("real", 2.0, SQUARE_THETA), descent, rtol=1e-15)
    np.testing.assert_allclose(flow.field("log", 1.5, SQUARE_THETA), np.exp(1.5) * descent, rtol=1e-15)
    np.testing.assert_allclose(flow.field("loss", 0.7, z), [1.0, 2.0, np.exp(-TAU) / 2], rtol=1e-14)
    np.testing.assert_allclose(flow.field("arclength", 0.7, z),
                               [1 / np.sqrt(5), 2 / np.sqrt(5), np.exp(-TAU) / (2 * np.sqrt(5))], rtol=1e-14)
    np.testing.assert_allclose(flow.field("loss", 0.7, SQUARE_THETA, track_time=False), [1.0, 2.0], rtol=1e-14)
    np.testing.assert_allclose(flow.field("arclength", 0.7, SQUARE_THETA, track_time=False),
                               [1 / np.sqrt(5), 2 / np.sqrt(5)], rtol=1e-14)


def test_compiled_fields_match_hand_computed_values() -> None:
    flow = GradientFlow(exponential_objective())
    assert flow.compiled is not None
    theta, z, q = np.array([W, A]), np.array([W, A, TAU]), W * A
    descent = np.exp(-q) * np.array([A, W])
    norm = np.hypot(A, W)
    np.testing.assert_allclose(flow.field("real", 2.0, theta), descent, rtol=1e-14)
    np.testing.assert_allclose(flow.field("log", 1.5, theta), np.exp(1.5) * descent, rtol=1e-14)
    np.testing.assert_allclose(flow.field("loss", 0.7, z), [A, W, np.exp(-TAU + q)], rtol=1e-14)
    np.testing.assert_allclose(flow.field("arclength", 0.7, z), [A / norm, W / norm, np.exp(-TAU + q) / norm],
                               rtol=1e-14)
    np.testing.assert_allclose(flow.field("loss", 0.7, theta, track_time=False), [A, W], rtol=1e-14)
    np.testing.assert_allclose(flow.field("arclength", 0.7, theta, track_time=False), [A / norm, W / norm],
                               rtol=1e-14)


def test_undefined_clocks_give_a_zero_field() -> None:
    """L = 0 (exact fit, generic backend) and ∇L = 0 (θ = 0 for Φ = a·w, compiled) make the field 0."""
    exact_fit = np.array([1.0, 1.0])
    generic = GradientFlow(square_objective())
    with np.errstate(divide="ignore"):
        for clock in ("loss", "arclength"):
            assert np.array_equal(generic.field(clock, 0.0, np.append(exact_fit, TAU)), np.zeros(3))
            assert np.array_equal(generic.field(clock, 0.0, exact_fit, track_time=False), np.zeros(2))
    compiled = GradientFlow(exponential_objective())
    assert np.array_equal(compiled.field("arclength", 0.0, np.array([0.0, 0.0, TAU])), np.zeros(3))
    assert np.array_equal(compiled.field("arclength", 0.0, np.zeros(2), track_time=False), np.zeros(2))
    assert np.array_equal(compiled.jacobian("arclength", 0.0, np.array([0.0, 0.0, TAU])), np.zeros((3, 3)))


def relu_logistic_objective() -> tuple[Objective, np.ndarray]:
    rng = np.random.default_rng(5)
    model = fully_connected([2, 3, 1], "relu")
    X = rng.standard_normal((4, 2))
    return Objective(model, X, np.sign(X[:, 0] + 0.3), "logistic"), 0.8 * rng.standard_normal(model.n_params)


@pytest.mark.parametrize("clock", CLOCKS)
@pytest.mark.parametrize("track_time", [True, False])
def test_analytic_jacobian_matches_central_differences(clock: str, track_time: bool) -> None:
    objective, theta = relu_logistic_objective()
    flow = GradientFlow(objective)
    carries_time = track_time and clock in ("loss", "arclength")
    z, s = (np.append(theta, TAU) if carries_time else theta), 0.4
    assert np.min(np.abs(hidden_preactivations(objective, theta))) > 1e-3  # no kink within the differences
    h = 1e-6
    numeric = np.column_stack([(flow.field(clock, s, z + h * e, track_time) - flow.field(clock, s, z - h * e,
                                                                                          track_time)) / (2 * h)
                               for e in np.eye(z.size)])
    analytic = flow.jacobian(clock, s, z, track_time)
    assert analytic.shape == (z.size, z.size)
    np.testing.assert_allclose(analytic, numeric, rtol=0, atol=1e-7 * np.max(np.abs(numeric)))


def test_jacobian_needs_a_compiled_field_that_offers_one() -> None:
    with generic_only(), pytest.raises(TypeError, match="compiled"):  # no compiled field
        GradientFlow(square_objective()).jacobian("real", 0.0, SQUARE_THETA)
    with pytest.raises(TypeError, match="compiled"):  # the square loss's numpy field: no Jacobian
        GradientFlow(square_objective()).jacobian("real", 0.0, SQUARE_THETA)


# -- evaluation count ------------------------------------------------------------------------------------------
def counting(flow: GradientFlow) -> dict[str, int]:
    """Wrap the flow's field and Jacobian so that their calls are counted (the Jacobian with the size of z)."""
    counts = {"field": 0, "jacobian": 0}
    field, jacobian = flow.field, flow.jacobian

    def counted_field(*args, **kwargs):
        counts["field"] += 1
        return field(*args, **kwargs)

    def counted_jacobian(clock, s, z, track_time=True):
        counts["jacobian"] += z.size
        return jacobian(clock, s, z, track_time)

    flow.field, flow.jacobian = counted_field, counted_jacobian
    return counts


def test_nfev_counts_field_evaluations() -> None:
    objective, theta0 = orthogonal_relu_problem()
    flow = GradientFlow(objective)
    counts = counting(flow)
    traj = flow.solve(theta0, 5.0, clock="loss")
    assert traj.status is FlowStatus.COMPLETED and traj.nfev == counts["field"] > 0


def test_nfev_charges_an_analytic_jacobian_as_len_z_evaluations() -> None:
    """BDF on the compiled field: the Jacobian calls cost len(z) evaluations each, what finite differences cost."""
    flow = GradientFlow(exponential_objective())
    counts = counting(flow)
    traj = flow.solve([0.5, 0.5], 1e3, clock="log", method="BDF", t_eval=[10.0, 1e3], rtol=1e-10, atol=1e-12)
    assert traj.status is FlowStatus.COMPLETED and counts["jacobian"] > 0
    assert traj.nfev == counts["field"] + counts["jacobian"]
    for t, theta in zip(traj.t, traj.theta):  # Ei(q(t)) = Ei(q(0)) + 2t on the balanced problem
        exact = float(balanced_exp_margin(0.25, t))
        assert abs(theta[0] * theta[1] - exact) <= 1e-7 * exact


# -- the LAPACK-direct BDF ---------------------------------------------------------------------------------------
def stiff_system(t: float, y: np.ndarray) -> np.ndarray:
    return np.array([-1000.0 * y[0] + 999.0 * y[1] + np.sin(t), -y[1] + y[0] * y[0] * 1e-3])


def test_dense_bdf_computes_the_same_bits_as_scipy_bdf() -> None:
    mine = solve_ivp(stiff_system, (0.0, 5.0), [1.0, 2.0], method=_DenseBDF, rtol=1e-8, atol=1e-10)
    scipys = solve_ivp(stiff_system, (0.0, 5.0), [1.0, 2.0], method="BDF", rtol=1e-8, atol=1e-10)
    assert mine.status == 0 and mine.nlu > 1
    assert np.array_equal(mine.t, scipys.t) and np.array_equal(mine.y, scipys.y)
    assert (mine.nfev, mine.njev, mine.nlu) == (scipys.nfev, scipys.njev, scipys.nlu)


def dense_bdf(y0: np.ndarray, **kwargs) -> _DenseBDF:
    return _DenseBDF(lambda t, y: -y, 0.0, y0, 1.0, **kwargs)


def test_dense_bdf_replaces_only_dense_float64_solves() -> None:
    assert "_DenseBDF" in dense_bdf(np.ones(2)).lu.__qualname__
    assert "_DenseBDF" not in dense_bdf(np.ones(2, dtype=complex)).lu.__qualname__
    sparse = dense_bdf(np.ones(2), jac=lambda t, y: scipy.sparse.csc_matrix(-np.eye(2)))
    assert "_DenseBDF" not in sparse.lu.__qualname__


def test_dense_bdf_lu_errors_and_warnings_as_scipy() -> None:
    solver = dense_bdf(np.ones(2))
    nlu = solver.nlu
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lu = solver.lu(np.array([[2.0, 1.0], [1.0, 3.0]]))
        np.testing.assert_allclose(solver.solve_lu(lu, np.array([3.0, 4.0])), [1.0, 1.0], rtol=1e-15)
    assert solver.nlu == nlu + 1
    with pytest.warns(LinAlgWarning, match="exactly zero"):
        solver.lu(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(ValueError, match="infs or NaNs"):
        solver.lu(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="infs or NaNs"):
        solver.solve_lu(solver.lu(np.eye(2)), np.array([np.inf, 0.0]))


# -- kinks: the step off a kink, the sliding probe, chattering ------------------------------------------------------
def one_unit_flow() -> GradientFlow:
    """Φ = a·σ(w) on x = 1: θ = (w, a), the one pre-activation is w (pattern sign(w))."""
    return GradientFlow(Objective(fully_connected([1, 1, 1], "relu"), np.ones((1, 1)), np.ones((1, 1)), "square"))


UP, DOWN = np.array([1.0, 0.0]), np.array([-1.0, 0.0])


def test_step_off_kink_first_try_is_1e_13_relative_to_s() -> None:
    flow = one_unit_flow()
    s, z = flow._step_off_kink(0.0, np.array([0.0, 0.7]), UP, np.array([0]))
    assert s == 1e-13 and z[0] == 1e-13 and z[1] == 0.7
    s, z = flow._step_off_kink(100.0, np.array([0.0, 0.7]), DOWN, np.array([0]))
    assert s - 100.0 == pytest.approx(1e-11, rel=1e-3) and z[0] == pytest.approx(-1e-11, rel=1e-12)


@pytest.mark.parametrize("w, step", [(-5e-11, 5.12e-11), (-3e-10, 4.096e-10), (-5e-10, None)])
def test_step_off_kink_grows_by_8_over_five_tries(w: float, step: float | None) -> None:
    """Tries 1e-13·8^k, k = 0, …, 4: a kink 3e-10 away is crossed at 8⁴·1e-13, one 5e-10 away is not."""
    flow = one_unit_flow()
    z0 = np.array([w, 0.7])
    s, z = flow._step_off_kink(0.0, z0, UP, np.array([-1]))
    if step is None:
        assert s == 0.0 and np.array_equal(z, z0)
    else:
        assert s == pytest.approx(step, rel=1e-12) and z[0] == pytest.approx(w + step, rel=1e-9) and z[0] > 0


def test_sliding_probe_is_1e_8_relative_to_s() -> None:
    flow = one_unit_flow()
    before, after = np.array([-1]), np.array([1])

    def slides(s: float, w: float, velocity: np.ndarray) -> bool:
        return flow._slides(s, np.array([w, 0.7]), velocity, before, after)

    assert slides(0.0, 1e-13, DOWN) and not slides(0.0, 1e-13, UP)
    assert not slides(0.0, 1e-13, 1e-6 * DOWN)  # returns only after 1e-7, beyond the probe
    assert not slides(0.0, 1.5e-8, DOWN) and slides(0.0, 0.5e-8, DOWN)
    assert slides(100.0, 5e-7, DOWN) and not slides(100.0, 1.5e-6, DOWN)
    # an entry that started at the kink (w = 0) did not cross it, wherever the probe leaves it
    assert not flow._slides(0.0, np.zeros(2), np.zeros(2), np.array([0]), np.array([1]))


def test_chattering_is_ten_tiny_regions_after_the_first_crossing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GradientFlow, "_slides", lambda *args: False)
    objective, theta0 = sliding_problem()
    traj = GradientFlow(objective).solve(theta0, 10.0, method="DOP853")
    assert traj.status is FlowStatus.SLIDING and traj.message.startswith("10 activation regions")
    assert traj.n_crossings == 11  # the first region (t ≈ 0.02) is not tiny, the next ten are
    assert np.ptp(traj.crossing_times) < 1e-8 < traj.crossing_times[0]


def test_crossing_limit_allows_exactly_max_crossings() -> None:
    objective, theta0 = orthogonal_relu_problem()
    traj = GradientFlow(objective).solve(theta0, 5.0, max_crossings=1)
    assert traj.status is FlowStatus.COMPLETED and traj.n_crossings == 1


def two_unit_problem(w: float) -> tuple[Objective, np.ndarray]:
    """The orthogonal problem of test_flows without its w = 0 unit: no pre-activation starts at 0."""
    model = fully_connected([2, 2, 1], "relu")
    objective = Objective(model, np.eye(2), np.array([[1.0], [0.7]]), "square")
    return objective, model.join([np.array([[w, -1.0], [-1.0, 0.3]]), np.array([[-1.0, 0.8]])])


@pytest.mark.parametrize("method", ["LSODA", "DOP853"])
def test_kink_just_after_the_start_is_a_crossing(method: str) -> None:
    """No unit at 0 at the start: no step off a kink there, so a kink 3e-10 away is integrated to and recorded."""
    objective, theta0 = two_unit_problem(3e-10)
    traj = GradientFlow(objective).solve(theta0, 1.0, method=method)
    assert traj.status is FlowStatus.COMPLETED and traj.n_crossings == 1
    assert traj.crossing_times[0] == pytest.approx(product_kink_time(3e-10, -1.0, 1.0, 0.0), rel=0.05)


def test_single_layer_models_have_no_hidden_preactivations() -> None:
    objective = Objective(fully_connected([2, 1], "relu"), np.ones((1, 2)), np.ones((1, 1)), "square")
    assert hidden_preactivations(objective, np.array([1.0, -2.0])).shape == (0,)
    assert activation_region(objective)(np.array([1.0, -2.0])).shape == (0,)


def test_signs_of_float_and_object_entries() -> None:
    assert signs(np.array([-2.5, 0.0, 3.0, -0.0])).tolist() == [-1, 0, 1, 0]
    values = np.array([mpmath.mpf(-2), mpmath.mpf(0), mpmath.mpf("1e-400")], dtype=object)
    assert signs(values).tolist() == [-1, 0, 1]


# -- stop conditions --------------------------------------------------------------------------------------------------
def test_stop_conditions_are_log_loss_minus_log_threshold() -> None:
    objective = exponential_objective()
    theta = np.array([W, A])  # log L = −0.4
    assert log_loss_below(objective, -1.0)(0.0, theta) == pytest.approx(0.6, rel=1e-14)
    assert loss_below(objective, np.exp(-1.0))(0.0, theta) == pytest.approx(0.6, rel=1e-14)


def test_stop_condition_exactly_zero_holds_at_the_start() -> None:
    objective = exponential_objective()
    theta0 = np.array([W, A])
    stop = log_loss_below(objective, float(objective.log_value(theta0)))
    traj = GradientFlow(objective).solve(theta0, 10.0, stop=[stop])
    assert traj.status is FlowStatus.STOPPED and "at the start" in traj.message and traj.nfev == 0


@pytest.mark.parametrize("clock", ["real", "loss"])
def test_a_stop_condition_that_never_fires_does_not_stop_the_flow(clock: str) -> None:
    """The events after the stop conditions (the end of time, a kink) are not stop conditions."""
    objective, theta0 = orthogonal_relu_problem()
    traj = GradientFlow(objective).solve(theta0, 5.0, clock=clock, stop=[loss_below(objective, 1e-300)])
    assert traj.status is FlowStatus.COMPLETED and traj.n_crossings == 1
    assert traj.t[-1] == pytest.approx(5.0)


def test_stop_before_requested_times_ends_the_trajectory_there() -> None:
    """L(t) = ½r0²e^{−10t} on x = (1, 2): L = 1e-4 at t = log(2e4)/10, before the requested t = 5."""
    objective, theta0 = square_objective(), np.zeros(2)
    traj = GradientFlow(objective).solve(theta0, 5.0, t_eval=[0.5, 5.0], stop=[loss_below(objective, 1e-4)])
    t_stop = np.log(4.5 / 1e-4) / 10
    assert traj.status is FlowStatus.STOPPED and traj.t.size == 2 and traj.t[0] == 0.5
    assert traj.t[-1] == pytest.approx(t_stop, rel=1e-8)


# -- loss and arclength clocks: the bound on s(t_end), stationary points ----------------------------------------------
@pytest.mark.parametrize("t_end", [0.01, 10.0])
@pytest.mark.parametrize("clock", ["loss", "arclength"])
def test_slowly_decreasing_loss_reaches_t_end(clock: str, t_end: float) -> None:
    """L(t) = 50e^{−0.02t} barely decreases: s(t_end) is close to its bound L(0)·t_end (loss clock)."""
    X, y, theta0 = np.array([[0.1]]), np.array([10.0]), np.zeros(1)
    traj = GradientFlow(regression_objective(X, y)).solve(theta0, t_end, clock=clock, t_eval=[t_end])
    assert traj.status is FlowStatus.COMPLETED and traj.t.tolist() == [t_end]
    np.testing.assert_allclose(traj.final, regression_flow(X, y, theta0, t_end), rtol=1e-8)


@pytest.mark.parametrize("clock, what", [("loss", "L = 0"), ("arclength", "∇L = 0")])
def test_exact_fit_is_stationary_for_the_loss_and_arclength_clocks(clock: str, what: str) -> None:
    with np.errstate(divide="ignore"):
        traj = GradientFlow(square_objective()).solve([1.0, 1.0], 1.0, clock=clock)
    assert traj.status is FlowStatus.STATIONARY and traj.message.startswith(what) and clock in traj.message


@pytest.mark.parametrize("t_end", [10.0, np.inf])
def test_dead_relu_network_is_stationary_on_the_compiled_arclength_clock(t_end: float) -> None:
    objective = Objective(fully_connected([1, 1, 1], "relu"), np.ones((2, 1)), np.array([1.0, -1.0]), "logistic")
    flow = GradientFlow(objective)
    assert flow.compiled is not None
    dead = np.array([0.0, 1.0])  # w = 0: σ(w·x) = 0 and σ'(0) = 0, so ∇L = 0 with L = 2 log 2
    traj = flow.solve(dead, t_end, clock="arclength", stop=[log_loss_below(objective, -50.0)])
    assert traj.status is FlowStatus.STATIONARY and np.array_equal(traj.final, dead)


# -- checkpoints ---------------------------------------------------------------------------------------------------
def test_every_accepted_step_is_recorded() -> None:
    """Without requested times the checkpoints are solve_ivp's own accepted steps, from t = 0 on."""
    rng = np.random.default_rng(7)
    X, y, theta0 = rng.standard_normal((4, 3)), rng.standard_normal(4), rng.standard_normal(3)
    objective = regression_objective(X, y)
    traj = GradientFlow(objective).solve(theta0, 2.0, method="RK45", rtol=1e-8, atol=1e-10)
    sol = solve_ivp(lambda t, th: objective.descent(th), (0.0, 2.0), theta0, method="RK45", rtol=1e-8, atol=1e-10)
    assert traj.status is FlowStatus.COMPLETED and np.array_equal(traj.s, sol.t)
    assert np.array_equal(traj.theta, sol.y.T) and np.allclose(traj.t, sol.t, rtol=1e-15, atol=0)


@pytest.mark.parametrize("clock", CLOCKS)
def test_requested_times_inside_the_first_step_and_before_t_end(clock: str) -> None:
    """t = 0, t = 1e-12 and t = 1e-6 (inside the first step) are allowed and recorded at their own state, not at the
    step's end; the last row is t_end all the same."""
    rng = np.random.default_rng(8)
    X, y, theta0 = rng.standard_normal((3, 2)), rng.standard_normal(3), rng.standard_normal(2)
    times = [0.0, 1e-12, 1e-6, 0.5]
    traj = GradientFlow(regression_objective(X, y)).solve(theta0, 1.0, clock=clock, t_eval=times)
    assert traj.status is FlowStatus.COMPLETED and traj.t[:4].tolist() == times
    assert traj.t.size == 5 and traj.t[-1] == pytest.approx(1.0)
    for t, theta in zip(traj.t, traj.theta):
        np.testing.assert_allclose(theta, regression_flow(X, y, theta0, t), rtol=1e-8, atol=1e-10)


def test_requested_times_must_increase_strictly_from_zero() -> None:
    objective, theta0 = orthogonal_relu_problem()
    flow = GradientFlow(objective)
    for bad in ([0.5, 0.5], [-0.5, 1.0]):  # (not solve_ivp's own complaint about t_eval: the flow's check)
        with pytest.raises(ValueError, match="t_eval must be increasing real times"):
            flow.solve(theta0, 1.0, t_eval=bad)
    with pytest.raises(ValueError, match="t_end = inf"):
        flow.solve(theta0, np.inf, clock="loss", stop=[loss_below(objective, 1e-3)], t_eval=[1.0])


# -- failure ----------------------------------------------------------------------------------------------------------
class CubicLoss:
    """L(θ) = −θ³/3 on one parameter: θ' = θ², which blows up at t = 1/θ(0) (θ(t) = θ0/(1 − θ0·t))."""

    model = SimpleNamespace(n_params=1)

    def compiled(self, theta=None):
        return None

    def descent(self, theta, log_scale=0.0):
        return np.exp(log_scale) * theta**2


def test_integrator_failure_is_reported() -> None:
    with np.errstate(over="ignore", invalid="ignore"):
        traj = GradientFlow(CubicLoss()).solve([1.0], 2.0, method="RK45")
    assert traj.status is FlowStatus.FAILED and traj.message
    assert 0.999 < traj.t[-1] < 1.0 and traj.final[0] > 1e6  # the step size collapsed at the blow-up
    early = traj.t < 0.9
    np.testing.assert_allclose(traj.theta[early, 0], 1 / (1 - traj.t[early]), rtol=1e-6)


def test_explicit_methods_get_no_jacobian() -> None:
    """Only BDF, Radau and LSODA are handed the compiled Jacobian (solve_ivp warns about it for the others)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traj = GradientFlow(exponential_objective()).solve([0.5, 0.5], 10.0, clock="log", method="DOP853")
    assert traj.status is FlowStatus.COMPLETED


def test_unit_starting_on_a_kink_picks_its_side_and_slides() -> None:
    """Sliding problem with w₁ = 0: the entry on x₁ starts at the kink, the flow lifts it (through x₂) and the
    field on the positive side sends it straight back: one crossing just after the start, then sliding."""
    objective, _ = sliding_problem()
    traj = GradientFlow(objective).solve(np.array([0.0, 0.49, 1.0]), 10.0, method="DOP853")
    assert traj.status is FlowStatus.SLIDING and traj.n_crossings == 1 and traj.crossing_times[0] < 1e-10


@pytest.mark.parametrize("clock", ["loss", "arclength"])
def test_requested_time_located_on_tau_whatever_a_frozen_parameter_is(clock: str) -> None:
    """θ₀ belongs to a dead unit and stays 1 = log(1 + t) at the requested t = e − 1: the checkpoint is still the
    root of τ(s) = 1 on the dense output, as on the real clock."""
    model = fully_connected([2, 2, 1], "relu")
    objective = Objective(model, np.array([[-1.0, 0.0], [0.0, 1.0]]), np.array([[1.0], [0.7]]), "square")
    theta0 = model.join([np.array([[1.0, -1.0], [-1.0, 0.3]]), np.array([[-1.0, 0.8]])])
    t = float(np.expm1(1.0))
    assert np.log1p(t) == 1.0
    flow = GradientFlow(objective)
    real = flow.solve(theta0, 2.0, t_eval=[t, 2.0], rtol=1e-11, atol=1e-13)
    traj = flow.solve(theta0, 2.0, clock=clock, t_eval=[t, 2.0], rtol=1e-11, atol=1e-13)
    assert traj.status is FlowStatus.COMPLETED and traj.n_crossings == 0 and traj.t[0] == t
    assert traj.theta[0, 0] == 1.0 and np.max(np.abs(traj.theta[0] - real.theta[0])) < 1e-8
    # t_end requested: one row at t_end (the end event's point), not a second one beside the root of τ
    assert traj.t.tolist() == [t, 2.0] and np.max(np.abs(traj.final - real.final)) < 1e-8
