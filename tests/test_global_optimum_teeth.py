"""numerics.global_optimum, pinned where the closed-form tests leave room.

Each certificate is refused when exactly its condition fails: an unsupported model (every conjunct of
``supports``), malformed data, a zero label (no useful choice), multipliers that no neuron can serve (dual bound
∞, or 0 for α = 0), a width too small for the any-width bound (the bound set by set; with mixed labels an
uncovered set leaves the lower bound uncertified: None), fixed output weights that cannot reach a label. The
projection onto a chamber is checked against closed forms (half-plane, orthant, interior point, multipliers with
large denominators, where a rounding of the solver's multipliers would not be exact), the exact minimum of
values that floats cannot order, the neurons and the rational point of the optimum (balanced, exactly feasible, of
cost ‖θ‖² ≈ the optimum), the count of convex programs (one per covered set of useful choices, counted by hand),
and the bracket lower ≤ closed form ≤ upper with ``optimum`` set exactly when lower = upper.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sympy import Rational as Q
from sympy import oo, sqrt
from test_global_optimum import FC, family, is_feasible

from numerics import exact as E
from numerics import global_optimum as G
from numerics.exact import to_exact
from numerics.networks import Dense, Network, Shared, circular_convolutional, diagonal, fully_connected

DELTA = Q(1, 4)


def same(a, b) -> bool:
    return E.sign(a - b) == 0


def layer_feasible(model, layer, outputs, X, y) -> bool:
    theta = np.concatenate([to_exact(layer), to_exact(outputs)])
    return is_feasible(model, theta, X, y)


def smallest_margin(model, theta, X, y):
    margins = E.canonical(to_exact(y) * model.forward(to_exact(theta), to_exact(X))[:, 0])
    return min(margins, key=float)


# -- what the enumeration accepts -----------------------------------------------------------------------------------
def test_supports_every_condition():
    assert G.supports(FC[2]) and G.supports(diagonal(3, 2, "relu"))
    assert not G.supports(object())  # not a Network
    assert not G.supports(fully_connected([2, 2, 1], "linear"))
    assert not G.supports(fully_connected([2, 2, 2, 1], "relu"))  # depth 3
    assert not G.supports(fully_connected([2, 2, 2], "relu"))  # two outputs
    assert not G.supports(circular_convolutional(2, 2, activation="relu"))  # shared first layer
    assert not G.supports(Network((Dense(2, 2), Shared(((1, 2),))), "relu"))  # shared output layer
    with pytest.raises(ValueError, match="depth-2 ReLU"):
        G.global_optimum(fully_connected([2, 2, 2], "relu"), family(DELTA), [1, 1])


@pytest.mark.parametrize("X, y", [([1, 2], [1]), ([[1, 2], [3, 4]], [1, 1, 1]), ([[1, 2], [3, 4]], [[1, 1]])])
def test_malformed_data_is_refused(X, y):
    with pytest.raises(ValueError, match="n ×"):
        G.global_optimum(FC[2], to_exact(X), y)


def test_choice_is_active_exactly_on_positive_pattern_entries():
    assert G.Choice(0, (1, -1, 0, 1), 1).active == (0, 3)
    assert G.Choice(0, (0, -1), -1).active == ()


def test_useful_choices_activate_a_sample_whose_label_has_their_sign():
    """One sample x = (3, 4): two chambers (x active or not); only the active one with the label's sign is useful.
    A label 0 agrees with no sign, and a sample that is 0 on a diagonal neuron's input activates nothing."""
    for label in (1, -1):
        s = G._structure(FC[1], [[3, 4]], [label])
        assert G._choices(s) == [G.Choice(0, (1,), label)]
    assert G._choices(G._structure(FC[1], [[3, 4]], [0])) == []
    s = G._structure(diagonal(2, 2, "relu"), [[1, 0]], [1])
    assert s.chambers(1) == [(0,)]
    assert G._choices(s) == [G.Choice(0, (1,), 1)]
    with pytest.raises(ValueError, match="separates"):
        G.global_optimum(FC[2], [[3, 4]], [0])


