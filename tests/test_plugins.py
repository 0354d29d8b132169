"""Papers are plugins: a package outside the repository, installed with pip, is a paper like the shipped ones."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "paper_plugin"
VERIFY = [sys.executable, "-c", "import sys; from verify.cli import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The example paper package and a broken one, pip-installed into a folder of their own (no framework file
    edited, the test environment's site-packages untouched)."""
    root = tmp_path_factory.mktemp("plugins")
    target = root / "site"
    package = root / "soudry"
    shutil.copytree(EXAMPLE, package)
    broken = root / "broken"
    (broken / "broken_paper").mkdir(parents=True)
    (broken / "pyproject.toml").write_text(
        (EXAMPLE / "pyproject.toml").read_text().replace("soudry-paper", "broken-paper")
        .replace('soudry = "soudry_paper"', 'broken = "broken_paper"').replace('["soudry_paper"]', '["broken_paper"]'))
    (broken / "broken_paper" / "__init__.py").write_text('TITLE = "A paper whose claims do not parse"\n')
    (broken / "broken_paper" / "claims.py").write_text("def check(ctx:\n")  # a syntax error
    for source in (package, broken):
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--target", str(target), str(source)], check=True, capture_output=True)
    return target


def _run(site, tmp_path, *argv):
    env = {**os.environ, "PYTHONPATH": str(site), "IBVERIFY_STORE": str(tmp_path / "store")}
    return subprocess.run([*VERIFY, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def test_an_installed_paper_is_listed_run_and_reported(site, tmp_path):
    listed = _run(site, tmp_path, "list", "--paper", "soudry", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [c["id"] for c in json.loads(listed.stdout)] == ["soudry.thm3.two-points"]
    results = tmp_path / "results.json"
    ran = _run(site, tmp_path, "run", "--paper", "soudry", "--json", str(results), "--report", str(tmp_path / "r.pdf"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    result = json.loads(results.read_text())["results"][0]
    assert [(c["name"][:24], c["verdict"]) for c in result["conclusions"]] == [
        ("the hard-margin SVM solu", "certified"), ("direction → u (angle ≤ 0", "confirmed")]
    from pypdf import PdfReader

    text = " ".join(page.extract_text() for page in PdfReader(tmp_path / "r.pdf").pages)
    assert "implicit bias of gradient descent on separable data" in " ".join(text.split())


def test_an_installed_paper_runs_under_pytest(site, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(site)}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--claims",
                          "-m", "paper_soudry"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "1 passed" in ran.stdout


def test_a_paper_that_fails_to_import_is_reported_in_one_line_and_skipped(site, tmp_path):
    listed = _run(site, tmp_path, "list", "--paper", "rank", "--json")
    assert listed.returncode == 0, listed.stderr
    assert all(c["id"].startswith("rank.") for c in json.loads(listed.stdout))
    warnings = [line for line in listed.stderr.splitlines() if "broken" in line]
    assert len(warnings) == 1 and "skipped: SyntaxError" in warnings[0], listed.stderr
