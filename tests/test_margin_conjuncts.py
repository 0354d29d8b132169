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
    """Theorem 3.2's θ̃ in floating point is a KKT point, but not an exact one: the exact identities are refused."""
    c = C.construction("thm3.2")
    theta = np.asarray(c.theta, dtype=float)
    with pytest.raises(ValueError, match="not an exact KKT point: kkt"):
        kkt_identities(c.model, theta, np.asarray(c.X, dtype=float), np.asarray(c.Y, dtype=float))


def test_witness_interval_reads_only_the_named_check_with_a_witness() -> None:
    document = C.document("thm3.2")
    local = next(p for p in document["properties"] if p["check"] == "local_optimum")
    assert witness_interval("thm3.2", "local_optimum") == f"(0, {local['witness']['eps_max']}]"
    # the KKT property has no witness curve, though another property of the file has one
    assert any("witness" in p for p in document["properties"])
    with pytest.raises(StopIteration):
        witness_interval("thm3.2", "kkt")

