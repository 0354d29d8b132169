"""Paper 001's setting helpers (``definitions``) at their edges: the named instances are the networks their names
say, thresholds at exact ties, refusals, and helpers against closed forms."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import sympy

from numerics.networks import fully_connected
from theorems.margin_maximization import common as C
from theorems.margin_maximization import definitions as D


def _fields(layer) -> list[set[int]]:
    """The input coordinates each row of a layer reads, from its parameter basis."""
    used = (D._basis(layer) != 0).any(axis=0)
    return [set(np.flatnonzero(row).tolist()) for row in used]


# -- the networks of margin.def.nets are the ones their names say ---------------------------------------------------
def test_symbolic_output_numbers_hidden_layers_from_one() -> None:
    net = fully_connected([2, 2, 2, 1], "linear")
    phi = D.symbolic_output(net, D.symbolic_parameters(net), D.symbolic_input(2), D.relu_region())
    assert {str(s) for s in phi.free_symbols if str(s).startswith("s")} == {"s1_0", "s1_1", "s2_0", "s2_1"}


def test_relu_identities_hold_on_the_three_cases() -> None:
    assert D.relu_identities() == {"positively homogeneous": True, "σ(z) = σ'(z)z": True}


def test_net_instances_are_the_named_architectures() -> None:
    shapes = {name: [layer.shape for layer in build("linear").layers]
              for name, build in (D.NET_INSTANCES | D.NO_UNIT_INSTANCES).items()}
    assert shapes["fully connected 2-3-2-1"] == [(3, 2), (2, 3), (1, 2)]
    assert shapes["diagonal d = 2, depth 3"] == [(2, 2), (2, 2), (1, 2)]
    assert shapes["locally connected d = 4, fields {1,2},{2,3},{3,4}"] == [(3, 4), (1, 3)]
    assert shapes["2-patch convolution"] == [(2, 4), (1, 2)]
    assert shapes["one layer d = 2 (no hidden unit)"] == [(1, 2)]
    local = D.NET_INSTANCES["locally connected d = 4, fields {1,2},{2,3},{3,4}"]("linear")
    assert _fields(local.layers[0]) == [{0, 1}, {1, 2}, {2, 3}]
    assert local.layers[0].n_params == 6  # its own weight per field entry


def test_membership_layers_are_the_named_layers() -> None:
    layers = {name: build() for name, build in D.MEMBERSHIP_LAYERS.items()}
    assert {name: layer.shape for name, layer in layers.items()} == {
        "fully connected": (3, 2), "diagonal": (2, 2), "locally connected": (2, 3), "2-patch convolution": (2, 4)}
    assert _fields(layers["diagonal"]) == [{0}, {1}] and layers["diagonal"].n_params == 2
    assert _fields(layers["locally connected"]) == [{0, 1}, {1, 2}] and layers["locally connected"].n_params == 4
    assert _fields(layers["2-patch convolution"]) == [{0, 1}, {2, 3}] and layers["2-patch convolution"].n_params == 2


# -- losses ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("loss", ["exponential", "logistic"])
def test_separates_is_strict_at_the_threshold(loss: str) -> None:
    level = float(C.separation_threshold(loss).a)
    assert not D.separates(loss, level)
    assert D.separates(loss, float(np.nextafter(level, 0)))


# -- Problem (2): the degree in Euler's identity ---------------------------------------------------------------------
def test_construction_identities_use_the_model_degree_plus_the_offset() -> None:
    degree = C.construction("thm3.2").model.degree
    found = D.construction_identities("thm3.2")
    assert found.kkt and found.euler and found.degree == degree
    shifted = D.construction_identities("thm3.2", 1)
    assert shifted.degree == degree + 1 and not shifted.euler


# -- App. B: sampled limits and the Clarke LP ------------------------------------------------------------------------
def test_clarke_limits_report_the_sampled_distance_itself() -> None:
    """At a smooth point with a small input every gradient within radius r of θ is within 0.23·r of ∇f."""
    unit = fully_connected([2, 1, 1], "relu")
    theta, x = np.array([2.0, 1.0, 1.5]), np.array([0.1, 0.2])
    gradient = np.array([1.5 * 0.1, 1.5 * 0.2, 0.4])  # (v x, wᵀx)
    worst, hits = D.clarke_limits(unit, theta, x, [gradient], np.random.default_rng(0))
    assert 0 < worst <= float(np.linalg.norm(x)) + 1e-6 and hits == [40]


@pytest.mark.parametrize(("worst", "hits", "holds"), [(10.0, [1, 39], True), (9.5, [40], True),
                                                     (10.5, [40], False), (1.0, [0, 40], False)])
def test_sampled_limits_threshold_at_its_edges(monkeypatch, worst: float, hits: list[int], holds: bool) -> None:
    monkeypatch.setattr(D, "clarke_limits", lambda *args: (worst, hits))
    assert D.SAMPLED_LIMITS(np.zeros(3), np.zeros((len(hits), 3)), 0).holds is holds


def test_clarke_kkt_accepts_a_slope_at_the_top_of_the_segment() -> None:
    interior = C.edited("kink slope 3/4", D.interior_slope_document())
    assert D.CLARKE_KKT(interior, sympy.Rational(3, 4)).holds
    assert D.CLARKE_KKT(interior, 1, sympy.Rational(3, 4)).holds


# -- Theorem 2.1 -----------------------------------------------------------------------------------------------------
def test_teacher_labels_a_point_on_the_teacher_hyperplane_positive() -> None:
    X, w = np.array([[1.0, -1.0], [2.0, 1.0], [-1.0, 0.0]]), np.array([1.0, 1.0])
    draws = iter([X, w])
    X_out, y = D.teacher_data(SimpleNamespace(normal=lambda size: next(draws)), 3, 2)
    assert y.tolist() == [1.0, 1.0, -1.0]


def test_dead_sample_flow_against_its_closed_form() -> None:
    """Balanced start (‖w‖ = |v|) with w on the ray (1, 0): at ‖θ‖ = N, w = (N/√2, 0), v = N/√2, so the first
    margin is N²/2; the second sample never activates the unit."""
    start, dead, margins = D.dead_sample_flow(10.0)
    assert start == pytest.approx(np.log1p(np.exp(-2.25)) + np.log(2), rel=1e-12)
    assert margins[0] == pytest.approx(50.0, rel=1e-6) and margins[1] == 0
    assert dead.status == "infeasible"


def test_dead_sample_flow_toward_norm_100_moves_balanced_until_the_gradient_underflows() -> None:
    """The flow toward ‖θ‖ = 100 stops early (the first sample's loss gradient e^(−q) underflows near q ≈ 717), but
    far from its start: balanced there, q_1 = ‖θ‖²/2, and the KKT test reads the point where it stopped."""
    _, dead, margins = D.dead_sample_flow()
    reached = float(np.linalg.norm(dead.theta))
    assert 30 < reached < D.DEAD_SAMPLE_NORM and margins[0] == pytest.approx(reached**2 / 2, rel=1e-6)
    assert margins[1] == 0 and dead.status == "infeasible"


def _residuals(norms) -> tuple[float, ...]:
    return tuple(1.0 / n for n in norms)


def test_kkt_proxy_at_its_edges() -> None:
    norms = D.FLOW_NORMS
    residuals, log_losses = _residuals(norms), tuple(-n for n in norms)
    # a single norm: only L < ℓ(0) and the threshold are judged
    assert D.KKT_PROXY(True, (1e-3,), (-1.0,), 1e-2).holds
    # the final residual, not the one before it, is compared with the threshold
    assert D.KKT_PROXY(True, residuals, log_losses, 5e-4).holds
    assert not D.KKT_PROXY(True, residuals, log_losses, 3e-4).holds
    # the fitted exponent may equal the ceiling
    settled = np.array(norms) >= D.SETTLED_NORM
    exponent = D.fit_rate(np.array(norms)[settled], np.array(residuals)[settled]).exponent
    assert D.KKT_PROXY(True, residuals, log_losses, 1e-2, exponent).holds
    # four norms leave two past SETTLED_NORM: no rate is fitted (a fit needs three points), and the proxy refuses
    short = D.KKT_PROXY(True, residuals[:4], log_losses[:4], 1e-2)
    assert short.holds is False and "fitted exponent nan" in short.decision.detail


# -- Sec. 2: factorizations -------------------------------------------------------------------------------------------
def test_minimal_factorization_refuses_a_slightly_infeasible_answer(monkeypatch) -> None:
    import scipy.optimize

    from numerics.networks import diagonal

    net, beta = diagonal(2, 2, "linear"), np.array([1.0, 2.0])
    for offset, expected in ((0.0, 7.0), (1e-3, np.inf)):  # w = (1, 2), v = (1, 1 + offset)
        answer = SimpleNamespace(success=True, x=np.array([1.0, 2.0, 1.0, 1.0 + offset]))
        monkeypatch.setattr(scipy.optimize, "minimize", lambda *args, answer=answer, **kwargs: answer)
        assert D.minimal_factorization(net, beta, np.random.default_rng(0), starts=1) == expected


def test_balanced_factorizations_with_a_zero_coordinate() -> None:
    assert D.balanced_factorizations(np.array([1.5, 0.0, -2.0]), 3, 3).holds


@pytest.mark.parametrize("widths", [(2, 2, 1), (2, 3, 2, 1)])
def test_aligned_document_has_margin_one_and_the_stated_norm(widths: tuple[int, ...]) -> None:
    """Data whose SVM is u = (1/2, 1/2) (‖u‖² = 1/2, not a unit coordinate vector): the point computes
    x ↦ ⟨u, x⟩, so the margins are exactly 1, 1, 3/2, and ‖θ‖² = m‖u‖^(2/m)."""
    X, y = np.array([[1, 1], [2, 0], [-1, -2]]), np.array([1, 1, -1])
    c = C.built(C.edited("aligned", D.aligned_document(X, y, widths)))
    outputs = [sympy.nsimplify(sympy.simplify(v)) for v in np.ravel(c.model.forward(c.theta, c.X))]
    assert outputs == [1, 1, sympy.Rational(-3, 2)]
    m = len(widths) - 1
    squared = sympy.simplify(sum(sympy.sympify(t) ** 2 for t in c.theta))
    assert sympy.simplify(squared - m * sympy.Rational(1, 2) ** sympy.Rational(1, m)) == 0
