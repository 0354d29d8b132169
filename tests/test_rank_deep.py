"""Helpers of paper 000's Secs. 4–5 (theorems/rank_minimization/deep_common.py) and of the Fig. 1 experiment."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics.networks import fully_connected
from theorems.rank_minimization import deep_common as D
from theorems.rank_minimization import experiment_fig1 as F
from verify import workloads as W

RATIONAL_INPUTS = np.array(D.PYTHAGOREAN_INPUTS, dtype=object)


def exact_outputs(layers: list[np.ndarray], X: np.ndarray) -> np.ndarray:
    net = fully_connected([layers[0].shape[1]] + [W.shape[0] for W in layers])
    return net.forward(D.parameters(layers), X)[:, 0]


# -- bounds ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("B", [2, 4])
@pytest.mark.parametrize("kp", [3, 4, 6, 8])
def test_bounds_match_their_closed_forms(B: int, kp: int) -> None:
    k = 2
    assert float(D.ratio_bound("interpolation", B, k, kp)) == pytest.approx(B ** (-k / kp), rel=1e-14)
    assert float(D.norm_bound("interpolation", B, k, kp)) == pytest.approx(kp * B ** (2 * k / kp), rel=1e-14)
    margin = 2 ** -0.5 * (2**0.5 / B) ** (k / kp) * (kp / (kp + 1)) ** 0.5
    assert float(D.ratio_bound("margin", B, k, kp)) == pytest.approx(margin, rel=1e-14)
    assert float(D.norm_bound("margin", B, k, kp)) == pytest.approx(2 * (2 / B**2) ** (-k / kp) * (kp + 1), rel=1e-14)
    for problem in ("interpolation", "margin"):
        assert float(D.ratio_bound(problem, B, k, kp) * D.harmonic_bound(problem, B, k, kp)) == pytest.approx(1.0)


@pytest.mark.parametrize("problem", ["interpolation", "margin"])
def test_construction_identities_hold_and_detect_a_wrong_scale(problem: str) -> None:
    assert all(test.proved for test in D.construction_identities(problem).values())
    B, k, kp = D.bound_symbols()
    _, beta = D.scales(problem, B, k, kp)
    wrong = D.construction_identities(problem, beta=2 * beta)
    assert wrong["alpha^k beta^(k'-k) = 1"].refuted and wrong["||theta'||^2 = norm bound"].refuted


def test_case_split_proves_and_refutes_relu_identities() -> None:
    z, c = sympy.Symbol("z", real=True), sympy.Symbol("c", positive=True)
    assert D.holds_for_both_signs(D.relu(c * z) - c * D.relu(z), z).proved
    assert D.holds_for_both_signs(D.relu(z) - D.relu(-z) - z, z).proved
    assert D.holds_for_both_signs(D.relu(-c * z) + c * D.relu(z), z).refuted


# -- constructions --------------------------------------------------------------------------------------------
def test_teacher_properties() -> None:
    teacher = D.absolute_sum_teacher()
    assert teacher.depth == 2 and teacher.width == 4 and teacher.widths == [2, 4, 1]
    assert teacher.frobenius_bound == 2
    assert list(teacher.outputs(RATIONAL_INPUTS)) == [sympy.Rational(7, 5), sympy.Rational(17, 13),
                                                     sympy.Rational(23, 17), sympy.Rational(31, 25)]
    assert D.contrast_teacher(sympy.sqrt(5)).frobenius_bound == 2 * sympy.sqrt(5)


@pytest.mark.parametrize("kp", [3, 5])
def test_interpolation_construction_is_exact_and_balanced(kp: int) -> None:
    teacher = D.absolute_sum_teacher()
    layers = D.construction("interpolation", teacher, kp)
    assert [W.shape for W in layers] == [(4, 2), (1, 4)] + [(1, 1)] * (kp - 2)
    gaps = exact_outputs(layers, RATIONAL_INPUTS) - teacher.outputs(RATIONAL_INPUTS)
    assert all(sympy.simplify(g) == 0 for g in gaps)
    norms = [sympy.sqrt(sum(sympy.sympify(v) ** 2 for v in W.ravel())) for W in layers]
    assert all(sympy.simplify(n - norms[0]) == 0 for n in norms)  # αB = β when every teacher layer has norm B


def test_margin_construction_keeps_outputs_of_both_signs() -> None:
    teacher = D.contrast_teacher()
    layers = D.construction("margin", teacher, 4)
    assert [W.shape for W in layers] == [(4, 2), (2, 4), (2, 2), (1, 2)]
    outputs = teacher.outputs(RATIONAL_INPUTS)
    assert any(v < 0 for v in outputs) and any(v > 0 for v in outputs)
    gaps = exact_outputs(layers, RATIONAL_INPUTS) - outputs
    assert all(sympy.simplify(g) == 0 for g in gaps)
    width_one = exact_outputs(D.construction("interpolation", teacher, 4), RATIONAL_INPUTS) - outputs
    assert any(sympy.simplify(g) != 0 for g in width_one)


def test_padding_keeps_function_and_norm_and_rejects_narrow_students() -> None:
    layers = D.construction("interpolation", D.absolute_sum_teacher(), 3)
    wide = D.padded(layers, [2, 6, 5, 1])
    assert [W.shape for W in wide] == [(6, 2), (5, 6), (1, 5)]
    assert list(exact_outputs(wide, RATIONAL_INPUTS)) == list(exact_outputs(layers, RATIONAL_INPUTS))
    squares = [sum(sympy.sympify(v) ** 2 for v in W.ravel()) for W in wide + layers]
    assert sympy.simplify(sum(squares[:3]) - sum(squares[3:])) == 0
    with pytest.raises(ValueError, match="does not fit"):
        D.padded(layers, [2, 3, 1, 1])


def test_balancing_keeps_function_and_does_not_increase_the_norm() -> None:
    rng = np.random.default_rng(1)
    net = fully_connected([3, 4, 5, 1])
    layers = [W * s for W, s in zip(net.matrices(rng.normal(size=net.n_params)), (0.2, 3.0, 1.5))]
    X = rng.normal(size=(7, 3))
    even = D.balanced(layers)
    norms = D.layer_norms(even)
    assert norms.balance_gap < 1e-12
    assert norms.squared_norm <= D.layer_norms(layers).squared_norm
    np.testing.assert_allclose(net.forward(D.parameters(even), X), net.forward(D.parameters(layers), X), rtol=1e-12)


def test_balance_gap_is_the_largest_over_the_smallest_layer_norm_minus_one() -> None:
    """Small layers too (Frobenius norms 1/2 and 1/4: gap 1), and +inf when a layer is zero."""
    assert D.layer_norms([np.array([[0.5]]), np.array([[0.0, 0.25]])]).balance_gap == 1.0
    assert D.layer_norms([np.array([[3.0, 4.0]]), np.array([[0.0]])]).balance_gap == np.inf


def test_identity_padding_computes_the_teacher_with_high_rank_layers() -> None:
    teacher = D.absolute_sum_teacher()
    X = D.circle_inputs(8, 0.3)
    layers = D.identity_padded(teacher, 5, 6)
    assert [W.shape for W in layers] == [(6, 2), (6, 6), (6, 6), (6, 6), (1, 6)]
    np.testing.assert_allclose(exact_outputs(layers, X), D.backend.to_float(teacher.outputs(X)), rtol=1e-12)
    assert D.layer_norms(layers).balance_gap < 1e-12


# -- the certificate ------------------------------------------------------------------------------------------
def test_certificate_separates_the_construction_from_a_high_norm_interpolant() -> None:
    teacher = D.absolute_sum_teacher()
    X = D.circle_inputs(8, 0.3)
    y = np.asarray(D.backend.to_float(teacher.outputs(X)))
    good = D.certificate("interpolation", D.construction("interpolation", teacher, 6), X, y, 2.0, 2)
    assert good.feasible and good.balanced and good.within_norm_bound and good.conclusion
    assert good.squared_norm == pytest.approx(good.norm_bound, rel=1e-12)  # Eq. (18) attained
    bad = D.certificate("interpolation", D.identity_padded(teacher, 6, 4), X, y, 2.0, 2)
    assert bad.feasible and bad.balanced and not bad.within_norm_bound and not bad.conclusion
    infeasible = D.certificate("interpolation", D.construction("interpolation", teacher, 6), X, y + 0.1, 2.0, 2)
    assert not infeasible.feasible and not infeasible.hypotheses


def test_certificate_is_asserted_only_on_balanced_candidates() -> None:
    """The proof's hypotheses: the construction rescaled by 2 and 1/2 in two layers computes the same function
    (feasible) but is not balanced, so Eq. (3) is not asserted on it, with or without the norm hypothesis."""
    from theorems.rank_minimization.deep_evidence import certificate_on_candidates

    teacher = D.absolute_sum_teacher()
    X = D.circle_inputs(8, 0.3)
    y = np.asarray(D.backend.to_float(teacher.outputs(X)))
    layers = [np.asarray(D.backend.to_float(W)) for W in D.construction("interpolation", teacher, 6)]
    rescaled = [2.0 * layers[0], 0.5 * layers[1], *layers[2:]]
    assert not D.certificate("interpolation", rescaled, X, y, 2.0, 2).balanced
    candidates = [(len(layers), layers), (len(layers), rescaled)]
    for require in (True, False):
        decision = certificate_on_candidates("interpolation", candidates, X, y, 2.0, 2,
                                             require_norm_bound=require).decision
        assert decision.holds and decision.figures["asserted"] == 1


def test_summary_of_local_solutions() -> None:
    teacher = D.absolute_sum_teacher()
    X = D.circle_inputs(8, 0.3)
    y = np.asarray(D.backend.to_float(teacher.outputs(X)))
    found = D.local_solutions("interpolation", teacher, X, y, 3, 4, np.random.default_rng(0), warm_starts=1,
                              random_starts=1)
    summary, certificates = D.summarize("interpolation", found, X, y, 2.0, 2)
    assert summary.candidates == 2 and len(certificates) == 2
    assert summary.certified >= 1 and summary.violations == 0  # the warm start lands on (a neighbour of) θ'
    assert 0 < summary.ratio_tightness <= 1 and 0 < summary.norm_tightness <= 1 + 1e-9
    certified = [c for c in certificates if c.hypotheses]
    assert summary.ratio_tightness == max(c.ratio_bound / c.average_ratio for c in certified)


def test_layer_norms_at_their_edges() -> None:
    """A zero layer has no ratio (nan, never 0/0 arithmetic) and makes the balance gap infinite; a layer of norm
    below 1 has its ratio; all-zero layers are infinitely unbalanced, not nan."""
    norms = D.LayerNorms(np.array([0.5, 2.0]), np.array([0.25, 2.0]))
    assert norms.ratios.tolist() == [0.5, 1.0] and norms.balance_gap == 3.0
    zero = D.LayerNorms(np.array([0.0, 2.0]), np.array([0.0, 1.0]))
    assert np.isnan(zero.ratios[0]) and zero.ratios[1] == 0.5 and zero.balance_gap == np.inf
    assert D.LayerNorms(np.zeros(2), np.zeros(2)).balance_gap == np.inf


def test_feasibility_gaps_are_relative_and_one_sided() -> None:
    """Interpolation: max |N − y| / max |y|; margin: 1 − min y·N, and 0 once every margin is at least 1."""
    y = np.array([2.0, -4.0])
    assert D.feasibility_gap("interpolation", np.array([2.5, -4.0]), y) == 0.125
    labels = np.array([1.0, -1.0])
    assert D.feasibility_gap("margin", np.array([0.5, -3.0]), labels) == 0.5
    assert D.feasibility_gap("margin", np.array([2.0, -3.0]), labels) == 0.0


def test_the_certificate_conclusion_holds_at_equality() -> None:
    """Eq. (3)/(7) is '≥': an average ratio equal to the bound satisfies it, one just below does not."""
    at = D.Certificate(0.0, 0.0, 1.0, 2.0, 0.75, 0.75)
    assert at.conclusion and not D.Certificate(0.0, 0.0, 1.0, 2.0, np.nextafter(0.75, 0), 0.75).conclusion


def test_the_paper_s_width_is_the_largest_layer_not_the_input() -> None:
    teacher = D.Teacher((np.ones((2, 5)), np.ones((1, 2))))
    assert teacher.widths == [5, 2, 1] and teacher.width == 2


def test_fitted_teacher_has_margin_one_and_balanced_layers() -> None:
    X = D.circle_inputs(8, 0.3)
    y = np.array([1, 1, 1, 1, 1, -1, -1, -1], dtype=float)
    teacher = D.fitted_teacher(X, y, 4, np.random.default_rng(0), starts=2)
    margins = y * np.asarray(D.backend.to_float(teacher.outputs(X)))
    assert 1.0 <= margins.min() < 1 + 1e-9
    assert D.layer_norms(list(teacher.layers)).balance_gap < 1e-12


# -- Fig. 1 ---------------------------------------------------------------------------------------------------
def test_fig1_data_and_initialization() -> None:
    X, _ = W.fig1_data()
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    assert np.degrees(np.arccos(X[0] @ X[1])) == pytest.approx(90.5758, abs=1e-4)
    theta = W.fig1_initialization(np.random.default_rng(0), 500)
    W1, V = W.fig1_network().matrices(theta)
    np.testing.assert_allclose(np.linalg.norm(W1, axis=2), W.INIT_RADIUS, rtol=1e-12)  # rows w_i
    np.testing.assert_allclose(np.linalg.norm(V, axis=1), W.INIT_RADIUS, rtol=1e-12)  # columns v_i
    directions = np.arctan2(W1[:, 0, 1], W1[:, 0, 0])
    assert np.histogram(directions, bins=4, range=(-np.pi, np.pi))[0].min() > 90  # roughly uniform (125 each)


def test_run_fig1_statistics() -> None:
    stats = W.run_fig1(steps=20, step_size=1e-2, runs=6, seed=3, device="cpu")
    assert stats.final_loss.shape == (6,) and stats.singular_values.shape == (6, 2, 2)
    assert np.all(stats.final_loss == pytest.approx(1.0, abs=1e-3))  # tiny weights: N ≈ 0, loss ≈ ½‖Y‖_F²
    assert np.all((stats.stable_ranks >= 1) & (stats.stable_ranks <= 2 + 1e-12))
    assert stats.converged_count == 0 and stats.seconds > 0


def test_binomial_p_value() -> None:
    assert F.binomial_p_value(79, 288, 79 / 288) == pytest.approx(1.0)
    assert F.binomial_p_value(150, 288, 79 / 288) < 1e-10


def test_certificate_hypotheses_need_balance() -> None:
    """The construction rescaled by 2 and 1/2 in two layers is feasible and, against the larger bound of B = 4, within
    the norm bound, but not balanced: the proof's hypotheses fail on balance alone."""
    teacher = D.absolute_sum_teacher()
    X = D.circle_inputs(8, 0.3)
    y = np.asarray(D.backend.to_float(teacher.outputs(X)))
    layers = [np.asarray(D.backend.to_float(W)) for W in D.construction("interpolation", teacher, 6)]
    rescaled = [2.0 * layers[0], 0.5 * layers[1], *layers[2:]]
    cert = D.certificate("interpolation", rescaled, X, y, 4.0, 2)
    assert cert.feasible and cert.within_norm_bound and not cert.balanced
    assert not cert.hypotheses


