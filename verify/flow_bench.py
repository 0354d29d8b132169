"""``verify bench flow-fields``: compiled fields (:mod:`numerics.compiled_fields`) against the generic backend.

Two parts, both with wall and CPU time:

* per evaluation: the arc-length field dθ/ds = −∇L/‖∇L‖ and its Jacobian (analytic against the finite differences an
  implicit solver would otherwise take: one field evaluation per parameter) on the networks the margin claims flow
  (Thm 2.1's three instances, Thm 5.1's depth-10 diagonal ReLU net), both margin losses, with the largest relative
  difference of field and Jacobian;
* per claim: each claim of :data:`CLAIMS` run in a fresh process on each side (:func:`numerics.compiled_fields.
  generic_only` for the baseline), CPU seconds of the claim alone (imports, and numba's start-up on the compiled
  side, are paid before the clock starts and reported apart), verdicts of claim and conclusions, passed flags of
  every evidence item and the largest relative difference of their numeric figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

CLAIMS: dict[str, tuple[list[str], str]] = {  # size: (claims, profile)
    "tiny": (["margin.fig1"], "quick"),
    "reduced": (["margin.thm5.1", "margin.thm3.2", "margin.thm2.1", "margin.derived.kkt-table", "margin.thm5.4"],
                "quick"),
    "paper": (["margin.thm5.1", "margin.thm3.2", "margin.thm2.1", "margin.derived.kkt-table", "margin.thm5.4"],
              "full"),
}
EVALUATIONS = {"tiny": 50, "reduced": 2000, "paper": 10_000}  # field evaluations timed per network, loss and side
GOAL_RATIO = 5.0  # CPU time of the claims together, generic over compiled


def field_cases() -> dict[str, tuple[Any, np.ndarray, np.ndarray]]:
    """Networks and data of the margin claims' flows (drawn as Thm 2.1 draws them, fixed seeds)."""
    from numerics.networks import Dense, Network, diagonal, disjoint_patches, fully_connected

    rng = np.random.default_rng(20240601)
    cases = {}
    convolution = Network((disjoint_patches(2, 2), Dense(1, 2)), "linear")
    for name, net, n in [("2-3-1 ReLU, 6 samples", fully_connected([2, 3, 1], "relu"), 6),
                         ("2-patch convolution, 5 samples", convolution, 5),
                         ("diagonal depth 3, 4 samples", diagonal(3, 3, "linear"), 4),
                         ("diagonal ReLU depth 10, 1 sample", diagonal(2, 10, "relu"), 1)]:
        X = rng.normal(size=(n, net.d_in)) if n > 1 else np.ones((1, net.d_in))
        y = np.sign(X @ rng.normal(size=net.d_in))
        cases[name] = (net, X, np.where(y == 0, 1.0, y))
    return cases


def _per_evaluation(flow: Any, theta: np.ndarray, evaluations: int, jacobian: bool) -> tuple[float, float, Any]:
    """(wall, CPU) seconds per evaluation of the arc-length field (or its Jacobian), and the last value."""
    if jacobian and flow.compiled is not None:
        task = lambda: flow.jacobian("arclength", 0.0, theta, False)  # noqa: E731
    elif jacobian:
        task = lambda: _difference_jacobian(flow, theta)  # noqa: E731
    else:
        task = lambda: flow.field("arclength", 0.0, theta, False)  # noqa: E731
    value = task()  # compiles or loads a kernel outside the clock
    count = max(evaluations // (10 if jacobian else 1), 1)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        value = task()
    return (time.perf_counter() - wall) / count, (time.process_time() - cpu) / count, value


def _difference_jacobian(flow: Any, theta: np.ndarray) -> np.ndarray:
    """Forward differences as scipy's solvers take them (one field evaluation per column, step √ε·max(1, |θ_k|))."""
    f0 = flow.field("arclength", 0.0, theta, False)
    out = np.empty((theta.size, theta.size))
    for k in range(theta.size):
        h = np.sqrt(np.finfo(float).eps) * max(1.0, abs(theta[k]))
        shifted = theta.copy()
        shifted[k] += h
        out[:, k] = (flow.field("arclength", 0.0, shifted, False) - f0) / h
    return out


def bench_evaluations(evaluations: int) -> dict[str, Any]:
    from numerics.compiled_fields import generic_only
    from numerics.flows import GradientFlow
    from numerics.losses import Objective

    rows = {}
    for name, (net, X, y) in field_cases().items():
        theta = 0.7 * np.random.default_rng(1).normal(size=net.n_params) + 0.3
        for loss in ("exponential", "logistic"):
            compiled = GradientFlow(Objective(net, X, y, loss))
            with generic_only():
                generic = GradientFlow(Objective(net, X, y, loss))
            row: dict[str, Any] = {}
            for part in ("field", "jacobian"):
                g_wall, g_cpu, g_value = _per_evaluation(generic, theta, evaluations, part == "jacobian")
                c_wall, c_cpu, c_value = _per_evaluation(compiled, theta, evaluations, part == "jacobian")
                scale = float(np.max(np.abs(g_value))) or 1.0
                row[part] = {"generic_us": g_wall * 1e6, "compiled_us": c_wall * 1e6, "generic_cpu_us": g_cpu * 1e6,
                             "compiled_cpu_us": c_cpu * 1e6, "cpu_ratio": g_cpu / c_cpu,
                             "max_relative_difference": float(np.max(np.abs(g_value - c_value))) / scale}
            rows[f"{name}, {loss}"] = row
    return rows


def time_claim(claim_id: str, profile: str, generic: bool) -> dict[str, Any]:
    """One claim in this process (call it in a fresh one): its CPU and wall seconds, verdicts, evidence."""
    import numerics.compiled_fields as compiled_fields
    from verify.claim import Profile
    from verify.registry import get
    from verify.runner import run_claim

    setup = time.process_time()
    if not generic:  # numba's start-up (a process pays it once, with its first kernel), outside the claim's clock
        from numerics.losses import Objective
        from numerics.networks import fully_connected

        Objective(fully_connected([1, 1], "linear"), np.ones((1, 1)), np.ones(1), "exponential").log_value(np.ones(1))
    setup = time.process_time() - setup
    claim = get(claim_id)
    wall, cpu = time.perf_counter(), time.process_time()
    if generic:
        with compiled_fields.generic_only():
            result = run_claim(claim, Profile(profile))
    else:
        result = run_claim(claim, Profile(profile))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    evidence = {}
    for item in result.evidence:
        figures = {k: float(v) for k, v in (item.figures or {}).items()
                   if isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool)}
        evidence[item.name] = {"passed": bool(item.passed), "figures": figures}
    return {"cpu": cpu, "wall": wall, "setup_cpu": setup, "verdict": result.verdict.value,
            "conclusions": [c.verdict.value for c in result.conclusions], "evidence": evidence}


