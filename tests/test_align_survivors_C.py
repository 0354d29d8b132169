"""Paper 003's gradient-descent and figure modules at their edges: helpers against closed forms, criteria at exact
ties, the refusals and the loops the claims' instances never reach (descent_runs, descent_theorems, figures)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from flint import arb, arb_mat

import theorems.layer_alignment.descent_runs as runs
import theorems.layer_alignment.descent_theorems as thm
import theorems.layer_alignment.figures as fig
from numerics.descent import DescentRun, max_layer_norm
from numerics.metrics import angle
from numerics.trends import RateFit
from theorems.layer_alignment.common import (
    Dataset,
    admissible_initialization,
    ds2,
    ds3,
    initialization_constant,
    linear_network,
    risk,
    satisfies_assumption2,
)
from theorems.layer_alignment.criteria import Named
from verify.claim import Context, Profile

# -- descent_runs: Assumption 5's step rule ----------------------------------------------------------------------------

SMOOTH = runs.LossRegularity(smoothness=0.1, lipschitz=0.1)  # β(1) = 0.4 for L = 1: 1/β(1) > 1, the cap binds


def test_assumption5_steps_are_capped_at_one() -> None:
    assert runs.largest_assumption5_step(1, SMOOTH) == 1.0
    assert runs.largest_assumption5_step(2) == 1.0 / runs.ball_smoothness(2, 1.0)
    rule = runs.assumption5_rule(linear_network((1, 1)), np.array([0.5]), SMOOTH)
    assert rule.step_size(1.0) == 1.0 and rule.radius == 1.0
    logistic = runs.assumption5_rule(linear_network((2, 3, 1)), np.full(9, 0.1))
    assert logistic.step_size(3.0) == 1.0 / runs.ball_smoothness(2, 3.0)
    literal = runs.GaugeRadiusStep(lambda radius: 0.1, lambda theta: 0.0, radius=1.0)
    assert literal(0, np.zeros(2), np.zeros(2)) == 1.0


def test_descent_clock_starts_at_zero() -> None:
    trace = runs.DescentTrace(None, np.zeros((3, 1)), np.zeros((2, 1)), np.array([0.5, 0.25]), np.zeros(3),
                              np.array([]))
    assert trace.clock.tolist() == [0.0, 0.5, 0.75]


def _deep_trace(steps: int = 12) -> runs.DescentTrace:
    objective = risk(linear_network((3, 3, 2, 1)), ds3(), "logistic")
    theta0 = admissible_initialization(objective, np.random.default_rng(3), 0.6)
    return runs.descent_trace(objective, theta0, steps, 0.5)


def test_gram_balance_has_one_term_per_adjacent_pair() -> None:
    objective = risk(linear_network((3, 3, 2, 1)), ds3(), "logistic")
    theta0 = admissible_initialization(objective, np.random.default_rng(3), 0.6)
    balance = runs.gram_balance(objective, theta0, [0.5] * 4)
    for terms in (balance.upper_change, balance.lower_change, balance.upper_squares, balance.lower_squares):
        assert len(terms) == 2  # pairs (1, 2) and (2, 3) of L = 3 layers


# -- descent_runs: Lemma 8's terms against their definitions -----------------------------------------------------------

def _grams(trace: runs.DescentTrace) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """P_k(t), Q_k(t) summed step by step from the layer gradients."""
    lower, upper = [], []
    for G in trace.layer_gradients:
        P = [np.zeros((G.shape[1], G.shape[1]))]
        Q = [np.zeros((G.shape[2], G.shape[2]))]
        for eta, g in zip(trace.step_sizes, G):
            P.append(P[-1] + eta**2 * g @ g.T)
            Q.append(Q[-1] + eta**2 * g.T @ g)
        lower.append(np.array(P))
        upper.append(np.array(Q))
    return lower, upper


def test_lemma8_terms_match_their_definitions() -> None:
    trace = _deep_trace()
    terms = runs.Lemma8Terms(trace)
    P, Q = _grams(trace)
    tr = lambda M: np.trace(M, axis1=1, axis2=2)  # noqa: E731
    norm = lambda M: np.linalg.norm(M, 2, axis=(1, 2))  # noqa: E731
    W = trace.layers
    layers0 = [w[0] for w in W]
    assert terms.D == pytest.approx(initialization_constant(layers0), rel=1e-14)
    # (a)'s sharp bound for k = 1: D_1 + Σ_{j=1}^{2} (tr P_j − tr Q_{j+1} + ‖Q_{j+1}‖_2)
    extra = sum(tr(P[j]) - tr(Q[j + 1]) + norm(Q[j + 1]) for j in (0, 1))
    np.testing.assert_allclose(terms.sharp_excess_bound(1), terms.D_per_layer[0] + extra, rtol=1e-12, atol=1e-15)
    # (b)'s extra term for k = 1: tr P_2 + ‖P_1‖_2 + ‖Q_2‖_2
    np.testing.assert_allclose(terms.sharp_alignment_extra(1), tr(P[1]) + norm(P[0]) + norm(Q[1]), rtol=1e-12,
                               atol=1e-15)
    # (b)'s slack for k = 1: ⟨v_2, u_1⟩² − (1 − (D + ‖W_2(0)‖² + ‖W_1(0)‖² + extra)/σ_2²)
    sigma2 = np.linalg.norm(W[1], 2, axis=(1, 2))
    u1 = np.linalg.svd(W[0])[0][:, :, 0]
    v2 = np.linalg.svd(W[1])[2][:, 0, :]
    numerator = terms.D + np.linalg.norm(layers0[1], 2) ** 2 + np.linalg.norm(layers0[0], 2) ** 2 + 0.25
    expected = np.sum(v2 * u1, axis=1) ** 2 - (1.0 - numerator / sigma2**2)
    np.testing.assert_allclose(terms.alignment_slack(1, 0.25), expected, rtol=1e-10, atol=1e-12)


# -- descent_runs: ball arithmetic ------------------------------------------------------------------------------------

def test_ball_rank_one_excess_of_a_tall_matrix() -> None:
    W = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])  # two columns, three rows: WᵀW is the 2×2 Gram
    excess = runs.ball_rank_one_excess(runs.rational_array(W))
    assert float(excess.mid()) == pytest.approx(np.linalg.svd(W, compute_uv=False)[1] ** 2, rel=1e-13)


def test_ball_symmetric_norm_of_a_one_by_one_matrix() -> None:
    assert float(runs.ball_symmetric_norm(arb_mat([[arb(-3)]])).mid()) == 3.0


def test_ball_initialization_constant_when_the_first_layer_is_largest() -> None:
    layers = [np.array([[3.0, 1.0], [0.5, 2.0]]), np.array([[0.25, 0.5]])]
    D = runs.ball_initialization_constant([runs.rational_array(W) for W in layers])
    assert float(D.mid()) == pytest.approx(initialization_constant(layers), rel=1e-13)


# -- descent_runs: the starts -----------------------------------------------------------------------------------------

def test_balanced_admissible_initialization() -> None:
    objective = risk(linear_network((3, 4, 4, 1)), ds3(), "logistic")
    theta = runs.balanced_admissible_initialization(objective, np.random.default_rng(0), 0.8)
    assert theta.shape == (objective.model.n_params,) and satisfies_assumption2(objective, theta)
    assert initialization_constant(objective.model.matrices(theta)) == pytest.approx(0.0, abs=1e-12)


def test_unit_ball_starts_are_redrawn_until_inside_the_closed_ball(monkeypatch) -> None:
    """Starts of max_k ‖W_k‖_F = 1.5, then exactly 1 (on the boundary of B(1): kept), then 0.5."""
    draws: dict[int, int] = {}

    def draw(objective, rng, scale):
        norm = (1.5, 1.0, 0.5)[draws.setdefault(id(objective), 0)]
        draws[id(objective)] += 1
        theta = np.zeros(objective.model.n_params)
        theta[0] = norm
        return theta

    monkeypatch.setattr(runs, "admissible_initialization", draw)
    cases = runs.standard_cases(Context("align.lem8", Profile.QUICK, 1))
    assert [max_layer_norm(case.objective.model)(case.theta0) for case in cases] == [1.0, 1.0]


# -- descent_theorems: checkpoints and proxies -------------------------------------------------------------------------

def test_last_decade_includes_its_first_time() -> None:
    assert thm.last_decade(np.array([1.0, 10.0, 100.0])).tolist() == [False, True, True]


def test_theorem3_proxies_match_their_definitions() -> None:
    trace = _deep_trace(30)
    p = thm.proxies(trace, -1, count=5)
    for t, gap, deficit in zip(p.steps, p.rank_one_gap, p.product_deficit):
        layers = [W[t] for W in trace.layers]
        sigma = [np.linalg.norm(W, 2) for W in layers]
        frobenius = [np.linalg.norm(W) for W in layers]
        np.testing.assert_allclose(gap, 1.0 - np.array(sigma) / frobenius, rtol=1e-9, atol=1e-14)
        w_prod = np.linalg.multi_dot(layers[::-1]).ravel()
        last = np.linalg.svd(layers[0])[2][-1]  # vector −1: the last right singular vector of W_1
        assert deficit == pytest.approx(1.0 - abs(w_prod @ last) / np.prod(frobenius), rel=1e-12)


def _proxies(time: np.ndarray, risks: np.ndarray, norms: np.ndarray) -> thm.Proxies:
    frobenius = np.stack([norms, norms], axis=1)
    return thm.Proxies(np.arange(len(time)), time, risks, frobenius, np.zeros_like(frobenius), 1.0 / time)


TIME = np.geomspace(1.0, 1e4, 40)


def test_theorem3_risk_rise_is_allowed_relative_to_the_risk(monkeypatch) -> None:
    """At risk 1e-3 a rise of 1e-8 is far above MONOTONE_RTOL·R (1e-12): the risk did not fall at that step."""
    monkeypatch.setattr(thm, "proxies", lambda trace, vector: _proxies(TIME, 1e-3 / TIME, np.log(TIME + 2)))
    risk_steps = 1e-3 / np.geomspace(1.0, 1e4, 41)
    risk_steps[5] = risk_steps[4] + 1e-8
    trend = thm.theorem3_trend(SimpleNamespace(risk=risk_steps), 0)
    assert trend["risk_nonincreasing_every_step"] is False


def test_theorem3_norms_must_grow_not_only_stay(monkeypatch) -> None:
    """Norms that grow before the last decade and stay constant in it: monotone there, but no growth."""
    norms = np.minimum(np.log(TIME + 2), np.log(TIME[25] + 2))
    monkeypatch.setattr(thm, "proxies", lambda trace, vector: _proxies(TIME, 1.0 / TIME, norms))
    trend = thm.theorem3_trend(SimpleNamespace(risk=1.0 / np.geomspace(1.0, 1e4, 41)), 0)
    assert trend["min_norm_growth_late"] == 1.0 and trend["norms_increasing_late"] is False


def test_theorem3_risk_drop_at_its_edge(monkeypatch) -> None:
    """The last checkpoint's risk exactly R(W(0))/drop (powers of 2: no rounding) counts as down by the factor."""
    risks = 2.0**-10 * (TIME[-1] / TIME)
    assert risks[-1] == 2.0**-10 and risks[-2] > 2.0**-10
    monkeypatch.setattr(thm, "proxies", lambda trace, vector: _proxies(TIME, risks, np.log(TIME + 2)))
    risk_steps = np.concatenate([[1.0, 0.5], np.full(38, 2.0**-9), [2.0**-10]])
    trend = thm.theorem3_trend(SimpleNamespace(risk=risk_steps), 0, drop=2.0**10)
    assert trend["risk_falls"] is True
    assert thm.theorem3_trend(SimpleNamespace(risk=risk_steps), 0, drop=2.0**10 * 1.0001)["risk_falls"] is False


def _fit(exponent: float):
    return lambda x, y, scale="power": RateFit(exponent, 1.0, 1.0, len(x))


def test_rate_exponents_at_their_edges(monkeypatch) -> None:
    """A fitted exponent equal to the one asked for is a decay at that rate (Theorems 3 and 4's proxies)."""
    monkeypatch.setattr(thm, "proxies", lambda trace, vector: _proxies(TIME, 1.0 / TIME, np.log(TIME + 2)))
    monkeypatch.setattr(thm, "fit_rate", _fit(thm.RISK_EXPONENT))
    assert thm.theorem3_trend(SimpleNamespace(risk=1.0 / np.geomspace(1.0, 1e4, 41)), 0)["risk_falls"] is True
    monkeypatch.setattr(thm, "fit_rate", _fit(thm.PROXY_EXPONENT))
    falling = 0.1 / np.log(TIME + 2)
    assert thm.converging(thm.Alignment(TIME, falling, falling, falling))[0] is True
    monkeypatch.setattr(thm, "alignment", lambda trace, target, count=40: thm.Alignment(TIME, falling, falling,
                                                                                         falling))
    proxy = thm.theorem4_part(Named("one run", [("run", None)]), Named("e_1", np.array([1.0, 0.0])), "product")
    assert proxy.holds is True


