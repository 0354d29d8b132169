"""Claim registration and discovery.

Claims are declared with :func:`claim` in the modules of ``theorems/``; :func:`all_claims` imports every
paper package once and returns the claims in registration order (paper order, then source order).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable, Mapping

from verify import papers
from verify.claim import (
    CLAIM_KINDS,
    DEFAULT_CONCLUSION,
    ERRATA_NATURES,
    PAPERS,
    Check,
    Claim,
    ClaimDefinitionError,
    Verdict,
    weakest,
)

EXPECTABLE = frozenset({Verdict.CERTIFIED, Verdict.CONFIRMED, Verdict.REFUTED, Verdict.CONTRADICTED,
                        Verdict.ASSUMED})

_ID_PATTERN = re.compile(r"^[a-z]+(\.[A-Za-z0-9][A-Za-z0-9_\-]*)+$")
_REGISTRY: dict[str, Claim] = {}
LOAD_PROBLEMS: list[str] = []  # one line per paper that could not be loaded
_loaded = False


class UnknownClaimError(LookupError):
    """An id or paper that no claim matches."""


def claim(
    *,
    id: str,
    ref: str,
    kind: str,
    title: str,
    statement: str,
    profiles: Mapping[str, str],
    conclusions: Mapping[str, str] | None = None,
    expected: str | None = None,
    hypotheses: Iterable[str] = (),
    cited: bool = False,
    corrected_by: str | None = None,
    corrects: str | None = None,
    notes: Iterable[str] = (),
    erratum: str | None = None,
) -> Callable[[Check], Check]:
    """Register the decorated function as the check of a claim.

    ``conclusions`` maps each part of the statement to the verdict it is expected to reach (name the instances
    in the name where a conclusion is proven only on instances: "rank one (m = 3, 4, 5)"); the claim's expected
    verdict is the weakest of them, and ``expected`` may restate it. ``erratum`` says, for a claim refuted as
    printed, whether the intended statement fails ("substantive") or only a degenerate reading ("literal").
    """

    def register(check: Check) -> Check:
        paper = id.split(".", 1)[0]
        problems = []
        if not _ID_PATTERN.match(id):
            problems.append("malformed id")
        if paper not in PAPERS:
            problems.append(f"unknown paper prefix '{paper}' (installed papers: {', '.join(PAPERS)})")
        if kind not in CLAIM_KINDS:
            problems.append(f"unknown kind '{kind}'")
        if id in _REGISTRY:
            problems.append("duplicate id")
        if not set(profiles) <= {"quick", "full", "paper"} or "quick" not in profiles:
            problems.append("profiles must describe 'quick' and may describe 'full' and 'paper'")
        if conclusions is None and expected is None:
            problems.append("declare the conclusions (or at least the expected verdict)")
        declared = dict(conclusions) if conclusions is not None else {DEFAULT_CONCLUSION: expected or "confirmed"}
        expectations = {}
        for name, value in declared.items():
            if not name or "\n" in name:
                problems.append(f"conclusion name {name!r} must be one non-empty line")
            try:
                expectations[name] = Verdict(value)
            except ValueError:
                problems.append(f"conclusion '{name}' expects unknown verdict '{value}'")
                continue
            if expectations[name] not in EXPECTABLE:
                problems.append(f"conclusion '{name}' cannot expect '{value}'")
        verdict = weakest(list(expectations.values()))
        if expected is not None and conclusions is not None and Verdict(expected) is not verdict:
            problems.append(f"expected '{expected}' is not the weakest of the conclusions' ('{verdict.value}')")
        if (verdict is Verdict.ASSUMED) != cited:
            problems.append("exactly the cited results expect 'assumed'")
        if erratum is not None and erratum not in ERRATA_NATURES:
            problems.append(f"erratum must be one of {', '.join(ERRATA_NATURES)}")
        if erratum is not None and verdict not in (Verdict.REFUTED, Verdict.CONTRADICTED):
            problems.append("only a claim refuted (or contradicted) as printed has an erratum")
        if problems:
            raise ClaimDefinitionError(f"claim {id}: " + "; ".join(problems))
        _REGISTRY[id] = Claim(
            id=id, paper=paper, ref=ref, kind=kind, title=title, statement=statement,
            hypotheses=tuple(hypotheses), expected=verdict, check=check, profiles=dict(profiles),
            cited=cited, corrected_by=corrected_by, corrects=corrects, notes=tuple(notes),
            conclusions=expectations, erratum=erratum,
        )
        return check

    return register


def _load_paper(key: str, package_name: str) -> None:
    package = importlib.import_module(package_name)
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)


def _load() -> None:
    """Import every installed paper's claim modules; a paper that fails to import is reported in one line on
    stderr and skipped (its claims registered so far are dropped), and the other papers still run."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    problems = list(papers.problems())
    for key, paper in papers.installed().items():
        try:
            _load_paper(key, paper.package)
        except Exception as exc:  # noqa: BLE001 - one broken paper must not stop the others
            for claim_id in [i for i in _REGISTRY if i.split(".", 1)[0] == key]:
                del _REGISTRY[claim_id]
            problems.append(f"paper '{key}' ({paper.package}) skipped: {papers.first_line(exc)}")
    LOAD_PROBLEMS.extend(problems)
    for line in problems:
        print(f"verify: warning: {line}", file=sys.stderr)
    for item in _REGISTRY.values():
        for link in (item.corrected_by, item.corrects):
            if link is not None and link not in _REGISTRY:
                raise ClaimDefinitionError(f"claim {item.id}: links to unknown claim {link}")


def all_claims() -> list[Claim]:
    _load()
    return list(_REGISTRY.values())


def get(claim_id: str) -> Claim:
    _load()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise UnknownClaimError(f"unknown claim id '{claim_id}' (see `verify list`)") from None


def select(ids: Iterable[str] = (), paper: str | None = None) -> list[Claim]:
    """Claims by explicit ids (in the given order) or by paper; all claims if neither is given."""
    ids = list(ids)
    if paper is not None and paper not in PAPERS:
        raise UnknownClaimError(f"unknown paper '{paper}' (choose from {', '.join(PAPERS)})")
    chosen = [get(i) for i in ids] if ids else all_claims()
    return [c for c in chosen if paper is None or c.paper == paper]
