"""The catalog's checked bounds: which claims report how tight their printed bounds are, that no claim keeps an ad-hoc
tightness figure, that every bound reads as plain text in the report, and (on a few cheap criteria of real claims)
that a bound that holds has ratio ≤ 1 and its control's violated bound a ratio > 1. Nothing heavy runs here."""

import ast
import re
from pathlib import Path

import pytest
import sympy

from reports.lint import raw_markup
from reports.text import prose
from verify.claim import Application, Tightness
from verify.registry import all_claims

THEOREMS = Path(__file__).resolve().parent.parent / "theorems"

# Every claim whose criteria check a printed bound (or an inequality of the paper's statements and proofs) and
# attach its tightness: the report's table "Tightness of the checked bounds" lists their records.
BOUND_CLAIMS = {
    "rank": {"rank.thm4", "rank.thm5", "rank.thm4.final", "rank.thm5.final", "rank.sec6.3", "rank.rem.sec5",
             "rank.lem6", "rank.lem8", "rank.thm2.proof", "rank.thm3", "rank.thm3.corrected", "rank.thm3.proof",
             "rank.rem.weakerinit", "rank.rem.weakerinit.corrected", "rank.cex.thm1-stationary"},
    "margin": {"margin.rem3.1", "margin.derived.globalopt", "margin.lemC.5", "margin.thm5.1", "margin.lemC.6",
               "margin.rem4.1", "margin.thm3.2", "margin.thm4.1", "margin.thm4.2.2", "margin.thm4.4",
               "margin.def.gf", "margin.thm5.2.corrected"},
    "tensor": {"tensor.aux.D1", "tensor.aux.D2", "tensor.aux.D2.corrected", "tensor.thm5", "tensor.aux.H1.corrected",
               "tensor.aux.H2.corrected"},
    "align": {"align.lem1", "align.lem2", "align.lem4", "align.thm2", "align.thm1.proof-facts",
              "align.thm1.proof-facts.corrected", "align.rem.err", "align.lem7", "align.lem8", "align.lem8.corrected",
              "align.eq37", "align.asm4", "align.lem5", "align.eq4", "align.lem6", "align.thm4", "align.def.D",
              "align.rem.A-init"},
}


def _sources() -> dict[Path, str]:
    return {path: path.read_text() for path in sorted(THEOREMS.rglob("*.py"))}


def _tightness_labels() -> list[tuple[str, str]]:
    """(where, label) of every ``tightness(...)`` call of the theorems whose label is a string literal or an
    f-string (its literal parts)."""
    labels = []
    for path, text in _sources().items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "tightness":
                if not node.args:
                    continue
                first = node.args[0]
                parts = [first] if isinstance(first, ast.Constant) else getattr(first, "values", [])
                text_parts = [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
                if isinstance(first, ast.BinOp):  # "…" + name
                    text_parts = [p.value for p in (first.left, first.right) if isinstance(p, ast.Constant)]
                if text_parts:
                    labels.append((f"{path.relative_to(THEOREMS)}:{node.lineno}", "".join(text_parts)))
    return labels


def test_bound_claims_are_registered_in_every_paper():
    registered = {c.id: c for c in all_claims()}
    for paper, ids in BOUND_CLAIMS.items():
        missing = sorted(ids - registered.keys())
        assert not missing, f"{paper}: claims with checked bounds that are not registered: {missing}"
        assert all(registered[i].paper == paper for i in ids)
    assert sum(map(len, BOUND_CLAIMS.values())) >= 50


def test_no_claim_keeps_an_ad_hoc_tightness_figure():
    """Tightness is a structured record (verify.tightness), not a figure key starting with "tightness"."""
    ad_hoc = re.compile(r"""[{,]\s*f?["']tightness|\[f?["']tightness""")
    found = [f"{path.relative_to(THEOREMS)}:{text[:m.start()].count(chr(10)) + 1}"
             for path, text in _sources().items() for m in ad_hoc.finditer(text)]
    assert not found, f"ad-hoc tightness figures: {found}"


def test_every_bound_reads_as_plain_text():
    labels = _tightness_labels()
    assert len(labels) >= 60
    for where, label in labels:
        assert label.strip() and "\n" not in label, where
        shown = "".join(part for part, _ in prose(label))
        assert raw_markup(shown) == [], f"{where}: {label!r} shows raw markup in the report"


def _records(application: Application) -> tuple[Tightness, ...]:
    assert isinstance(application, Application)
    return application.decision.tightness


@pytest.mark.parametrize("case", ["tangent line", "AM–GM", "shorter curve", "Assumption 4", "Thm 2's angle"])
def test_real_criteria_report_tightness_and_their_controls_violate(case):
    from theorems.layer_alignment.descent_smoothness import assumption4_constants, curve
    from theorems.margin_maximization.constructions_deep import SHORTENS
    from theorems.margin_maximization.lemmas_c import TANGENT
    from theorems.margin_maximization.positive import AM_GM
    from theorems.rank_minimization.two_point_theorems import angle_below_pi

    holds, control = {
        "tangent line": (TANGENT(1), TANGENT(2)),  # e^u ≥ 1 + u, attained at u = 0; 1 + 2u fails
        "AM–GM": (AM_GM(2), None),  # a² + b² ≥ 2|ab|, attained at |a| = |b|
        "shorter curve": (SHORTENS(None), SHORTENS(2)),  # strict below 2; at m = 2 the sum is exactly 2
        "Assumption 4": (assumption4_constants(curve("logistic"), sympy.Rational(1, 4), 1),
                         assumption4_constants(curve("logistic"), sympy.Rational(6, 25), 1)),
        "Thm 2's angle": (angle_below_pi(2), angle_below_pi(4)),
    }[case]
    assert holds.holds is True
    records = _records(holds)
    assert records and all(r.instances > 1 and r.tightest <= 1 + 1e-12 for r in records)
    assert max(r.tightest for r in records) >= 0.99  # these bounds are (nearly) attained on their instances
    if control is not None:
        assert control.holds is not True
        assert max(r.tightest for r in _records(control)) >= 1.0  # the perturbed bound is violated or attained
