"""The PDF verification report: a run's results in, a typeset PDF out.

Results are turned into one JSON document that ``reports/template.typ`` reads from ``sys.inputs``; no text
of a result is ever pasted into typst source, so no claim text can break the markup. Plots are drawn by
:mod:`reports.figures` as SVG and travel inside that JSON.

What the report reads (the data contract for claim authors; a results file is ``RunResults.to_json()``):

* ``provenance``: ``profile``, ``seed`` and ``started`` (ISO 8601) are required; ``ibverify``,
  ``git_commit``, ``libraries``, ``python``, ``platform``, ``machine`` and ``wall_seconds`` are shown when
  present.
* each result: ``id``, ``verdict``, ``expected``, ``seconds``, ``evidence``, ``conclusions`` and ``claim``, the
  claim's description (``Claim.to_json``) whose ``paper``, ``ref``, ``kind``, ``title`` and ``statement`` are
  required and ``hypotheses``, ``notes``, ``profiles``, ``corrected_by``, ``corrects`` and ``erratum``
  (``substantive`` or ``literal``) optional. A result without ``conclusions`` (an older file) is shown as one
  conclusion, ``statement``, holding all its evidence.
* each conclusion (``ConclusionResult.to_json``): ``name``, ``verdict``, ``expected``, ``rigorous``,
  ``reason`` and ``evidence``, the indices of its items. Each claim page opens with the table of its
  conclusions; items are numbered E1, E2, ... and controls C1, C2, ... in recording order.
* each evidence item: ``name``, ``kind``, ``role``, ``passed``, ``detail``, ``figures``, ``conclusion``, and
  when a criterion decided it ``criterion`` and ``arguments`` (shown under the item); a control also has
  ``perturbs`` and ``change`` (shown as "same check as E1, perturbed: ..."), an undecided item ``undecided``;
  ``plot`` (line plots take log axes from ``xscale``/``yscale``; ``reference`` values are drawn as labelled
  dashed lines, horizontal for line and scatter plots, vertical for histograms; a missing axis label falls
  back to the series' labels; legends sit above the axes; a figure stays right after its evidence item).
* ``provenance["selection"]`` (written by ``verify run``: ``claims``, ``registered``, ``paper``, ``ids``):
  page 1 says when a run covers only part of the registered claims.
* markup: a claim's ``statement`` and each of its ``hypotheses`` and ``notes`` are typst markup (math
  between ``$``), e.g. ``$W_(k+1)^T W_(k+1) - W_k W_k^T$ is constant along gradient flow``. Each is first
  compiled on its own; one that does not compile is shown as its source text with typst's error, and is
  listed in :attr:`Report.unrendered`. Every other text (titles, references, evidence names and details,
  conclusion names, reasons and changes, plot titles) is plain text, never markup: :func:`reports.text.prose`
  shows ASCII notation in it readably (``W_(k+1)^T``, ``x_{ij}``, ``2*x**2``, ``[2, 4, 8]``), and figure
  keys are shown as typed; plot axis labels and legend entries are drawn by matplotlib and may use its
  ``$...$`` mathtext.
* an evidence item's ``tightness`` (``Tightness.to_json``, made by ``verify.tightness``): for each printed bound
  it checks, ``bound`` (plain text), ``sense`` (``upper`` or ``lower``), ``instances``, and the largest and
  smallest ratio of measured value to bound (``tightest``, ``loosest``; ≤ 1 holds, 1 attained). The report
  lists every record of every proof, support and counterexample item in the table "Tightness of the checked
  bounds" (section "Errata and tightness"), and shows each item's records, controls' included, under it.
* a refuted or contradicted claim names its corrected variant with ``corrected_by`` (and the variant names it
  back with ``corrects``); the errata, substantive first, then literal, show the variant's statement and
  verdict next to the printed one.

Reproducibility: the PDF depends only on the results. Its creation date is ``$SOURCE_DATE_EPOCH`` when set
and otherwise the run's start time; the fonts are those bundled with typst plus matplotlib's DejaVu Sans for
the plots, never the machine's; plots are deterministic SVG. The same results give byte-identical files.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import typst

from reports.figures import PLOT_FONTS, PlotError, plot_svgs
from reports.text import evidence_labels, markup_prose, prose
from verify.claim import ERRATA_NATURES, PAPERS, ConclusionResult, Evidence, Figure, Plot, Role, Tightness, Verdict
from verify.runner import ClaimResult, RunResults

TEMPLATE = Path(__file__).resolve().parent / "template.typ"
REQUIRED_PROVENANCE = ("profile", "seed", "started")
VIOLATION_SLACK = 1e-9  # a tightest ratio above 1 + this is shown as a violated bound (below: rounding)
REQUIRED_CLAIM_KEYS = ("paper", "ref", "kind", "title", "statement")
# the summary's rows: the better verdicts first, then the failures
SUMMARY_ORDER = (Verdict.CERTIFIED, Verdict.CONFIRMED, Verdict.ASSUMED, Verdict.REFUTED, Verdict.CONTRADICTED,
                 Verdict.INCONCLUSIVE, Verdict.TOOTHLESS, Verdict.ERROR)


class ReportError(ValueError):
    """Results that cannot be reported (unreadable, malformed, incomplete) or a PDF that cannot be written."""


@dataclass(frozen=True)
class Report:
    path: Path
    pages: int
    seconds: float
    unrendered: tuple[str, ...]  # "claim-id field: typst's error" for each markup text shown as source


# -- reading results ---------------------------------------------------------------------------------------
def read_results(path: str | os.PathLike[str]) -> RunResults:
    """A results file (``verify run --json`` or the store's ``latest.json``), checked enough to report on."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"results file {path} does not exist") from None
    except UnicodeDecodeError:
        raise ReportError(f"results file {path} is not UTF-8 text") from None
    except OSError as exc:
        raise ReportError(f"cannot read results file {path}: {exc.strerror}") from None
    if not text.strip():
        raise ReportError(f"results file {path} is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(f"results file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno}") from None
    return _parse_results(data, f"results file {path}")


def _parse_results(data: Any, source: str = "results") -> RunResults:
    """Results from their JSON form; a missing key or a wrong type is named in a :class:`ReportError`."""
    if not isinstance(data, dict):
        raise ReportError(f"{source} is not a JSON object with 'provenance' and 'results'")
    for key in ("provenance", "results"):
        if key not in data:
            raise ReportError(f"{source} lacks required key '{key}'")
    provenance, results = data["provenance"], data["results"]
    if not isinstance(provenance, dict):
        raise ReportError(f"{source}: 'provenance' is not an object")
    missing = [key for key in REQUIRED_PROVENANCE if key not in provenance]
    if missing:
        raise ReportError(f"{source}: provenance lacks required key '{missing[0]}'")
    if not isinstance(results, list):
        raise ReportError(f"{source}: 'results' is not a list")
    parsed = []
    for index, item in enumerate(results):
        named = isinstance(item, dict) and "id" in item
        where = f"{source}: result {index}" + (f" ({item['id']})" if named else "")
        try:
            parsed.append(ClaimResult.from_json(item))
        except KeyError as exc:
            raise ReportError(f"{where} lacks required key '{exc.args[0]}'") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise ReportError(f"{where} is malformed: {exc}") from None
    return RunResults(dict(provenance), tuple(parsed))


# -- markup ------------------------------------------------------------------------------------------------
_PROBE = b"""
#set page(width: 16cm, height: auto, margin: 1cm)
#for source in json(bytes(sys.inputs.sources)) { block(eval(source, mode: "markup")) }
"""
_markup_errors: dict[str, str | None] = {}  # a pure function of the text (and typst's version): safe to keep


def check_markup(sources: Iterable[str]) -> dict[str, str | None]:
    """For each text, None when it compiles as typst markup inside a block (as the report places it), else
    typst's error message.

    All texts not seen before are probed in one document; a failing batch is halved until each failure is
    isolated, so the common case (all valid) costs one compilation.
    """
    sources = list(sources)
    _settle(sorted(set(sources) - _markup_errors.keys()))
    return {source: _markup_errors[source] for source in sources}


def _settle(sources: list[str]) -> None:
    if not sources:
        return
    try:
        typst.compile(_PROBE, root=str(TEMPLATE.parent), ignore_system_fonts=True,
                      sys_inputs={"sources": json.dumps(sources)})
        _markup_errors.update(dict.fromkeys(sources, None))
    except typst.TypstError as exc:
        if len(sources) == 1:
            _markup_errors[sources[0]] = exc.message
        else:
            _settle(sources[: len(sources) // 2])
            _settle(sources[len(sources) // 2:])


# -- the document's data -----------------------------------------------------------------------------------
def _number(value: Figure) -> dict[str, str | None]:
    """A figure for display: 6 significant digits, powers of ten as a separate exponent."""
    if isinstance(value, bool):
        return {"text": str(value).lower(), "exp": None}
    if isinstance(value, str):
        special = {"nan": "NaN", "inf": "\u221e", "-inf": "\u2212\u221e"}
        return {"text": special[value] if value in special else _prose(value), "exp": None}
    if isinstance(value, int) and abs(value) < 10**12:
        return {"text": str(value).replace("-", "\u2212"), "exp": None}
    text = f"{float(value):.6g}"
    mantissa, _, exponent = text.partition("e")
    return {"text": mantissa.replace("-", "\u2212"),
            "exp": str(int(exponent)).replace("-", "\u2212") if exponent else None}


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s" if value < 1000 else f"{value:.0f} s"


def _prose(text: str) -> str | list[list[str]]:
    """A plain text for the template: itself, or [text, "" | "sub" | "sup"] segments (:func:`reports.text.prose`)."""
    segments = prose(text)
    if all(style == "" for _, style in segments):
        return "".join(part for part, _ in segments)
    return [[part, style] for part, style in segments]


_SEPARATORS = "._/=:,+-"


def pieces(text: str) -> list[str]:
    """An id or key cut after its separators, so that a line may break there; never inside a number
    (``0.125``, ``1e-05``) and never before the first character."""
    out = [""]
    for index, char in enumerate(text):
        out[-1] += char
        if char in _SEPARATORS:
            before = text[index - 1] if index > 0 else ""
            after = text[index + 1] if index + 1 < len(text) else ""
            inside_number = after.isdigit() and (before.isdigit() or (char in "+-" and before in "eE"))
            if after and not inside_number:
                out.append("")
    return [piece for piece in out if piece]


def _require_text(description: Mapping[str, Any], key: str, claim_id: str) -> str:
    value = description.get(key)
    if not isinstance(value, str):
        raise ReportError(f"result {claim_id}: claim description lacks required text '{key}'")
    return value


def _texts(description: Mapping[str, Any], key: str, claim_id: str) -> list[str]:
    value = description.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReportError(f"result {claim_id}: claim description's '{key}' is not a list of texts")
    return value


def _mark(item: Evidence) -> tuple[str, str]:
    """What the item's outcome means for its role, in words, and its tone for colouring.

    A counterexample attempt that did not reproduce is a failing item (it keeps its conclusion
    inconclusive), shown as failing; an item whose criterion could not decide is shown as undecided.
    """
    passed = item.passed
    if item.role is Role.ERROR:
        return "error", "bad"
    if item.undecided:
        return "undecided", "bad"
    if item.role is Role.COUNTEREXAMPLE:
        return ("found", "refuting") if passed else ("not reproduced", "bad")
    if item.role is Role.CONTROL:
        return ("rejected", "good") if passed else ("not rejected", "bad")
    return ("holds", "good") if passed else ("fails", "bad")


def _evidence_class(item: Evidence) -> str:
    """Kind and role in words: "symbolic proof", "trend support", "exact counterexample", "negative control"."""
    if item.role is Role.CONTROL:
        return "negative control"
    if item.role is Role.ERROR:
        return "error"
    return f"{item.kind.value} {item.role.value}"


def _labels(evidence: Sequence[Evidence]) -> list[str]:
    """E1, E2, ... for evidence items and C1, C2, ... for negative controls, in recording order."""
    return evidence_labels([item.role.value for item in evidence])


def _conclusion_results(result: ClaimResult) -> tuple[ConclusionResult, ...]:
    """The result's conclusions; a result stored before conclusions existed stands as one conclusion."""
    if result.conclusions:
        return result.conclusions
    return (ConclusionResult("statement", result.verdict, result.expected, tuple(range(len(result.evidence))),
                             ""),)


def certification(result: ClaimResult) -> str | None:
    """"full" when every conclusion is certified, "partial" when some are and the rest confirmed, else None."""
    verdicts = [c.verdict for c in _conclusion_results(result)]
    if verdicts and all(v is Verdict.CERTIFIED for v in verdicts):
        return "full"
    if Verdict.CERTIFIED in verdicts and all(v in (Verdict.CERTIFIED, Verdict.CONFIRMED) for v in verdicts):
        return "partial"
    return None


class _DocumentBuilder:
    """Collects the document's JSON; plots are numbered here and drawn in one batch afterwards."""

    def __init__(self, run: RunResults) -> None:
        self.run = run
        self.plots: list[Plot] = []
        self.markup: list[tuple[str, str, dict[str, Any]]] = []  # (claim id, field, the item to flag)

    def markup_item(self, source: str, claim_id: str, field: str) -> dict[str, Any]:
        item = {"source": markup_prose(source), "original": source, "error": None}
        self.markup.append((claim_id, field, item))
        return item

    def evidence(self, item: Evidence, labels: Sequence[str], index: int, several: bool) -> dict[str, Any]:
        mark, tone = _mark(item)
        plot = None
        if item.plot is not None:
            plot = len(self.plots)
            self.plots.append(item.plot)
        perturbs = labels[item.perturbs] if item.perturbs is not None and item.perturbs < len(labels) else None
        return {"label": labels[index], "name": _prose(item.name), "class": _evidence_class(item),
                "role": item.role.value, "mark": mark, "tone": tone, "detail": _prose(item.detail), "plot": plot,
                "conclusion": _prose(item.conclusion) if several and item.conclusion else None,
                "criterion": _prose(item.criterion) if item.criterion else None,
                "arguments": [{"name": pieces(name), "value": _prose(value)}
                              for name, value in item.arguments.items()],
                "perturbs": perturbs, "change": _prose(item.change) if item.change else None,
                "figures": [{"key": pieces(k), "value": _number(v)} for k, v in item.figures.items()],
                "tightness": [_tightness(t) for t in item.tightness]}

    def claim(self, result: ClaimResult) -> dict[str, Any]:
        description = result.claim
        if not isinstance(description, dict):
            raise ReportError(f"result {result.id} has no claim description (written by an older version; "
                              "run the claim again)")
        texts = {key: _require_text(description, key, result.id) for key in REQUIRED_CLAIM_KEYS}
        profiles = description.get("profiles") or {}
        profile = str(self.run.provenance["profile"])
        redundant_kind = texts["ref"].lower().startswith(texts["kind"].lower())
        conclusions = _conclusion_results(result)
        several = len(conclusions) > 1
        labels = _labels(result.evidence)
        items = [self.evidence(e, labels, i, several) for i, e in enumerate(result.evidence)]
        erratum = description.get("erratum")
        return {
            "id": result.id, "id_pieces": pieces(result.id), "paper": texts["paper"], "ref": _prose(texts["ref"]),
            "title": _prose(texts["title"].strip().rstrip(".")),
            "kind": None if redundant_kind else texts["kind"],
            "statement": self.markup_item(texts["statement"], result.id, "statement"),
            "hypotheses": [self.markup_item(h, result.id, f"hypothesis {i + 1}")
                           for i, h in enumerate(_texts(description, "hypotheses", result.id))],
            "notes": [self.markup_item(n, result.id, f"note {i + 1}")
                      for i, n in enumerate(_texts(description, "notes", result.id))],
            "profile_run": _prose(profiles[profile]) if isinstance(profiles, dict) and profiles.get(profile)
            else None,
            "verdict": result.verdict.value, "expected": result.expected.value, "as_expected": result.ok,
            "certification": certification(result),
            "seconds": _seconds(result.seconds),
            "corrected_by": description.get("corrected_by"), "corrects": description.get("corrects"),
            "erratum": erratum if erratum in ERRATA_NATURES else None,
            "conclusions": [{"name": _prose(c.name), "verdict": c.verdict.value, "expected": c.expected.value,
                             "ok": c.verdict is c.expected, "rigorous": c.rigorous, "reason": _prose(c.reason),
                             "evidence": [labels[i] for i in c.evidence if i < len(labels)]}
                            for c in conclusions],
            "evidence": [e for e in items if e["role"] != Role.CONTROL.value],
            "controls": [e for e in items if e["role"] == Role.CONTROL.value],
        }

    def build(self) -> dict[str, Any]:
        run = self.run
        claims = [self.claim(r) for r in run.results]
        by_id = {c["id"] for c in claims}
        paper_keys = list(PAPERS) + sorted({c["paper"] for c in claims} - PAPERS.keys())
        against = [c for c in claims if c["verdict"] in (Verdict.REFUTED.value, Verdict.CONTRADICTED.value)]
        return {
            "provenance": _provenance(run.provenance),
            "verdicts": [v.value for v in SUMMARY_ORDER],
            "summary": _summary(run, paper_keys),
            "claims": claims,
            "papers": [{**_paper(key), "claims": [c["id"] for c in claims if c["paper"] == key]}
                       for key in paper_keys if any(c["paper"] == key for c in claims)],
            "errata": [{"nature": nature,
                        "claims": [{"id": c["id"], "corrected_in_run": c["corrected_by"] in by_id}
                                   for c in against if c["erratum"] == nature]}
                       for nature in (*ERRATA_NATURES, None) if any(c["erratum"] == nature for c in against)],
            "tightness": tightness_rows(run),
        }


def _tightness(record: Tightness) -> dict[str, Any]:
    return {"bound": _prose(record.bound), "lower": record.sense == "lower", "instances": record.instances,
            "tightest": _number(record.tightest), "loosest": _number(record.loosest),
            "violated": not math.isnan(record.tightest) and record.tightest > 1 + VIOLATION_SLACK}


def tabled_bounds(run: RunResults) -> list[tuple[ClaimResult, str, Evidence, Tightness]]:
    """The rows of the tightness table: (result, evidence label, item, record) for every record of every item
    that is not a negative control (a control's records, of a deliberately wrong statement, stay on its page)."""
    rows = []
    for result in run.results:
        labels = _labels(result.evidence)
        rows += [(result, labels[index], item, record) for index, item in enumerate(result.evidence)
                 if item.role is not Role.CONTROL for record in item.tightness]
    return rows


def tightness_rows(run: RunResults) -> list[dict[str, Any]]:
    return [{"claim": result.id, "label": label, "evidence": _prose(item.name), **_tightness(record)}
            for result, label, item, record in tabled_bounds(run)]


def _run_start(provenance: Mapping[str, Any]) -> datetime | None:
    """When the run started, if its ``started`` is an ISO 8601 time with a zone."""
    try:
        moment = datetime.fromisoformat(str(provenance["started"]))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _seed_text(provenance: Mapping[str, Any]) -> str:
    """The run's seed; for a run at several seeds, how many, and which claims missed at some seed."""
    seeds = provenance.get("seeds") or []
    if len(seeds) <= 1:
        return str(provenance["seed"])
    misses = provenance.get("seed_misses") or {}
    outcome = ("every claim as expected at every seed" if not misses else
               f"{len(misses)} claims missed at some seed: " + ", ".join(
                   f"{k} ({', '.join(map(str, v))})" for k, v in sorted(misses.items())))
    return (f"{provenance['seed']}; the run used {len(seeds)} seeds ({seeds[0]}–{seeds[-1]}), this report shows the "
            f"evidence of seed {provenance['seed']}; {outcome}")


def _provenance(provenance: Mapping[str, Any]) -> dict[str, Any]:
    libraries = provenance.get("libraries") or {}
    start = _run_start(provenance)
    wall = provenance.get("wall_seconds")
    return {
        "suite": str(provenance.get("ibverify", "unknown")),
        "commit": str(provenance.get("git_commit", "unknown")),
        "date": f"{start.day} {start:%B %Y, %H:%M} {start.tzname()}" if start else str(provenance["started"]),
        "profile": str(provenance["profile"]),
        "seed": _seed_text(provenance),
        "python": str(provenance.get("python", "unknown")),
        "platform": str(provenance.get("platform", "unknown")),
        "machine": str(provenance.get("machine", "unknown")),
        "wall": _seconds(float(wall)) if isinstance(wall, (int, float)) else None,
        "libraries": [{"name": str(k), "version": str(v)} for k, v in libraries.items()]
        if isinstance(libraries, dict) else [],
        "selection": _selection(provenance.get("selection")),
    }


def _selection(selection: Any) -> str | None:
    """Page 1's note on a run of part of the registry (``provenance["selection"]``, written by ``verify run``)."""
    if not isinstance(selection, dict):
        return None
    claims, registered = selection.get("claims"), selection.get("registered")
    if not isinstance(claims, int) or not isinstance(registered, int) or claims >= registered:
        return None
    chosen = []
    if selection.get("paper"):
        chosen.append(f"the claims of paper {selection['paper']}")
    ids = selection.get("ids") or []
    if ids:
        shown = ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")
        chosen.append(shown)
    what = f" ({'; '.join(chosen)})" if chosen else ""
    return f"This run covers {claims} of the {registered} registered claims{what}."


def _paper(key: str) -> dict[str, str]:
    """A paper's key, authors and title ("Authors: Title" in ``PAPERS``; an unknown key stands for itself)."""
    authors, _, title = PAPERS.get(key, "").partition(": ")
    return {"key": key, "authors": authors, "title": title or key}


def _summary(run: RunResults, paper_keys: Sequence[str]) -> dict[str, Any]:
    def row(results: Sequence[ClaimResult]) -> dict[str, Any]:
        conclusions = [c for r in results for c in _conclusion_results(r)]
        return {"counts": {v.value: sum(r.verdict is v for r in results) for v in Verdict},
                "partly_certified": sum(certification(r) == "partial" for r in results),
                "conclusions": len(conclusions),
                "conclusions_certified": sum(c.verdict is Verdict.CERTIFIED for c in conclusions),
                "total": len(results), "as_expected": sum(r.ok for r in results),
                "seconds": _seconds(sum(r.seconds for r in results))}

    papers = []
    for key in paper_keys:
        results = [r for r in run.results if (r.claim or {}).get("paper") == key]
        papers.append({**_paper(key), **row(results)})
    return {"papers": papers, "overall": row(run.results)}


# -- rendering ---------------------------------------------------------------------------------------------
def creation_timestamp(run: RunResults) -> int:
    """``$SOURCE_DATE_EPOCH`` when set, else the run's start: the PDF's date never depends on when it is made."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH")
    if fixed is not None:
        try:
            return int(fixed)
        except ValueError:
            raise ReportError(f"SOURCE_DATE_EPOCH must be whole seconds, not '{fixed}'") from None
    start = _run_start(run.provenance)
    if start is None:
        raise ReportError(f"provenance 'started' is not an ISO 8601 time with a time zone: "
                          f"'{run.provenance['started']}'")
    return math.floor(start.timestamp())


def render_report(run: RunResults, output: str | os.PathLike[str], *, timestamp: int | None = None) -> Report:
    """Typeset the run as a PDF at ``output``; ``timestamp`` (Unix seconds) overrides the creation date."""
    start = time.perf_counter()
    output = Path(output)
    builder = _DocumentBuilder(run)
    data = builder.build()
    stamp = creation_timestamp(run) if timestamp is None else timestamp
    errors = check_markup(item["source"] for _, _, item in builder.markup)
    # a text whose typeset scripts do not compile (a script inside code the reading missed) stays as written
    retry = [item for _, _, item in builder.markup if errors[item["source"]] and item["source"] != item["original"]]
    originals = check_markup(item["original"] for item in retry)
    for item in retry:
        if originals[item["original"]] is None:
            item["source"] = item["original"]
    for _, _, item in builder.markup:
        item["error"] = errors[item["source"]] if item["source"] in errors else None
    svgs = plot_svgs(builder.plots)
    data["plots"] = [{"title": _prose(plot.title), "svg": None if isinstance(svg, PlotError) else svg,
                      "error": str(svg) if isinstance(svg, PlotError) else None}
                     for plot, svg in zip(builder.plots, svgs)]
    try:
        pdf = _typeset(data, stamp)
    except typst.TypstError as exc:
        # texts that compile one by one can still clash in one document (a label defined twice): then no
        # markup is evaluated at all, which cannot fail
        for _, _, item in builder.markup:
            item["error"] = item["error"] or f"not evaluated, the texts clash in one document: {exc.message}"
        pdf = _typeset(data, stamp)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(pdf)
    except OSError as exc:
        raise ReportError(f"cannot write {output}: {exc.strerror}") from None
    unrendered = tuple(f"{claim_id} {field}: {item['error']}" for claim_id, field, item in builder.markup
                       if item["error"] is not None)
    return Report(output, _page_count(pdf), time.perf_counter() - start, unrendered)


def _typeset(data: Mapping[str, Any], timestamp: int) -> bytes:
    with tempfile.TemporaryDirectory() as fonts:
        # typst gets the plots' fonts alone: matplotlib's font folder would offer a second DejaVu Sans Mono
        for font in PLOT_FONTS:
            shutil.copyfile(font, Path(fonts) / font.name)
        return typst.compile(str(TEMPLATE), root=str(TEMPLATE.parent), ignore_system_fonts=True,
                             font_paths=[fonts], sys_inputs={"data": json.dumps(data, ensure_ascii=False)},
                             timestamp=timestamp)


def _page_count(pdf: bytes) -> int:
    """Pages of a typst PDF: its page objects are written uncompressed as ``/Type /Page``."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))
