"""Paper 001's construction claims (Theorems 3.2, 4.4, 5.3, Lemma C.6, Figure 1): their criteria and helpers called
at the edges of their thresholds, and against the constructions' own data."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from numerics.metrics import angle
from theorems.margin_maximization import common as C
from theorems.margin_maximization.constructions import (
    ACTIVE_COORDINATES,
    ANGLE_RESOLUTION,
    BINOMIAL,
    FROZEN_COORDINATES,
    FROZEN_PRODUCT,
    FROZEN_RATIO,
    INVARIANT_SLACK,
    PROOF_INVARIANTS,
    TURN_START,
    TURNS,
    frozen_neuron_gradient,
    hypotheses_hits,
)

REFERENCE = np.array([0.0, 1.0])


def test_binomial_keeps_a_p_value_equal_to_the_level() -> None:
    """1 hit in 2 draws against p = 1/2 has p-value exactly 1: kept at level 1, as at any lower level."""
    assert BINOMIAL(1, 2, 0.5, 1.0).holds is True
    assert BINOMIAL(0, 40, 0.5, 1e-6).holds is False


def test_frozen_product_on_one_state_and_at_the_ratio_threshold() -> None:
    single = np.array([[1.0, 0.0]])
    assert FROZEN_PRODUCT(single, 1e3).holds is True  # one recorded state is constant
    assert 1.0 / 100.0 == FROZEN_RATIO
    assert FROZEN_PRODUCT(np.repeat(single, 3, axis=0), 100.0).holds is False  # ‖u‖/‖θ‖ = 1e-2 is not below it


def _turning(norms: list[float], angles: list[float]) -> np.ndarray:
    """Vectors of growing length at the given angles to (0, 1)."""
    lengths = np.arange(1.0, len(norms) + 1)
    return np.array([[length * np.sin(a), length * np.cos(a)] for length, a in zip(lengths, angles)])


def _at_resolution(length: float) -> np.ndarray:
    """A vector of the given length (nearly) whose angle to (0, 1) is exactly ANGLE_RESOLUTION in floating point."""
    t = ANGLE_RESOLUTION * length
    for _ in range(10_000):
        found = angle(np.array([t, length]), REFERENCE)
        if found == ANGLE_RESOLUTION:
            return np.array([t, length])
        t = np.nextafter(t, np.inf if found < ANGLE_RESOLUTION else -np.inf)
    raise AssertionError("no vector at the resolution found")


def test_turns_counts_the_state_at_turn_start_and_needs_five_resolved_states() -> None:
    # states at ‖θ‖ = 1 (before the transient ends), 2 = TURN_START, ..., 6 resolved, then one unresolved
    norms = [1.0, TURN_START, 3.0, 4.0, 5.0, 6.0, 7.0]
    angles = [0.5] + [1e-3 * (2 / n) ** 3 for n in norms[1:6]] + [ANGLE_RESOLUTION / 10]
    five = TURNS(_turning(norms, angles), REFERENCE, np.array(norms))
    assert five.decision.figures["resolved_states"] == 5
    assert five.holds is True
    # one resolved state fewer: too few to fit a rate
    angles[5] = ANGLE_RESOLUTION / 10
    four = TURNS(_turning(norms, angles), REFERENCE, np.array(norms))
    assert four.decision.figures["resolved_states"] == 4
    assert four.holds is None


def test_turns_does_not_count_an_angle_at_the_resolution() -> None:
    norms = np.array([TURN_START, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    angles = [1e-3 * (2 / n) ** 3 for n in norms[:5]]
    u = _turning(list(norms), [*angles, 0.0, 0.0])
    u[5] = _at_resolution(6.0)
    u[6] = [0.0, 7.0]
    applied = TURNS(u, REFERENCE, norms)
    assert applied.decision.figures["resolved_states"] == 5


def test_turns_needs_a_rate_strictly_below_the_exponent() -> None:
    norms = [TURN_START, 3.0, 4.0, 5.0, 6.0, 7.0]
    angles = [1e-3 * (2 / n) ** 3 for n in norms[:5]] + [ANGLE_RESOLUTION / 10]
    u = _turning(norms, angles)
    fitted = TURNS(u, REFERENCE, np.array(norms))
    assert fitted.holds is True
    rate = fitted.decision.figures["angle_exponent"]
    assert rate == pytest.approx(-3.0, abs=1e-6)
    assert TURNS(u, REFERENCE, np.array(norms), rate).holds is False
    assert TURNS(u, REFERENCE, np.array(norms), np.nextafter(rate, 0.0)).holds is True


def test_proof_invariants_accept_values_exactly_at_the_slack() -> None:
    """|w1[1]| may end at −slack and v1 at v1(0) − slack: both are within the integrator's tolerance."""
    start = 1.0
    rows = np.column_stack([np.zeros(3), [1.0, 0.5, -INVARIANT_SLACK], [0.0, 1.0, 2.0],
                            [start, 2.0, start - INVARIANT_SLACK], np.full(3, start)])
    applied = PROOF_INVARIANTS(0.0, rows, 1e-7)
    assert applied.holds is True, applied.decision.detail
    rows[2, 1] = np.nextafter(-INVARIANT_SLACK, -1.0)
    assert PROOF_INVARIANTS(0.0, rows, 1e-7).decision.figures["w1[1] < 0"] == 1


