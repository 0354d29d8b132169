"""Each condition of a conjunction in align's criteria, refused alone: an input on which only that condition fails
(the claims' instances meet every condition, so there a dropped one would go unnoticed)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import sympy

import theorems.layer_alignment.conservation as conservation
import theorems.layer_alignment.descent_theorems as thm
import theorems.layer_alignment.flow_assumptions as assumptions
import theorems.layer_alignment.flow_lemmas as lemmas
from numerics.symbolic import is_identically_zero
from theorems.layer_alignment.common import (
    ds2,
    ds3,
    linear_network,
    loss_at_zero,
    max_margin_direction,
    risk,
    satisfies_assumption2,
)
from theorems.layer_alignment.criteria import Named
from theorems.layer_alignment.descent_lemmas import ds2_narrow_risk, error_chain, first_constant_step_violation
from theorems.layer_alignment.descent_runs import descent_trace
from theorems.layer_alignment.descent_smoothness import GAUGE_ROUNDING, printed_clause_departures
from theorems.layer_alignment.figures import DENSE_SHAPES, alignment_emerges

x = sympy.Symbol("x", real=True)
PROVED, REFUTED = is_identically_zero(sympy.Integer(0)), is_identically_zero(x)
UNDECIDED = dataclasses.replace(PROVED, proved=False, method="", description="undecided")


# -- eq. (3): the trace of a conserved Gram difference ----------------------------------------------------------------

def test_eq3_needs_the_shape_free_proof(monkeypatch) -> None:
    monkeypatch.setattr(conservation, "derivative_vanishes_for_every_shape", lambda gap: UNDECIDED)
    assert conservation.trace_of_conserved_gap(conservation.frobenius_gap).holds is None


def test_eq3_needs_every_trace_proved(monkeypatch) -> None:
    exact = conservation.is_identically_zero
    # the shape-free proof (a matrix expression) still runs; the entrywise traces come back undecided
    monkeypatch.setattr(conservation, "is_identically_zero",
                        lambda quantity: exact(quantity) if isinstance(quantity, sympy.MatrixExpr) else UNDECIDED)
    assert conservation.trace_of_conserved_gap(conservation.frobenius_gap).holds is None


# -- Remark (error term): the slacks alone ----------------------------------------------------------------------------

def test_error_chain_refuses_negative_slacks_alone() -> None:
    """η = 3 makes Σ η²‖∇R‖² exceed Σ η‖∇R‖²; κ lifted 10⁶-fold keeps S(t) ≤ 2κR(W(0)), so only the slacks refuse."""
    objective = risk(linear_network((2, 3, 1)), ds2(), "logistic")
    theta0 = 0.3 * np.random.default_rng(0).normal(size=objective.model.n_params)
    runs = Named("η = 3", [descent_trace(objective, theta0, 10, 3.0)])
    decision = error_chain(runs, 1e6)
    assert decision.holds is False and decision.decision.figures["min_slack_eta_le_1"] < 0
    assert decision.decision.tightness[2].tightest <= 1  # the κ side holds


# -- Lemma 8's constant-step search ------------------------------------------------------------------------------------

def test_constant_step_search_skips_starts_at_the_risk_ceiling() -> None:
    """W_2(0) = 0: R(W(0)) = ℓ(0) exactly with ∇R ≠ 0 (Assumption 2 holds, but not with margin), and η = 10 breaks
    (a) after 3 steps in float64; a start where R = ℓ(0) cannot be certified, so the search must not report it."""
    start = np.array([2, -6, 0, -6, 0, 0, 0, 0, -4, -6]) / 4
    objective = ds2_narrow_risk()
    assert satisfies_assumption2(objective, start) and float(objective.value(start)) == loss_at_zero(objective.loss)
    assert first_constant_step_violation(start[None]) is None


# -- Assumption 5's printed clause ---------------------------------------------------------------------------------

def test_printed_clause_departures_count_only_steps_inside_the_ball() -> None:
    """R_1 ≠ R_0 with W(1) ∈ B(R_0) departs from the printed clause; R_2 ≠ R_1 with W(2) outside B(R_1) does not."""
    net = linear_network((1, 1, 1))
    gauges = np.array([0.5, 0.9, 2.5, 2.6]) * (1.0 + GAUGE_ROUNDING)
    trace = SimpleNamespace(net=net, theta=np.stack([gauges, gauges], axis=1), radii=np.array([1.0, 2.0, 3.0]))
    assert printed_clause_departures(trace) == 1


# -- Theorem 3's proxy ------------------------------------------------------------------------------------------------

def _theorem3_proxies(frobenius: np.ndarray) -> thm.Proxies:
    time = np.geomspace(1.0, 1e4, 40)
    return thm.Proxies(np.arange(40), time, 1.0 / time, frobenius, np.zeros_like(frobenius), 1.0 / time)


def test_theorem3_norms_must_grow_at_every_late_checkpoint(monkeypatch) -> None:
    """‖W_k‖_F grows over the last decade but dips once inside it: not increasing."""
    time = np.geomspace(1.0, 1e4, 40)
    norms = np.log(time + 2)
    norms[-3] = norms[-5]
    trace = SimpleNamespace(risk=1.0 / np.geomspace(1.0, 1e4, 41))
    monkeypatch.setattr(thm, "proxies", lambda trace, vector=0: _theorem3_proxies(np.stack([norms, norms], axis=1)))
    trend = thm.theorem3_trend(trace, 0)
    assert trend["min_norm_growth_late"] > 1 and trend["norms_increasing_late"] is False
    assert trend["risk_falls"] is True


def test_theorem3_risk_must_fall_at_every_step(monkeypatch) -> None:
    """One step where R rises (by 1 %) in a run whose risk otherwise falls like 1/t: the rate and the drop hold."""
    time = np.geomspace(1.0, 1e4, 40)
    risk_steps = 1.0 / np.geomspace(1.0, 1e4, 41)
    risk_steps[5] = risk_steps[4] * 1.01
    monkeypatch.setattr(thm, "proxies", lambda trace, vector=0: _theorem3_proxies(
        np.stack([np.log(time + 2)] * 2, axis=1)))
    trend = thm.theorem3_trend(SimpleNamespace(risk=risk_steps), 0)
    assert trend["risk_nonincreasing_every_step"] is False and trend["risk_falls"] is False
    assert trend["risk_exponent_late"] <= thm.RISK_EXPONENT and risk_steps[-1] <= risk_steps[0] / thm.RISK_DROP


# -- Theorem 4's proxy and data ---------------------------------------------------------------------------------------

def test_theorem4_part_needs_a_decreasing_proxy(monkeypatch) -> None:
    """The proxy falls like (ln t)^(−1) and ends below the ceiling, but rises once in its last decade."""
    time = np.geomspace(1.0, 1e4, 40)
    values = 0.3 / np.log(time + 2)
    values[-4] = values[-6]
    monkeypatch.setattr(thm, "alignment", lambda trace, target, count=40: thm.Alignment(time, values, values**2,
                                                                                         values))
    runs, target = Named("one run", [("run", None)]), Named("e_1", np.array([1.0, 0.0]))
    for part, name in (("first layer", "perpendicular_ratio"), ("product", "angle")):
        proxy = thm.theorem4_part(runs, target, part)
        assert proxy.holds is False and proxy.decision.figures[f"run: {name}_exponent_in_ln_t"] < thm.PROXY_EXPONENT
        assert proxy.decision.figures[f"run: final_{name}"] < thm.EARLY_REGIME_CEILING


def _uncertified(data):
    svm = max_margin_direction(data)
    return dataclasses.replace(svm, reference=dataclasses.replace(svm.reference, status="solved"))


def test_theorem4_data_needs_a_certified_svm(monkeypatch) -> None:
    assert thm.theorem4_data(ds3()).holds is True
    monkeypatch.setattr(thm, "max_margin_direction", _uncertified)
    assert thm.theorem4_data(ds3()).holds is False


def test_generic_support_needs_a_certified_svm(monkeypatch) -> None:
    assert assumptions.generic_support(Named("DS3", [ds3()]), 0).holds is True
    monkeypatch.setattr(assumptions, "max_margin_direction", _uncertified)
    assert assumptions.generic_support(Named("DS3", [ds3()]), 0).holds is False


# -- Figure 2's stand-in ----------------------------------------------------------------------------------------------

def test_fig2_layers_must_end_above_their_start() -> None:
    """Every wide layer ends at ≥ 2× its lower bound, but one layer ends below where it started."""
    bounds = tuple(1.0 / np.sqrt(min(shape)) for shape in DENSE_SHAPES)
    start = np.array([0.5] * len(DENSE_SHAPES))
    end = start + 0.1
    end[0] = 0.4
    assert alignment_emerges(Named("grown", {"run": (None, None, np.stack([start, start + 0.1]))}), bounds).holds
    assert alignment_emerges(Named("one fell", {"run": (None, None, np.stack([start, end]))}), bounds).holds is False


# -- Lemma 2 (c)'s proxy and the balanced remark -----------------------------------------------------------------------

def _aligning_run(gaps: np.ndarray):
    """A stand-in flow whose 1 − |⟨w_prod/∏F_k, v⟩| takes the given values on t = 10², …"""
    states = [SimpleNamespace(w_prod=np.array([1.0 - g, np.sqrt(1.0 - (1.0 - g) ** 2)]), frobenius=np.ones(1))
              for g in gaps]
    return SimpleNamespace(t=np.geomspace(lemmas.PROXY_START, 1e6, len(gaps)), states=states)


def _first_axis(state) -> np.ndarray:
    return np.array([1.0, 0.0])


def test_product_aligns_needs_a_monotone_gap() -> None:
    gaps = np.geomspace(0.1, 0.001, 9)
    assert lemmas.product_aligns(Named("falls", [_aligning_run(gaps)]), _first_axis).holds is True
    gaps[4] = gaps[2]  # one rise, still ending far below the start
    assert lemmas.product_aligns(Named("rises once", [_aligning_run(gaps)]), _first_axis).holds is False


def test_product_aligns_needs_a_smaller_final_gap() -> None:
    constant = np.full(9, 0.1)  # nonincreasing, but it never falls
    assert lemmas.product_aligns(Named("flat", [_aligning_run(constant)]), _first_axis).holds is False


def test_stays_rank_one_refuses_each_defect_alone(monkeypatch) -> None:
    runs = Named("one run", [SimpleNamespace(initial_layers=None)])
    tolerance = 1e-8
    for defects, D in (((0.0, 0.0, 0.0), 0.0), ((2e-8, 0.0, 0.0), 0.0), ((0.0, 0.0, 2e-8), 0.0),
                       ((0.0, 0.0, 0.0), 2 * lemmas.BALANCE_TOLERANCE)):
        monkeypatch.setattr(lemmas, "balanced_defects", lambda run, defects=defects: np.array(defects))
        monkeypatch.setattr(lemmas, "initialization_constant", lambda layers, D=D: D)
        assert lemmas.stays_rank_one(runs, tolerance, tolerance).holds is (max(defects) == 0 and D == 0)


# -- eqs. (20)–(21) with a wrong factor --------------------------------------------------------------------------------

def test_rates_differ_needs_both_identities_refuted(monkeypatch) -> None:
    for tests, expected in (((REFUTED, REFUTED), True), ((PROVED, REFUTED), False), ((REFUTED, PROVED), False),
                            ((UNDECIDED, REFUTED), None), ((REFUTED, UNDECIDED), None)):
        monkeypatch.setattr(lemmas, "_symbolic_rate_identities", lambda factor, widths, tests=tests: tests)
        assert lemmas.rates_differ((2, 2, 1), 2).holds is expected


def test_assumption2_gradient_floor_is_strict() -> None:
    """A gradient exactly at the floor does not count as ∇R ≠ 0; just above it does (the floor is the criterion's
    only tolerance)."""
    start = np.array([2, -6, 0, -6, 0, 0, 0, 0, -4, -6]) / 4
    objective = ds2_narrow_risk()
    gradient = float(np.linalg.norm(objective.gradient(start)))
    assert gradient > 0
    assert not satisfies_assumption2(objective, start, gradient_floor=gradient)
    assert satisfies_assumption2(objective, start, gradient_floor=np.nextafter(gradient, 0.0))
