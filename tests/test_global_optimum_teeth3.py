"""numerics.global_optimum, the edges its other tests leave open (survivors of the module's mutation run).

The rounding ladder of the solver's multipliers recovers each denominator at the noise its rung is for; a projection
whose multiplier lies below the relative zero is flagged inexact but still bounds ‖Π_P(g)‖² from above to rounding;
coverage compares the sign of the product sign·label (labels of any size); data at the ends of [0.01, 100] are
solved as given and the neurons of rescaled data are scaled back; inseparable data and a zero label are refused
with a ValueError (no numerical warning on the way); the exact upper point needs multipliers some neuron serves;
the per-layer bound rounds zero and tiny multipliers correctly and recovers a multiplier whose denominator needs
the finest rung; a positive all-chamber bound below the optimum still triggers the assignment-by-assignment bound;
ties keep the first maximizer (the simplest rounding, the first chamber in the options' order).
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy
from sympy import Rational as Q
from test_global_optimum import FC, family

from numerics import exact as E
from numerics import global_optimum as G
from numerics.exact import to_exact
from numerics.networks import diagonal, fully_connected


# -- rounding the solver's multipliers ------------------------------------------------------------------------------
@pytest.mark.parametrize("denominator, numerator, noise", [
    (97, 60, 2e-5),  # found by the 10² rung only
    (997, 600, 2e-7),  # 10³
    (9973, 6000, 2e-9),  # 10⁴
    (99991, 60000, 2e-12),  # 10⁶, at solver-grade noise; 10⁷ would settle on a closer, longer fraction
    (999983, 600000, 0.0),  # 10⁶: a denominator just below a million, from the exact float
])
def test_each_rung_of_the_ladder_recovers_the_direction_it_is_for(denominator, numerator, noise):
    """α = (1, p/q + ε): the exact direction (1, p/q) is among the rounded directions for denominators q of about
    10², 10³, 10⁴, 10⁵ and 10⁶ at the noise ε each rung tolerates (ε < 1/(2q·10^k) at rung 10^k)."""
    directions = G._rational_directions(np.array([1.0, numerator / denominator + noise]))
    assert any(list(d) == [1, Q(numerator, denominator)] for d in directions)


def test_the_layer_bound_recovers_a_multiplier_that_needs_the_finest_rung():
    """v = 1, x = (1, 1/730): λ* = 1/‖x‖² = 532900/532901 (scaled to its decade: 10λ*, denominator 532901, between
    9⁶ and 10⁶). Only the 10⁶ rounding finds λ*, where the dual 2λ − λ²‖x‖² peaks at λ*, with the layer w = λ*x."""
    x = to_exact([1, Q(1, 730)])
    s = G._structure(FC[2], to_exact([x]), [1])
    options, outputs = [[G.Choice(0, (1,), 1)], []], to_exact([1, -1])
    optimum = Q(532900, 532901)
    assert optimum == 1 / E.dot(x, x)
    value, layer = G._best_layer_bound(s, options, outputs, np.array([float(optimum)]))
    assert value == optimum and list(layer[0]) == list(E.canonical(optimum * x))


def test_the_layer_bound_of_zero_and_of_tiny_multipliers():
    """λ = 0: the bound is 0 and no neuron is used, without log10(0) or 0/0 on the way; λ = 1/(4·10⁶) for x =
    (2000, 0) is rounded relative to its decade (fixed denominators ≤ 10⁶ would round it to 0): the bound is
    2λ − λ²‖x‖² = 1/(4·10⁶) exactly."""
    s = G._structure(FC[2], to_exact([[2000, 0]]), [1])
    options, outputs = [[G.Choice(0, (1,), 1)], []], to_exact([1, -1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert G._best_layer_bound(s, options, outputs, np.zeros(1)) == (0, {})
    value, layer = G._best_layer_bound(s, options, outputs, np.array([1 / 4_000_000]))
    assert value == Q(1, 4_000_000) and list(layer[0]) == [Q(1, 2000), 0]


def test_equal_bounds_keep_the_simplest_rounding():
    """Two copies of x = (3, 4), labels +1: g_c(α) depends on α₁ + α₂ only, so every rounding of α has the same
    bound 2Σα/ρ = 2/‖x‖ = 2/5; the coarsest (denominators ≤ 100) is kept."""
    s = G._structure(FC[1], to_exact([[3, 4], [3, 4]]), [1, 1])
    alpha = np.array([1.0, 0.123456])
    assert len({d[1] for d in G._rational_directions(alpha)}) > 1  # the roundings differ (10/81, ..., 1929/15625)
    bound = G._best_bound(s, G._choices(s), alpha)
    assert bound.value == Q(2, 5)
    assert list(bound.multipliers) == [1, Fraction(0.123456).limit_denominator(100)]


def test_equal_projections_keep_the_first_chamber_in_the_options_order():
    """x1, x2 = (±1, 1/4), λ = (1, 1), v = 1: the chambers B = (+, −) and C = (−, +) project g to x1 and x2, both of
    squared norm 17/16 (the chamber (+, +) only to (0, 1/2)); the layer takes the first of the two listed."""
    s = G._structure(FC[1], family(Q(1, 4)), [1, 1])
    both, neither = G.Choice(0, (1, 1), 1), G.Choice(0, (1, -1), 1)
    first, second = neither, G.Choice(0, (-1, 1), 1)
    for order, point in [([first, second, both], [1, Q(1, 4)]), ([second, first, both], [-1, Q(1, 4)])]:
        value, layer = G._layer_dual(s, [order], to_exact([1]), to_exact([1, 1]))
        assert value == 2 * 2 - Q(17, 16) and list(layer[0]) == list(to_exact(point))


# -- projections and coverage ---------------------------------------------------------------------------------------
def test_a_multiplier_below_the_relative_zero_leaves_an_upper_bound_within_rounding():
    """P = {u : u₁ ≥ 0, u₁ + u₂ ≥ 0}, g = −(b₁ + 10⁻⁹ b₂): Π_P(g) = 0 with β = (1, 10⁻⁹). The second multiplier is
    below the solver's zero, so no exact projection is found; the fallback β ≥ 0 (the solver's, rounded) gives a
    point within 10⁻⁸ of 0 whose squared norm bounds ‖Π_P(g)‖² = 0 from above."""
    b1, b2 = to_exact([1, 0]), to_exact([1, 1])
    g = E.canonical(-(b1 + Q(1, 10**9) * b2))
    found = G._project(g, np.array([b1, b2], dtype=object))
    assert not found.exact
    assert E.sign(found.squared) >= 0 and float(found.squared) < 1e-16
    assert found.squared == E.dot(found.point, found.point)


def test_irrational_samples_a_trillionth_apart_keep_their_four_chambers():
    """x1 = (1, 3/2 + √2·5·10⁻¹³), x2 = (1, 3/2): not parallel, four chambers, three programs at width 2. The
    irrational entry is rounded with denominators ≤ 10¹², which keeps it apart from 3/2 (≤ 10¹¹ would not)."""
    X = to_exact([[1, Q(3, 2) + sympy.sqrt(2) / (2 * 10**12)], [1, Q(3, 2)]])
    assert G._structure(FC[2], X, [1, 1]).chambers(0) == [(1, 1), (1, -1), (-1, 1), (-1, -1)]
    assert G.global_optimum(FC[2], X, [1, 1], bounds=False).programs == 3


def test_coverage_with_labels_smaller_than_one():
    """Labels ±1/2: the choice (+, +) with output sign +1 activates x2 but lowers its margin (sign·y = −1/2 < 0), so
    the positive choices alone do not cover x2."""
    s = G._structure(FC[2], family(Q(1, 4)), [Q(1, 2), -Q(1, 2)])
    positive = [c for c in G._choices(s) if c.sign > 0]
    assert any(c.pattern == (1, 1) for c in positive)
    assert not G._covered(s, positive)
    assert G._covered(s, G._choices(s))


# -- sizes of the data ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("top, pairs", [(0.01, 0), (100.0, 0), (100.5, -1), (0.00999, 1), (1e4, -2), (2e-4, 2)])
def test_data_at_the_ends_of_the_moderate_range_are_solved_as_given(top, pairs):
    assert G._decade_pairs(np.array([[top, 0.0], [0.0, -top / 2]])) == pairs


def test_empty_data_have_moderate_size():
    assert G._decade_pairs(np.zeros((0, 2))) == 0


def test_the_neurons_of_rescaled_data_are_scaled_back():
    """X' = 10⁴X is solved on X (100^−2 X'): the optimum of X' is the optimum of X divided by 10⁴, and each neuron
    u = |v|w (margins u·x) divided by 10⁴ too."""
    X = family(Q(1, 4))
    plain, scaled = G.global_optimum(FC[2], X, [1, 1]), G.global_optimum(FC[2], E.canonical(X * 10**4), [1, 1])
    assert "scaled by 100^-2" in scaled.message and "scaled" not in plain.message
    assert scaled.optimum == E.canonical_number(plain.optimum / 10**4)
    assert len(plain.neurons) == len(scaled.neurons) == 2
    for a, b in zip(plain.neurons, scaled.neurons):
        assert a.choice == b.choice
        np.testing.assert_allclose(b.u, a.u / 10**4, rtol=1e-6)


def test_unused_neurons_are_dropped_relative_to_the_optimum():
    """x = (1/100, 0), (0, 1/100), (−1/100, 0), width 4: two neurons of length 100√5/2 each serve the optimum
    200√5 ≈ 447; the solver leaves the other two at about 10⁻⁹, which is zero relative to the optimum."""
    c = Q(1, 100)
    found = G.global_optimum(fully_connected([2, 4, 1], "relu"), to_exact([[c, 0], [0, c], [-c, 0]]), [1, 1, 1])
    assert found.optimum == 200 * sympy.sqrt(5)
    assert len(found.neurons) == 2


# -- refusals -------------------------------------------------------------------------------------------------------
def test_data_no_network_separates_are_refused():
    """x = 1 and x = 2 with opposite labels: Φ(2) = 2Φ(1) for a network without bias, so the set of the two useful
    choices is covered but its program is infeasible."""
    with pytest.raises(ValueError, match="no choice of activation patterns separates the data"):
        G.global_optimum(fully_connected([1, 2, 1], "relu"), to_exact([[1], [2]]), [1, -1])


def test_a_zero_label_is_refused_by_the_layer_problem_without_numerical_warnings():
    theta = to_exact([1, 0, 0, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="with these output weights"):
            G.layer_global_optimum(FC[2], theta, family(Q(1, 4)), [1, 0])


def test_no_exact_upper_point_from_multipliers_no_neuron_serves():
    s = G._structure(FC[2], family(Q(1, 4)), [1, 1])
    zero = np.array([sympy.Integer(0)] * 2, dtype=object)
    bound = G.DualBound(sympy.Integer(0), zero, sympy.Integer(0), None, True)
    neuron = G.Neuron(G._choices(s)[0], np.array([1.0, 0.0]))
    assert G._exact_upper(s, bound, [neuron], 1.0) == (None, None)


# -- the per-layer problem's duality gap ----------------------------------------------------------------------------
def test_a_positive_gap_of_the_layer_dual_is_closed_assignment_by_assignment():
    """One neuron, v = 1, x = (±1, 1/2): the best assignment uses the chamber (+, +) with w = (0, 2), 4; the dual
    over every chamber at its multipliers gives 3 > 0, below 4, so each assignment's own dual closes the gap."""
    found = G.layer_global_optimum(FC[1], to_exact([0, 0, 1]), family(Q(1, 2)), [1, 1])
    assert found.exact and found.optimum == 4 and list(found.point) == [0, 2]
    assert "each assignment's own Lagrangian dual" in found.message


