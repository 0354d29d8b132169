"""``verify bench teeth``: mutation testing of the engines and the claims, on cosmic-ray.

Do the tests and the claims have teeth? Each *mutant* is the source with one small change (a numeric literal
moved by ±1, a comparison or arithmetic operator replaced, a conjunct dropped from a condition); it is *killed*
when a test or claim that executes the changed line fails (or runs past its timeout), and *survives* otherwise.
The score of a module is killed / (killed + survived), survivors without a covering test included; mutants listed
as equivalent (no test could tell them apart from the original, with the reason) are left out and shown apart.

The pieces, in order:

1. **Snapshot.** The project's files (git's tracked and untracked-but-not-ignored files, or every file outside a
   git work tree) are copied into the session folder: the run sees the tree as it was when it started, however
   the working tree is edited meanwhile, and never writes into it.
2. **Mutants.** cosmic-ray's operators (``core/NumberReplacer``, ``core/ReplaceComparisonOperator_*``,
   ``core/ReplaceBinaryOperator_*``) and ibverify's ``ibverify/DropConjunct`` (:mod:`verify.mutation_operators`)
   enumerate the mutation positions of each target module, and cosmic-ray's ``MutationVisitor`` writes each
   mutant's source. The mutants are the work items of a cosmic-ray session database (``session.sqlite``: the
   results go there too, so that ``cr-report`` reads it).
3. **Baseline.** The tests (and the claims, which are pytest items) run once under coverage.py in the snapshot,
   with the context switched to each test's node id (:mod:`verify.mutation_coverage`): the map (file, line) →
   the tests that execute it, and each test's duration.
4. **Selection.** A mutant runs exactly the tests that execute its line(s) with ``-x``: first those that killed
   earlier mutants of the same function, then of the same file, then the rest, fastest first within each
   (:class:`KillHistory`; the order changes a run's cost, not its outcome). A line
   run only outside the tests (module level: constants, default arguments, decorators, at import) or inside a
   numba-compiled function (whose lines coverage cannot see) is credited to every test that executes the
   module. A mutant that no test reaches is a survivor, "no coverage", without running anything.
5. **Workers.** Each worker has its own copy of the snapshot and a test server (:mod:`verify.mutation_server`)
   that has imported the heavy libraries once and forks a pytest run per mutant: the mutant is written into the
   worker's copy, the selected tests run (reading the claim index the worker built once from the unmutated
   tree, instead of importing every paper to index them again; timeout: ``timeout_factor`` × (pytest's
   start-up + the tests' baseline time) + ``timeout_base``; past it the mutant counts as killed, "timeout"),
   and the original is put back.
   Workers are threads of this process driving their servers (``jobs`` of them: a local process pool), or tasks
   on a Dask cluster (``scheduler``), which receive the snapshot as an archive.

This module imports cosmic-ray and coverage.py lazily: they are the optional extra ``mutate``
(``pip install -e '.[mutate]'``). It never imports the claims (``theorems``).
"""

from __future__ import annotations

import ast
import atexit
import difflib
import fnmatch
import functools
import hashlib
import io
import json
import os
import platform
import random
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from verify.bench import cpu_seconds
from verify.registry import INDEX_FROZEN_VARIABLE, INDEX_VARIABLE
from verify.runner import FIGURES_VARIABLE

# -- operators ----------------------------------------------------------------------------------------------------
_ORDERED = ("Lt", "LtE", "Gt", "GtE")
COMPARISON_PAIRS = (("Lt", "LtE"), ("Lt", "GtE"), ("LtE", "Lt"), ("LtE", "Gt"), ("Gt", "GtE"), ("Gt", "LtE"),
                    ("GtE", "Gt"), ("GtE", "Lt"), ("Eq", "NotEq"), ("NotEq", "Eq"), ("Is", "IsNot"), ("IsNot", "Is"))
"""The comparison replacements of the ``comparison`` group: each ordering's boundary shift (< ↔ ≤) and negation
(< → ≥), and each equality's negation."""
ARITHMETIC_PAIRS = (("Add", "Sub"), ("Sub", "Add"), ("Mul", "Div"), ("Div", "Mul"), ("FloorDiv", "Div"),
                    ("Mod", "FloorDiv"), ("Pow", "Mul"))
"""The arithmetic replacements of the ``arithmetic`` group: one natural counterpart per operator."""

GROUPS: dict[str, tuple[str, ...]] = {
    "number": ("core/NumberReplacer",),
    "comparison": tuple(f"core/ReplaceComparisonOperator_{a}_{b}" for a, b in COMPARISON_PAIRS),
    "comparison-all": ("core/ReplaceComparisonOperator_*",),
    "arithmetic": tuple(f"core/ReplaceBinaryOperator_{a}_{b}" for a, b in ARITHMETIC_PAIRS),
    "arithmetic-all": ("core/ReplaceBinaryOperator_*",),
    "conjunct": ("ibverify/DropConjunct",),
}
DEFAULT_OPERATORS = ("number", "comparison", "arithmetic", "conjunct")
DEFAULT_PATHS = ("numerics", "theorems")
DEFAULT_EXCLUDE = ("theorems/__init__.py", "theorems/*/__init__.py")  # the papers' metadata, no claim code
DEFAULT_TESTS = ("tests",)  # the tests, and every claim: the ibverify plugin adds them to a run of a folder
DEFAULT_EQUIVALENT = Path("mutation") / "equivalent.toml"
# "1" in every test run of the tool (baseline and mutants): a test of the repository's own files rather than of
# the code (the equivalent list names lines a mutant changes) skips there instead of killing mutants
MUTANT_RUN_VARIABLE = "IBVERIFY_MUTANT_RUN"
DEFAULT_SESSION = Path(".verify") / "teeth"
DEFAULT_PRELOAD = ("numpy", "scipy", "scipy.optimize", "scipy.linalg", "scipy.integrate", "scipy.stats", "sympy",
                   "mpmath", "flint", "torch", "cvxpy", "clarabel", "osqp", "highspy", "numba", "sklearn",
                   "threadpoolctl", "matplotlib", "matplotlib.pyplot", "rich", "jsonschema", "hypothesis",
                   "pytest", "xdist", "pytest_timeout", "_pytest.pytester")
PRAGMA = "pragma: no mutate"

KILLED, TIMEOUT, SHOWN, SURVIVED, NO_COVERAGE, ERROR = ("killed", "timeout", "shown", "survived", "no coverage",
                                                         "error")
OUTCOMES = (KILLED, TIMEOUT, SHOWN, SURVIVED, NO_COVERAGE, ERROR)


class MutationError(Exception):
    """Bad input to a mutation run (unknown operator, path or file): one line for the user."""


def _providers() -> dict[str, Any]:
    import cosmic_ray.plugins

    from verify.mutation_operators import OperatorProvider

    providers = dict(cosmic_ray.plugins.OPERATOR_PROVIDERS)
    providers.setdefault("ibverify", OperatorProvider())  # the entry point is missing until `pip install -e .`
    return providers


def operator_names() -> list[str]:
    """Every operator cosmic-ray knows (its core ones, ibverify's), as ``provider/Name``."""
    return [f"{key}/{name}" for key, provider in _providers().items() for name in provider]


def operator_class(name: str) -> type:
    provider, _, short = name.partition("/")
    return _providers()[provider][short]


