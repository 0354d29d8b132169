"""The ``verify`` command line: list, run and show claims, render the PDF report, and time the engines.

Bad input (unknown id or paper, unreadable file) gives one line on stderr and exit status 2. Machine output
(``--json -``, ``list --json``, ``show --json``, ``check --json``) is exactly one JSON document on stdout:
tables, progress and anything a solver library prints go to stderr meanwhile (redirected at the file
descriptor level, so banners written by C code are caught too).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from reports.text import evidence_labels, plain_text, prose_plain
from verify.bench import BENCHMARKS, SIZES, bench_table, run_benchmarks, statistics_lines
from verify.claim import PAPERS, VERDICT_ORDER, Claim, Evidence, Profile, Verdict
from verify.registry import (
    INDEX_VARIABLE,
    ClaimRef,
    ClaimSummary,
    UnknownClaimError,
    get,
    paper_key,
    registered_count,
    select,
    select_for_pool,
    summaries,
    use_index,
)
from verify.runner import (
    DEFAULT_SEED,
    ClaimResult,
    RunResults,
    claim_process_settings,
    run_seeds,
    seed_misses,
    seed_range,
)
from verify.store import ResultStore

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2

VERDICT_STYLE = {
    Verdict.CERTIFIED: "bold green", Verdict.CONFIRMED: "green", Verdict.REFUTED: "bold magenta",
    Verdict.CONTRADICTED: "magenta", Verdict.INCONCLUSIVE: "yellow", Verdict.ASSUMED: "cyan",
    Verdict.TOOTHLESS: "bold red", Verdict.ERROR: "bold white on red",
}
DEFAULT_REPORT = Path("out") / "report.pdf"


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def _verdict_text(verdict: Verdict) -> str:
    return f"[{VERDICT_STYLE[verdict]}]{verdict.value}[/]"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _breakdown(verdicts: Sequence[Verdict], short: bool = False) -> str:
    """Several conclusions' verdicts in a few words: "1 certified, 2 confirmed" (best first; short: "1 cert +
    2 conf" for a narrow column), or "" for a claim of one conclusion."""
    if len(verdicts) <= 1:
        return ""
    counts = Counter(verdicts)
    if len(counts) == 1:
        return f"{len(verdicts)} conclusions" if not short else f"{len(verdicts)} parts"
    if short:
        return " + ".join(f"{counts[v]} {v.value[:4]}" for v in reversed(VERDICT_ORDER) if counts[v])
    return ", ".join(f"{counts[v]} {v.value}" for v in reversed(VERDICT_ORDER) if counts[v])


def _with_breakdown(verdict: Verdict, verdicts: Sequence[Verdict]) -> str:
    detail = _breakdown(verdicts)
    return f"{verdict.value} ({detail})" if detail else verdict.value


@contextlib.contextmanager
def _stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """While active, whatever is written to stdout (Python or C code, e.g. a solver's banner) goes to stderr,
    so that stdout can carry one JSON document afterwards."""
    if not active:
        yield
        return
    sys.stdout.flush()
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no usable file descriptors (an embedded interpreter): Python-level redirection only
        with contextlib.redirect_stdout(sys.stderr):
            yield
        return
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


# -- list ---------------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    claims = summaries(args.paper)
    if args.json:
        print(json.dumps([c.to_summary() for c in claims], indent=1))
        return EXIT_OK
    if args.markdown:
        run = ResultStore(args.store).latest()
        if run is not None:
            print(markdown_summary(run) + "\n")
        print(markdown_table(claims, run))
        return EXIT_OK
    table = Table(title=_plural(len(claims), "claim"), show_lines=False)
    table.add_column("id", no_wrap=True)  # ids are copied into commands: never split, never cut
    table.add_column("ref", overflow="fold")
    table.add_column("kind", overflow="fold")
    table.add_column("expected", no_wrap=True)
    table.add_column("title", overflow="fold", ratio=1)
    for c in claims:
        expected = _verdict_text(c.expected)
        detail = _breakdown(list(c.conclusions.values()), short=True)
        table.add_row(escape(c.id), escape(c.ref), c.kind, expected + (f"\n[dim]{detail}[/]" if detail else ""),
                      escape(prose_plain(c.title)))
    _console().print(table)
    return EXIT_OK


