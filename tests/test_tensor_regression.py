"""Oracles of paper 002's regression results: Lemma 5.1's functions, H_L, the Q minimizer, Theorem 5's formula and
the network constructions, against closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from numerics.tensor_network import fully_connected_tensor
from theorems.tensor_networks import regression_oracles as R
from theorems.tensor_networks.common import dft_matrix
from theorems.tensor_networks.regression import decomposable_instance
from theorems.tensor_networks.regression_corollaries import (
    approaches_references,
    even_conv_instance,
    even_part,
    flip_matrix,
)

DEPTHS = (2, 3, 4)


# -- Lemma 5.1's functions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", DEPTHS)
def test_time_map_inverts_closed_form(depth):
    s = np.linspace(-0.999, 0.999, 41) * min(R.blowup_time(depth), 6.0)
    np.testing.assert_allclose(R.time_of_q(depth, R.ode_q(depth, s)), s, rtol=1e-13, atol=1e-15)


def test_time_map_closed_integrals():
    q = np.array([-1e9, -30.0, -1.0, -1e-6, 0.0, 1e-8, 0.3, 2.0, 1e4, 1e12])
    closed = {2: np.arcsinh(q), 3: np.arctan(q), 4: q / np.sqrt(1 + q**2), 5: (q / (1 + q**2) + np.arctan(q)) / 2}
    for depth, expected in closed.items():
        np.testing.assert_allclose(R.time_of_q(depth, q), expected, rtol=2e-14, atol=1e-300)


def test_blowup_times():
    assert R.blowup_time(2) == np.inf
    expected = {3: np.pi / 2, 4: 1.0, 5: np.pi / 4, 6: 2 / 3, 7: 3 * np.pi / 16}
    for depth, value in expected.items():
        assert R.blowup_time(depth) == pytest.approx(value, rel=1e-15)
        assert R.time_of_q(depth, 1e15) == pytest.approx(value, rel=1e-14)


@pytest.mark.parametrize("depth", DEPTHS)
def test_h_and_its_slope(depth):
    s = np.linspace(-0.9, 0.9, 19) * min(R.blowup_time(depth), 3.0)
    p, q = R.ode_p(depth, s), R.ode_q(depth, s)
    np.testing.assert_allclose(p**2 - q**2, 1.0, rtol=1e-12)
    np.testing.assert_allclose(R.h(depth, s), p ** (depth - 1) * q, rtol=1e-13)
    np.testing.assert_allclose(R.h(depth, -s), -R.h(depth, s), rtol=1e-15)
    step = 1e-6
    central = (R.h(depth, s + step) - R.h(depth, s - step)) / (2 * step)
    np.testing.assert_allclose(R.h_slope_of_q(depth, q), central, rtol=1e-7)
    assert np.all(np.diff(R.h(depth, s)) > 0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(depth=st.integers(2, 7), exponent=st.floats(-12, 12), sign=st.sampled_from([-1.0, 1.0]))
def test_q_of_h_inverts(depth, exponent, sign):
    t = sign * 10.0**exponent
    q = R.q_of_h(depth, t)
    assert R.h_of_q(depth, q) == pytest.approx(t, rel=1e-14)


def test_H_closed_forms_and_quadrature():
    t = np.array([1e-4, 0.1, 0.7, 3.0, 40.0])
    h2 = t / 2 * np.arcsinh(2 * t) - t**2 / (np.sqrt(1 + 4 * t**2) + 1)  # L = 2 in closed form (no cancellation)
    np.testing.assert_allclose(R.H(2, t), h2, rtol=1e-13)
    cardano = np.cbrt(t / 2 + np.sqrt(t**2 / 4 + 1 / 27)) + np.cbrt(t / 2 - np.sqrt(t**2 / 4 + 1 / 27))
    np.testing.assert_allclose(R.H(3, t), t * np.arctan(cardano) - cardano**2 / 2, rtol=1e-12)  # q³ + q = t
    for depth in (4, 5):
        for value in t[1:4]:
            integral = quad(lambda tau, L=depth: float(R.h_inverse(L, tau)), 0, value, epsabs=0, epsrel=1e-13)[0]
            assert R.H(depth, value) == pytest.approx(integral, rel=1e-10)
    np.testing.assert_allclose(R.H(4, -t), R.H(4, t), rtol=1e-15)


# -- the Q minimizer ---------------------------------------------------------------------------------------------
def test_minimizer_single_constraint_and_coordinate():
    objective = R.WeightedH.of_initialization(3, 0.5, np.array([1.3]))
    result = objective.minimize(np.array([[2.0]]), np.array([-0.7]))
    assert result.newton.converged and result.rho == pytest.approx([-0.35], rel=1e-14)


@pytest.mark.parametrize("depth", DEPTHS)
def test_minimizer_large_alpha_is_weighted_l2(depth):
    rng = np.random.default_rng(7)
    A, y, eta = rng.normal(size=(2, 4)), rng.normal(size=2), rng.uniform(0.5, 1.5, 4)
    result = R.WeightedH.of_initialization(depth, 1e3, eta).minimize(A, y)
    D = np.diag(eta ** (2 * depth - 2))
    closed = D @ A.T @ np.linalg.solve(A @ D @ A.T, y)  # argmin Σ ρ_j²/η̄_j^(2L−2) s.t. Aρ = y
    np.testing.assert_allclose(result.rho, closed, rtol=1e-6, atol=1e-9)
    assert result.newton.iterations <= 6


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("alpha", [0.05, 0.5, 2.0])
def test_minimizer_is_a_kkt_point(depth, alpha):
    """A plain root-finder leaves the dual domain at α = 0.5; the damped iteration converges."""
    rng = np.random.default_rng(3)
    A, y = rng.normal(size=(2, 4)), rng.normal(size=2)
    objective = R.WeightedH.of_initialization(depth, alpha, np.array([1.0, 0.6, 1.5, 0.8]))
    result = objective.minimize(A, y)
    assert result.newton.converged and result.newton.iterations <= 25
    # feasibility rounds at the scale of the multipliers (1.6e-15·|ν|: 2.9e-13 at |ν| = 184 for depth 4, α = 0.05)
    assert result.feasibility <= 1e-14 * max(1.0, float(np.max(np.abs(result.nu))))
    assert objective.stationarity(A, result.rho) <= 1e-11
    null = np.linalg.svd(A)[2][2:]
    for direction in rng.normal(size=(10, 2)) @ null:  # feasible perturbations increase Q
        assert objective.value(result.rho + 1e-3 * direction) > objective.value(result.rho)


# -- Theorem 5 ------------------------------------------------------------------------------------------------------
def test_two_layer_limit_scalar_closed_form():
    """d = 1, e_2 = 0: α² s e_1²/2 · sinh(2sν) = y gives ν in closed form."""
    x, y, alpha, v1 = 1.5, -0.8, 0.7, 1.2
    result = R.two_layer_limit(np.array([[x]]), y, alpha, np.array([v1]), np.array([0.0]))
    nu = np.arcsinh(2 * y / (alpha**2 * x * v1**2)) / (2 * x)
    assert result.nu == pytest.approx(nu, rel=1e-13)
    assert result.v1 == pytest.approx([alpha * v1 * np.cosh(nu * x)], rel=1e-13)
    assert result.v2 == pytest.approx([alpha * v1 * np.sinh(nu * x)], rel=1e-13)
    assert x * result.v1[0] * result.v2[0] == pytest.approx(y, rel=1e-13)


@pytest.mark.parametrize("endpoint", [-1.0, 1.0])
def test_g_inverse_returns_a_root_on_the_first_bracket_end(endpoint: float):
    """g(ν) = value exactly at ν = ±1, the first bracket's ends: the root is that end (no bracket widening)."""
    s, e1, e2 = np.array([0.5, 2.0]), np.array([1.0, -0.25]), np.array([0.5, 0.75])
    value = R.g_function(s, e1, e2, endpoint)
    assert R.g_inverse(s, e1, e2, value) == endpoint
    assert R.g_function(s, e1, e2, R.g_inverse(s, e1, e2, 0.3 * value)) == pytest.approx(0.3 * value, rel=1e-12)


