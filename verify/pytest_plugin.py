"""pytest plugin: every registered claim becomes a test item named by its id.

``pytest -k rank.thm2``, ``pytest -m paper_rank``, ``pytest --profile full``. A claim item passes iff its
verdict equals the claim's expected verdict; a failure prints the evidence that did not pass.
Claims are collected when pytest collects a directory (the default ``testpaths`` included); for runs on
single test files they are left out unless ``--claims`` is given.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verify.claim import PAPERS, Profile
from verify.registry import all_claims
from verify.runner import DEFAULT_SEED, ClaimResult, run_claim


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ibverify", "claim certification")
    group.addoption("--profile", choices=[p.value for p in Profile], default=Profile.QUICK.value,
                    help="claim profile: quick (CI), full, paper")
    group.addoption("--verify-seed", type=int, default=DEFAULT_SEED, help="seed of every claim's randomness")
    group.addoption("--claims", action="store_true", default=None, help="collect claims even for file arguments")
    group.addoption("--no-claims", action="store_false", dest="claims", help="do not collect claims")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "claims: a registered ibverify claim")
    for paper in PAPERS:
        config.addinivalue_line("markers", f"paper_{paper}: a claim of the '{paper}' paper")


class ClaimMismatch(Exception):
    def __init__(self, result: ClaimResult) -> None:
        super().__init__(result.id)
        self.result = result


class ClaimItem(pytest.Item):
    def __init__(self, *, claim_id: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claim_id = claim_id

    def runtest(self) -> None:
        from verify.registry import get

        config = self.config
        result = run_claim(get(self.claim_id), Profile(config.getoption("profile")),
                           config.getoption("verify_seed"))
        self.user_properties.append(("verdict", result.verdict.value))
        self.user_properties.append(("seconds", round(result.seconds, 3)))
        if not result.ok:
            raise ClaimMismatch(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:
        if not isinstance(excinfo.value, ClaimMismatch):
            return super().repr_failure(excinfo, style)
        r = excinfo.value.result
        lines = [f"{r.id}: verdict {r.verdict.value}, expected {r.expected.value} ({r.seconds:.2f} s)"]
        for e in r.evidence:
            unexpected = (not e.passed) != (e.role.value == "counterexample")
            if unexpected or r.verdict.value in ("refuted", "toothless"):
                mark = "FAIL" if not e.passed else "ok"
                lines.append(f"  [{mark}] {e.role.value}/{e.kind.value} {e.name}: {e.detail}")
                if e.figures:
                    lines.append("         " + ", ".join(f"{k}={v}" for k, v in e.figures.items()))
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return Path("claims"), None, f"claim {self.claim_id}"


def _collect_claims(config: pytest.Config) -> bool:
    wanted = config.getoption("claims")
    if wanted is not None:
        return bool(wanted)
    args = [a.split("::", 1)[0] for a in config.args]
    return any(Path(a).is_dir() for a in args) or not args


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _collect_claims(config):
        return
    claim_items = []
    for c in all_claims():
        item = ClaimItem.from_parent(session, name=c.id, claim_id=c.id)
        item.add_marker("claims")
        item.add_marker(f"paper_{c.paper}")
        claim_items.append(item)
    # report them like any collector's result, so counts and xdist see them
    config.hook.pytest_collectreport(report=pytest.CollectReport("claims", "passed", None, claim_items))
    items.extend(claim_items)