def test_rescaling_moves_the_first_and_the_last_layer() -> None:
    """Lemma 14's curve scales W_1 by γ and W_k' by 1/γ. With γ = −3/2 on the chain 1 → 1 → 1 → 1 and x = −1 the
    output moves from 0 to −1; scaling W_2 instead of W_3 would leave it at 0."""
    from theorems.rank_minimization.deep_evidence import rescaling_keeps_outputs

    one = np.array([[sympy.Integer(1)]], dtype=object)
    layers, x = [one, one, one], np.array([[sympy.Integer(-1)]], dtype=object)
    moved = rescaling_keeps_outputs(layers, x, sympy.Rational(-3, 2))
    assert moved.holds is False and moved.decision.figures["changed"] == 1
    assert rescaling_keeps_outputs(layers, x, sympy.Rational(3, 2)).holds is True


def test_fig1_criteria_at_their_edges() -> None:
    """Fig. 1's criteria on hand-made runs: no converged run is undecided (whatever the array's shape), a least
    σ₂/σ₁ equal to the threshold passes, a final loss equal to the stuck level is stuck (not slow), and the slow
    runs allowed are a fraction of the non-converged runs."""
    empty = F.far_from_rank_one(np.zeros((0, 2)), 0.1)
    assert empty.holds is None and empty.decision.detail == "no converged run"
    assert F.far_from_rank_one(np.array([[0.5, 0.25]]), 0.25).holds is True
    assert F.far_from_rank_one(np.array([[0.5, 0.25]]), 0.2500001).holds is False
    assert F.far_from_rank_one(np.array([0.3]), 0.25).holds is True  # one ratio is a run, not "no converged run"
    losses = np.array([0.125, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    stuck = F.stuck_at_target(losses, 0.125, 0.25)
    assert stuck.holds is True and stuck.decision.figures["slow_runs"] == 0
    assert stuck.decision.figures["slow_runs_allowed"] == 2  # ⌊0.25 · 8⌋
    assert F.stuck_at_target(np.array([0.1, 0.1, 0.1, 0.5]), 0.125, 0.25).holds is False  # 3 slow of 4, 1 allowed