def test_singular_deficit_is_never_negative() -> None:
    """W_1 = a tᵀ: its top right singular vector v_1 and the unit vector t have ⟨v_1, t⟩ = 1 + 2⁻⁵² in float64."""
    t = np.array([-0.654, -0.13, 0.784])
    W1 = np.outer(np.array([1.493, -1.259, 1.514]), t)
    t = t / np.linalg.norm(t)
    trace = SimpleNamespace(steps=1, clock=np.array([0.0, 1.0]), layers=[np.stack([W1, W1]),
                                                                            np.ones((2, 1, 3))])
    assert np.all(thm.alignment(trace, t, 2).singular_deficit >= 0.0)


def test_past_the_overshoot_lengthens_threefold_twice(monkeypatch) -> None:
    requested: list[int] = []

    def run(objective, theta0, steps):
        requested.append(steps)
        return SimpleNamespace(steps=steps)

    rising = np.linspace(0.1, 0.2, 40)
    monkeypatch.setattr(thm, "assumption5_trace", run)
    monkeypatch.setattr(thm, "alignment", lambda trace, target: thm.Alignment(TIME, rising, rising, rising))
    assert thm.past_the_overshoot(None, None, 10, None).steps == 90 and requested == [10, 30, 90]
    requested.clear()
    monkeypatch.setattr(thm, "alignment", lambda trace, target: thm.Alignment(
        TIME, rising if trace.steps == 10 else rising[::-1], rising, rising))
    assert thm.past_the_overshoot(None, None, 10, None).steps == 30 and requested == [10, 30]


