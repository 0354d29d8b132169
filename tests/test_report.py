"""The PDF report: content, embedded fonts, reproducibility, speed, and one-line errors on bad input."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pypdf
import pytest

from reports import figures
from reports.figures import PlotError, plot_svg
from reports.render import Report, _number, check_markup, creation_timestamp, pieces, render_report
from reports.text import markup_prose, plain_text, prose, prose_plain
from verify import cli
from verify.claim import Plot, Series, Verdict
from verify.runner import RunResults
from verify.store import ResultStore

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REPO = Path(__file__).resolve().parent.parent


def _load_fixture_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("report_fixture", FIXTURES / "report_fixture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fixture = _load_fixture_module()


def _text(pdf: Path, pages: int | None = None) -> str:
    """The text of the PDF (or of its first pages) with all white space removed, so that ids wrapped across
    lines still match. pypdf reads about 25 pages a second here: read only what a test needs."""
    reader = pypdf.PdfReader(pdf)
    return "".join("".join(page.extract_text() for page in reader.pages[:pages]).split())


def _fonts(pdf: Path) -> dict[str, pypdf.generic.DictionaryObject]:
    """Every font used on a page or inside a form XObject (plots), by base name."""
    fonts: dict[str, pypdf.generic.DictionaryObject] = {}

    def walk(resources: object) -> None:
        if resources is None:
            return
        resources = resources.get_object()
        for ref in (resources.get("/Font") or {}).values():
            font = ref.get_object()
            fonts[str(font["/BaseFont"])] = font
        for ref in (resources.get("/XObject") or {}).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form":
                walk(xobject.get("/Resources"))

    for page in pypdf.PdfReader(pdf).pages:
        walk(page.get("/Resources"))
    return fonts


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def small_run() -> RunResults:
    return fixture.small_run()


@pytest.fixture(scope="module")
def rendered(small_run: RunResults, tmp_path_factory: pytest.TempPathFactory) -> Report:
    return render_report(small_run, tmp_path_factory.mktemp("report") / "report.pdf")


@pytest.fixture(scope="module")
def text(rendered: Report) -> str:
    return _text(rendered.path)


# -- the fixture ------------------------------------------------------------------------------------------------
def test_committed_fixture_matches_its_generator(small_run: RunResults) -> None:
    stored = json.loads(fixture.SMALL_RUN.read_text())
    assert stored == json.loads(json.dumps(small_run.to_json())), "run tests/fixtures/report_fixture.py"
    verdicts = {r.verdict.value for r in small_run.results}
    assert verdicts == {v.value for v in Verdict}
    assert {r.claim["paper"] for r in small_run.results} == {"rank", "margin", "tensor", "align"}


# -- content --------------------------------------------------------------------------------------------------
def test_every_claim_id_and_section_is_in_the_text(text: str, small_run: RunResults) -> None:
    for result in small_run.results:
        assert result.id in text
    for heading in ("Verificationreport", "Howtoreadtheverdicts", "Summary", "Allclaims", "Errata",
                    "Tightnessofthecheckedbounds", "Evidence", "Negativecontrols"):
        assert heading in text
    assert "\u200b" not in text  # ids copied from the PDF must paste back as they are


def test_errata_show_counterexample_and_corrected_variant(text: str) -> None:
    errata = text[text.index("Eachclaimbelowfailsasprinted"): text.index("Tightnessofthecheckedbounds")]
    assert "margin.thm3" in errata and "margin.thm3-corrected" in errata
    assert "two-pointdataset" in errata and "Correctedvariant" in errata
    # grouped by the nature of the erratum: substantive first, then literal; contradicted claims too
    order = [errata.index(part) for part in ("Substantiveerrata", "margin.thm3REFUTED", "Literalerrata",
                                             "margin.lem4CONTRADICTED", "Nocorrectedvariantisregistered")]
    assert order == sorted(order)
    assert "tensor.prop5" not in errata  # an error is a defect of the check, not an erratum


def test_tightness_table_lists_every_checked_bound(text: str, small_run: RunResults) -> None:
    from reports.lint import untabled_bounds

    table = text[text.index("Tightnessofthecheckedbounds"): text.index("rank.lem1CERTIFIED")]
    assert "ClaimEvidenceBoundInstancesTightestLoosest" in table
    # a row: claim, item, bound, instances, the largest and the smallest ratio (6 significant digits)
    assert "rank.thm2E1effectiverankdecreasesvalue≤bound10.9901360.990136" in table
    assert "margin.thm3E1two-pointdatasetmarginofthelimit≥theoptimalmarginγ*(lower)122" in table
    assert "1−⟨vk,uk+1⟩≤3/(1+t)450.2222220.16667" in table
    assert "C1" not in table  # controls' records stay on their pages
    assert untabled_bounds(text, small_run) == []
    rows = sum(len(e.tightness) for r in small_run.results for e in r.evidence if e.role.value != "control")
    assert rows == 11
    # a row the table lacks is a finding, naming the claim, the item and the bound
    missing = text.replace("rank.thm2E1effectiverankdecreasesvalue≤bound", "rank.thm2E1effectiverankdecreases")
    assert untabled_bounds(missing, small_run) == [
        "rank.thm2, E1 'effective rank decreases': bound 'value ≤ bound' is not in the tightness table"]
    assert untabled_bounds(text.replace("Tightnessofthecheckedbounds", ""), small_run) == [
        "no table 'Tightness of the checked bounds' in the text"]
    # each item shows its records, a control's (a bound it violates) included
    section = _section(text, "rank.thm2", "confirmed")
    assert "boundvalue≤bound:ratio0.990136onitsoneinstance" in section
    control = section[section.index("C1rankbelowone"):]
    assert "boundvalue≤bound:ratio2.00007onitsoneinstance" in control
    assert "tightestratio0.222222,loosest0.16667,over45instances" in text


def test_tightness_lint_reads_combining_marks_as_the_pdf_extracts_them() -> None:
    from reports.lint import _tolerant, _without_marks

    def found(expected: str, pdf_text: str) -> bool:
        return _tolerant(expected).search(_without_marks(pdf_text)) is not None

    # pypdf reads θ̃ (θ + combining tilde) as "θw̃" and z̄ as "zz̄": the glyph cluster's text after its first glyph
    assert found("‖θ̃‖²<⟨z̄,ū⟩", "x‖θw̃‖²<⟨zz̄,ū⟩y")
    assert found("‖θ̃‖²", "‖θ‖²") and not found("‖θ̃‖²", "‖φ‖²")
    # and η with a subscript τ as "η̄τ": a mark that is not drawn
    assert found("Στ<tητ²‖∇R‖²", "Στ<tη̄τ²‖∇R‖²") and not found("Στ<tητ²", "Στ<tηt²")


def test_plots_are_embedded_with_captions_and_text(text: str, small_run: RunResults) -> None:
    plots = [e.plot for r in small_run.results for e in r.evidence if e.plot is not None]
    for index, plot in enumerate(plots, start=1):
        assert f"Figure{index}:" + "".join(plot.title.split()) in text
        for series in plot.series:  # labels stay text inside the plots: searchable, and in an embedded font
            assert "".join(prose_plain(series.label).split()) in text
        for label, _ in plot.reference:
            assert "".join(label.split()) in text
    assert "10\u207b\u2074" in text  # a log axis labels its decades with superscripts


def test_fonts_are_embedded(rendered: Report) -> None:
    fonts = _fonts(rendered.path)
    assert len(fonts) >= 3
    for name, font in fonts.items():
        if font["/Subtype"] == "/Type0":
            font = font["/DescendantFonts"][0].get_object()
        descriptor = font["/FontDescriptor"].get_object()
        assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(descriptor), f"{name} is not embedded"


def test_page_count_is_plausible(rendered: Report) -> None:
    pages = len(pypdf.PdfReader(rendered.path).pages)
    assert rendered.pages == pages
    assert 8 <= pages <= 20  # title, summary, errata and about two claims a page


def test_invalid_markup_is_shown_as_source(rendered: Report, text: str) -> None:
    assert any(p.startswith("rank.prop3 statement:") for p in rendered.unrendered)
    assert any(p.startswith("rank.thm2 hypothesis 3:") for p in rendered.unrendered)
    assert len(rendered.unrendered) == 2
    assert "#unknown-function()]" in text and "shownassource" in text
    errors = check_markup(["$W_(k+1)^T W_(k+1)$ is constant", "#panic(\"boom\")", "$x", "#set page(width: 1cm)"])
    assert list(errors.values())[0] is None
    assert all(error for error in list(errors.values())[1:])


def test_texts_that_clash_in_one_document_fall_back_to_source(small_run: RunResults, tmp_path: Path) -> None:
    # each statement compiles alone, but together they define the label <dup> twice
    first, second = small_run.results[:2]
    statements = ("#figure[a] <dup> see @dup", "#figure[b] <dup> see @dup")
    results = tuple(replace(r, claim={**r.claim, "statement": text, "hypotheses": [], "notes": []})
                    for r, text in zip((first, second), statements))
    report = render_report(RunResults(small_run.provenance, results), tmp_path / "clash.pdf")
    assert [p.split(":")[0] for p in report.unrendered] == [f"{r.id} statement" for r in results]
    assert "#figure[a]<dup>see@dup" in _text(report.path)


def test_plain_texts_cannot_break_the_markup(small_run: RunResults, tmp_path: Path) -> None:
    hostile = '#panic("x") ] [ $unclosed <label> @ref * _ `'
    first = small_run.results[0]
    claim = {**first.claim, "title": hostile, "notes": [], "hypotheses": ["= A heading in a hypothesis"]}
    evidence = (replace(first.evidence[0], name=hostile, detail=hostile, figures={hostile: hostile}),)
    run = RunResults(small_run.provenance, (replace(first, claim=claim, evidence=evidence),))
    report = render_report(run, tmp_path / "hostile.pdf")
    assert report.unrendered == ()
    assert "".join(hostile.split()) in _text(report.path)
    # a heading inside a claim's text stays out of the outline and the bookmarks
    bookmarks = pypdf.PdfReader(report.path).outline
    assert "A heading in a hypothesis" not in str([item.title for item in bookmarks if not isinstance(item, list)])
    assert [item.title for item in bookmarks[-1]] == [f"{first.id}  CERTIFIED"]


def test_bad_plot_is_reported_in_place(small_run: RunResults, tmp_path: Path) -> None:
    bar = Plot("bar", "Bars", (Series("a", (1.0, 2.0)),))
    with pytest.raises(PlotError, match="unknown plot kind 'bar'"):
        plot_svg(bar)
    with pytest.raises(PlotError, match="series 'a' has 2 x values but 1 y values"):
        plot_svg(Plot("line", "Ragged", (Series("a", (1.0, 2.0), (1.0,)),)))
    with pytest.raises(PlotError, match="unknown axis scale 'logit'"):
        plot_svg(Plot("line", "Logit", (Series("a", (1.0,), (0.5,)),), yscale="logit"))
    first = small_run.results[0]
    run = RunResults(small_run.provenance, (replace(first, evidence=(replace(first.evidence[0], plot=bar),)),))
    assert "Plotomitted:unknownplotkind'bar'" in _text(render_report(run, tmp_path / "bar.pdf").path)


def test_plot_svg_is_deterministic(small_run: RunResults) -> None:
    plots = [e.plot for r in small_run.results for e in r.evidence if e.plot is not None]
    assert {p.kind for p in plots} == {"line", "scatter", "hist"}
    for plot in plots:
        assert plot_svg(plot) == plot_svg(plot)
        assert "<dc:date>" not in plot_svg(plot)


# -- reproducibility and speed --------------------------------------------------------------------------------
def test_same_results_give_identical_bytes(small_run: RunResults, rendered: Report, tmp_path: Path) -> None:
    again = render_report(small_run, tmp_path / "again.pdf")
    assert again.path.read_bytes() == rendered.path.read_bytes()
    # another process, through the command line: nothing in the PDF depends on the process or the time
    other = tmp_path / "other.pdf"
    environment = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    subprocess.run([sys.executable, "-m", "verify.cli", "report", "--from", str(fixture.SMALL_RUN), "-o", str(other)],
                   cwd=REPO, check=True, capture_output=True, env=environment)
    assert other.read_bytes() == rendered.path.read_bytes()
    metadata = pypdf.PdfReader(other).metadata
    assert metadata.creation_date.isoformat() == "2026-01-15T09:30:00+00:00"  # the run's start


def test_source_date_epoch_fixes_the_creation_date(small_run: RunResults, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert creation_timestamp(small_run) == 1700000000
    first = render_report(small_run, tmp_path / "a.pdf").path.read_bytes()
    second = render_report(small_run, tmp_path / "b.pdf").path.read_bytes()
    assert first == second
    assert pypdf.PdfReader(tmp_path / "a.pdf").metadata.creation_date.timestamp() == 1700000000


def test_large_report_renders_quickly(tmp_path: Path) -> None:
    run = fixture.large_run(claims=180, plots=30)
    assert sum(e.plot is not None for r in run.results for e in r.evidence) == 30
    start = time.perf_counter()
    report = render_report(run, tmp_path / "large.pdf")
    seconds = time.perf_counter() - start
    assert seconds < 15, f"180 claims took {seconds:.1f} s"  # about 2.5 s on the 2-core development machine
    assert 60 <= report.pages <= 150
    table = _text(report.path, pages=12)  # the title page and the summary's table of all claims
    assert all(r.id in table for r in run.results)


# -- command line ---------------------------------------------------------------------------------------------
def test_report_of_the_latest_stored_run(small_run: RunResults, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    ResultStore(store).save(small_run)
    target = tmp_path / "out" / "latest.pdf"
    status, out, err = _main(["--store", str(store), "report", "-o", str(target)], capsys)
    assert status == cli.EXIT_OK and target.exists()
    assert f"report: {target} (" in out
    assert err.count("verify: warning:") == 2  # the two texts of the fixture that are not valid markup


def test_run_with_report(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    claims = [claim for claim, _ in fixture.small_claims()]
    monkeypatch.setattr(cli, "select", lambda ids, paper: claims)
    target = tmp_path / "run.pdf"
    status, out, _ = _main(["--store", str(tmp_path / "store"), "run", "--report", str(target)], capsys)
    assert status == cli.EXIT_MISMATCH  # the fixture has a toothless and an inconclusive claim
    assert target.exists() and "report:" in out
    text = _text(target, pages=3)
    assert all(claim.id in text for claim in claims)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


BAD_RESULTS = {
    "empty": ("", "is empty"),
    "blank": ("  \n", "is empty"),
    "malformed": ('{"provenance": {', "is not valid JSON"),
    "not an object": ("[1, 2]", "is not a JSON object"),
    "no results": ('{"provenance": {"profile": "quick", "seed": 1, "started": "2026-01-01T00:00:00+00:00"}}',
                   "lacks required key 'results'"),
    "no profile": ('{"provenance": {"seed": 1, "started": "x"}, "results": []}', "lacks required key 'profile'"),
    "result without verdict": ('{"provenance": {"profile": "quick", "seed": 1, "started": "2026-01-01T00:00:00Z"},'
                               ' "results": [{"id": "rank.x"}]}', "result 0 (rank.x) lacks required key 'verdict'"),
    "unknown verdict": ('{"provenance": {"profile": "quick", "seed": 1, "started": "2026-01-01T00:00:00Z"},'
                        ' "results": [{"id": "rank.x", "verdict": "great", "expected": "confirmed", "seconds": 1,'
                        ' "evidence": []}]}', "is malformed"),
    "no claim description": ('{"provenance": {"profile": "quick", "seed": 1, "started": "2026-01-01T00:00:00Z"},'
                             ' "results": [{"id": "rank.x", "verdict": "confirmed", "expected": "confirmed",'
                             ' "seconds": 1, "evidence": []}]}', "has no claim description"),
}


@pytest.mark.parametrize("case", sorted(BAD_RESULTS))
def test_bad_results_file_is_one_line_and_exit_2(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, message = BAD_RESULTS[case]
    source = _write(tmp_path / "results.json", text)
    status, out, err = _main(["report", "--from", str(source), "-o", str(tmp_path / "r.pdf")], capsys)
    assert status == cli.EXIT_USAGE
    assert err.startswith("verify: error: ") and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "r.pdf").exists()


def test_missing_results_file_and_missing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _main(["report", "--from", str(tmp_path / "nowhere.json")], capsys)
    assert status == cli.EXIT_USAGE
    assert err == f"verify: error: results file {tmp_path / 'nowhere.json'} does not exist\n"
    status, _, err = _main(["--store", str(tmp_path / "empty-store"), "report"], capsys)
    assert status == cli.EXIT_USAGE and err.startswith("verify: error: no stored run in ") and err.count("\n") == 1


def test_corrupt_stored_run_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    store.mkdir()
    _write(store / "latest.json", "{")
    status, _, err = _main(["--store", str(store), "report", "-o", str(tmp_path / "r.pdf")], capsys)
    assert status == cli.EXIT_USAGE and "is not valid JSON" in err and err.count("\n") == 1


def test_drawn_plots_are_cached_on_disk(small_run: RunResults, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IBVERIFY_CACHE_DIR", str(tmp_path))
    drawn: list[Plot] = []
    draw = figures._draw
    monkeypatch.setattr(figures, "_draw", lambda plot: drawn.append(plot) or draw(plot))
    result = next(r for r in small_run.results if any(e.plot is not None for e in r.evidence))
    plots = [e.plot for e in result.evidence if e.plot is not None]
    figures.draw_ahead(result)
    assert drawn == plots and len(list((tmp_path / "plots").glob("*.svg"))) == len(set(map(repr, plots)))
    first = [plot_svg(p) for p in plots]
    assert drawn == plots  # read back, not drawn again
    shifted = replace(plots[0], title=plots[0].title + " (shifted)")
    plot_svg(shifted)
    assert drawn[-1] == shifted  # other data, another entry
    assert first == [draw(p) for p in plots]
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("IBVERIFY_CACHE_DIR", str(tmp_path / "file"))  # a cache that cannot be written is skipped
    assert plot_svg(shifted) == draw(shifted)


# -- conclusions, controls and the verdict rules --------------------------------------------------------------
def _section(text: str, claim_id: str, verdict: str) -> str:
    """The text from a claim's heading (its id and verdict badge) on."""
    claims = text[text.index("Tightnessofthecheckedbounds"):]
    return claims[claims.index(claim_id + verdict.upper()):]