def test_approaches_references_is_closed_at_its_tolerance():
    """tensor.cor7's interpolation trend: distances ending exactly at the tolerance pass; a step above fails (both
    limits); a rise by more than the 1e-3 × tolerance floor breaks monotonicity."""
    tolerance, zero = 2.0**-10, np.zeros((1, 1))
    ending_at = [[[4 * tolerance]], [[2 * tolerance]], [[tolerance]]]
    above = [[[4 * tolerance]], [[2 * tolerance]], [[tolerance * (1 + 2.0**-20)]]]
    rising = [[[tolerance / 2]], [[tolerance / 2 + 2e-3 * tolerance]]]
    assert approaches_references(R.Bundle(ending_at), R.Bundle(ending_at), zero, zero, tolerance).holds
    assert not approaches_references(R.Bundle(above), R.Bundle(ending_at), zero, zero, tolerance).holds
    assert not approaches_references(R.Bundle(ending_at), R.Bundle(above), zero, zero, tolerance).holds
    assert not approaches_references(R.Bundle(rising), R.Bundle(ending_at), zero, zero, tolerance).holds
    assert not approaches_references(R.Bundle(ending_at), R.Bundle(rising), zero, zero, tolerance).holds


# -- constructions --------------------------------------------------------------------------------------------------
def test_decomposable_instance():
    """Theorem 4's instance: β(θ) = Sᵀ(η_1 ⊙ ⋯ ⊙ η_L), and the initialization gives η_l(0) = α η̄, η_L(0) = 0."""
    inst = decomposable_instance(np.random.default_rng(0), 3)
    theta = np.random.default_rng(1).normal(size=inst.net.n_params)
    np.testing.assert_allclose(inst.net.beta(theta), inst.S.T @ np.prod(inst.transformed(theta), axis=0),
                               rtol=1e-13, atol=1e-14)
    eta = inst.transformed(inst.theta0(0.4))
    np.testing.assert_allclose(eta[:-1], [0.4 * inst.eta_bar] * 2, atol=1e-15)
    np.testing.assert_allclose(eta[-1], 0.0, atol=1e-15)
    assert np.min(inst.eta_bar**2) >= 0.36 and inst.S.shape == (4, 3)


