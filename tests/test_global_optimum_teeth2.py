"""numerics.global_optimum, the parts that the enumeration's end results hide: each helper against a hand-computed
exact answer on a tiny instance, with one condition violated at a time.

The set-by-set lower bound is the minimum over the sets (not the first, not the target) and counts its programs;
a bound refined "until it reaches ``enough``" stops exactly there; the exact upper point is refused when a length
is negative or an inactive margin stays below 1, and reports its value as the optimum exactly when it meets the
dual bound; ``optimum`` is also set when the rounded point meets the lower bound; coverage with fixed output
weights needs an activated sample whose label agrees with the output weight; zero output weights neither cover a
sample nor make an uncovered assignment uncertifiable; the rational point fills the first slots and is balanced
neuron by neuron; a projection candidate inside the chamber but not orthogonal to the multipliers' part is not the
projection.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from sympy import Rational as Q
from sympy import sqrt
from test_global_optimum import FC, family, is_feasible

from numerics import exact as E
from numerics import global_optimum as G
from numerics.exact import to_exact

DELTA = Q(1, 4)
THREE = to_exact([[1, DELTA], [-1, DELTA], [0, -1]])  # x1, x2 = (±1, 1/4), x3 = (0, −1): six covered pairs


def same(a, b) -> bool:
    return E.sign(a - b) == 0


# -- the set-by-set lower bound -------------------------------------------------------------------------------------
def test_set_by_set_bound_is_the_minimum_over_the_sets():
    """THREE, labels +1, width 2: the six covered pairs cost √97/2 (the best), 5.1418… (twice), 7.3246… (twice) and
    10; each pair's own bound is exact or within 1e-8. With a target above all of them (100) the result is the
    smallest bound, √97/2, after one program per covered pair (the nine uncovered pairs are skipped: same-sign labels);
    without the best pair it is the next one, 5.1418…; with a target of 0 nothing goes below it."""
    s = G._structure(FC[2], THREE, [1, 1, 1])
    subsets = G._subsets(s, G._choices(s))
    assert len(subsets) == 15
    lower, how, programs = G._lower_by_subsets(s, subsets, Q(100))
    assert same(lower, sqrt(97) / 2) and programs == 6 and how == "the multipliers of each set of choices"
    best = next(subset for subset in subsets if {c.pattern for c in subset} == {(1, -1, 1), (-1, 1, 1)})
    lower, _, programs = G._lower_by_subsets(s, [subset for subset in subsets if subset != best], Q(100))
    assert programs == 5 and abs(float(lower) - 5.141847119) < 1e-8 and E.sign(lower - sqrt(97) / 2) > 0
    lower, _, programs = G._lower_by_subsets(s, subsets, Q(0))
    assert lower == 0 and programs == 6


def test_a_bound_stops_refining_exactly_when_it_reaches_enough():
    """x1 = (100, 0), x2 = (−101, 0), labels +1, one neuron each: min ‖θ‖² = 2(1/100 + 1/101) = 201/5050, attained
    by α ∝ (1/100, 1/101), whose direction (1, 100/101) needs denominators above 100. Asked to reach the optimum,
    the refinement goes on past the 2-digit rounding (whose bound is smaller) to the exact one."""
    s = G._structure(FC[2], to_exact([[100, 0], [-101, 0]]), [1, 1])
    subset = tuple(G._choices(s))
    assert len(subset) == 2
    alpha = np.array([1 / 100, 1 / 101])
    optimum = Q(201, 5050)
    first = G._dual_bound(s, subset, G._rational_directions(alpha)[0]).value
    assert E.sign(first - optimum) < 0  # the coarsest rounding alone does not reach it
    assert same(G._best_bound(s, subset, alpha, enough=optimum).value, optimum)
    assert same(G._best_bound(s, subset, alpha).value, optimum)


def test_a_layer_bound_stops_refining_exactly_when_it_reaches_enough():
    """v = (1, −1), x = (10, 1): w = x/‖x‖², λ = 1/101 and min ‖W₁‖² = 2λ − λ²‖x‖² = 1/101; rounded to denominators
    ≤ 100, λ = 1/100 gives 2/100 − 101/10⁴ < 1/101, so reaching ``enough`` needs the 3-digit rounding."""
    s = G._structure(FC[2], to_exact([[10, 1]]), [1])
    options, outputs = [[G.Choice(0, (1,), 1)], []], to_exact([1, -1])
    lam = np.array([1 / 101])
    assert G._layer_dual(s, options, outputs, E.rationalize(lam, 100))[0] == Q(99, 10**4)
    value, layer = G._best_layer_bound(s, options, outputs, lam, enough=Q(1, 101))
    assert value == Q(1, 101) and list(layer[0]) == [Q(10, 101), Q(1, 101)]
    assert G._best_layer_bound(s, options, outputs, lam)[0] == Q(1, 101)


def test_rational_directions_zero_only_relatively_small_multipliers():
    """α = (1/100, 4·10⁻⁶): the second entry is 4·10⁻⁴ of the largest, far above the relative zero 10⁻⁷, so the
    finer roundings keep it (1/2500); α = (1, 10⁻⁸) is relatively zero there."""
    directions = G._rational_directions(np.array([0.01, 4e-6]))
    assert [list(d) for d in directions] == [[1, 0], [1, 0], [1, Q(1, 2500)], [1, Q(1, 2500)]]
    assert all(list(d) == [1, 0] for d in G._rational_directions(np.array([1.0, 1e-8])))
    assert all(list(d) == [1, Q(1, 100)] for d in G._rational_directions(np.array([3.0, 0.03])))


def test_rational_directions_of_zero_multipliers_is_the_zero_direction_once():
    with np.errstate(all="raise"):  # no 0/0 on the way
        directions = G._rational_directions(np.zeros(3))
    assert [list(d) for d in directions] == [[0, 0, 0]]


# -- the exact upper point ------------------------------------------------------------------------------------------
E1E2 = to_exact([[1, 0], [0, 1]])  # x1 = e1, x2 = e2, labels +1: one neuron along (1, 1) serves both


def test_exact_upper_is_the_optimum_when_it_meets_the_bound():
    """α = (1, 1): the worst chamber is the orthant (g = (1, 1), ρ² = 2), bound 2·2/√2 = 2√2; the neuron along
    (1, 1)/√2 with length √2 has margins (1, 1): value 2√2 = the bound, so it is also the optimum."""
    s = G._structure(FC[1], E1E2, [1, 1])
    bound = G._dual_bound(s, G._choices(s), to_exact([1, 1]))
    assert bound.exact and bound.rho_squared == 2 and same(bound.value, 2 * sqrt(2))
    neuron = G.Neuron(G.Choice(0, (1, 1), 1), np.array([1.0, 1.0]))
    upper, optimum = G._exact_upper(s, bound, [neuron], 2 * 2**0.5)
    assert same(upper, 2 * sqrt(2)) and same(optimum, 2 * sqrt(2))


def test_exact_upper_refuses_an_inactive_margin_below_one():
    """α = (1, 0): ρ² = 1 in the orthant (g = e1), so the neuron points along e1 with length 1; x1's margin is 1 but
    x2 (active in the chamber, multiplier 0) gets 0 < 1: the point is infeasible."""
    s = G._structure(FC[1], E1E2, [1, 1])
    bound = G._dual_bound(s, G._choices(s), to_exact([1, 0]))
    assert bound.exact and bound.rho_squared == 1
    neuron = G.Neuron(G.Choice(0, (1, 1), 1), np.array([1.0, 0.0]))
    assert G._exact_upper(s, bound, [neuron], 2.0) == (None, None)


def test_exact_upper_refuses_a_negative_length():
    """α = (1, 1), two neurons in the orthant: the margins fix only t1 + t2 = √2, and the point nearest to the
    solver's lengths (3, 0) is t = (3, 0) + c(1, 1) with t2 = (√2 − 3)/2 < 0: refused. Lengths (1, 1) give t = (√2/2,
    √2/2), the optimum 2√2."""
    s = G._structure(FC[2], E1E2, [1, 1])
    bound = G._dual_bound(s, G._choices(s), to_exact([1, 1]))
    choice = G.Choice(0, (1, 1), 1)
    neurons = [G.Neuron(choice, np.array([3.0, 0.0])), G.Neuron(choice, np.array([0.0, 0.0]))]
    assert G._exact_upper(s, bound, neurons, 2 * 2**0.5) == (None, None)
    neurons = [G.Neuron(choice, np.array([0.5, 0.5])), G.Neuron(choice, np.array([0.5, 0.5]))]
    upper, optimum = G._exact_upper(s, bound, neurons, 2 * 2**0.5)
    assert same(upper, 2 * sqrt(2)) and same(optimum, 2 * sqrt(2))


@pytest.mark.parametrize("extra, exact", [(0, True), (Q(1, 10**9), False)])
def test_optimum_when_the_rounded_point_meets_the_set_by_set_bound(monkeypatch, extra, exact):
    """Width 1, x = (±1, 1/4): the set-by-set bound is 8 and the exact upper point (built from the any-width
    multipliers) fails; if the rational point is the optimal θ = (0, 2, 2) exactly, upper = lower = 8 is the exact
    optimum; a point with a slightly larger output weight (feasible, ‖θ‖² > 8) leaves it open."""
    theta = to_exact([0, 2, 2 + extra])
    monkeypatch.setattr(G, "_rational_point", lambda s, neurons: theta)
    found = G.global_optimum(FC[1], family(DELTA), [1, 1])
    assert found.lower == 8 and found.upper == E.dot(theta, theta)
    assert found.exact == exact and found.message.endswith("; exact optimum") == exact
    assert found.optimum == (8 if exact else None)


# -- the per-layer problem: coverage and certificates ---------------------------------------------------------------
def test_covered_with_needs_an_active_sample_whose_label_agrees_with_the_output():
    s = G._structure(FC[2], to_exact([[3, 4]]), [1])
    on, off = G.Choice(0, (1,), 1), G.Choice(0, (-1,), 1)
    assert G._covered_with(s, [(0, on)], to_exact([1, -1]))
    assert G._covered_with(s, [(1, on)], to_exact([1, -1])) is False  # v = −1 lowers the margin
    assert G._covered_with(s, [(0, on)], to_exact([0, 1])) is False  # v = 0 does nothing
    assert G._covered_with(s, [(0, off)], to_exact([1, 1])) is False  # inactive
    assert G._covered_with(s, [], to_exact([1, 1])) is False
    assert G._covered_with(G._structure(FC[2], to_exact([[3, 4]]), [0]), [(0, on)], to_exact([1, 1])) is False


def test_covered_needs_an_active_sample_whose_label_agrees_with_the_sign():
    s = G._structure(FC[2], to_exact([[3, 4]]), [1])
    assert G._covered(s, [G.Choice(0, (1,), 1)])
    assert not G._covered(s, [G.Choice(0, (1,), -1)]) and not G._covered(s, [G.Choice(0, (-1,), 1)])


def test_layer_with_a_zero_output_weight_is_still_certified():
    """v = (1, 0), x = (±1, 1/4), labels +1: the v = 0 neuron can do nothing, so this is the one-neuron problem,
    min ‖W₁‖² = 16 at w = (0, 4), with a duality gap closed assignment by assignment; every v·y ≥ 0 (0 included), so
    the assignments that miss a sample are infeasible and skipped, not left uncertified: 3 programs."""
    found = G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, 1, 0]), family(DELTA), [1, 1])
    assert found.exact and found.optimum == 16 and found.lower == 16 and list(found.point) == [0, 4, 0, 0]
    assert "each assignment's own Lagrangian dual" in found.message and found.programs == 3


def test_layer_chambers_that_only_lower_margins_are_not_options():
    """v = (1, −1), x = (3, 4), label +1: the second neuron's only chamber with x active has v·y < 0, so it gets no
    option and the first neuron's one chamber is the one program."""
    found = G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, 1, -1]), to_exact([[3, 4]]), [1])
    assert found.exact and found.optimum == Q(1, 25) and found.programs == 1


