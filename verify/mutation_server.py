"""The test server of ``verify bench teeth``: one per worker, in the worker's own copy of the source tree.

It is started as ``python -c <this file's text>`` with its working directory set to the worker's tree (so that it
imports nothing of the project: the mutated modules must be imported fresh for every mutant), imports the heavy
third-party libraries the tests need once (``IBVERIFY_TEETH_PRELOAD``: numpy, scipy, sympy, torch, ...), and then
serves requests, one JSON line each on stdin:

    {"args": [pytest arguments], "timeout": seconds, "env": {extra environment}, "output": file for the output}

For each request it forks a child that runs ``pytest.main(args)`` in a new session with the output going to the
named file, waits for it at most ``timeout`` seconds (then kills the child's whole process group) and answers one
JSON line on stdout: ``{"rc": exit status or null on timeout, "seconds": wall, "cpu": the child's CPU seconds}``.
When the process that started the server goes away (``verify bench teeth`` killed), the server kills the running
child's process group and exits at once instead of finishing the test run. A fork costs milliseconds where a fresh
interpreter importing numpy, scipy, sympy and torch costs seconds.

Nothing here may import the project: this text is run on its own.
"""

import importlib
import json
import os
import signal
import sys
import time


def _preload() -> None:
    for name in filter(None, os.environ.get("IBVERIFY_TEETH_PRELOAD", "").split(",")):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a library that is not installed is simply not preloaded
            pass


def _child(request: dict) -> None:
    """In the forked child: run pytest with the request's arguments and exit with its status."""
    os.setsid()
    out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    os.close(null)
    os.environ.update(request.get("env") or {})
    if "NUMBA_CACHE_DIR" in (request.get("env") or {}) and "numba" in sys.modules:
        sys.modules["numba"].core.config.reload_config()
    status = 4
    try:
        import pytest

        sys.argv = ["pytest", *request["args"]]
        status = int(pytest.main(list(request["args"])))
    except BaseException as exc:  # noqa: BLE001 - anything at all becomes an exit status
        print(f"verify bench teeth: test run failed to start: {type(exc).__name__}: {exc}", flush=True)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _serve(request: dict, parent: int) -> dict:
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        _child(request)
    deadline = start + float(request["timeout"])
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if os.getppid() != parent:  # orphaned: whoever would read the answer is gone
            _kill_group(pid)
            os.wait4(pid, 0)
            os._exit(1)
        if time.perf_counter() > deadline:
            _kill_group(pid)
            done, status, usage = os.wait4(pid, 0)
            return {"rc": None, "seconds": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime}
        time.sleep(0.02)
    rc = os.waitstatus_to_exitcode(status)
    _kill_group(pid)  # whatever the tests left running in the child's session (a pool, a server) goes with it
    return {"rc": rc, "seconds": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime}


def main() -> None:
    parent = os.getppid()
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever a preloaded library prints goes to stderr, never into the replies
    sys.stdout = sys.stderr
    if sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = os.getcwd()
    _preload()
    replies.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        replies.write(json.dumps(_serve(json.loads(line), parent)) + "\n")


if __name__ == "__main__":
    main()
