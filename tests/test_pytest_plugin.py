"""The pytest plugin turns claims into items named by their ids."""


def test_claim_items_named_by_id(toy_registry, pytester):
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    collected = result.stdout.str()
    for claim_id in ("rank.toy.certified", "tensor.toy.refuted", "align.toy.crash"):
        assert claim_id in collected


def test_selection_by_keyword_and_paper_marker(toy_registry, pytester):
    result = pytester.runpytest_inprocess("-k", "rank.toy.certified")
    result.assert_outcomes(passed=1, deselected=5)
    result = pytester.runpytest_inprocess("-m", "paper_tensor")
    result.assert_outcomes(passed=2, deselected=4)


def test_failure_prints_failing_evidence(toy_registry, pytester):
    result = pytester.runpytest_inprocess("-m", "paper_align")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert "align.toy.toothless: verdict toothless, expected confirmed" in out
    assert "perturbed also holds" in out
    assert "RuntimeError: solver exploded" in out


def test_profile_and_seed_options(toy_registry, pytester):
    result = pytester.runpytest_inprocess("--profile", "full", "--verify-seed", "3", "-k", "confirmed")
    result.assert_outcomes(passed=1, deselected=5)


def test_file_arguments_leave_claims_out(toy_registry, pytester):
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    pytester.runpytest_inprocess("test_plain.py").assert_outcomes(passed=1)
    result = pytester.runpytest_inprocess("test_plain.py", "--claims", "-m", "paper_rank")
    result.assert_outcomes(passed=1, deselected=6)
    result.stdout.fnmatch_lines(["collected 7 items / 6 deselected / 1 selected"])


def test_claim_node_ids_can_be_rerun(toy_registry, pytester):
    listed = pytester.runpytest_inprocess("--collect-only", "-q", "--claims", "-m", "paper_tensor")
    node = next(line for line in listed.stdout.lines if line.endswith("::tensor.toy.refuted"))
    pytester.runpytest_inprocess(node).assert_outcomes(passed=1)
    # an id after any path (or none) names the claim: the path is replaced by the claim's own file
    pytester.runpytest_inprocess("::rank.toy.certified").assert_outcomes(passed=1)
    pytester.runpytest_inprocess("tests/test_elsewhere.py::margin.toy.confirmed").assert_outcomes(passed=1)


def test_paper_folder_selects_that_paper(toy_registry, pytester):
    from verify.registry import paper_folder as _paper_dir

    result = pytester.runpytest_inprocess(str(_paper_dir("tensor")))
    result.assert_outcomes(passed=2)
    assert "rank.toy" not in result.stdout.str()


def test_exact_selection_with_claim_option(toy_registry, pytester):
    @toy_registry.claim(id="rank.toy.certified.proof", ref="Lemma 0 (proof)", kind="lemma", title="t",
                        statement="s", conclusions={"c": "confirmed"}, profiles={"quick": "q"})
    def _proof(ctx):
        raise RuntimeError("never run under --claim rank.toy.certified")

    # -k matches substrings: the proof item comes along
    pytester.runpytest_inprocess("-k", "rank.toy.certified").assert_outcomes(passed=1, failed=1, deselected=5)
    result = pytester.runpytest_inprocess("--claim", "rank.toy.certified")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["collected 1 item"])  # alone, --claim collects just the claim's file
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    both = pytester.runpytest_inprocess("test_plain.py", "--claim", "rank.toy.certified", "--claim",
                                        "tensor.toy.refuted")
    both.assert_outcomes(passed=2, deselected=6)  # the file's test is not asked for either
    missing = pytester.runpytest_inprocess("--claim", "rank.nope")
    assert missing.ret == 4 and "--claim rank.nope: no such claim" in missing.stderr.str()


def test_failure_shows_each_conclusion(toy_registry, pytester):
    result = pytester.runpytest_inprocess("--claim", "align.toy.crash")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*[[]OFF[]] conclusion ?: inconclusive (expected confirmed); error: RuntimeError*"])


def test_collection_from_the_index_imports_no_engine(tmp_path):
    """The second collection of the claims reads the cached index: no claim module, and so no engine, is
    imported (collection stays well under a second); the first one builds the index by importing them."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    probe = ("import sys, pytest\n"
             f"pytest.main(['theorems', '--collect-only', '-q', '-o', 'cache_dir={tmp_path / 'cache'}'])\n"
             "heavy = [m for m in ('numerics.flows', 'sympy', 'scipy', 'cvxpy', 'torch') if m in sys.modules]\n"
             "print('IMPORTED', heavy)\n")
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    first, second = (run.stdout for run in runs)
    assert "IMPORTED ['numerics.flows'" in first
    assert "IMPORTED []" in second
    assert "tests collected" in second and second.count("::") == first.count("::") > 100


def test_a_frozen_index_is_read_as_it_is(tmp_path):
    """Without pytest's cache (the mutation tool's runs), the index named by IBVERIFY_CLAIM_INDEX is used; with
    IBVERIFY_CLAIM_INDEX_FROZEN=1 it is read as it is, even with a stale fingerprint (no claim module imported),
    and without it the stale index is rebuilt by importing the papers."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    index = tmp_path / "claim-index.json"
    build = "import sys, pathlib\nfrom verify.registry import claim_index\nclaim_index(pathlib.Path(sys.argv[1]))\n"
    subprocess.run([sys.executable, "-c", build, str(index)], cwd=root, check=True, timeout=300)
    stored = json.loads(index.read_text())
    stored["fingerprint"] = ["stale"]
    probe = ("import sys, pytest\n"
             "pytest.main(['theorems', '--collect-only', '-q', '-p', 'no:cacheprovider'])\n"
             "heavy = [m for m in ('numerics.flows', 'sympy', 'scipy', 'cvxpy', 'torch') if m in sys.modules]\n"
             "print('IMPORTED', heavy)\n")
    outputs = {}
    for frozen in ("1", "0"):
        index.write_text(json.dumps(stored))
        env = {**os.environ, "IBVERIFY_CLAIM_INDEX": str(index), "IBVERIFY_CLAIM_INDEX_FROZEN": frozen}
        outputs[frozen] = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True,
                                         timeout=300, env=env).stdout
    assert "IMPORTED []" in outputs["1"]
    assert "IMPORTED ['numerics.flows'" in outputs["0"]
    assert outputs["1"].count("::") == outputs["0"].count("::") > 100
