"""The registered catalog: complete against the specs' ids, consistently linked, and renderable."""

import json
import re
from pathlib import Path

import pytest

from reports.render import check_markup
from verify.claim import DEFAULT_CONCLUSION, ERRATA_NATURES, Verdict
from verify.registry import all_claims

SPEC_IDS = json.loads((Path(__file__).parent / "fixtures" / "spec_ids.json").read_text())
CLAIMS = {c.id: c for c in all_claims()}


@pytest.mark.parametrize("paper", sorted(SPEC_IDS))
def test_every_spec_item_is_a_claim(paper):
    missing = [i for i in SPEC_IDS[paper] if i not in CLAIMS]
    assert not missing, f"spec items without a claim: {missing}"


def test_corrections_are_linked_both_ways():
    for c in CLAIMS.values():
        if c.corrected_by:
            assert CLAIMS[c.corrected_by].corrects == c.id, c.id
            assert c.expected in (Verdict.REFUTED, Verdict.CONTRADICTED), \
                f"{c.id} names a correction but does not expect 'refuted' or 'contradicted'"
        if c.corrects:
            assert CLAIMS[c.corrects].corrected_by == c.id, c.id


def test_descriptions_are_complete():
    for c in CLAIMS.values():
        assert c.title.strip() and c.ref.strip() and c.statement.strip(), c.id
        assert c.profiles.get("quick", "").strip(), f"{c.id} does not say what the quick profile runs"


def test_statements_hypotheses_and_notes_are_valid_typst():
    texts = {}
    for c in CLAIMS.values():
        texts[c.statement] = f"{c.id} statement"
        texts.update({h: f"{c.id} hypothesis" for h in c.hypotheses})
        texts.update({n: f"{c.id} note" for n in c.notes})
    errors = check_markup(list(texts))
    bad = sorted(f"{texts[t]}: {e}" for t, e in errors.items() if e)
    assert not bad, "\n".join(bad)


def test_every_claim_declares_its_conclusions():
    unnamed = [c.id for c in CLAIMS.values() if list(c.conclusions) == [DEFAULT_CONCLUSION]]
    assert not unnamed, f"claims that name no conclusion (the default '{DEFAULT_CONCLUSION}'): {unnamed}"


def test_refuted_claims_say_the_nature_of_the_erratum():
    for c in CLAIMS.values():
        if c.expected in (Verdict.REFUTED, Verdict.CONTRADICTED):
            assert c.erratum in ERRATA_NATURES, f"{c.id}: say whether the erratum is substantive or literal"
            assert c.corrected_by, f"{c.id}: a claim refuted as printed has its corrected variant next to it"


USER_FACING_SOURCES = re.compile(r"\bspec\b|\bthe dump\b|\bdump's\b", re.IGNORECASE)


def test_nothing_the_user_sees_cites_working_material():
    """References, titles, statements, hypotheses, notes and profile texts cite the paper, never our notes."""
    offending = []
    for c in CLAIMS.values():
        texts = [c.ref, c.title, c.statement, *c.hypotheses, *c.notes, *c.profiles.values(), *c.conclusions]
        offending += [f"{c.id}: {t[:80]}" for t in texts if USER_FACING_SOURCES.search(t)]
    assert not offending, "\n".join(offending)