def test_diagonal_network_ignores_an_input_that_is_zero():
    """x = (1, 0): only the first diagonal neuron can be active, min ‖θ‖² = 2/x_1 = 2."""
    found = G.global_optimum(diagonal(2, 2, "relu"), to_exact([[1, 0]]), [1])
    assert found.exact and found.optimum == 2 and found.programs == 1
    assert is_feasible(diagonal(2, 2, "relu"), found.point, to_exact([[1, 0]]), [1])


def test_a_sample_zero_on_a_neuron_is_not_covered_by_it():
    """Diagonal net, x1 = (1, 1), x2 = (0, −1), labels +1: x2 is 0 for the first neuron, so it needs the second one
    in the chamber w2 < 0; the one set of choices that covers both costs 2(1/1 + 1/1) = 4 (one program)."""
    found = G.global_optimum(diagonal(2, 2, "relu"), to_exact([[1, 1], [0, -1]]), [1, 1])
    assert found.exact and found.optimum == 4 and found.programs == 1


def test_a_zero_label_is_refused_without_numerical_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="separates"):
            G.global_optimum(FC[2], to_exact([[3, 4], [1, 0]]), [0, 1])


def test_irrational_data_use_the_chambers_of_nearby_rationals():
    """x = (√2, 1): one chamber where it is active, min ‖θ‖² = 2/‖x‖ = 2/√3, exactly."""
    found = G.global_optimum(FC[2], to_exact([[sqrt(2), 1]]), [1])
    assert found.exact and same(found.optimum, 2 / sqrt(3))


def test_nearly_parallel_irrational_samples_keep_their_four_chambers():
    """x1 = (1, 3/2 + √2·10⁻⁶) and x2 = (1, 3/2) are not parallel: four chambers, three of them useful (labels +1),
    so width 2 solves C(3, 2) = 3 programs; rounding x1 to a simple rational (3/2) would merge the chambers."""
    X = to_exact([[1, Q(3, 2) + sqrt(2) / 10**6], [1, Q(3, 2)]])
    found = G.global_optimum(FC[2], X, [1, 1], bounds=False)
    assert found.programs == 3


# -- the projection onto a chamber ----------------------------------------------------------------------------------
@pytest.mark.parametrize("g, cone, projection", [
    ([3, 4], np.zeros((0, 2), dtype=int), [3, 4]),  # no constraint
    ([1, -2], [[0, 1]], [1, 0]),  # half-plane u2 ≥ 0
    ([1, 5], [[1, 0]], [1, 5]),  # already inside
    ([-1, -1], [[1, 0], [0, 1]], [0, 0]),  # polar cone of the orthant
    ([3, -1], [[1, 0], [0, 1]], [3, 0]),
    ([1, -Q(123457, 10**7 + 19)], [[0, 1]], [1, 0]),  # β = 123457/10000019: no simple rounding is exact
    ([-Q(123457, 10**7 + 19), 1], [[1, 0], [0, 1]], [0, 1]),  # one β > 0 with a large denominator, one β = 0
])
def test_projection_onto_a_chamber_is_exact(g, cone, projection):
    found = G._project(to_exact(g), to_exact(cone))
    assert found.exact
    assert all(same(a, b) for a, b in zip(found.point, to_exact(projection)))
    assert same(found.squared, E.dot(to_exact(projection), to_exact(projection)))


def test_projection_of_a_slightly_outside_point_is_not_taken_for_the_point_itself():
    """g = (1, −10⁻⁹) is outside u2 ≥ 0 by less than the solver's zero: either the exact projection (1, 0) is
    certified, or the result is flagged inexact; its squared norm bounds ‖Π(g)‖² = 1 from above either way."""
    found = G._project(to_exact([1, -Q(1, 10**9)]), to_exact([[0, 1]]))
    assert E.sign(found.squared - 1) >= 0
    assert not found.exact or (same(found.point[0], 1) and same(found.point[1], 0))


def test_smallest_is_exact_where_floats_tie():
    assert G._smallest(to_exact([1 + Q(1, 10**20), 1, 2])) == 1
    assert G._smallest(to_exact([3, 1 + Q(1, 10**19), 1 + Q(1, 10**20)])) == 1 + Q(1, 10**20)


