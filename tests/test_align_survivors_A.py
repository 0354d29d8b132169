"""Edges of the criteria and helpers of Ji & Telgarsky's Theorems 1 and 2 (and the facts inside their proofs) that
the claims' instances do not reach: each test gives an input on which one condition or one closed form decides,
so that a shifted comparison, index or constant changes the answer."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from numerics.linear_networks import layer_states
from numerics.losses import MarginLoss
from numerics.metrics import angle
from theorems.layer_alignment import conservation
from theorems.layer_alignment import flow_theorems as ft
from theorems.layer_alignment.common import (
    ds2,
    ds3,
    linear_network,
    max_margin_direction,
    risk,
    run_flow,
)
from theorems.layer_alignment.criteria import Named

# -- align.eq3's control and trace criterion -------------------------------------------------------------------


def test_the_sum_control_adds_the_two_adjacent_squared_norms() -> None:
    layers = [np.ones((3, 2)), 2.0 * np.ones((2, 3)), 3.0 * np.ones((1, 2))]
    assert conservation.frobenius_sum(layers, 1) == 4 * 6 + 6  # ‖W_2‖_F² + ‖W_1‖_F²
    assert conservation.frobenius_sum(layers, 2) == 9 * 2 + 4 * 6


def test_the_trace_criterion_checks_every_adjacent_pair() -> None:
    """A quantity right for one k and wrong for the other is refused, whichever k it is wrong for."""
    def wrong_at_2(layers, k):
        return (conservation.frobenius_gap if k == 1 else conservation.frobenius_sum)(layers, k)

    def wrong_at_1(layers, k):
        return (conservation.frobenius_sum if k == 1 else conservation.frobenius_gap)(layers, k)

    assert conservation.trace_of_conserved_gap(wrong_at_2).holds is False
    assert conservation.trace_of_conserved_gap(wrong_at_1).holds is False
    assert conservation.trace_of_conserved_gap(conservation.frobenius_gap).holds is True


# -- Theorem 1's proxy on synthetic runs -----------------------------------------------------------------------

_A = np.array([[1.0, 0.5], [0.2, 1.0]])  # W_1 of full rank: its rank-one gap is far above 1e-6
_B = np.array([[1.0, 0.3]])


def _proxy_run(t, scales, risks=None) -> SimpleNamespace:
    """Widths (2, 2, 1), W_k = c·(fixed matrix) at each checkpoint, all margins positive (checkpoints after t = 0
    from the burn-in on, unless a test asks otherwise)."""
    states = layer_states([[c * _A, c * _B] for c in scales])
    count = len(t)
    return SimpleNamespace(t=np.asarray(t, dtype=float), label="synthetic", states=states,
                           risks=np.geomspace(1.0, 1e-8, count) if risks is None else np.asarray(risks, dtype=float),
                           margins=np.ones((count, 2)), initial_layers=states[0].layers,
                           series=lambda quantity: np.array([quantity(s) for s in states]))


def _per_state(run, values):
    """A callable state → value that reads ``values`` in checkpoint order."""
    table = {id(state): value for state, value in zip(run.states, values)}
    return lambda state: table[id(state)]


def test_theorem1_risk_is_compared_at_t_against_one_millionth_of_r0() -> None:
    risen = _proxy_run([0.0, 200.0, 300.0, 400.0], [1, 1, 1, 1], risks=[1.0, 0.5, 1e-7, 2e-6])
    assert ft.theorem1_proxy(risen)["R(T) ≤ 1e-6·R(0)"] is False  # below at T − 1, not at T
    # R(0) = 4: R(T) = 3e-6 ≤ 4e-6, though above 1e-6·R(t_1) and 1e-6/R(0)
    assert ft.theorem1_proxy(_proxy_run([0.0, 200.0, 300.0], [1, 1, 1], risks=[4.0, 1.0, 3e-6]))["R(T) ≤ 1e-6·R(0)"]


def test_theorem1_norms_may_stay_flat_but_must_end_above_their_start() -> None:
    flat = ft.theorem1_proxy(_proxy_run([0.0, 200.0, 300.0], [1, 2, 2]))
    assert flat["every F_k nondecreasing from there"] is True
    name = "every F_k larger at T than at 0"
    assert ft.theorem1_proxy(_proxy_run([0.0, 200.0, 300.0, 400.0], [1, 2, 3, 1]))[name] is False  # larger at T − 1
    assert ft.theorem1_proxy(_proxy_run([0.0, 200.0, 300.0], [1, 3, 2]))[name] is True  # smaller at T than at t_1


def test_theorem1_rank_one_bound_holds_at_equality() -> None:
    run = _proxy_run([0.0, 200.0], [1, 1])
    state = run.states[1]
    gaps = state.rank_one_gap
    assert gaps[0] > 1e-3 and gaps[1] == 0.0

    def at_the_gap(layers) -> np.ndarray:  # D_k = gap·F_k²: the bound D_k/F_k² is the gap itself
        return gaps * state.frobenius ** 2

    assert ft.theorem1_proxy(run, constant=at_the_gap)["1 − σ_k/F_k ≤ D_k/F_k² everywhere (Lemma 2 (a))"] is True
    shrunk = ft.theorem1_proxy(run, constant=lambda layers: at_the_gap(layers) * (1 - 1e-8))
    assert shrunk["1 − σ_k/F_k ≤ D_k/F_k² everywhere (Lemma 2 (a))"] is False


def test_theorem1_product_alignment_is_monotone_relative_to_its_own_size() -> None:
    """1 − |⟨w_prod/∏F, v⟩| rising by 2e-6 relative (2e-7 absolute on 0.1) is not nonincreasing: the allowance is
    1e-6 relative to the quantity, not to 1 + the quantity."""
    run = _proxy_run([0.0, 200.0, 300.0], [1, 1, 1])
    ratio = float(np.linalg.norm(run.states[0].w_prod)) / float(np.prod(run.states[0].frobenius))
    name = "1 − |⟨w_prod/∏F, v_1⟩| nonincreasing after the burn-in"
    for rise, holds in ((2e-6, False), (0.0, True)):
        targets = [0.1, 0.1, 0.1 * (1 + rise)]
        scaled = _per_state(run, [(1 - p) / ratio * s.w_prod / np.linalg.norm(s.w_prod)
                                  for p, s in zip(targets, run.states)])
        assert ft.theorem1_proxy(run, vector=scaled)[name] is holds


def test_theorem1_compares_w_prod_at_t_with_the_first_checkpoint_from_the_burn_in() -> None:
    name = "‖w_prod‖ larger at T than at the burn-in"
    assert ft.theorem1_proxy(_proxy_run([0.0, 200.0, 300.0, 400.0], [1, 1, 3, 1]))[name] is False
    # t = 99.5 is before the burn-in at t = 1e2: ‖w_prod‖ = 4 at 200 and at T
    assert ft.BURN_IN == 100.0
    assert ft.theorem1_proxy(_proxy_run([0.0, 99.5, 200.0, 300.0], [1, 1, 2, 2]))[name] is False
    assert ft.theorem1_proxy(_proxy_run([0.0, 100.0, 200.0, 300.0], [1, 1, 2, 2]))[name] is True


def test_theorem1_adjacent_alignment_at_t_against_the_burn_in() -> None:
    run = _proxy_run([0.0, 200.0, 300.0, 400.0], [1, 2, 3, 4])
    name = "1 − |⟨v_(k+1),u_k⟩| at T ≤ its value at the burn-in"
    for values, holds in (([1.0, 0.9, 0.5, 0.95], True),  # worse before T, better at T
                          ([1.0, 0.9, 0.95, 0.9 - 0.5e-13], True),  # within the 1e-13 allowance
                          ([1.0, 0.9, 0.95, 0.9 - 2e-13], False)):
        alignment = _per_state(run, [np.array([v]) for v in values])
        assert ft.theorem1_proxy(run, alignment=alignment)[name] is holds


def test_tightest_rank_one_ratio_skips_rounding_gaps_and_zero_bounds() -> None:
    assert ft.tightest_rank_one_ratio([(np.array([1e-13, 0.5]), np.array([1e-14, 1.0]))]) == 0.5
    assert ft.tightest_rank_one_ratio([(np.array([0.5, 0.2]), np.array([0.0, 1.0]))]) == 0.2
    assert ft.tightest_rank_one_ratio([(np.array([1e-13]), np.array([1.0]))]) == 0.0  # none counted
    assert ft.tightest_rank_one_ratio([(np.array([0.2]), np.array([1.0])), (np.array([0.3]), np.array([1.0]))]) == 0.3


def test_theorem1_settings_alternate_the_loss_over_random_data_sets(monkeypatch) -> None:
    monkeypatch.setattr(ft, "ds_random", lambda rng, n, d: ds3())
    ctx = SimpleNamespace(pick=lambda quick, full, *rest: full, rng=lambda name: np.random.default_rng(0))
    random_sets = ft._theorem1_settings(ctx)[7:]
    assert [s.loss for s in random_sets] == ["logistic", "exponential"] * 3


def test_a_first_layer_zero_start_zeroes_exactly_w1() -> None:
    setting = ft.Setting(ds2(), (2, 3, 1), "logistic", "first-layer-zero")
    objective = risk(linear_network(setting.widths), setting.data, setting.loss)
    theta = ft.initial_point(setting, objective, np.random.default_rng(0))
    first, second = objective.model.matrices(theta)
    assert np.all(first == 0.0) and np.all(second != 0.0)


def test_the_glitch_control_halves_w1_at_one_checkpoint() -> None:
    objective = risk(linear_network((2, 2, 1)), ds2(), "logistic")
    run = run_flow("small", objective, 0.3 * np.random.default_rng(1).normal(size=objective.model.n_params),
                   np.array([0.5, 1.0]))
    glitch = ft._read_as(run, "glitch", range(3), 1)
    assert np.array_equal(glitch.states[1].layers[0], 0.5 * run.states[1].layers[0])
    assert np.array_equal(glitch.states[1].layers[1], run.states[1].layers[1])
    assert glitch.states[2] is run.states[2]


def test_lemma2b_numerator_is_the_sum_of_its_three_terms() -> None:
    assert ft._alignment_numerator(1.0, 2.0, 4.0) == 7.0


def test_the_data_without_separability_add_one_inner_point() -> None:
    data = ft.ds3_with_inner_point()
    z = ds3().Z.mean(axis=0)
    point = data.Z[-1]
    assert data.n == ds3().n + 1 and np.array_equal(data.Z[:-1], ds3().Z)
    assert np.linalg.norm(point) == pytest.approx(0.5, rel=1e-15)
    assert point @ z / (np.linalg.norm(point) * np.linalg.norm(z)) == pytest.approx(-1.0, rel=1e-15)


# -- Theorem 1's rate criterion ---------------------------------------------------------------------------------


def _rate_run(t, values) -> SimpleNamespace:
    states = [SimpleNamespace(frobenius=np.array([1.0, np.sqrt(v)])) for v in values]
    return SimpleNamespace(t=np.asarray(t, dtype=float), label="run", initial_layers=(None, None),
                           series=lambda quantity: np.array([quantity(s) for s in states]))


def test_the_rate_window_is_closed_at_1e4_and_1e12() -> None:
    inside = np.logspace(4, 12, 9)
    t = np.concatenate([[9999.5], inside, [1e12 + 0.5]])
    values = np.concatenate([[1e3], np.log(inside), [1e3]])  # L = 2: ‖W_2‖_F² = ln t inside, outliers outside
    decision = ft.norm_growth_rate(Named("one run", [_rate_run(t, values)]))
    assert decision.holds is True and decision.decision.figures["p_over_2_by_L run"] == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("exponent, holds", [(0.5, True), (1.5, True), (0.0, False), (2.0, False)])
def test_the_rate_criterion_at_its_edges(monkeypatch, exponent, holds) -> None:
    monkeypatch.setattr(ft, "fit_rate", lambda t, values, kind: SimpleNamespace(exponent=exponent))
    run = _rate_run(np.logspace(4, 12, 9), np.ones(9))
    assert ft.norm_growth_rate(Named("one run", [run])).holds is holds  # L = 2: p/(2/L) = p


# -- Theorem 2's settling and envelope proxies --------------------------------------------------------------------


def test_final_decades_include_the_checkpoint_exactly_20_decades_back() -> None:
    assert ft.final_decades(np.array([1.0, 1e20])).tolist() == [True, True]
    assert ft.final_decades(np.array([0.5, 1e20])).tolist() == [False, True]


def test_final_rise_of_two_checkpoints() -> None:
    assert ft.final_rise(np.array([1e-5, 1e19, 1e20]), np.array([5.0, 1.0, 2.0])) == 0.5
    assert ft.final_rise(np.array([1e-5, 1e20]), np.array([5.0, 1.0])) == float("inf")


def test_envelope_halves_split_ten_decades_before_the_end() -> None:
    assert ft.envelope_ratio(np.array([1e40, 5e49, 1e60]), np.array([1.0, 3.0, 1.0])) == pytest.approx(1 / 3)
    split = 1e60 / 10.0 ** (ft.SETTLING_DECADES / 2)
    t = np.array([1e41, split, 1e60])
    assert ft.envelope_ratio(t, np.array([1.0, 5.0, 2.0])) == 5.0  # the split itself is in the second half


def test_theorem2_norm_ratio_is_w_prod_over_the_product_of_norms() -> None:
    states = layer_states([[np.array([[2.0, 0.0], [0.0, 0.0]]), np.array([[3.0, 0.0]])]])
    series = ft.theorem2_series(SimpleNamespace(states=states), np.array([1.0, 0.0]))
    assert series["norm_ratio"][0] == pytest.approx(1.0, rel=1e-15)


def _checks(monkeypatch, t, margins, series=None) -> dict:
    count = len(t)
    flat = np.linspace(2.0, 1.0, count)
    arrays = {"ratio": flat, "perp": flat, "v1": flat, "distance": flat, "norm_ratio": np.linspace(0.5, 0.9, count)}
    monkeypatch.setattr(ft, "theorem2_series", lambda run, u_bar: arrays | (series or {}))
    run = SimpleNamespace(t=np.asarray(t, dtype=float), margins=np.asarray(margins, dtype=float)[:, None])
    return ft.theorem2_checks(run, np.array([1.0, 0.0]))


def test_theorem2_reads_margins_from_t_1e4_on(monkeypatch) -> None:
    t = [0.0, 9999.5, 1e4, 1e5, 1e6]
    assert _checks(monkeypatch, t, [-1, -1, 1, 1, 1])["margins_positive"][0] is True
    assert _checks(monkeypatch, t, [1, 1, -1, 1, 1])["margins_positive"][0] is False


@pytest.mark.parametrize("margin, holds", [(0.0, False), (0.5, True), (-0.5, False)])
def test_theorem2_margins_must_be_strictly_positive(monkeypatch, margin, holds) -> None:
    assert _checks(monkeypatch, [0.0, 1e4, 1e5], [1.0, margin, 2.0])["margins_positive"][0] is holds


def test_theorem2_envelope_ratio_at_its_threshold(monkeypatch) -> None:
    monkeypatch.setattr(ft, "envelope_ratio", lambda t, values: ft.ENVELOPE_FACTOR)
    checks = _checks(monkeypatch, [0.0, 1e4, 1e5], [1.0, 1.0, 1.0])
    assert checks["v1_falls"][0] is True and checks["product_falls"][0] is True


def test_theorem2_reports_the_largest_relative_fall(monkeypatch) -> None:
    checks = _checks(monkeypatch, [0.0, 1e4, 1e5, 1e6], [1.0] * 4, {"norm_ratio": np.array([0.9, 0.5, 0.25, 0.25])})
    assert checks["norm_ratio_rises"][0] is False and checks["norm_ratio_rises"][2] == 1.0


class _Draws:
    """Stand-ins for the random data sets of Theorem 2: draw i has the properties ``script[i]``."""

    def __init__(self, script: dict[int, dict]) -> None:
        self.script, self.drawn = script, []

    def ds_random(self, name: str, n: int, d: int):
        if name in [drawn for drawn, _ in self.drawn]:
            raise AssertionError(f"{name} drawn twice")
        self.drawn.append((name, d))
        index = int(name.split("-")[1])
        if index >= 10:
            raise AssertionError("no draw accepted in 10")
        properties = {"spans": True, "duals": [1.0, 1.0], "theta": 1.0} | self.script.get(index, {})
        return SimpleNamespace(name=name, svm=SimpleNamespace(duals=np.array(properties["duals"]), support=[0, 1]),
                               **properties)

    def install(self, monkeypatch) -> None:
        monkeypatch.setattr(ft, "ds_random", self.ds_random)
        monkeypatch.setattr(ft, "max_margin_direction", lambda data: getattr(data, "svm", None))
        monkeypatch.setattr(ft, "spans_space", lambda data, svm: data.spans)
        monkeypatch.setattr(ft, "support_radius", lambda data, svm: data.theta)


def test_theorem2_random_data_alternate_dimensions_2_and_3(monkeypatch) -> None:
    draws = _Draws({})
    draws.install(monkeypatch)
    ctx = SimpleNamespace(pick=lambda quick, full, *rest: full, rng=lambda name: name)
    drawn = ft._theorem2_datasets(ctx)
    assert draws.drawn == [("data-0", 2), ("data-1", 3), ("data-2", 2), ("data-3", 3)]
    assert [data.name for data in drawn.datasets[2:]] == ["data-0", "data-1", "data-2", "data-3"]


def test_theorem2_rejects_draws_at_each_edge(monkeypatch) -> None:
    draws = _Draws({0: {"spans": False}, 1: {"duals": [0.5, 1e-8]}, 2: {"duals": [0.5, 0.5], "theta": ft.THETA_FLOOR}})
    draws.install(monkeypatch)
    drawn = ft._theorem2_datasets(SimpleNamespace(pick=lambda quick, full, *rest: quick, rng=lambda name: name))
    assert [data.name for data in drawn.datasets[2:]] == ["data-2"]  # θ = THETA_FLOOR is enough
    assert list(drawn.rejected.values()) == [1, 1, 0]


# -- the facts inside Theorem 1's proof --------------------------------------------------------------------------


def test_the_misaligned_start_has_equal_norms_and_w3w2_zero() -> None:
    theta = ft.misaligned_equal_norm_start(ds2(), 2.5, np.random.default_rng(0))
    layers = linear_network((2, 2, 2, 1)).matrices(theta)
    assert theta.size == 2 * 2 + 2 * 2 + 2
    assert np.allclose([np.linalg.norm(W) for W in layers], 2.5, rtol=1e-15)
    assert np.all(layers[2] @ layers[1] == 0.0)


def test_the_smallest_working_constant_counts_ratio_one_half_as_working(monkeypatch) -> None:
    monkeypatch.setattr(ft, "upper_product_ratio", lambda state: state.ratio)
    states = [SimpleNamespace(frobenius=np.array([F, F + 1.0]), ratio=r) for F, r in ((1.0, 0.4), (2.0, 0.5),
                                                                                      (3.0, 0.6))]
    run = SimpleNamespace(series=lambda quantity: np.array([quantity(s) for s in states]))
    assert ft.smallest_working_constant(run) == 1.0


def test_the_printed_step_fails_at_equality() -> None:
    assert ft.printed_step_fails(3, 1, 0).holds is True  # ∏ over no factor /2 = 1/2 = C⁰/2


@pytest.mark.parametrize("threshold, worst, holds", [(2.5, -0.5, True), (2.5, 0.0, False), (2.4, -0.5, False)])
def test_step_fails_along_at_its_edges(monkeypatch, threshold, worst, holds) -> None:
    monkeypatch.setattr(ft, "proof_constant_failures", lambda run, exponent: (threshold, worst))
    monkeypatch.setattr(ft, "p2_bounds", lambda runs, shift: ((), ()))
    assert ft.step_fails_along(Named("run", None), 0).holds is holds


@pytest.mark.parametrize("worst, holds", [(0.0, True), (-1e-300, False)])
def test_p2_exists_accepts_a_zero_slack(monkeypatch, worst, holds) -> None:
    monkeypatch.setattr(ft, "proof_constant_failures", lambda run, exponent: (1.0, worst))
    monkeypatch.setattr(ft, "p2_bounds", lambda runs, shift: ())
    run = SimpleNamespace(series=lambda quantity: np.array([2.0]))
    assert ft.p2_exists(Named("run", [(run, None)]), -1).holds is holds


def _p1(risk_value: float, relation: str, scale: float = 8.0):
    data = ds3()
    state = SimpleNamespace(w_prod=scale * max_margin_direction(data).direction)
    run = SimpleNamespace(objective=SimpleNamespace(loss="logistic"), states=[state], risks=np.array([risk_value]))
    return ft.p1_holds(Named("one state", [(run, data)]), relation)


def test_p1_counts_a_checkpoint_with_r_equal_to_epsilon() -> None:
    """M_ε is largest at ε = 0.1, so a state read with R = 0.1 exactly has the slack of ε = 0.1."""
    at, above_it = _p1(0.1, "≤"), _p1(float(np.nextafter(0.1, 1.0)), "≤")
    below_it = _p1(float(np.nextafter(0.1, 0.0)), "≤")
    slack = "min_relative_slack"
    assert at.decision.figures[slack] == above_it.decision.figures[slack] < below_it.decision.figures[slack]


def test_p1_threshold_is_minus_1e_9_relative() -> None:
    """Read with R = 1e-3, the state is checked at ε = 1e-4 only, in both directions."""
    holds, reversed_ = _p1(1e-3, "≤", 22.0), _p1(1e-3, "≥", 22.0)
    slack = holds.decision.figures["min_relative_slack"]
    assert 1e-3 < slack < 0.9 and reversed_.decision.figures["min_relative_slack"] == -slack
    assert holds.holds is True and reversed_.holds is False


class _DipLoss(MarginLoss):
    """ℓ(q) = 3e^(−q)(1 + δ + q + q²/2): −ℓ'(q) = 3e^(−q)(δ + q²/2) > 0, ℓ → ∞ at −∞ and 0 at ∞ (Assumption 1),
    not convex: −ℓ' dips to 3δ at q = 0. ℓ(0) > 2, so nℓ(0) and n/ℓ(0) lie on either side of ℓ(0) for n = 4."""

    name = "dip"
    delta = 1e-6

    def value(self, q):
        q = np.asarray(q, dtype=float)
        return 3.0 * np.exp(-q) * (1 + self.delta + q + q * q / 2)

    def log_value(self, q):
        q = np.asarray(q, dtype=float)
        return np.log(3.0) - q + np.log(1 + self.delta + q + q * q / 2)

    def log_neg_derivative(self, q):
        q = np.asarray(q, dtype=float)
        return np.log(3.0) - q + np.log(self.delta + q * q / 2)


