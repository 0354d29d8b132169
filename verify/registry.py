"""Claim registration and discovery.

Claims are declared with :func:`claim` in the modules of ``theorems/``; :func:`all_claims` imports every
paper package once and returns the claims in registration order (paper order, then source order).
:func:`claim_index` says which claims exist and where they are defined without importing the claim modules
(and so the engines) when its cache file still matches the paper packages' sources: pytest collects from it.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import json
import os
import pkgutil
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

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
        paper = paper_key(id)
        problems = []
        if not _ID_PATTERN.match(id):
            problems.append("malformed id")
        if paper not in PAPERS:
            problems.append(f"unknown paper prefix '{paper}' (installed papers: {', '.join(PAPERS)})")
        if kind not in CLAIM_KINDS:
            problems.append(f"unknown kind '{kind}'")
        if id in _REGISTRY:
            problems.append("duplicate id")
        if not set(profiles) <= {"quick", "full", "paper", "gpu"} or "quick" not in profiles:
            problems.append("profiles must describe 'quick' and may describe 'full', 'paper' and 'gpu'")
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


def paper_key(claim_id: str) -> str:
    """The installed paper a claim id belongs to: the part before the first dot ("rank.lem1" → "rank")."""
    return claim_id.split(".", 1)[0]


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
            for claim_id in [i for i in _REGISTRY if paper_key(i) == key]:
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
    """The claim of this id; with an index in use (:func:`use_index`), only the module defining it is imported."""
    if not _loaded and claim_id not in _REGISTRY:
        entry = next((e for e in _indexed() if e.id == claim_id), None)
        if entry is not None and entry.module is not None:
            with _quiet_failure():
                importlib.import_module(entry.module)
        if claim_id in _REGISTRY:
            return _REGISTRY[claim_id]
    _load()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise UnknownClaimError(f"unknown claim id '{claim_id}' (see `verify list`)") from None


def select(ids: Iterable[str] = (), paper: str | None = None) -> list[Claim]:
    """Claims by explicit ids (in the given order; only their modules are imported when an index is in use) or
    by paper; all claims if neither is given."""
    ids = list(ids)
    if paper is not None and paper not in PAPERS:
        raise UnknownClaimError(f"unknown paper '{paper}' (choose from {', '.join(PAPERS)})")
    chosen = [get(i) for i in ids] if ids else all_claims()
    return [c for c in chosen if paper is None or c.paper == paper]


def select_for_pool(ids: Iterable[str] = (), paper: str | None = None) -> list[ClaimRef] | None:
    """:func:`select`'s claims as :class:`ClaimRef` read off the index in use, importing no claim module (a pool's
    workers import them); None where no fresh index covers the selection (then :func:`select`)."""
    if _loaded or (paper is not None and paper not in PAPERS):
        return None
    entries = {e.id: e for e in _indexed()}
    if not entries or any(e.module is None for e in entries.values()):
        return None
    ids = list(ids)
    if any(i not in entries for i in ids):
        return None  # select reports the unknown id
    chosen = [entries[i] for i in ids] if ids else list(entries.values())
    return [ClaimRef(e.id, e.paper, e.module, e.corrects) for e in chosen if paper is None or e.paper == paper]


@dataclass(frozen=True)
class ClaimRef:
    """What a process pool needs to schedule a claim (its id, its paper, the module defining it and the claim it
    corrects), read off the index without importing the claim."""

    id: str
    paper: str
    module: str
    corrects: str | None = None


# -- the index: which claims exist and where, without importing them ----------------------------------------------
INDEX_FORMAT = 3
INDEX_VARIABLE = "IBVERIFY_CLAIM_INDEX"  # the index file in use, inherited by worker processes
# "1": read that file as it is, without comparing its fingerprint (the mutation tool's test runs: the index of the
# unmutated tree, so that a run does not import every paper to re-index the one file a mutant changed)
INDEX_FROZEN_VARIABLE = "IBVERIFY_CLAIM_INDEX_FROZEN"


@dataclass(frozen=True)
class IndexEntry:
    """Where a claim is defined: its paper, the source file of its check and the check's first line."""

    id: str
    paper: str
    file: str | None
    line: int | None
    module: str | None = None
    summary: dict | None = None  # Claim.to_summary(): what `verify list` shows
    corrects: str | None = None  # the claim this variant corrects (a pool runs the two in one worker)


@dataclass(frozen=True)
class ClaimSummary:
    """What the index knows of a claim without importing it: enough to list it."""

    id: str
    paper: str
    ref: str
    kind: str
    title: str
    expected: Verdict
    conclusions: dict[str, Verdict]

    @classmethod
    def from_summary(cls, data: Mapping) -> ClaimSummary:
        return cls(data["id"], data["paper"], data["ref"], data["kind"], data["title"], Verdict(data["expected"]),
                   {c["name"]: Verdict(c["expected"]) for c in data["conclusions"]})

    def to_summary(self) -> dict:
        return {"id": self.id, "paper": self.paper, "ref": self.ref, "kind": self.kind, "title": self.title,
                "expected": self.expected.value,
                "conclusions": [{"name": n, "expected": v.value} for n, v in self.conclusions.items()]}