def markdown_summary(run: RunResults) -> str:
    """Per paper, how many claims got each verdict (a confirmed claim with some certified conclusions counts as
    partly certified), how many missed their expected verdict, and the certified conclusions."""
    columns = ("certified (every conclusion)", "partly certified", "confirmed", "refuted", "contradicted", "assumed",
               "other", "not as expected", "claims", "conclusions certified")

    def counts(results: Sequence[Any]) -> list[str]:
        tally = dict.fromkeys(columns[:8], 0)
        for r in results:
            partly = r.verdict is Verdict.CONFIRMED and any(k.verdict is Verdict.CERTIFIED for k in r.conclusions)
            column = {Verdict.CERTIFIED: columns[0], Verdict.CONFIRMED: columns[1] if partly else columns[2],
                      Verdict.REFUTED: columns[3], Verdict.CONTRADICTED: columns[4],
                      Verdict.ASSUMED: columns[5]}.get(r.verdict, columns[6])
            tally[column] += 1
            tally[columns[7]] += not r.ok
        conclusions = [k for r in results for k in r.conclusions]
        certified = sum(k.verdict is Verdict.CERTIFIED for k in conclusions)
        return [str(v) for v in tally.values()] + [str(len(results)), f"{certified} / {len(conclusions)}"]

    papers = list(dict.fromkeys(paper_key(r.id) for r in run.results))
    lines = ["| paper | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += [f"| `{paper}` | " + " | ".join(counts([r for r in run.results if r.id.split('.', 1)[0] == paper]))
              + " |" for paper in papers]
    lines.append("| all | " + " | ".join(counts(run.results)) + " |")
    return "\n".join(lines)


def markdown_table(claims: Sequence[Claim | ClaimSummary], run: RunResults | None) -> str:
    """The claims as a Markdown table, with the verdict and time of ``run`` where it has the claim."""
    results = {r.id: r for r in run.results} if run else {}
    source = f" ({run.provenance['profile']} profile, seed {run.provenance['seed']})" if run else ""
    lines = [f"| id | reference | title | expected | verdict{source} | s |", "|---|---|---|---|---|---|"]
    for c in claims:
        r = results.get(c.id)
        verdict = "not run"
        if r:
            verdict = _with_breakdown(r.verdict, [k.verdict for k in r.conclusions])
            verdict = verdict if r.ok else f"**{verdict}**"
        seconds = f"{r.seconds:.1f}" if r else ""
        title = c.title.replace("|", "\\|")
        expected = _with_breakdown(c.expected, list(c.conclusions.values()))
        lines.append(f"| `{c.id}` | {c.ref} | {title} | {expected} | {verdict} | {seconds} |")
    return "\n".join(lines)


# -- run ----------------------------------------------------------------------------------------------
def summary_table(run: RunResults) -> Table:
    """One row per claim; a claim of several conclusions gets a row per conclusion below its own."""
    table = Table(title=f"profile {run.provenance['profile']}, seed {run.provenance['seed']}")
    table.add_column("id", overflow="fold")
    for column in ("verdict", "expected", "seconds"):
        table.add_column(column, no_wrap=True)
    table.add_column("note", overflow="fold")
    for r in run.results:
        off = [k for k in r.conclusions if not k.ok]
        note = "" if r.ok else "; ".join(prose_plain(k.reason) for k in off) or "verdict differs"
        table.add_row(escape(r.id), _verdict_text(r.verdict), r.expected.value, f"{r.seconds:.2f}", escape(note))
        if len(r.conclusions) > 1:
            for k in r.conclusions:
                expected = k.expected.value if k.ok else f"[red]{k.expected.value}[/]"
                table.add_row(f"[dim]  └ {escape(prose_plain(k.name))}[/]", _verdict_text(k.verdict), expected,
                              "", "")
    return table


