"""Claim ingredients that a mutation of `theorems/` showed unpinned (docs/mutation.md): values and inputs that the
claims use only through a sign or through a control's rejection, each checked here against its closed form."""

from __future__ import annotations

from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import sympy

from numerics.networks import fully_connected
from numerics.tensor_network import convolutional_tensor
from theorems.layer_alignment import figures as align_figures
from theorems.layer_alignment.common import ds2, max_margin_direction
from theorems.layer_alignment.descent_runs import Lemma8Terms
from theorems.margin_maximization import common as margin_common
from theorems.margin_maximization import definitions as MD
from theorems.margin_maximization import positive_oracles as P
from theorems.rank_minimization import two_point_theorems as T2
from theorems.tensor_networks import classification as TC
from theorems.tensor_networks import encodings as TE
from verify.claim import Context, Criterion, Decision, Profile, Role


# -- tensor: the printed loss bound L(0)/(1 + ct) of App. D.1.1 / E.1.1 on the d = 1 instance ---------------------
def test_the_d1_instance_has_c_3_and_loss_e_minus_2() -> None:
    assert TC._C == 3 and TC._L0 == sympy.exp(-2)
    assert TC.PRINTED_BOUND.subs(TC._T, 0) == sympy.exp(-2) == TC.CORRECTED_BOUND.subs(TC._T, 0)


def test_initial_gap_of_each_bound_in_closed_form() -> None:
    # g'(0) = −‖∇L(θ0)‖² − B'(0), ‖∇L‖² = (w2² + w1²) e^(−2 w1 w2) = 5e^(−4);
    # B'(0) = −c L0 (printed), −c L0² (corrected)
    printed = TC.exceeds_near_zero(TC.PRINTED_BOUND).decision
    assert printed.holds is True
    assert printed.figures["initial_slope"] == pytest.approx(float(3 * sympy.exp(-2) - 5 * sympy.exp(-4)), rel=1e-14)
    corrected = TC.exceeds_near_zero(TC.CORRECTED_BOUND).decision
    assert corrected.holds is False
    assert corrected.figures["initial_slope"] == pytest.approx(float(-2 * sympy.exp(-4)), rel=1e-14)


def test_a_bound_that_does_not_start_at_the_loss_is_refused_before_its_slope() -> None:
    shifted = TC.exceeds_near_zero(TC._L0 / (2 + TC._C * TC._T)).decision  # its slope alone is positive
    assert shifted.holds is False and "does not start at L(0)" in shifted.detail
    assert shifted.figures["initial_gap"] == pytest.approx(float(sympy.exp(-2) / 2), rel=1e-14)
    above = TC.exceeds_near_zero(2 * TC._L0 / (1 + TC._C * TC._T)).decision
    assert above.holds is False and "does not start at L(0)" in above.detail


# -- alignment: ‖A_(k,k+1)‖_2 of display (31) ---------------------------------------------------------------------
def test_gram_gap_is_the_norm_of_the_difference_of_the_grams() -> None:
    rng = np.random.default_rng(4)
    W1, W2 = rng.normal(size=(3, 2)), rng.normal(size=(1, 3))
    terms = Lemma8Terms(SimpleNamespace(layers=[W1[None], W2[None]]))
    expected = np.linalg.norm(W1 @ W1.T - W2.T @ W2, 2)
    assert terms.gram_gap_norm(1) == pytest.approx(expected, rel=1e-12)
    u = np.array([[0.6], [0.8], [0.0]])  # balanced: W1 W1ᵀ = W2ᵀ W2 = u uᵀ
    balanced = Lemma8Terms(SimpleNamespace(layers=[(u @ np.array([[1.0, 0.0]]))[None], u.T[None]]))
    assert balanced.gram_gap_norm(1) == pytest.approx(0.0, abs=1e-15)


# -- alignment: the control separator of Figure 1 ------------------------------------------------------------------
def test_far_edge_is_a_separator_one_percent_inside_the_arc() -> None:
    data = ds2()
    low, high = align_figures.separating_arc(data)
    w = align_figures._far_edge(data)
    assert np.all(data.Z @ w > 0)
    u_bar = max_margin_direction(data).direction
    angle = float(np.angle(np.exp(1j * (np.arctan2(w[1], w[0]) - np.arctan2(u_bar[1], u_bar[0])))))
    far = low + 0.01 * (high - low) if -low > high else high - 0.01 * (high - low)
    assert angle == pytest.approx(far, abs=1e-12) and low < angle < high


