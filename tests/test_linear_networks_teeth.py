"""Deep linear network tools, pinned where the closed-form tests leave room: the rank-one excess is the sum of the
squared trailing singular values (σ₂ ≠ 1), alignments are cosines never above 1 even when rounding puts the raw
inner product of two unit vectors above 1, and a flow run starts at θ(0) whether or not ``times`` begins with 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from numerics.linear_networks import balanced_initialization, layer_state, layer_states, run_flow
from numerics.losses import Objective
from numerics.networks import fully_connected


def test_rank_one_excess_is_the_sum_of_squared_trailing_singular_values():
    W = np.diag([3.0, 2.0, 0.5])  # F² − σ₁² = 4 + 1/4
    state = layer_state([W, np.array([[1.0, 0.0, 0.0]])])
    assert state.rank_one_excess[0] == pytest.approx(4.25, rel=1e-14)
    assert state.rank_one_gap[0] == pytest.approx(1 - 3 / np.sqrt(13.25), rel=1e-13)
    assert state.rank_one_excess[1] == 0.0


def test_alignments_are_cosines_even_when_rounding_exceeds_one():
    """Seed 1 of widths [5, 4, 3, 1]: the raw |⟨v₃, u₂⟩| of the computed unit vectors is 1 + 2⁻⁵² in floats."""
    state = layer_state(balanced_initialization([5, 4, 3, 1], np.random.default_rng(1), 1.0))
    raw = [abs(float(state.right[k + 1] @ state.left[k])) for k in range(2)]
    assert max(raw) > 1.0  # the premise: rounding pushes an inner product of unit vectors past 1
    assert np.all(state.alignments <= 1.0)
    np.testing.assert_allclose(state.alignments, 1.0, rtol=1e-15)


def small_run(times: np.ndarray):
    X = np.array([[1.0, 0.5], [-0.5, -1.0]])
    objective = Objective(fully_connected([2, 2, 1], "linear"), X, np.array([1.0, -1.0]), "exponential")
    layers = balanced_initialization([2, 2, 1], np.random.default_rng(3), 0.5)
    return run_flow("run", objective, np.concatenate([W.ravel() for W in layers]), times), layers


def test_run_flow_starts_at_theta0_whether_or_not_times_begin_with_zero():
    with_zero, layers = small_run(np.array([0.0, 1.0, 4.0]))
    assert with_zero.t.tolist() == [0.0, 1.0, 4.0] and len(with_zero.states) == 3  # 0 is not repeated
    for W, W0 in zip(with_zero.initial_layers, layers):
        np.testing.assert_array_equal(W, W0)
    without_zero, _ = small_run(np.array([1.0, 4.0]))
    assert without_zero.t.tolist() == [0.0, 1.0, 4.0]
    for W, W0 in zip(without_zero.initial_layers, layers):
        np.testing.assert_array_equal(W, W0)
    assert not np.array_equal(without_zero.states[-1].layers[0], layers[0])  # the flow moved: the last state differs


def test_layer_states_refuse_checkpoints_of_different_depths() -> None:
    """A checkpoint with a layer more or less than the others is refused, in either order (it was read with the
    first checkpoint's depth: a shorter one failed on a missing layer, a longer one lost its extra layers)."""
    two, three = [np.eye(2), np.ones((1, 2))], [np.eye(2), np.eye(2), np.ones((1, 2))]
    for checkpoints in ([two, three], [three, two], [two, two, three]):
        with pytest.raises(ValueError, match=r"same number of layers, got \[2, 3\]"):
            layer_states(checkpoints)
    assert len(layer_states([three, three])) == 2 and layer_state(two).frobenius.shape == (2,)
