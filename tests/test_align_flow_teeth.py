"""Edges of the gradient-flow criteria of Ji & Telgarsky that the claims' instances do not reach, each an input on
which exactly one condition of a decision fails: (P2) and (P4) of Theorem 1's proof, Theorem 2's settling and
envelope proxies, Theorem 1's rate window, Lemma 3's θ, and the sign in Eq. (20) under a loss with ℓ' > 0."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from numerics.losses import MarginLoss, Objective
from theorems.layer_alignment import flow_geometry, flow_theorems
from theorems.layer_alignment.common import (
    chain,
    ds2,
    ds3,
    ds_degenerate,
    layer_state,
    linear_network,
    max_margin_direction,
    run_flow,
    support_radius,
)
from theorems.layer_alignment.criteria import Named
from theorems.layer_alignment.flow_lemmas import measured_rates_match


def _state(F: float, product: float):
    """Widths (2, 2, 2, 1), every ‖W_k‖_F = F and ‖W_3W_2‖ = product (≤ F²)."""
    x = product / F
    return layer_state([F / np.sqrt(2.0) * np.eye(2), np.diag([x, np.sqrt(F * F - x * x)]),
                        np.array([[F, 0.0]])])


def _run(*checkpoints: tuple[float, float]) -> SimpleNamespace:
    states = tuple(_state(F, product) for F, product in checkpoints)
    return SimpleNamespace(states=states, initial_layers=states[0].layers,
                           series=lambda quantity: np.array([quantity(s) for s in states]))


def test_the_layer_states_have_the_norms_asked_for() -> None:
    state = _state(2.1, 3.0)
    assert np.allclose(state.frobenius, 2.1) and np.linalg.norm(chain(state.layers[1:])) == pytest.approx(3.0)


def test_the_p2_counterexample_needs_a_constant_of_at_least_2_5_and_a_negative_slack() -> None:
    step_fails = flow_theorems.step_fails_along
    # misaligned at F = 3 (C* = 3), then aligned at F = 3.1: ‖W_3W_2‖ = 9.61 < 3³/2
    assert step_fails(Named("C* = 3", _run((3.0, 0.0), (3.1, 9.61))), 0).holds is True
    # C* = 2 < 2.5 (the proof's C > 2), though ‖W_3W_2‖ = 3 < 2³/2
    assert step_fails(Named("C* = 2", _run((2.0, 0.0), (2.1, 3.0))), 0).holds is False
    # C* = 3 but ‖W_3W_2‖ = 16 ≥ 3³/2 beyond it: the step holds there
    assert step_fails(Named("slack 2.5", _run((3.0, 0.0), (4.0, 16.0))), 0).holds is False


def test_p2_exists_needs_a_nonnegative_slack_and_a_constant_inside_the_horizon() -> None:
    aligned = [(_run((3.0, 9.0), (3.5, 12.25)), None)]
    assert flow_theorems.p2_exists(Named("aligned", aligned), -1).holds is True
    # C* = 2 < final 2.1, but ‖W_3W_2‖ = 3 < 2³/2 with the printed exponent L
    negative = [(_run((2.0, 0.0), (2.1, 3.0)), None)]
    assert flow_theorems.p2_exists(Named("negative slack", negative), 0).holds is False
    # misaligned at the last checkpoint: C* = 2 is the final min F (no C inside the horizon), slack 9 − 2³/2 ≥ 0
    late = [(_run((3.0, 9.0), (2.0, 0.0)), None)]
    decision = flow_theorems.p2_exists(Named("misaligned at T", late), 0)
    assert decision.holds is False and decision.decision.figures["min_slack"] >= 0


@pytest.mark.parametrize("factor, scales, holds", [
    (1.0, (1.0, 2.0, 4.0, 8.0), True),
    (0.5, (1.0, 2.0, 4.0, 8.0), False),  # ‖w_prod‖ = ∏σ_k > ∏σ_k/2 on a rank-one state
    (1.0, (1.0, 2.0, 4.0, 8.0, 30.0), False),  # R = 0 in float64 at c = 30 (margins ≥ 13500): not R > 0
    (1.0, (1.0, 4.0, 2.0, 8.0), False),  # c out of order: R rises from c = 4 to c = 2
    (1.0, (1.0, 2.0, 4.0), False),  # stopped at c = 4: R ≈ 1e-14, not below 1e-100
])
def test_p4_refuses_each_condition_alone(factor, scales, holds) -> None:
    rank_one = SimpleNamespace(states=(_state(2.0, 4.0),))
    decision = flow_theorems.p4_holds(Named("one rank-one state", [(rank_one, None)]), factor, scales)
    assert decision.holds is holds
    values = [decision.decision.figures[f"risk_at_c{c:g}"] for c in scales]
    assert (values[-1] == 0.0) is (scales[-1] == 30.0)  # the positivity case is the only one with R = 0


def test_settles_needs_a_nonincreasing_tail_and_a_final_value_below_the_maximum() -> None:
    t = np.logspace(0, 60, 121)
    falling = 1.0 + 1.0 / np.log(t + 2.0)
    assert flow_theorems.settles(t, falling)
    rising_tail = np.where(t < 1e40, 10.0, 1.0 + np.log10(t) / 60.0)  # below the early peak, but rising
    assert not flow_theorems.settles(t, rising_tail)
    assert not flow_theorems.settles(t, np.ones_like(t))  # nonincreasing, but never below its maximum


def test_envelope_ratio_compares_the_two_halves_of_the_last_decades() -> None:
    t = np.logspace(0, 60, 121)
    early_peak = np.where(t < 1e40, 100.0, 1.0)  # before the window: not counted
    assert flow_theorems.envelope_ratio(t, early_peak) == 1.0
    rising = np.where(t < 1e50, 1.0, 2.0)  # the second half's maximum is not the first half's
    assert flow_theorems.envelope_ratio(t, rising) == 2.0
    falling = np.where(t < 1e50, 3.0, 1.0)
    assert flow_theorems.envelope_ratio(t, falling) == pytest.approx(1.0 / 3.0)
    assert flow_theorems.envelope_ratio(np.array([1.0, 1e55, 1e60]), np.ones(3)) == float("inf")  # first half empty


def test_the_norm_growth_rate_is_fitted_on_its_window_only() -> None:
    t = np.logspace(0.5, 20, 80)
    exponent = 2.0 / 3.0  # L = 3
    inside = np.log(t) ** exponent
    values = np.where(t < 1e4, np.log(1e4) ** exponent * (np.log(t) / np.log(1e4)) ** 5, inside)
    values = np.where(t > 1e12, np.log(1e12) ** exponent, values)  # flat past the window
    states = [SimpleNamespace(frobenius=np.array([1.0, 1.0, np.sqrt(v)])) for v in values]
    run = SimpleNamespace(t=t, label="run", initial_layers=(None, None, None),
                          series=lambda quantity: np.array([quantity(s) for s in states]))
    decision = flow_theorems.norm_growth_rate(Named("one run", [run]))
    assert decision.holds is True
    assert decision.decision.figures["p_over_2_by_L run"] == pytest.approx(1.0, rel=1e-9)


def test_exact_theta_needs_a_certified_spanning_support(monkeypatch) -> None:
    assert flow_geometry.exact_theta_positive(ds2()).holds is True
    with monkeypatch.context() as patch:
        patch.setattr(flow_geometry, "spans_space", lambda data, svm: False)
        assert flow_geometry.exact_theta_positive(ds2()).holds is None
    svm = max_margin_direction(ds2())
    unchecked = dataclasses.replace(svm, reference=dataclasses.replace(svm.reference, status="unverified"))
    assert not unchecked.certified and unchecked.exact_direction is not None
    monkeypatch.setattr(flow_geometry, "max_margin_direction", lambda data: unchecked)
    assert flow_geometry.exact_theta_positive(ds2()).holds is None


def test_theta_zero_is_refused_though_it_equals_the_hull_value() -> None:
    # DSdeg: θ = 0 exactly and in floats (−0.0), no sampled direction below it: only θ > 0 refuses
    assert flow_geometry.exact_theta_positive(ds_degenerate()).holds is False
    decision = flow_geometry.theta_positive(Named("DSdeg", [(ds_degenerate(), np.random.default_rng(5))]), 400)
    assert decision.holds is False and decision.decision.figures["max_relative_mismatch"] == 0.0


def test_exact_theta_must_equal_the_float_hull_value(monkeypatch) -> None:
    # the float convex-hull value shifted by 1e-9 (θ = 1/5 exactly on DS2): the exact θ > 0 still
    monkeypatch.setattr(flow_geometry, "support_radius", lambda data, svm: support_radius(data, svm) + 1e-9)
    decision = flow_geometry.exact_theta_positive(ds2())
    assert decision.holds is False and decision.decision.figures["theta_float"] == 0.2


def test_no_sampled_direction_may_fall_below_the_hull_value(monkeypatch) -> None:
    rng = np.random.default_rng(5)
    assert flow_geometry.theta_positive(Named("DS3", [(ds3(), rng)]), 400).holds is True
    # the hull value raised by 1e-6: still θ > 0, but the sampled minimization finds directions below it
    monkeypatch.setattr(flow_geometry, "support_radius", lambda data, svm: support_radius(data, svm) + 1e-6)
    decision = flow_geometry.theta_positive(Named("DS3", [(ds3(), np.random.default_rng(5))]), 400)
    assert decision.holds is False and decision.decision.figures["min_theta"] > 0


class _SquareMargin(MarginLoss):
    """ℓ(q) = (1 − q)²/2 = (f − y)²/2 for y = ±1: ℓ'(q) = q − 1 > 0 for q > 1 (not a loss of Assumption 1)."""

    name = "square (margin form)"

    def derivative(self, q):
        return np.asarray(q, dtype=float) - 1.0


