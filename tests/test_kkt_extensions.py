"""KKT tools added for `verify check`: witness curves proved for all ε, second-order sufficiency, and the
per-layer problem as a degree-1 model (also a regression test for exact arithmetic in weight-sharing layers)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from sympy import Rational as Q
from sympy import root, sqrt

from numerics import exact as E
from numerics import kkt
from numerics.exact import to_exact
from numerics.networks import Dense, Network, diagonal, disjoint_patches, fully_connected
from numerics.tensor_network import convolutional_tensor

eps = sympy.Symbol("eps", positive=True)
RELU = fully_connected([2, 2, 1], "relu")
X, Y = to_exact([[1, Q(1, 4)], [-1, Q(1, 4)]]), to_exact([1, 1])
KKT_POINT = to_exact([0, 2, 0, 0, 2, 0])  # w1 = (0, 2), v1 = 2, neuron 2 off
CURVE = [eps / 2, 2 - 2 * eps, -sqrt(2 * eps), 0, 2, sqrt(2 * eps)]  # ‖θ'‖² = 8 − 4ε + 17ε²/4


def test_witness_curve_is_proved_for_every_epsilon():
    witness = kkt.certify_witness_curve(RELU, KKT_POINT, X, Y, CURVE, eps, Q(1, 4))
    assert witness.certified, witness.message
    assert witness.margins == (1, 1)
    assert sympy.simplify(witness.improvement - (4 * eps - Q(17, 4) * eps**2)) == 0
    assert sympy.simplify(witness.distance_squared - (4 * eps + Q(17, 4) * eps**2)) == 0
    np.testing.assert_allclose(witness.direction, [0, 0, -2**-0.5, 0, 0, 2**-0.5], atol=1e-5)


@pytest.mark.parametrize("curve, upper, reason", [
    ([eps / 2, 2 - 2 * eps, -sqrt(eps), 0, 2, sqrt(eps)], Q(1, 4),
     "infeasible: the margin of sample 1, 1 - eps, is < 1"),
    ([(1 + eps) * v for v in KKT_POINT], 1, "not better"),  # feasible, tends to θ, but longer
    (CURVE, Q(3, 4), "neuron 0 of hidden layer 1 on sample 1"),  # 1/2 − ε changes sign at 1/2
    ([1, Q(1, 4), -1, Q(1, 4), 1, 1], Q(1, 4), "does not tend to θ"),  # a fixed better point, not a curve to θ
])
def test_witness_curve_failures_say_where(curve, upper, reason):
    witness = kkt.certify_witness_curve(RELU, KKT_POINT, X, Y, curve, eps, upper)
    assert not witness.certified and reason in witness.message, witness.message


def test_witness_curve_on_a_deep_diagonal_network_with_cube_roots():
    net, c = diagonal(2, 3, "linear"), 1 / root(2, 3)
    curve = [((1 + eps) / 2) ** Q(1, 3), ((1 - eps) / 2) ** Q(1, 3)] * 3
    witness = kkt.certify_witness_curve(net, np.array([c] * 6, dtype=object), to_exact([[1, 1]]), to_exact([1]),
                                        curve, eps, Q(1, 2))
    assert witness.certified, witness.message


def test_second_order_sufficiency():
    """The balanced one-neuron-per-sample point of the hand data is a strict local minimum; the saddle of a
    diagonal network is not; a linear network's optimum has flat rotations, so only the necessary condition."""
    a, norm = 2 / root(17, 4), sqrt(17) / 4
    optimum = np.array([a / norm, a / 4 / norm, -a / norm, a / 4 / norm, a, a], dtype=object)
    result = kkt.second_order_check(RELU, optimum, X, Y)
    assert result.status == "satisfied" and result.sufficient and result.exact
    saddle = kkt.second_order_check(diagonal(2, 2), to_exact([1, 0, 1, 0]), to_exact([[1, 4]]), to_exact([1]))
    assert saddle.status == "violated" and not saddle.sufficient
    flat = kkt.second_order_check(fully_connected([2, 2, 1], "linear"), to_exact([1, 0, 0, 0, 1, 0]),
                                  to_exact([[1, 0]]), to_exact([1]))
    assert flat.status == "satisfied" and not flat.sufficient
    floating = kkt.second_order_check(RELU, E.to_exact(optimum).astype(float), X.astype(float), Y.astype(float))
    assert floating.sufficient and not floating.exact