# -- rank: Thm 3's probability 2(1 − q1)(1 − q2)(φ/2π)² -------------------------------------------------------------
def test_exact_thm3_probability_in_closed_form() -> None:
    phi = sympy.pi
    assert T2.exact_thm3_probability(phi, 0, 0) == sympy.Rational(1, 2)
    assert T2.exact_thm3_probability(2 * sympy.pi / 3, 0, 0) == sympy.Rational(2, 9)
    assert T2.exact_thm3_probability(phi, 1, 0) == 0
    for value, q1, q2 in ((2.0, 0.25, 0.5), (3.0, 0.0, 0.1)):
        exact = T2.exact_thm3_probability(sympy.Float(value, 30), sympy.Float(q1, 30), sympy.Float(q2, 30))
        assert float(exact) == pytest.approx(T2.corrected_bound(value, q1, q2), rel=1e-14)


# -- margin: the kink distance of positive_deep and the interval comparison ----------------------------------------
def test_smallest_relative_preactivation_scales_each_layer_by_its_depth() -> None:
    net = fully_connected([2, 2, 1, 1], "relu")
    W1, W2, W3 = np.array([[1.0, 2.0], [-3.0, 1.0]]), np.array([[2.0, 1.0]]), np.array([[0.5]])
    theta = np.concatenate([W1.ravel(), W2.ravel(), W3.ravel()])
    X = np.array([[1.0, 1.0], [2.0, -0.5]])
    scale, norms = np.linalg.norm(theta), np.linalg.norm(X, axis=1)
    z1 = X @ W1.T
    z2 = np.maximum(z1, 0) @ W2.T
    # the hidden layers' pre-activations (the output is no kink)
    expected = min(np.min(np.abs(z) / norms[:, None]) / scale ** (depth + 1) for depth, z in enumerate((z1, z2)))
    assert P.smallest_relative_preactivation(net, theta, X) == pytest.approx(expected, rel=1e-12)
    assert expected < np.min(np.abs(z1) / norms[:, None]) / scale  # a deeper layer decides the minimum here


def test_strictly_below_refuses_touching_intervals() -> None:
    iv = mpmath.iv.mpf
    assert margin_common.strictly_below(iv([1, 2]), iv([2.5, 3]))
    assert not margin_common.strictly_below(iv([1, 2]), iv([2, 3]))
    assert not margin_common.strictly_below(iv([1, 2]), iv([1.5, 3]))


# -- tensor: the control input of the even-vector claim ------------------------------------------------------------
@pytest.mark.parametrize("d", [4, 5])
def test_half_sample_symmetric_vector_is_that_symmetry_and_generic(d: int) -> None:
    x = TE.half_sample_symmetric_vector(d)
    assert all(x[j] == x[d - 1 - j] for j in range(d))  # x_(j+1) = x_(d−j)
    assert len(set(x)) == (d + 1) // 2  # no other coincidence
    assert any(x[k] != x[(d - k) % d] for k in range(d))  # and not even (x_k = x_(d−k), indices mod d)


# -- margin: a checker property recorded as evidence ---------------------------------------------------------------
@pytest.mark.parametrize("evidence, role", [("exact", Role.COUNTEREXAMPLE), ("numeric", Role.SUPPORT)])
def test_only_a_rigorous_disagreement_of_the_checker_is_a_counterexample(monkeypatch: pytest.MonkeyPatch,
                                                                         evidence: str, role: Role) -> None:
    fake = Criterion("verify check decides the property as the statement asserts",
                     lambda src, prop, asserts: Decision(not asserts, "fake", {"checker_evidence": evidence}))
    monkeypatch.setattr(margin_common, "PROPERTY", fake)
    ctx = Context("margin.x", Profile.QUICK, 1)
    assert not margin_common.record(ctx, "kkt of a construction", "src", "kkt", True, ctx.conclusions[0])
    (item,) = ctx.evidence
    assert item.role is role and item.passed is (role is Role.COUNTEREXAMPLE)