def paper_folder(key: str) -> Path | None:
    """The folder of an installed paper's package, found without importing its claim modules."""
    installed = papers.installed().get(key)
    if installed is None:
        return None
    try:
        spec = importlib.util.find_spec(installed.package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def definition_site(item: Claim) -> tuple[Path | None, int | None]:
    """The file that defines a claim's check when it is part of the claim's paper package (else the package's
    ``__init__.py``), and the check's first line there."""
    folder = paper_folder(item.paper)
    module = sys.modules.get(getattr(item.check, "__module__", ""), None)
    source = getattr(module, "__file__", None)
    if source is not None and folder is not None and Path(source).resolve().is_relative_to(folder):
        try:
            line = inspect.getsourcelines(item.check)[1]
        except (OSError, TypeError):
            line = None
        return Path(source).resolve(), line
    return (folder / "__init__.py" if folder is not None else None), None


def _fingerprint() -> list:
    """What the index depends on: the installed papers and every source file of theirs (path, size, mtime)."""
    stamp: list = [INDEX_FORMAT, sys.version_info[:2]]
    for key, paper in papers.installed().items():
        folder = paper_folder(key)
        files = sorted(folder.rglob("*.py")) if folder is not None else []
        stamp.append([key, paper.package, str(folder),
                      [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files]])
    return stamp


def claim_index(cache: Path | None = None) -> list[IndexEntry]:
    """Every claim's id, paper and definition site, in registration order. With ``cache`` (a JSON file), a
    cached index whose paper sources are unchanged is returned without importing any claim module; otherwise
    the papers are loaded and the cache is rewritten (with ``IBVERIFY_CLAIM_INDEX_FROZEN=1`` a readable cache is
    returned as it is). A registry already loaded in this process (or replaced, as
    the tests do) is indexed as it is and never written to the cache."""
    fresh = cache is not None and not _loaded
    frozen = fresh and os.environ.get(INDEX_FROZEN_VARIABLE) == "1"  # a readable cache is used as it is
    stamp = _fingerprint() if fresh else None
    if fresh:
        try:
            stored = json.loads(cache.read_text())
            if frozen or stored.get("fingerprint") == json.loads(json.dumps(stamp)):
                return [IndexEntry(**entry) for entry in stored["claims"]]
        except (OSError, ValueError, KeyError, TypeError):
            pass
    entries = []
    for item in all_claims():
        file, line = definition_site(item)
        entries.append(IndexEntry(item.id, item.paper, None if file is None else str(file), line,
                                  getattr(item.check, "__module__", None), item.to_summary(), item.corrects))
    if fresh and not LOAD_PROBLEMS:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps({"fingerprint": stamp, "claims": [asdict(e) for e in entries]}))
        except OSError:
            pass  # a read-only cache folder only costs the next collection its speed
    return entries


def use_index(path: Path | None) -> None:
    """Look claims up through the index cached at ``path`` (in this process and the worker processes it starts):
    :func:`get` then imports only the module that defines a claim, and :func:`summaries` imports none."""
    if path is None:
        os.environ.pop(INDEX_VARIABLE, None)
    else:
        os.environ[INDEX_VARIABLE] = str(path)
    _indexed.cache_clear()


@functools.cache
def _indexed() -> tuple[IndexEntry, ...]:
    path = os.environ.get(INDEX_VARIABLE)
    return tuple(claim_index(Path(path))) if path else ()


@contextlib.contextmanager
def _quiet_failure():
    """A module that fails to import alone is left to the full load, which reports the paper in one line."""
    try:
        yield
    except Exception:  # noqa: BLE001
        pass


def summaries(paper: str | None = None) -> list[ClaimSummary] | list[Claim]:
    """Every claim's listing data (of one paper if given): from the index when one is in use and fresh, without
    importing any claim module; else from the loaded claims."""
    if paper is not None and paper not in PAPERS:
        raise UnknownClaimError(f"unknown paper '{paper}' (choose from {', '.join(PAPERS)})")
    entries = _indexed() if not _loaded else ()
    if entries and all(e.summary is not None for e in entries):
        chosen = [ClaimSummary.from_summary(e.summary) for e in entries]
    else:
        chosen = all_claims()
    return [c for c in chosen if paper is None or c.paper == paper]


def registered_count() -> int:
    """How many claims are registered (from the index when one is in use)."""
    return len(_indexed() if not _loaded else ()) or len(all_claims())