# -- the rational point ---------------------------------------------------------------------------------------------
def test_rational_point_fills_the_first_slots():
    """One sample, width 2: the optimal neuron goes to slot 0 (first row of W₁ and first output weight); slot 1 is
    exactly 0."""
    found = G.global_optimum(FC[2], to_exact([[3, 4]]), [1])
    W, v = found.point[:4].reshape(2, 2), found.point[4:]
    assert list(W[1]) == [0, 0] and v[1] == 0
    assert v[0] > 0 and abs(float(E.dot(W[0], W[0])) - 0.2) < 1e-6


def test_rational_point_is_balanced_neuron_by_neuron():
    """x1 = (5, 0), x2 = (−1, 0), labels +1: one neuron each, ‖u1‖ = 1/5, ‖u2‖ = 1, min ‖θ‖² = 2(1/5 + 1) = 12/5;
    the rounded point has ‖w_j‖² = v_j² = ‖u_j‖ for each neuron (to rounding), so ‖point‖² ≈ 12/5."""
    X = to_exact([[5, 0], [-1, 0]])
    found = G.global_optimum(FC[2], X, [1, 1])
    assert found.exact and found.optimum == Q(12, 5)
    assert is_feasible(FC[2], found.point, X, [1, 1])
    W, v = found.point[:4].reshape(2, 2), found.point[4:]
    norms = sorted(float(E.dot(W[j], W[j])) for j in range(2))
    assert np.allclose(norms, [0.2, 1.0], atol=1e-6)
    for j in range(2):
        assert abs(float(E.dot(W[j], W[j])) - float(v[j]) ** 2) < 1e-7, j
    assert abs(float(E.dot(found.point, found.point)) - 2.4) < 1e-6


