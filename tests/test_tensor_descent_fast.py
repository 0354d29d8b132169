"""The compiled descent of linear tensor networks (numerics.compiled_descent, through batched_gradient_descent)
against the numpy reference (numerics.descent.gradient_descent on a LinearTensorNetwork): the same iterates and
losses at the checkpoints to rounding over 10⁴ steps, for the diagonal, convolutional and fully-connected networks
and the losses the kernel supports; and the chunk of tensor.exp.classification that runs the paper's GD in it."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import compiled_descent
from numerics.descent import batched_gradient_descent, gradient_descent, resolve_engine
from numerics.losses import Objective
from numerics.tensor_network import (
    LinearTensorNetwork,
    convolutional_tensor,
    diagonal_tensor,
    fully_connected_tensor,
)

STEPS, EVERY = 10_000, 1000
RELATIVE = 1e-12  # iterates and losses, relative to the iterate's largest entry and to the loss


def _assert_same_descent(objective: Objective, theta0: np.ndarray, eta: float, compared: tuple[int, ...]) -> None:
    batched = batched_gradient_descent(objective, theta0, STEPS, eta, record_every=EVERY, record_iterates=True,
                                       engine="compiled")
    assert batched.steps.tolist() == list(range(0, STEPS + 1, EVERY))
    assert batched.iterates.shape == (STEPS // EVERY + 1, *theta0.shape) and batched.loss.shape == (11, len(theta0))
    for run in compared:
        reference = gradient_descent(objective, theta0[run], STEPS, eta, record_every=EVERY)
        scale = np.max(np.abs(reference.theta), axis=1, keepdims=True)
        assert np.max(np.abs(reference.theta - batched.iterates[:, run]) / scale) < RELATIVE
        assert np.max(np.abs(reference.loss - batched.loss[:, run]) / reference.loss) < RELATIVE
        assert np.array_equal(batched.iterates[-1, run], batched.theta[run])
        assert np.max(np.abs(reference.theta[-1] - reference.theta[0])) > 1e-3 * scale[-1, 0]  # it moved


X2 = np.array([[1.0, 2.0], [0.0, -3.0]])  # tensor.exp.classification's data
Y2 = np.array([1.0, -1.0])


@pytest.mark.parametrize("network", [fully_connected_tensor([2, 2]), diagonal_tensor(2, 2),
                                     convolutional_tensor(2, [2])], ids=["fully connected", "diagonal",
                                                                         "convolutional"])
def test_the_classification_experiment_networks(network: LinearTensorNetwork) -> None:
    """The claim's networks, data and loss at its step size; runs of different scales side by side."""
    rng = np.random.default_rng(1)
    theta0 = rng.standard_normal((3, network.n_params)) * np.array([[1.0], [0.5], [0.01]])
    _assert_same_descent(Objective(network, X2, Y2, "exponential"), theta0, 5e-4, (0, 2))


@pytest.mark.parametrize("network, loss, mean, eta", [
    (diagonal_tensor(3, 3), "logistic", False, 0.05),
    (convolutional_tensor(4, [2, 3]), "square", True, 0.02),  # short filters: several entries of M per β_k
    (fully_connected_tensor([3, 2, 2]), "exponential", True, 0.05),
], ids=["diagonal depth 3, logistic", "convolutional depth 3, square mean", "fully connected depth 3, exp mean"])
def test_deeper_networks_and_other_losses(network: LinearTensorNetwork, loss: str, mean: bool, eta: float) -> None:
    rng = np.random.default_rng(2)
    X = rng.standard_normal((2 * network.d_in, network.d_in))  # square loss: no interpolation, L stays ≫ rounding
    Y = X[:, :1] ** 2 + 0.5 if loss == "square" else np.sign(X[:, 0])
    theta0 = 0.6 * rng.standard_normal((2, network.n_params))
    _assert_same_descent(Objective(network, X, Y, loss, mean=mean), theta0, eta, (1,))


def test_a_dense_tensor_with_general_entries() -> None:
    """Every entry of M nonzero and not 1: the coefficients enter the products as in the reference's einsums."""
    rng = np.random.default_rng(3)
    network = LinearTensorNetwork(rng.standard_normal((3, 2, 3)))
    X = rng.standard_normal((5, 3))
    objective = Objective(network, X, np.sign(X[:, 1]), "logistic")
    _assert_same_descent(objective, 0.5 * rng.standard_normal((2, network.n_params)), 0.02, (0,))


def test_architecture_and_engine_resolution() -> None:
    objective = Objective(convolutional_tensor(2, [2]), X2, Y2, "exponential")
    arch = compiled_descent.architecture(objective)
    assert isinstance(arch, compiled_descent.TensorArchitecture)
    assert arch.sizes == (2, 2) and arch.offsets == (0, 2, 4) and len(arch.entries) == 4
    assert arch.entries[0] == (0, (0, 0), 1.0) and arch.products == 2 * 2 * 2 + 4 * (4 + 2)
    assert "T0_1 = m1" in compiled_descent.kernel_source(arch)
    assert resolve_engine(objective, "auto") == ("compiled", "cpu")  # a tensor network has only this engine
    with pytest.raises(TypeError, match="Network"):
        batched_gradient_descent(objective, np.ones((2, 4)), 10, 0.1, engine="torch", device="cpu")
    big = Objective(fully_connected_tensor([8, 8, 8]), np.ones((4, 8)), np.ones(4), "logistic")
    assert not compiled_descent.supports(big)  # 2·4·8 + 512·(6 + 6) products per step: not tiny


def test_the_claims_descent_chunks_record_the_reference_checkpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    """tensor.exp.classification's at_horizon, shortened to 2000 steps: each start's states are the reference run's
    iterates at the checkpoints, in the order of the starts (the runs of a network are batched together)."""
    from theorems.tensor_networks import experiment_classification as experiment

    steps = 2000
    monkeypatch.setattr(experiment, "STEPS", steps)
    rng = np.random.default_rng(4)
    starts = [(name, scale * experiment.initial_directions(name, rng.standard_normal(2)))
              for scale in (1.0, 0.5) for name in experiment.NETWORKS]  # networks interleaved
    states = experiment.at_horizon(starts, checkpoints=10)
    assert len(states) == len(starts)
    for (name, theta0), got in zip(starts, states):
        objective = Objective(experiment.NETWORKS[name], experiment.X, experiment.Y, "exponential")
        reference = gradient_descent(objective, theta0, steps, experiment.STEP, record_every=steps // 10).theta
        assert got.shape == reference.shape
        assert np.max(np.abs(got - reference)) < RELATIVE * np.max(np.abs(reference))


def test_the_regression_experiments_runs_match_the_reference() -> None:
    """tensor.exp.regression's gd_runs (square loss on x = [1, 2], the paper's η and T, and the half-step run of the
    Richardson extrapolation) against the numpy reference, one start per network at two scales."""
    from theorems.tensor_networks import experiment_regression as experiment

    rng = np.random.default_rng(6)
    for name, network in experiment.NETWORKS.items():
        objective = Objective(network, experiment.X, experiment.Y[:, None], "square")
        theta_bar = experiment.initial_directions(name, rng.standard_normal(2))
        starts = np.array([1.0 * theta_bar, 0.01 * theta_bar])
        runs = experiment.gd_runs(objective, starts)
        for theta0, (path, half_step_end) in zip(starts, runs):
            reference = gradient_descent(objective, theta0, experiment.STEPS, experiment.STEP, record_every=50)
            assert path.shape == reference.theta.shape
            assert np.max(np.abs(path - reference.theta)) < RELATIVE * np.max(np.abs(reference.theta))
            half = gradient_descent(objective, theta0, 2 * experiment.STEPS, experiment.STEP / 2,
                                    record_every=2 * experiment.STEPS).final
            assert np.max(np.abs(half_step_end - half)) < RELATIVE * np.max(np.abs(half))