def test_frozen_and_active_coordinates_are_neurons_two_and_one() -> None:
    """The coordinates of (w2, v2) and (w1, v1) in θ, read from the model's own layer layout."""
    c = C.construction("thm3.2")
    first, second = c.float_model.split(np.arange(6.0))
    width = len(second)

    def neuron(j: int) -> list[int]:
        return sorted(int(k) for k in (*first.reshape(width, -1)[j], second[j]))

    assert FROZEN_COORDINATES == neuron(1)
    assert ACTIVE_COORDINATES == neuron(0)


def test_frozen_neuron_gradient_vanishes_on_the_region() -> None:
    gradient = frozen_neuron_gradient(C.construction("thm3.2").X)
    assert gradient.shape == (2, 3)
    assert gradient.is_zero_matrix


def test_hypotheses_hits_are_strict_and_agree_with_the_per_draw_test() -> None:
    X = np.array([[1.0, 0.25], [-1.0, 0.25]])
    good = [0.0, 1.0, 0.0, -1.0, 1.0, 0.0]  # ⟨w1, x_i⟩ = 1/4, ⟨w2, x_i⟩ = −1/4, v1 = 1
    edges = [[1.0, 4.0, 0.0, -1.0, 1.0, 0.0],  # ⟨w1, x_2⟩ = 0
             [0.0, 1.0, 1.0, -4.0, 1.0, 0.0],  # ⟨w2, x_1⟩ = 0
             [0.0, 1.0, 0.0, -1.0, 0.0, 0.0]]  # v1 = 0
    random = C.xavier_initializations(np.random.default_rng(3), 20_000)
    sample = np.vstack([good, *edges, random])
    expected = sum(C.in_thm32_hypotheses(theta, X) for theta in sample)
    assert hypotheses_hits(sample, X) == expected
    assert hypotheses_hits(np.array([good, *edges]), X) == 1


def test_first_layer_shorter_compares_the_first_layer() -> None:
    """Theorem 5.3's point with W1 doubled and v halved (the same network): its first layer, of ‖W1‖² = 16, still
    has a shorter per-layer optimum; the output layer's ‖v‖² = 1 is not the norm compared."""
    from theorems.margin_maximization.constructions_deep import FIRST_LAYER_SHORTER

    rescaled = C.with_parameters(C.document("thm5.3"), [[[0, 2], [2, 0], [0, -2], [-2, 0]],
                                                        [["1/2", "1/2", "1/2", "1/2"]]])
    applied = FIRST_LAYER_SHORTER(C.edited("W1 doubled, v halved", rescaled))
    assert applied.decision.figures["layer_squared_norm"] == "16"
    assert applied.holds is True


def test_relu_margin_step_reports_a_failure_below_the_printed_value() -> None:
    from theorems.margin_maximization.constructions_depth2 import paper_relu_margin_step

    fails, _, _, excess = paper_relu_margin_step(slope=100)
    assert excess < 0 and fails  # Φ_ReLU(1/4) < 1 + 100/4: the printed equality fails from below


def test_relu_margin_step_needs_only_the_output_weights_positive() -> None:
    """On (0, 3/2] v' > 0 still holds (v_2' vanishes at ε = 2) though w'[2] = 1 − ε does not."""
    from theorems.margin_maximization.constructions_depth2 import paper_relu_margin_step

    assert paper_relu_margin_step(upto=sympy.Rational(3, 2))[1]


def test_shorter_refuses_a_point_of_equal_norm() -> None:
    """Lemma C.6's θ̃ itself is feasible with ‖θ̃‖² = 10: not shorter than 10."""
    from theorems.margin_maximization.constructions_depth2 import SHORTER, _point

    applied = SHORTER(_point("θ̃ of Lemma C.6", [[[0, 2], [0, -1]], [[2, 1]]]), 10)
    assert applied.decision.figures["squared_norm"] == "10"
    assert applied.holds is False