def _check_device(device: str | None, profile: str | None = None) -> None:
    """``--device cuda`` needs a GPU (for the CUDA kernel or torch); ``--profile gpu`` needs the CUDA kernel on a GPU,
    unless ``--device cpu`` asks for its sample sizes on the CPU."""
    if device != "cuda" and (profile != Profile.GPU.value or device == "cpu"):
        return
    from numerics.cuda_descent import availability  # imported late: the engines are not needed for other commands
    from numerics.descent import default_device

    if device == "cuda" and not availability().ok and default_device() != "cuda":
        raise UsageError("--device cuda: no CUDA device is available")
    if profile == Profile.GPU.value and device != "cpu" and not availability().gpu:
        raise UsageError(f"--profile gpu needs a GPU for the descent kernel ({availability().detail}); "
                         "add --device cpu to run its sample sizes on the CPU anyway")


def _selection(claims: Sequence[Claim | ClaimRef], args: argparse.Namespace) -> dict[str, object]:
    """What a run covers, kept in its provenance: the report names itself and says so on page 1."""
    return {"claims": len(claims), "registered": registered_count(), "paper": args.paper, "ids": list(args.ids)}


def cmd_run(args: argparse.Namespace) -> int:
    # a pool's workers import the claims; this process then needs only their ids and modules (from the index)
    claims = (select_for_pool(args.ids, args.paper) if args.jobs > 1 else None) or select(args.ids, args.paper)
    if not claims:
        raise UsageError("no claim matches the selection")
    _check_device(args.device, args.profile)
    after_each = None
    if args.report:  # draw the report's plots in the workers, beside the claims (imported late: matplotlib)
        from reports.figures import draw_ahead as after_each
    to_stdout = args.json == "-"
    console = _console(stderr=True)
    with _stdout_to_stderr(to_stdout), \
            Progress(TextColumn("[bold]verify run"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     TextColumn("{task.description}"), console=console, transient=True,
                     disable=not console.is_terminal) as progress:
        seeds = seed_range(args.seed, args.seeds)
        total = len(claims) * len(seeds)
        task = progress.add_task("", total=total)
        done = [0]

        def advance(result: ClaimResult, seed: int) -> None:
            done[0] += 1
            where = f" (seed {seed})" if len(seeds) > 1 else ""
            progress.update(task, advance=1, description=f"{result.id}{where}: {result.verdict.value}")
            if not console.is_terminal:  # a log or a pipe: one line per finished claim instead of a bar
                console.print(f"[{done[0]}/{total}] {escape(result.id)}{where}: {result.verdict.value} "
                              f"({result.seconds:.1f} s)", soft_wrap=True)

        runs = run_seeds(claims, Profile(args.profile), seeds, args.jobs, on_result=advance,
                         scheduler=args.scheduler, device=args.device, after_each=after_each)
        run = runs[seeds[0]]
        store = ResultStore(args.store)
        misses = seed_misses(runs)
        for each in runs.values():
            each.provenance["selection"] = _selection(claims, args)
            if len(seeds) > 1:
                each.provenance["seed_misses"] = {k: [s for s, _ in v] for k, v in misses.items()}
            store.save(each)
        output = run.to_json() if len(seeds) == 1 else _seeds_json(runs)
        if args.json and not to_stdout:
            _write_json(args.json, output)
        human = _console(stderr=to_stdout)
        if len(seeds) == 1:
            human.print(summary_table(run))
        else:
            human.print(seeds_table(runs))
        if args.report:
            _write_report(run, args.report, human)
        missed = sum(len(v) for v in misses.values())
        if len(seeds) == 1:
            human.print(f"{_plural(len(run.results), 'claim')} in {run.provenance['wall_seconds']:.1f} s; "
                        f"{len(run.results) - missed} as expected, {missed} not.")
        else:
            human.print(f"{_plural(len(claims), 'claim')} × {len(seeds)} seeds ({seeds[0]}–{seeds[-1]}) in "
                        f"{run.provenance['wall_seconds']:.1f} s; {len(claims) - len(misses)} as expected at every "
                        f"seed, {len(misses)} missed at some seed ({missed} claim-seed pairs).", soft_wrap=True)
    if to_stdout:
        _write_json("-", output)
    return EXIT_OK if not misses else EXIT_MISMATCH


def _seeds_json(runs: dict[int, RunResults]) -> dict[str, object]:
    """A multi-seed run: every seed's run, and the (seed, verdict) pairs that missed, by claim."""
    return {"seeds": list(runs), "misses": {k: [{"seed": s, "verdict": v} for s, v in pairs]
                                            for k, pairs in seed_misses(runs).items()},
            "runs": [run.to_json() for run in runs.values()]}


def seeds_table(runs: dict[int, RunResults]) -> Table:
    """One row per claim: its verdicts over the seeds and the seeds at which it missed its expected verdict."""
    seeds = list(runs)
    table = Table(title=f"profile {runs[seeds[0]].provenance['profile']}, seeds {seeds[0]}–{seeds[-1]}")
    table.add_column("id", overflow="fold")
    for column in ("verdicts", "expected", "max seconds"):
        table.add_column(column, no_wrap=True)
    table.add_column("missed at seeds", overflow="fold")
    for index, first in enumerate(runs[seeds[0]].results):
        results = [runs[seed].results[index] for seed in seeds]
        counts: dict[str, int] = {}
        for r in results:
            counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
        verdicts = ", ".join(f"{v} ×{n}" for v, n in counts.items())
        missed = ", ".join(f"{seed} ({r.verdict.value})" for seed, r in zip(seeds, results) if not r.ok)
        table.add_row(escape(first.id), verdicts, first.expected.value, f"{max(r.seconds for r in results):.2f}",
                      escape(missed))
    return table


def _write_json(target: str, data: object) -> None:
    text = json.dumps(data, indent=1)
    if target == "-":
        print(text)
        return
    try:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(text)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from None


# -- show ---------------------------------------------------------------------------------------------
def _figures_text(figures: dict) -> str:
    return ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items())