def _claim_in_process(claim_id: str, profile: str, generic: bool) -> dict[str, Any]:
    code = ("import json, sys; from verify.flow_bench import time_claim; "
            f"print(json.dumps(time_claim({claim_id!r}, {profile!r}, {generic!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1], env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if done.returncode != 0:
        raise RuntimeError(f"{claim_id} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _figure_differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[float, str, str, float, float]]:
    """(relative difference, evidence, figure, value in a, value in b) of the numeric figures both runs recorded
    for the same evidence and that differ, largest first (timings and evaluation counts left out)."""
    out = []
    for name, item in a["evidence"].items():
        other = b["evidence"].get(name)
        if other is None:
            continue
        for key, value in item["figures"].items():
            if key in other["figures"] and "seconds" not in key and "evaluations" not in key and key != "nfev":
                v, w = value, other["figures"][key]
                if np.isfinite(v) and np.isfinite(w) and v != w:
                    out.append((abs(v - w) / max(abs(v), abs(w)), name, key, v, w))
    return sorted(out, reverse=True)


def _figure_difference(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Largest relative difference of the numeric figures both runs recorded for the same evidence."""
    differences = _figure_differences(a, b)
    return differences[0][0] if differences else 0.0


def bench_flow_fields(size: str, repeat: int = 1, device: str | None = None) -> Any:
    """Per evaluation and per claim (the device is not used: flows run in scipy on the CPU)."""
    from verify.bench import BenchResult

    load = os.getloadavg()[0]
    evaluations = bench_evaluations(EVALUATIONS[size])
    claims, profile = CLAIMS[size]
    per_claim: dict[str, Any] = {}
    for claim_id in claims:
        sides = {}
        for generic in (True, False):
            runs = [_claim_in_process(claim_id, profile, generic) for _ in range(repeat)]
            sides[generic] = min(runs, key=lambda r: r["cpu"])
        g, c = sides[True], sides[False]
        same = g["verdict"] == c["verdict"] and g["conclusions"] == c["conclusions"] and \
            {k: v["passed"] for k, v in g["evidence"].items()} == {k: v["passed"] for k, v in c["evidence"].items()}
        per_claim[claim_id] = {"generic_cpu": g["cpu"], "compiled_cpu": c["cpu"], "cpu_ratio": g["cpu"] / c["cpu"],
                               "generic_wall": g["wall"], "compiled_wall": c["wall"],
                               "numba_startup_cpu": c["setup_cpu"], "verdict": c["verdict"], "same_verdicts": same,
                               "max_relative_figure_difference": _figure_difference(g, c),
                               "largest_figure_differences": [  # (relative, evidence, figure, generic, compiled)
                                   list(d) for d in _figure_differences(g, c)[:5]]}
    generic_cpu = sum(r["generic_cpu"] for r in per_claim.values())
    compiled_cpu = sum(r["compiled_cpu"] for r in per_claim.values())
    same = all(r["same_verdicts"] for r in per_claim.values())
    statistics: dict[str, Any] = {"generic_cpu_seconds": generic_cpu, "compiled_cpu_seconds": compiled_cpu,
                                  "cpu_ratio": generic_cpu / compiled_cpu, "same_verdicts": same}
    for claim_id, r in per_claim.items():
        statistics |= {f"{claim_id}_generic_cpu": r["generic_cpu"], f"{claim_id}_compiled_cpu": r["compiled_cpu"],
                       f"{claim_id}_figure_difference": r["max_relative_figure_difference"]}
    for part in ("field", "jacobian"):
        rows = [row[part] for row in evaluations.values()]
        statistics |= {f"{part}_generic_cpu_us_median": float(np.median([r["generic_cpu_us"] for r in rows])),
                       f"{part}_compiled_cpu_us_median": float(np.median([r["compiled_cpu_us"] for r in rows])),
                       f"{part}_max_relative_difference": max(r["max_relative_difference"] for r in rows)}
    statistics |= {"per_claim": per_claim, "per_evaluation": evaluations}  # nested: in the JSON only
    return BenchResult(
        "flow-fields", size, f"arc-length field and Jacobian of {len(evaluations)} network/loss pairs; "
        f"{len(claims)} margin claims ({profile} profile) in fresh processes", "generic backend (generic_only)",
        sum(r["generic_wall"] for r in per_claim.values()), sum(r["compiled_wall"] for r in per_claim.values()),
        f"claims ≥ {GOAL_RATIO:g}× less CPU together, same verdicts",
        generic_cpu / compiled_cpu >= GOAL_RATIO and same if size != "tiny" else None, statistics,
        (load, os.getloadavg()[0]), generic_cpu, compiled_cpu)