def test_m_epsilon_minimizes_from_the_inverse_of_n_times_l0() -> None:
    """The interval of (P1)'s M_ε starts at ℓ^(−1)(nℓ(0)) < 0, so it holds the dip of −ℓ' at 0."""
    loss = _DipLoss()
    assert ft.loss_inverse(loss, ds2().n * ft.loss_at_zero(loss)) < 0.0
    assert 2.9e-6 < ft.smallest_slope(loss, ds2(), 0.1) < 3.1e-6
    high = ft.loss_inverse("logistic", 0.1 / ds2().n)  # −ℓ' = 1/(1 + e^q) decreases: M_ε = −ℓ'(high)
    assert ft.smallest_slope("logistic", ds2(), 0.1) == pytest.approx(1.0 / (1.0 + np.exp(high)), rel=1e-12)


def test_p4_reports_the_slack_of_the_product_of_spectral_norms() -> None:
    state = layer_states([[np.eye(2), np.array([[1.0, 0.0]])]])[0]  # ∏σ = 1, ∏F = √2, ‖w_prod‖ = 1
    decision = ft.p4_holds(Named("one state", [(SimpleNamespace(states=(state,)), None)]), 10.0)
    assert decision.decision.figures["min_relative_slack"] == pytest.approx((np.sqrt(2) - 1) / np.sqrt(2), rel=1e-12)