def cmd_show(args: argparse.Namespace) -> int:
    c = get(args.id)
    stored = ResultStore(args.store).latest_result(c.id)
    if args.json:
        data = c.to_json()
        data["latest"] = None if stored is None else {"provenance": stored[1], **stored[0].to_json()}
        print(json.dumps(data, indent=1))
        return EXIT_OK
    console = _console()
    # every text is escaped: "[0, 1]" or "max_ratio[0.5]" are text, not rich markup; statements, hypotheses
    # and notes are typst markup, shown in a plain-text reading
    console.print(f"[bold]{escape(c.id)}[/]  {escape(c.ref)} ({c.kind}): {escape(prose_plain(c.title))}",
                  soft_wrap=True)
    console.print(f"statement: {escape(plain_text(c.statement))}", soft_wrap=True)
    for h in c.hypotheses:
        console.print(f"  hypothesis: {escape(plain_text(h))}", soft_wrap=True)
    for note in c.notes:
        console.print(f"  note: {escape(plain_text(note))}", soft_wrap=True)
    console.print("profiles: " + escape("; ".join(f"{k}: {v}" for k, v in c.profiles.items())), soft_wrap=True)
    console.print(f"expected verdict: {_verdict_text(c.expected)}")
    for name, verdict in c.conclusions.items():
        console.print(f"  conclusion: {escape(prose_plain(name))} (expected {verdict.value})", soft_wrap=True)
    if c.erratum:
        console.print(f"erratum: {c.erratum}")
    for link, text in ((c.corrected_by, "corrected by"), (c.corrects, "corrects")):
        if link:
            console.print(f"{text}: {escape(link)}")
    if stored is None:
        console.print(f"no stored run of this claim yet (run `verify run {escape(c.id)}`)", soft_wrap=True)
        return EXIT_OK
    result, prov = stored
    console.print(f"latest run {prov['started']} ({prov['profile']}, seed {prov['seed']}): "
                  f"{_verdict_text(result.verdict)} in {result.seconds:.2f} s")
    labels = evidence_labels([e.role.value for e in result.evidence])
    if result.conclusions:
        table = Table(title="conclusions")
        table.add_column("conclusion", overflow="fold")
        for column in ("verdict", "expected", "rigorous"):
            table.add_column(column, no_wrap=True)
        table.add_column("reason", overflow="fold")
        table.add_column("evidence", overflow="fold")
        for k in result.conclusions:
            expected = k.expected.value if k.ok else f"[red]{k.expected.value}[/]"
            table.add_row(escape(prose_plain(k.name)), _verdict_text(k.verdict), expected,
                          "yes" if k.rigorous else "no", escape(prose_plain(k.reason)),
                          ", ".join(labels[i] for i in k.evidence if i < len(labels)))
        console.print(table)
    table = Table(title="evidence")
    table.add_column("#", no_wrap=True)
    for column in ("evidence", "role", "outcome", "detail", "figures"):
        table.add_column(column, overflow="fold")
    for label, e in zip(labels, result.evidence):
        detail = prose_plain(e.detail)
        if e.criterion:
            arguments = ", ".join(f"{k} = {v}" for k, v in e.arguments.items())
            detail += f" [criterion: {prose_plain(e.criterion)}({arguments})]"
        if e.perturbs is not None and e.perturbs < len(labels):
            detail = f"same check as {labels[e.perturbs]}, perturbed: {prose_plain(e.change)}. " + detail
        table.add_row(label, escape(prose_plain(e.name)), f"{e.kind.value} {e.role.value}", _outcome(e),
                      escape(detail.strip()), escape(_figures_text(e.figures)))
    console.print(table)
    bounds = [(label, t) for label, e in zip(labels, result.evidence) for t in e.tightness]
    if bounds:
        table = Table(title="tightness of the checked bounds (ratio ≤ 1: holds; 1: attained)")
        table.add_column("#", no_wrap=True)
        table.add_column("bound", overflow="fold")
        for column in ("instances", "tightest ratio", "loosest ratio"):
            table.add_column(column, justify="right", no_wrap=True)
        for label, t in bounds:
            table.add_row(label, escape(prose_plain(t.bound)) + ("" if t.sense == "upper" else " (lower bound)"),
                          str(t.instances), f"{t.tightest:.6g}", f"{t.loosest:.6g}")
        console.print(table)
    return EXIT_OK