# -- the dual bound -------------------------------------------------------------------------------------------------
def test_dual_bound_picks_the_worst_chamber():
    """α = (2, 1) on x = (±1, 1/4): x1's own chamber has g = 2x1, ρ² = 4·17/16 = 17/4, the largest; the bound is
    2Σα/ρ = 12/√17. Doubling α leaves it unchanged (degree 0)."""
    for alpha in ([2, 1], [4, 2]):
        bound = G.dual_bound(FC[2], family(DELTA), [1, 1], to_exact(alpha))
        assert bound.exact and same(bound.value, 12 / sqrt(17))
        assert bound.worst == G.Choice(0, (1, -1), 1)
    assert same(bound.rho_squared, 17)


def test_dual_bound_of_one_sample_is_the_optimum():
    """g = αx: ρ = α‖x‖ and the bound 2α/ρ = 2/‖x‖ for every α > 0, also when ρ < 1 (α = 1/10: ρ² = 1/4)."""
    for alpha, rho_squared in ((Q(1, 10), Q(1, 4)), (Q(1, 3), Q(25, 9))):
        bound = G.dual_bound(FC[1], to_exact([[3, 4]]), [1], to_exact([alpha]))
        assert bound.value == Q(2, 5) and same(bound.rho_squared, rho_squared)
        assert bound.worst == G.Choice(0, (1,), 1) and bound.exact


def test_dual_bound_when_no_neuron_serves_the_multipliers():
    """All weight on a zero sample: g_c = 0 for every choice, the data cannot be separated (bound ∞); α = 0 (a zero
    multiplier is allowed) bounds nothing (0)."""
    X = to_exact([[3, 4], [0, 0]])
    served = G.dual_bound(FC[2], X, [1, 1], to_exact([0, 1]))
    assert served.value == oo and served.worst is None and served.rho_squared == 0
    assert G.dual_bound(FC[2], X, [1, 1], to_exact([0, 0])).value == 0


def test_the_largest_bound_over_the_roundings_is_kept():
    """α = (1, 0.99999) on x = (±1, 1/4): rounded to 2, 3 or 4 digits it is (1, 1), whose bound is the optimum 16/√17;
    to 6 digits (1, 99999/100000), a smaller bound. λ = 0.040001 for v = (1, −1), x = (3, 4): rounded it is 1/25,
    the optimal multiplier (dual value 2λ − 25λ² = 1/25, the optimum), to 6 digits slightly less."""
    s = G._structure(FC[2], family(DELTA), [1, 1])
    assert same(G._best_bound(s, G._choices(s), np.array([1.0, 0.99999])).value, 16 / sqrt(17))
    s = G._structure(FC[2], to_exact([[3, 4]]), [1])
    value, layer = G._best_layer_bound(s, [[G.Choice(0, (1,), 1)], []], to_exact([1, -1]), np.array([0.040001]))
    assert value == Q(1, 25) and list(layer) == [0] and list(layer[0]) == [Q(3, 25), Q(4, 25)]


# -- the enumeration ------------------------------------------------------------------------------------------------
def test_single_sample_solves_one_program_and_reports_an_exact_optimum():
    found = G.global_optimum(FC[1], to_exact([[3, 4]]), [1])
    assert found.programs == 1 and found.optimum == Q(2, 5) and found.lower == Q(2, 5) and found.upper == Q(2, 5)
    assert "one set of multipliers for every choice" in found.message and found.message.endswith("; exact optimum")
    (neuron,) = found.neurons
    assert neuron.choice == G.Choice(0, (1,), 1)
    np.testing.assert_allclose(neuron.u, [3 / 25, 4 / 25], atol=1e-7)  # u = x/‖x‖²: margin 1 at norm 1/‖x‖


def test_an_inactive_margin_does_not_enter_the_exact_upper_bound():
    """x2 = 2x1: only x1's margin is active (x2's is 2), α2 = 0; still min ‖θ‖² = 2/‖x1‖ = 2/5 exactly."""
    found = G.global_optimum(FC[2], to_exact([[3, 4], [6, 8]]), [1, 1])
    assert found.exact and found.optimum == Q(2, 5) and found.programs == 1