def test_claim_pages_show_each_conclusion_with_its_verdict_and_evidence(text: str) -> None:
    section = _section(text, "rank.thm2", "confirmed")
    section = section[: section.index("rank.prop3TOOTHLESS")]
    assert "ConclusionVerdictRigorousReasonEvidence" in section
    assert "effectiverankfallstowards1(m=2,4,8)CONFIRMEDnorestsontrendevidence" in section
    assert "rankofW1atinitialization≤m(m=2,4,8)CERTIFIEDyeseveryitemrigorous,allpassE3,C2" in section
    # every evidence item with its criterion and arguments; each control as the same check, perturbed
    assert "E1effectiverankdecreasestrendsupport" in section
    assert "criterionvalue≤bound·value=1.0000372,bound=1.01" in section
    assert "C1rankbelowonenegativecontrolrejectedSamecheckasE1,perturbed:bound:1.01→0.5" in section
    assert "criterionvalue≤bound·value=1.0000372,bound=0.5" in section
    assert "C2widthhalvednegativecontrolrejectedSamecheckasE3,perturbed:m:8→4(m→m/2)" in section


def test_failing_items_are_shown_failing(text: str) -> None:
    section = _section(text, "tensor.cor2", "inconclusive")
    assert "seconddecompositionnumericcounterexamplenotreproduced" in section  # a failed attempt fails
    assert "solverfailederror" in section
    assert "orthogonaldecompositionnumericsupportfails" in section
    toothless = _section(text, "rank.prop3", "toothless")
    assert "C1targettwonegativecontrolnotrejected" in toothless
    assert "C2notolerancenegativecontrolundecided" in toothless and "ValueError" in toothless
    error = _section(text, "tensor.prop5", "error")
    assert "defect:proof“boundholdssymbolically”andcounterexample“boundfailsatx=3”" in error