def _outcome(e: Evidence) -> str:
    """The item's outcome in words, red where it keeps its conclusion from the verdict it aims at."""
    if e.role.value == "error":
        return "[red]error[/]"
    if e.undecided:
        return "[red]undecided[/]"
    if e.role.value == "counterexample":
        return "[magenta]found[/]" if e.passed else "[red]not reproduced[/]"
    if e.role.value == "control":
        return "rejected" if e.passed else "[red]not rejected[/]"
    return "holds" if e.passed else "[red]fails[/]"


# -- report -------------------------------------------------------------------------------------------
def default_report_path(run: RunResults) -> Path:
    """Where ``verify report`` writes without ``-o``: named after what the run holds, so that the report of
    one claim never replaces the report of the whole suite.

    ``out/report.pdf`` for a run of every registered claim (and for runs that do not record their selection),
    ``out/report-<paper>.pdf`` for one paper's claims, ``out/report-<id>.pdf`` for one claim and
    ``out/report-<n>-claims.pdf`` otherwise; a profile other than quick is added: ``out/report-full.pdf``.
    """
    selection = run.provenance.get("selection") or {}
    parts = []
    profile = str(run.provenance.get("profile", "quick"))
    if profile != Profile.QUICK.value:
        parts.append(profile)
    claims, registered = selection.get("claims"), selection.get("registered")
    if isinstance(claims, int) and isinstance(registered, int) and claims < registered:
        papers = {paper_key(r.id) for r in run.results}
        if len(run.results) == 1:
            parts.append(run.results[0].id)
        elif selection.get("paper") or (len(papers) == 1 and not selection.get("ids")):
            parts.append(str(selection.get("paper") or papers.pop()))
        else:
            parts.append(f"{len(run.results)}-claims")
    name = "-".join(["report", *parts]) + ".pdf"
    return DEFAULT_REPORT.parent / name


def cmd_report(args: argparse.Namespace) -> int:
    from reports.render import ReportError, read_results  # typst and matplotlib load only for reports

    if args.source is None:
        store = ResultStore(args.store)
        if not store.latest_path.exists():
            raise UsageError(f"no stored run in {store.root} (run `verify run` first, or pass --from RESULTS.json)")
        source = store.latest_path
    else:
        source = Path(args.source)
    try:
        run = read_results(source)
    except ReportError as exc:
        raise UsageError(str(exc)) from None
    _write_report(run, args.output or str(default_report_path(run)))
    return EXIT_OK