def test_single_point_bound_runs_use_c_equal_to_alpha_squared_lambda_norm_s_squared() -> None:
    # App. E.1.1: c = α²λ‖s‖², λ = min(η1² − η2²) over the SVD basis of M(x), s the singular values of M(x)
    model = convolutional_tensor(3, [2])
    s = np.linalg.svd(model.data_tensor(np.array([1.0, -0.4, 0.7])), compute_uv=False)
    lam = float(np.min(np.full(2, 1.5) ** 2 - np.array([1.0, 0.5]) ** 2))
    runs = TC._single_point_bound_runs(Context("tensor.aux.D2", Profile.QUICK, 1))
    assert [run.c for run in runs] == pytest.approx([a**2 * lam * float(np.sum(s**2)) for a in (0.5, 1.0, 1.5)],
                                                    rel=1e-14)
    assert float(np.sum(s**2)) != pytest.approx(float(np.sum(s)))  # the instance tells ‖s‖² from Σs


def test_neuron_blocks_refuse_units_with_several_outgoing_weights() -> None:
    assert P.neuron_blocks(fully_connected([2, 3, 1], "relu")).outgoing == (6, 7, 8)
    with pytest.raises(ValueError, match="exactly one outgoing weight"):
        P.neuron_blocks(fully_connected([2, 2, 2, 1], "relu"))


# -- margin: the group-lasso gaps of Thm 4.2 (1) close and decrease, up to the convex references' accuracy -------
def test_gaps_close_needs_the_gaps_to_decrease_beyond_the_solver_floor() -> None:
    from theorems.margin_maximization import positive as MP

    assert MP.GAPS_CLOSE((1e-2, 5e-3, 4e-4), 1e-3).decision.holds is True
    # the last gap is within the tolerance, but the gaps grew by 3e-4 on the way: not closing
    rising = MP.GAPS_CLOSE((1e-2, 5e-4, 8e-4), 1e-3).decision
    assert rising.holds is False and "decreasing: False" in rising.detail
    # a rise below the references' accuracy (SOLVER_FLOOR = 1e-9) is not a rise
    assert MP.GAPS_CLOSE((1e-2, 5e-4, 5e-4 + 5e-10), 1e-3).decision.holds is True
    assert MP.GAPS_CLOSE((1e-2, 5e-4, 5e-4 + 5e-9), 1e-3).decision.holds is False
    assert MP.GAPS_CLOSE((1e-2, 5e-3, 2e-3), 1e-3).decision.holds is False  # decreasing, but not closed


# -- align: D ≥ 0 (Sec. 2.1) is attained with equality at a balanced initialization -------------------------------
def test_the_initialization_constant_may_be_zero() -> None:
    from theorems.layer_alignment.common import initialization_constant
    from theorems.layer_alignment.criteria import Named
    from theorems.layer_alignment.flow_assumptions import constant_bounds

    balanced = [np.array([[1.0, 0.0]]), np.array([[1.0]])]  # W_1W_1ᵀ = W_2ᵀW_2 and equal norms: D = 0
    decision = constant_bounds(Named("balanced", [balanced]), initialization_constant).decision
    assert decision.holds is True and decision.figures["min_D"] == 0.0
    shifted = constant_bounds(Named("balanced", [balanced]), lambda layers: initialization_constant(layers) - 1e-9)
    assert shifted.decision.holds is False


# -- tensor: the larger encodings that only the full profile checks -------------------------------------------------
def test_the_full_profile_encodings_encode_their_own_layered_networks() -> None:
    """architectures(quick=False) adds a d = 4, L = 4 diagonal, a full-length convolution and a four-layer fully
    connected instance; each tensor encoding computes its layered network (φ(0) = 0), with the same layout."""
    full = TE.architectures(False)
    assert len(full) == 6 and [name for name, _, _ in full[:3]] == [name for name, _, _ in TE.architectures(True)]
    for name, model, network in full:
        assert model.n_params == network.n_params, name
    decision = TE.agrees_in_float("full", ("linear", "ReLU", "tanh"), 0, 2)
    assert decision.holds is True, decision.detail


