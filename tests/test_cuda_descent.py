"""The compiled kernel's GPU target (numerics.cuda_descent), without a GPU: the kernel runs in numba's CUDA simulator
(a subprocess with NUMBA_ENABLE_CUDASIM=1) and must give the CPU kernel's bits, whatever the chunking; its PTX,
compiled where a CUDA toolkit is installed, must hold no fused or unrounded float64 arithmetic. On a GPU the same
comparisons run on the device. Also: identical bits across chunkings on every engine that promises them, the
device chosen by cost, the Clopper–Pearson intervals of the Monte Carlo claims, and the gpu profile's refusal."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from numerics import descent
from numerics.cuda_descent import availability, cuda_kernel_source, rounded
from numerics.descent import kernel_device, kernel_seconds, resolve_engine
from numerics.losses import Objective
from numerics.networks import fully_connected
from numerics.sweeps import ProgressLines, clopper_pearson, descent_sweep, runs_for_width
from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]
PYTHONPATH = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))  # a subprocess's: this
# checkout first, then whatever the caller put on the path (packages installed beside the interpreter's, say)


def objectives() -> dict[str, Objective]:
    """Every kind of architecture the kernels generate: dense ReLU and linear networks, the three losses, sum and
    mean, and the three linear tensor networks."""
    from verify.bench import tensor_objectives
    from verify.workloads import fig1_data

    rng = np.random.default_rng(3)
    X = rng.standard_normal((3, 2))
    return {"fig1 (square)": Objective(fully_connected([2, 2, 2]), *fig1_data(), "square"),
            "relu mean square": Objective(fully_connected([2, 3, 2], "relu"), X, X, "square", mean=True),
            "relu logistic": Objective(fully_connected([2, 3, 1], "relu"), X, np.sign(X[:, 0]), "logistic"),
            "linear exponential mean": Objective(fully_connected([2, 3, 1], "linear"), X, np.sign(X[:, 0]),
                                                 "exponential", mean=True),
            **{f"tensor {name}": objective for name, objective in tensor_objectives().items()}}


# -- code generation -----------------------------------------------------------------------------------------------
def test_every_operation_is_written_rounded_in_the_same_order() -> None:
    assert rounded("z = a * b - c / d + e") == "z = add(add(mul(a, b), -div(c, d)), e)"
    assert rounded("t0 = t0 + e * (-(g0 / 2.0))") == "t0 = add(t0, mul(e, -div(g0, 2.0)))"
    assert rounded("s = 1.0 if z > 0.0 else 0.0") == "s = 1.0 if z > 0.0 else 0.0"  # comparisons are exact
    expanded = rounded("G0 = exp(-logaddexp0(q0) + LOG_SCALE) * y0_0")
    assert "logaddexp0" not in expanded and "add(q0, log1p(exp(-q0)))" in expanded and "LOG_2 if q0 == 0.0" in expanded
    with pytest.raises(ValueError, match="no rounded form"):
        rounded("z = a ** b")


def test_the_kernel_loads_once_loops_inside_and_stores_once() -> None:
    from numerics.compiled_descent import architecture

    source = cuda_kernel_source(architecture(objectives()["fig1 (square)"]))
    lines = source.splitlines()
    loop = lines.index("    for _ in range(steps):")
    body = [line for line in lines[loop + 1:] if line.startswith("        ")]
    assert "r = cuda.grid(1)" in source and "if r >= theta.shape[1]:" in source
    assert all("theta" not in line and "eta[" not in line for line in body)  # weights stay in registers
    assert not [line for line in body if re.search(r"\w \* \w|\w \+ \w|\w - \w|\w / \w", line)]
    assert sum(line.startswith("    theta[") for line in lines) == 8 == sum("= theta[" in line for line in lines)


# -- the simulator -------------------------------------------------------------------------------------------------
SIMULATED = r"""
import json
import numpy as np
from numba import config
assert config.ENABLE_CUDASIM
from numerics import compiled_descent, cuda_descent
from numerics.descent import batched_gradient_descent, resolve_engine
from numerics.sweeps import descent_sweep
from tests.test_cuda_descent import objectives