def _write_report(run: RunResults, target: str, console: Console | None = None) -> None:
    from reports.render import ReportError, render_report

    try:
        report = render_report(run, Path(target))
    except ReportError as exc:
        raise UsageError(str(exc)) from None
    selection = run.provenance.get("selection") or {}
    part = ""
    if isinstance(selection.get("registered"), int) and len(run.results) < selection["registered"]:
        part = f" of {selection['registered']} registered"
    (console or _console()).print(f"report: {report.path} ({_plural(report.pages, 'page')}, "
                                  f"{_plural(len(run.results), 'claim')}{part}, {report.seconds:.1f} s)",
                                  soft_wrap=True)
    for problem in report.unrendered:
        _console(stderr=True).print(f"verify: warning: shown as source, not valid typst markup: {escape(problem)}",
                                    soft_wrap=True)


# -- check --------------------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    from verify.checker import check_construction  # sympy, cvxpy and the engines load only for checks
    from verify.construction import ConstructionError

    try:
        with _stdout_to_stderr(args.json):  # solvers may print banners from C code: never into the JSON
            report = check_construction(args.file)
    except ConstructionError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(report.to_json(), indent=1))
        return EXIT_OK if report.ok else EXIT_MISMATCH
    arithmetic = "exact" if report.exact else "floating-point"
    table = Table(title=f"{report.title}: {report.architecture}, {report.loss} loss, {arithmetic} input")
    for column in ("property", "verdict", "expected", "evidence"):
        table.add_column(column, no_wrap=True)
    table.add_column("detail", overflow="fold")
    for r in report.results:
        expected = r.expected if r.ok else f"[red]{r.expected}[/]"
        table.add_row(escape(r.name), _verdict_text(r.verdict), expected, r.evidence.value, escape(r.detail))
    console = _console()
    console.print(table)
    for r in report.results:  # the figures behind each detail, one line per property
        figures = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.figures.items())
        console.print(f"[dim]{escape(f'{r.where} {r.name}: {figures or chr(45)}')} ({r.seconds:.2f} s)[/]",
                      soft_wrap=True)
    mismatched = sum(not r.ok for r in report.results)
    console.print(f"{len(report.results)} properties in {report.seconds:.1f} s; "
                  f"{len(report.results) - mismatched} as expected, {mismatched} not.")
    return EXIT_OK if report.ok else EXIT_MISMATCH


# -- bench --------------------------------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace) -> int:
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        raise UsageError(f"unknown benchmark {unknown[0]!r} (choose from {', '.join(BENCHMARKS)})")
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    _check_device(args.device)
    progress = _console(stderr=True)
    to_stdout = args.json == "-"
    with _stdout_to_stderr(to_stdout):
        report = run_benchmarks(args.names or list(BENCHMARKS), args.size, args.repeat, args.device,
                                on_result=lambda r: progress.print(f"{r.name} done", soft_wrap=True))
        if args.json and not to_stdout:
            _write_json(args.json, report)
        console = _console(stderr=to_stdout)
        if not console.is_terminal:  # a file or a pipe: one line per benchmark rather than 80 folded columns
            console.width = 200
        console.print(bench_table(report))
        for line in statistics_lines(report):
            console.print(f"[dim]{escape(line)}[/]", soft_wrap=True)
    if to_stdout:
        _write_json("-", report)
    return EXIT_OK


# -- wiring -------------------------------------------------------------------------------------------
DEVICES = ("auto", "cpu", "cuda")
DEVICE_HELP = ("where the descent engines run (default auto: the compiled kernel on the CPU, or on a GPU where one is "
               "present and faster for the workload; torch on CUDA when available for networks the kernel does not "
               "cover)")


