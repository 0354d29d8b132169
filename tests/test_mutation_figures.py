"""``verify bench teeth``'s figure oracle and subprocess coverage: a mutant whose tests and claims all pass but
which changes what a claim's report shows (a figure, a tightness ratio, a criterion's arguments, a plot) counts as
*shown*, apart from the mutants a failing test kills; the Python subprocesses a test starts are measured in the
baseline and credited to that test. Needs the ``mutate`` extra (cosmic-ray, coverage.py) for the end-to-end run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verify import mutation
from verify.claim import Evidence, EvidenceKind, Role, Verdict
from verify.registry import get
from verify.runner import DEFAULT_SEED, FIGURES_VARIABLE, ClaimResult, reported_figures, run_claim

ROOT = Path(__file__).resolve().parents[1]


def _result(figures: dict, detail: str = "d") -> ClaimResult:
    item = Evidence("bound", EvidenceKind.EXACT, Role.PROOF, True, detail, figures=figures)
    return ClaimResult("x.claim", Verdict.CERTIFIED, Verdict.CERTIFIED, 1.0, (item,))


def test_reported_figures_leave_timings_out_and_keep_what_the_report_shows() -> None:
    shown = reported_figures(_result({"rate": 0.5, "seconds": 3.0, "cpu_seconds": 2.0, "wall": 1.0, "steps": 7}))
    assert shown == {"0 bound": {"passed": True, "figures": {"rate": 0.5, "steps": 7}, "detail": "d", "kind": "exact",
                                 "role": "proof", "conclusion": ""}}
    # the criterion text and its arguments are shown under the item, so they count too
    item = Evidence("bound", EvidenceKind.NUMERIC, Role.SUPPORT, True, "d", criterion="gap ≤ 10× the error",
                    arguments={"runs": "3 flows"})
    shown = reported_figures(ClaimResult("x.claim", Verdict.CONFIRMED, Verdict.CONFIRMED, 1.0, (item,)))
    assert shown["0 bound"]["criterion"] == "gap ≤ 10× the error"
    assert shown["0 bound"]["arguments"] == {"runs": "3 flows"}
    # so does the conclusion an item is evidence for: filed under another one, the report reads differently
    moved = [reported_figures(ClaimResult("x.claim", Verdict.CONFIRMED, Verdict.CONFIRMED, 1.0, (
        Evidence("bound", EvidenceKind.NUMERIC, Role.SUPPORT, True, "d", conclusion=name),)))
        for name in ("(i)", "(ii)")]
    assert mutation.claims_figure_change({"x@quick:0": moved[0]}, {"x@quick:0": moved[1]}) is not None


def test_figure_change_names_the_first_difference() -> None:
    before = {"0 bound": {"figures": {"rate": 0.5, "n": 3}, "tightness": [{"tightest": 0.9}]}}
    assert mutation.figure_change(before, json.loads(json.dumps(before))) is None
    moved = {"0 bound": {"figures": {"rate": 0.5, "n": 4}, "tightness": [{"tightest": 0.9}]}}
    assert mutation.figure_change(before, moved) == "0 bound / figures / n: 3 → 4"
    assert mutation.figure_change(before, {"0 bound": {"figures": {"rate": 0.5, "n": 3},
                                                       "tightness": [{"tightest": 0.8}]}}) == \
        "0 bound / tightness / [0] tightest: 0.9 → 0.8"
    assert mutation.figure_change({"a": 1}, {"a": 1, "b": 2}) == "b: added"
    assert mutation.figure_change({"a": [1, 2]}, {"a": [1]}) == "a: [1, 2] → [1]"
    # the claims a mutant's run did not reach are not compared; the first changed one is named
    assert mutation.claims_figure_change({"c1@quick/1": {"k": 1}, "c2@quick/1": {"k": 2}},
                                         {"c2@quick/1": {"k": 3}}) == "c2 reports k: 2 → 3"
    others = {"c1@quick/1": {"k": 1}, "new@quick/1": {"k": 0}, "c1@quick/2": {"k": 5}}  # same, or not in the baseline
    assert mutation.claims_figure_change({"c1@quick/1": {"k": 1}}, others) is None
    assert mutation.claims_figure_change({"c1@quick/1": None}, {"c1@quick/1": {"k": 2}}) is None  # not comparable


def test_figures_are_keyed_by_profile_and_seed_and_unstable_ones_are_not_compared(tmp_path: Path) -> None:
    path = tmp_path / "figures.jsonl"
    lines = [{"id": "c", "profile": "quick", "seed": 1, "shown": {"k": 1}},
             {"id": "c", "profile": "quick", "seed": 2, "shown": {"k": 2}},  # a test ran it at another seed
             {"id": "c", "profile": "quick", "seed": 1, "shown": {"k": 1}},  # again, the same: comparable
             {"id": "d", "profile": "quick", "seed": 1, "shown": {"k": 1}},
             {"id": "d", "profile": "quick", "seed": 1, "shown": {"k": 3}}]  # differs from itself: not comparable
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert mutation.read_figures(path) == {"c@quick/1": {"k": 1}, "c@quick/2": {"k": 2}, "d@quick/1": None}


def test_a_passing_run_is_shown_only_when_a_claim_reports_other_figures() -> None:
    baseline = {"c@quick/1": {"0 bound": {"figures": {"rate": 0.5}}}}
    same = {"rc": 0, "output": "", "figures": {"c@quick/1": {"0 bound": {"figures": {"rate": 0.5}}}}}
    moved = {"rc": 0, "output": "", "figures": {"c@quick/1": {"0 bound": {"figures": {"rate": 0.25}}}}}
    assert mutation._outcome(same, baseline) == (mutation.SURVIVED, "")
    assert mutation._outcome(moved, baseline) == (mutation.SHOWN, "c reports 0 bound / figures / rate: 0.5 → 0.25")
    failed = {**moved, "rc": 1, "output": "FAILED tests/t.py::test_x"}
    assert mutation._outcome(failed, baseline)[0] == mutation.KILLED  # a failing test outranks a figure


def test_a_test_module_that_no_longer_imports_or_a_crash_kills_and_a_usage_error_does_not() -> None:
    uncollectable = {"rc": 4, "output": "4 warnings, 2 errors in 3.21s\nERROR: found no collectors for "
                                        "tests/test_x.py::test_y"}
    assert mutation._outcome(uncollectable) == (mutation.KILLED,
                                                "collection failed: a selected test module no longer imports")
    missing = {"rc": 4, "output": "no tests ran in 0.01s\nERROR: found no collectors for tests/test_x.py::test_y"}
    assert mutation._outcome(missing)[0] == mutation.ERROR  # a node id that is not there: the tool's fault
    assert mutation._outcome({"rc": 4, "output": "ERROR: usage: pytest [options]"})[0] == mutation.ERROR
    assert mutation._outcome({"rc": -6, "output": "Fatal Python error: Aborted"}) == (
        mutation.KILLED, "the test run crashed (signal 6)")
    assert mutation._outcome({"rc": 5, "output": "no tests ran"})[0] == mutation.ERROR


def test_the_score_counts_shown_mutants_and_the_strict_score_does_not() -> None:
    counts = {"killed": 6, "timeout": 1, "shown": 2, "survived": 1, "no_coverage": 0}
    assert mutation.scores(counts) == {"score": 0.9, "score_tests": 0.7}
    assert mutation.scores({"killed": 0, "timeout": 0, "shown": 0, "survived": 0, "no_coverage": 0}) == \
        {"score": None, "score_tests": None}


@pytest.mark.slow  # ≈ 10 s: two pytest runs of one claim in subprocesses
def test_the_plugin_writes_each_claims_figures_and_two_runs_agree(tmp_path: Path) -> None:
    claim = "rank.lem3"
    files = [tmp_path / "first.jsonl", tmp_path / "second.jsonl"]
    for path in files:
        env = {**os.environ, FIGURES_VARIABLE: str(path), "PYTEST_ADDOPTS": ""}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                               "--claim", claim], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, f"exit status {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    first, second = (mutation.read_figures(path) for path in files)
    key = f"{claim}@quick/{DEFAULT_SEED}"
    assert list(first) == [key] and first == second
    assert first[key] == json.loads(json.dumps(reported_figures(run_claim(get(claim)))))


def toy_project(tmp_path: Path, calc: str, tests: str) -> Path:
    """A throwaway project to mutate: package ``pkg`` with ``calc.py``, and ``tests/test_calc.py``."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "calc.py").write_text(calc)
    (root / "tests" / "test_calc.py").write_text(tests)
    return root


def arithmetic_teeth(tmp_path: Path, capsys: pytest.CaptureFixture[str], calc: str, tests: str) -> dict:
    """``verify bench teeth --operators arithmetic`` on a toy package (``calc.py`` and its tests): the JSON report."""
    pytest.importorskip("cosmic_ray")
    pytest.importorskip("coverage")
    from verify.cli import main

    root = toy_project(tmp_path, calc, tests)
    assert main(["bench", "teeth", "--root", str(root), "--paths", "pkg", "--tests", "tests/test_calc.py",
                 "--no-preload", "--operators", "arithmetic", "--session", str(tmp_path / "session"),
                 "--json", "-"]) == 0
    return json.loads(capsys.readouterr().out)


SUBPROCESS_CALC = '''\
def cubed(x):
    return x * x * x
'''

SUBPROCESS_TESTS = '''\
import subprocess
import sys


def test_cubed_in_a_subprocess():
    done = subprocess.run([sys.executable, "-c", "from pkg.calc import cubed; print(cubed(3))"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "27"
'''


@pytest.mark.slow  # ≈ 10 s: a baseline and two mutant runs, each starting a subprocess
def test_code_run_only_in_a_subprocess_is_credited_to_the_test_that_starts_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = arithmetic_teeth(tmp_path, capsys, SUBPROCESS_CALC, SUBPROCESS_TESTS)
    mutants = {m["id"]: m for m in report["mutants"]}
    assert set(mutants) == {"pkg/calc.py:2:13:ReplaceBinaryOperator_Mul_Div:0",
                            "pkg/calc.py:2:17:ReplaceBinaryOperator_Mul_Div:0"}
    for entry in mutants.values():  # seen in the subprocess, credited to its test, and killed by it
        assert (entry["selection"], entry["tests"], entry["outcome"]) == ("line", 1, "killed")


MEMO_CALC = '''\
import functools


@functools.cache
def table():
    return [k * k for k in range(1, 5)]
'''

MEMO_TESTS = '''\
from pkg.calc import table


def test_a_length():
    assert len(table()) == 4


def test_b_values():
    assert table() == [1, 4, 9, 16]
'''


@pytest.mark.slow  # ≈ 10 s: a baseline and one mutant run
def test_a_memoized_result_is_credited_to_every_test_that_reads_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The baseline empties the measured modules' memo caches before each test: ``test_b_values`` reads the table
    ``test_a_length`` computed first, and only it can tell ``k * k`` from ``k / k``; without the emptying, coverage
    credits the line to ``test_a_length`` alone, and the mutant survives it."""
    [entry] = arithmetic_teeth(tmp_path, capsys, MEMO_CALC, MEMO_TESTS)["mutants"]
    assert entry["id"] == "pkg/calc.py:6:14:ReplaceBinaryOperator_Mul_Div:0"
    assert (entry["selection"], entry["tests"], entry["outcome"]) == ("line", 2, "killed")


def test_memo_caches_a_measured_module_imports_are_emptied_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A memo defined elsewhere can gate a measured module's lines: global_optimum's program builder runs inside
    numerics.convex.parametrized_program only on a key's first call, so without emptying it a later test that
    reuses the program was never credited with the builder's lines (a relaxed cone constraint survived that way).
    Measured here: a toy module with its own ``functools.cache`` and the imported ``parametrized_program``."""
    import functools
    import types

    from numerics.convex import parametrized_program
    from verify import mutation_coverage

    toy = types.ModuleType("toy_measured")
    toy.__file__ = str(tmp_path / "toy_measured.py")
    calls: list[str] = []

    @functools.cache
    def own() -> int:
        calls.append("own")
        return 1

    toy.own, toy.parametrized_program, toy.shared = own, parametrized_program, own  # the same memo twice
    monkeypatch.setitem(sys.modules, "toy_measured", toy)
    monkeypatch.setattr(mutation_coverage, "_include_real", {os.path.realpath(toy.__file__)})

    def build() -> str:
        calls.append("build")
        return "program"

    for _ in range(2):
        assert own() == 1 and parametrized_program(("toy",), build) == "program"
    assert calls == ["own", "build"]
    assert mutation_coverage.clear_memo_caches() == 2
    assert own() == 1 and parametrized_program(("toy",), build) == "program"
    assert calls == ["own", "build", "own", "build"]
    monkeypatch.setattr(mutation_coverage, "_include_real", set())  # nothing measured: nothing emptied
    assert mutation_coverage.clear_memo_caches() == 0


IMPORT_TIME = '''\
import functools

LIMIT = 3


@functools.lru_cache(maxsize=1)
def cached(x, scale=2):
    return scale * x


class Box:
    SIDE = 4

    def area(self):
        return self.SIDE ** 2
'''


def test_lines_that_run_at_import_are_credited_to_every_test_of_the_module() -> None:
    """Module-level statements, decorators, signatures (defaults) and class bodies run at import, credited by
    coverage to the one test that imported the module first; the mutant of such a line runs every test of the
    module. Function bodies do not run at import."""
    assert mutation.import_time_lines(IMPORT_TIME) == {1, 3, 6, 7, 11, 12, 14}
    baseline = mutation.Baseline(lines={"m.py": {6: ["t_first"], 8: ["t_first", "t_body"], 15: ["t_area"]}},
                                 import_lines={}, seconds={"t_first": 1.0, "t_body": 2.0, "t_area": 0.5}, failed=[],
                                 skipped=0, startup_seconds=0.0, wall_seconds=0.0, cpu_seconds=0.0, returncode=0)

    def at(line: int) -> mutation.Mutant:
        return mutation.Mutant(f"m.py:{line}:1:core/NumberReplacer:0", "m.py", "core/NumberReplacer", 0,
                               (line, 1), (line, 2))

    import_time = mutation.import_time_lines(IMPORT_TIME)
    assert mutation.select_tests(at(6), baseline, set(), import_time) == (["t_area", "t_first", "t_body"], "module")
    assert mutation.select_tests(at(8), baseline, set(), import_time) == (["t_first", "t_body"], "line")
    assert mutation.select_tests(at(9), baseline, set(), import_time) == ([], "none")
