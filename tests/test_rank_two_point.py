"""Paper 000's two-point setting (theorems/rank_minimization/two_point_common.py): the closed-form flow against
integration (error in the scale atol + rtol·|y|, evaluations bounded), the regions against the polar table of
Definition 1, the constants in every number system, Thm 1's interpolant, and Thm 3's event."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb, ctx
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from numerics import exact as E
from numerics.flows import GradientFlow
from theorems.rank_minimization.two_point_common import (
    BALL,
    BOTH,
    DEAD,
    EXACT,
    FIRST,
    MPMATH,
    PRIVATE,
    SECOND,
    PatternModel,
    TwoPoints,
    exact_rank,
    flow_ends,
    from_neurons,
    grid_data,
    in_private_sectors,
    neurons,
    open_sector,
    oracle,
    pack,
    paper_data,
    pythagorean_data,
    rank_one_interpolant,
    reduced_field,
    reduced_limit,
    reduced_state,
    region,
    serving_neurons,
    thm2_radius,
    thm3_angle_interval,
    thm3_event,
    thm3_norm_lower,
    thm3_norm_upper,
    thm3_probability,
    thm3_radius,
)

RTOL, ATOL = 1e-10, 1e-12


def scaled_error(actual: np.ndarray, exact: np.ndarray) -> float:
    return float(np.max(np.abs(actual - exact) / (ATOL + RTOL * np.abs(exact))))


# -- the reduced flow ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("a0, b0", [(0.3, 0.0), (1e-3, 0.0), (0.01, 0.49), (2.0, 0.1), (0.4, -0.2), (0.1, -0.3),
                                    (5.0, 0.0)])
def test_closed_form_matches_integration(a0: float, b0: float) -> None:
    times = np.array([0.1, 0.7, 2.0, 6.0])
    sol = solve_ivp(lambda t, z: reduced_field(*z), (0, times[-1]), [a0, b0], method="DOP853", rtol=1e-13,
                    atol=1e-15, t_eval=times)
    a, b = reduced_state(a0, b0, times)
    assert scaled_error(np.array([a, b]), sol.y) < 10
    assert sol.nfev < 5000


@settings(max_examples=40, deadline=None, derandomize=True)
@given(a0=st.floats(1e-3, 3.0), b0=st.floats(-1.0, 1.0), t=st.floats(0.0, 20.0))
def test_closed_form_invariants(a0: float, b0: float, t: float) -> None:
    assume(abs(a0 + b0) > 1e-2)
    a, b = reduced_state(a0, b0, t)
    assert a * a - b * b == pytest.approx(a0 * a0 - b0 * b0, abs=1e-9 * (1 + a0 * a0 + b0 * b0))
    if a0 + b0 > 0 and a0 * b0 < 1 and b0 >= 0:  # the regime of Lemma 12: ab increases to 1, a never decreases
        assert a * b <= 1 + 1e-12 and a >= a0 - 1e-12


def test_limit_is_the_large_time_state() -> None:
    for a0, b0 in [(0.2, 0.0), (0.01, 0.49), (3.0, 0.0), (0.5, -0.3)]:
        a_limit, b_limit = reduced_limit(a0, b0)
        assert a_limit * b_limit == pytest.approx(1)
        assert a_limit**2 - b_limit**2 == pytest.approx(a0 * a0 - b0 * b0)
        assert np.allclose(reduced_state(a0, b0, 60.0), (a_limit, b_limit), rtol=1e-12)


def test_closed_form_in_three_number_systems() -> None:
    exact = reduced_state(sympy.Rational(1, 3), sympy.Rational(1, 5), sympy.Rational(1, 2))
    with mpmath.workdps(30):
        high = reduced_state(mpmath.mpf(1) / 3, mpmath.mpf(1) / 5, mpmath.mpf(1) / 2)
        assert all(abs(sympy.N(e, 30) - h) < mpmath.mpf(10) ** -27 for e, h in zip(exact, high))
    assert np.allclose([float(v) for v in exact], reduced_state(1 / 3, 1 / 5, 0.5), rtol=1e-14)


# -- the oracle of the full network ----------------------------------------------------------------------------
def private_start(data: TwoPoints, a: tuple[float, float], p: tuple[float, float], b: tuple[float, float]):
    """w_i = a_i x_i + p_i n_i with n_i ⊥ x_i pointing to the D side (p_i > 0: toward D), v_i = b_i y_i."""
    X = np.asarray(data.X, dtype=float)
    normals = np.stack([-X[:, 1], X[:, 0]], axis=1)
    normals *= -np.sign(np.sum(normals * X[::-1], axis=1))[:, None]
    w = np.array(a)[:, None] * X + np.array(p)[:, None] * normals
    return from_neurons(w, np.array(b)[:, None] * np.asarray(data.Y, dtype=float))


@pytest.mark.parametrize("phi", [1.6, 2.0, 3.0])
def test_oracle_matches_the_network_flow(phi: float) -> None:
    data = grid_data(phi)
    theta0 = private_start(data, (0.2, 0.05), (0.03, 0.02), (0.1, 0.0))
    assert in_private_sectors(theta0, data.X)
    times = [0.5, 3.0, 30.0]
    run = GradientFlow(data.objective).solve(theta0, times[-1], t_eval=times, rtol=1e-12, atol=1e-14)
    assert run.n_crossings == 0 and run.nfev < 20000
    for t, theta in zip(run.t, run.theta):
        assert np.max(np.abs(theta - oracle(theta0, data, t))) < 1e-9
    assert np.max(np.abs(run.final - oracle(theta0, data))) < 1e-9


def test_oracle_regime() -> None:
    data = grid_data(2.0)
    good = private_start(data, (0.2, 0.1), (0.0, 0.0), (0.0, 0.3))
    swapped = from_neurons(neurons(good)[0][::-1], neurons(good)[1][::-1])
    assert serving_neurons(good, data) is not None and serving_neurons(swapped, data) is not None
    assert np.allclose(oracle(swapped, data)[:4].reshape(2, 2), oracle(good, data)[:4].reshape(2, 2)[::-1])
    negative = private_start(data, (0.2, 0.1), (0.0, 0.0), (-0.1, 0.0))
    both_active = from_neurons(np.array([[0.0, 1.0], [0.3, 0.1]]), np.zeros((2, 2)))
    off_span = good + np.array([0, 0, 0, 0, 0, 0, 0.01, 0])  # v_1 leaves span{y_1} = span{e_1}
    overshoot = private_start(data, (2.0, 0.1), (0.0, 0.0), (0.9, 0.0))  # ab > 1: a would decrease
    for theta in (negative, both_active, off_span, overshoot):
        assert serving_neurons(theta, data) is None
        with pytest.raises(ValueError):
            oracle(theta, data)


def test_exact_oracle_reaches_zero_loss_exactly() -> None:
    data = pythagorean_data(sympy.Rational(4, 5), sympy.Rational(3, 5))
    w = np.array([data.X[0] * sympy.Rational(1, 4), data.X[1] * sympy.Rational(1, 3)])
    limit = oracle(from_neurons(w, E.to_exact(np.zeros((2, 2)))), data)
    assert not np.any(E.signs(E.canonical(data.objective.residuals(limit))))


# -- regions, constants, constructions -------------------------------------------------------------------------
def polar_region(theta: float, phi: float) -> str:
    """The polar table of Definition 1 in the frame x_1 = (1, 0), x_2 = (cos φ, sin φ)."""
    t = (theta + np.pi / 2) % (2 * np.pi) - np.pi / 2  # in [−π/2, 3π/2)
    if phi - np.pi / 2 < t < np.pi / 2:
        return BOTH
    if -np.pi / 2 < t <= phi - np.pi / 2:
        return FIRST
    if np.pi / 2 <= t < phi + np.pi / 2:
        return SECOND
    return DEAD


@pytest.mark.parametrize("phi", [1.6, 2.0, 2.9])
def test_regions_follow_the_polar_table(phi: float) -> None:
    X = np.array([[1.0, 0.0], [np.cos(phi), np.sin(phi)]])
    angles = np.random.default_rng(0).uniform(0, 2 * np.pi, 2000)
    W = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    assert list(region(W, X)) == [polar_region(t, phi) for t in angles]
    sectors = open_sector(W, X)
    assert np.all((sectors == 1) == (region(W, X) == FIRST)) and np.all((sectors == 2) == (region(W, X) == SECOND))


def test_region_boundaries_exactly() -> None:
    X = pythagorean_data(sympy.Rational(4, 5), sympy.Rational(3, 5)).X
    rotate = np.array([[0, -1], [1, 0]], dtype=object)
    rays = np.array([rotate @ X[0], -(rotate @ X[0]), rotate @ X[1], -(rotate @ X[1]), np.zeros(2, dtype=object)])
    # x_1 = (4/5, 3/5), x_2 = (−4/5, 3/5): R x_1 ⊥ x_1 with (R x_1)ᵀx_2 > 0 lies on ∂S_2 (non-dead), −R x_1 on ∂D
    assert list(region(rays, X)) == [SECOND, DEAD, DEAD, FIRST, DEAD]
    assert list(open_sector(rays, X)) == [0, 0, 0, 0, 0]


def test_constants_agree_across_number_systems() -> None:
    for phi in (1.6, 1.9, 2.0, 2.5, 3.0):
        exact = sympy.Rational(phi).limit_denominator(100)
        floats = [thm2_radius(float(exact)), thm3_radius(float(exact)), thm3_norm_upper(float(exact)),
                  thm3_probability(float(exact))]
        exacts = [thm2_radius(exact, EXACT), thm3_radius(exact, EXACT), thm3_norm_upper(exact, EXACT),
                  thm3_probability(exact, EXACT)]
        with ctx.workprec(80):
            balls = [thm2_radius(arb(exact.p) / exact.q, BALL), thm3_radius(arb(exact.p) / exact.q, BALL)]
        with mpmath.workdps(25):
            assert float(thm3_radius(mpmath.mpf(exact.p) / exact.q, MPMATH)) == pytest.approx(floats[1], rel=1e-14)
        assert all(float(e) == pytest.approx(f, rel=1e-14) for e, f in zip(exacts, floats))
        assert all(b.contains(arb(f)) or abs(float(b.mid()) - f) < 1e-15 for b, f in zip(balls, floats))
    crossover = 2 * np.arccos(1 / np.sqrt(3))  # (√3/2) cos(φ/2) = 1/2
    assert thm2_radius(crossover - 1e-3) == 0.5 and thm2_radius(crossover + 1e-3) < 0.5
    assert thm3_radius(3 * np.pi / 5) == pytest.approx(np.sqrt(3) / 2 * np.sin(np.pi / 10))  # both terms equal


@pytest.mark.parametrize("data", [paper_data(exact=True), pythagorean_data(sympy.Rational(15, 17),
                                                                            sympy.Rational(8, 17), [[2, 1], [1, 3]])],
                         ids=["radicals", "rational"])
def test_rank_one_interpolant_is_exact(data: TwoPoints) -> None:
    theta = rank_one_interpolant(data)
    assert exact_rank(theta[:4].reshape(2, 2)) == 1
    assert not np.any(E.signs(E.canonical(data.objective.residuals(theta))))
    floats = data.as_float()
    assert np.max(np.abs(floats.objective.residuals(rank_one_interpolant(floats)))) < 1e-14


def test_exact_rank() -> None:
    root = sympy.sqrt(2)
    assert exact_rank(np.array([[root, 1], [2, root]], dtype=object)) == 1
    assert exact_rank(np.array([[root, 1], [2, 1]], dtype=object)) == 2
    assert exact_rank(E.to_exact(np.zeros((2, 2)))) == 0
    with pytest.raises(ValueError):
        exact_rank(E.to_exact(np.zeros((3, 2))))


def test_pattern_model_is_the_network_on_its_pattern() -> None:
    model = PatternModel.build(PRIVATE)
    data = grid_data(2.0)
    theta = private_start(data, (0.4, 0.3), (0.1, 0.2), (0.5, 0.7))
    W, V = theta[:4].reshape(2, 2), theta[4:].reshape(2, 2)
    values = {**dict(zip(model.W, W.ravel())), **dict(zip(model.V, V.ravel())),
              **dict(zip(model.Xc, data.X.T.ravel())), **dict(zip(model.Yc, data.Y.T.ravel()))}
    gW, gV = model.gradient()
    symbolic = np.array([float(g.subs(values)) for g in list(gW) + list(gV)])
    assert np.allclose(symbolic, data.objective.gradient(theta), rtol=1e-12, atol=1e-14)
    assert float(model.loss.subs(values)) == pytest.approx(float(data.objective.value(theta)))


def test_thm3_event_and_flow_ends() -> None:
    data = paper_data()
    phi = data.phi
    start = private_start(data, (0.005, 0.004), (0.002, 0.003), (0.0, 0.0))
    limit = oracle(start, data)
    dead = limit.copy()
    dead[:2] = 0.0
    event = thm3_event(np.array([limit, dead, limit]), np.array([0.0, 0.0, 0.5]), phi, 1e-8)
    assert list(event) == [True, False, False]
    norms = np.linalg.norm(limit[:4].reshape(2, 2), axis=1)  # (ii) at both ends, the angle (i) unchanged
    long, short = limit.copy(), limit.copy()
    long[:4] *= 1.01 * thm3_norm_upper(phi) / norms.max()
    short[:4] *= 0.99 * thm3_norm_lower() / norms.min()
    assert list(thm3_event(np.array([long, short]), np.zeros(2), phi, 1e-8)) == [False, False]
    ends = flow_ends(data, np.array([start, np.zeros(8)]), 60.0, loss_tol=1e-20)
    assert list(ends.converged(1e-18)) == [True, False] and ends.loss[1] == pytest.approx(1.0)
    assert np.max(np.abs(ends.final[0] - limit)) < 1e-8 and list(ends.crossings) == [0, 0]


def test_pack_round_trip() -> None:
    W, V = np.arange(4.0).reshape(2, 2), np.arange(4.0, 8.0).reshape(2, 2)
    theta = pack(W, V)
    w, v = neurons(theta)
    assert np.array_equal(w, W) and np.array_equal(v, V.T) and np.array_equal(from_neurons(w, v), theta)


def test_pythagorean_data_refuses_a_sine_and_cosine_off_the_unit_circle() -> None:
    with pytest.raises(ValueError, match="squares must sum to 1"):
        pythagorean_data(sympy.Rational(2, 5), sympy.Rational(4, 5))


def test_assumption1_on_float_targets() -> None:
    from theorems.rank_minimization.two_point_setting import satisfies_assumption1

    c, s = np.cos(0.3), np.sin(0.3)
    assert satisfies_assumption1(np.array([[1.0, 0.0], [c, s]]))
    assert not satisfies_assumption1(np.array([[1.0, 0.0], [-1.0, 0.0]]))  # unit but parallel
    assert not satisfies_assumption1(np.array([[1.0, 0.0], [1.0, 1e-13]]))  # independent only to rounding
    assert not satisfies_assumption1(np.array([[1.0, 0.0], [0.0, 1.0 + 1e-9]]))  # not unit


def test_assumption2_on_float_inputs() -> None:
    """The float encoding of Assumption 2 agrees with the angle: obtuse unit inputs only, both ends excluded."""
    from theorems.rank_minimization.two_point_setting import satisfies_assumption2

    def at(angle: float) -> np.ndarray:
        return np.array([[1.0, 0.0], [np.cos(angle), np.sin(angle)]])

    assert satisfies_assumption2(at(2.0))  # ∠ = 2 rad ∈ (π/2, π)
    assert not satisfies_assumption2(at(1.0))  # acute
    assert not satisfies_assumption2(np.array([[1.0, 0.0], [0.0, 1.0]]))  # orthogonal: x_1ᵀx_2 = 0
    assert not satisfies_assumption2(np.array([[1.0, 0.0], [-1.0, 0.0]]))  # antiparallel: x_1ᵀx_2 = −1
    assert not satisfies_assumption2(2 * at(2.0))  # obtuse but not unit


def test_the_gpu_profile_estimates_pr_e_to_its_stated_width() -> None:
    """Thm 3's gpu-profile sample size gives a Clopper–Pearson interval at most CI_WIDTH wide at CONFIDENCE for any
    Pr[E] (the worst case p = 1/2), and CI_WIDTH is the 0.003 the claim's detail promises."""
    from numerics.sweeps import clopper_pearson
    from theorems.rank_minimization import two_point_theorems as thm

    assert (thm.CONFIDENCE, thm.CI_WIDTH) == (0.999, 0.003)
    for p in (0.5, 0.36, 0.1):
        low, high = clopper_pearson(round(p * thm.GPU_RUNS), thm.GPU_RUNS, thm.CONFIDENCE)
        assert high - low <= thm.CI_WIDTH
    assert thm.GPU_RUNS < 1.3 * 10**6  # and not far more runs than it needs


