"""The GPU kernel's host side (numerics.cuda_descent) at its edges, without a GPU: the stepper's launches, progress
and refusals in numba's CUDA simulator (a subprocess with NUMBA_ENABLE_CUDASIM=1), and which answer
``availability()`` gives on which machine, with numba's CUDA target replaced by a stand-in (no CUDA import here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numba
import pytest
from test_cuda_descent import PYTHONPATH, ROOT  # the checkout, first on a subprocess's path

import numerics.cuda_descent as cd
from numerics.cuda_descent import Availability, availability, rounded

STEPPER = r"""
import json
import numpy as np
from numba import config
assert config.ENABLE_CUDASIM
from numerics import cuda_descent
from numerics.descent import batched_gradient_descent
from tests.test_cuda_descent import objectives

objective = objectives()["fig1 (square)"]
theta0 = 0.5 * np.random.default_rng(11).standard_normal((8, objective.model.n_params))
eta = np.linspace(0.01, 0.03, 8)


def cpu(theta, steps, rate):
    return batched_gradient_descent(objective, theta, steps, rate, engine="compiled", device="cpu").theta


out, calls = {}, []
stepper = cuda_descent.cuda_stepper(objective, progress=calls.append, segment_run_steps=8 * 7)
state = np.ascontiguousarray(theta0.T)
stepper(state, 50, eta)
out["50 steps"] = [bool(np.array_equal(state.T, cpu(theta0, 50, eta))), calls[:]]
calls.clear()
state = np.ascontiguousarray(theta0.T)
cuda_descent.cuda_stepper(objective, progress=calls.append, segment_run_steps=3)(state, 4, eta)
out["fewer run-steps a launch than runs"] = [bool(np.array_equal(state.T, cpu(theta0, 4, eta))), calls[:]]
calls.clear()
state = np.ascontiguousarray(theta0.T)
stepper(state, 1, eta)
out["one step"] = [bool(np.array_equal(state.T, cpu(theta0, 1, eta))), bool(np.any(state.T != theta0)), calls[:]]
calls.clear()
state = theta0[:1].T.copy()  # a copy: the transposed row of a C array is a view of it
stepper(state, 3, eta[:1])
out["one run"] = [bool(np.array_equal(state.T, cpu(theta0[:1], 3, eta[:1]))), calls[:]]
calls.clear()
state = np.ascontiguousarray(theta0.T)
stepper(state, 0, eta)
empty = np.zeros((objective.model.n_params, 0))
stepper(empty, 5, eta[:0])
out["nothing to do"] = [bool(np.array_equal(state.T, theta0)), empty.shape[1], calls[:]]
refused = []
for bad in (np.asfortranarray(theta0.T), np.ascontiguousarray(theta0.T, dtype=np.float32)):
    try:
        stepper(bad, 2, eta)
        refused.append(None)
    except ValueError as exc:
        refused.append(str(exc))
out["refused"] = refused
print(json.dumps(out))
"""


def test_the_stepper_launches_reports_progress_and_refuses_in_the_simulator() -> None:
    """Launches of ⌊segment_run_steps / runs⌋ steps (at least one), progress in run-steps after each, the CPU
    kernel's bits after 50, 4, 1 steps and for one run; nothing launched for 0 steps or 0 runs; a state that is not
    C-ordered float64 refused."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": PYTHONPATH}
    done = subprocess.run([sys.executable, "-c", STEPPER], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["50 steps"] == [True, [56] * 7 + [8]]  # 7 launches of 7 steps × 8 runs, then 1 step
    assert out["fewer run-steps a launch than runs"] == [True, [8] * 4]
    assert out["one step"] == [True, True, [8]]
    assert out["one run"] == [True, [3]]
    assert out["nothing to do"] == [True, 0, []]
    assert out["refused"] == ["the state must be a C-ordered float64 array (parameters × runs)"] * 2


def test_a_gpu_is_a_working_device_not_the_simulator() -> None:
    assert Availability(True, False, "H100").gpu
    assert not Availability(True, True, "numba's CUDA simulator").gpu
    assert not Availability(False, False, "no NVIDIA driver on this machine").gpu
    assert not Availability(False, True, "failed").gpu


def test_availability_is_checked_once_per_process() -> None:
    availability.cache_clear()  # asked afresh here (the module's import asked already)
    first = availability()
    assert availability() is first


def test_calls_other_than_logaddexp0_are_kept_as_written() -> None:
    assert rounded("z = math.exp(a) * b") == "z = mul(math.exp(a), b)"


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch):
    """A machine to ask ``availability()`` about: its platform, NVIDIA driver files and simulator switch, with a
    stand-in for numba's CUDA target that finds no GPU (so nothing here imports the real one)."""
    stand_in = SimpleNamespace(is_available=lambda: False, cuda_error=lambda: "stand-in: no device")
    monkeypatch.setattr(numba, "cuda", stand_in, raising=False)
    monkeypatch.setitem(sys.modules, "numba.cuda", stand_in)

    def ask(platform: str, driver: bool, simulated: bool, tmp: Path) -> Availability:
        monkeypatch.setattr(cd, "sys", SimpleNamespace(platform=platform, modules=sys.modules))
        monkeypatch.setattr(cd, "GPU_DRIVER_FILES", (str(tmp if driver else tmp / "absent"),))
        monkeypatch.setattr(cd, "simulator_enabled", lambda: simulated)
        availability.cache_clear()
        return availability()

    availability.cache_clear()
    yield ask
    availability.cache_clear()


NO_DRIVER = Availability(False, False, "no NVIDIA driver on this machine")
NO_GPU = "numba's CUDA target finds no GPU (stand-in: no device)"


@pytest.mark.parametrize("platform, driver, simulated, expected", [
    ("linux", False, False, NO_DRIVER),  # answered from the driver files alone
    ("linux", True, False, Availability(False, False, NO_GPU)),  # a driver: numba's target is asked
    ("darwin", False, False, Availability(False, False, NO_GPU)),  # no driver files to look for elsewhere
    ("linux", False, True, Availability(False, True, NO_GPU)),  # the simulator needs no driver
])
def test_which_machines_ask_numbas_cuda_target(machine, tmp_path: Path, platform: str, driver: bool,
                                               simulated: bool, expected: Availability) -> None:
    assert machine(platform, driver, simulated, tmp_path) == expected
