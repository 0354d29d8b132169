"""numerics.global_optimum against closed forms: small depth-2 ReLU max-margin problems whose global optimum (and
the per-layer optimum with fixed output weights) is known exactly, the dual bound, the cost of the enumeration
(number of convex programs, so that a combinatorial regression fails like a wrong value), and properties of the
exact bracket lower ≤ upper on random data."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy import Rational as Q
from sympy import sqrt

from numerics import exact as E
from numerics import global_optimum as G
from numerics.exact import to_exact
from numerics.networks import diagonal, fully_connected

FC = {k: fully_connected([2, k, 1], "relu") for k in (1, 2, 4)}


def family(delta: sympy.Rational) -> np.ndarray:
    return to_exact([[1, delta], [-1, delta]])


def is_feasible(model, theta, X, y) -> bool:
    return bool(np.all(E.signs(E.canonical(to_exact(y) * model.forward(theta, X)[:, 0] - 1)) >= 0))


# -- closed forms ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("delta, programs", [(Q(1, 4), 3), (Q(1, 20), 3), (Q(1, 2), 3)])
def test_two_opposite_points_one_neuron_each(delta, programs):
    """x = (±1, δ), labels +1, width 2: one neuron per sample, min ‖θ‖² = 2(‖x1‖⁻¹ + ‖x2‖⁻¹) = 4/√(1 + δ²)
    (Theorem 3.2's data at δ = 1/4: 16/√17)."""
    X = family(delta)
    found = G.global_optimum(FC[2], X, [1, 1])
    closed = 4 / sqrt(1 + delta**2)
    assert found.exact and E.sign(found.optimum - closed) == 0
    assert E.sign(found.lower - closed) == 0 and E.sign(found.upper - closed) == 0
    assert abs(found.value - float(closed)) <= 1e-7 * float(closed)
    assert is_feasible(FC[2], found.point, X, [1, 1])
    assert found.programs <= programs


def test_one_sample_is_served_by_one_neuron():
    """One sample x: Φ ≤ Σ|v_j|‖w_j‖‖x‖ ≤ ½‖θ‖²‖x‖, attained along x: min ‖θ‖² = 2/‖x‖ for every width."""
    X = to_exact([[3, 4]])
    for k in (1, 2, 4):
        found = G.global_optimum(FC[k], X, [1])
        assert found.exact and found.optimum == Q(2, 5), k


def test_orthogonal_cross_needs_two_neurons():
    """±e1, ±e2 with labels +1 (Theorem 4.2 (2)): 4 ≤ Σ_iΣ_j σ(u_jᵀx_i) ≤ √2 Σ_j‖u_j‖, so min ‖θ‖² = 4√2, attained
    by two neurons u along (1, 1) and (−1, −1); four neurons do no better."""
    X = to_exact([[0, 1], [1, 0], [0, -1], [-1, 0]])
    for k in (2, 4):
        found = G.global_optimum(FC[k], X, [1, 1, 1, 1])
        assert found.exact and E.sign(found.optimum - 4 * sqrt(2)) == 0, k
        assert found.programs <= 10, found.programs


def test_diagonal_network_puts_all_weight_on_the_largest_input():
    """Depth-2 diagonal ReLU net, one positive sample: the ℓ1 problem, min ‖θ‖² = 2/max_k x_k (Theorem 4.1: 1)."""
    found = G.global_optimum(diagonal(2, 2, "relu"), to_exact([[1, 2]]), [1])
    assert found.exact and found.optimum == 1
    found = G.global_optimum(diagonal(3, 2, "relu"), to_exact([[1, 3, 2]]), [1])
    assert found.exact and found.optimum == Q(2, 3)


@pytest.mark.parametrize("scale", [Q(1, 10**8), Q(3, 10**9), Q(1, 1000), 10**5, 10**8])
def test_data_of_any_size_are_solved_on_an_exact_rescaling(scale):
    """Φ has degree 2 in θ and 1 in x, so min ‖θ‖² on c·X is min ‖θ‖² on X divided by c: the solvers' absolute
    thresholds (at 1e8 they broke the exact rounding) are kept away from such data by a rescaling by a power of 100,
    undone exactly."""
    cross = to_exact([[0, 1], [1, 0], [0, -1], [-1, 0]])
    for model, X, y, closed in ((FC[2], cross * scale, [1, 1, 1, 1], 4 * sqrt(2)),
                                (FC[2], family(Q(1, 4)) * scale, [1, 1], 16 / sqrt(17)),
                                (diagonal(3, 2, "relu"), to_exact([[1, 3, 2]]) * scale, [1], Q(2, 3))):
        found = G.global_optimum(model, X, y)
        assert found.exact and E.sign(found.optimum - closed / scale) == 0
        assert E.sign(found.lower - closed / scale) == 0
        assert is_feasible(model, found.point, X, y)
        assert E.sign(E.dot(found.point, found.point) - found.upper) >= 0
        assert abs(found.value * float(scale) - float(closed)) <= 1e-6 * float(closed)
        assert "scaled by 100^" in found.message
        cheap = G.global_optimum(model, X, y, bounds=False)
        assert cheap.lower is None and is_feasible(model, cheap.point, X, y)
        assert float(cheap.upper) * float(scale) == pytest.approx(float(closed), rel=1e-5)


def test_data_of_moderate_size_are_solved_as_given():
    for scale in (Q(1, 50), 1, 99):
        assert "scaled" not in G.global_optimum(FC[2], family(Q(1, 4)) * scale, [1, 1]).message
    assert G._decade_pairs(np.array([[1e-8]])) == 4 and G._decade_pairs(np.array([[2e7]])) == -4
    assert G._decade_pairs(np.array([[0.0]])) == 0 and G._decade_pairs(np.array([[0.005, 150.0]])) == -1


@pytest.mark.parametrize("scale", [Q(1, 10**8), Q(3, 10**7), 10**4, 10**8])
def test_the_layer_problem_on_data_of_any_size(scale):
    """With the output weights fixed the margins are linear in W₁ and in x: min ‖W₁‖² on c·X is the value on X over
    c² (one sample (3, 4): 1/50 for v = (1, 1); the cross of test_orthogonal_cross…, v = 1: 2), and the exact layer
    is feasible on the scaled data."""
    cross = to_exact([[0, 1], [1, 0], [0, -1], [-1, 0]])
    ones = to_exact([0] * 8 + [1] * 4)
    for model, theta, X, y, closed in ((FC[2], to_exact([1, 0, 0, 1, 1, 1]), to_exact([[3, 4]]), [1], Q(1, 50)),
                                       (FC[4], ones, cross, [1, 1, 1, 1], 2)):
        found = G.layer_global_optimum(model, theta, X * scale, y)
        assert found.exact and E.sign(found.optimum - closed / scale**2) == 0
        assert E.sign(found.lower - closed / scale**2) == 0 and "scaled by 100^" in found.message
        layer = np.concatenate([found.point, model.split(theta)[1]])
        assert is_feasible(model, layer, X * scale, y)
        assert G.layer_global_optimum(model, theta, X * scale, y, bounds=False).lower is None


def test_mixed_labels_need_one_neuron_per_sign():
    """x1 = (1, 0) with y = +1 and x2 = (−1, 0) with y = −1: a neuron of each output sign, min ‖θ‖² = 4; a single
    neuron cannot separate them."""
    X, y = to_exact([[1, 0], [-1, 0]]), [1, -1]
    found = G.global_optimum(FC[2], X, y)
    assert found.exact and found.optimum == 4
    with pytest.raises(ValueError, match="separates"):
        G.global_optimum(FC[1], X, y)


def test_dual_bound_of_a_non_optimal_kkt_point():
    """Theorem 3.2's KKT point has λ = (2, 2); the worst chamber is x1's own ({1}), where g = 2x1 has norm √17/2:
    the bound 2Σλ/ρ = 16/√17 is the global optimum, while ‖θ̃‖² = 8 = 2Σλ is not proved optimal."""
    bound = G.dual_bound(FC[2], family(Q(1, 4)), [1, 1], to_exact([2, 2]))
    assert bound.exact and E.sign(bound.value - 16 / sqrt(17)) == 0
    assert E.sign(bound.rho_squared - Q(17, 4)) == 0
    with pytest.raises(ValueError, match="≥ 0"):
        G.dual_bound(FC[2], family(Q(1, 4)), [1, 1], to_exact([-1, 2]))


def test_layer_optimum_single_sample_cauchy_schwarz():
    """Output weights v > 0 fixed, one sample: Σ_j v_j w_jᵀx ≥ 1 and Cauchy–Schwarz give
    min ‖W₁‖² = 1/(‖x‖²‖v‖²): x = (3, 4), v = (1, 2) → 1/125."""
    theta = to_exact([3, 4, 0, 0, 1, 2])  # W₁ is free; only v = (1, 2) matters
    found = G.layer_global_optimum(FC[2], theta, to_exact([[3, 4]]), [1])
    assert found.exact and found.optimum == Q(1, 125)


def test_layer_optimum_of_the_cross():
    """±e1, ±e2, v ≡ 1 (Theorem 5.3): 4 ≤ Σ_iΣ_j σ(w_jᵀx_i) ≤ √2Σ‖w_j‖ ≤ 2√2(Σ‖w_j‖²)^(1/2), so min ‖W₁‖² = 2,
    attained by the four vectors (±1/2, ±1/2)."""
    theta = to_exact([0, 1, 1, 0, 0, -1, -1, 0, 1, 1, 1, 1])
    found = G.layer_global_optimum(FC[4], theta, to_exact([[0, 1], [1, 0], [0, -1], [-1, 0]]), [1, 1, 1, 1])
    assert found.exact and found.optimum == 2
    assert found.programs <= 100, found.programs


def test_unsupported_models_are_refused():
    with pytest.raises(ValueError, match="depth-2 ReLU"):
        G.global_optimum(fully_connected([2, 2, 1], "linear"), family(Q(1, 4)), [1, 1])
    with pytest.raises(ValueError, match="depth-2 ReLU"):
        G.global_optimum(fully_connected([2, 2, 2, 1], "relu"), family(Q(1, 4)), [1, 1])
    with pytest.raises(ValueError, match="n ×"):
        G.global_optimum(FC[2], to_exact([[1, 2, 3]]), [1])


# -- properties --------------------------------------------------------------------------------------------------
coordinate = st.integers(-4, 4).filter(lambda v: v != 0)


@settings(derandomize=True, max_examples=8, deadline=None)
@given(st.lists(st.tuples(coordinate, coordinate), min_size=2, max_size=3, unique=True),
       st.lists(st.integers(-3, 3), min_size=6, max_size=6))
def test_bracket_contains_every_feasible_point(points, weights):
    """lower ≤ upper, the returned point is exactly feasible with ‖point‖² ≥ upper, and any feasible θ (a random
    one rescaled to margin 1) costs at least the lower bound."""
    X, y = to_exact(points), to_exact([1] * len(points))
    try:
        found = G.global_optimum(FC[2], X, y)
    except ValueError:  # some sample cannot be reached by a neuron active on it: nothing to compare
        return
    assert is_feasible(FC[2], found.point, X, y)
    assert E.sign(E.dot(found.point, found.point) - found.upper) >= 0
    if found.lower is not None:
        assert E.sign(found.upper - found.lower) >= 0
        theta = to_exact(weights)
        q = E.canonical(FC[2].forward(theta, X)[:, 0])
        if np.all(E.signs(q) > 0):
            smallest = min(q, key=float)
            scaled = E.canonical(theta / sqrt(smallest))  # degree 2: margins scale by 1/q_min
            assert E.sign(E.dot(scaled, scaled) - found.lower) >= 0