def test_lemma12_good_set_needs_q0_positive() -> None:
    """From (a_0, b_0) = (2, 1/2): q_0 = 1 − a_0 b_0 = 0 and ȧ(0) = b_0 q_0 = 0, so Lemma 12's argument does not
    apply (undecided, not True); (1/2, 1/2) is inside the good set, (2, 1) leaves it with ȧ(0) < 0."""
    from theorems.rank_minimization.two_point_dynamics import good_set_invariant

    half = sympy.Rational(1, 2)
    assert good_set_invariant(half, half).decision.holds is True
    assert good_set_invariant(sympy.Integer(2), half).decision.holds is None
    assert good_set_invariant(sympy.Integer(2), sympy.Integer(1)).decision.holds is False


def test_lemma12_good_set_needs_a0_positive() -> None:
    """From (a_0, b_0) = (0, 0) the reduced field is at rest (ȧ = b q = 0), but w_1(0) ⊥ x_1 is not in S_1°:
    Lemma 12's argument (w_iᵀx_i > 0) does not apply there, so the criterion stays undecided."""
    from theorems.rank_minimization.two_point_dynamics import good_set_invariant

    assert good_set_invariant(sympy.Integer(0), sympy.Integer(0)).decision.holds is None


def test_thm3_event_needs_the_angle_below_its_upper_end() -> None:
    """Unit rows (norms inside (ii)) at angle π > π/2 + φ/2 with zero loss are not in E; at angle π/2 + φ/4 they are."""
    phi = paper_data().phi
    low, high = thm3_angle_interval(phi)
    inside = (low + high) / 2
    opposite = pack(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.eye(2))
    between = pack(np.array([[1.0, 0.0], [np.cos(inside), np.sin(inside)]]), np.eye(2))
    assert high < np.pi and list(thm3_event(np.array([opposite, between]), np.zeros(2), phi, 1e-8)) == [False, True]


