"""Paper 003's shared helpers: canonical data sets against their exact max-margin data, θ, the polynomial-tail
loss through the objective, the initialization constant D, and the layer-gradient formula."""

from types import SimpleNamespace

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.losses import Objective
from theorems.layer_alignment import flow_theorems
from theorems.layer_alignment.common import (
    POLYNOMIAL_TAIL,
    Dataset,
    balanced_initialization,
    chain,
    ds2,
    ds3,
    ds_degenerate,
    ds_random,
    exact_support_radius,
    initialization_constant,
    initialization_constants,
    layer_gradient,
    layer_state,
    linear_network,
    loss_inverse,
    max_margin_direction,
    predictor_gradient,
    risk,
    spans_space,
    support_radius,
)


@pytest.mark.parametrize("factory, duals, theta", [
    (ds2, [sympy.Rational(4, 3), sympy.Rational(8, 3), 0, 0], sympy.Rational(1, 5)),
    (ds3, [sympy.Rational(4, 3)] * 3 + [0] * 3, 2 * sympy.sqrt(5) / 25),
    (ds_degenerate, [4, 0], sympy.Integer(0)),
])
def test_canonical_datasets_have_their_exact_max_margin_data(factory, duals, theta):
    data = factory()
    assert np.all(np.linalg.norm(data.Z, axis=1) <= 1.0)
    np.testing.assert_array_equal(data.X * data.y[:, None], data.Z)
    svm = max_margin_direction(data)
    assert svm.certified
    assert list(svm.exact_direction) == [1] + [0] * (data.d - 1)
    assert svm.reference.certificate.margin == sympy.Rational(1, 2)
    assert list(svm.reference.certificate.duals) == duals
    assert spans_space(data, svm)
    assert sympy.simplify(exact_support_radius(data, svm) - theta) == 0
    assert support_radius(data, svm) == pytest.approx(float(theta), abs=1e-12)


def test_random_data_are_separable_with_a_gap():
    rng = np.random.default_rng(3)
    data = ds_random(rng, 25, 3, gap=0.1)
    svm = max_margin_direction(data)
    assert np.all(np.linalg.norm(data.Z, axis=1) <= 1.0)
    assert np.min(data.Z @ svm.direction) == pytest.approx(svm.margin, rel=1e-6)
    assert len(svm.support) <= data.d


@pytest.mark.parametrize("q", [-30.0, -1.0, 0.0, 0.5, 10.0, 1e6])
def test_polynomial_tail_loss_matches_its_formula(q):
    value = np.sqrt(1 + q * q) - q if q < 1e3 else 1 / (np.sqrt(1 + q * q) + q)
    assert POLYNOMIAL_TAIL.value(np.array([q]))[0] == pytest.approx(value, rel=1e-12)
    slope = 1 - q / np.sqrt(1 + q * q) if q < 1e3 else value / np.sqrt(1 + q * q)
    assert np.exp(POLYNOMIAL_TAIL.log_neg_derivative(np.array([q]))[0]) == pytest.approx(slope, rel=1e-10)
    assert loss_inverse(POLYNOMIAL_TAIL, value) == pytest.approx(q, rel=1e-9, abs=1e-9)


def test_objective_accepts_a_loss_instance_and_its_gradient_matches_differences():
    data = ds3()
    net = linear_network((3, 2, 1))
    objective = Objective(net, data.X, data.y, POLYNOMIAL_TAIL, mean=True)
    theta = np.random.default_rng(0).normal(size=net.n_params)
    step = 1e-6
    differences = np.array([(objective.value(theta + step * e) - objective.value(theta - step * e)) / (2 * step)
                            for e in np.eye(net.n_params)])
    np.testing.assert_allclose(objective.gradient(theta), differences, rtol=1e-7, atol=1e-10)


def test_layer_gradient_formula_matches_the_engine():
    data = ds3()
    net = linear_network((3, 4, 2, 1))
    objective = risk(net, data, "logistic")
    theta = np.random.default_rng(1).normal(size=net.n_params)
    layers = net.matrices(theta)
    row = predictor_gradient("logistic", data.Z, chain(layers).ravel())[None, :]
    for k, part in enumerate(net.split(objective.gradient(theta)), start=1):
        np.testing.assert_allclose(layer_gradient(layers, row, k).ravel(), part, rtol=1e-12, atol=1e-15)


@settings(derandomize=True, max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(0, 10_000))
def test_initialization_constant_is_nonnegative_and_dominates_its_layers(hidden, seed):
    rng = np.random.default_rng(seed)
    widths = [3, *hidden, 1]
    layers = [rng.normal(size=(widths[k + 1], widths[k])) for k in range(len(widths) - 1)]
    D = initialization_constant(layers)
    assert D >= 0
    assert np.all(initialization_constants(layers) <= D + 1e-12)
    state = layer_state(layers)
    assert np.all(state.rank_one_excess <= initialization_constants(layers) + 1e-9)  # t = 0 case of Lemma 2 (a)