def test_neurons_and_point_of_two_opposite_samples():
    """One neuron per sample, u_j = x_j/‖x_j‖²; the rational point is balanced: ‖θ‖² ≈ the optimum."""
    X = family(DELTA)
    found = G.global_optimum(FC[2], X, [1, 1])
    patterns = sorted((n.choice.pattern, tuple(n.u)) for n in found.neurons)
    expected = sorted([((1, -1), (16 / 17, 4 / 17)), ((-1, 1), (-16 / 17, 4 / 17))])
    assert [p for p, _ in patterns] == [p for p, _ in expected]
    # the neurons are the conic solver's (its SOC cost leaves them ~1e-6 off; the certificates are exact)
    np.testing.assert_allclose([u for _, u in patterns], [u for _, u in expected], atol=1e-5)
    assert abs(float(E.dot(found.point, found.point)) - 16 / 17**0.5) < 1e-6


def test_no_bounds_gives_only_a_feasible_rational_point():
    X = to_exact([[3, 4]])
    found = G.global_optimum(FC[2], X, [1], bounds=False)
    assert found.lower is None and found.optimum is None and not found.exact
    assert found.message.endswith("(no lower bound requested)")
    assert found.upper == E.dot(found.point, found.point) and abs(float(found.upper) - 0.4) < 1e-7
    assert is_feasible(FC[2], found.point, X, [1]) and abs(found.value - 0.4) < 1e-7
    assert smallest_margin(FC[2], found.point, X, [1]) == 1  # output layer rescaled to minimum margin 1, exactly


def test_the_best_of_several_covered_sets():
    """x1, x2 = (±1, 1/4), x3 = (0, −1), labels +1, width 2: six chambers (none with all three samples active or all
    inactive), all useful, and 6 of their C(6, 2) = 15 pairs cover the three samples (two of the pairs {12, 13, 23},
    or a pair with the third sample's own chamber): 6 programs. The best shares x3 between two mirror neurons
    u = (±(1 + b/4), −b) with 2b ≥ 1 (‖u‖² = (1 + b/4)² + b² is increasing for b ≥ 1/2): 4‖u‖ = √97/2."""
    found = G.global_optimum(FC[2], to_exact([[1, DELTA], [-1, DELTA], [0, -1]]), [1, 1, 1])
    assert found.exact and same(found.optimum, sqrt(97) / 2) and abs(found.value - 97**0.5 / 2) < 1e-7
    assert found.programs == 6


def test_bracket_of_a_set_by_set_bound():
    """Width 2 on three spread samples (the one set of multipliers leaves a gap, so the bound is taken set by set):
    lower ≤ solver value ≤ upper, and the point is exactly feasible."""
    X = to_exact([[3, 1], [-2, 3], [-2, -3]])
    found = G.global_optimum(FC[2], X, [1, 1, 1])
    assert found.lower is not None and E.sign(found.upper - found.lower) >= 0
    assert float(found.lower) <= found.value * (1 + 1e-9) and found.value <= float(found.upper) * (1 + 1e-9)
    assert is_feasible(FC[2], found.point, X, [1, 1, 1])


@pytest.mark.parametrize("y", [[1, 1], [-1, -1]])
def test_one_neuron_for_two_opposite_samples_is_bounded_set_by_set(y):
    """Width 1, x = (±1, 1/4): one neuron along (0, 4) serves both, min ‖θ‖² = 2/δ = 8, above the any-width optimum
    16/√17 that one set of multipliers certifies; the chamber where both samples are active is the only covered set
    (one program), and its own bound is 8 exactly."""
    X = family(DELTA)
    found = G.global_optimum(FC[1], X, y)
    assert found.lower == 8 and E.sign(found.upper - 8) >= 0 and float(found.upper) < 8 + 1e-6
    assert found.optimum is None or found.optimum == 8
    assert found.programs == 1 and "the multipliers of each set of choices" in found.message
    (neuron,) = found.neurons
    np.testing.assert_allclose(neuron.u, [0, 4], atol=1e-6)
    assert is_feasible(FC[1], found.point, X, y)


