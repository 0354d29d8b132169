"""``verify bench teeth``: the command line of the mutation runs (:mod:`verify.mutation`).

Same conventions as the rest of ``verify``: bad input is one line on stderr and exit status 2; ``--json -``
prints exactly one JSON document on stdout (the table, the progress lines and whatever the tools print go to
stderr); progress is one line per judged mutant on stderr. Exit status 1 when ``--min-score`` is given and the
score is below it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from verify.cli import EXIT_MISMATCH, EXIT_OK, UsageError, _console, _Parser, _stdout_to_stderr, _write_json


def teeth_arguments(argv: Sequence[str]) -> tuple[list[str], str | None] | None:
    """The arguments after ``bench teeth`` (and the global ``--store``), or None for any other command."""
    store, index = None, 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--store" and index + 1 < len(argv):
            store, index = argv[index + 1], index + 2
        elif arg.startswith("--store="):
            store, index = arg.split("=", 1)[1], index + 1
        elif arg == "bench" and index + 1 < len(argv) and argv[index + 1] == "teeth":
            return list(argv[index + 2:]), store
        else:
            return None
    return None


def build_teeth_parser() -> argparse.ArgumentParser:
    from verify.mutation import DEFAULT_EXCLUDE, DEFAULT_OPERATORS, DEFAULT_PATHS, DEFAULT_TESTS, GROUPS

    p = _Parser(prog="verify bench teeth",
                description="Mutation testing with cosmic-ray: mutate the engines (numerics/) and the claim modules "
                            "(theorems/), run for each mutant only the tests and claims that execute the mutated "
                            "line (coverage-guided), and report the score per module and the survivors. "
                            "See docs/mutation.md.")
    p.add_argument("--paths", nargs="+", metavar="PATH", default=list(DEFAULT_PATHS),
                   help="files or folders to mutate, relative to --root (default: numerics theorems)")
    p.add_argument("--modules", nargs="+", metavar="GLOB", default=[],
                   help="only these modules: globs on the path or the dotted name (numerics.kkt, 'theorems/rank*')")
    p.add_argument("--exclude", nargs="*", metavar="GLOB", default=list(DEFAULT_EXCLUDE),
                   help="paths left out (default: the papers' __init__.py files)")
    p.add_argument("--operators", nargs="+", metavar="OP", default=list(DEFAULT_OPERATORS),
                   help=f"groups ({', '.join(GROUPS)}) or cosmic-ray operator names, globs allowed "
                        f"(default: {' '.join(DEFAULT_OPERATORS)})")
    p.add_argument("--tests", nargs="+", metavar="ARG", default=list(DEFAULT_TESTS),
                   help="what the baseline runs (pytest paths or node ids; default: tests, which includes every "
                        "claim)")
    p.add_argument("--jobs", type=int, default=1, help="local workers, each with its own copy of the tree")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the mutants on this Dask scheduler "
                                                          "(e.g. tcp://host:8786; default: local workers)")
    p.add_argument("--sample", type=int, metavar="K", help="judge K mutants drawn at random (with --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of --sample")
    p.add_argument("--timeout-factor", type=float, default=3.0,
                   help="a mutant's tests may take this many times their baseline time (+ --timeout-base)")
    p.add_argument("--timeout-base", type=float, default=30.0, metavar="SECONDS")
    p.add_argument("--equivalent", metavar="FILE.toml",
                   help="equivalent mutants and their reasons (default: mutation/equivalent.toml when present)")
    p.add_argument("--session", metavar="DIR", help="session folder: snapshot, coverage, cosmic-ray's session.sqlite "
                                                    "(default: STORE/teeth)")
    p.add_argument("--resume", action="store_true", help="continue the session in --session: judge only the mutants "
                                                         "it has not judged yet")
    p.add_argument("--report-only", action="store_true",
                   help="report the session in --session as it stands (also while it runs), judging nothing: the "
                        "mutants it has not judged count as not run; its own options are used")
    p.add_argument("--root", default=".", metavar="DIR", help="the project (default: the current folder)")
    p.add_argument("--no-preload", action="store_true",
                   help="workers import nothing ahead of the test runs (slower; for debugging)")
    p.add_argument("--dry-run", action="store_true", help="count the mutants per module and stop")
    p.add_argument("--every-position", action="store_true",
                   help="also mutate the positions left out by default (f-strings, ctx.pick's values for the "
                        "full, paper and gpu profiles): each would survive at the quick profile")
    p.add_argument("--json", metavar="FILE", help="also write the report as JSON ('-' for stdout)")
    p.add_argument("--survivors", action="store_true",
                   help="list the survivors with their lines (and an [[equivalent]] stub for each with --stubs)")
    p.add_argument("--stubs", action="store_true", help="with --survivors: print a TOML stub per survivor")
    p.add_argument("--min-score", type=float, metavar="X", help="exit status 1 when the score is below X")
    p.add_argument("--store", default=None, help="result store folder (default .verify or $IBVERIFY_STORE)")
    return p


def cmd_teeth(argv: Sequence[str], store: str | None = None) -> int:
    from verify.mutation import DEFAULT_PRELOAD, MutationError, Options, run_session

    args = build_teeth_parser().parse_args(list(argv))
    store = args.store or store or os.environ.get("IBVERIFY_STORE")
    root = Path(args.root)
    session = Path(args.session) if args.session else Path(store or root / ".verify") / "teeth"
    options = Options(root=root, paths=args.paths, modules=args.modules, exclude=args.exclude,
                      operators=args.operators, tests=args.tests, jobs=args.jobs, scheduler=args.scheduler,
                      sample=args.sample, seed=args.seed, timeout_factor=args.timeout_factor,
                      timeout_base=args.timeout_base, equivalent=Path(args.equivalent) if args.equivalent else None,
                      session=session, resume=args.resume, preload=() if args.no_preload else DEFAULT_PRELOAD,
                      dry_run=args.dry_run, every_position=args.every_position, report_only=args.report_only)
    to_stdout = args.json == "-"

    def log(line: str) -> None:
        print(f"verify bench teeth: {line}", file=sys.stderr, flush=True)

    with _stdout_to_stderr(to_stdout):
        try:
            report = run_session(options, log)
        except MutationError as exc:
            raise UsageError(str(exc)) from None
        except ImportError as exc:
            raise UsageError(f"{exc.name or exc}: not installed; mutation runs need the 'mutate' extra "
                             f"(pip install -e '.[mutate]')") from None
        if args.json and not to_stdout:
            _write_json(args.json, report)
        console = _console(stderr=to_stdout)
        if not console.is_terminal:
            console.width = 160
        console.print(teeth_table(report))
        for line in summary_lines(report):
            console.print(escape(line), soft_wrap=True)
        if report["equivalent"]:
            console.print(f"equivalent mutants ({len(report['equivalent'])}, left out of the score):")
            for entry in report["equivalent"]:
                console.print(f"  {escape(entry['id'])}: {escape(entry['reason'])}", soft_wrap=True)
        for entry in report["stale_equivalent"]:
            console.print(f"[yellow]listed as equivalent but {entry['outcome']}:[/] {escape(entry['id'])} "
                          f"({escape(entry['detail'])})", soft_wrap=True)
        if args.survivors:
            console.print(f"survivors ({len(report['survivors'])}):")
            for entry in report["survivors"]:
                for line in survivor_lines(entry, stub=args.stubs):
                    console.print(escape(line), soft_wrap=True, highlight=False)
            if report["shown"]:
                console.print(f"shown only by a claim's reported figures ({len(report['shown'])}):")
                for entry in report["shown"]:
                    for line in [*survivor_lines(entry), f"    → {entry['detail']}"]:
                        console.print(escape(line), soft_wrap=True, highlight=False)
    if to_stdout:
        _write_json("-", report)
    total = report["total"]["score"]
    if args.min_score is not None and total is not None and total < args.min_score:
        return EXIT_MISMATCH
    return EXIT_OK


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def teeth_table(report: dict[str, Any]) -> Table:
    title = f"mutation score ({report['tool']}; {len(report['operators'])} operators)"
    table = Table(title=title)
    table.add_column("module", overflow="fold")
    columns = ("mutants", "killed", "timeout", "shown", "survived", "no_coverage", "equivalent", "error", "not_run")
    for column in columns:
        table.add_column(column.replace("_", " "), justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("by tests", justify="right", no_wrap=True)
    for row in [*report["modules"], {"module": "total", **report["total"]}]:
        table.add_row(escape(row["module"]), *(str(row[c]) for c in columns), _percent(row["score"]),
                      _percent(row["score_tests"]))
    return table


def summary_lines(report: dict[str, Any]) -> list[str]:
    total, runs = report["total"], report["mutant_seconds"]
    lines = []
    if report["baseline"]:
        b = report["baseline"]
        lines.append(f"baseline: {b['tests']} passing tests and claims under coverage in {b['wall_seconds']:.0f} s"
                     + (f"; {len(b['failed'])} failing, not used: {', '.join(b['failed'][:5])}" if b["failed"] else ""))
    for reason, entry in report.get("left_out", {}).items():
        lines.append(f"left out ({reason}): {entry['mutants']} mutants, {entry['why']} (--every-position "
                     "mutates them too)")
    judged = total["mutants"] - total["not_run"]
    lines.append(f"{judged} of {total['mutants']} mutants judged in {report['wall_seconds']:.0f} s wall, "
                 f"{report['cpu_seconds']:.0f} s CPU ({runs['runs']} test runs, {runs['total']:.0f} s); "
                 f"score {_percent(total['score'])} ({_percent(total['score_tests'])} by failing tests and claims "
                 f"alone; {total['shown']} shown only by a claim's reported figures); load average "
                 f"{report['machine']['load_average_before']} → {report['machine']['load_average_after']}")
    return lines


def survivor_lines(entry: dict[str, Any], stub: bool = False) -> list[str]:
    where = f" in {entry['definition']}" if entry.get("definition") else ""
    tests = f", {entry['tests']} tests" if entry.get("tests") else ""
    lines = [f"  {entry['id']} [{entry['outcome']}{tests}]{where}"]
    lines += [f"    - {line}" for line in entry.get("original", "").splitlines()]
    lines += [f"    + {line}" for line in entry.get("mutated", "").splitlines()]
    if stub:
        from verify.mutation import survivor_stub

        lines += ["", *survivor_stub(entry).splitlines(), ""]
    return lines
