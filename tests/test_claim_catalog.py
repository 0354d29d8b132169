"""The registered catalog: complete against the specs' ids, consistently linked, and renderable."""

import json
from pathlib import Path

import pytest

from reports.render import check_markup
from verify.claim import Verdict
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
            assert c.expected is Verdict.REFUTED, f"{c.id} names a correction but does not expect 'refuted'"
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
