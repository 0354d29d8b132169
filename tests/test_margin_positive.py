"""Paper 001's positive-result oracles (theorems/margin_maximization/positive_oracles.py, lemmas_c.py) against
closed forms: the group lasso on diagonal networks is the ℓ1 max margin, the saddle instance, the per-layer problem at
an exactly per-layer-optimal point, the cost bound of the capped flow, and the AM–GM search of Lemma C.5."""

import numpy as np
import pytest
import sympy

from numerics.convex import max_margin
from numerics.exact import to_exact
from numerics.networks import diagonal, fully_connected
from theorems.margin_maximization import common as C
from theorems.margin_maximization import positive_oracles as P
from theorems.margin_maximization.definitions import (
    flow_path,
    layer_is_linear,
    locally_connected,
    teacher_data,
    unit_balance,
)
from theorems.margin_maximization.lemmas_c import worst_slack


def test_group_lasso_of_a_diagonal_network_is_the_l1_max_margin():
    rng = np.random.default_rng(0)
    X, y = teacher_data(rng, 6, 3)
    lasso = P.group_lasso(diagonal(3, 2, "linear"), X, y)
    lp = max_margin(X, y, norm="l1")
    assert lasso.status == "solved" and lp.status == "certified"
    assert lasso.objective == pytest.approx(lp.objective, rel=1e-7)


def test_unit_features_are_the_receptive_fields_and_the_pattern_masks_them():
    net = locally_connected([[0, 1], [1, 2], [2, 3]], 4, "relu")
    X = np.arange(8.0).reshape(2, 4)
    F = P.unit_features(net, X)
    blocks = P.neuron_blocks(net)
    for j, field in enumerate(([0, 1], [1, 2], [2, 3])):
        np.testing.assert_array_equal(F[:, blocks.incoming[j]], X[:, field])
    masked = P.unit_features(net, X, np.array([[1, 0, 1], [0, 1, 1]]))
    assert not masked[0, blocks.incoming[1]].any() and not masked[1, blocks.incoming[0]].any()
    np.testing.assert_array_equal(masked[0, blocks.incoming[0]], X[0, [0, 1]])


def test_neuron_products_and_the_balanced_value():
    net = diagonal(2, 2, "linear")
    theta = np.array([1.0, -2.0, 3.0, 0.5])  # w = (1, −2), v = (3, 1/2)
    np.testing.assert_allclose([u[0] for u in P.neuron_products(net, theta)], [3.0, -1.0])


def test_saddle_instance_is_stationary_with_loss_log_2():
    s = P.saddle_instance()
    assert s.gradient_is_zero
    assert s.loss("logistic") == sympy.log(2) and s.loss("exponential") == 1


def test_layer_problem_at_an_exact_per_layer_optimum_and_off_it():
    c = C.construction("thm4.1-linear")
    X, y = np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float)
    theta = np.asarray(c.theta, dtype=float)
    for layer in range(2):
        assert P.layer_problem(c.float_model, theta, X, y, layer).relative_gap < 1e-8
    moved = theta + np.array([0.0, 0.3, 0.0, 0.0])
    assert P.layer_problem(c.float_model, moved, X, y, 1).relative_gap > 1e-2


def test_flow_path_stops_at_the_norms_and_respects_its_bound():
    rng = np.random.default_rng(1)
    X, y = teacher_data(rng, 5, 3)
    net = fully_connected([3, 2, 1], "linear")
    theta0 = rng.normal(size=net.n_params)
    path = flow_path(net, X, y, theta0, "exponential", (10.0, 30.0), max_evaluations=20_000)
    np.testing.assert_allclose([np.linalg.norm(p.final) for p in path], [10.0, 30.0], rtol=1e-6)
    assert flow_path(net, X, y, theta0, "exponential", (10.0,), max_evaluations=5) == []


