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
