"""Edges of align's criteria that the claims' instances do not reach: Eq. (1)'s energy balance on a run whose risk
rose, Lemma 7's occupation conjunct with its bound divided, Lemma 6's report of a run that never left B(R), and
Theorem 4's proxy deciding on its rate and on its final value alone."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import theorems.layer_alignment.descent_theorems as thm
from theorems.layer_alignment.common import Dataset, FlowRun, linear_network, risk, run_flow
from theorems.layer_alignment.criteria import Named
from theorems.layer_alignment.descent_lemmas import Lemma7Evidence, lemma7_holds
from theorems.layer_alignment.descent_smoothness import leaves_ball
from theorems.layer_alignment.flow_lemmas import energy_balance, energy_mismatch, time_reversed


def _two_point_risk(widths: tuple[int, ...]):
    """The logistic risk of a linear network on two fixed points of R²."""
    return risk(linear_network(widths), Dataset("two points", np.array([[1.0, 0.2], [0.3, 1.0]])), "logistic")


def _flow():
    objective = _two_point_risk((2, 2, 1))
    theta0 = np.random.default_rng(0).normal(size=objective.model.n_params) * 0.5
    return run_flow("small", objective, theta0, np.linspace(0.0, 2.0, 401))


def test_energy_mismatch_is_sign_safe() -> None:
    run = _flow()
    backwards = time_reversed(run)  # gradient ascent from W(T): R rises by ∫‖∇R‖²
    assert np.array_equal(backwards.risks, run.risks[::-1]) and np.array_equal(backwards.t, run.t)
    assert backwards.states[0] is run.states[-1]
    assert energy_mismatch(run, slice(None)) < 1e-6
    assert abs(energy_mismatch(backwards, slice(None)) - 2.0) < 1e-6  # |−D − D|/|−D|, not the signed −2
    assert energy_balance(Named("forward", [run]), slice(None), 1e-6).holds is True
    assert energy_balance(Named("backwards", [backwards]), slice(None), 1e-6).holds is False


def test_energy_balance_needs_a_nonincreasing_risk() -> None:
    """Two adjacent checkpoints swapped: R rises once, the endpoints and the integral barely move, so only the
    monotonicity conjunct refuses."""
    run = _flow()
    order = np.arange(run.t.size)
    order[200], order[201] = 201, 200
    swapped = FlowRun("swapped", run.objective, dataclasses.replace(run.trajectory, theta=run.trajectory.theta[order]),
                      tuple(run.states[i] for i in order))
    assert energy_mismatch(swapped, slice(None)) < 1e-4
    assert energy_balance(Named("swapped", [swapped]), slice(None), 1e-4).holds is False


def test_lemma7_occupation_factor_divides_the_bound() -> None:
    evidence = Lemma7Evidence(step_slack=0.0, unit_slack=0.5, displacement_slack=0.1, radius_growth=3.0, exit_step=10,
                              occupation=2.0, occupation_bound=5.0, gradient_floor_slack=0.01)
    assert lemma7_holds(evidence, 100, 2.5)  # 2 ≤ 5/2.5: at the edge
    assert not lemma7_holds(evidence, 100, 2.5 * (1 + 1e-9))


def test_lemma6_reports_where_a_trapped_run_stayed() -> None:
    objective = risk(linear_network((1, 2, 1)), Dataset("z = 1", np.ones((1, 1))), "logistic")
    decision = leaves_ball(Named("App. A", [("App. A", objective, np.array([0.5, 0.5, -0.5, -0.5]), 1.0, 1.0, 50)]))
    assert decision.holds is False
    figures = decision.decision.figures
    assert figures["exit_step App. A"] == -1 and figures["steps_inside App. A"] == 50
    assert 0.0 < figures["final_max_layer_norm App. A"] < np.sqrt(0.5)  # shrank towards the saddle at 0


def test_theorem4_part_decides_on_the_rate_and_on_the_final_value(monkeypatch) -> None:
    time = np.geomspace(1.0, 1e4, 40)
    values = 0.3 / np.log(time + 2)  # like (ln t)^(−1), ending at 0.033
    monkeypatch.setattr(thm, "alignment", lambda trace, target, count=40: thm.Alignment(time, values, values**2,
                                                                                         values))
    runs, target = Named("one run", [("run", None)]), Named("e_1", np.array([1.0, 0.0]))
    final = float(values[-1])
    for part, name in (("first layer", "perpendicular_ratio"), ("product", "angle")):
        proxy = thm.theorem4_part(runs, target, part)
        figures = proxy.decision.figures
        assert proxy.holds is True and figures[f"run: final_{name}"] == final
        assert figures[f"run: {name}_exponent_in_ln_t"] < -0.25
        assert thm.theorem4_part(runs, target, part, exponent=-4.0).holds is False  # the rate alone
        assert thm.theorem4_part(runs, target, part, ceiling=final).holds is True  # the last value is compared
        assert thm.theorem4_part(runs, target, part, ceiling=float(np.nextafter(final, 0.0))).holds is False


def test_a_run_that_stays_on_the_sphere_has_not_left_the_ball() -> None:
    """B(R) is closed: W_1 of norm exactly R with W_2 = W_3 = 0 is stationary (every layer's gradient holds a zero
    factor), so descent stays on the sphere max_k ‖W_k‖_F = R and never leaves the ball."""
    from theorems.layer_alignment.descent_smoothness import ball_exit

    objective = _two_point_risk((2, 2, 2, 1))
    theta0 = np.zeros(objective.model.n_params)
    theta0[0] = 1.0  # W_1[0, 0]: ‖W_1‖_F = 1 exactly
    assert np.linalg.norm(objective.gradient(theta0)) == 0.0
    run = ball_exit(objective, theta0, 1.0, 1.0, 3)
    assert run.exit_step is None and run.final_norm == 1.0 and run.steps == 3


def test_the_hessian_climb_starts_from_the_best_tenth_and_at_least_one_point() -> None:
    from theorems.layer_alignment import descent_smoothness as smooth

    objective = _two_point_risk((2, 2, 1))
    rows: list[int] = []
    original = smooth.hessian_norms

    def counted(objective, points):
        rows.append(len(points))
        return original(objective, points)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(smooth, "hessian_norms", counted)
        for samples, kept in ((5, 1), (40, 4)):
            rows.clear()
            value, point = smooth.largest_hessian(objective, 1.0, np.random.default_rng(0), samples, climbs=3)
            assert rows == [samples, kept, kept, kept] and value > 0 and point.shape == (objective.model.n_params,)


def test_ratios_rise_after_plateau_at_its_edges() -> None:
    """The window opens at the first checkpoint strictly below the plateau level: a risk equal to the level does
    not open it, a risk just below does, and a ratio that falls before the window does not count."""
    from theorems.layer_alignment.figures import ratios_rise_after_plateau

    risks = np.array([1.0, 0.5, 0.4, 0.1])
    ratios = np.array([0.9, 0.6, 0.5, 0.7])  # falls until the risk is strictly below 0.5, then rises
    assert ratios_rise_after_plateau(risks, ratios, 0.5)  # the window starts at risk 0.4 (index 2)
    assert not ratios_rise_after_plateau(risks, ratios, np.nextafter(0.5, 1.0))  # at risk 0.5: 0.6 → 0.5 falls
    assert not ratios_rise_after_plateau(risks, np.array([0.9, 0.3, 0.5, 0.4]), 0.5)  # falls inside the window
    assert not ratios_rise_after_plateau(risks, ratios, 0.1)  # never strictly below
    assert ratios_rise_after_plateau(risks, ratios, np.nextafter(0.1, 1.0))  # one checkpoint: nothing falls