def test_theorem4_data_accepts_duals_below_one() -> None:
    """DS3 scaled by 2: γ = 1, the same support, duals 1/3 (DS3's are 4/3)."""
    data = ds3()
    doubled = Dataset("2·DS3", 2 * data.Z, 2 * data.exact_Z)
    decision = thm.theorem4_data(doubled)
    assert decision.holds is True and decision.decision.figures["smallest_support_dual"] < 1


# -- figures: Figure 1 ------------------------------------------------------------------------------------------------

def test_figure1_data_keeps_only_points_past_the_gap() -> None:
    """x = (0, 0.6) has score exactly 0.6: rejected; (0, 1) is kept."""
    draws = iter([0.0, 0.6, 0.0, 1.0])
    data = fig.figure1_data(SimpleNamespace(uniform=lambda low, high: next(draws)), 1)
    assert data.Z.tolist() == [[0.0, 1.0]]


def _exact_fraction(value: float, width: float) -> float:
    """A fraction f with f·width == value exactly in float64."""
    f = value / width
    for _ in range(64):
        if f * width == value:
            return f
        f = np.nextafter(f, np.inf if f * width < value else -np.inf)
    raise AssertionError("no exact fraction")


def test_same_separator_at_its_edges() -> None:
    data = ds2()
    low, high = fig.separating_arc(data)
    u_bar = fig._max_margin(data)
    w = fig._rotated(u_bar, 0.1 * (high - low))
    at = float(angle(w, u_bar))
    fraction = _exact_fraction(at, high - low)
    assert fig.same_separator(Named("both at the tolerance", (data, {"a": w, "b": w})), fig._max_margin,
                              fraction).holds is True
    sides = {"a": w, "b": fig._rotated(u_bar, -0.1 * (high - low))}
    mutual = float(angle(sides["a"], sides["b"]))
    fraction = _exact_fraction(mutual, high - low)
    assert fig.same_separator(Named("apart by the tolerance", (data, sides)), fig._max_margin, fraction).holds is True