def test_summary_counts_full_and_partial_certification_and_every_verdict(text: str, small_run: RunResults) -> None:
    summary = text[text.rindex("1Summary", 0, text.index("Allclaims")): text.index("Allclaims")]
    # certified claims: every conclusion certified (rank.lem1, align.lem2); rank.thm2 is partly certified
    assert "CERTIFIEDeveryconclusion1" in summary
    assert "ofwhichpartlycertified1" in summary
    for verdict in ("CONTRADICTED", "ERROR", "TOOTHLESS", "INCONCLUSIVE", "REFUTED", "ASSUMED"):
        assert verdict in summary
    conclusions = sum(len(r.conclusions) for r in small_run.results)
    certified = sum(c.verdict is Verdict.CERTIFIED for r in small_run.results for c in r.conclusions)
    assert "Conclusionscertified" in summary and f"{certified}/{conclusions}" in summary


def test_how_to_read_states_the_verdict_rules(text: str) -> None:
    rules = text[text.index("Howtoreadtheverdicts"): text.index("Contents")]
    for rule in ("aproofandacounterexampleofthesameconclusionthatbothpass:ERROR",
                 "anegativecontrolmissing,notrejected,orundecided",
                 "REFUTEDwhenitisrigorous(symbolic,exactorinterval)",
                 "CONTRADICTEDwhenitisonlynumerical",
                 "CERTIFIEDonlywheneveryitemisrigorous,withaproofamongthem,andallpass",
                 "CONFIRMEDwhenallpassandsomearenumerical,convexortrendevidence",
                 "verdictistheweakestofitsconclusions"):
        assert rule in rules, rule