class _Once(argparse.Action):
    """An option that may be given once: a second value is an error, not silently the winner."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) not in (None, self.default):
            raise UsageError(f"argument {option_string}: given twice")
        setattr(namespace, self.dest, values)


STORE_HELP = "result store folder (default .verify or $IBVERIFY_STORE)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify", description="Certify, claim by claim, the installed papers on implicit bias.")
    parser.add_argument("--store", default=None, help=STORE_HELP)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("list", help="list registered claims")
    p.add_argument("--paper", choices=sorted(PAPERS), action=_Once, help="only this paper's claims")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table with the latest stored verdicts")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", help="run claims and store the results")
    p.add_argument("ids", nargs="*", help="claim ids (default: all)")
    p.add_argument("--paper", choices=sorted(PAPERS), action=_Once)
    p.add_argument("--profile", choices=[x.value for x in Profile], default=Profile.QUICK.value)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the run's seed (the first one with --seeds)")
    p.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="run every claim at N seeds (--seed, --seed + 1, ...) and report the seeds that missed")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the claims' sweeps on this Dask scheduler "
                                                          "(e.g. tcp://host:8786; default: local processes)")
    p.add_argument("--device", choices=DEVICES, default="auto", help=DEVICE_HELP)
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON ('-' for stdout)")
    p.add_argument("--report", metavar="FILE.pdf", help="also render the PDF report of this run")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("show", help="statement, hypotheses and latest evidence of a claim")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("check", help="certify or reject a construction file (.toml or .json)")
    p.add_argument("file", help="construction file; format in docs/constructions.md")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("report", help="render the PDF report of the latest stored run or of a results file",
                       description="Render the PDF report of the latest stored run (or of --from RESULTS.json). "
                                   "Without -o the file is named after what the run holds: out/report.pdf for "
                                   "every registered claim, out/report-PAPER.pdf for one paper, "
                                   "out/report-ID.pdf for one claim, out/report-N-claims.pdf otherwise (and "
                                   "report-full..., report-paper... for those profiles), so that a small run "
                                   "never replaces the report of the whole suite; page 1 says what a partial "
                                   "run covers.")
    p.add_argument("-o", "--output", metavar="FILE.pdf", default=None,
                   help="write here (default: named after the run's contents, see above)")
    p.add_argument("--from", dest="source", metavar="RESULTS.json", help="results file (default: latest stored run)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("bench", help="time ibverify's engines against plain baselines")
    p.add_argument("names", nargs="*", metavar="NAME", help=f"{', '.join(BENCHMARKS)} (default: all); "
                                                           "`verify bench teeth` is mutation testing (see its --help)")
    p.add_argument("--size", choices=SIZES, default="reduced",
                   help="tiny (CI), reduced (default) or paper (the papers' full protocols)")
    p.add_argument("--repeat", type=int, default=1, help="time each side this many times and keep the minimum")
    p.add_argument("--device", choices=DEVICES, default="auto", help=DEVICE_HELP)
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON ('-' for stdout)")
    p.set_defaults(func=cmd_bench)
    for command in sub.choices.values():  # --store is accepted after the subcommand too
        command.add_argument("--store", default=argparse.SUPPRESS, help=STORE_HELP)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    claim_process_settings()  # before anything imports sympy
    previous_index = os.environ.get(INDEX_VARIABLE)
    try:
        return _main(argv)
    finally:  # a caller in the same process (a test, a notebook) keeps the claim index it had
        use_index(None if previous_index is None else Path(previous_index))


def _main(argv: Sequence[str] | None) -> int:
    try:
        from verify.mutation_cli import teeth_arguments  # `verify bench teeth`: mutation runs, options of their own

        teeth = teeth_arguments(sys.argv[1:] if argv is None else list(argv))
        if teeth is not None:
            from verify.mutation_cli import cmd_teeth

            return cmd_teeth(*teeth)
        args = build_parser().parse_args(argv)
        if getattr(args, "jobs", 1) < 1:
            raise UsageError("--jobs must be at least 1")
        if getattr(args, "seeds", 1) < 1:
            raise UsageError("--seeds must be at least 1")
        # claims are looked up through the index cached in the store: listing imports no claim module, and a
        # run imports only the modules of the claims it runs
        use_index(ResultStore(getattr(args, "store", None)).root / "claim-index.json")
        return args.func(args)
    except (UsageError, UnknownClaimError) as exc:
        print(f"verify: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("verify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        if os.environ.get("IBVERIFY_DEBUG"):
            raise
        print(f"verify: internal error: {type(exc).__name__}: {exc} (set IBVERIFY_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
