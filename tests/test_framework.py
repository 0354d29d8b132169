"""The claim model, verdict rules, runner, store and CLI."""

import json
import os

import pytest

from verify import cli
from verify.claim import (
    ClaimDefinitionError,
    Context,
    Criterion,
    Decision,
    Evidence,
    EvidenceKind,
    Profile,
    Role,
    Verdict,
    decide,
    line,
)
from verify.registry import UnknownClaimError, claim, select
from verify.runner import run_claims
from verify.store import ResultStore


def _item(role, passed, kind=None, undecided=False):
    kind = kind or {Role.PROOF: EvidenceKind.EXACT, Role.CONTROL: EvidenceKind.NEGATIVE_CONTROL}.get(
        role, EvidenceKind.NUMERIC)
    return Evidence("e", kind, role, passed, "", conclusion="c", undecided=undecided)


CONTROL_OK = _item(Role.CONTROL, True)
PROOF = _item(Role.PROOF, True)
NUMERIC = _item(Role.SUPPORT, True)
EXACT_CEX = _item(Role.COUNTEREXAMPLE, True, EvidenceKind.EXACT)
NUMERIC_CEX = _item(Role.COUNTEREXAMPLE, True, EvidenceKind.NUMERIC)


@pytest.mark.parametrize("items,cited,verdict", [
    ([PROOF, CONTROL_OK], False, Verdict.CERTIFIED),
    ([PROOF, _item(Role.SUPPORT, True, EvidenceKind.INTERVAL), CONTROL_OK], False, Verdict.CERTIFIED),
    ([PROOF, NUMERIC, CONTROL_OK], False, Verdict.CONFIRMED),  # a trivial proof beside numeric support
    ([_item(Role.PROOF, True, EvidenceKind.SYMBOLIC), _item(Role.SUPPORT, True, EvidenceKind.TREND), CONTROL_OK],
     False, Verdict.CONFIRMED),
    ([NUMERIC, CONTROL_OK], False, Verdict.CONFIRMED),
    ([_item(Role.SUPPORT, True, EvidenceKind.EXACT), CONTROL_OK], False, Verdict.CONFIRMED),  # not offered as proof
    ([NUMERIC, CONTROL_OK], True, Verdict.ASSUMED),
    ([PROOF, _item(Role.SUPPORT, False), CONTROL_OK], False, Verdict.INCONCLUSIVE),
    ([EXACT_CEX, CONTROL_OK], False, Verdict.REFUTED),
    ([_item(Role.COUNTEREXAMPLE, True, EvidenceKind.INTERVAL), CONTROL_OK], False, Verdict.REFUTED),
    ([NUMERIC_CEX, CONTROL_OK], False, Verdict.CONTRADICTED),  # numerical evidence against: the weaker verdict
    ([EXACT_CEX, _item(Role.COUNTEREXAMPLE, False), CONTROL_OK], False, Verdict.INCONCLUSIVE),  # attempt shown
    ([_item(Role.COUNTEREXAMPLE, False), CONTROL_OK], False, Verdict.INCONCLUSIVE),  # a failed search proves nothing
    ([_item(Role.COUNTEREXAMPLE, False), NUMERIC, CONTROL_OK], False, Verdict.INCONCLUSIVE),
    ([PROOF, EXACT_CEX, CONTROL_OK], False, Verdict.ERROR),  # proof and counterexample of one conclusion
    ([PROOF, NUMERIC_CEX, CONTROL_OK], False, Verdict.ERROR),
    ([PROOF], False, Verdict.TOOTHLESS),  # no control at all
    ([PROOF, _item(Role.CONTROL, False)], False, Verdict.TOOTHLESS),
    ([PROOF, _item(Role.CONTROL, False, undecided=True)], False, Verdict.TOOTHLESS),
    ([EXACT_CEX, _item(Role.CONTROL, False)], False, Verdict.TOOTHLESS),
    ([CONTROL_OK], False, Verdict.INCONCLUSIVE),
    ([], False, Verdict.INCONCLUSIVE),
    ([PROOF, CONTROL_OK, _item(Role.ERROR, False)], False, Verdict.INCONCLUSIVE),
])
def test_verdict_rules_per_conclusion(items, cited, verdict):
    judgement = decide(items, cited=cited, conclusions={"c": Verdict.CERTIFIED})
    assert judgement.conclusions[0].verdict is verdict
    assert judgement.verdict is verdict
    assert judgement.conclusions[0].evidence == tuple(range(len(items)))


