"""Tightness records of checked bounds: the ratio computation, their way through evidence, controls, results
JSON and ``verify show``."""

import json
import math

import pytest

from verify import cli
from verify.claim import (
    ClaimDefinitionError,
    Context,
    Criterion,
    Decision,
    Evidence,
    Profile,
    Tightness,
    merge_tightness,
    tightness,
)
from verify.runner import ClaimResult, run_claim


def test_upper_bound_ratio_is_measured_over_bound():
    record = tightness("‖W‖ ≤ K", [0.5, 2.0, 0.25], [1.0, 4.0, 1.0])
    assert record == Tightness("‖W‖ ≤ K", 0.5, 0.25, 3, "upper")
    assert record.holds


def test_lower_bound_ratio_is_bound_over_measured():
    record = tightness("‖w‖ ≥ 1", [4.0, 2.0, 1.25], 1.0, sense="lower")
    assert (record.tightest, record.loosest, record.instances, record.sense) == (0.8, 0.25, 3, "lower")
    assert record.holds


def test_an_attained_bound_has_ratio_exactly_one():
    assert tightness("x ≤ 1", [1.0, 0.5], 1.0).tightest == 1.0
    assert tightness("x ≥ 3", 3, 3, sense="lower") == Tightness("x ≥ 3", 1.0, 1.0, 1, "lower")
    assert tightness("x ≤ 0", 0.0, 0.0).tightest == 1.0  # 0 ≤ 0 is attained


def test_a_violated_bound_has_ratio_above_one():
    upper = tightness("x ≤ 1", [0.5, 1.5], 1.0)
    lower = tightness("x ≥ 2", [1.0, 4.0], 2.0, sense="lower")
    assert upper.tightest == 1.5 and not upper.holds
    assert lower.tightest == 2.0 and lower.loosest == 0.5 and not lower.holds
    assert tightness("x ≤ 0", 1e-3, 0.0).tightest == math.inf  # any positive value past a zero bound
    assert tightness("x ≥ 1", -1.0, 1.0, sense="lower").tightest == math.inf  # a negative value below 1


def test_a_weakened_bound_shows_as_a_smaller_tightest_ratio():
    measured, bound = [0.9, 0.8, 0.1], [1.0, 1.0, 1.0]
    printed = tightness("x ≤ 1", measured, bound)
    weakened = tightness("x ≤ 2", measured, [2 * b for b in bound])  # a factor dropped, still true
    assert printed.holds and weakened.holds and weakened.tightest == pytest.approx(printed.tightest / 2)


def test_scalars_broadcast_and_nan_is_counted_but_not_ranked():
    record = tightness("x ≤ K", [[0.1, 0.2], [0.3, math.nan]], 1.0)
    assert record.instances == 4 and record.tightest == pytest.approx(0.3) and record.loosest == pytest.approx(0.1)
    assert math.isnan(tightness("x ≤ K", math.nan, 1.0).tightest)
    assert math.isnan(tightness("x ≤ K", 1.0, -1.0).tightest) is False  # positive over negative: violated
    assert math.isnan(tightness("x ≤ K", -1.0, -1.0).tightest)  # no meaningful ratio, never an exception


def test_records_are_checked_and_merge():
    with pytest.raises(ClaimDefinitionError):
        tightness("x ≤ 1", 1, 1, sense="both")
    with pytest.raises(ClaimDefinitionError):
        Tightness("", 1.0, 1.0, 1)
    runs = [tightness("x ≤ 1", [0.5, 0.75], 1.0), tightness("x ≤ 1", [0.25], 1.0)]
    assert merge_tightness(runs) == Tightness("x ≤ 1", 0.75, 0.25, 3)
    with pytest.raises(ClaimDefinitionError):
        merge_tightness([runs[0], tightness("x ≥ 1", 2, 1, sense="lower")])


def test_decision_takes_one_record_or_several():
    one = tightness("a ≤ b", 1, 2)
    assert Decision(True, tightness=one).tightness == (one,)
    assert Decision(True, tightness=[one, one]).tightness == (one, one)
    assert Decision(True).tightness == ()


AT_MOST = Criterion("value ≤ bound", lambda value, bound: Decision(
    value <= bound, "", {}, tightness("value ≤ bound", value, bound)))


def test_records_travel_with_items_and_controls_through_the_results_json():
    ctx = Context("rank.toy", Profile.QUICK, 0)
    ctx.support("bound holds", "numeric", AT_MOST(0.75, 1.0), tightness=tightness("extra ≥ 1", 2.0, 1.0,
                                                                                    sense="lower"))
    ctx.control("halved bound", AT_MOST(0.75, 0.5), "bound 1 → 0.5")
    ctx.prove("without a criterion", "exact", True, tightness=tightness("y ≤ 3", [1, 3], 3))
    item, control, plain = ctx.evidence
    assert [t.bound for t in item.tightness] == ["value ≤ bound", "extra ≥ 1"]
    assert item.tightness[0].tightest == 0.75 and item.tightness[1].tightest == 0.5
    assert control.passed and control.tightness == (Tightness("value ≤ bound", 1.5, 1.5, 1),)  # violated: > 1
    assert plain.tightness[0].tightest == 1.0 and plain.tightness[0].instances == 2
    data = json.loads(json.dumps([e.to_json() for e in ctx.evidence]))
    assert data[0]["tightness"][0] == {"bound": "value ≤ bound", "sense": "upper", "instances": 1,
                                       "tightest": 0.75, "loosest": 0.75}
    assert [Evidence.from_json(d) for d in data] == ctx.evidence
    assert "tightness" not in Evidence("e", item.kind, item.role, True, "").to_json()  # absent when none
    infinite = json.loads(json.dumps(Tightness("x ≤ 0", math.inf, 1.0, 2).to_json()))
    assert infinite["tightest"] == "inf" and Tightness.from_json(infinite).tightest == math.inf


def test_verify_show_lists_the_checked_bounds(toy_registry, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    from verify import registry

    @registry.claim(id="rank.toy.bound", ref="Lemma 9", kind="lemma", title="a bound",
                    statement="$x <= 1$", conclusions={"x ≤ 1": "confirmed"}, profiles={"quick": "tiny"})
    def _bound(ctx):
        ctx.support("bound holds", "numeric", AT_MOST(0.75, 1.0))
        ctx.control("halved bound", AT_MOST(0.75, 0.5), "1 → 0.5")

    result = run_claim(registry.get("rank.toy.bound"))
    assert ClaimResult.from_json(json.loads(json.dumps(result.to_json()))).evidence[0].tightness == \
        (Tightness("value ≤ bound", 0.75, 0.75, 1),)
    assert cli.main(["run", "rank.toy.bound", "--store", str(tmp_path)]) == 0
    capsys.readouterr()
    assert cli.main(["show", "rank.toy.bound", "--store", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "tightness of the checked bounds" in out
    rows = [line for line in out.splitlines() if "value ≤ bound" in line and ("E1" in line or "C1" in line)]
    assert any("E1" in r and "0.75" in r for r in rows) and any("C1" in r and "1.5" in r for r in rows)