def resolve_operators(spec: Sequence[str]) -> list[str]:
    """Operator names from groups (``number``, ``comparison``, ...) and cosmic-ray names or globs, in order."""
    known = operator_names()
    chosen: list[str] = []
    for item in (part for entry in spec for part in entry.split(",") if part):
        patterns = GROUPS.get(item, (item,))
        matched = [name for pattern in patterns for name in known if fnmatch.fnmatchcase(name, pattern)]
        if not matched:
            raise MutationError(f"unknown operator {item!r} (groups: {', '.join(GROUPS)}; or a cosmic-ray operator "
                                f"name such as core/NumberReplacer, globs allowed)")
        chosen.extend(name for name in matched if name not in chosen)
    if not chosen:
        raise MutationError("no operator chosen")
    return chosen


# -- targets and mutants ------------------------------------------------------------------------------------------
def target_files(root: Path, paths: Sequence[str], modules: Sequence[str] = (),
                 exclude: Sequence[str] = DEFAULT_EXCLUDE) -> list[str]:
    """The Python files under ``paths`` (relative to ``root``), minus ``exclude`` globs, kept when they match one
    of ``modules`` (globs on the path or the dotted module name; all when empty)."""
    files: list[str] = []
    for entry in paths:
        path = (root / entry)
        if path.is_file() and path.suffix == ".py":
            found = [path]
        elif path.is_dir():
            found = sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
        else:
            raise MutationError(f"--paths {entry}: no such Python file or folder under {root}")
        for p in found:
            rel = p.relative_to(root).as_posix()
            if rel not in files and not any(fnmatch.fnmatchcase(rel, pattern) for pattern in exclude):
                files.append(rel)
    if modules:
        dotted = {rel: rel[:-3].replace("/", ".").removesuffix(".__init__") for rel in files}
        files = [rel for rel in files if any(fnmatch.fnmatchcase(rel, m) or fnmatch.fnmatchcase(dotted[rel], m)
                                             for m in modules)]
    if not files:
        raise MutationError("no Python file to mutate in the selection")
    return files


@dataclass(frozen=True)
class Mutant:
    """One mutation: cosmic-ray's ``occurrence``-th position of ``operator`` in the file at ``path``."""

    id: str  # path:line:column:Operator:variant (variant: the k-th mutation of the operator at that position)
    path: str
    operator: str
    occurrence: int
    start: tuple[int, int]
    end: tuple[int, int]
    definition: str | None = None  # the enclosing function or class

    @property
    def lines(self) -> range:
        return range(self.start[0], self.end[0] + 1)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Mutant:
        return Mutant(**{**data, "start": tuple(data["start"]), "end": tuple(data["end"])})


def enumerate_mutants(tree: Path, files: Sequence[str], operators: Sequence[str],
                     left_out: Counter[str] | None = None, every_position: bool = False) -> list[Mutant]:
    """Every mutant of ``operators`` in ``files`` (relative to ``tree``), in cosmic-ray's order; lines marked
    ``# pragma: no mutate`` are left alone, and so (unless ``every_position``) are the positions of
    :func:`left_out_reason`, counted by reason in ``left_out``."""
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.ast.ast_query import ASTQuery

    mutants = []
    for rel in files:
        source = (tree / rel).read_text(encoding="utf-8")
        lines = source.splitlines()
        nodes = list(ast_nodes(get_ast(source)))
        reason_of = functools.cache(left_out_reason)  # a node's ancestors walked once for all operators
        for name in operators:
            operator = operator_class(name)()
            short = name.partition("/")[2]
            seen: Counter[tuple] = Counter()
            occurrence = 0
            for node in nodes:
                for start, end in operator.mutation_positions(node):
                    variant = seen[(start, end)]
                    seen[(start, end)] += 1
                    line = lines[start[0] - 1] if start[0] <= len(lines) else ""
                    skipped = PRAGMA in line or _not_code(node, name)
                    why = None if skipped or every_position else reason_of(node)
                    if why is not None and left_out is not None:
                        left_out[why] += 1
                    elif why is None and not skipped:
                        mutants.append(Mutant(f"{rel}:{start[0]}:{start[1]}:{short}:{variant}", rel, name,
                                              occurrence, tuple(start), tuple(end),
                                              ASTQuery(node).get_definition_name()))
                    occurrence += 1
    return mutants