def test_claim_verdict_is_the_weakest_conclusion_and_failures_are_never_hidden():
    def at(item, name):
        return Evidence(**{**item.__dict__, "conclusion": name})

    expected = {"a": Verdict.CERTIFIED, "b": Verdict.CONFIRMED}
    both = [at(PROOF, "a"), at(CONTROL_OK, "a"), at(NUMERIC, "b"), at(CONTROL_OK, "b")]
    judgement = decide(both, cited=False, conclusions=expected)
    assert judgement.verdict is Verdict.CONFIRMED
    assert [(c.name, c.verdict, c.rigorous) for c in judgement.conclusions] == [
        ("a", Verdict.CERTIFIED, True), ("b", Verdict.CONFIRMED, False)]
    refuted = decide([at(EXACT_CEX, "a"), at(CONTROL_OK, "a"), *both[2:]], cited=False, conclusions=expected)
    assert refuted.verdict is Verdict.REFUTED
    failing = decide([at(EXACT_CEX, "a"), at(CONTROL_OK, "a"), at(_item(Role.SUPPORT, False), "b"),
                      at(CONTROL_OK, "b")], cited=False, conclusions=expected)
    assert failing.verdict is Verdict.INCONCLUSIVE  # a failing conclusion is not hidden under "refuted"
    stopped = decide([at(PROOF, "a"), at(CONTROL_OK, "a"), Evidence("check raised", EvidenceKind.NUMERIC,
                                                                     Role.ERROR, False, "boom")],
                     cited=False, conclusions=expected)
    assert [c.verdict for c in stopped.conclusions] == [Verdict.INCONCLUSIVE] * 2
    missing = decide(both[:2], cited=False, conclusions=expected)
    assert missing.conclusions[1].verdict is Verdict.INCONCLUSIVE
    assert missing.conclusions[1].reason == "no evidence for or against it"


LESS = Criterion("value ≤ bound", lambda value, bound: value <= bound)


def test_control_is_the_same_criterion_on_perturbed_arguments():
    ctx = Context("rank.x", Profile.QUICK, 1, conclusions=("bound", "other"))
    assert ctx.prove("value below bound", "exact", LESS(1, 2), "1 ≤ 2", conclusion="bound")
    assert ctx.control("bound halved", LESS(1, 0.5), "wrong constant")
    control = ctx.evidence[-1]
    assert control.role is Role.CONTROL and control.passed and control.conclusion == "bound"
    assert control.criterion == "value ≤ bound" and control.perturbs == 0
    assert control.change == "bound: 2 → 0.5 (wrong constant)"
    assert ctx.evidence[0].arguments == {"value": "1", "bound": "2"}
    assert not ctx.control("control that holds", LESS(1, 3))  # not rejected: the control fails


def test_a_control_with_a_reason_counts_only_when_rejected_for_that_reason():
    def within(value, low, high):
        if value < low:
            return Decision(False, "below the interval")
        return Decision(value <= high, "inside" if value <= high else "above the interval")

    interval = Criterion("low ≤ value ≤ high", within)
    ctx = Context("rank.x", Profile.QUICK, 1)
    ctx.prove("inside", "exact", interval(1, 0, 2))
    assert ctx.control("upper end lowered", interval(1, 0, 0.5), because="above")
    assert ctx.evidence[-1].passed and ctx.evidence[-1].detail.endswith("rejected for the intended reason “above”")
    assert not ctx.control("upper end lowered, but the value moved below", interval(-1, 0, 0.5), because="above")
    control = ctx.evidence[-1]
    assert not control.passed and "not for the intended reason “above”" in control.detail
    assert not ctx.control("not rejected at all", interval(1, 0, 3), because="above")
    judgement = decide(ctx.evidence, cited=False, conclusions={"statement": Verdict.CERTIFIED})
    assert judgement.verdict is Verdict.TOOTHLESS


def test_controls_not_built_from_the_criterion_are_refused():
    ctx = Context("rank.x", Profile.QUICK, 1)
    ctx.prove("value below bound", "exact", LESS(1, 2))
    with pytest.raises(ClaimDefinitionError, match="rank.x.*not a call of a criterion"):
        ctx.control("free boolean", True, "trust me")
    other = Criterion("value ≥ bound", lambda value, bound: value >= bound)
    with pytest.raises(ClaimDefinitionError, match="rank.x.*decided no evidence item"):
        ctx.control("another criterion", other(0, 1))
    with pytest.raises(ClaimDefinitionError, match="rank.x.*nothing is perturbed"):
        ctx.control("same arguments", LESS(1, 2))