def test_balanced_initialization_has_zero_constant_and_rank_one_layers():
    layers = balanced_initialization((3, 4, 2, 1), np.random.default_rng(5), 0.7)
    assert initialization_constant(layers) == pytest.approx(0.0, abs=1e-14)
    state = layer_state(layers)
    assert np.all(state.rank_one_excess <= 1e-28)
    np.testing.assert_allclose(state.alignments, 1.0, atol=1e-14)


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
@pytest.mark.parametrize("factory", [ds2, ds3])
def test_radial_slack_is_the_vectorized_quantity_bit_for_bit(loss, factory):
    from scipy.linalg import null_space

    from theorems.layer_alignment.flow_geometry import _scaled_from_products, radial_slack

    data = factory()
    svm = max_margin_direction(data)
    threshold = 2.5
    slack = radial_slack(loss, data, svm, threshold)
    basis = null_space(svm.direction[None, :])
    rng = np.random.default_rng(7)
    for _ in range(50):
        x = rng.normal(size=2 + basis.shape[1]) * rng.choice([0.01, 1.0, 30.0])
        direction = x[2:] / np.linalg.norm(x[2:])
        radius = threshold + abs(x[1])
        value = _scaled_from_products(loss, svm.margin, np.array([abs(x[0])]), data.Z @ svm.direction,
                                      (radius * (data.Z @ basis @ direction))[None])
        assert slack(x) == float(value[0]) / radius


def test_naive_angle_of_antiparallel_vectors_is_pi_where_rounding_overshoots():
    """align.testing's textbook angle clips the cosine into [−1, 1]: for a and −a rounding gives −1 − 2⁻⁵² on about a
    quarter of random vectors, whose arccos would be nan."""
    from theorems.layer_alignment.flow_theorems import naive_angle

    draws = np.random.default_rng(0).normal(size=(40, 3))
    overshooting = [a for a in draws if a @ -a / (np.linalg.norm(a) * np.linalg.norm(a)) < -1.0]
    assert overshooting
    assert all(naive_angle(a, -a) == np.pi for a in overshooting)


def test_settling_needs_the_last_checkpoint_below_the_window_maximum() -> None:
    """align.thm1's 'bounded and eventually nonincreasing' proxy at its edges: a decreasing window settles; a flat
    window does not (its end is its maximum), nor one whose last checkpoint rises within the monotonicity allowance
    to a new maximum, although every step passes the monotonicity test."""
    t = np.logspace(0, 60, 61)
    assert flow_theorems.settles(t, np.linspace(2.0, 1.0, 61))
    flat = np.ones(61)
    assert not flow_theorems.settles(t, flat)
    rising_last = flat.copy()
    rising_last[-1] = 1.0 + flow_theorems.MONOTONE_RTOL / 2
    assert not flow_theorems.settles(t, rising_last)
    falling_then_flat = np.concatenate([np.linspace(2.0, 1.0, 59), [1.0, 1.0]])
    assert flow_theorems.settles(t, falling_then_flat)
    assert flow_theorems.final_rise(t, np.linspace(2.0, 1.0, 61)) < 0
    one_point = np.array([1.0, 1e70])  # only t[-1] lies in the last 20 decades: no rise can be measured
    assert flow_theorems.final_rise(one_point, np.array([2.0, 1.0])) == np.inf
    dip_then_back = flat.copy()  # the last checkpoint, not the one before it, must be below the maximum
    dip_then_back[-2] = 1.0 - flow_theorems.MONOTONE_RTOL / 2
    assert not flow_theorems.settles(t, dip_then_back)
    bump_in_window = np.linspace(2.0, 1.0, 61)  # ends below its maximum, but rises within the last decades
    bump_in_window[50] = 1.5
    assert not flow_theorems.settles(t, bump_in_window)


def test_first_layer_zero_admissibility_needs_a_monotone_risk(monkeypatch) -> None:
    """App. A's check asks the flow's risk to decrease at every checkpoint, not only to end lower than it began."""
    from types import SimpleNamespace

    from theorems.layer_alignment import flow_assumptions
    from theorems.layer_alignment.criteria import Named

    monkeypatch.setattr(flow_assumptions, "satisfies_assumption2", lambda objective, theta: True)
    monkeypatch.setattr(flow_assumptions, "loss_at_zero", lambda loss: 1.0)
    objective = SimpleNamespace(value=lambda theta: 1.0, loss="logistic")
    for risks, holds in (([1.0, 0.9, 0.5, 0.4], True), ([1.0, 0.9, 0.95, 0.4], False), ([1.0, 0.9, 0.8, 1.1], False)):
        monkeypatch.setattr(flow_assumptions, "run_flow", lambda *args, risks=risks: SimpleNamespace(
            risks=np.array(risks)))
        decision = flow_assumptions.first_layer_zero_admissible(Named("one", [(objective, np.zeros(3), True)]))
        assert decision.decision.holds is holds, risks


