"""pytest plugin: every registered claim becomes a test item named by its id.

A claim item passes iff its verdict equals the claim's expected verdict; a failure prints each conclusion's
verdict and the evidence that did not pass. Claim items live in the file that defines the claim, so their
node ids can be rerun: ``theorems/rank_minimization/two_point_theorems.py::rank.thm2``.

Selecting claims:

* ``pytest --claim rank.thm2`` (repeatable): exactly these claims, nothing else;
* ``pytest theorems/rank_minimization``: that paper's claims; ``pytest theorems``: every claim;
* ``pytest FILE::rank.thm2`` or ``pytest ::rank.thm2``: one claim by node id (any path before ``::`` is
  replaced by the claim's own file);
* ``pytest -m paper_rank``: a paper's claims by marker; ``-m claims``: every claim;
* ``pytest -k rank.thm2``: pytest's keyword match, a *substring* match: it also selects ``rank.thm2.proof``
  and ``rank.thm2-corrected``; use ``--claim`` for one claim exactly.

Claims are also collected when pytest collects another directory (the default ``testpaths`` included, so
plain ``pytest`` runs the tests and every claim); for runs on single test files they are left out unless
``--claims`` is given, and ``--no-claims`` leaves them out always. ``--profile`` and ``--verify-seed`` choose
the claims' profile and seed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verify.claim import PAPERS, Profile
from verify.registry import INDEX_VARIABLE, IndexEntry, claim_index, paper_folder
from verify.runner import DEFAULT_SEED, FIGURES_VARIABLE, ClaimResult, reported_figures, run_claim


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ibverify", "claim certification")
    group.addoption("--profile", choices=[p.value for p in Profile], default=Profile.QUICK.value,
                    help="claim profile: quick (CI), full, paper, gpu")
    group.addoption("--verify-seed", type=int, default=DEFAULT_SEED, help="seed of every claim's randomness")
    group.addoption("--claims", action="store_true", default=None, help="collect claims even for file arguments")
    group.addoption("--no-claims", action="store_false", dest="claims", help="do not collect claims")
    group.addoption("--claim", action="append", default=[], metavar="ID", dest="claim_ids",
                    help="run exactly this claim (repeatable; unlike -k, no substring matches)")


# -- where claims live ------------------------------------------------------------------------------------------
_INDEX = pytest.StashKey[list[IndexEntry]]()


def _index(config: pytest.Config) -> list[IndexEntry]:
    """The claim index, cached in pytest's cache folder (without one, ``-p no:cacheprovider``: in the file named by
    ``IBVERIFY_CLAIM_INDEX``, if any) so that collection imports no claim module (and so no engine) while the
    papers' sources are unchanged."""
    if _INDEX not in config.stash:
        cache = getattr(config, "cache", None)
        named = os.environ.get(INDEX_VARIABLE)
        path = cache.mkdir("ibverify") / "claim-index.json" if cache is not None else Path(named) if named else None
        config.stash[_INDEX] = claim_index(path)
    return config.stash[_INDEX]


def _claims_by_file(config: pytest.Config) -> dict[Path, list[IndexEntry]]:
    files: dict[Path, list[IndexEntry]] = {}
    for entry in _index(config):
        if entry.file is not None:
            files.setdefault(Path(entry.file), []).append(entry)
    return files


def _claim_target(config: pytest.Config, claim_id: str) -> str | None:
    entry = next((e for e in _index(config) if e.id == claim_id), None)
    return None if entry is None or entry.file is None else entry.file


def _in_a_paper(path: Path) -> bool:
    path = path.resolve()
    return any(folder is not None and path.is_relative_to(folder) for folder in map(paper_folder, PAPERS))


# -- configuration ----------------------------------------------------------------------------------------------
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "claims: a registered ibverify claim")
    for paper in PAPERS:
        config.addinivalue_line("markers", f"paper_{paper}: a claim of the '{paper}' paper")
    _readdress_claim_arguments(config)


def _readdress_claim_arguments(config: pytest.Config) -> None:
    """``::rank.thm2`` or ``tests/x.py::rank.thm2`` name a claim by id: point them at the claim's own file."""
    args = getattr(config, "args", None)
    if not isinstance(args, list):
        return
    wanted = config.getoption("claim_ids")
    if wanted and getattr(config, "args_source", None) is not pytest.Config.ArgsSource.ARGS:
        # `pytest --claim ID` alone: collect just those claims' files, not the test folders to deselect them
        targets = [_claim_target(config, i) for i in wanted]
        if all(t is not None for t in targets):
            args[:] = [f"{target}::{claim_id}" for target, claim_id in zip(targets, wanted)]
        return
    if not any("::" in a and "." in a.rsplit("::", 1)[1] for a in args):
        return
    for index, arg in enumerate(args):
        path, _, name = arg.rpartition("::")
        target = _claim_target(config, name) if name else None
        if target is not None:
            args[index] = f"{target}::{name}"