def test_fan_instance_and_the_loss_threshold():
    net, X, y, theta0 = P.fan_instance(np.random.default_rng(2))
    assert net.n_params == theta0.size and np.all(y == 1) and np.all(X[:, 1] > 0)
    assert np.all(theta0[6:] > 0)  # positive deeper layers
    one = fully_connected([1, 1], "linear")
    X1, y1 = np.ones((1, 1)), np.ones(1)
    assert P.below_threshold(one, X1, y1, "exponential", np.array([0.01]))  # e^(−0.01) < 1
    assert not P.below_threshold(one, X1, y1, "logistic", np.array([0.0]))  # log 2 is not < log 2
    assert P.below_threshold(one, X1, y1, "logistic", np.array([0.01]))


def test_am_gm_search_and_its_controls():
    rng = np.random.default_rng(3)
    assert worst_slack(rng, 3, 3, 1.0, 5000) >= -1e-12
    assert worst_slack(rng, 3, 4, 1.0, 5000) < -0.5  # the constant m + 1 fails at a_j = C
    assert worst_slack(rng, 3, 3, -1.0, 5000) < -0.5  # C < 0: a = 0 satisfies the hypothesis


class ScalarOfInnerProduct:
    """A one-layer model Φ(θ; x) = f(⟨θ, x⟩), exact or symbolic as θ is: the per-layer linearity test's cases."""

    sizes, d_in, d_out = [2], 2, 1

    def __init__(self, f):
        self.f = f

    def forward(self, theta, X):
        return np.array([[self.f(np.dot(x, theta))] for x in X], dtype=object)


def relu(z):
    return z if z > 0 else 0 * z


def test_layer_linearity_is_decided_exactly_or_left_open():
    """margin.def.problem4's criterion: a linear form in symbolic u is linear (certified), a square or an offset is
    not; a ReLU of u is refuted by an exact additivity failure; a ReLU of u that cancels (relu(z) − relu(−z) = z) is
    undecided, not passed."""
    X, theta = np.array([[1, 2], [3, -1]]), np.array([1, 1])
    assert layer_is_linear(ScalarOfInnerProduct(lambda z: 3 * z), theta, 0, X).holds is True
    assert layer_is_linear(ScalarOfInnerProduct(lambda z: z**2), theta, 0, X).holds is False
    assert layer_is_linear(ScalarOfInnerProduct(lambda z: z + 1), theta, 0, X).holds is False
    refuted = layer_is_linear(ScalarOfInnerProduct(relu), theta, 0, X)
    assert refuted.holds is False and "q = −u" in refuted.detail
    assert layer_is_linear(ScalarOfInnerProduct(lambda z: relu(z) - relu(-z)), theta, 0, X).holds is None
    lemma_c6 = C.construction("lemC.6")
    assert layer_is_linear(lemma_c6.model, lemma_c6.theta, 1, lemma_c6.X).holds is True
    assert layer_is_linear(lemma_c6.model, lemma_c6.theta, 0, lemma_c6.X).holds is False


def test_unit_balance_checks_every_hidden_unit():
    """‖w_in‖² = ‖w_out‖² for each hidden unit of a depth-2 network: the third unit alone breaks it."""
    net = fully_connected([2, 3, 1], "relu")  # θ = W1 (3 × 2, row by row), then v (3)
    balanced = [3, 4, 0, 1, 1, 0, 5, 1, -1]
    assert unit_balance(net, to_exact(balanced))
    assert not unit_balance(net, to_exact(balanced[:8] + [2]))
    assert not unit_balance(net, to_exact([3, 4, 0, 1, 1, 0, 4, 1, -1]))


