"""Coverage of the Python subprocesses a test starts, in ``verify bench teeth``'s baseline run.

This folder is put on ``PYTHONPATH`` for the baseline only; Python imports this module at start-up in every
interpreter that inherits the path. It measures only an interpreter started *while a test runs*:
:mod:`verify.mutation_coverage` names the running test in ``IBVERIFY_TEETH_CONTEXT`` (the pytest process itself
and its xdist workers start before any test, and are measured by the plugin). The subprocess's lines are then
credited to the test that started it, so a mutant of code that runs only in a subprocess (numba's CUDA simulator,
the command line) runs that test instead of counting as "no coverage".
"""

import os

_DATA = os.environ.get("IBVERIFY_TEETH_COVERAGE")
_CONTEXT = os.environ.get("IBVERIFY_TEETH_CONTEXT")

if _DATA and _CONTEXT:
    try:
        import atexit

        import coverage

        _include = [p for p in os.environ.get("IBVERIFY_TEETH_INCLUDE", "").split(os.pathsep) if p]
        _cov = coverage.Coverage(data_file=_DATA, data_suffix=True, include=_include or None, config_file=False,
                                 context=_CONTEXT)
        _cov.start()

        def _save() -> None:
            _cov.stop()
            _cov.save()

        atexit.register(_save)
    except Exception:  # noqa: BLE001 - a subprocess must never fail because it could not be measured
        pass