@pytest.mark.parametrize("y, optimum", [([1, 1, -1], 10), ([Q(1, 2), Q(1, 2), -Q(1, 2)], 20)])
def test_width_two_with_mixed_labels_leaves_the_bound_uncertified(y, optimum):
    """x1, x2 = (±1, 1/4) (label y+), x3 = (0, −1) (label y−), width 2: a positive neuron (0, 1/(δ y+)) for x1 and x2
    and a negative one (0, −1/|y−|) for x3, min ‖θ‖² = 2(1/(δ y+) + 1/|y−|). The any-width bound is lower, and a set of
    two choices that misses a sample is not certified infeasible when the labels have both signs: no lower bound."""
    X = to_exact([[1, DELTA], [-1, DELTA], [0, -1]])
    found = G.global_optimum(FC[2], X, y)
    assert found.lower is None and found.optimum is None
    assert "an infeasible set is not certified" in found.message
    assert abs(found.value - optimum) < 1e-6 and E.sign(found.upper - optimum) >= 0
    assert is_feasible(FC[2], found.point, X, y)


@pytest.mark.parametrize("X, y", [([[1, 0], [-1, 0], [0, 1]], [1, -1, 1]), ([[1, 0], [1, 1]], [1, -1])])
def test_optimum_only_when_the_bracket_closes(X, y):
    """Width 2, min ‖θ‖² = 2(√2 + 1) in both: x1 = (1, 0) (+1), x2 = (−1, 0) (−1), x3 = (0, 1) (+1): a positive
    neuron (1, 1) for x1 and x3, a negative one (−1, 0) for x2. x1 = (1, 0) (+1), x2 = (1, 1) (−1): the positive
    neuron must stay off x2 (u = (1, −1), its chamber binds), the negative one is (0, 1). lower ≤ that ≤ upper, and
    ``optimum`` is set iff lower = upper."""
    X = to_exact(X)
    found = G.global_optimum(FC[2], X, y)
    closed = 2 * (sqrt(2) + 1)
    assert is_feasible(FC[2], found.point, X, y)
    assert E.sign(closed - found.lower) >= 0 and E.sign(found.upper - closed) >= 0
    assert abs(found.value - float(closed)) < 1e-6
    assert (found.optimum is not None) == same(found.lower, found.upper)
    assert found.exact == found.message.endswith("; exact optimum")


# -- the first layer with fixed output weights --------------------------------------------------------------------
@pytest.mark.parametrize("model, outputs, X, y, optimum, layer", [
    # v = (1, −1): only the first neuron can raise the margin of x = (3, 4): w = x/‖x‖², the second stays 0
    (FC[2], [1, -1], [[3, 4]], [1], Q(1, 25), [Q(3, 25), Q(4, 25), 0, 0]),
    # v = (2, −1), labels +1/−1 on ±e1: w1 = e1/2, w2 = −e1: 1/4 + 1
    (FC[2], [2, -1], [[1, 0], [-1, 0]], [1, -1], Q(5, 4), [Q(1, 2), 0, -1, 0]),
    # diagonal, v = (1, 2), x = (3, 4): min w1² + w2² s.t. 3w1 + 8w2 ≥ 1 is 1/73 at (3, 8)/73
    (diagonal(2, 2, "relu"), [1, 2], [[3, 4]], [1], Q(1, 73), [Q(3, 73), Q(8, 73)]),
    # diagonal, v = (1, −1): only w1 helps, 3w1 ≥ 1: 1/9, w2 = 0
    (diagonal(2, 2, "relu"), [1, -1], [[3, 4]], [1], Q(1, 9), [Q(1, 3), 0]),
])
def test_layer_optimum_closed_forms(model, outputs, X, y, optimum, layer):
    theta = np.concatenate([to_exact([0] * (model.n_params - len(outputs))), to_exact(outputs)])
    found = G.layer_global_optimum(model, theta, to_exact(X), y)
    assert found.exact and found.optimum == optimum and found.lower == optimum
    assert list(found.point) == list(to_exact(layer))
    assert found.message.endswith("; exact optimum") and "the Lagrangian dual at the best" in found.message