def test_assumption2_needs_unit_inputs_exactly_and_in_floats() -> None:
    """Obtuse inputs with x_1ᵀx_2 ∈ (−1, 0) that are not unit vectors fail Assumption 2 (exact and float)."""
    from theorems.rank_minimization.two_point_setting import satisfies_assumption2

    exact = np.array([[2, 0], [-sympy.Rational(1, 4), 1]], dtype=object)  # x_1ᵀx_2 = −1/2, ‖x_1‖ = 2
    assert E.sign(exact[0] @ exact[1]) < 0 and E.sign(exact[0] @ exact[1] + 1) > 0
    assert not satisfies_assumption2(exact)
    floats = np.array([[1.0, 0.0], [-0.25, 2.0]])  # x_1ᵀx_2 = −0.25, ‖x_2‖ > 1
    assert not satisfies_assumption2(floats)


def test_served_outputs_need_each_neuron_in_an_open_sector() -> None:
    """A neuron in D (negative on both inputs) serves no input, even with v = 0 (which agrees with any target)."""
    from theorems.rank_minimization.two_point_theorems import served_outputs_agree

    data = paper_data()
    second = [-1.0, 0.0]  # in S_2°: positive on x_2, negative on x_1 (paper data: x_1, x_2 = (±0.71, 0.70))
    private = from_neurons(np.array([[1.0, 0.0], second]), np.zeros((2, 2)))
    dead = from_neurons(np.array([[0.0, -1.0], second]), np.zeros((2, 2)))
    assert list(open_sector(neurons(dead)[0], data.X)) == [0, 2]
    assert list(served_outputs_agree(np.array([private, dead]), data)) == [True, False]