def test_theorem2_draws_are_rejected_and_counted_by_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """Theorem 2's random datasets: a draw with one support vector (Assumption 3 fails), one with a zero dual and
    one with θ = 0.01 < 0.05 are each counted once under their reason; the next draw is used."""
    from theorems.layer_alignment.common import Dataset, ds2, ds_degenerate
    from verify.claim import Context, Profile

    draws = iter([Dataset("one support vector", np.array([[1.0, 0.0], [2.0, 0.5]])), ds_degenerate(),
                  Dataset("θ = 0.01", np.array([[0.5, 0.01], [0.5, -0.01]])), ds2()])
    monkeypatch.setattr(flow_theorems, "ds_random", lambda rng, n, d: next(draws))
    drawn = flow_theorems._theorem2_datasets(Context("align.thm2", Profile.QUICK, 1))
    assert len(drawn.datasets) == 3 and drawn.datasets[-1].name == "DS2"
    assert drawn.rejected == {"Assumption 3 fails": 1, "a support vector with dual ≤ 1e-8": 1,
                              f"θ < {flow_theorems.THETA_FLOOR}": 1}


@pytest.mark.parametrize("sklearn_spec", [None, SimpleNamespace(origin=None)], ids=["no spec", "no origin"])
def test_digits_fall_back_to_load_digits_without_a_located_sklearn(monkeypatch, sklearn_spec) -> None:
    """Fig. 2's data: where scikit-learn's spec, or its origin, is missing, the CSV path is not built and
    ``load_digits`` gives the images."""
    import importlib.util

    from theorems.layer_alignment.figures import digits

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: sklearn_spec if name == "sklearn" else find_spec(name, *args))
    images, labels = digits()
    assert images.shape == (1797, 8, 8) and labels.shape == (1797,)


def test_naive_angle_is_the_textbook_formula_at_a_large_angle() -> None:
    """align.testing's control formula is arccos of the normalized inner product: π/3 between (2, 0, 0) and
    (1, √3, 0), whose norms (2 and 2) must divide the inner product, not multiply it."""
    from theorems.layer_alignment.flow_theorems import naive_angle

    assert naive_angle(np.array([2.0, 0.0, 0.0]), np.array([1.0, np.sqrt(3.0), 0.0])) == pytest.approx(np.pi / 3,
                                                                                                       rel=1e-12)


def test_polynomial_tail_log_neg_derivative_agrees_in_float_and_multiprecision():
    """log(−ℓ'(q)) = −asinh q − log √(1 + q²) for ℓ(q) = √(1 + q²) − q, checked against a central difference of ℓ
    in float64 and against the same formula evaluated on mpmath objects (the path the exact claims take)."""
    import mpmath

    q = np.array([-3.0, -0.5, 0.0, 0.75, 4.0])
    floats = POLYNOMIAL_TAIL.log_neg_derivative(q)
    h = 1e-6
    slope = (POLYNOMIAL_TAIL.value(q + h) - POLYNOMIAL_TAIL.value(q - h)) / (2 * h)
    np.testing.assert_allclose(floats, np.log(-slope), rtol=1e-8, atol=1e-8)
    objects = POLYNOMIAL_TAIL.log_neg_derivative(np.array([mpmath.mpf(v) for v in q], dtype=object))
    np.testing.assert_allclose(np.array(objects, dtype=float), floats, rtol=1e-14, atol=1e-14)


def _exact_dataset(rows):
    exact = np.array([[sympy.Rational(v) for v in row] for row in rows], dtype=object)
    return Dataset("stand-in", exact.astype(float), exact)


def test_support_radius_of_one_dimensional_data_is_refused_and_has_no_exact_value():
    """d = 1: ū^⊥ = {0}, so θ is a minimum over an empty set: the float form refuses it, the exact form has none."""
    data = _exact_dataset([("1/2",)])
    svm = SimpleNamespace(direction=np.array([1.0]), exact_direction=[sympy.Integer(1)], support=(0,))
    with pytest.raises(ValueError, match="empty minimum"):
        support_radius(data, svm)
    assert exact_support_radius(data, svm) is None


def test_exact_support_radius_refuses_an_origin_outside_the_projected_support():
    """Projected support points (0, 1/5) and (0, 1/2) (as ū = e_1 would give): 0 = 5/3·p_1 − 2/3·p_2 lies outside
    their hull, so θ has no facet-distance form (None), though the nearest point is at distance 1/5."""
    data = _exact_dataset([("1/2", "1/5"), ("1/2", "1/2")])
    svm = SimpleNamespace(exact_direction=[sympy.Integer(1), sympy.Integer(0)], support=(0, 1))
    assert exact_support_radius(data, svm) is None


def test_support_radius_is_zero_when_the_projected_support_is_flat():
    """d = 3, projected support points on one line of ū^⊥: a unit normal ξ of that line has max_i ⟨ξ, p_i⟩ = 0."""
    data = Dataset("flat", np.array([[0.5, 0.1, 0.0], [0.5, 0.2, 0.0], [0.5, -0.3, 0.0]]))
    svm = SimpleNamespace(direction=np.array([1.0, 0.0, 0.0]), support=(0, 1, 2))
    assert support_radius(data, svm) == 0.0