# -- readable texts outside the typeset statements ------------------------------------------------------------
def test_no_raw_markup_in_prose(text: str) -> None:
    from reports.lint import missing_files, raw_markup

    claims = text[text.index("Summary"):]
    assert raw_markup(claims) == [] and missing_files(claims) == []
    for raw in ("[0.5,", "'sqrt"):  # the fixture's own list and sympy reprs
        assert raw not in claims, raw
    assert "σ2/σ1below10−3" in claims and "‖∇L‖2=2·x2" in claims and "samples(0.5,0.25,0.125,0.0625)" in claims


@pytest.mark.parametrize("raw,segments", [
    ("W_(k+1)^T W_k", [("W", ""), ("k+1", "sub"), ("⊤", "sup"), (" W", ""), ("k", "sub")]),
    ("x_{ij} = 2*x**2", [("x", ""), ("ij", "sub"), (" = 2·x", ""), ("2", "sup")]),
    ("max_ratio[0.5] and tightness_rate", [("max_ratio[0.5] and tightness_rate", "")]),
    ("widths ['a', 'b'] at time nan", [("widths (a, b) at time NaN", "")]),
    ("np.float64(0.30000000000000004)", [("0.3", "")]),
    ("margins: ('6·sqrt(2)/9',) and ('a', \"b\")", [("margins: (6·sqrt(2)/9) and (a, b)", "")]),
    ("e^(-t), sigma_1", [("e", ""), ("−t", "sup"), (", σ", ""), ("1", "sub")]),
])
def test_prose_reads_ascii_notation(raw: str, segments: list[tuple[str, str]]) -> None:
    assert prose(raw) == segments