def test_a_criterion_that_raises_or_cannot_decide_neither_passes_nor_rejects():
    def ratio_below(numerator, denominator, bound):
        return numerator / denominator <= bound

    ratio = Criterion("ratio ≤ bound", ratio_below)
    undecided = Criterion("sign known", lambda x: None if x == 0 else x > 0)
    ctx = Context("rank.x", Profile.QUICK, 1)
    assert not ctx.prove("raises", "exact", ratio(1, 0, 1))
    assert ctx.evidence[-1].undecided and "ZeroDivisionError" in ctx.evidence[-1].detail
    ctx.prove("decides", "exact", ratio(1, 2, 1))
    assert not ctx.control("raises instead of rejecting", ratio(1, 0, 0.1))
    assert "could not decide" in ctx.evidence[-1].detail and ctx.evidence[-1].undecided
    ctx.support("sign", "numeric", undecided(1))
    assert not ctx.control("undecided", undecided(0))
    judgement = decide(ctx.evidence, cited=False, conclusions={"statement": Verdict.CERTIFIED})
    assert judgement.verdict is Verdict.TOOTHLESS  # an undecided control is no rejection
    assert judgement.conclusions[0].reason.endswith("could not decide")


def test_evidence_must_name_a_declared_conclusion():
    ctx = Context("rank.x", Profile.QUICK, 1, conclusions=("a", "b"))
    with pytest.raises(ClaimDefinitionError, match="must name its conclusion"):
        ctx.prove("p", "exact", True, "")
    with pytest.raises(ClaimDefinitionError, match="undeclared conclusion 'c'"):
        ctx.prove("p", "exact", True, "", conclusion="c")


def test_criterion_arguments_are_shown_briefly_and_told_apart_exactly():
    import numpy as np
    import sympy

    shown = Criterion("any", lambda a, b, c, d: True)(np.arange(3.0), np.zeros(100), sympy.sqrt(2), 0.1 + 0.2)
    assert shown.arguments == {"a": "[0., 1., 2.]", "b": shown.arguments["b"], "c": "sqrt(2)", "d": "0.3"}
    assert shown.arguments["b"].startswith("array(100,) #")
    close = Criterion("any", lambda a, b, c, d: True)(np.arange(3.0), np.zeros(100), sympy.sqrt(2), 0.3)
    assert close.differences(shown) == ["d: 0.3 → 0.3"]  # shown alike, told apart by the exact value


def test_objects_and_private_helpers_are_shown_by_name():
    import dataclasses

    import numpy as np

    @dataclasses.dataclass
    class Model:
        basis: np.ndarray

    def _max_margin() -> None: ...

    from fractions import Fraction

    small, large = Fraction(1, 3), Model(np.arange(200.0).reshape(10, 20))  # short reprs stay as they are
    shown = Criterion("any", lambda model, target, short: True)(large, _max_margin, small)
    assert shown.arguments["model"].startswith("Model #") and "array" not in shown.arguments["model"]
    assert shown.arguments["target"] == "max_margin" and shown.arguments["short"] == repr(small)
    exact = Criterion("any", lambda margins: True)(("1", "-sqrt(2)/2"))
    assert exact.arguments["margins"] == "(1, -sqrt(2)/2)"
    other = Criterion("any", lambda model, target, short: True)(Model(np.arange(200.0).reshape(20, 10)),
                                                                 _max_margin, small)
    assert other.differences(shown) == [f"model: {shown.arguments['model']} → {other.arguments['model']}"]


def test_context_figures_are_json_scalars_and_rng_is_deterministic():
    ctx = Context("rank.x", Profile.FULL, 5)
    ctx.support("s", "numeric", True, "", {"inf": float("inf"), "nan": float("nan"), "n": 3, "ok": True},
                plot=line("t", {"a": ([1, 2], [3, float("nan")])}))
    assert ctx.evidence[0].figures == {"inf": "inf", "nan": "nan", "n": 3, "ok": True}
    assert ctx.evidence[0].plot.to_json()["series"][0]["y"] == [3.0, None]
    assert ctx.pick(1, 2, 3) == 2 and ctx.pick(1) == 1 and Context("a.b", Profile.PAPER, 0).pick(1, 2) == 2
    same = Context("rank.x", Profile.QUICK, 5).rng("s").normal(size=3)
    assert (ctx.rng("s").normal(size=3) == same).all()
    assert (Context("rank.x", Profile.QUICK, 6).rng("s").normal(size=3) != same).all()


def test_registration_rules(toy_registry):
    common = dict(ref="r", title="t", statement="s", profiles={"quick": "q"})
    with pytest.raises(ClaimDefinitionError, match="duplicate"):
        claim(id="rank.toy.certified", kind="lemma", expected="certified", **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="unknown paper"):
        claim(id="foo.bar", kind="lemma", expected="certified", **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="cited"):
        claim(id="rank.cited", kind="lemma", expected="assumed", **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="kind"):
        claim(id="rank.k", kind="musing", expected="certified", **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="weakest"):
        claim(id="rank.w", kind="lemma", expected="certified", conclusions={"a": "certified", "b": "confirmed"},
              **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="cannot expect 'toothless'"):
        claim(id="rank.t", kind="lemma", conclusions={"a": "toothless"}, **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="erratum"):
        claim(id="rank.e", kind="lemma", conclusions={"a": "refuted"}, erratum="minor", **common)(lambda ctx: None)
    with pytest.raises(ClaimDefinitionError, match="only a claim refuted"):
        claim(id="rank.f", kind="lemma", conclusions={"a": "certified"}, erratum="literal",
              **common)(lambda ctx: None)


