"""Paper 001's shared helpers (``common``) and the derived claims' criteria (``derived``) at their edges: exact ties
of the thresholds, refusals, and helpers against closed forms."""

from __future__ import annotations

from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import sympy

from theorems.margin_maximization import common as C
from theorems.margin_maximization import derived as D
from verify.claim import EvidenceKind, Verdict


# -- common: the checker's answers -------------------------------------------------------------------------------
def test_result_refuses_an_occurrence_past_the_last() -> None:
    rep = SimpleNamespace(origin="file", results=[SimpleNamespace(name="kkt")])
    assert C.result(rep, "kkt", occurrence=0) is rep.results[0]
    with pytest.raises(KeyError, match="number 1"):
        C.result(rep, "kkt", occurrence=1)


def test_property_figures_give_the_checker_time_in_milliseconds(monkeypatch) -> None:
    res = SimpleNamespace(name="kkt", verdict=Verdict.CERTIFIED, evidence=EvidenceKind.EXACT, detail="d",
                          figures={"x": 1}, seconds=1.23456)
    monkeypatch.setattr(C, "_property_result", lambda src, prop: res)
    decision = C._property_as_asserted(None, "kkt", True)
    assert decision.holds is True
    assert decision.figures == {"x": 1, "seconds": 1.235, "checker_evidence": "exact"}


# -- common: interval enclosures ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [sympy.sqrt(2), -3 * sympy.sqrt(5) / 7, sympy.sqrt(2) * 10**6])
def test_interval_is_centred_on_the_number_with_radius_one_plus_its_size_times_ten_to_minus_dps(value) -> None:
    dps = 20
    enclosure = C._interval(value, dps)
    with mpmath.workdps(60):
        exact = mpmath.mpf(str(sympy.N(value, 60)))
        low, high = mpmath.mpf(enclosure.a), mpmath.mpf(enclosure.b)
        assert low < exact < high
        radius = (abs(exact) + 1) * mpmath.mpf(10) ** (-dps)
        assert abs((high - low) / 2 - radius) <= radius * mpmath.mpf(10) ** -8
        assert abs((high + low) / 2 - exact) <= radius * mpmath.mpf(10) ** -8


def test_rational_interval_is_exact() -> None:
    enclosure = C._interval(sympy.Rational(1, 4), 20)
    assert enclosure.a == enclosure.b == mpmath.mpf(0.25)


# -- common: the closed form of the one-dimensional reductions -----------------------------------------------------
def test_ei_margin_at_time_zero_is_the_start_just_above_the_root_of_ei() -> None:
    assert float(C.ei_margin(0.5, 1, 0, "exponential")) == pytest.approx(0.5, rel=1e-15)  # Ei(0.5) ≈ 0.454


def test_ei_margin_refuses_a_start_where_ei_is_negative() -> None:
    with pytest.raises(ValueError, match=r"needs F\(q0\) > 0"):
        C.ei_margin(0.3, 1, 0, "exponential")  # Ei(0.3) ≈ −0.303


def test_ei_margin_refuses_a_zero_potential() -> None:
    with mpmath.workdps(40):
        q0 = mpmath.mpf("0.3")
        t = -C.ei_potential(q0, "exponential")  # F(q0) + 1·t = 0 exactly, in the same arithmetic
    with pytest.raises(ValueError, match=r"needs F\(q0\) > 0"):
        C.ei_margin(q0, 1, t, "exponential")


# -- common: the normalized flows' limits -------------------------------------------------------------------------
def test_limits_reach_fails_a_flow_that_returned_nan(monkeypatch) -> None:
    monkeypatch.setattr(C, "_limits", lambda name, slopes: ((np.array([np.nan, np.nan]), np.nan, "broken"),))
    assert C._limits_reach("any", np.array([1.0, 0.0]), False, 1e-4).holds is False