@pytest.mark.parametrize("raw,segments", [
    ("∏_{k≥2} F", [("∏", ""), ("k≥2", "sub"), (" F", "")]),
    ("∏_{k=2}^L F", [("∏", ""), ("k=2", "sub"), ("L", "sup"), (" F", "")]),
    ("onto ū^⊥", [("onto ū", ""), ("⊥", "sup")]),
    ("ℓ^(−1)(R)", [("ℓ", ""), ("−1", "sup"), ("(R)", "")]),
    ("e^(R^L)", [("e", ""), ("R", "sup"), ("L", "sup.sup")]),
    ("10^{−1/2}", [("10", ""), ("−1/2", "sup")]),
    ("(ln t)^{1/L}", [("(ln t)", ""), ("1/L", "sup")]),
    ("Q_(k+1)(t)", [("Q", ""), ("k+1", "sub"), ("(t)", "")]),
    ("lim_(t→∞) H", [("lim", ""), ("t→∞", "sub"), (" H", "")]),
    ("loss e^-9e+04, α^order", [("loss e", ""), ("−9e+04", "sup"), (", α", ""), ("order", "sup")]),
    ("fails on ['α → 0, L = 3']", [("fails on (α → 0, L = 3)", "")]),
    ("{'a': ['b'], 'c': 1} x[0]", [("{a: (b), c: 1} x[0]", "")]),
    ("c=np.float64(0.2397516…", [("c=0.2397516…", "")]),
    ("3*2**(1/3)", [("3·2", ""), ("1/3", "sup")]),
    ("‖W_k‖_2² ≤ D_k", [("‖W", ""), ("k", "sub"), ("‖", ""), ("2", "sub"), ("² ≤ D", ""), ("k", "sub")]),
    ("x_2a, x_2.5", [("x_2a, x_2.5", "")]),  # not a digit subscript: a name and a decimal
    ("≥ ‖Q_k‖_2.", [("≥ ‖Q", ""), ("k", "sub"), ("‖", ""), ("2", "sub"), (".", "")]),  # a sentence's end
])
def test_prose_reads_scripts_after_any_symbol(raw: str, segments: list[tuple[str, str]]) -> None:
    assert prose(raw) == segments