def _fig1_run(risks: list[float], ratios: list[float]) -> Named:
    """A run of the 1-1-1 network whose W_1 entry is the quantity read and whose W_2 = 1."""
    theta = np.array([[r, 1.0] for r in ratios])
    run = DescentRun(np.arange(len(risks)), theta, np.array(risks), np.zeros(len(risks) - 1))
    return Named("a stand-in run", (linear_network((1, 1, 1)), run))


def _entry(W: np.ndarray) -> float:
    return float(W[0, 0])


def test_rise_with_risk_reads_the_plateau_from_the_initial_risk() -> None:
    # the ratio falls while the risk is above half its initial value (0.05), then rises
    assert fig.rise_with_risk(_fig1_run([0.1, 0.09, 0.08, 0.04, 0.02, 0.005], [0.5, 0.4, 0.3, 0.35, 0.4, 0.45]),
                              _entry).holds is True
    # the ratio falls once the risk is below half the initial value (but above half the second risk)
    assert fig.rise_with_risk(_fig1_run([0.1, 0.02, 0.015, 0.008, 0.004, 0.002], [0.5, 0.6, 0.5, 0.55, 0.6, 0.65]),
                              _entry).holds is False


def test_rise_with_risk_reads_the_final_risk_strictly() -> None:
    rising = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
    assert fig.rise_with_risk(_fig1_run([0.1, 0.05, 0.03, 0.02, 0.011, 0.009], rising), _entry).holds is True
    assert fig.rise_with_risk(_fig1_run([0.1, 0.05, 0.03, 0.02, 0.015, 0.01], rising), _entry).holds is False


# -- figures: Figure 2 ------------------------------------------------------------------------------------------------

def test_dense_shapes_are_the_cnns() -> None:
    model = fig.digits_cnn(0, None)
    assert tuple(tuple(layer.weight.shape) for layer in fig.dense_layers(model)) == fig.DENSE_SHAPES


def test_single_thread_limits_torch_and_blas() -> None:
    import torch
    from threadpoolctl import threadpool_info

    before = torch.get_num_threads()
    with fig._single_thread():
        assert torch.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    assert torch.get_num_threads() == before


def test_alignment_emerges_at_its_edges() -> None:
    bounds = tuple(1.0 / np.sqrt(min(shape)) for shape in fig.DENSE_SHAPES)
    start = np.array([0.05, 0.05, 0.3])
    edge = 2 * np.asarray(bounds)  # the wide layers end exactly at 2× their bounds
    edge[2] = 0.4
    assert fig.alignment_emerges(Named("at 2×", {"run": (None, None, np.stack([start, edge]))}), bounds).holds
    stuck = edge.copy()
    stuck[2] = start[2]  # the output layer ends where it started
    assert not fig.alignment_emerges(Named("stuck", {"run": (None, None, np.stack([start, stuck]))}), bounds).holds
    below = start + 0.01  # a checkpoint before the last, below 2× the bounds: only the last one is read
    assert fig.alignment_emerges(Named("late", {"run": (None, None, np.stack([start, below, edge]))}), bounds).holds

