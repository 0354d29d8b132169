"""Deep linear network tools against closed forms."""

import numpy as np
import pytest
import sympy

from numerics.linear_networks import (
    balanced_initialization,
    chain,
    end_to_end,
    layer_state,
    layer_states,
    orthogonal_part,
    run_flow,
)
from numerics.losses import Objective
from numerics.networks import fully_connected


def test_chain_and_end_to_end_are_the_layer_product():
    a, b = sympy.symbols("a b")
    W1, W2 = sympy.Matrix([[a, 0], [0, b]]), sympy.Matrix([[1, 2]])
    assert chain([W1, W2]) == sympy.Matrix([[a, 2 * b]]) and chain([]) is None
    layers = [np.arange(6.0).reshape(2, 3), np.array([[1.0, -1.0]])]
    assert np.array_equal(end_to_end(layers), (layers[1] @ layers[0]).ravel())


@pytest.mark.parametrize("seed", [0, 1])
def test_balanced_initialization_is_balanced_rank_one_and_aligned(seed):
    layers = balanced_initialization([4, 3, 2, 1], np.random.default_rng(seed), 0.7)
    for lower, upper in zip(layers, layers[1:]):
        np.testing.assert_allclose(lower @ lower.T, upper.T @ upper, atol=1e-15)
    state = layer_state(layers)
    np.testing.assert_allclose(state.frobenius, 0.7, rtol=1e-14)
    np.testing.assert_allclose(state.rank_one_gap, 0.0, atol=1e-14)
    np.testing.assert_allclose(state.alignments, 1.0, rtol=1e-14)
    assert state.product_alignment == pytest.approx(1.0, rel=1e-14)


def test_layer_state_of_misaligned_layers():
    W1 = np.array([[1.0, 0.0], [0.0, 0.0]])  # u_1 = e_1
    W2 = np.array([[0.0, 2.0]])  # v_2 = e_2: orthogonal to u_1
    state = layer_state([W1, W2])
    assert state.alignments[0] == pytest.approx(0.0, abs=1e-15) and np.array_equal(state.w_prod, [0.0, 0.0])
    full = layer_state([np.eye(2), W2])  # ‖I‖_F² − ‖I‖_2² = 1: gap 1 − 1/√2
    assert full.rank_one_excess[0] == pytest.approx(1.0) and full.rank_one_gap[0] == pytest.approx(1 - 2**-0.5)


def test_layer_states_of_many_checkpoints_are_the_single_ones():
    rng = np.random.default_rng(4)
    checkpoints = [[rng.normal(size=(3, 2)), rng.normal(size=(1, 3))] for _ in range(7)] + [[np.zeros((3, 2)),
                                                                                            np.ones((1, 3))]]
    states = layer_states(checkpoints)
    assert len(states) == 8 and layer_states([]) == ()
    for state, layers in zip(states, checkpoints):
        single = layer_state(layers)
        for name in ("frobenius", "spectral", "alignments", "w_prod"):
            assert np.array_equal(getattr(state, name), getattr(single, name)), name
        assert all(np.array_equal(a, b) for a, b in zip(state.left + state.right, single.left + single.right))


def test_orthogonal_part_removes_the_direction():
    u = np.array([0.6, 0.8])
    rows = np.array([[1.0, 0.0], [0.6, 0.8]])
    parts = orthogonal_part(rows, u)
    np.testing.assert_allclose(parts @ u, 0.0, atol=1e-15)
    np.testing.assert_allclose(parts[1], 0.0, atol=1e-15)


def test_run_flow_records_layer_states_and_decreases_the_risk():
    X = np.array([[1.0, 0.5], [-0.5, -1.0]])
    net = fully_connected([2, 2, 1], "linear")
    objective = Objective(net, X, np.array([1.0, -1.0]), "exponential")
    theta0 = np.concatenate([W.ravel() for W in balanced_initialization([2, 2, 1], np.random.default_rng(3), 0.5)])
    run = run_flow("balanced", objective, theta0, np.array([1.0, 10.0, 100.0]))
    assert run.t.tolist() == [0.0, 1.0, 10.0, 100.0] and len(run.states) == 4
    assert np.all(np.diff(run.risks) < 0)
    np.testing.assert_allclose(run.series(lambda s: s.rank_one_gap[0]), 0.0, atol=1e-7)  # balanced stays rank one