# -- margin: the degree identities of App. C on small polynomials ---------------------------------------------------
def test_degree_identity_finds_a_defective_monomial_of_coefficient_one_and_accepts_the_zero_polynomial() -> None:
    t = sympy.symbols("t0:3", real=True)
    theta = np.array(t, dtype=object)
    homogeneous = MD.degree_identity(2 * t[0] * t[1] + 3 * t[0] * t[2], theta, plus=[0], constant=1)
    assert homogeneous.holds and homogeneous.monomials == 2 and homogeneous.offending == ""
    broken = MD.degree_identity(2 * t[0] * t[1] + t[1], theta, plus=[0], constant=1)  # t1 has degree 0 in t0
    assert not broken.holds and broken.offending == "t1"
    assert MD.degree_identity(sympy.Integer(0), theta, plus=[0], constant=1).holds  # no monomial: nothing to violate


# -- margin: the criteria and searches of Sec. 2 and App. C ---------------------------------------------------------
def test_approaches_needs_decreasing_angles_and_a_small_last_one() -> None:
    assert MD.APPROACHES((0.6, 0.5, 0.001), 0.01).decision.holds
    assert not MD.APPROACHES((0.5, 0.6, 0.001), 0.01).decision.holds  # ends small, but rose on the way
    assert not MD.APPROACHES((0.6, 0.5, 0.02), 0.01).decision.holds  # decreasing, but not below the tolerance


def test_minimal_factorization_keeps_only_feasible_solver_answers(monkeypatch) -> None:
    """SLSQP may report success at a point that does not compute β: such an answer is not a factorization."""
    import scipy.optimize

    from numerics.networks import diagonal

    net, beta = diagonal(2, 2, "linear"), np.array([1.0, 2.0])
    assert MD.minimal_factorization(net, beta, np.random.default_rng(0)) == pytest.approx(2 * (1 + 2), rel=1e-6)
    infeasible = SimpleNamespace(success=True, x=np.zeros(net.n_params))  # Φ = 0 ≠ β, and ‖θ‖² = 0
    monkeypatch.setattr(scipy.optimize, "minimize", lambda *args, **kwargs: infeasible)
    assert MD.minimal_factorization(net, beta, np.random.default_rng(0)) == np.inf


def test_diagonal_optimum_closed_forms() -> None:
    """min ‖θ‖² = m·(max_k x_k)^(−2/m) for one sample and a depth-m diagonal network."""
    diagonal_optimum = margin_common.diagonal_optimum

    assert diagonal_optimum(2, np.array([1, 3, 2])) == sympy.Rational(2, 3)
    assert diagonal_optimum(3, np.array([8, 1])) == sympy.Rational(3, 4)
    assert diagonal_optimum(2, np.array([sympy.Rational(1, 4)])) == 8


def test_the_row_major_misencoding_relabels_the_first_layer() -> None:
    """The control's wrong FC encoding reads W_1's twelve parameters in another order: the same columns of the
    basis, permuted, not some other tensor."""
    from numerics.tensor_network import fully_connected_tensor

    name, wrong, _ = TE._misencodings()[0]
    right = fully_connected_tensor([3, 4, 2])
    assert name == "row-major vec(W_1)" and wrong.basis.shape == right.basis.shape
    columns = [right.basis[:, j].tobytes() for j in range(12)]
    permuted = [wrong.basis[:, j].tobytes() for j in range(12)]
    assert sorted(permuted) == sorted(columns) and permuted != columns


def test_gap_criteria_need_decreasing_gaps_and_a_small_last_one() -> None:
    """GAPS_CLOSE and LAYERS_OPTIMAL: a gap that rises on the way (beyond the solver floor) fails even when its last
    value is below the tolerance, and so does a last value above it."""
    from theorems.margin_maximization.positive import GAPS_CLOSE
    from theorems.margin_maximization.positive_deep import LAYERS_OPTIMAL

    assert GAPS_CLOSE((1e-2, 1e-3, 1e-6), 1e-4).decision.holds
    assert not GAPS_CLOSE((1e-2, 5e-2, 1e-6), 1e-4).decision.holds
    assert not GAPS_CLOSE((1e-2, 1e-3, 2e-4), 1e-4).decision.holds
    assert LAYERS_OPTIMAL(((1e-2, 1e-3, 1e-6), (1e-3, 1e-5, 1e-7)), 1e-4).decision.holds
    assert not LAYERS_OPTIMAL(((1e-2, 1e-3, 1e-6), (1e-3, 5e-3, 1e-7)), 1e-4).decision.holds
    assert not LAYERS_OPTIMAL(((1e-2, 1e-3, 1e-6), (1e-3, 1e-4, 2e-4)), 1e-4).decision.holds