def test_markup_prose_typesets_scripts_outside_math() -> None:
    assert markup_prose("ū^⊥ and $x_1^T$ and Q_(k+1)") == "ū#super[⊥]; and $x_1^T$ and Q#sub[k+1];"
    assert markup_prose("e^(R^L) at https://a.b/c_d") == "e#super[R#super[L];]; at https://a.b/c_d"
    assert markup_prose("M\\_(l) \\*x\\*") == "M#sub[l]; \\*x\\*"  # verify.claim.plain's escapes
    assert check_markup([markup_prose("a_(k+1) b^(−1/2) c^(x*y)")]) == {markup_prose("a_(k+1) b^(−1/2) c^(x*y)"): None}


def test_string_figures_and_plot_labels_are_read() -> None:
    from reports.figures import _label

    assert _number("2**(1/3)")["text"] == [["2", ""], ["1/3", "sup"]]
    assert _label("x^(2/k)") == "x$^{\\mathrm{2/k}}$" and _label("W_k x^2") == "Wₖ x²"


def test_plain_text_of_statements() -> None:
    assert plain_text("$W_(k+1)^T W_(k+1) <= norm(x)^2$ for $k -> oo$, a\\/b [x]") == \
        "W_(k+1)ᵀ W_(k+1) ≤ ‖x‖² for k → ∞, a/b [x]"
    assert plain_text('$op("rank")(W) in RR^(m times d)$') == "rank(W) ∈ ℝ^(m × d)"