# -- the projection ------------------------------------------------------------------------------------------------
def test_projection_candidate_inside_but_not_orthogonal_is_not_exact():
    """g = (−1000, −c) with c = 12345/(10⁹ + 7), onto the orthant: Π(g) = 0 with β = (1000, c). c is below the
    relative zero (10⁻⁷·1000), so the exact candidate uses β1 alone and misses u2 ≥ 0; the rounded β = (1000, r) with
    r = 11/891049 > c gives the point (0, r − c), inside the orthant but not orthogonal to Bᵀβ: not the projection.
    Either the result is certified with point 0, or it is flagged inexact with ‖point‖² ≥ 0 = ‖Π(g)‖²."""
    c = Q(12345, 10**9 + 7)
    r = Fraction(float(c)).limit_denominator(10**6)
    assert r == Fraction(11, 891049) and r > Fraction(12345, 10**9 + 7)
    found = G._project(to_exact([-1000, -c]), to_exact([[1, 0], [0, 1]]))
    assert not found.exact or (found.point[0] == 0 and found.point[1] == 0)
    assert E.sign(found.squared) >= 0


@pytest.mark.parametrize("x, optimum", [((2000, 0), Q(1, 4_000_000)), ((300, 400), Q(1, 250_000)), ((3, 4), Q(1, 25))])
def test_the_layer_bound_rounds_multipliers_relative_to_their_size(x, optimum) -> None:
    # w = x/‖x‖² is optimal: ‖w‖² = 1/‖x‖²; its multiplier is of that size, which fixed denominators (≤ 10⁶) rounded
    # to 0 for x = (2000, 0) (lower bound 0, no optimum) before the rounding was taken relative to its decade
    found = G.layer_global_optimum(FC[2], to_exact([0, 0, 0, 0, 1, -1]), to_exact([x]), [1])
    assert found.lower == found.upper == found.optimum == optimum
