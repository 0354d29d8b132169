"""Paper 001's helpers refuse inputs that fail exactly one of their conditions (the flow judged, exact KKT, ...)."""

from __future__ import annotations

import numpy as np
import pytest

from theorems.margin_maximization import common as C
from theorems.margin_maximization.derived import kkt_identities, witness_interval
from theorems.margin_maximization.positive import NONZERO_SHARE, SETTLED, settled
from theorems.margin_maximization.remarks import reduction_solves


def test_settled_needs_a_flow_non_zero_units_and_a_settled_value() -> None:
    assert settled({"share": 2 * NONZERO_SHARE, "drift": SETTLED / 2})
    assert settled(None) is False  # no flow reached the norms
    assert not settled({"share": NONZERO_SHARE / 2, "drift": SETTLED / 2})  # a vanishing unit
    assert not settled({"share": 2 * NONZERO_SHARE, "drift": 2 * SETTLED})  # R(θ̂) still drifting


def test_reduction_solves_only_the_stated_solution() -> None:
    assert reduction_solves(3) and reduction_solves(4)
    # (2 − xτ)^(−1) still solves da/dτ = x a², but starts at a(0) = 1/2
    assert not reduction_solves(3, start=2)
    # (1 − xτ)^(−1/2) starts at 1 but solves another equation
    assert not reduction_solves(3, root=2)


def test_kkt_identities_refuse_an_inexact_kkt_point() -> None:
    """Theorem 3.2's θ̃ in floating point is a KKT point, but not an exact one: no exact identity is claimed."""
    c = C.construction("thm3.2")
    theta = np.asarray(c.theta, dtype=float)
    found = kkt_identities(c.model, theta, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float))
    assert found.status == "kkt" and not found.exact and not found.kkt
    assert not (found.euler or found.layers) and found.squared is None
    assert kkt_identities(c.model, c.theta, c.X, c.Y).kkt


def test_every_euler_criterion_refuses_float_multipliers() -> None:
    """The float file is a KKT point by the numeric test, with float multipliers: each criterion built on the exact
    identities refuses it, and accepts the exact file of the same construction."""
    from theorems.margin_maximization.constructions import EULER_AT_KKT
    from theorems.margin_maximization.definitions import IDENTITIES
    from theorems.margin_maximization.derived import EULER

    degree = C.construction("thm4.4-linear").model.degree
    for name, exact in (("thm4.4-linear", True), ("thm4.4-float", False)):
        assert EULER_AT_KKT(C.source(name), degree).holds is exact
        assert EULER(C.source(name), degree).holds is exact
        assert IDENTITIES(name, 0, False).holds is exact


def test_witness_interval_reads_only_the_named_check_with_a_witness() -> None:
    document = C.document("thm3.2")
    local = next(p for p in document["properties"] if p["check"] == "local_optimum")
    assert witness_interval("thm3.2", "local_optimum") == f"(0, {local['witness']['eps_max']}]"
    # the KKT property has no witness curve, though another property of the file has one
    assert any("witness" in p for p in document["properties"])
    with pytest.raises(StopIteration):
        witness_interval("thm3.2", "kkt")



def test_curve_shortens_needs_each_step_of_the_concavity_argument() -> None:
    """App. C.8's step: g(0) = 2, g'(0) = 0 and g'' = p(p − 1)·(positive); each curve below breaks exactly one."""
    from theorems.margin_maximization.constructions_deep import curve_shortens

    assert curve_shortens(3)[0]
    assert not curve_shortens(3, lambda e: (2 + e, 2 - e))[0]  # g(0) = 2·2^(2/3) ≠ 2
    assert not curve_shortens(3, lambda e: (1 + e, 1 + e))[0]  # g'(0) = 4/3 ≠ 0
    assert not curve_shortens(3, lambda e: (1 + 2 * e, 1 - 2 * e))[0]  # g'' = 4p(p − 1)·(…), not p(p − 1)·(…)


def test_relu_margin_step_needs_positive_outputs_and_the_relu_gain() -> None:
    import sympy

    from theorems.margin_maximization.constructions_depth2 import paper_relu_margin_step

    assert paper_relu_margin_step()[1]
    # v_2' = 1/√2 − √ε/2 vanishes at ε = 2: not positive on (0, 3]
    assert not paper_relu_margin_step(upto=sympy.Integer(3))[1]
    # Φ_lin = 1 + 2ε: the engine's excess at ε = 1/4 is then 1/4 more than the ReLU gain
    assert not paper_relu_margin_step(slope=2)[1]


def test_definitions_kkt_identities_need_a_kkt_status_and_exact_multipliers() -> None:
    from theorems.margin_maximization.definitions import construction_identities as kkt_identities

    assert kkt_identities("thm4.4-linear").kkt
    # w = (1, 1): a feasible smooth point, proved not KKT with exact multipliers
    moved = C.edited("w = (1, 1)", C.with_parameters(C.document("thm4.4-linear"),
                                                     [[1, 1], [["1/sqrt(2)", "1/sqrt(2)"]]]))
    assert not kkt_identities(moved).kkt
    # the float file: a KKT point by the numeric test, with float multipliers
    assert not kkt_identities("thm4.4-float").kkt


def test_kkt_proxy_needs_the_loss_hypothesis() -> None:
    """Residuals falling like 1/‖θ‖ to below the tolerance and a falling loss: accepted only under L < ℓ(0)."""
    from theorems.margin_maximization.definitions import FLOW_NORMS, KKT_PROXY, RESIDUAL_TOLERANCE

    residuals = tuple(1.0 / norm for norm in FLOW_NORMS)
    log_losses = tuple(-float(norm) for norm in FLOW_NORMS)
    assert KKT_PROXY(True, residuals, log_losses, RESIDUAL_TOLERANCE).holds
    assert KKT_PROXY(False, residuals, log_losses, RESIDUAL_TOLERANCE).holds is False