def test_keys_break_between_words_never_inside_numbers() -> None:
    assert pieces("max_ratio[0.125]") == ["max_", "ratio[0.125]"]
    assert pieces("tol=1e-05") == ["tol=", "1e-05"]
    assert "".join(pieces(fixture.LONG_ID)) == fixture.LONG_ID


def test_every_plot_has_axis_labels_and_stays_in_its_claim(text: str, small_run: RunResults) -> None:
    from reports.figures import axis_labels
    from reports.lint import misplaced_figures, plot_problems

    plots = [(r.id, e.name, e.plot) for r in small_run.results for e in r.evidence if e.plot is not None]
    assert plots and all(not plot_problems(plot) for _, _, plot in plots), plots
    assert misplaced_figures(text, small_run) == []
    assert plot_problems(Plot("line", "t", (Series("a", (math.nan,), (1.0,)),), "s")) == [
        "no data (no series has a finite point)"]
    assert axis_labels(Plot("line", "t", (Series("a", (1.0,), (2.0,)), Series("b", (1.0,), (3.0,))))) == \
        ("", "a, b")
    assert axis_labels(Plot("scatter", "t", (Series("", (1.0, 2.0)),))) == ("index", "value")


def test_a_run_at_several_seeds_says_so_on_the_title_page():
    from reports.render import _seed_text

    assert _seed_text({"seed": 7}) == "7"
    text = _seed_text({"seed": 3, "seeds": [3, 4, 5], "seed_misses": {"rank.x": [4]}})
    assert "the run used 3 seeds (3–5)" in text and "1 claims missed at some seed: rank.x (4)" in text
    assert "every claim as expected at every seed" in _seed_text({"seed": 3, "seeds": [3, 4], "seed_misses": {}})
