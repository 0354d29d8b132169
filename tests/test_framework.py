"""The claim model, verdict rules, runner, store and CLI."""

import json

import pytest

from verify import cli
from verify.claim import (
    ClaimDefinitionError,
    Context,
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


def _item(role, passed, kind=None):
    kind = kind or {Role.PROOF: EvidenceKind.EXACT, Role.CONTROL: EvidenceKind.NEGATIVE_CONTROL}.get(
        role, EvidenceKind.NUMERIC)
    return Evidence("e", kind, role, passed, "")


CONTROL_OK = _item(Role.CONTROL, True)


@pytest.mark.parametrize("items,cited,verdict", [
    ([_item(Role.PROOF, True), _item(Role.SUPPORT, True), CONTROL_OK], False, Verdict.CERTIFIED),
    ([_item(Role.SUPPORT, True), CONTROL_OK], False, Verdict.CONFIRMED),
    ([_item(Role.SUPPORT, True), CONTROL_OK], True, Verdict.ASSUMED),
    ([_item(Role.PROOF, True), _item(Role.SUPPORT, False), CONTROL_OK], False, Verdict.INCONCLUSIVE),
    ([_item(Role.COUNTEREXAMPLE, True), CONTROL_OK], False, Verdict.REFUTED),
    ([_item(Role.COUNTEREXAMPLE, False), CONTROL_OK], False, Verdict.INCONCLUSIVE),  # a failed search proves nothing
    ([_item(Role.COUNTEREXAMPLE, False), _item(Role.SUPPORT, True), CONTROL_OK], False, Verdict.CONFIRMED),
    ([_item(Role.PROOF, True)], False, Verdict.TOOTHLESS),  # no control at all
    ([_item(Role.PROOF, True), _item(Role.CONTROL, False)], False, Verdict.TOOTHLESS),
    ([_item(Role.COUNTEREXAMPLE, True), _item(Role.CONTROL, False)], False, Verdict.TOOTHLESS),
    ([CONTROL_OK], False, Verdict.INCONCLUSIVE),
    ([], False, Verdict.INCONCLUSIVE),
    ([_item(Role.PROOF, True), CONTROL_OK, _item(Role.ERROR, False)], False, Verdict.INCONCLUSIVE),
])
def test_verdict_rules(items, cited, verdict):
    assert decide(items, cited=cited) is verdict


def test_context_rejects_inconsistent_evidence():
    ctx = Context("rank.x", Profile.QUICK, 1)
    with pytest.raises(ClaimDefinitionError, match="symbolic, exact or interval"):
        ctx.prove("numeric proof", "numeric", True, "")
    with pytest.raises(ClaimDefinitionError, match="one line"):
        ctx.support("two lines", "numeric", True, "a\nb")
    with pytest.raises(ClaimDefinitionError, match="negative_control"):
        ctx.support("control in disguise", "negative_control", True, "")


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
                       "title": "x² ≥ 0", "expected": "certified"}]


def test_cli_run_json_and_exit_codes(toy_registry, tmp_path, capsys):
    out = tmp_path / "sub" / "results.json"
    code = cli.main(["--store", str(tmp_path / "store"), "run", "rank.toy.certified", "tensor.toy.refuted",
                     "--json", str(out), "--seed", "9"])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["provenance"]["seed"] == 9
    first = data["results"][0]
    assert set(first) >= {"id", "verdict", "expected", "seconds", "evidence"}
    assert set(first["evidence"][0]) >= {"name", "kind", "passed", "detail", "figures"}
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
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("| id | reference | title | expected | verdict (quick profile")
    assert "| `rank.toy.certified` | Lemma 0 | x² ≥ 0 | certified | certified |" in rows[2]
    assert "| **toothless** |" in next(r for r in rows if "align.toy.toothless" in r)
    assert "| not run |" in next(r for r in rows if "margin.toy.confirmed" in r)