@pytest.mark.parametrize("outputs, y, scale", [([1], [1, 1], 1), ([-1], [-1, -1], 1), ([Q(1, 2)], [1, 1], 2)])
def test_layer_optimum_of_one_neuron_is_bounded_assignment_by_assignment(outputs, y, scale):
    """One neuron, v = ±1, x = (±1, 1/4): w = (0, 4), min ‖W₁‖² = 16 (a duality gap of the all-chamber dual); with
    v = 1/2, w = (0, 8) and 64 (every v·y ≥ 0, so the uncovered assignments are infeasible, also when v·y < 1)."""
    X = family(DELTA)
    found = G.layer_global_optimum(FC[1], to_exact([0, 0] + outputs), X, y)
    assert found.exact and found.optimum == 16 * scale**2 and list(found.point) == [0, 4 * scale]
    assert "each assignment's own Lagrangian dual" in found.message and found.programs == 3


def test_layer_optimum_of_two_neurons_bounded_assignment_by_assignment():
    """v = (1, 2), x = (±1, 1/4), labels +1: the v = 2 neuron serves x1 (‖w‖² = 1/(4‖x‖²) = 4/17), the v = 1 neuron
    x2 (16/17): 20/17. Each neuron has 3 useful chambers A = (+, +), B = (+, −), C = (−, +) or none, and the two are
    not interchangeable: 4·4 − 1 = 15 programs; the gap is closed assignment by assignment, solving the 9 − 1 other
    assignments that cover both samples ((A, any), (any, A), (B, C), (C, B)): 23 programs."""
    found = G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, 1, 2]), family(DELTA), [1, 1])
    assert found.exact and found.optimum == Q(20, 17) and found.lower == Q(20, 17)
    assert found.programs == 23 and "each assignment's own Lagrangian dual" in found.message


def test_layer_maximizer_that_is_not_feasible_is_not_returned():
    """v = (1, 1), x = (±1, 1/4): one neuron per sample, w_j = x_j/‖x_j‖², min ‖W₁‖² = 2·16/17 = 32/17 = the dual
    bound; the dual's maximizer puts both neurons on the same sample (a tie), which misses the other one: the
    returned layer must still be exactly feasible."""
    X = family(DELTA)
    found = G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, 1, 1]), X, [1, 1])
    assert found.lower == Q(32, 17) and E.sign(found.upper - found.lower) >= 0
    assert found.optimum is None or found.optimum == Q(32, 17)
    assert layer_feasible(FC[2], found.point, [1, 1], X, [1, 1])
    assert float(E.dot(found.point, found.point)) < 32 / 17 + 1e-6


def test_layer_with_mixed_signs_and_a_gap_is_not_certified():
    """v = (1, −1), x1, x2 = (±1, 1/4) (+1), x3 = (0, −1) (−1): the positive neuron serves x1 and x2 with w = (0, 4),
    the negative one x3 with w = (0, −1): 16 + 1 = 17; an assignment missing a sample is not certified: no bound."""
    X, y = to_exact([[1, DELTA], [-1, DELTA], [0, -1]]), [1, 1, -1]
    found = G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, 1, -1]), X, y)
    assert found.lower is None and found.optimum is None
    assert abs(found.value - 17) < 1e-6 and E.sign(found.upper - 17) >= 0
    assert layer_feasible(FC[2], found.point, [1, -1], X, y)


def test_layer_neuron_whose_input_is_zero_has_no_chamber():
    """Diagonal net, v = (1, 1), x = (1, 0): the second neuron sees 0 and cannot help: w = (1, 0), one program."""
    found = G.layer_global_optimum(diagonal(2, 2, "relu"), to_exact([0, 0, 1, 1]), to_exact([[1, 0]]), [1])
    assert found.exact and found.optimum == 1 and list(found.point) == [1, 0] and found.programs == 1


def test_layer_without_bounds_and_with_unreachable_labels():
    X, theta = to_exact([[3, 4]]), to_exact([0, 0, 0, 0, 1, 2])
    found = G.layer_global_optimum(FC[2], theta, X, [1], bounds=False)
    assert found.lower is None and found.optimum is None
    assert found.message.endswith("(no lower bound requested)")
    assert found.upper == E.dot(found.point, found.point) and abs(float(found.upper) - 1 / 125) < 1e-9
    assert layer_feasible(FC[2], found.point, [1, 2], X, [1])
    assert smallest_margin(FC[2], np.concatenate([found.point, to_exact([1, 2])]), X, [1]) == 1  # rescaled exactly
    with pytest.raises(ValueError, match="with these output weights"):
        G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, -1, -1]), X, [1])