def test_radius_counterexample_facts_refuse_a_wrong_sector_and_a_short_start() -> None:
    """certify_radius_counterexample's regime needs w_i(0) ∈ S_i° (the neurons swapped fail it, with ‖v_i‖ = 0 and the
    ratio still in range), and its ratio needs ‖w_i(0)‖ ≥ 1.1 r_2(φ) (the start halved fails it, still in regime)."""
    from theorems.rank_minimization.two_point_setting import PYTHAGOREAN
    from theorems.rank_minimization.two_point_theorems import certify_radius_counterexample, radius_counterexample

    data, theta = radius_counterexample(pythagorean_data(*PYTHAGOREAN[1]), (sympy.Rational(1, 20), sympy.Integer(0)))
    w, v = neurons(theta)
    assert certify_radius_counterexample(data, theta)["regime"]
    swapped = certify_radius_counterexample(data, from_neurons(w[::-1].copy(), v))
    assert not swapped["regime"] and swapped["ratio_in_range"]
    halved = certify_radius_counterexample(data, from_neurons(w / 2, v))
    assert halved["regime"] and not halved["ratio_in_range"] and halved["ratio"] < 1.1


# -- fixed symbolic steps: a step the engine fails to prove leaves the criterion undecided (or the proof failing) --
def undecided_zero_test(quantity: object) -> object:
    from numerics.symbolic import SpotCheck, ZeroTest

    return ZeroTest(False, "", quantity, SpotCheck(0, 0, False, None, None), "undecided (simulated engine failure)")