out = {"availability": list(vars(cuda_descent.availability()).values())}
rng = np.random.default_rng(5)
for name, objective in objectives().items():
    theta0 = 0.5 * rng.standard_normal((8, objective.model.n_params))
    eta = np.linspace(0.01, 0.05, 8)
    cpu = batched_gradient_descent(objective, theta0, 50, eta, record_every=20, engine="compiled", device="cpu")
    gpu = batched_gradient_descent(objective, theta0, 50, eta, record_every=20, engine="compiled", device="cuda")
    chunked = [descent_sweep(objective, theta0, 50, eta, record_every=20, engine="compiled", device="cuda",
                             chunk_runs=size, progress=None) for size in (1, 3, 8)]
    state = np.ascontiguousarray(theta0.T)
    cuda_descent.cuda_stepper(objective, segment_run_steps=8 * 7)(state, 50, eta)  # launches of 7 steps
    out[name] = {"same_as_cpu": bool(np.array_equal(cpu.theta, gpu.theta) and np.array_equal(cpu.loss, gpu.loss)),
                 "chunkings": [bool(np.array_equal(c.theta, gpu.theta) and np.array_equal(c.loss, gpu.loss))
                               for c in chunked],
                 "launches": bool(np.array_equal(state.T, gpu.theta)),
                 "moved": float(np.max(np.abs(gpu.theta - theta0)))}
fig1 = objectives()["fig1 (square)"]
out["auto"] = [resolve_engine(fig1, "auto", None, runs=10**6, steps=3 * 10**6),
               resolve_engine(fig1, "auto", "cuda", runs=8, steps=50)]