def test_limits_reach_at_the_target(monkeypatch) -> None:
    monkeypatch.setattr(C, "_limits", lambda name, slopes: ((np.array([1.0, 0.0]), 1.0, "exact"),))
    decision = C._limits_reach("any", np.array([1.0, 0.0]), False, 1e-4)
    assert decision.holds is True and decision.figures["worst"] == 0.0


# -- common: Theorem 3.2's initializations ---------------------------------------------------------------------------
X32 = np.array([[1.0, 0.0], [0.0, 1.0]])


@pytest.mark.parametrize(("theta0", "inside"), [
    ([1, 1, -1, -1, 1, 0], True),
    ([1, 0, -1, -1, 1, 0], False),  # ⟨w1, x2⟩ = 0: not > 0
    ([1, 1, -1, 0, 1, 0], False),  # ⟨w2, x2⟩ = 0: not < 0
    ([1, 1, -1, -1, 0, 0], False),  # v1 = 0: not > 0
])
def test_thm32_hypotheses_are_strict(theta0, inside) -> None:
    assert C.in_thm32_hypotheses(np.array(theta0, dtype=float), X32) is inside


def test_thm32_initializations_draw_only_what_they_need() -> None:
    rng = np.random.default_rng(3)
    assert len(C.thm32_initializations(rng, 0, X32)) == 0
    assert rng.random() == np.random.default_rng(3).random()  # no batch drawn for no initialization
    drawn = C.thm32_initializations(rng, 5, X32)
    assert drawn.shape == (5, 6) and all(C.in_thm32_hypotheses(theta, X32) for theta in drawn)


# -- derived: local search's criteria ----------------------------------------------------------------------------
def test_scales_asks_for_an_improvement_at_the_smallest_radius() -> None:
    assert D.SCALES.function((1e-3, 1e-5), True, 2.0, 2).holds is True
    assert D.SCALES.function((1e-3, 0.0), True, 2.0, 2).holds is False  # found at ρ = 0.05 only
    assert D.SCALES.function((1e-3, D.FOUND), True, 2.0, 2).holds is False  # at the threshold: not above it


def test_no_improvement_includes_its_threshold() -> None:
    assert D.NO_IMPROVEMENT.function((D.NONE, 0.0)).holds is True
    assert D.NO_IMPROVEMENT.function((2 * D.NONE, 0.0)).holds is False


def test_plotted_improvements_draw_none_at_the_floor() -> None:
    assert D.plotted((0.0, 1e-3)) == [1e-18, 1e-3]


# -- derived: global optima ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("ratio", "target", "holds"), [(25, 5, True), (24, 5, False), (99, 10, False),
                                                        (100, 10, True)])
def test_ratio_at_least_compares_with_m_squared_including_the_tie(monkeypatch, ratio, target, holds) -> None:
    monkeypatch.setattr(D, "family_ratio", lambda delta: sympy.Integer(ratio))
    assert D.RATIO_AT_LEAST.function(sympy.Rational(1, 8), target).holds is holds


GOLDEN = (3 + sympy.sqrt(5)) / 2  # top eigenvalue of [[2, 1], [1, 1]]


@pytest.mark.parametrize(("patches", "activation", "peak"), [
    ([[1, 0], [1, 1]], "relu", GOLDEN),  # both patches active at the optimum: the chamber of the full set
    ([[1, 0], [1, 1]], "linear", GOLDEN),
    ([[1, 0]], "relu", sympy.Integer(1)),
    ([[-1, 0]], "relu", sympy.Integer(1)),  # attained at −w of an eigenvector w
    ([[0, 1]], "relu", sympy.Integer(1)),
    ([[0, -1]], "relu", sympy.Integer(1)),
    ([[3, 4], [-4, 3]], "relu", sympy.Integer(25)),  # orthogonal patches: max of σ(a)² + σ(b)² with a² + b² = 25
    ([[-3, 4], [-4, -3]], "relu", sympy.Integer(25)),
])
def test_shared_filter_peak_against_closed_forms(patches, activation, peak) -> None:
    value = D.shared_filter_peak(np.array(patches, dtype=object), activation)
    assert float(value) == pytest.approx(float(peak), rel=1e-12)