def _in_annotation(node: Any) -> bool:
    """Whether a node lies in a type annotation (never evaluated here: ``from __future__ import annotations``)."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type in ("param", "funcdef") and getattr(parent, "annotation", None) is child:
            return True
        if parent.type in ("annassign", "tfpdef") and parent.children[1].type == "operator" and \
                parent.children[1].value == ":" and len(parent.children) > 2 and parent.children[2] is child:
            return True
        if parent.type == "annassign" and parent.children[1] is child:
            return True
        child, parent = parent, parent.parent
    return False


PRESENTATION = "presentation"
OTHER_PROFILE = "other profile"
LEFT_OUT = {
    PRESENTATION: "inside an f-string: the text of a detail, a label or a name, never an input of a decision",
    OTHER_PROFILE: "a value of ctx.pick(...) for the full, paper or gpu profile (its second and later arguments), or "
                   "code that only runs beyond the quick profile (under if ctx.pick(False, True): or if ctx.profile is "
                   "not quick): the claims run at the quick profile here, which never reads it",
}
"""The positions left out of a run by default (``every_position`` keeps them), with the reason: no test or claim
at the profile the run uses can tell such a mutant from the original, so each would count as a survivor that says
nothing about the checks."""


BEYOND_QUICK = {"ctx.pick(False,True)", "ctx.profileisnotProfile.QUICK", "ctx.profile!=Profile.QUICK",
                'ctx.profile!="quick"', 'ctx.profile.value!="quick"'}
"""Conditions (spaces removed) true at every profile but the quick one: the branch they guard runs beyond it."""


def _guarded_beyond_quick(child: Any, parent: Any) -> bool:
    """Whether ``child`` is the branch that ``parent`` (an ``if`` statement or a conditional expression) takes only
    beyond the quick profile."""
    if parent.type == "if_stmt":
        index = parent.children.index(child)
        test = parent.children[index - 2] if index >= 2 and parent.children[index - 1] == ":" else None
        return test is not None and test != "else" and test.get_code().replace(" ", "") in BEYOND_QUICK
    if parent.type == "test" and len(parent.children) == 5 and parent.children[0] is child:
        return parent.children[2].get_code().replace(" ", "") in BEYOND_QUICK
    return False


def left_out_reason(node: Any) -> str | None:
    """The key of :data:`LEFT_OUT` that covers a mutation position, or None."""
    child, parent = node, node.parent
    while parent is not None:
        if parent.type == "fstring":
            return PRESENTATION
        if _guarded_beyond_quick(child, parent):
            return OTHER_PROFILE
        if parent.type == "trailer" and parent.children[0].type == "operator" and parent.children[0].value == "(":
            called = parent.get_previous_sibling()
            owner = called.get_previous_sibling() if called is not None else None
            if called is not None and called.type == "trailer" and called.children[-1].type == "name" and \
                    called.children[-1].value == "pick" and owner is not None and owner.type == "name" and \
                    owner.value == "ctx" and _argument_key(parent, node) not in (None, 0, "quick"):
                return OTHER_PROFILE
        child, parent = parent, parent.parent
    return None


def _argument_key(call: Any, node: Any) -> int | str | None:
    """The argument of the call ``call`` (a parso trailer ``( … )``) that holds ``node``: its keyword, or its
    position; None for a comma."""
    inner = call.children[1]
    arguments = [c for c in inner.children if not (c.type == "operator" and c.value == ",")] \
        if inner.type == "arglist" else [inner]
    for index, argument in enumerate(arguments):
        if argument.start_pos <= node.start_pos and node.end_pos <= argument.end_pos:
            keyword = argument.type == "argument" and argument.children[1].type == "operator" and \
                argument.children[1].value == "="
            return argument.children[0].value if keyword else index
    return None


def _not_code(node: Any, operator: str) -> bool:
    """Positions cosmic-ray offers that are no computation: annotations, and the bare ``*`` that makes the
    following parameters keyword-only (cosmic-ray 8.7 takes it for a multiplication: ``def f(a, *, b)`` →
    ``def f(a, /, b)``)."""
    if operator.startswith("core/ReplaceBinaryOperator_") and node.type == "operator" and \
            node.parent is not None and node.parent.type in ("parameters", "lambdef"):
        return True
    return _in_annotation(node)


def mutate_source(source: str, mutant: Mutant) -> str | None:
    """The file's source with ``mutant`` applied (cosmic-ray's MutationVisitor); None if it cannot be applied."""
    from cosmic_ray.mutating import mutate_code

    return mutate_code(source, operator_class(mutant.operator)(), mutant.occurrence)


def changed_lines(original: str, mutated: str) -> tuple[str, str, str]:
    """(the original lines, the mutated lines, a unified diff) of a mutation."""
    diff = list(difflib.unified_diff(original.splitlines(), mutated.splitlines(), lineterm="", n=0))
    removed = [line[1:].strip() for line in diff[2:] if line.startswith("-")]
    added = [line[1:].strip() for line in diff[2:] if line.startswith("+")]
    return "\n".join(removed), "\n".join(added), "\n".join(diff)


def compiled_lines(source: str) -> set[int]:
    """Lines of functions compiled by numba (``@njit``, ``@numba.jit``, ``@vectorize``): coverage never sees
    them run."""
    lines: set[int] = set()
    try:
        module = ast.parse(source)
    except SyntaxError:
        return lines
    for node in ast.walk(module):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                "jit" in ast.unparse(d) or "vectorize" in ast.unparse(d) for d in node.decorator_list):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def import_time_lines(source: str) -> set[int]:
    """Lines that run when the module is imported: module-level statements, class bodies, and each function's
    decorators and signature (default values are evaluated where the function is defined), not function bodies.
    Whichever test imports the module first runs them, so coverage credits them to that test alone."""
    lines: set[int] = set()
    try:
        module = ast.parse(source)
    except SyntaxError:
        return lines

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for decorator in node.decorator_list:
                    lines.update(range(decorator.lineno, (decorator.end_lineno or decorator.lineno) + 1))
                lines.update(range(node.lineno, node.body[0].lineno))  # the signature, up to the body
                if isinstance(node, ast.ClassDef):
                    visit(node.body)
            else:
                lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    visit(module.body)
    return lines


# -- equivalent mutants -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Equivalent:
    """A mutant no test can kill, because it computes the same thing (or differs only where nothing is
    observable), with the reason. Matched by ``id``, or by ``file`` + ``original`` + ``mutated`` lines (and
    ``operator`` when given), so that an entry survives edits that move its line."""

    reason: str
    id: str | None = None
    file: str | None = None
    original: str | None = None
    mutated: str | None = None
    operator: str | None = None

    def matches(self, mutant: Mutant, original: str, mutated: str, current: Collection[str] = ()) -> bool:
        """By id; or, for an entry without an id or whose id names no mutant in ``current`` (lines moved since it
        was written), by file, operator and the original and mutated lines. An entry whose id names another
        current mutant never matches by text: the same line can occur twice in a file."""
        if self.id is not None and self.id == mutant.id:
            return True
        if self.id is not None and self.id in current:
            return False
        if self.file is None or self.original is None or self.mutated is None or self.file != mutant.path:
            return False
        if self.operator is not None and self.operator not in (mutant.operator, mutant.operator.partition("/")[2]):
            return False
        return " ".join(self.original.split()) == " ".join(original.split()) and \
            " ".join(self.mutated.split()) == " ".join(mutated.split())


def _current_entry_ids(equivalents: Sequence[Equivalent], root: Path) -> set[str]:
    """The ids of entries that still name their mutant: the source line at the id's position is the entry's
    original line. The others (lines moved since the entry was written) may match by their text instead."""
    lines: dict[str, list[str]] = {}
    current = set()
    for entry in equivalents:
        if entry.id is None or entry.original is None:
            continue
        path, _, rest = entry.id.partition(":")
        number = rest.partition(":")[0]
        if path not in lines:
            try:
                lines[path] = (root / path).read_text(encoding="utf-8").splitlines()
            except OSError:
                lines[path] = []
        source = lines[path]
        if number.isdigit() and 1 <= int(number) <= len(source) and \
                " ".join(source[int(number) - 1].split()) == " ".join(entry.original.split()):
            current.add(entry.id)
    return current


def load_equivalents(path: Path, required: bool = False) -> list[Equivalent]:
    """The ``[[equivalent]]`` entries of a TOML file (none when the file is absent and not ``required``)."""
    if not path.exists():
        if required:
            raise MutationError(f"--equivalent {path}: no such file")
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MutationError(f"--equivalent {path}: {exc}") from None
    entries = []
    fields = set(Equivalent.__dataclass_fields__)
    for index, entry in enumerate(data.get("equivalent", [])):
        where = f"--equivalent {path}: entry {index + 1}"
        if not isinstance(entry, dict) or not isinstance(entry.get("reason"), str) or not entry["reason"].strip():
            raise MutationError(f"{where} needs a reason")
        unknown = set(entry) - fields
        if unknown:
            raise MutationError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        if not entry.get("id") and not all(entry.get(k) for k in ("file", "original", "mutated")):
            raise MutationError(f"{where} needs an id, or file, original and mutated")
        entries.append(Equivalent(**{k: str(v) for k, v in entry.items()}))
    return entries


# -- snapshot -----------------------------------------------------------------------------------------------------
_SKIP_DIRS = {"__pycache__", ".git", ".venv", ".venv-latest", ".verify", "build", "dist", "out", ".hypothesis",
              ".pytest_cache", "node_modules"}


def project_files(root: Path) -> list[str]:
    """The project's files: git's tracked and untracked-but-not-ignored files when ``root`` is the top of a git
    work tree, else every file outside caches, virtual environments and build output."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=30, check=False)
        if top.returncode == 0 and Path(top.stdout.strip()).resolve() == root.resolve():
            listed = subprocess.run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
                                    capture_output=True, timeout=60, check=True)
            names = [n for n in listed.stdout.decode().split("\0") if n]
            return sorted(n for n in names if "__pycache__" not in n.split("/") and (root / n).is_file())
    except (OSError, subprocess.SubprocessError):
        pass
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        for name in names:
            if not name.endswith((".pyc", ".pyo")):
                files.append((Path(folder) / name).relative_to(root).as_posix())
    return sorted(files)


def make_snapshot(root: Path, dest: Path) -> int:
    """Copy the project's files into ``dest``; returns how many."""
    files = project_files(root)
    for rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    return len(files)