print(json.dumps(out))
"""


def test_the_simulated_kernel_gives_the_cpu_kernels_bits_whatever_the_chunking() -> None:
    """8 runs × 50 steps of every architecture in numba's CUDA simulator: the same bits as the CPU kernel (the
    simulator evaluates exp and log1p with the host's libm, as the CPU kernel does), for chunks of 1, 3 and 8 runs
    and for launches of 7 steps; ``auto`` never picks the simulator, ``--device cuda`` does."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": PYTHONPATH}
    done = subprocess.run([sys.executable, "-c", SIMULATED], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    ok, simulated, _ = out.pop("availability")
    assert ok and simulated
    assert out.pop("auto") == [["compiled", "cpu"], ["compiled", "cuda"]]
    assert len(out) == len(objectives())
    for name, result in out.items():
        assert result["same_as_cpu"] and all(result["chunkings"]) and result["launches"], name
        assert result["moved"] > 1e-3, name  # the descent did move


BROKEN_TARGET = r"""
import json
import numerics.cuda_descent as cd

def broken(cuda):  # what numba-cuda 0.30.4 does beside numpy 2.5 when it compiles its first kernel
    raise AttributeError("module 'numpy' has no attribute 'row_stack'")

working = cd.availability()
cd.availability.cache_clear()
cd._probe_kernel = broken
print(json.dumps([[a.ok, a.simulated, a.detail] for a in (working, cd.availability())]))
"""


def test_a_target_that_finds_a_device_but_cannot_compile_is_not_available() -> None:
    """The probe kernel is compiled and run: in the simulator it works; where compiling fails, the kernel is
    unavailable with the error as the reason (``auto`` then keeps to the CPU), instead of failing inside a claim."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": PYTHONPATH}
    done = subprocess.run([sys.executable, "-c", BROKEN_TARGET], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    working, broken = json.loads(done.stdout.strip().splitlines()[-1])
    assert working[:2] == [True, True]
    assert broken[:2] == [False, True] and "row_stack" in broken[2] and broken[2].startswith("numba's CUDA target")


# -- the PTX the GPU would run (a CUDA toolkit, no GPU) -------------------------------------------------------------
def cuda_toolkit() -> Path | None:
    """A CUDA toolkit with NVVM and libdevice: $CUDA_HOME, /usr/local/cuda or /usr/local/cuda-*."""
    candidates = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda", *sorted(map(str, Path("/usr/local").glob(
        "cuda-*")), reverse=True)]
    for candidate in filter(None, candidates):
        root = Path(candidate)
        if (root / "nvvm" / "libdevice").is_dir() and any(
                next(root.glob(pattern), None) for pattern in ("lib*/libnvvm.so*", "nvvm/lib*/libnvvm.so*")):
            return root
    return None


PTX = r"""
import json
from numerics.cuda_descent import cuda_kernel_ptx
from tests.test_cuda_descent import objectives

chosen = ["fig1 (square)", "relu mean square", "relu logistic"]
print(json.dumps({name: cuda_kernel_ptx(objectives()[name]) for name in chosen}))
"""


@pytest.mark.skipif(cuda_toolkit() is None, reason="no CUDA toolkit (NVVM, libdevice): the PTX is not compiled")
def test_the_ptx_has_no_fused_or_unrounded_float64_arithmetic() -> None:
    """numba's CUDA target compiles the kernels for sm_90 without a GPU: the square-loss kernels do their float64
    arithmetic in add.rn, mul.rn, div.rn and neg only (no fma, no mul/add that ptxas might fuse), so the GPU rounds
    as the CPU does; the margin-loss kernel compiles too (its fma come from libdevice's exp and log1p)."""
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    env |= {"CUDA_HOME": str(cuda_toolkit()), "PYTHONPATH": PYTHONPATH}
    done = subprocess.run([sys.executable, "-c", PTX], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    ptx = json.loads(done.stdout.strip().splitlines()[-1])
    for name in ("fig1 (square)", "relu mean square"):
        ops = Counter(re.findall(r"^\s*((?:add|sub|mul|div|fma|mad|neg)\S*\.f64)", ptx[name], re.M))
        assert ops["mul.rn.f64"] > 0 and ops["add.rn.f64"] > 0, (name, ops)
        assert set(ops) <= {"add.rn.f64", "mul.rn.f64", "div.rn.f64", "neg.f64"}, (name, ops)
    assert ".entry" in ptx["relu logistic"] and "mul.rn.f64" in ptx["relu logistic"]
    assert all(re.search(r"^\.target sm_90\b", text, re.M) for text in ptx.values())  # the default cc (9, 0)


# -- on a GPU ------------------------------------------------------------------------------------------------------
@pytest.mark.skipif(not availability().gpu, reason=f"no GPU for the CUDA kernel ({availability().detail}); it runs "
                    "where one is present (measured on an H100: docs/sweeps.md)")
def test_on_a_gpu_the_kernel_gives_the_cpu_kernels_bits() -> None:
    """Square loss: the CPU kernel's bits, whatever the chunking; margin losses: to rounding (libdevice's exp)."""
    rng = np.random.default_rng(9)
    for name, objective in objectives().items():
        theta0 = 0.5 * rng.standard_normal((1000, objective.model.n_params))
        cpu = descent_sweep(objective, theta0, 2000, 0.01, record_every=500, device="cpu", workers=1)
        for size in (1000, 333, 64):
            gpu = descent_sweep(objective, theta0, 2000, 0.01, record_every=500, device="cuda", chunk_runs=size)
            if objective.is_margin:  # to rounding; a run that overflows (the exponential loss) does on both devices
                finite = np.isfinite(cpu.theta).all(axis=1)
                assert np.array_equal(finite, np.isfinite(gpu.theta).all(axis=1)) and finite.mean() > 0.99, name
                assert np.max(np.abs(gpu.theta - cpu.theta)[finite]) < 1e-10, name
            else:
                assert np.array_equal(gpu.theta, cpu.theta) and np.array_equal(gpu.loss, cpu.loss), name


# -- chunkings on the CPU engines ----------------------------------------------------------------------------------
def test_the_cpu_kernel_and_the_reference_give_the_same_bits_across_chunkings() -> None:
    rng = np.random.default_rng(2)
    for name in ("relu logistic", "tensor diagonal"):
        objective = objectives()[name]
        theta0 = 0.5 * rng.standard_normal((12, objective.model.n_params))
        etas = np.linspace(0.02, 0.1, 12)
        for engine in ("compiled", "reference"):
            runs = [descent_sweep(objective, theta0, 60, etas, record_every=20, engine=engine, device="cpu",
                                  chunk_runs=size, workers=workers, progress=None)
                    for size, workers in ((12, 1), (5, 1), (1, 2))]
            for run in runs[1:]:
                assert np.array_equal(run.theta, runs[0].theta) and np.array_equal(run.loss, runs[0].loss), engine
        compiled = descent_sweep(objective, theta0, 60, etas, record_every=20, engine="compiled", device="cpu")
        reference = descent_sweep(objective, theta0, 60, etas, record_every=20, engine="reference")
        assert np.max(np.abs(compiled.theta - reference.theta)) < 1e-13


def test_the_kernels_never_write_into_the_starts() -> None:
    """One run's θ0ᵀ is already C-ordered: the kernel's state must still be a copy (a chunk of one row once
    advanced the caller's starts in place)."""
    objective = objectives()["fig1 (square)"]
    theta0 = np.full((3, 8), 0.1)
    for rows in (theta0[:1], theta0):
        before = rows.copy()
        descent.batched_gradient_descent(objective, rows, 20, 0.1, engine="compiled", device="cpu")
        assert np.array_equal(rows, before)


# -- the device by cost --------------------------------------------------------------------------------------------
def test_auto_never_picks_a_gpu_that_is_absent_or_slower(monkeypatch: pytest.MonkeyPatch) -> None:
    fig1 = objectives()["fig1 (square)"]
    if not availability().gpu:
        assert kernel_device(fig1, 10**6, 3 * 10**6) == "cpu"  # no GPU here
    monkeypatch.setattr(descent, "_gpu_present", lambda: True)
    assert kernel_device(fig1, None, None) == "cpu"  # unknown workload
    assert kernel_device(fig1, 288, 30_000, cores=2) == "cpu"  # Fig. 1 reduced: milliseconds on the CPU
    assert kernel_device(fig1, 96, 10_000) == "cpu"
    assert kernel_device(fig1, 10**6, 3 * 10**6, cores=16) == "cuda"  # the gpu profile's workload
    # the paper profile: 288 runs × 3·10⁶ steps are one chunk, so one core (3.4 s measured) against the GPU's 0.8 s
    assert kernel_device(fig1, 288, 3 * 10**6, cores=16) == "cuda"
    assert kernel_seconds(40, 10**6, 3 * 10**6, "cuda") < kernel_seconds(40, 10**6, 3 * 10**6, "cpu", 16)
    for runs, steps in ((8, 10), (288, 3 * 10**6), (10**5, 10**4), (10**6, 3 * 10**6)):
        device = kernel_device(fig1, runs, steps, cores=2)
        other = "cpu" if device == "cuda" else "cuda"
        assert kernel_seconds(40, runs, steps, device, 2) <= kernel_seconds(40, runs, steps, other, 2)


def test_devices_resolve_as_documented() -> None:
    fig1 = objectives()["fig1 (square)"]
    assert resolve_engine(fig1, "auto", "auto", runs=8, steps=10) == ("compiled", "cpu")
    assert resolve_engine(fig1, "reference") == ("reference", "cpu")
    with pytest.raises(ValueError, match="unknown device"):
        resolve_engine(fig1, "compiled", "tpu")
    if not availability().ok:
        with pytest.raises(ValueError, match="cannot run on cuda here"):
            resolve_engine(fig1, "compiled", "cuda")


# -- Monte Carlo: intervals, sample sizes, progress, the gpu profile ----------------------------------------------
def test_clopper_pearson_intervals() -> None:
    from scipy.stats import binomtest

    for successes, trials in ((79, 288), (0, 50), (50, 50), (3, 7), (270_000, 10**6)):
        interval = binomtest(successes, trials).proportion_ci(confidence_level=0.999, method="exact")
        assert clopper_pearson(successes, trials) == pytest.approx((interval.low, interval.high), abs=1e-12)
    low, high = clopper_pearson(0, 50)
    assert low == 0.0 and 0 < high < 0.15
    with pytest.raises(ValueError):
        clopper_pearson(5, 4)
    for width, confidence in ((0.0, 0.999), (-0.997, 0.999), (1.003, 0.999), (0.003, 1.0), (0.003, 0.0)):
        with pytest.raises(ValueError, match="wide at a confidence"):
            runs_for_width(width, confidence)
    with pytest.raises(ValueError, match="confidence"):
        clopper_pearson(5, 10, 1.999)
    runs = runs_for_width(0.003)
    assert 10**6 < runs < 1.3 * 10**6
    for p in (0.5, 0.36, 0.27):  # the claims' probabilities: width ≤ 0.003 at the gpu profile's sizes
        low, high = clopper_pearson(round(p * runs), runs)
        assert high - low <= 0.003
    low, high = clopper_pearson(270_000, 10**6)  # Fig. 1 at 10⁶ runs
    assert high - low < 0.003


def test_the_interval_covers_the_fraction_of_a_small_fig1_sweep() -> None:
    """The gpu profile's statistics at a small size on the CPU: 96 runs of Fig. 1 (tiny protocol) give a 99.9 %
    interval containing the estimate and the paper's 79/288 (the fraction is about 0.27)."""
    from verify.workloads import run_fig1

    stats = run_fig1(10_000, 3e-2, 96, seed=4, device="cpu", workers=1, progress=None)
    low, high = clopper_pearson(stats.converged_count, stats.runs)
    assert low < stats.converged_count / stats.runs < high and low < 79 / 288 < high
    assert stats.engine == "compiled (cpu)"


def test_progress_lines_are_quiet_for_short_sweeps_then_periodic() -> None:
    import io

    stream = io.StringIO()
    quiet = ProgressLines("short", 100, stream=stream)
    quiet(50)
    quiet(50)
    assert stream.getvalue() == ""
    loud = ProgressLines("long", 1000, every=0.0, quiet=0.0, stream=stream)
    loud(250)
    loud(250)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("long: 25% of 1e+03 run-steps") and "left" in lines[1]
    seen = []
    descent_sweep(objectives()["fig1 (square)"], np.full((10, 8), 0.1), 30, 0.1, record_every=10,
                  progress=seen.append, workers=1)
    assert sum(seen) == 10 * 30


def test_the_gpu_profile_needs_a_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    from verify.claim import Context, Profile

    ctx = Context("rank.exp.fig1", Profile.GPU, 1)
    assert ctx.pick(1, 2, 3) == 3 and ctx.pick(1, 2, 3, gpu=4) == 4
    if availability().gpu:
        pytest.skip("this machine has a GPU for the kernel")
    assert main(["run", "rank.exp.fig1", "--profile", "gpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("verify: error: --profile gpu needs a GPU for the descent kernel") and "--device cpu" in err