def test_layer_restriction_is_the_network_with_one_layer_free():
    theta = to_exact([1, 2, 3, 4, 5, 6])
    restriction, u = kkt.restrict_to_layer(RELU, theta, 0)
    assert restriction.degree == 1 and restriction.n_params == 4 and list(u) == [1, 2, 3, 4]
    assert np.array_equal(restriction.forward(u, X), RELU.forward(theta, X))
    assert np.array_equal(restriction.forward(3 * u, X), 3 * RELU.forward(theta, X))  # 1-homogeneous
    assert np.array_equal(restriction.jacobian(u, X), RELU.jacobian(theta, X)[..., :4])
    floating, _ = kkt.restrict_to_layer(RELU, theta.astype(float), 1)
    np.testing.assert_allclose(floating.forward(np.array([5.0, 6.0]), X.astype(float)),
                               B_float(RELU.forward(theta, X)))
    with pytest.raises(ValueError, match="layer"):
        kkt.restrict_to_layer(RELU, theta, 2)


def B_float(values):
    return np.asarray(values, dtype=float)


def test_first_layer_of_theorem_5_3_is_not_a_local_minimum_of_its_problem():
    """±e1, ±e2 with w_j = x_j, v = 1: rotating the first layer alone lowers ‖W1‖² (first order)."""
    net = fully_connected([2, 4, 1], "relu")
    X4, Y4 = to_exact([[0, 1], [1, 0], [0, -1], [-1, 0]]), to_exact([1, 1, 1, 1])
    theta = to_exact([0, 1, 1, 0, 0, -1, -1, 0, 1, 1, 1, 1])
    restriction, u = kkt.restrict_to_layer(net, theta, 0)
    float_restriction, _ = kkt.restrict_to_layer(net, theta.astype(float), 0)
    search = kkt.local_search(float_restriction, u.astype(float), X4.astype(float), Y4.astype(float), 0.01)
    assert search.improved
    witness = kkt.certify_witness(restriction, u, X4, Y4, search.best, Q(1, 100))
    assert witness.certified and witness.reference_squared_norm == 4


@pytest.mark.parametrize("model", [Network((disjoint_patches(2, 2), Dense(1, 2)), "relu"),
                                   convolutional_tensor(2, [2])], ids=["shared", "tensor"])
def test_weight_sharing_layers_keep_exact_numbers_exact(model):
    """Their 0/1 bases used to enter object arrays as floats, turning 1/3 into 0.333… (a sympy Float)."""
    theta = to_exact([Q(1, 3)] * model.n_params)
    X1 = to_exact([[Q(1, 3)] * model.d_in])
    values = list(model.forward(theta, X1).ravel()) + list(model.jacobian(theta, X1).ravel())
    assert all(isinstance(v, sympy.Rational) for v in values), values


def test_lagrangian_curvature_along_a_direction():
    """Depth-2 diagonal linear net on x = (1, 2) at w1 = w2 = (1, 0), λ = 1: H = I − [[0, D], [D, 0]] with
    D = diag(1, 2), so along d = (0, 1, 0, 1) (critical: ∇q·d = 0) dᵀHd = 2 − 4 = −2; along (1, 0, −1, 0) it is
    2 + 2 = 4 and along (1, 0, 1, 0) the direction is not critical."""
    net, x, theta = diagonal(2, 2, "linear"), to_exact([[1, 2]]), to_exact([1, 0, 1, 0])
    found = kkt.lagrangian_curvature(net, theta, x, to_exact([1]), to_exact([0, 1, 0, 1]))
    assert found.critical and found.value == -2 and list(found.slopes) == [0]
    assert kkt.lagrangian_curvature(net, theta, x, to_exact([1]), to_exact([1, 0, -1, 0])).value == 4
    assert not kkt.lagrangian_curvature(net, theta, x, to_exact([1]), to_exact([1, 0, 1, 0])).critical
    floats = kkt.lagrangian_curvature(net, [1.0, 0.0, 1.0, 0.0], [[1.0, 2.0]], [1.0], [0.0, 1.0, 0.0, 1.0])
    assert floats.critical and abs(floats.value + 2) < 1e-6
    with pytest.raises(ValueError, match="smooth KKT point"):
        kkt.lagrangian_curvature(RELU, KKT_POINT, X, Y, np.ones(6))  # Theorem 3.2's point: kinks
