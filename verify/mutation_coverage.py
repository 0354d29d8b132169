"""pytest plugin of ``verify bench teeth``'s baseline run: which test executes which line, and how long each takes.

Loaded with ``-p verify.mutation_coverage`` and active only when ``IBVERIFY_TEETH_COVERAGE`` names a data file: it
starts coverage.py as soon as pytest loads it (before the tests, the claims and the engines are imported), switches
coverage's context to each test's node id while the test runs (setup, call and teardown), so that the data says
which tests execute each line; lines run outside any test (imports, collection) are recorded under the empty
context. At the end it saves the data (one file per process, for pytest-xdist) and, beside it, each test's
duration and outcome as JSON. Python subprocesses a test starts are measured too, and credited to that test
(``verify/mutation_subprocess/sitecustomize.py``, on the baseline's ``PYTHONPATH``).

Before each test the plugin empties the memo caches (``functools.cache``, ``lru_cache``, anything with a
``cache_clear``) that the measured modules define or import:
otherwise a result one test computed and a later test reused would credit its lines to the first test alone, and a
mutant there would never run the later one (two claims of a module that share one cached run, say).

Each process pins itself to one CPU (``IBVERIFY_TEETH_PIN``), as the mutant runs do: sweeps then run in the
test's own process (:func:`numerics.sweeps.default_workers` is 1) where coverage sees them.
"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

_DATA = os.environ.get("IBVERIFY_TEETH_COVERAGE")
CONTEXT_VARIABLE = "IBVERIFY_TEETH_CONTEXT"  # the running test's node id, for verify/mutation_subprocess
_STARTED = time.perf_counter()
_cov = None
_results: dict[str, dict[str, object]] = {}
_collected = [0.0]
_include: list[str] = []  # the files coverage measures (the mutated ones)
_include_real: set[str] = set()


def _pin() -> None:
    if not os.environ.get("IBVERIFY_TEETH_PIN") or not hasattr(os, "sched_setaffinity"):
        return
    cpus = sorted(os.sched_getaffinity(0))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    os.sched_setaffinity(0, {cpus[index % len(cpus)]})


if _DATA:
    import coverage

    _pin()
    _include[:] = [p for p in os.environ.get("IBVERIFY_TEETH_INCLUDE", "").split(os.pathsep) if p]
    _include_real.update(os.path.realpath(p) for p in _include)
    _cov = coverage.Coverage(data_file=_DATA, data_suffix=True, include=_include or None, config_file=False)
    _cov.start()


def _measured(path: str | None) -> bool:
    return bool(path) and os.path.realpath(path) in _include_real


def clear_memo_caches() -> int:
    """Empty the memo caches that the measured modules (those coverage includes) hold at module level: their own
    memoized functions and the ones they import (a memo defined elsewhere can gate their lines too: a builder
    passed to :func:`numerics.convex.parametrized_program` runs only on its first key); the number emptied."""
    emptied: set[int] = set()
    for module in list(sys.modules.values()):
        if module is None or not _measured(getattr(module, "__file__", None)):
            continue
        for value in list(vars(module).values()):
            if id(value) not in emptied and callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
                emptied.add(id(value))
    return len(emptied)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if _cov is not None:
        clear_memo_caches()
        _cov.switch_context(item.nodeid)
        os.environ[CONTEXT_VARIABLE] = item.nodeid  # subprocesses started by the test are credited to it
    try:
        yield
    finally:
        if _cov is not None:
            _cov.switch_context("")
            os.environ.pop(CONTEXT_VARIABLE, None)


def pytest_collection_finish(session: pytest.Session) -> None:
    _collected[0] = time.perf_counter() - _STARTED


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _results.setdefault(report.nodeid, {"seconds": 0.0, "outcome": "passed"})
    entry["seconds"] = float(entry["seconds"]) + report.duration
    if report.failed:
        entry["outcome"] = "failed"
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"


def pytest_unconfigure(config: pytest.Config) -> None:
    if _cov is None:
        return
    _cov.stop()
    _cov.save()
    path = f"{_DATA}.tests.{os.getpid()}.json"
    with open(path, "w") as handle:
        json.dump({"startup_seconds": _collected[0], "tests": _results}, handle)
