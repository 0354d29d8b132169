"""Criteria shared by the claims of paper 000: one named test of a statement's ingredients, so that the evidence
and its negative controls are the same test on different arguments (:class:`verify.Criterion`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from numerics.symbolic import is_identically_zero
from verify import Criterion, Decision


def all_vanish(identities: Mapping[str, Any]) -> Decision:
    """Every expression is identically 0: True if all are proved, False if one is refuted (a rational point where
    it is provably nonzero), None if one is neither."""
    tests = {name: is_identically_zero(expression) for name, expression in identities.items()}
    detail = "; ".join(f"{name}: {test.description}" for name, test in tests.items())
    figures = {"identities": len(tests), "proved": sum(t.proved for t in tests.values())}
    if all(t.proved for t in tests.values()):
        return Decision(True, detail, figures)
    if any(t.refuted for t in tests.values()):
        return Decision(False, detail, figures)
    return Decision(None, detail, figures)


def identities(name: str) -> Criterion:
    """A criterion "these expressions vanish identically" under its own name (a claim's conclusions each get
    theirs, so a control binds to the conclusion it perturbs)."""
    return Criterion(name, all_vanish)

