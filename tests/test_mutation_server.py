"""The test server of ``verify bench teeth`` (verify/mutation_server.py): when the process that started it is killed
in the middle of a test run, the server kills the run and exits instead of finishing it. Needs no mutation extra:
the server imports nothing but the standard library and pytest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[1] / "verify" / "mutation_server.py"

LAUNCHER = textwrap.dedent("""
    import json, subprocess, sys, time
    server = subprocess.Popen([sys.executable, "-c", open(sys.argv[1]).read()], cwd=sys.argv[2], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1)
    server.stdout.readline()  # ready
    request = {"args": ["-q", "-p", "no:cacheprovider", "-p", "no:ibverify", "test_slow.py"], "timeout": 600,
               "output": sys.argv[2] + "/run.log"}
    server.stdin.write(json.dumps(request) + "\\n")
    server.stdin.flush()
    print(server.pid, flush=True)
    time.sleep(600)
""")


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for a parent that never reaps it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"), reason="needs fork and /proc")
def test_an_orphaned_server_kills_its_test_run_and_exits(tmp_path: Path) -> None:
    child_pid = tmp_path / "child.pid"
    (tmp_path / "test_slow.py").write_text(
        f"import os, time\n\n\ndef test_slow():\n    open({str(child_pid)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n")
    launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(SERVER), str(tmp_path)],
                                stdout=subprocess.PIPE, text=True)
    try:
        server = int(launcher.stdout.readline())
        assert wait_for(lambda: child_pid.exists() and child_pid.read_text().strip() != "", 120)
        child = int(child_pid.read_text())
        assert alive(server) and alive(child)
        launcher.kill()
        launcher.wait()
        assert wait_for(lambda: not alive(child), 10), "the test run outlived the killed launcher"
        assert wait_for(lambda: not alive(server), 10), "the server outlived the killed launcher"
    finally:
        launcher.kill()
        launcher.wait()
