"""pytest plugin of ``verify bench teeth``'s baseline run: which test executes which line, and how long each takes.

Loaded with ``-p verify.mutation_coverage`` and active only when ``IBVERIFY_TEETH_COVERAGE`` names a data file: it
starts coverage.py as soon as pytest loads it (before the tests, the claims and the engines are imported), switches
coverage's context to each test's node id while the test runs (setup, call and teardown), so that the data says
which tests execute each line; lines run outside any test (imports, collection) are recorded under the empty
context. At the end it saves the data (one file per process, for pytest-xdist) and, beside it, each test's
duration and outcome as JSON. Python subprocesses a test starts are measured too, and credited to that test
(``verify/mutation_subprocess/sitecustomize.py``, on the baseline's ``PYTHONPATH``).

Each process pins itself to one CPU (``IBVERIFY_TEETH_PIN``), as the mutant runs do: sweeps then run in the
test's own process (:func:`numerics.sweeps.default_workers` is 1) where coverage sees them.
"""

from __future__ import annotations

import json
import os
import time

import pytest

_DATA = os.environ.get("IBVERIFY_TEETH_COVERAGE")
CONTEXT_VARIABLE = "IBVERIFY_TEETH_CONTEXT"  # the running test's node id, for verify/mutation_subprocess
_STARTED = time.perf_counter()
_cov = None
_results: dict[str, dict[str, object]] = {}
_collected = [0.0]


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
    include = [p for p in os.environ.get("IBVERIFY_TEETH_INCLUDE", "").split(os.pathsep) if p]
    _cov = coverage.Coverage(data_file=_DATA, data_suffix=True, include=include or None, config_file=False)
    _cov.start()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if _cov is not None:
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