# -- align.testing -------------------------------------------------------------------------------------------------


def test_naive_angle_of_a_vector_with_itself_is_zero_though_its_cosine_rounds_above_1() -> None:
    a = np.array([-0.7322673547034516, -0.5442589828573099, -0.31630015636915454])
    assert a @ a / (np.linalg.norm(a) * np.linalg.norm(a)) > 1.0
    assert ft.naive_angle(a, a) == 0.0


def test_rank_one_identity_on_no_matrix_reports_no_error() -> None:
    decision = ft.rank_one_identity_holds(ft._rank_one_identity, Named("none", []))
    assert decision.holds is True and decision.decision.figures["max_abs_error"] == 0.0


def test_angles_are_measured_against_a_unit_target() -> None:
    targets = []

    def recorded(w, u):
        targets.append(u)
        return angle(w, u)

    assert ft.angle_accurate(recorded).holds is True
    assert len(targets) == 10 and all(np.linalg.norm(u) == 1.0 for u in targets)


def test_the_horizon_cost_may_double(monkeypatch) -> None:
    class Counted:
        def __init__(self, objective) -> None:
            pass

        def solve(self, theta0, horizon, clock, t_eval):
            return SimpleNamespace(nfev=10 if horizon == 1.0 else 20)

    monkeypatch.setattr(ft, "GradientFlow", Counted)
    assert ft.horizon_cost_bounded(Named("start", (None, None)), "log", 1.0, 2.0).holds is True