def test_matrix_sensing_network_product():
    rng = np.random.default_rng(1)
    net = R.matrix_sensing_network(3, 3)
    W = [rng.normal(size=(3, 3)) for _ in range(3)]
    np.testing.assert_allclose(net.beta(np.concatenate([M.ravel() for M in W])).reshape(3, 3),
                               W[0] @ W[1] @ W[2], rtol=1e-13)


def test_fully_connected_helpers():
    rng = np.random.default_rng(2)
    matrices, last = R.fc_directions(rng, 3, 4, lam=0.5, slack=0.1, last_scale=0.3)
    gaps = R.gram_gaps(matrices, last)
    assert [np.linalg.eigvalsh(G)[0] for G in gaps] == pytest.approx([0.1, 0.1, 0.5], rel=1e-10)
    theta = R.fc_theta(matrices, last)
    again, last_again = R.fc_layers(3, 4, theta)
    assert all(np.array_equal(a, b) for a, b in zip(again, matrices)) and np.array_equal(last, last_again)
    np.testing.assert_allclose(fully_connected_tensor([3] * 4).beta(theta), matrices[0] @ matrices[1] @ matrices[2]
                               @ last, rtol=1e-13)


def test_even_convolution_instance():
    inst = even_conv_instance(np.random.default_rng(4), 5)
    np.testing.assert_allclose(inst.X, even_part(inst.X))
    np.testing.assert_allclose(inst.w_bar, even_part(inst.w_bar), atol=1e-15)
    np.testing.assert_allclose(dft_matrix(5) @ inst.w_bar, inst.eta_bar, atol=1e-14)  # F w̄ = η̄, real
    assert np.min(np.abs(inst.eta_bar)) >= 0.6
    P = flip_matrix(5)
    np.testing.assert_allclose(P @ P, np.eye(5))


def test_limits_match_allows_ten_times_a_runs_integration_error_up_to_the_cap():
    reference = R.Bundle([np.array([1.0, 0.5]), np.array([0.2, -0.3])])
    limits = R.Bundle([np.array([1.0, 0.5 + 3e-7]), np.array([0.2, -0.3])])
    assert not R.limits_match(limits, reference, 1e-8).holds
    assert R.limits_match(limits, reference, 1e-8, R.Bundle([5e-8, 0.0])).holds  # 3e-7 ≤ 10 × 5e-8
    assert not R.limits_match(limits, reference, 1e-8, R.Bundle([1e-8, 0.0])).holds  # 3e-7 > 10 × 1e-8
    far = R.Bundle([np.array([1.0, 0.5 + 3e-6]), np.array([0.2, -0.3])])
    assert not R.limits_match(far, reference, 1e-8, R.Bundle([1.0, 0.0])).holds  # capped at 1e-6