def _collect_claims(config: pytest.Config) -> bool:
    wanted = config.getoption("claims")
    if config.getoption("claim_ids"):
        return True
    if wanted is not None:
        return bool(wanted)
    args = [a.split("::", 1)[0] for a in config.args]
    return any(Path(a).is_dir() for a in args) or not args


# -- collection -------------------------------------------------------------------------------------------------
class ClaimMismatch(Exception):
    def __init__(self, result: ClaimResult) -> None:
        super().__init__(result.id)
        self.result = result


class ClaimFile(pytest.File):
    """The claims defined in one file of a paper package (the file is not imported as a test module)."""

    def collect(self):
        for c in _claims_by_file(self.config).get(self.path.resolve(), []):
            item = ClaimItem.from_parent(self, name=c.id, claim_id=c.id, line=c.line)
            item.add_marker("claims")
            item.add_marker(f"paper_{c.paper}")
            yield item


class ClaimItem(pytest.Item):
    def __init__(self, *, claim_id: str, line: int | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claim_id = claim_id
        self.line = line

    def runtest(self) -> None:
        from verify.registry import get

        config = self.config
        result = run_claim(get(self.claim_id), Profile(config.getoption("profile")),
                           config.getoption("verify_seed"))
        self.user_properties.append(("verdict", result.verdict.value))
        self.user_properties.append(("seconds", round(result.seconds, 3)))
        figures_file = os.environ.get(FIGURES_VARIABLE)
        if figures_file:  # verify bench teeth compares what the report would show, mutant against original
            line = json.dumps({"id": self.claim_id, "profile": config.getoption("profile"),
                               "seed": config.getoption("verify_seed"), "shown": reported_figures(result)}) + "\n"
            out = os.open(figures_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:  # one write of the whole line: pytest-xdist's workers append to the same file
                os.write(out, line.encode("utf-8"))
            finally:
                os.close(out)
        if not result.ok:
            raise ClaimMismatch(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:
        if not isinstance(excinfo.value, ClaimMismatch):
            return super().repr_failure(excinfo, style)
        r = excinfo.value.result
        lines = [f"{r.id}: verdict {r.verdict.value}, expected {r.expected.value} ({r.seconds:.2f} s)"]
        for k in r.conclusions:
            mark = "ok" if k.ok else "OFF"
            lines.append(f"  [{mark}] conclusion {k.name}: {k.verdict.value} (expected {k.expected.value}); "
                         f"{k.reason}")
        shown = {i for k in r.conclusions if not k.ok for i in k.evidence} or set(range(len(r.evidence)))
        for index, e in enumerate(r.evidence):
            failing = not e.passed
            if index in shown and (failing or r.verdict.value in ("refuted", "contradicted", "error")):
                mark = "FAIL" if failing else "ok"
                lines.append(f"  [{mark}] {e.role.value}/{e.kind.value} {e.name}: {e.detail}")
                if e.change:
                    lines.append(f"         perturbed: {e.change}")
                if e.figures:
                    lines.append("         " + ", ".join(f"{k}={v}" for k, v in e.figures.items()))
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None if self.line is None else self.line - 1, f"claim {self.claim_id}"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ClaimFile | None:
    if file_path.suffix != ".py" or parent.config.getoption("claims") is False or not _in_a_paper(file_path):
        return None
    if file_path.resolve() not in _claims_by_file(parent.config):
        return None
    return ClaimFile.from_parent(parent, path=file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if _collect_claims(config) and not any(isinstance(item, ClaimItem) for item in items):
        # no paper folder was collected (plain `pytest`, `pytest tests`): add every claim, under its own file
        claim_items = []
        for path in _claims_by_file(config):
            claim_items.extend(ClaimFile.from_parent(session, path=path).collect())
        # report them like any collector's result, so counts and xdist see them
        config.hook.pytest_collectreport(report=pytest.CollectReport("claims", "passed", None, claim_items))
        items.extend(claim_items)
    wanted = config.getoption("claim_ids")
    if wanted:
        known = {e.id for e in _index(config)}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise pytest.UsageError(f"--claim {unknown[0]}: no such claim (see `verify list`)")
        keep = [item for item in items if isinstance(item, ClaimItem) and item.claim_id in wanted]
        dropped = [item for item in items if item not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep
