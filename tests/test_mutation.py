"""``verify bench teeth`` end to end on a throwaway package: a function with conditions, tests that kill some of
its mutants and not others, an equivalent mutant listed with its reason, a function no test calls, and a module
constant read only at import. Needs the ``mutate`` extra (cosmic-ray, coverage.py); skipped without it."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("cosmic_ray")
pytest.importorskip("coverage")

from cosmic_ray.mutating import mutate_code  # noqa: E402
from test_mutation_figures import toy_project  # noqa: E402

from verify import mutation  # noqa: E402
from verify.cli import main  # noqa: E402
from verify.mutation_operators import DropConjunct  # noqa: E402

CALC = '''\
def clamp(x, low, high):
    if x < low:
        return low
    if x > high:
        return high
    return x


def both_positive(a, b):
    return a > 0 and b > 0


SCALE = 2


def scaled(x):
    return SCALE * x


def unused(x):
    return x + 1
'''

TESTS = '''\
from pkg.calc import both_positive, clamp, scaled


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0


def test_both():
    assert both_positive(1, 1)
    assert not both_positive(-1, 1)


def test_scaled():
    assert scaled(3) == 6
'''

EQUIVALENT = '''\
[[equivalent]]
id = "pkg/calc.py:4:9:ReplaceComparisonOperator_Gt_GtE:0"
reason = "at x = high both branches return the same value"

[[equivalent]]  # matched by its lines, not its id
file = "pkg/calc.py"
original = "if x < low:"
mutated = "if x <= low:"
reason = "at x = low both branches return the same value"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = toy_project(tmp_path, CALC, TESTS)
    (root / "mutation").mkdir()
    (root / "mutation" / "equivalent.toml").write_text(EQUIVALENT)
    return root


def _teeth(root: Path, *extra: str) -> list[str]:
    return ["bench", "teeth", "--root", str(root), "--paths", "pkg", "--tests", "tests/test_calc.py", "--no-preload",
            "--session", str(root.parent / "session"), *extra]


@pytest.mark.parametrize("source, occurrence, expected", [
    (example.pre_mutation_code, example.occurrence, example.post_mutation_code) for example in DropConjunct.examples()
] + [
    ("if (a and\n        b):\n    pass\n", 0, "if (\n        b):\n    pass\n"),  # the line break stays
    ("ok = all(x > 0 for x in xs)\n", 0, None),  # a generator is no list of conditions
    ("m = a & b\n", 0, None),  # a bitwise and without a comparison is no mask
])
def test_drop_conjunct(source: str, occurrence: int, expected: str | None) -> None:
    assert mutate_code(source, DropConjunct(), occurrence) == expected


def test_operator_groups_resolve_to_cosmic_ray_operators() -> None:
    names = mutation.resolve_operators(["number", "comparison,conjunct"])
    assert names[0] == "core/NumberReplacer" and names[-1] == "ibverify/DropConjunct"
    assert "core/ReplaceComparisonOperator_Lt_LtE" in names and "core/ReplaceComparisonOperator_Lt_Is" not in names
    assert len(mutation.resolve_operators(["core/ReplaceBinaryOperator_Add_*"])) == 11
    with pytest.raises(mutation.MutationError, match="unknown operator 'swap'"):
        mutation.resolve_operators(["swap"])


def test_annotations_and_keyword_only_markers_are_not_mutated(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("from __future__ import annotations\n"
                                   "def f(a: int | None = 2 * 3, *, b: list[int] = None) -> int | float:\n"
                                   "    x: int | None = a * b\n"
                                   "    g = lambda *, c: c - 1\n")
    mutants = mutation.enumerate_mutants(tmp_path, ["m.py"], mutation.resolve_operators(["number", "arithmetic-all"]))
    positions = sorted({m.start for m in mutants})
    assert positions == [(2, 22), (2, 24), (2, 26), (3, 22), (4, 23), (4, 25)]  # 2 * 3, a * b, c - 1 only
    # occurrences still count the skipped positions, as cosmic-ray's mutation visitor does
    source = (tmp_path / "m.py").read_text()
    for m in mutants:
        original, mutated, _ = mutation.changed_lines(source, mutation.mutate_source(source, m))
        assert original.splitlines()[0] == source.splitlines()[m.start[0] - 1].strip() != mutated


def mutants_of(tmp_path: Path, source: str, groups: list[str]) -> tuple[list[mutation.Mutant], Counter[str]]:
    """The mutants that ``groups`` make of a one-file project ``m.py`` = ``source``, and what was left out."""
    (tmp_path / "m.py").write_text(source)
    left_out: Counter[str] = Counter()
    return mutation.enumerate_mutants(tmp_path, ["m.py"], mutation.resolve_operators(groups), left_out), left_out


def test_presentation_and_other_profile_positions_are_left_out_and_counted(tmp_path: Path) -> None:
    operators = mutation.resolve_operators(["number", "arithmetic-all"])
    kept, left_out = mutants_of(tmp_path, 'n = ctx.pick(3, 5 - 1, paper=7)\n'
                                          'q = ctx.pick(quick=2, full=4)\n'
                                          'label = f"{n + 1:.3g} of {q}" + str(n * 2)\n'
                                          'r = rng.pick(8, 9)\n'
                                          'pick(10, 11)\n', ["number", "arithmetic-all"])
    lines = sorted({m.start[0] for m in kept})
    assert lines == [1, 2, 3, 4, 5]
    assert {m.start for m in kept if m.start[0] == 1} == {(1, 13)}  # the quick value only
    assert {m.start for m in kept if m.start[0] == 2} == {(2, 19)}  # quick=2, not full=4
    assert {m.start for m in kept if m.start[0] == 3} == {(3, 30), (3, 38), (3, 40)}  # not the f-string's n + 1
    assert len({m.start for m in kept if m.start[0] == 4}) == 2  # another object's pick is no Context.pick
    assert len({m.start for m in kept if m.start[0] == 5}) == 2  # nor a plain function named pick
    every = mutation.enumerate_mutants(tmp_path, ["m.py"], operators, every_position=True)
    assert len(every) == len(kept) + sum(left_out.values())
    # each number has 2 mutants (±1) and each + or − 11: the f-string's n + 1 gives 2 + 11; 5 − 1, 7 and 4 give
    # 2 + 2 + 11 + 2 + 2
    assert left_out == {mutation.PRESENTATION: 13, mutation.OTHER_PROFILE: 19}


def test_code_that_runs_only_beyond_the_quick_profile_is_left_out(tmp_path: Path) -> None:
    kept, left_out = mutants_of(tmp_path, 'if ctx.pick(False, True):\n    a = 1\nelse:\n    b = 2\n'
                                          'c = [3] if ctx.profile != "quick" else [4]\n'
                                          'if x:\n    d = 5\n'
                                          'if ctx.profile is not Profile.QUICK: e = 6\n'
                                          'elif ctx.pick(False, True):\n    f = 7\n', ["number"])
    assert sorted({m.start[0] for m in kept}) == [4, 5, 7]  # the else branch, [4], the branch of x
    assert {m.start for m in kept if m.start[0] == 5} == {(5, 40)}  # [4], not [3]
    assert left_out == {mutation.OTHER_PROFILE: 8}  # 1, 3, 6 and 7, two mutants each


@pytest.mark.slow  # ≈ 10 s: a baseline and 20 pytest runs in subprocesses
def test_teeth_end_to_end(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_teeth(project, "--jobs", "2", "--json", "-", "--survivors")) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # exactly one JSON document on stdout
    mutants = {m["id"]: m for m in report["mutants"]}
    assert len(mutants) == report["total"]["mutants"] == 20
    assert report["tool"].startswith("cosmic-ray ") and report["baseline"]["tests"] == 3

    # killed and survived by the tests that execute the line
    assert mutants["pkg/calc.py:10:11:DropConjunct:0"]["outcome"] == "killed"  # `b > 0` alone: both(-1, 1) holds
    kept_a = mutants["pkg/calc.py:10:21:DropConjunct:0"]  # `a > 0` alone: no test tells
    assert kept_a["outcome"] == "survived" and kept_a["mutated"] == "return a > 0"
    assert mutants["pkg/calc.py:4:9:ReplaceComparisonOperator_Gt_LtE:0"]["detail"].startswith(
        "FAILED tests/test_calc.py::test_clamp")
    # coverage-guided: a line no test executes is "no coverage", without a test run
    for op in ("NumberReplacer:0", "NumberReplacer:1"):
        entry = mutants[f"pkg/calc.py:21:15:{op}"]
        assert entry["outcome"] == "no coverage" and entry["selection"] == "none" and entry["seconds"] == 0
    assert mutants["pkg/calc.py:21:13:ReplaceBinaryOperator_Add_Sub:0"]["outcome"] == "no coverage"
    # a module constant runs at import only: every test of the module judges it
    constant = mutants["pkg/calc.py:13:8:NumberReplacer:0"]
    assert constant["selection"] == "module" and constant["tests"] == 3 and constant["outcome"] == "killed"
    # only the covering test ran
    assert mutants["pkg/calc.py:17:17:ReplaceBinaryOperator_Mul_Div:0"]["tests"] == 1

    # equivalent mutants: listed with their reasons, left out of the score
    equivalent = {e["id"]: e["reason"] for e in report["equivalent"]}
    assert equivalent == {"pkg/calc.py:4:9:ReplaceComparisonOperator_Gt_GtE:0":
                          "at x = high both branches return the same value",
                          "pkg/calc.py:2:9:ReplaceComparisonOperator_Lt_LtE:0":
                          "at x = low both branches return the same value"}
    total = report["total"]
    assert (total["killed"], total["survived"], total["no_coverage"], total["equivalent"]) == (10, 5, 3, 2)
    assert total["score"] == pytest.approx(10 / 18, abs=1e-4)
    [row] = [r for r in report["modules"] if r["module"] == "pkg/calc.py"]
    assert row["score"] == total["score"] and row["mutants"] == 20
    survivors = {s["id"] for s in report["survivors"]}
    assert len(survivors) == 8 and not survivors & set(equivalent) and "pkg/calc.py:10:21:DropConjunct:0" in survivors

    # the human output (on stderr with --json -): progress, table, equivalents, survivors
    err = captured.err
    assert "[20/20]" in err and "pkg/calc.py" in err and "55.6 %" in err
    assert "at x = high both branches return the same value" in err
    assert "survivors (8):" in err and "+ return a > 0" in err
    # the session is cosmic-ray's: its database holds every mutant and result
    with sqlite3.connect(project.parent / "session" / "session.sqlite") as db:
        assert db.execute("select count(*) from work_results").fetchone()[0] == 20
    assert not list((project.parent / "session" / "workers").iterdir())  # the workers' trees are gone


@pytest.mark.slow
def test_teeth_sample_resume_and_dask(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    distributed = pytest.importorskip("distributed")
    args = _teeth(project, "--operators", "conjunct", "--json", "-")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert main([*args, "--scheduler", cluster.scheduler_address]) == 0
    try:
        report = json.loads(capsys.readouterr().out)
    finally:
        mutation._remove_remote_trees()
    assert {m["id"]: m["outcome"] for m in report["mutants"]} == {"pkg/calc.py:10:11:DropConjunct:0": "killed",
                                                                  "pkg/calc.py:10:21:DropConjunct:0": "survived"}
    assert main([*args, "--resume"]) == 0  # nothing left to judge: the stored results come back
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["total"] == report["total"] and resumed["mutant_seconds"]["runs"] == 2
    # --report-only reads the session with its own options (here none of the run's are repeated)
    assert main(_teeth(project, "--report-only", "--json", "-")) == 0
    read = json.loads(capsys.readouterr().out)
    assert read["total"] == report["total"] and read["options"]["operators"] == report["options"]["operators"]
    assert main(_teeth(project, "--sample", "3", "--seed", "1", "--dry-run", "--json", "-")) == 0
    dry = json.loads(capsys.readouterr().out)
    assert dry["total"]["mutants"] == 3 and dry["total"]["not_run"] == 3 and dry["baseline"] is None


@pytest.mark.parametrize("arguments, message", [
    (["--operators", "swap"], "unknown operator 'swap'"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--paths", "nowhere"], "--paths nowhere: no such Python file or folder"),
    (["--equivalent", "missing.toml"], "--equivalent missing.toml: no such file"),
    (["--sample", "0"], "--sample must be at least 1"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["--report-only", "--session", "no-session-here"], "--report-only: no session in"),
])
def test_teeth_rejects_bad_input_in_one_line(project: Path, arguments: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_teeth(project), *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_bad_equivalent_entries_are_one_line_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "mutation" / "equivalent.toml").write_text('[[equivalent]]\nid = "pkg/calc.py:2:9:X:0"\n')
    assert main(_teeth(project, "--dry-run")) == 2
    assert "entry 1 needs a reason" in capsys.readouterr().err
    (project / "mutation" / "equivalent.toml").write_text(textwrap.dedent('''\
        [[equivalent]]
        reason = "r"
        file = "pkg/calc.py"
    '''))
    assert main(_teeth(project, "--dry-run")) == 2
    assert "needs an id, or file, original and mutated" in capsys.readouterr().err


def test_an_equivalent_entry_matches_by_text_only_when_its_id_is_stale(tmp_path: Path) -> None:
    """The same line can occur twice in a file: an entry whose id still names its own mutant must not be read as
    the equivalent of the other occurrence; an entry whose lines moved (stale id) still matches by its text."""
    (tmp_path / "m.py").write_text("if n == 0:\n    pass\nif n == 0:\n    pass\n")
    first = mutation.Mutant("m.py:1:8:NumberReplacer:1", "m.py", "core/NumberReplacer", 0, (1, 8), (1, 9))
    second = mutation.Mutant("m.py:3:8:NumberReplacer:1", "m.py", "core/NumberReplacer", 1, (3, 8), (3, 9))
    text = {"file": "m.py", "operator": "core/NumberReplacer", "original": "if n == 0:", "mutated": "if n == -1:"}
    current_entry = mutation.Equivalent(id=first.id, reason="r", **text)
    stale_entry = mutation.Equivalent(id="m.py:7:8:NumberReplacer:1", reason="r", **text)
    current = mutation._current_entry_ids([current_entry, stale_entry], tmp_path)
    assert current == {first.id}
    assert current_entry.matches(first, "if n == 0:", "if n == -1:", current)
    assert not current_entry.matches(second, "if n == 0:", "if n == -1:", current)
    assert stale_entry.matches(second, "if n == 0:", "if n == -1:", current)


def test_tests_that_killed_a_function_s_mutants_run_first() -> None:
    """The order changes only the cost (-x stops at the first failure, and every test runs when none fails): the
    killers of the same function come first, then those of the same file, then the rest, fastest first."""
    history = mutation.KillHistory()
    first = mutation.Mutant("pkg/a.py:3:4:Op:0", "pkg/a.py", "Op", 0, (3, 4), (3, 5), "f")
    same_function = mutation.Mutant("pkg/a.py:4:4:Op:0", "pkg/a.py", "Op", 1, (4, 4), (4, 5), "f")
    other_function = mutation.Mutant("pkg/a.py:9:4:Op:0", "pkg/a.py", "Op", 2, (9, 4), (9, 5), "g")
    other_file = mutation.Mutant("pkg/b.py:3:4:Op:0", "pkg/b.py", "Op", 0, (3, 4), (3, 5), "f")
    seconds = {"t_fast": 0.1, "t_mid": 1.0, "t_slow": 5.0, "t_slowest": 9.0}
    tests = ["t_slowest", "t_fast", "t_slow", "t_mid"]
    assert history.order(first, tests, seconds) == ["t_fast", "t_mid", "t_slow", "t_slowest"]
    history.add(first, mutation.failing_node("FAILED t_slow - AssertionError: 1 != 2"))
    history.add(other_function, mutation.failing_node("ERROR t_slowest"))
    assert history.order(same_function, tests, seconds) == ["t_slow", "t_slowest", "t_fast", "t_mid"]
    assert history.order(other_function, tests, seconds) == ["t_slowest", "t_slow", "t_fast", "t_mid"]
    assert history.order(other_file, tests, seconds) == ["t_fast", "t_mid", "t_slow", "t_slowest"]
    assert sorted(history.order(same_function, tests, seconds)) == sorted(tests)
    assert mutation.failing_node("a test failed") is None
    assert mutation.failing_node("FAILED theorems/x.py::rank.thm2 - verdicts differ") == "theorems/x.py::rank.thm2"


def test_local_workers_take_distinct_cpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each local worker is pinned to its own CPU: the index is taken before the worker's tree is built (which
    takes seconds), so two workers starting together cannot both read index 0 and share one CPU."""
    import threading
    import time

    pins: list[int] = []
    started = threading.Barrier(2)

    class SlowTree:
        def __init__(self, base: Path, preload, source=None, server=None, pin=None) -> None:
            started.wait(timeout=10)  # both workers build their trees at the same time
            time.sleep(0.1)
            pins.append(pin)

        def run(self, task: mutation.Task) -> dict:
            time.sleep(0.05)
            return {"id": task.id}

        def remove(self) -> None:
            pass

    monkeypatch.setattr(mutation, "WorkerTree", SlowTree)
    tasks = [mutation.Task(f"m{i}", "pkg/calc.py", "", ("t",), 10.0, False) for i in range(6)]
    replies = list(mutation.run_local(iter(tasks), 2, tmp_path, tmp_path / "workers", ()))
    assert sorted(r["id"] for r in replies) == [f"m{i}" for i in range(6)]
    assert sorted(pins) == [0, 1]