@pytest.mark.parametrize(("patches", "activation", "peak"), [
    ([[1, 0], [1, 0]], "relu", 2),  # every patch active: the chamber of all of them
    ([[3, 4], [3, 4], [3, 4]], "relu", 75),  # n equal patches p: n‖p‖²
    ([[1, 0], [-1, 0]], "relu", 1),  # opposite patches: one active at a time
    ([[1, 0], [0, 1]], "linear", 1),  # Σ_j ⟨w, p_j⟩² on the unit circle: the top eigenvalue of I
    ([[2, 0], [0, 1]], "linear", 4),
])
def test_shared_filter_peak_closed_forms(patches, activation, peak) -> None:
    """μ² = max over unit w of Σ_j σ(⟨w, p_j⟩)², exactly, on instances with a closed form."""
    from theorems.margin_maximization.derived import shared_filter_peak

    assert shared_filter_peak(np.array(patches), activation) == peak


def test_a_claims_figures_do_not_depend_on_the_claims_run_before_it_in_the_process() -> None:
    """margin.lemC.6's figures after margin.rem3.1 (programs of the same shapes) in one process equal those of a
    fresh process: the cached convex programs are solved afresh (warm_start=False). The mutation oracle compares
    figures across processes with different histories; a warm start moved the layer optimum's last digits."""
    import json
    import subprocess
    import sys

    from verify import registry
    from verify.runner import reported_figures, run_claim

    script = ("import json; from verify import registry; from verify.runner import reported_figures, run_claim; "
              "print(json.dumps(reported_figures(run_claim(registry.get('margin.lemC.6')))))")
    fresh = json.loads(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                      check=True).stdout)
    run_claim(registry.get("margin.rem3.1"))
    assert json.loads(json.dumps(reported_figures(run_claim(registry.get("margin.lemC.6"))))) == fresh


def test_patches_family_witness_interval_is_half_the_flip_point() -> None:
    """Theorem 4.4's family: the ReLU curve keeps the second patch on while a√ε < (1 − ε)/√2, i.e. below
    ε* = ((√(2a² + 4) − √2 a)/2)²; the document's ε0 sits about halfway (ε*/ε0 ∈ (1.8, 2.5)) for a = 1, 4, 100, so
    the interval is neither past the flip nor needlessly short. The linear family keeps the file's ε0 = 1/4, inside
    (0, 1/2) where ‖θ'‖² = 2 − ε/2 + ε² < 2."""

    def eps_max(doc: dict) -> sympy.Rational:
        return next(sympy.Rational(p["witness"]["eps_max"]) for p in doc["properties"] if "witness" in p)

    for a in (1, 4, 100):
        flip = ((sympy.sqrt(2 * a**2 + 4) - sympy.sqrt(2) * a) / 2) ** 2
        ratio = float(flip / eps_max(C.patches_family_document(a)))
        assert 1.8 < ratio < 2.5, (a, ratio)
    assert eps_max(C.patches_family_document("1/2", "linear")) == sympy.Rational(1, 4)


def test_kkt_identities_refuse_a_point_that_is_not_kkt() -> None:
    """The identities are consequences of stationarity: on Theorem 3.2's θ̃ plus a dead neuron with non-zero
    weights (feasible, exact, not stationary) they are refused, not computed."""
    from theorems.margin_maximization.constructions import NOT_KKT
    from theorems.margin_maximization.derived import kkt_identities

    c = C.construction("thm3.2")
    theta = c.model.join([to_exact(layer) for layer in NOT_KKT])
    refused = kkt_identities(c.model, theta, c.X, c.Y)
    assert refused.status == "not_kkt" and refused.exact and not refused.kkt
    assert not (refused.euler or refused.layers)
    assert kkt_identities(c.model, c.theta, c.X, c.Y).euler


def test_same_multipliers_refuses_the_infeasible_origin() -> None:
    """At θ = 0 every margin is 0: the KKT test answers 'infeasible' exactly with zero multipliers, and every layer
    u = 0 equals Σλ_i y_i ∂Φ/∂u trivially; only the status check refuses it."""
    from theorems.margin_maximization.definitions import same_multipliers

    origin = C.edited("Theorem 3.2's network at θ = 0",
                      C.with_parameters(C.document("thm3.2"), [[[0, 0], [0, 0]], [[0, 0]]]))
    assert not same_multipliers(origin)
    assert same_multipliers("thm3.2")