def compile_checked(tree: Path, files: Iterable[str]) -> None:
    """Byte-compile ``files`` with hash-checked .pyc files: a mutant written and put back within the same second
    (same size, same mtime) can never be run from a stale .pyc."""
    import py_compile

    for rel in files:
        try:
            py_compile.compile(str(tree / rel), doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        except py_compile.PyCompileError:
            pass


def archive(tree: Path) -> bytes:
    """The tree as a gzipped tar archive (without byte code), for workers on other machines."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(tree.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                tar.add(path, arcname=path.relative_to(tree).as_posix())
    return buffer.getvalue()


# -- baseline -----------------------------------------------------------------------------------------------------
@dataclass
class Baseline:
    """The tests' coverage map and timings, from one run of the tests under coverage."""

    lines: dict[str, dict[int, list[str]]]  # file → line → node ids of the tests that execute it
    import_lines: dict[str, list[int]]  # file → lines executed outside any test (imports, collection)
    seconds: dict[str, float]  # node id → duration (passed tests only)
    failed: list[str]  # tests that failed or errored without any mutation: never used to judge a mutant
    skipped: int
    startup_seconds: float  # pytest's start-up and collection
    wall_seconds: float
    cpu_seconds: float
    returncode: int
    figures: dict[str, Any] = field(default_factory=dict)  # id@profile/seed → what the claim's report shows

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Baseline:
        data = dict(data)
        data["lines"] = {f: {int(k): v for k, v in lines.items()} for f, lines in data["lines"].items()}
        return Baseline(**data)

    def module_tests(self, path: str) -> set[str]:
        return {t for tests in self.lines.get(path, {}).values() for t in tests}


def test_env(tree: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every test run in ``tree``: the tree first on the path, no byte code written, one
    thread per BLAS and torch, and caches, result store and plots inside the worker's own folders."""
    env = dict(os.environ)
    env.update({
        "PYTHONPATH": os.pathsep.join([str(tree), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "MPLBACKEND": "Agg",
        "IBVERIFY_STORE": str(tree / ".verify"), "IBVERIFY_CACHE_DIR": str(tree / ".cache" / "ibverify"),
        "NUMBA_CACHE_DIR": str(tree / ".cache" / "numba"), "CI": os.environ.get("CI", "1"),
        "PYTEST_ADDOPTS": "", MUTANT_RUN_VARIABLE: "1",
    })
    for name in ("IBVERIFY_TEETH_COVERAGE", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID", "PYTEST_CURRENT_TEST",
                 "COVERAGE_PROCESS_START"):
        env.pop(name, None)
    env.update(extra or {})
    return env


def run_baseline(tree: Path, tests: Sequence[str], targets: Sequence[str], jobs: int, folder: Path,
                 log: Callable[[str], None]) -> Baseline:
    """Run ``tests`` (pytest arguments) in ``tree`` under coverage with per-test contexts; the map of
    ``targets`` (files relative to ``tree``)."""
    import coverage

    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(".coverage*"):
        old.unlink()
    data = folder / ".coverage"
    figures = folder / "figures.jsonl"
    figures.unlink(missing_ok=True)
    env = test_env(tree, {"IBVERIFY_TEETH_COVERAGE": str(data), "IBVERIFY_TEETH_PIN": "1",
                          "IBVERIFY_TEETH_INCLUDE": os.pathsep.join(str(tree / t) for t in targets),
                          FIGURES_VARIABLE: str(figures)})
    env["PYTHONDONTWRITEBYTECODE"] = ""  # let pytest keep its rewritten test modules for the workers
    measured = Path(__file__).with_name("mutation_subprocess")  # the tests' Python subprocesses are measured too
    if measured.is_dir():
        env["PYTHONPATH"] = os.pathsep.join([str(measured), env["PYTHONPATH"]])
    parallel = ["-n", str(jobs)] if jobs > 1 and _has_module("xdist") else []
    command = [sys.executable, "-m", "pytest", "-p", "verify.mutation_coverage", "-p", "no:cacheprovider", "-q",
               "--rootdir", str(tree), "-o", "addopts=", *parallel, *tests]
    log(f"baseline: {' '.join(['pytest', *parallel, *tests])} under coverage, in the snapshot")
    start, cpu = time.perf_counter(), _children_cpu()
    with open(folder / "baseline.log", "w") as output:
        rc = subprocess.run(command, cwd=tree, env=env, stdout=output, stderr=subprocess.STDOUT,
                            check=False).returncode
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if rc not in (0, 1):
        tail = (folder / "baseline.log").read_text(errors="replace")[-1500:]
        raise MutationError(f"the baseline test run failed (pytest exit status {rc}); its log ends: "
                            + " | ".join(line for line in tail.splitlines()[-6:] if line.strip()))
    results: dict[str, dict[str, Any]] = {}
    startup = 0.0
    for part in sorted(folder.glob(".coverage.tests.*.json")):
        entry = json.loads(part.read_text())
        startup = max(startup, entry["startup_seconds"])
        for nodeid, result in entry["tests"].items():
            if nodeid not in results or result["outcome"] != "passed":
                results[nodeid] = result
        part.unlink()
    cov = coverage.Coverage(data_file=str(data), config_file=False)
    cov.combine([str(folder)], keep=False)
    covdata = cov.get_data()
    passed = {t for t, r in results.items() if r["outcome"] == "passed"}
    lines: dict[str, dict[int, list[str]]] = {}
    import_lines: dict[str, list[int]] = {}
    resolved = {str((tree / t).resolve()): t for t in targets} | {str(tree / t): t for t in targets}
    for measured in covdata.measured_files():
        rel = resolved.get(measured) or resolved.get(str(Path(measured).resolve()))
        if rel is None:
            continue
        by_line = covdata.contexts_by_lineno(measured)
        lines[rel] = {n: sorted(c for c in contexts if c in passed) for n, contexts in by_line.items()}
        lines[rel] = {n: c for n, c in lines[rel].items() if c}
        import_lines[rel] = sorted(n for n, contexts in by_line.items() if "" in contexts)
    return Baseline(lines=lines, import_lines=import_lines,
                    seconds={t: round(float(r["seconds"]), 4) for t, r in results.items() if t in passed},
                    failed=sorted(t for t, r in results.items() if r["outcome"] == "failed"),
                    skipped=sum(r["outcome"] == "skipped" for r in results.values()),
                    startup_seconds=round(startup, 3), wall_seconds=round(wall, 3), cpu_seconds=round(cpu, 3),
                    returncode=rc, figures=read_figures(figures))


def read_figures(path: Path) -> dict[str, Any]:
    """The claims' reported figures a test run wrote: ``id@profile/seed`` → figures (tests that run a claim at
    another profile or seed, or a test paper's claim several times, add keys of their own); None for a claim that
    reported different figures in two runs of the same key (not comparable). Empty when the run ran no claim."""
    figures: dict[str, Any] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                key = f"{entry['id']}@{entry.get('profile', '')}/{entry.get('seed', '')}"
                figures[key] = entry["shown"] if figures.get(key, entry["shown"]) == entry["shown"] else None
    return figures


def figure_change(before: Any, after: Any, where: str = "") -> str | None:
    """The first difference between two claims' reported figures, in words ("evidence 'x' figure 'rate': 0.5 →
    0.7"), or None when they are equal. Numbers compare exactly: the same claim at the same profile and seed
    reports the same bits (timings are not reported figures)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in [*before, *(k for k in after if k not in before)]:
            if key not in before or key not in after:
                return f"{where}{key}: {'added' if key not in before else 'gone'}"
            change = figure_change(before[key], after[key], f"{where}{key} / ")
            if change is not None:
                return change
        return None
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after)):
            change = figure_change(old, new, f"{where}[{index}] ")
            if change is not None:
                return change
        return None
    if before == after:
        return None
    shown = [json.dumps(v) for v in (before, after)]
    start = next((i for i, (a, b) in enumerate(zip(*shown)) if a != b), min(map(len, shown)))
    start = max(0, start - 20)  # where two long texts part, with a little context before it
    shown = [("…" if start else "") + text[start:start + 60] + ("…" if len(text) > start + 60 else "")
             for text in shown]
    return f"{where.rstrip(' /')}: {shown[0]} → {shown[1]}"


def claims_figure_change(baseline: dict[str, Any], mutant: dict[str, Any]) -> str | None:
    """The first claim whose reported figures a mutant changed (of the claims both runs ran at the same profile and
    seed, and that reported the same figures whenever the baseline ran them), in words."""
    for key, shown in mutant.items():
        if baseline.get(key) is not None and shown is not None:
            change = figure_change(baseline[key], shown)
            if change is not None:
                return f"{key.partition('@')[0]} reports {change}"
    return None


def select_tests(mutant: Mutant, baseline: Baseline, compiled: set[int],
                 import_time: Collection[int] = ()) -> tuple[list[str], str]:
    """The tests that execute the mutant's lines, fastest first, and how they were found: ``line``; ``module``
    (the line runs at import, or in compiled code: every test that executes the module, with those credited for
    the line); ``none``."""
    covered = baseline.lines.get(mutant.path, {})
    tests = {t for line in mutant.lines for t in covered.get(line, ())}
    how = "line"
    imported = set(baseline.import_lines.get(mutant.path, ())) | set(import_time)
    if any(line in imported for line in mutant.lines) or (not tests and any(line in compiled
                                                                             for line in mutant.lines)):
        tests, how = tests | baseline.module_tests(mutant.path), "module"
    if not tests:
        return [], "none"
    return sorted(tests, key=lambda t: (baseline.seconds.get(t, 0.0), t)), how


class KillHistory:
    """Which tests killed the mutants judged so far, per enclosing function and per file. A mutant's tests run with
    ``-x``, so putting the likely killers first changes only the cost of a run, never its outcome: every selected
    test still runs when none fails. Mutants of one function tend to be killed by the same test, which is often
    not the fastest one."""

    def __init__(self) -> None:
        self.by_definition: dict[tuple[str, str | None], Counter[str]] = {}
        self.by_file: dict[str, Counter[str]] = {}

    def add(self, mutant: Mutant, killer: str) -> None:
        self.by_definition.setdefault((mutant.path, mutant.definition), Counter())[killer] += 1
        self.by_file.setdefault(mutant.path, Counter())[killer] += 1

    def record(self, mutant: Mutant, result: dict[str, Any]) -> None:
        """Count the test that killed ``mutant`` (named by its result's detail), if a failing test killed it."""
        killer = failing_node(result.get("detail", "")) if result.get("outcome") == KILLED else None
        if killer is not None:
            self.add(mutant, killer)

    def order(self, mutant: Mutant, tests: Sequence[str], seconds: dict[str, float]) -> list[str]:
        """``tests`` with those that killed mutants of the same function first, then of the same file (most kills
        first), then the rest; fastest first within each."""
        near = self.by_definition.get((mutant.path, mutant.definition), Counter())
        far = self.by_file.get(mutant.path, Counter())
        return sorted(tests, key=lambda t: (-near[t], -far[t], seconds.get(t, 0.0), t))


def failing_node(detail: str) -> str | None:
    """The node id of pytest's ``FAILED node - message`` (or ``ERROR node``) summary line, if it is one."""
    if not detail.startswith(("FAILED ", "ERROR ")):
        return None
    return detail.split(" ", 1)[1].split(" - ", 1)[0].strip() or None


# -- workers ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    """What a worker needs to judge one mutant: the mutated file's text, the tests and the time allowed."""

    id: str
    path: str
    source: str
    tests: tuple[str, ...]
    timeout: float
    fresh_caches: bool  # the module uses numba: compiled code is cached apart for this mutant


# unraisableexception only warns (the project does not turn warnings into errors), and its clean-up collects
# garbage for a quarter of a second at the end of every run
PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--no-header", "-p", "no:randomly",
               "-p", "no:unraisableexception")


def _server_source() -> str:
    return Path(__file__).with_name("mutation_server.py").read_text(encoding="utf-8")


class WorkerTree:
    """A worker's own copy of the snapshot and its test server."""

    def __init__(self, base: Path, preload: Sequence[str], source: Path | None = None,
                 blob: bytes | None = None, server: str | None = None, pin: int | None = None) -> None:
        base.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix="worker-", dir=base))
        if source is not None:
            shutil.copytree(source, self.dir, dirs_exist_ok=True, symlinks=True)
        else:
            with tarfile.open(fileobj=io.BytesIO(blob or b""), mode="r:gz") as tar:
                tar.extractall(self.dir, filter="data")
            compile_checked(self.dir, (p.relative_to(self.dir).as_posix() for p in self.dir.rglob("*.py")))
        self.preload = ",".join(preload)
        self.server_code = server or _server_source()
        self.pin = pin
        self.runs = 0
        self.process: subprocess.Popen | None = None

    def _index_claims(self) -> dict[str, str]:
        """Index the tree's claims once (a subprocess imports every paper) and have every test run read that index
        as it is: a run then imports only the modules its tests use, not all four papers to re-index the file its
        mutant changed (whose claims are the same: a mutant that drops or renames one fails to collect it)."""
        index = self.dir / ".cache" / "claim-index.json"
        if not index.exists():
            index.parent.mkdir(parents=True, exist_ok=True)
            code = ("import sys, pathlib\nfrom verify.registry import claim_index\n"
                    "claim_index(pathlib.Path(sys.argv[1]))")
            subprocess.run([sys.executable, "-c", code, str(index)], cwd=self.dir, env=test_env(self.dir),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        return {INDEX_VARIABLE: str(index), INDEX_FROZEN_VARIABLE: "1"} if index.exists() else {}

    def _start(self) -> subprocess.Popen:
        env = test_env(self.dir, {"IBVERIFY_TEETH_PRELOAD": self.preload, **self._index_claims()})
        pin = None
        if self.pin is not None and hasattr(os, "sched_getaffinity"):
            cpus = sorted(os.sched_getaffinity(0))
            pin = cpus[self.pin % len(cpus)]
        process = subprocess.Popen([sys.executable, "-c", self.server_code], cwd=self.dir, env=env, text=True,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   bufsize=1)
        if pin is not None:  # before its first test run: the runs inherit it
            try:
                os.sched_setaffinity(process.pid, {pin})
            except OSError:
                pass
        ready = process.stdout.readline() if process.stdout else ""
        if not ready:
            raise RuntimeError("the test server did not start")
        return process

    def run(self, task: Task) -> dict[str, Any]:
        """Write the mutant, run its tests through the server, put the original back."""
        if self.process is None or self.process.poll() is not None:
            self.process = self._start()
        self.runs += 1
        path = self.dir / task.path
        original = path.read_bytes()
        output = self.dir / f".teeth-{self.runs}.log"
        argsfile = self.dir / f".teeth-{self.runs}.args"
        argsfile.write_text("\n".join(task.tests) + "\n", encoding="utf-8")
        figures = self.dir / f".teeth-{self.runs}.figures"
        env: dict[str, str] = {FIGURES_VARIABLE: str(figures)}
        fresh = None
        if task.fresh_caches:
            fresh = Path(tempfile.mkdtemp(prefix="caches-", dir=self.dir))
            env.update({"NUMBA_CACHE_DIR": str(fresh / "numba"), "IBVERIFY_CACHE_DIR": str(fresh / "ibverify")})
        request = {"args": [*PYTEST_ARGS, "--rootdir", str(self.dir), f"@{argsfile}"], "timeout": task.timeout,
                   "env": env, "output": str(output)}
        try:
            path.write_text(task.source, encoding="utf-8")
            assert self.process.stdin is not None and self.process.stdout is not None
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the test server stopped")
            reply = json.loads(line)
        except (OSError, RuntimeError, ValueError) as exc:
            self.close()
            return {"id": task.id, "rc": None, "error": f"{type(exc).__name__}: {exc}", "seconds": 0.0, "cpu": 0.0,
                    "output": ""}
        finally:
            path.write_bytes(original)
            if fresh is not None:
                shutil.rmtree(fresh, ignore_errors=True)
        text = output.read_text(errors="replace") if output.exists() else ""
        try:
            shown = read_figures(figures)
        except (OSError, ValueError, KeyError):  # a run cut off while writing: no figures to compare
            shown = {}
        for done in (output, argsfile, figures):
            done.unlink(missing_ok=True)
        return {"id": task.id, "rc": reply["rc"], "seconds": reply["seconds"], "cpu": reply["cpu"],
                "output": text[-4000:], "figures": shown}

    def close(self) -> None:
        if self.process is not None:
            try:
                if self.process.stdin:
                    self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
            self.process = None

    def remove(self) -> None:
        self.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_local(tasks: Iterator[Task], jobs: int, snapshot: Path, base: Path,
              preload: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Judge the tasks on ``jobs`` workers of this machine, each with its own tree and server (one CPU each)."""
    local = threading.local()
    trees: list[WorkerTree | None] = []
    lock = threading.Lock()
    server = _server_source()

    def work(task: Task) -> dict[str, Any]:
        tree = getattr(local, "tree", None)
        if tree is None:
            with lock:  # the worker's index (and CPU) is taken before its tree is built, which takes seconds
                index = len(trees)
                trees.append(None)
            tree = local.tree = trees[index] = WorkerTree(base, preload, source=snapshot, server=server, pin=index)
        return tree.run(task)

    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            yield from _windowed(tasks, pool.submit, work, 2 * jobs)
    finally:
        for tree in trees:
            if tree is not None:
                tree.remove()


def _windowed(tasks: Iterator[Task], submit: Callable[..., Future], work: Callable, window: int
              ) -> Iterator[dict[str, Any]]:
    """Keep ``window`` tasks in flight (the mutants' sources are made as they are needed), yield results as they
    come."""
    pending: set[Future] = set()
    for task in tasks:
        pending.add(submit(work, task))
        if len(pending) >= window:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield future.result()


_REMOTE: dict[tuple[str, int], WorkerTree] = {}


def _remove_remote_trees() -> None:
    for tree in _REMOTE.values():
        tree.remove()


def run_on_worker(task: Task, blob: bytes, digest: str, preload: Sequence[str], server: str) -> dict[str, Any]:
    """A task on a Dask worker: the worker thread's own tree is unpacked from ``blob`` on its first task."""
    key = (digest, threading.get_ident())
    tree = _REMOTE.get(key)
    if tree is None:
        if not _REMOTE:
            atexit.register(_remove_remote_trees)
        tree = _REMOTE[key] = WorkerTree(Path(tempfile.gettempdir()) / "ibverify-teeth", preload, blob=blob,
                                         server=server)
    return tree.run(task)


def run_dask(tasks: Iterator[Task], scheduler: str, snapshot: Path, preload: Sequence[str]
             ) -> Iterator[dict[str, Any]]:
    """Judge the tasks on the workers of a Dask cluster (each needs ibverify and its test dependencies; the
    snapshot travels to them as an archive)."""
    from distributed import Client, as_completed

    blob = archive(snapshot)
    digest = hashlib.sha256(blob).hexdigest()[:16]
    server = _server_source()
    with Client(scheduler, set_as_default=False) as client:
        [shared] = client.scatter([blob], broadcast=True)
        window = 2 * max(1, sum(client.nthreads().values()))
        running = as_completed(loop=client.loop)
        count = 0
        for task in tasks:
            running.add(client.submit(run_on_worker, task, shared, digest, tuple(preload), server, pure=False))
            count += 1
            if count >= window:
                yield next(running).result()
                count -= 1
        for future in running:
            yield future.result()


# -- the session --------------------------------------------------------------------------------------------------
@dataclass
class Options:
    root: Path = Path(".")
    paths: Sequence[str] = DEFAULT_PATHS
    modules: Sequence[str] = ()
    exclude: Sequence[str] = DEFAULT_EXCLUDE
    operators: Sequence[str] = DEFAULT_OPERATORS
    tests: Sequence[str] = DEFAULT_TESTS
    jobs: int = 1
    scheduler: str | None = None
    sample: int | None = None
    seed: int = 0
    timeout_factor: float = 3.0
    timeout_base: float = 30.0
    equivalent: Path | None = None  # None: <root>/mutation/equivalent.toml when it exists
    session: Path | None = None  # None: <root>/.verify/teeth
    resume: bool = False
    preload: Sequence[str] = DEFAULT_PRELOAD
    dry_run: bool = False
    every_position: bool = False  # also the positions of LEFT_OUT
    report_only: bool = False  # report the session in ``session`` as it stands (what it has not judged: not run)

    def key(self) -> dict[str, Any]:
        """What must match for ``resume`` to continue a session."""
        return {"paths": list(self.paths), "modules": list(self.modules), "exclude": list(self.exclude),
                "operators": list(self.operators), "tests": list(self.tests), "sample": self.sample,
                "seed": self.seed, "every_position": self.every_position}


@dataclass
class Session:
    folder: Path
    mutants: list[Mutant]
    baseline: Baseline | None
    results: dict[str, dict[str, Any]] = field(default_factory=dict)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


COLLECTION_ERRORS = re.compile(r"\b\d+ errors? in [\d.]+s")  # pytest's summary line: "…, 2 errors in 3.21s"


def _outcome(reply: dict[str, Any], figures: dict[str, Any] | None = None) -> tuple[str, str]:
    """(outcome, detail) of a test run: pytest's exit status 0 survived, or shown when a claim's reported figures
    differ from the baseline's (``figures``); 1 a test failed, 2 collection failed (the mutant does not import),
    3 internal error, 4 with collection errors (a selected test module no longer imports: pytest answers "found no
    collectors" for its node ids), or a signal (the test process crashed): killed; none: timeout; 4 otherwise, 5 or
    a worker failure: error."""
    rc, output = reply.get("rc"), reply.get("output", "")
    if reply.get("error"):
        return ERROR, reply["error"]
    if rc is None:
        return TIMEOUT, f"no verdict within {reply.get('timeout', 0):.0f} s"
    if rc == 0:
        change = claims_figure_change(figures or {}, reply.get("figures") or {})
        return (SURVIVED, "") if change is None else (SHOWN, change)
    if rc in (1, 2, 3):
        failing = [line for line in output.splitlines() if line.startswith(("FAILED ", "ERROR "))]
        kind = {1: "a test failed", 2: "collection failed", 3: "pytest internal error"}[rc]
        return KILLED, failing[0] if failing else kind
    if rc == 4 and "found no collectors for" in output and COLLECTION_ERRORS.search(output):
        return KILLED, "collection failed: a selected test module no longer imports"
    if rc < 0:
        return KILLED, f"the test run crashed (signal {-rc})"
    tail = " | ".join(line for line in output.splitlines()[-3:] if line.strip())
    return ERROR, f"pytest exit status {rc}: {tail}"


def run_session(options: Options, log: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """Run (or with ``resume`` continue) a mutation session; the report as a JSON-ready dict."""
    started = time.perf_counter()
    cpu_start = cpu_seconds()
    load_before = _load_average()
    root = options.root.resolve()
    if not root.is_dir():
        raise MutationError(f"--root {options.root}: no such folder")
    if options.jobs < 1:
        raise MutationError("--jobs must be at least 1")
    if options.sample is not None and options.sample < 1:
        raise MutationError("--sample must be at least 1")
    if options.timeout_factor <= 0 or options.timeout_base < 0:
        raise MutationError("--timeout-factor must be positive and --timeout-base nonnegative")
    operators = resolve_operators(options.operators)
    equivalent_path = options.equivalent or root / DEFAULT_EQUIVALENT
    equivalents = load_equivalents(equivalent_path, required=options.equivalent is not None)
    folder = (options.session or root / DEFAULT_SESSION).resolve()
    if folder == root or root.is_relative_to(folder):
        raise MutationError(f"--session {folder}: must not contain the project")
    snapshot = folder / "snapshot"
    state_path = folder / "session.json"
    reading = options.resume or options.report_only
    state = json.loads(state_path.read_text()) if reading and state_path.exists() else None
    if options.report_only and state is None:
        raise MutationError(f"--report-only: no session in {folder}")
    if state is not None and not options.report_only and state.get("key") != options.key():
        raise MutationError(f"--resume: the session in {folder} was started with other options "
                            f"({json.dumps(state.get('key'))})")
    from cosmic_ray.work_db import WorkDB

    if state is None:
        files = target_files(root, options.paths, options.modules, options.exclude)
        left_out: Counter[str] = Counter()
        mutants = enumerate_mutants(root, files, operators, left_out, options.every_position)
        if options.sample is not None and options.sample < len(mutants):
            chosen = set(random.Random(options.seed).sample(range(len(mutants)), options.sample))
            mutants = [m for i, m in enumerate(mutants) if i in chosen]
        log(f"{len(mutants)} mutants in {len(files)} files ({len(operators)} cosmic-ray operators)")
        if options.dry_run:
            return _report(options, operators, files, mutants, None, {}, equivalents, equivalent_path, started,
                           cpu_start, load_before, folder, left_out)
        if folder.exists():
            for name in ("snapshot", "baseline", "workers", "session.json", "session.sqlite"):
                target = folder / name
                if target.is_dir():
                    shutil.rmtree(target)
                elif target.exists():
                    target.unlink()
        folder.mkdir(parents=True, exist_ok=True)
        count = make_snapshot(root, snapshot)
        missing = [f for f in files if not (snapshot / f).exists()]
        if missing:
            raise MutationError(f"{missing[0]} is not part of the project's files (ignored by git?)")
        log(f"snapshot: {count} files copied to {snapshot}")
        baseline = run_baseline(snapshot, options.tests, files, options.jobs, folder / "baseline", log)
        compile_checked(snapshot, (p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*.py")))
        state = {"key": options.key(), "files": files, "operators": operators, "left_out": dict(left_out),
                 "mutants": [m.to_json() for m in mutants], "baseline": baseline.to_json()}
        state_path.write_text(json.dumps(state))
        db = WorkDB(str(folder / "session.sqlite"), WorkDB.Mode.create)
        db.add_work_items(_work_items(mutants))
        results: dict[str, dict[str, Any]] = {}
    else:
        files, operators, left_out = state["files"], state["operators"], Counter(state.get("left_out", {}))
        mutants = [Mutant.from_json(m) for m in state["mutants"]]
        baseline = Baseline.from_json(state["baseline"])
        db = WorkDB(str(folder / "session.sqlite"), WorkDB.Mode.open)
        results = {job: json.loads(result.output) for job, result in db.results
                   if result.output and result.output.startswith("{")}
        log(f"resuming {folder}: {len(results)} of {len(mutants)} mutants already judged")
    log(f"baseline: {len(baseline.seconds)} passing tests in {baseline.wall_seconds:.0f} s"
        + (f"; {len(baseline.failed)} failing, not used" if baseline.failed else ""))
    if options.report_only:  # a session still running writes on; this reads what it holds now
        db.close()
        return _report(options, operators, files, mutants, baseline, results, equivalents, equivalent_path, started,
                       cpu_start, load_before, folder, left_out, session_key=state["key"])

    sources = {f: (snapshot / f).read_text(encoding="utf-8") for f in files}
    compiled = {f: compiled_lines(sources[f]) for f in files}
    import_time = {f: import_time_lines(sources[f]) for f in files}
    todo = [m for m in mutants if m.id not in results]
    total, done = len(mutants), [len(mutants) - len(todo)]
    history = KillHistory()
    for mutant in mutants:
        history.record(mutant, results.get(mutant.id, {}))

    def record(mutant: Mutant, result: dict[str, Any]) -> None:
        results[mutant.id] = result
        history.record(mutant, result)
        db.set_result(mutant.id, _work_result(result))
        done[0] += 1
        seconds = f" ({result['seconds']:.1f} s, {result['tests']} tests)" if result["tests"] else ""
        log(f"[{done[0]}/{total}] {mutant.id}: {result['outcome']}{seconds}")

    by_id = {m.id: m for m in mutants}
    partial: dict[str, dict[str, Any]] = {}

    def tasks() -> Iterator[Task]:
        for mutant in todo:
            mutated = mutate_source(sources[mutant.path], mutant)
            if mutated is None:
                record(mutant, {"outcome": ERROR, "detail": "cosmic-ray could not apply the mutation", "tests": 0,
                                "seconds": 0.0, "cpu": 0.0, "selection": "none", "original": "", "mutated": ""})
                continue
            original, changed, diff = changed_lines(sources[mutant.path], mutated)
            tests, how = select_tests(mutant, baseline, compiled[mutant.path], import_time[mutant.path])
            tests = history.order(mutant, tests, baseline.seconds)
            entry = {"original": original, "mutated": changed, "diff": diff, "selection": how, "tests": len(tests)}
            if not tests:
                record(mutant, {**entry, "outcome": NO_COVERAGE, "detail": "no test executes this line",
                                "seconds": 0.0, "cpu": 0.0})
                continue
            budget = baseline.startup_seconds + sum(baseline.seconds.get(t, 0.0) for t in tests)
            timeout = options.timeout_factor * budget + options.timeout_base
            partial[mutant.id] = {**entry, "timeout": round(timeout, 1)}
            yield Task(mutant.id, mutant.path, mutated, tuple(tests), timeout, "numba" in sources[mutant.path])

    if options.scheduler:
        replies = run_dask(tasks(), options.scheduler, snapshot, options.preload)
    else:
        replies = run_local(tasks(), options.jobs, snapshot, folder / "workers", options.preload)
    for reply in replies:
        entry = partial.pop(reply["id"])
        outcome, detail = _outcome({**reply, "timeout": entry["timeout"]}, baseline.figures)
        record(by_id[reply["id"]], {**entry, "outcome": outcome, "detail": detail,
                                    "seconds": round(reply["seconds"], 3), "cpu": round(reply["cpu"], 3),
                                    **({"output": reply["output"][-2000:]} if outcome == ERROR else {})})
    db.close()
    return _report(options, operators, files, mutants, baseline, results, equivalents, equivalent_path, started,
                   cpu_start, load_before, folder, left_out)


def _work_items(mutants: Sequence[Mutant]) -> Iterator[Any]:
    from cosmic_ray.work_item import MutationSpec, WorkItem

    for m in mutants:
        yield WorkItem.single(m.id, MutationSpec(module_path=m.path, operator_name=m.operator,
                                                 occurrence=m.occurrence, start_pos=m.start, end_pos=m.end,
                                                 definition_name=m.definition))


def _work_result(result: dict[str, Any]) -> Any:
    """Our result as cosmic-ray's: killed (timeouts included) or survived; the details as JSON in ``output``."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    outcome = result["outcome"]
    worker = {ERROR: WorkerOutcome.EXCEPTION, NO_COVERAGE: WorkerOutcome.SKIPPED}.get(outcome, WorkerOutcome.NORMAL)
    test = {KILLED: TestOutcome.KILLED, TIMEOUT: TestOutcome.KILLED, SHOWN: TestOutcome.KILLED,
            ERROR: TestOutcome.INCOMPETENT}.get(
        outcome, TestOutcome.SURVIVED)
    return WorkResult(worker_outcome=worker, test_outcome=test, output=json.dumps(result),
                      diff=result.get("diff", ""))


# -- the report ---------------------------------------------------------------------------------------------------
def score(killed: int, survived: int) -> float | None:
    return None if killed + survived == 0 else killed / (killed + survived)


def scores(counts: dict[str, int]) -> dict[str, float | None]:
    """``score``: detected (killed, timed out or shown) / judged; ``score_tests``: killed or timed out alone (a
    failing test or claim), the stricter reading. Equivalent mutants, errors and mutants not run are left out."""
    caught = counts["killed"] + counts["timeout"]
    alive = counts["survived"] + counts["no_coverage"]
    values = {"score": score(caught + counts["shown"], alive), "score_tests": score(caught, alive + counts["shown"])}
    return {key: None if value is None else round(value, 4) for key, value in values.items()}


def _report(options: Options, operators: Sequence[str], files: Sequence[str], mutants: Sequence[Mutant],
            baseline: Baseline | None, results: dict[str, dict[str, Any]], equivalents: Sequence[Equivalent],
            equivalent_path: Path, started: float, cpu_start: float, load_before: list[float],
            folder: Path, left_out: Counter[str] | None = None,
            session_key: dict[str, Any] | None = None) -> dict[str, Any]:
    import cosmic_ray

    rows: dict[str, Counter[str]] = {f: Counter() for f in files}
    listed, survivors, shown, stale, judged = [], [], [], [], []
    snapshot = folder / "snapshot"
    current = _current_entry_ids(equivalents, snapshot if snapshot.is_dir() else options.root)
    for mutant in mutants:
        rows[mutant.path]["mutants"] += 1
        result = results.get(mutant.id)
        if result is None:
            rows[mutant.path]["not run"] += 1
            continue
        entry = {**mutant.to_json(), **{k: v for k, v in result.items() if k != "diff"}}
        reason = next((e.reason for e in equivalents if e.id == mutant.id), None) or next(
            (e.reason for e in equivalents
             if e.matches(mutant, result.get("original", ""), result.get("mutated", ""), current)), None)
        outcome = result["outcome"]
        if reason is not None and outcome in (SURVIVED, NO_COVERAGE):
            rows[mutant.path]["equivalent"] += 1
            listed.append({**entry, "reason": reason})
        else:
            rows[mutant.path][outcome] += 1
            if reason is not None:
                stale.append({**entry, "reason": reason})
            if outcome in (SURVIVED, NO_COVERAGE):
                survivors.append(entry)
            elif outcome == SHOWN:
                shown.append(entry)
        judged.append(entry)
    order = {f: i for i, f in enumerate(files)}
    for listing in (survivors, shown, listed, stale):
        listing.sort(key=lambda e: (order.get(e["path"], 0), e["start"], e["id"]))
    modules = []
    for path, counts in rows.items():
        modules.append({"module": path, "mutants": counts["mutants"], "killed": counts[KILLED],
                        "timeout": counts[TIMEOUT], "shown": counts[SHOWN], "survived": counts[SURVIVED],
                        "no_coverage": counts[NO_COVERAGE], "equivalent": counts["equivalent"],
                        "error": counts[ERROR], "not_run": counts["not run"]})
    totals: dict[str, Any] = {key: sum(row[key] for row in modules) for key in
                              ("mutants", "killed", "timeout", "shown", "survived", "no_coverage", "equivalent",
                               "error", "not_run")}
    for row in (*modules, totals):
        row.update(scores(row))
    per_operator: dict[str, Counter[str]] = {}
    for entry in judged:
        per_operator.setdefault(entry["operator"], Counter())[entry["outcome"]] += 1
    run_seconds = [e["seconds"] for e in judged if e.get("tests")]
    run_cpu = [e.get("cpu") or 0.0 for e in judged if e.get("tests")]
    return {
        "tool": f"cosmic-ray {getattr(cosmic_ray, '__version__', _version('cosmic-ray'))}",
        "session": str(folder), "dry_run": options.dry_run,
        "options": {**(session_key or options.key()), "jobs": options.jobs, "scheduler": options.scheduler,
                    "timeout_factor": options.timeout_factor, "timeout_base": options.timeout_base,
                    "equivalent": str(equivalent_path)},
        "operators": list(operators), "files": list(files),
        "machine": {"host": platform.node(), "cpu": platform.processor() or platform.machine(),
                    "cores": os.cpu_count(), "load_average_before": load_before, "load_average_after": _load_average(),
                    "python": platform.python_version()},
        "wall_seconds": round(time.perf_counter() - started, 2),
        "cpu_seconds": round(cpu_seconds() - cpu_start, 2),
        "mutant_seconds": {"runs": len(run_seconds), "total": round(sum(run_seconds), 2),
                           "cpu": round(sum(run_cpu), 2),
                           "mean": round(sum(run_seconds) / len(run_seconds), 3) if run_seconds else None},
        "baseline": None if baseline is None else {
            "tests": len(baseline.seconds), "failed": baseline.failed, "skipped": baseline.skipped,
            "wall_seconds": baseline.wall_seconds, "cpu_seconds": baseline.cpu_seconds,
            "startup_seconds": baseline.startup_seconds},
        "modules": modules, "total": totals,
        "left_out": {reason: {"mutants": count, "why": LEFT_OUT[reason]}
                     for reason, count in sorted((left_out or {}).items())},
        "by_operator": {op: dict(c) for op, c in sorted(per_operator.items())},
        "survivors": survivors, "shown": shown, "equivalent": listed, "stale_equivalent": stale,
        "mutants": judged if results else [m.to_json() for m in mutants],
    }


def _version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def survivor_stub(entry: dict[str, Any]) -> str:
    """A survivor as an ``[[equivalent]]`` TOML entry to complete with the reason (when it is one)."""
    return "\n".join(["[[equivalent]]", f"id = {json.dumps(entry['id'])}", f"file = {json.dumps(entry['path'])}",
                      f"original = {json.dumps(entry.get('original', ''))}",
                      f"mutated = {json.dumps(entry.get('mutated', ''))}", 'reason = ""'])