def test_the_layer_bound_by_assignments_is_the_minimum_over_them():
    """v = (1, 2), x = (±1, 1/4), labels +1: of the 15 nonempty assignments, the 9 that cover both samples are solved
    and bounded; below the target 100 the result is their smallest bound, the optimum 20/17."""
    s = G._structure(FC[2], family(Q(1, 4)), [1, 1])
    outputs = to_exact([1, 2])
    options = [[G.Choice(0, p, 1) for p in s.chambers(0) if p[0] > 0 or p[1] > 0]] * 2
    assignments = [a for a in G._assignments({0: 0, 1: 0}, outputs, options) if a]
    assert len(assignments) == 15
    assert G._layer_bound_by_assignments(s, assignments, outputs, Q(100)) == (Q(20, 17), 9)


def test_a_sample_zero_on_the_field_is_not_covered_with_fixed_outputs():
    """Diagonal net, x1 = e1, x2 = e2: neuron 0 sees 0 from x2 (pattern entry 0), so it cannot cover x2."""
    s = G._structure(diagonal(2, 2, "relu"), to_exact([[1, 0], [0, 1]]), [1, 1])
    assert s.chambers(0) == [(1, 0), (-1, 0)]
    assert not G._covered_with(s, [(0, G.Choice(0, (1, 0), 1))], to_exact([1, 1]))
    assert G._covered_with(s, [(0, G.Choice(0, (1, 0), 1)), (1, G.Choice(1, (0, 1), 1))], to_exact([1, 1]))


def test_the_layer_dual_has_no_maximizer_when_one_neurons_projection_is_inexact():
    """x1 = (1, 0), x2 = (−1, 10⁻⁹), λ = (1, 1 + 10⁻⁹): in the chamber (+, +) the projection's multiplier is 10⁻⁹,
    below the solver's zero, so it is not exact; in (+, −) it is. A layer is returned only when every neuron's
    projection is exact, whichever neuron comes last."""
    s = G._structure(FC[2], to_exact([[1, 0], [-1, Q(1, 10**9)]]), [1, 1])
    lam, outputs = to_exact([1, 1 + Q(1, 10**9)]), to_exact([1, 1])
    inexact, exact = G.Choice(0, (1, 1), 1), G.Choice(0, (1, -1), 1)
    assert G._layer_dual(s, [[inexact], [exact]], outputs, lam)[1] is None
    assert G._layer_dual(s, [[exact], [inexact]], outputs, lam)[1] is None
    assert list(G._layer_dual(s, [[], [exact]], outputs, lam)[1][1]) == [1, 0]