def test_step_b_needs_every_condition_of_theorem_6_1() -> None:
    """Step (b)'s counterexample is only decided on directions meeting Theorem 6.1: breaking D̄_1 ⪰ 0 (W̄_1 = 0),
    D̄_2 ⪰ 0 (W̄_3 doubled) or λ_min(D̄_3) > 0 (a large w̄_4), one at a time, leaves it undecided."""
    import sympy

    from theorems.tensor_networks.regression_fully_connected import rational_admissible_directions, step_b_fails

    (W1, W2, W3), w4 = rational_admissible_directions()
    assert step_b_fails(W1, W2, W3, w4).holds is True
    assert step_b_fails(sympy.zeros(2, 2), W2, W3, w4).holds is None
    assert step_b_fails(W1, W2, 2 * W3, w4).holds is None
    assert step_b_fails(W1, W2, W3, sympy.Matrix([3, 0])).holds is None


def test_the_residual_order_needs_theorem_6_1() -> None:
    """The H.2 counterexample is only decided when W̄_1ᵀW̄_1 − W̄_2W̄_2ᵀ ⪰ 0 and W̄_2ᵀW̄_2 ≻ 0, each checked."""
    import sympy

    from theorems.tensor_networks.regression_fully_connected import residual_order_exceeded

    W1, W2 = sympy.diag(sympy.Rational(3, 2), 1), sympy.diag(1, sympy.Rational(1, 2))
    assert residual_order_exceeded(W1, W2, 2).holds is True
    assert residual_order_exceeded(sympy.diag(sympy.Rational(3, 2), sympy.Rational(1, 4)), W2, 2).holds is None
    assert residual_order_exceeded(W1, sympy.diag(1, 0), 2).holds is None  # W̄_2ᵀW̄_2 singular


def test_losses_vanish_refuses_a_loss_that_rises_on_the_way() -> None:
    """A series ending far below the ratio is still refused when it rises in between (not a gradient flow)."""
    from theorems.tensor_networks.regression_fully_connected import losses_vanish

    falling = np.array([1.0, 0.5, 1e-10, 1e-25])
    rising = np.array([1.0, 2.0, 1e-10, 1e-25])
    assert losses_vanish(R.Bundle([falling]), 1e-20).holds
    assert not losses_vanish(R.Bundle([falling, rising]), 1e-20).holds


def test_alignment_bound_at_ratio_one_and_with_a_zero_last_layer() -> None:
    """W_1 = diag(2, 1) (top right vector e_1), W_2 = diag(1, 2) (top left vector e_2, s = 2): 1 − (v_1ᵀu_2)² = 1
    against α²G_1/s² = G_1/4, a ratio of exactly 1 for G_1 = 4 (holds, the bound is tight) and 2 for G_1 = 2 (fails);
    a last layer w_L = 0 has no direction and is left out of (94)."""
    from theorems.tensor_networks.regression_fully_connected import alignment_holds, product

    layers = [np.diag([2.0, 1.0]), np.diag([1.0, 2.0])]

    def runs(g1: float, last: np.ndarray) -> list[dict]:
        return [{"G": [g1, 1.0], "alpha": 1.0, "layers": [layers], "last": [last]}]

    tight = alignment_holds(runs(4.0, np.zeros(2)), 2)
    assert tight and [record.bound[:4] for record in tight.decision.tightness] == ["(93)"]  # no (94) record
    assert tight.decision.tightness[0].tightest == 1.0
    assert not alignment_holds(runs(2.0, np.zeros(2)), 2)
    np.testing.assert_array_equal(product(layers[:1]), layers[0])  # one layer: the product is that layer
    np.testing.assert_array_equal(product(layers), np.diag([2.0, 2.0]))


def test_compact_svd_drops_singular_values_below_its_relative_cutoff() -> None:
    """1000·u vᵀ + 1e-10·u' v'ᵀ: singular values 1000 and 1e-10 (and a rounding-level third); the cutoff 1e-12·s_1 =
    1e-9 keeps the first only, a cutoff of 1e-13 relative keeps the second as well."""
    from theorems.tensor_networks.regression_oracles import compact_svd

    e = np.eye(3)
    matrix = 1000.0 * np.outer(e[0], e[1]) + 1e-10 * np.outer(e[1], e[2])
    U, s, V = compact_svd(matrix)
    assert s.tolist() == [1000.0] and U.shape == (3, 1) and V.shape == (3, 1)
    assert compact_svd(matrix, 1e-14)[1].tolist() == [1000.0, 1e-10]
