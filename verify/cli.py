"""The ``verify`` command line: list, run and show claims, render the PDF report, and time the engines.

Bad input (unknown id or paper, unreadable file) gives one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from verify.bench import BENCHMARKS, SIZES, bench_table, run_benchmarks, statistics_lines
from verify.claim import PAPERS, Claim, Profile, Verdict
from verify.registry import UnknownClaimError, get, select
from verify.runner import DEFAULT_SEED, ClaimResult, RunResults, run_claims
from verify.store import ResultStore

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2

VERDICT_STYLE = {
    Verdict.CERTIFIED: "bold green", Verdict.CONFIRMED: "green", Verdict.REFUTED: "bold magenta",
    Verdict.INCONCLUSIVE: "yellow", Verdict.ASSUMED: "cyan", Verdict.TOOTHLESS: "bold red",
}


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def _verdict_text(verdict: Verdict) -> str:
    return f"[{VERDICT_STYLE[verdict]}]{verdict.value}[/]"


# -- list ---------------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    claims = select(paper=args.paper)
    if args.json:
        print(json.dumps([c.to_summary() for c in claims], indent=1))
        return EXIT_OK
    if args.markdown:
        print(markdown_table(claims, ResultStore(args.store).latest()))
        return EXIT_OK
    table = Table(title=f"{len(claims)} claims", show_lines=False)
    for column in ("id", "ref", "kind", "expected", "title"):
        table.add_column(column, overflow="fold")
    for c in claims:
        table.add_row(c.id, c.ref, c.kind, _verdict_text(c.expected), c.title)
    _console().print(table)
    return EXIT_OK


def markdown_table(claims: Sequence[Claim], run: RunResults | None) -> str:
    """The claims as a Markdown table, with the verdict and time of ``run`` where it has the claim."""
    results = {r.id: r for r in run.results} if run else {}
    source = f" ({run.provenance['profile']} profile, seed {run.provenance['seed']})" if run else ""
    lines = [f"| id | reference | title | expected | verdict{source} | s |", "|---|---|---|---|---|---|"]
    for c in claims:
        r = results.get(c.id)
        verdict = ("**" + r.verdict.value + "**" if not r.ok else r.verdict.value) if r else "not run"
        seconds = f"{r.seconds:.1f}" if r else ""
        title = c.title.replace("|", "\\|")
        lines.append(f"| `{c.id}` | {c.ref} | {title} | {c.expected.value} | {verdict} | {seconds} |")
    return "\n".join(lines)


# -- run ----------------------------------------------------------------------------------------------
def summary_table(run: RunResults) -> Table:
    table = Table(title=f"profile {run.provenance['profile']}, seed {run.provenance['seed']}")
    for column in ("id", "verdict", "expected", "seconds", "note"):
        table.add_column(column, overflow="fold")
    for r in run.results:
        failing = [e.name for e in r.evidence if not e.passed and e.role.value != "counterexample"]
        note = "" if r.ok else ("failing: " + ", ".join(failing) if failing else "verdict differs")
        table.add_row(r.id, _verdict_text(r.verdict), r.expected.value, f"{r.seconds:.2f}", note)
    return table


def _check_device(device: str | None) -> None:
    if device == "cuda":
        from numerics.descent import default_device  # imported late: the engines are not needed for other commands

        if default_device() != "cuda":
            raise UsageError("--device cuda: no CUDA device is available")


def cmd_run(args: argparse.Namespace) -> int:
    claims = select(args.ids, args.paper)
    if not claims:
        raise UsageError("no claim matches the selection")
    _check_device(args.device)
    after_each = None
    if args.report:  # draw the report's plots in the workers, beside the claims (imported late: matplotlib)
        from reports.figures import draw_ahead as after_each
    console = _console(stderr=True)
    with Progress(TextColumn("[bold]verify run"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("", total=len(claims))

        def advance(result: ClaimResult) -> None:
            progress.update(task, advance=1, description=f"{result.id}: {result.verdict.value}")

        run = run_claims(claims, Profile(args.profile), args.seed, args.jobs, on_result=advance,
                         scheduler=args.scheduler, device=args.device,
                         after_each=after_each)
    ResultStore(args.store).save(run)
    if args.json:
        _write_json(args.json, run.to_json())
    _console().print(summary_table(run))
    if args.report:
        _write_report(run, args.report)
    mismatched = sum(not r.ok for r in run.results)
    _console().print(f"{len(run.results)} claims in {run.provenance['wall_seconds']:.1f} s; "
                     f"{len(run.results) - mismatched} as expected, {mismatched} not.")
    return EXIT_OK if mismatched == 0 else EXIT_MISMATCH


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
def cmd_show(args: argparse.Namespace) -> int:
    c = get(args.id)
    stored = ResultStore(args.store).latest_result(c.id)
    if args.json:
        data = c.to_json()
        data["latest"] = None if stored is None else {"provenance": stored[1], **stored[0].to_json()}
        print(json.dumps(data, indent=1))
        return EXIT_OK
    console = _console()
    console.print(f"[bold]{c.id}[/]  {c.ref} ({c.kind}): {c.title}")
    console.print(f"statement: {c.statement}")
    for h in c.hypotheses:
        console.print(f"  hypothesis: {h}")
    for note in c.notes:
        console.print(f"  note: {note}")
    console.print("profiles: " + "; ".join(f"{k}: {v}" for k, v in c.profiles.items()))
    console.print(f"expected verdict: {c.expected.value}")
    if stored is None:
        console.print("no stored run of this claim yet (run `verify run " + c.id + "`)")
        return EXIT_OK
    result, prov = stored
    console.print(f"latest run {prov['started']} ({prov['profile']}, seed {prov['seed']}): "
                  f"{_verdict_text(result.verdict)} in {result.seconds:.2f} s")
    table = Table()
    for column in ("evidence", "kind", "role", "passed", "detail", "figures"):
        table.add_column(column, overflow="fold")
    for e in result.evidence:
        figures = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in e.figures.items())
        table.add_row(e.name, e.kind.value, e.role.value, "yes" if e.passed else "[red]no[/]", e.detail, figures)
    console.print(table)
    return EXIT_OK


# -- report -------------------------------------------------------------------------------------------
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
    _write_report(run, args.output)
    return EXIT_OK


def _write_report(run: RunResults, target: str) -> None:
    from reports.render import ReportError, render_report

    try:
        report = render_report(run, Path(target))
    except ReportError as exc:
        raise UsageError(str(exc)) from None
    _console().print(f"report: {report.path} ({report.pages} pages, {len(run.results)} claims, "
                     f"{report.seconds:.1f} s)", soft_wrap=True)
    for problem in report.unrendered:
        _console(stderr=True).print(f"verify: warning: shown as source, not valid typst markup: {problem}",
                                    soft_wrap=True)


# -- check --------------------------------------------------------------------------------------------
def cmd_check(args: argparse.Namespace) -> int:
    from verify.checker import check_construction  # sympy, cvxpy and the engines load only for checks
    from verify.construction import ConstructionError

    try:
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
        table.add_row(r.name, _verdict_text(r.verdict), expected, r.evidence.value, r.detail)
    console = _console()
    console.print(table)
    for r in report.results:  # the figures behind each detail, one line per property
        figures = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.figures.items())
        console.print(f"[dim]{r.where} {r.name}: {figures or '-'} ({r.seconds:.2f} s)[/]", soft_wrap=True)
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
    report = run_benchmarks(args.names or list(BENCHMARKS), args.size, args.repeat, args.device,
                            on_result=lambda r: progress.print(f"{r.name} done", soft_wrap=True))
    if args.json:
        _write_json(args.json, report)
    console = _console()
    if not console.is_terminal:  # a file or a pipe: one line per benchmark rather than 80 folded columns
        console.width = 200
    console.print(bench_table(report))
    for line in statistics_lines(report):
        console.print(f"[dim]{line}[/]", soft_wrap=True)
    return EXIT_OK


# -- wiring -------------------------------------------------------------------------------------------
DEVICES = ("cpu", "cuda")
DEVICE_HELP = "where the batched engines run (default: cuda when available, else cpu)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="verify", description="Certify the claims of four papers on implicit bias.")
    parser.add_argument("--store", default=None, help="result store folder (default .verify or $IBVERIFY_STORE)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("list", help="list registered claims")
    p.add_argument("--paper", choices=sorted(PAPERS), help="only this paper's claims")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table with the latest stored verdicts")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("run", help="run claims and store the results")
    p.add_argument("ids", nargs="*", help="claim ids (default: all)")
    p.add_argument("--paper", choices=sorted(PAPERS))
    p.add_argument("--profile", choices=[x.value for x in Profile], default=Profile.QUICK.value)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the claims' sweeps on this Dask scheduler "
                                                          "(e.g. tcp://host:8786; default: local processes)")
    p.add_argument("--device", choices=DEVICES, help=DEVICE_HELP)
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

    p = sub.add_parser("report", help="render the PDF report of the latest stored run or of a results file")
    p.add_argument("-o", "--output", metavar="FILE.pdf", default="out/report.pdf", help="default out/report.pdf")
    p.add_argument("--from", dest="source", metavar="RESULTS.json", help="results file (default: latest stored run)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("bench", help="time ibverify's engines against plain baselines")
    p.add_argument("names", nargs="*", metavar="NAME", help=f"{', '.join(BENCHMARKS)} (default: all)")
    p.add_argument("--size", choices=SIZES, default="reduced",
                   help="tiny (CI), reduced (default) or paper (the papers' full protocols)")
    p.add_argument("--repeat", type=int, default=1, help="time each side this many times and keep the minimum")
    p.add_argument("--device", choices=DEVICES, help=DEVICE_HELP)
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON ('-' for stdout)")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "jobs", 1) < 1:
            raise UsageError("--jobs must be at least 1")
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