def undecided_sign(*_: object) -> object:
    from numerics.univariate import SignCertificate

    return SignCertificate(None, "", "no sign certified (simulated engine failure)")


def fail_call(monkeypatch: pytest.MonkeyPatch, module: object, name: str, call: int, fake) -> None:
    """Replace the ``call``-th call (1-based) of ``module.name`` by ``fake``; the other calls run the real engine."""
    real, calls = getattr(module, name), [0]

    def wrapped(*args, **kwargs):
        calls[0] += 1
        return fake(*args) if calls[0] == call else real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)


@pytest.mark.parametrize("step", ["reduction", "product rate"])
def test_lemma12_needs_its_symbolic_steps(monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """good_set_invariant is undecided (not True) when the reduction or d(ab)/dt = (1 − ab)(a² + b²) is unproved."""
    from theorems.rank_minimization import two_point_dynamics as dyn

    call = 1 if step == "reduction" else len(dyn.reduction_identities()) + 1  # the rate is proved after the reduction
    fail_call(monkeypatch, dyn, "is_identically_zero", call, undecided_zero_test)
    assert dyn.good_set_invariant(sympy.Rational(1, 10), sympy.Integer(0)).decision.holds is None


@pytest.mark.parametrize("call", [1, 3, 4])  # N(x_i) = (w_iᵀx_i)v_i (calls 1–2, one per neuron), root, mirror
def test_lemma8_needs_its_symbolic_steps(monkeypatch: pytest.MonkeyPatch, call: int) -> None:
    from theorems.rank_minimization import two_point_lemmas as lem

    eps = sympy.Symbol("epsilon", real=True)
    assert lem.lemma8_chain(1 - sympy.Abs(eps), eps).decision.holds is True
    fail_call(monkeypatch, lem, "is_identically_zero", call, undecided_zero_test)
    assert lem.lemma8_chain(1 - sympy.Abs(eps), eps).decision.holds is None


@pytest.mark.parametrize(("name", "call"), [("is_identically_zero", 1), ("is_identically_zero", 2),
                                            ("is_identically_zero", 3), ("certified_sign", 1)])
def test_lemma6_simplification_needs_its_symbolic_steps(monkeypatch: pytest.MonkeyPatch, name: str, call: int) -> None:
    """The shift identity, the arcsin branch, the constant and the monotonicity of sin, in that order."""
    from theorems.rank_minimization import two_point_theorems as thm

    fail_call(monkeypatch, thm, name, call, undecided_zero_test if name == "is_identically_zero" else undecided_sign)
    assert thm.lemma6_simplifies(sympy.sqrt(3) / 2).decision.holds is None


@pytest.mark.parametrize(("name", "call"), [("certified_sign", 1), ("is_identically_zero", 1), ("certified_sign", 2),
                                            ("thm3_radius_terms", 1)])
def test_thm3_reduction_needs_every_step(monkeypatch: pytest.MonkeyPatch, name: str, call: int) -> None:
    """u − atan((√3/2) sin u) > 0, a_∞² ≥ 1 (identity and sign) and the ball bound on ‖w(∞)‖²: each one fails the
    proof alone (the ball bound with a radius term of 2 in place of r_3 ≤ (√3/2) sin(π/8))."""
    from theorems.rank_minimization import two_point_theorems as thm

    assert thm.thm3_reduction_proof()[0]
    fakes = {"certified_sign": undecided_sign, "is_identically_zero": undecided_zero_test,
             "thm3_radius_terms": lambda *_: (arb(2),)}
    fail_call(monkeypatch, thm, name, call, fakes[name])
    assert not thm.thm3_reduction_proof()[0]


def test_radius_counterexample_ratio_range_is_closed() -> None:
    """The construction's ratio range [1.1, 2] is closed: starts scaled to exactly 1.1 and exactly 2 times Thm 2's
    radius are in it (exact arithmetic), starts 1 % outside are not."""
    from theorems.rank_minimization.two_point_common import EXACT, thm2_radius
    from theorems.rank_minimization.two_point_setting import PYTHAGOREAN
    from theorems.rank_minimization.two_point_theorems import (
        RATIO_RANGE,
        certify_radius_counterexample,
        radius_counterexample,
    )

    data, theta = radius_counterexample(pythagorean_data(*PYTHAGOREAN[1]), (sympy.Rational(1, 20), sympy.Integer(0)))
    w, v = neurons(theta)
    radius = thm2_radius(sympy.acos(data.X[0] @ data.X[1]), EXACT)
    norm = sympy.sqrt(w[0] @ w[0])
    low, high = RATIO_RANGE
    for target, inside in ((low, True), (high, True), (low * sympy.Rational(99, 100), False),
                           (high * sympy.Rational(101, 100), False)):
        scaled = from_neurons(np.array([wi * (target * radius / norm) for wi in w], dtype=object), v)
        assert certify_radius_counterexample(data, scaled)["ratio_in_range"] is inside, target


def test_float_assumptions_allow_rounding_and_nothing_more() -> None:
    """The float forms of Assumptions 1 and 2 take unit vectors up to 1e-12 (a norm of 1 + 1e-13 passes, where exact
    equality would not) and nothing beyond (1 + 1e-11 fails)."""
    from theorems.rank_minimization.two_point_setting import satisfies_assumption1, satisfies_assumption2

    for stretch, unit in ((1 + 1e-13, True), (1 + 1e-11, False), (1.5, False)):
        Y = np.array([[1.0, 0.0], [0.0, stretch]])
        assert satisfies_assumption1(Y) is unit, stretch
        X = np.array([[1.0, 0.0], [-0.6 * stretch, 0.8 * stretch]])
        assert satisfies_assumption2(X) is unit, stretch


def test_sector_rays_bound_the_sectors_and_refuse_parallel_inputs() -> None:
    """Obtuse inputs: both sectors have the angle φ (and not π − φ); orthogonal inputs (φ = π/2): cos ∠(d_j, s_j) = 0
    = x_1ᵀx_2 but x_j lies on a ray (a zero coefficient), so the sector is not the open one the test asks for;
    parallel inputs have no sectors."""
    from theorems.rank_minimization.two_point_setting import sector_angle_is_phi, sector_rays

    obtuse = E.to_exact([[1, 0], [-1, 1]])
    assert sector_angle_is_phi(obtuse, 1) and not sector_angle_is_phi(obtuse, -1)
    assert not sector_angle_is_phi(E.to_exact([[1, 0], [0, 1]]), 1)
    for j in (0, 1):
        with pytest.raises(ValueError, match="parallel"):
            sector_rays(E.to_exact([[1, 2], [-2, -4]]), j)


def test_the_number_systems_agree_on_a_fraction() -> None:
    """num(p, q) is p/q in every number system the formulas run in (floats, mpmath, exact, balls)."""
    from theorems.rank_minimization.two_point_common import BALL, EXACT, FLOAT, MPMATH

    assert FLOAT.num(3, 4) == 0.75 and MPMATH.num(3, 4) == mpmath.mpf(3) / 4 and EXACT.num(3, 4) == sympy.Rational(3, 4)
    assert BALL.num(3, 4).contains(arb(3) / 4) and BALL.num(3, 4).rad() == 0
    assert [f.num(5) for f in (FLOAT, MPMATH, EXACT)] == [5, 5, 5]
