"""The project's own list of equivalent mutants (mutation/equivalent.toml) stays true to the code: every entry
names an existing file and an original line that is still there, so an entry cannot outlive the code it excuses
(a line rewritten since would leave an entry that matches nothing and a reason about code that is gone)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify.mutation import DEFAULT_EQUIVALENT, MUTANT_RUN_VARIABLE, Equivalent, load_equivalents

ROOT = Path(__file__).resolve().parents[1]


def _normalized(text: str) -> str:
    return " ".join(text.split())


def stale_entries(entries: list[Equivalent], root: Path) -> list[str]:
    """Entries whose file is missing or no longer holds their original line (whitespace-insensitive)."""
    sources: dict[str, str] = {}
    stale = []
    for entry in entries:
        if entry.file is None or entry.original is None:
            continue
        if entry.file not in sources:
            path = root / entry.file
            sources[entry.file] = _normalized(path.read_text(encoding="utf-8")) if path.exists() else ""
        if _normalized(entry.original) not in sources[entry.file]:
            stale.append(entry.id or entry.original)
    return stale


@pytest.mark.skipif(os.environ.get(MUTANT_RUN_VARIABLE) == "1",
                    reason="in a mutated tree the mutant's own line is missing by design: this checks the repository")
def test_every_equivalent_entry_names_a_line_still_in_its_file() -> None:
    entries = load_equivalents(ROOT / DEFAULT_EQUIVALENT, required=True)
    assert len(entries) > 400
    assert stale_entries(entries, ROOT) == []


def test_a_rewritten_line_makes_its_entry_stale(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def f(x):\n    return x + 1\n")
    kept = Equivalent(reason="r", id="calc.py:2:15:NumberReplacer:0", file="calc.py", original="return x + 1",
                      mutated="return x + 2")
    rewritten = Equivalent(reason="r", id="calc.py:2:15:NumberReplacer:1", file="calc.py", original="return x + 3",
                           mutated="return x + 4")
    missing = Equivalent(reason="r", id="gone.py:1:0:X:0", file="gone.py", original="pass", mutated="...")
    assert stale_entries([kept, rewritten, missing], tmp_path) == [rewritten.id, missing.id]


@pytest.mark.parametrize("spacing", ["return  x  +  1", "return x +\n        1"])
def test_a_line_respaced_or_wrapped_keeps_its_entry(tmp_path: Path, spacing: str) -> None:
    (tmp_path / "calc.py").write_text(f"def f(x):\n    {spacing}\n")
    entry = Equivalent(reason="r", file="calc.py", original="return x + 1", mutated="return x + 2")
    assert stale_entries([entry], tmp_path) == []
