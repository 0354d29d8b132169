"""The public engine API: the package's exports and docs/engines.md match the engines' modules."""

from pathlib import Path

import numerics
from numerics.reference import engine_modules, exports, markdown

DOCS = Path(__file__).resolve().parents[1] / "docs" / "engines.md"


def test_the_package_exports_every_engine():
    assert list(numerics.MODULES) == engine_modules()
    assert numerics._EXPORTS == exports()
    from numerics.flows import GradientFlow

    assert numerics.GradientFlow is GradientFlow and numerics.flows.GradientFlow is GradientFlow


def test_the_engine_reference_is_current():
    assert DOCS.read_text() == markdown(), "regenerate: python -m numerics.reference > docs/engines.md"


def test_importing_the_reference_prints_nothing_and_running_it_prints_the_page():
    import subprocess
    import sys

    root = DOCS.parents[1]
    imported = subprocess.run([sys.executable, "-c", "import numerics.reference"], cwd=root, capture_output=True,
                              text=True, check=True)
    assert imported.stdout == ""
    run = subprocess.run([sys.executable, "-m", "numerics.reference"], cwd=root, capture_output=True, text=True,
                         check=True)
    assert run.stdout == DOCS.read_text()


def test_no_engine_or_framework_module_imports_a_paper():
    root = DOCS.parents[1]
    offending = [str(p.relative_to(root)) for folder in ("numerics", "verify", "reports")
                 for p in (root / folder).rglob("*.py")
                 if any(line.lstrip().startswith(("import theorems", "from theorems"))
                        for line in p.read_text().splitlines())]
    assert not offending, f"modules that import a paper package: {offending}"