def test_runner_verdicts_and_store(toy_registry, tmp_path):
    run = run_claims(select(), Profile.QUICK, seed=3)
    verdicts = {r.id: r.verdict for r in run.results}
    assert verdicts == {
        "rank.toy.certified": Verdict.CERTIFIED, "margin.toy.confirmed": Verdict.CONFIRMED,
        "tensor.toy.refuted": Verdict.REFUTED, "tensor.toy.corrected": Verdict.CERTIFIED,
        "align.toy.toothless": Verdict.TOOTHLESS, "align.toy.crash": Verdict.INCONCLUSIVE,
    }
    crash = next(r for r in run.results if r.id == "align.toy.crash")
    assert "RuntimeError: solver exploded" in crash.evidence[0].detail
    assert set(run.provenance) >= {"ibverify", "git_commit", "libraries", "platform", "profile", "seed",
                                   "wall_seconds"}
    assert set(run.provenance["libraries"]) >= {"numpy", "scipy", "sympy", "mpmath", "cvxpy", "torch",
                                                "python-flint"}
    store = ResultStore(tmp_path)
    store.save(run)
    store.save(run_claims(select(["rank.toy.certified"]), Profile.FULL, seed=4))
    assert store.latest().results[0].id == "rank.toy.certified"
    result, prov = store.latest_result("tensor.toy.refuted")
    assert result.verdict is Verdict.REFUTED and prov["seed"] == 3
    assert [row[1] for row in store.history("rank.toy.certified")] == ["full", "quick"]


def test_same_seed_same_figures(toy_registry):
    first = run_claims(select(["margin.toy.confirmed"]), seed=11).results[0]
    second = run_claims(select(["margin.toy.confirmed"]), seed=11).results[0]
    assert first.evidence[0].figures == second.evidence[0].figures


def test_select_errors(toy_registry):
    with pytest.raises(UnknownClaimError, match="unknown claim id 'rank.nope'"):
        select(["rank.nope"])
    with pytest.raises(UnknownClaimError, match="unknown paper"):
        select(paper="physics")
    assert [c.id for c in select(paper="tensor")] == ["tensor.toy.refuted", "tensor.toy.corrected"]


