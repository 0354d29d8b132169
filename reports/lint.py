"""A lint for a rendered report: what a reader should never see, read from the PDF's text and the results' plot data.

    python -m reports.lint REPORT.pdf RESULTS.json

prints one line per finding and exits 1 when there is any (0 when none, 2 when a file cannot be read). It finds

* raw markup outside the typeset statements (typeset math leaves no ``^`` or ``_{`` in the text): sympy ``**``,
  ``^``, ``_{``, ``_(``, Python list reprs (``['``), ``np.float64(``, a Python ``nan`` (the report writes NaN);
* text naming a file the reader does not have: the suite's spec, "the dump" (the paper's text as the suite read
  it), paths under ``/work/`` or ``shared/``;
* a plot (an evidence item's ``plot`` in the results) without both axis labels (after the renderer's fallbacks)
  or without a finite data point;
* a figure placed outside its claim: the last claim heading before the caption "Figure N:" is not the claim
  whose evidence holds plot N;
* a checked bound missing from the table "Tightness of the checked bounds": an evidence item (not a negative
  control) with a tightness record whose claim id, item label and name, and bound do not follow each other
  there.

The tests import these checks (tests/test_report.py), so the test suite and ``make verify`` apply the same rules.
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from reports.figures import axis_labels
from verify.claim import Plot

RAW_MARKUP = ("**", "^", "_{", "_(", "['", "[\"", "('", "(\"", "np.float64(")
# Words naming files the reader lacks. "spec" as a word only (not spectral, special, specific).
MISSING_FILES = (re.compile(r"\bspec\b", re.IGNORECASE), re.compile(r"\bthe dump\b|\bdump's\b", re.IGNORECASE),
                 re.compile(r"/work/"), re.compile(r"\bshared/"))
PYTHON_NAN = re.compile(r"\bnan\b")
TIGHTNESS_HEADING = "Tightnessofthecheckedbounds"  # the table's heading, white space removed


# a subscript left raw after a closing delimiter (‖W‖_2, (x)_i, [a]_k): names like max_ratio start after a letter
RAW_SCRIPT = re.compile(r"[‖)\]}]_[\w(]")


def raw_markup(text: str) -> list[str]:
    """The raw markup tokens that occur in ``text`` (a Python ``nan`` reported as 'nan')."""
    found = [token for token in RAW_MARKUP if token in text]
    found += [match.group(0) for match in RAW_SCRIPT.finditer(text)]
    return found + (["nan"] if PYTHON_NAN.search(text) else [])


def missing_files(text: str) -> list[str]:
    """The phrases of ``text`` that name a file the reader does not have."""
    return [match.group(0) for pattern in MISSING_FILES for match in pattern.finditer(text)]


def plot_problems(plot: Plot) -> list[str]:
    """What is wrong with a plot's data: a missing axis label (after the renderer's fallbacks), no data."""
    problems = [f"no {axis}-axis label" for axis, label in zip("xy", axis_labels(plot)) if not label.strip()]

    def finite(value: object) -> bool:
        return isinstance(value, (int, float)) and math.isfinite(value)

    def points(series) -> int:
        if series.y:
            return sum(finite(x) and finite(y) for x, y in zip(series.x, series.y))
        return sum(finite(x) for x in series.x)

    if not any(points(s) for s in plot.series):
        problems.append("no data (no series has a finite point)")
    return problems


def _squeezed(text: str) -> str:
    return "".join(text.split())


def figure_claims(run) -> list[str]:
    """The claim id of each figure, in document order (figure N is entry N − 1): papers in the report's order,
    within a claim its evidence items, then its negative controls (reports/template.typ)."""
    from reports.render import _DocumentBuilder

    builder = _DocumentBuilder(run)
    document = builder.build()
    by_id = {c["id"]: c for c in document["claims"]}
    order = []
    for paper in document["papers"]:
        for claim_id in paper["claims"]:
            claim = by_id[claim_id]
            order += [claim_id for e in [*claim["evidence"], *claim["controls"]] if e["plot"] is not None]
    return order


def misplaced_figures(text: str, run) -> list[str]:
    """Figures whose caption does not follow their own claim's heading (``text``: the report's text, any white
    space). A claim heading is its id followed by its verdict in capitals."""
    text = _squeezed(text)
    start = text.find(TIGHTNESS_HEADING)  # the claim pages follow the summary, the errata and the tightness table
    start = max(start, 0)
    headings = {r.id: r.id + r.verdict.value.upper() for r in run.results}
    problems = []
    for number, claim_id in enumerate(figure_claims(run), 1):
        caption = text.find(f"Figure{number}:", start)
        if caption < 0:
            problems.append(f"figure {number} ({claim_id}): no caption 'Figure {number}:' in the text")
            continue
        before = {other: text.rfind(heading, start, caption) for other, heading in headings.items()}
        nearest = max(before, key=before.__getitem__)
        if before[nearest] < 0 or nearest != claim_id:
            problems.append(f"figure {number} of {claim_id} is placed under "
                            f"{nearest if before[nearest] >= 0 else 'no claim'}")
    return problems


def _shown(text: str) -> str:
    """A plain text of a claim as the PDF's text reads it, white space removed (scripts lose their markup)."""
    from reports.text import prose

    return _squeezed("".join(part for part, _ in prose(text)))