def test_eq20_refuses_a_shrinking_first_layer_at_nonnegative_margins() -> None:
    """The identity d‖W_1‖²/dt = −2⟨w_prod, ∇R(w_prod)⟩ holds for any loss; with the square loss from margins
    above 1 the flow shrinks the layers while every margin is positive, so only the sign condition refuses."""
    data = ds3()
    net = linear_network((3, 2, 1))
    square = Objective(net, data.X, data.y[:, None], "square", mean=True)
    layers = [2.0 * np.outer([1.0, 0.0], max_margin_direction(data).direction), np.array([[2.0, 0.0]])]
    theta0 = np.concatenate([W.ravel() for W in layers])  # w_prod = 4ū: every margin ≥ 2
    run = run_flow("square loss from margins ≥ 2", square, theta0, np.linspace(0.0, 0.05, 6))
    margins = np.array([data.Z @ chain(net.matrices(theta)).ravel() for theta in run.trajectory.theta])
    assert np.all(margins > 1.0)
    as_margin_loss = SimpleNamespace(model=net, descent=square.descent, loss=_SquareMargin(), X=data.X, Y=data.y)
    shrinking = dataclasses.replace(run, objective=as_margin_loss)
    shrinking.__dict__["margins"] = margins  # the cached property, read off the layers
    decision = measured_rates_match(Named("square-loss flow", [(shrinking, max_margin_direction(data).direction)]),
                                    2.0, 1e-6)
    figures = decision.decision.figures
    assert decision.holds is False and figures["sign_ok"] is False and figures["max_relative_error"] <= 1e-6