def test_cli_list_json(toy_registry, capsys):
    assert cli.main(["list", "--json", "--paper", "rank"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed == [{"id": "rank.toy.certified", "paper": "rank", "ref": "Lemma 0", "kind": "lemma",
                       "title": "x² ≥ 0", "expected": "certified",
                       "conclusions": [{"name": "x² ≥ 0 (x = −2, …, 2)", "expected": "certified"}]}]


def test_cli_run_json_and_exit_codes(toy_registry, tmp_path, capsys):
    out = tmp_path / "sub" / "results.json"
    code = cli.main(["--store", str(tmp_path / "store"), "run", "rank.toy.certified", "tensor.toy.refuted",
                     "--json", str(out), "--seed", "9"])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["provenance"]["seed"] == 9
    first = data["results"][0]
    assert set(first) >= {"id", "verdict", "expected", "seconds", "evidence", "conclusions"}
    assert set(first["evidence"][0]) >= {"name", "kind", "passed", "detail", "figures", "conclusion", "criterion"}
    assert first["conclusions"] == [{"name": "x² ≥ 0 (x = −2, …, 2)", "verdict": "certified",
                                     "expected": "certified", "rigorous": True, "evidence": [0, 1],
                                     "reason": "every item rigorous, all pass"}]
    assert first["evidence"][1]["change"] == "sign: 1 → -1 (−x² ≥ 0 fails at x = 1)"
    assert cli.main(["--store", str(tmp_path / "store"), "run", "align.toy.toothless"]) == 1
    capsys.readouterr()
    assert cli.main(["--store", str(tmp_path / "store"), "show", "rank.toy.certified", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["statement"] == "$x^2 >= 0$" and shown["latest"]["verdict"] == "certified"


@pytest.mark.parametrize("argv,message", [
    (["run", "rank.nope"], "unknown claim id 'rank.nope'"),
    (["show", "rank.nope"], "unknown claim id 'rank.nope'"),
    (["run", "--paper", "physics"], "invalid choice"),
    (["run", "--jobs", "0"], "--jobs must be at least 1"),
    (["frobnicate"], "invalid choice"),
])
def test_cli_bad_input_is_one_line_exit_2(toy_registry, capsys, argv, message):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("verify: error:")


def test_cli_list_markdown_shows_latest_verdicts(toy_registry, tmp_path, capsys):
    store = ["--store", str(tmp_path)]
    assert cli.main(store + ["run", "rank.toy.certified", "align.toy.toothless"]) == 1
    capsys.readouterr()
    assert cli.main(store + ["list", "--markdown"]) == 0
    summary, table = capsys.readouterr().out.split("\n\n")
    # per paper: the verdict counts of the run, the misses, the certified conclusions
    assert summary.splitlines()[0].startswith("| paper | certified (every conclusion) | partly certified |")
    assert "| `rank` | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1 / 1 |" in summary
    assert "| `align` | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 1 |" in summary  # toothless: other, and a miss
    assert summary.splitlines()[-1].startswith("| all | 1 | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 2 |")
    rows = table.splitlines()
    assert rows[0].startswith("| id | reference | title | expected | verdict (quick profile")
    assert "| `rank.toy.certified` | Lemma 0 | x² ≥ 0 | certified | certified |" in rows[2]
    assert "| **toothless** |" in next(r for r in rows if "align.toy.toothless" in r)
    assert "| not run |" in next(r for r in rows if "margin.toy.confirmed" in r)


def test_audit_passes_the_rules_output_and_catches_labels_that_say_more(toy_registry):
    from verify.audit import audit

    run = run_claims(select(["rank.toy.certified", "tensor.toy.refuted", "margin.toy.confirmed"]), seed=2).to_json()
    assert audit(run) == []
    certified, refuted, confirmed = run["results"]
    confirmed["conclusions"][0]["verdict"] = "certified"  # numeric evidence labelled certified
    refuted["evidence"][0]["kind"] = "numeric"  # a numerical counterexample labelled refuted
    certified["evidence"][1]["perturbs"] = None  # a control not tied to its criterion call
    problems = audit(run)
    assert any("margin.toy.confirmed / f(t) → 0: certified on non-rigorous" in p for p in problems)
    assert any("tensor.toy.refuted / a ≤ b: refuted without a rigorous counterexample" in p for p in problems)
    assert any("rank.toy.certified: control #1" in p for p in problems)


def test_run_seeds_reports_the_seeds_that_missed(toy_registry):
    from verify.runner import run_seeds, seed_misses, seed_range

    seeds = seed_range(5, 3)
    runs = run_seeds(select(["rank.toy.certified", "align.toy.toothless"]), Profile.QUICK, seeds)
    assert list(runs) == [5, 6, 7] and all(run.provenance["seeds"] == seeds for run in runs.values())
    assert [run.provenance["seed"] for run in runs.values()] == seeds
    assert seed_misses(runs) == {"align.toy.toothless": [(5, "toothless"), (6, "toothless"), (7, "toothless")]}


def test_claims_of_one_module_and_their_corrections_run_in_one_worker_task(toy_registry):
    """A worker runs the claims of one module (at one seed) together, so that memoized work is not redone in
    another process; a corrected variant joins its claim's group wherever it is defined."""
    import dataclasses

    from verify.runner import _module_groups

    def elsewhere(ctx):  # a check defined in this module, not in the toy registry's
        return None

    corrected, certified, refuted = select(["tensor.toy.corrected", "rank.toy.certified", "tensor.toy.refuted"])
    moved = dataclasses.replace(certified, check=elsewhere)
    moved_correction = dataclasses.replace(corrected, check=elsewhere)
    groups = _module_groups([(c, seed) for seed in (1, 2) for c in (moved_correction, moved, refuted)])
    assert [([c.id for c in group], seed) for group, seed in groups] == [
        (["tensor.toy.corrected", "tensor.toy.refuted"], 1), (["rank.toy.certified"], 1),
        (["tensor.toy.corrected", "tensor.toy.refuted"], 2), (["rank.toy.certified"], 2)]


def test_a_pool_run_forks_its_workers_from_a_preloaded_server_and_counts_their_time():
    """jobs > 1: workers fork from a server that imported the heavy libraries once; after the run the server is
    stopped and reaped, so its CPU time and its workers' count among this process's children (what `verify bench`
    and `time` read)."""
    import resource
    from multiprocessing import forkserver

    from verify.registry import get
    from verify.runner import _worker_context, run_claims

    assert _worker_context().get_start_method() == "forkserver"
    _worker_context(["theorems.layer_alignment.flow_lemmas"])  # the run's claim modules join the server's imports
    assert "theorems.layer_alignment.flow_lemmas" in forkserver._forkserver._preload_modules
    assert "sympy" in forkserver._forkserver._preload_modules
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    results = run_claims([get("align.eq2"), get("rank.lem14")], Profile.QUICK, jobs=2)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert [r.id for r in results.results] == ["align.eq2", "rank.lem14"] and results.ok
    assert forkserver._forkserver._forkserver_pid is None  # stopped and reaped
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) > 0.5  # the imports, at least


# -- command line: machine output, show, list, run table, report naming ----------------------------------------
def _two_part_claim(registry, banner=False):
    """A toy claim of two conclusions (one certified, one confirmed), with texts the terminal must keep."""
    within = Criterion("value ≤ bound", lambda value, bound: value <= bound)

    @registry.claim(id="rank.toy.parts", ref="Theorem [A.1]", kind="theorem", title="two parts: W_k^T and [0, 1]",
                    statement="$W_(k+1)^T W_(k+1) <= 1$ on $[0, 1]$, a\\/b", profiles={"quick": "q"},
                    conclusions={"exact part": "certified", "numeric part max_ratio[0.5]": "confirmed"})
    def _parts(ctx):
        if banner:
            import os

            os.write(1, b"SOLVER BANNER written by C code\n")
            print("a stray print")
        ctx.prove("exact bound", "exact", within(1, 2), "detail with [0.5, 1] kept", {"max_ratio[0.5]": 0.5},
                  conclusion="exact part")
        ctx.control("bound halved", within(1, 0.5), "bound: 2 → 0.5")
        ctx.support("numeric bound", "numeric", within(0.9, 1.0), "x**2 below 1",
                    conclusion="numeric part max_ratio[0.5]")
        ctx.control("bound lowered", within(0.9, 0.1), "1 → 0.1")


def test_cli_run_json_to_stdout_is_one_json_document(toy_registry, tmp_path, capfd):
    _two_part_claim(toy_registry, banner=True)
    code = cli.main(["run", "rank.toy.parts", "rank.toy.certified", "--json", "-", "--store", str(tmp_path)])
    out, err = capfd.readouterr()
    assert code == 0
    data = json.loads(out)  # nothing but the JSON: the banner, prints, table and summary went to stderr
    assert [r["id"] for r in data["results"]] == ["rank.toy.parts", "rank.toy.certified"]
    assert data["provenance"]["selection"] == {"claims": 2, "registered": 7, "paper": None,
                                               "ids": ["rank.toy.parts", "rank.toy.certified"]}
    assert "SOLVER BANNER" in err and "a stray print" in err and "2 claims in" in err
    assert "[1/2] rank.toy.parts: confirmed" in err  # not a terminal: a line per finished claim


def test_cli_other_json_outputs_parse(toy_registry, tmp_path, capfd, monkeypatch):
    import sys
    import types

    assert cli.main(["list", "--json"]) == 0
    assert len(json.loads(capfd.readouterr().out)) == 6
    assert cli.main(["show", "rank.toy.certified", "--json", "--store", str(tmp_path)]) == 0
    assert json.loads(capfd.readouterr().out)["latest"] is None

    def noisy(*args, **kwargs):
        import os

        os.write(1, b"Running HiGHS 1.7\n")
        print("python chatter")
        return types.SimpleNamespace(to_json=lambda: {"ok": True}, ok=True)

    monkeypatch.setitem(sys.modules, "verify.checker", types.SimpleNamespace(check_construction=noisy))
    assert cli.main(["check", "any.toml", "--json"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out) == {"ok": True} and "Running HiGHS" in err and "python chatter" in err

    def benchmarks(names, size, repeat, device, on_result):
        import os

        os.write(1, b"engine banner\n")
        return {"benchmarks": names}

    monkeypatch.setattr(cli, "run_benchmarks", benchmarks)
    monkeypatch.setattr(cli, "bench_table", lambda report: "TABLE")
    monkeypatch.setattr(cli, "statistics_lines", lambda report: ["[stats] line"])
    assert cli.main(["bench", "--json", "-"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out) == {"benchmarks": list(cli.BENCHMARKS)}
    assert "engine banner" in err and "TABLE" in err and "[stats] line" in err


def test_cli_run_table_and_show_give_each_conclusion(toy_registry, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    _two_part_claim(toy_registry)
    assert cli.main(["run", "rank.toy.parts", "--store", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "└ exact part" in out and "└ numeric part max_ratio[0.5]" in out
    assert cli.main(["show", "rank.toy.parts", "--store", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    # rich markup is escaped: bracketed text survives; the statement reads as plain text
    assert "Theorem [A.1]" in out and "[0, 1]" in out and "max_ratio[0.5]" in out
    assert "statement: W_(k+1)ᵀ W_(k+1) ≤ 1 on [0, 1], a/b" in out
    assert "conclusion: exact part (expected certified)" in out
    assert "same check as E1, perturbed: bound: 2 → 0.5" in out and "criterion: value ≤ bound(value = 1, " in out
    assert "x² below 1" in out and "detail with (0.5, 1) kept" in out
    for name, verdict in (("exact part", "certified"), ("numeric part", "confirmed")):
        assert any(name in line and verdict in line for line in out.splitlines())


def test_cli_list_keeps_ids_whole_at_80_columns_and_shows_conclusions(toy_registry, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _two_part_claim(toy_registry)
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for claim_id in ("rank.toy.certified", "margin.toy.confirmed", "tensor.toy.corrected", "rank.toy.parts"):
        assert claim_id in out
    assert "7 claims" in out and "1 cert + 1 conf" in out
    assert cli.main(["list", "--markdown", "--paper", "rank"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert "| confirmed (1 certified, 1 confirmed) | not run |" in next(r for r in rows if "rank.toy.parts" in r)


def test_cli_options_anywhere_and_never_twice(toy_registry, tmp_path, capsys):
    assert cli.main(["list", "--paper", "rank", "--paper", "tensor"]) == 2
    assert "given twice" in capsys.readouterr().err
    assert cli.main(["run", "rank.toy.certified", "--store", str(tmp_path / "after")]) == 0
    assert (tmp_path / "after" / "latest.json").exists()


def test_cli_report_is_named_after_the_run(toy_registry, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = ["--store", str(tmp_path / "store")]
    assert cli.main(store + ["run", "--paper", "tensor"]) == 0
    assert cli.main(store + ["report"]) == 0
    assert (tmp_path / "out" / "report-tensor.pdf").exists() and not (tmp_path / "out" / "report.pdf").exists()
    assert "2 claims of 6 registered" in capsys.readouterr().out
    assert cli.main(store + ["run", "rank.toy.certified", "--profile", "full"]) == 0
    assert cli.main(store + ["report"]) == 0
    assert (tmp_path / "out" / "report-full-rank.toy.certified.pdf").exists()
    assert cli.main(store + ["run", "rank.toy.certified", "tensor.toy.refuted"]) == 0
    assert cli.main(store + ["report"]) == 0
    assert (tmp_path / "out" / "report-2-claims.pdf").exists()
    assert cli.main(store + ["run"]) == 1  # every claim: the report of the whole suite
    assert cli.main(store + ["report"]) == 0
    assert (tmp_path / "out" / "report.pdf").exists()


def test_cli_run_at_several_seeds_reports_the_seeds_that_missed(toy_registry, tmp_path, capsys):
    out = tmp_path / "seeds.json"
    code = cli.main(["--store", str(tmp_path / "store"), "run", "rank.toy.certified", "align.toy.toothless",
                     "--seed", "3", "--seeds", "2", "--json", str(out)])
    assert code == 1
    data = json.loads(out.read_text())
    assert data["seeds"] == [3, 4] and [run["provenance"]["seed"] for run in data["runs"]] == [3, 4]
    assert data["misses"] == {"align.toy.toothless": [{"seed": 3, "verdict": "toothless"},
                                                      {"seed": 4, "verdict": "toothless"}]}
    printed = capsys.readouterr().out
    assert "1 as expected at every seed, 1 missed at some seed (2 claim-seed pairs)" in printed
    assert "3 (toothless)" in printed
    assert cli.main(["--store", str(tmp_path / "store"), "run", "rank.toy.certified", "--seeds", "2"]) == 0
    assert cli.main(["run", "rank.toy.certified", "--seeds", "0"]) == 2


def test_numpy_booleans_decide_like_booleans():
    import numpy as np

    from verify.claim import Decision

    assert Decision(np.True_).holds is True and Decision(np.False_, "d").holds is False
    assert Criterion("np", lambda x: Decision(np.bool_(x > 0)))(1).holds is True
    assert Criterion("np", lambda x: (np.bool_(x > 0), "detail"))(-1).holds is False


def test_a_control_can_name_the_conclusion_it_bears_on():
    ctx = Context("rank.x", Profile.QUICK, 1, conclusions=("a", "b"))
    ctx.prove("a", "exact", LESS(1, 2), conclusion="a")
    ctx.prove("b", "exact", LESS(1, 3), conclusion="b")
    assert ctx.control("nearest is b", LESS(4, 3)) and ctx.evidence[-1].conclusion == "b"
    assert ctx.control("pinned to a", LESS(4, 3), conclusion="a") and ctx.evidence[-1].conclusion == "a"
    assert ctx.evidence[-1].perturbs == 0


def test_cli_lists_from_the_index_and_runs_importing_only_the_claims_module(tmp_path):
    """After the first command has cached the claim index in the store, `verify list` imports no claim module
    (and so no engine) and `verify run ID` imports only the module that defines the claim."""
    import subprocess
    import sys
    from pathlib import Path

    probe = ("import sys\nfrom verify.cli import main\nmain(sys.argv[1:])\n"
             "loaded = sorted(m for m in sys.modules if m.startswith('theorems.') and m.count('.') == 2)\n"
             "print('LOADED', loaded, 'sympy' in sys.modules)\n")
    store = str(tmp_path / "store")

    def verify(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-c", probe, *argv, "--store", store], capture_output=True,
                              text=True, timeout=600, cwd=Path(__file__).resolve().parents[1])
        return done.stdout.splitlines()[-1]

    first = verify("list", "--json")
    assert "theorems.rank_minimization." in first  # the first command builds the index
    assert verify("list", "--json") == "LOADED [] False"
    ran = verify("run", "align.eq2")
    assert ran.startswith("LOADED [") and ran.count("theorems.") <= 4 and "theorems.rank_minimization" not in ran


def test_claim_processes_collect_less_often_and_keep_more_of_sympys_cache(monkeypatch) -> None:
    import gc

    from verify.runner import GC_THRESHOLDS, SYMPY_CACHE_SIZE, claim_process_settings

    before = gc.get_threshold()
    monkeypatch.delenv("SYMPY_CACHE_SIZE", raising=False)
    try:
        claim_process_settings()
        assert gc.get_threshold() == GC_THRESHOLDS and os.environ["SYMPY_CACHE_SIZE"] == SYMPY_CACHE_SIZE
        monkeypatch.setenv("SYMPY_CACHE_SIZE", "5")
        claim_process_settings()
        assert os.environ["SYMPY_CACHE_SIZE"] == "5"  # the user's own setting is kept
    finally:
        gc.set_threshold(*before)


def test_a_pool_run_reads_its_claims_off_the_index_and_imports_none_of_them(tmp_path) -> None:
    """`verify run --jobs 2`: the workers import the claims; the command's own process schedules them from the index
    (ids, modules, corrected pairs) without importing a claim module or the libraries they need."""
    import subprocess
    import sys

    results = tmp_path / "results.json"
    script = tmp_path / "run.py"
    script.write_text(
        "import sys\nfrom verify import cli\nif __name__ == '__main__':\n"
        f"    rc = cli.main(['--store', {str(tmp_path)!r}, 'run', 'align.eq2', 'rank.lem14', '--jobs', '2', "
        f"'--json', {str(results)!r}])\n"
        "    claims = [m for m in sys.modules if m.startswith('theorems.') and m.count('.') >= 2]\n"
        "    print(rc, 'sympy' in sys.modules, len(claims))\n")
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
            for _ in range(2)]  # the first builds the store's index (importing every claim once), the second reads it
    assert runs[1].stdout.split()[-3:] == ["0", "False", "0"], runs[1].stderr[-2000:]
    data = json.loads(results.read_text())
    assert [r["id"] for r in data["results"]] == ["align.eq2", "rank.lem14"]
    assert all(r["verdict"] == r["expected"] for r in data["results"])


def test_a_long_argument_is_cut_off_with_a_digest_of_the_whole():
    """Two long values that differ only past the cut show as two texts (a report, and the mutation oracle, see the
    change), each at most the shown length."""
    first = Criterion("any", lambda data: True)([[3, 4], [5, 12]] * 10)
    second = Criterion("any", lambda data: True)([[3, 4], [5, 12]] * 9 + [[3, 4], [5, 11]])
    for shown in (first, second):
        assert len(shown.arguments["data"]) <= 80 and "… #" in shown.arguments["data"]
    assert first.arguments["data"] != second.arguments["data"]
    assert first.arguments["data"].split("…")[0] == second.arguments["data"].split("…")[0]


def test_a_cut_never_ends_in_half_an_operator_or_an_open_bracket():
    """A sympy power cut after its '**' (or a list after its '[') would reach the report as raw markup."""
    for prefix in ("x" * 67 + "**", "y" * 68 + "[", "z" * 66 + "('"):
        shown = Criterion("any", lambda value: True)(prefix + "2 + " + "w" * 40).arguments["value"]
        assert shown.split("…")[0].lstrip("'\"").rstrip("xyz") == "", shown


def test_the_cli_leaves_the_callers_claim_index_as_it_found_it(tmp_path, monkeypatch) -> None:
    """main() looks claims up through its store's index while it runs; a caller in the same process keeps its own
    (a test that ran the CLI once must not hand its temporary index to the subprocesses of later tests)."""
    import os

    from verify.cli import main
    from verify.registry import INDEX_VARIABLE

    monkeypatch.delenv(INDEX_VARIABLE, raising=False)
    assert main(["--store", str(tmp_path / "a"), "list", "--paper", "rank"]) == 0
    assert INDEX_VARIABLE not in os.environ
    monkeypatch.setenv(INDEX_VARIABLE, str(tmp_path / "mine.json"))
    assert main(["--store", str(tmp_path / "b"), "list", "--paper", "rank"]) == 0
    assert os.environ[INDEX_VARIABLE] == str(tmp_path / "mine.json")