def untabled_bounds(text: str, run) -> list[str]:
    """The checked bounds (tightness records of evidence items other than controls) that the tightness table
    does not list (``text``: the report's text, any white space): each row reads claim id, item label and name,
    bound."""
    from reports.render import tabled_bounds

    text = _squeezed(text)
    start = text.find(TIGHTNESS_HEADING)
    if start < 0:
        return ["no table 'Tightness of the checked bounds' in the text"] if tabled_bounds(run) else []
    section = _without_marks(text[start:])
    return [f"{result.id}, {label} {item.name!r}: bound {record.bound!r} is not in the tightness table"
            for result, label, item, record in tabled_bounds(run)
            if not _tolerant(_squeezed(result.id) + label + _shown(item.name) + _shown(record.bound)).search(section)]


def _without_marks(text: str) -> str:
    """``text`` without combining marks: the PDF's text may add one that is not drawn (η_τ reads "η̄τ")."""
    return "".join(char for char in unicodedata.normalize("NFD", text) if not unicodedata.combining(char))


def _tolerant(expected: str) -> re.Pattern[str]:
    """``expected`` as the PDF's text reads once :func:`_without_marks`: a combining mark (θ̃, z̄) may come out after
    an extra character of the glyph cluster ("θw̃", "zz̄"), or not at all."""
    return re.compile("".join(".?" if unicodedata.combining(char) else re.escape(char)
                              for char in unicodedata.normalize("NFD", expected)))


def _context(text: str, token: str, width: int = 40) -> str:
    at = text.find(token) if token != "nan" else (PYTHON_NAN.search(text).start() if PYTHON_NAN.search(text) else 0)
    snippet = " ".join(text[max(0, at - width): at + len(token) + width].split())
    return snippet


def lint(pdf: Path, results: Path) -> list[str]:
    """Every finding, one line each."""
    import pypdf

    from reports.render import read_results

    run = read_results(results)
    pages = [page.extract_text() for page in pypdf.PdfReader(pdf).pages]
    findings = []
    for number, page in enumerate(pages, 1):
        for token in raw_markup(page):
            findings.append(f"{pdf}: page {number}: raw markup {token!r}: …{_context(page, token)}…")
        for phrase in dict.fromkeys(missing_files(page)):
            findings.append(f"{pdf}: page {number}: names a file the reader lacks ({phrase!r}): "
                            f"…{_context(page, phrase)}…")
    for result in run.results:
        for item in result.evidence:
            if item.plot is not None:
                findings += [f"{results}: {result.id}, evidence {item.name!r}: plot {item.plot.title!r}: {problem}"
                             for problem in plot_problems(item.plot)]
    findings += [f"{pdf}: {problem}" for problem in misplaced_figures("".join(pages), run)]
    findings += [f"{pdf}: {problem}" for problem in untabled_bounds("".join(pages), run)]
    return findings


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print("usage: python -m reports.lint REPORT.pdf RESULTS.json", file=sys.stderr)
        return 2
    pdf, results = map(Path, args)
    try:
        findings = lint(pdf, results)
    except Exception as exc:  # an unreadable PDF or results file: one line, exit 2
        print(f"reports.lint: cannot read {pdf} / {results}: {type(exc).__name__}: {exc}".splitlines()[0],
              file=sys.stderr)
        return 2
    for finding in findings:
        print(finding)
    print(f"reports.lint: {len(findings)} finding(s) in {pdf}", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
