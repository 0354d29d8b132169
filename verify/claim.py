"""The claim model: what a claim is, what evidence it produces, and how verdicts follow from evidence.

A claim declares its **conclusions** (the parts of its statement, each with the verdict it expects). Its check
receives a :class:`Context` and records evidence through it, each item naming the conclusion it bears on:

* ``ctx.prove``          a symbolic / exact / interval argument for a conclusion;
* ``ctx.support``        numeric, convex or trend evidence for a conclusion (or exact evidence not offered as proof);
* ``ctx.counterexample`` a counterexample to a conclusion *as printed*;
* ``ctx.control``        a negative control: the *same* :class:`Criterion` that decided an evidence item, called
                         on perturbed arguments (a wrong constant, a dropped hypothesis, a shifted point); it counts
                         only when the criterion then answers "does not hold" (not when it raised or could not
                         decide).

Evidence is best decided by a criterion (``ctx.prove(name, kind, criterion(args...), detail)``): only such items
can be controlled. A criterion that checks a printed bound also says how tight it is on its instances
(``Decision(..., tightness=tightness("‖W‖ ≤ K", measured, bound))``: the largest and smallest ratio of measured
value to bound, 1 = attained); the record travels with the item and its controls into the results and the report's
tightness table, so a bound weakened in a direction that still holds shows as a smaller ratio. The verdicts are
never set by the claim itself: :func:`decide` derives one per conclusion, and the claim's verdict is the weakest of
them (:data:`VERDICT_ORDER`).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np


class Verdict(str, Enum):
    CERTIFIED = "certified"  # every item rigorous (symbolic, exact, interval), a proof among them, all pass
    CONFIRMED = "confirmed"  # every item passes, some numeric, convex or trend evidence among them
    REFUTED = "refuted"  # a rigorous counterexample to the statement as printed
    CONTRADICTED = "contradicted"  # numerical evidence against the statement, no rigorous counterexample
    INCONCLUSIVE = "inconclusive"  # evidence missing, failing or undecided
    ASSUMED = "assumed"  # a result the paper cites, shown with supporting evidence only
    TOOTHLESS = "toothless"  # runner outcome: a negative control missing or not rejected (always a failure)
    ERROR = "error"  # a defect of the claim: a passing proof and a passing counterexample of one conclusion


# The claim's verdict is the first of these that one of its conclusions has: defects and failures are never
# hidden under a verdict that sounds better, and a refuted conclusion refutes the claim.
VERDICT_ORDER: tuple[Verdict, ...] = (
    Verdict.ERROR, Verdict.TOOTHLESS, Verdict.INCONCLUSIVE, Verdict.REFUTED, Verdict.CONTRADICTED,
    Verdict.ASSUMED, Verdict.CONFIRMED, Verdict.CERTIFIED,
)
RIGOROUS_VERDICTS = frozenset({Verdict.CERTIFIED, Verdict.REFUTED})
ERRATA_NATURES = ("substantive", "literal")  # the intended statement fails / only a degenerate reading fails


class EvidenceKind(str, Enum):
    SYMBOLIC = "symbolic"
    EXACT = "exact"
    INTERVAL = "interval"
    NUMERIC = "numeric"
    CONVEX = "convex"
    TREND = "trend"
    NEGATIVE_CONTROL = "negative_control"


RIGOROUS_KINDS = frozenset({EvidenceKind.SYMBOLIC, EvidenceKind.EXACT, EvidenceKind.INTERVAL})


class Role(str, Enum):
    PROOF = "proof"
    SUPPORT = "support"
    COUNTEREXAMPLE = "counterexample"
    CONTROL = "control"
    ERROR = "error"


class Profile(str, Enum):
    QUICK = "quick"
    FULL = "full"
    PAPER = "paper"
    GPU = "gpu"  # the paper's sizes, and far larger Monte Carlo samples where a claim says so (needs a GPU)


class _InstalledPapers(Mapping[str, str]):
    """Paper key → "Authors: Title" of every installed paper (:mod:`verify.papers`), looked up when first used."""

    def _papers(self) -> dict[str, str]:
        from verify.papers import installed

        return {key: paper.heading for key, paper in installed().items()}

    def __getitem__(self, key: str) -> str:
        return self._papers()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._papers())

    def __len__(self) -> int:
        return len(self._papers())


PAPERS: Mapping[str, str] = _InstalledPapers()

CLAIM_KINDS = frozenset(
    {"theorem", "lemma", "corollary", "assumption", "definition", "remark", "equation", "experiment",
     "construction"}
)

Figure = float | int | str | bool

_MARKUP_SPECIALS = re.compile(r"([\\_*#$<>@`\[\]~])")


def plain(*texts: str) -> list[str]:
    """Prose for hypotheses and notes, escaped so typst shows it as typed (W_k, a*b, [x] stay literal).

    Statements, hypotheses and notes are typst markup; wrap the ones written as plain prose with this.
    """
    return [_MARKUP_SPECIALS.sub(r"\\\1", text) for text in texts]


def _clean_figure(value: Any) -> Figure:
    """Figures are JSON scalars; non-finite floats become strings so JSON stays standard."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        return value
    number = float(value)
    if math.isfinite(number):
        return number
    return "nan" if math.isnan(number) else ("inf" if number > 0 else "-inf")


@dataclass(frozen=True)
class Series:
    """One curve or sample set of a plot."""

    label: str
    x: tuple[float, ...]
    y: tuple[float, ...] = ()


@dataclass(frozen=True)
class Plot:
    """Plot data stored with evidence; the report renders it (line, scatter or histogram)."""

    kind: str  # "line" | "scatter" | "hist"
    title: str
    series: tuple[Series, ...]
    xlabel: str = ""
    ylabel: str = ""
    xscale: str = "linear"
    yscale: str = "linear"
    reference: tuple[tuple[str, float], ...] = ()  # labelled reference values drawn as lines

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "title": self.title, "xlabel": self.xlabel, "ylabel": self.ylabel,
            "xscale": self.xscale, "yscale": self.yscale,
            "series": [{"label": s.label, "x": [_finite(v) for v in s.x], "y": [_finite(v) for v in s.y]}
                       for s in self.series],
            "reference": [[label, value] for label, value in self.reference],
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Plot:
        return Plot(
            kind=data["kind"], title=data["title"], xlabel=data.get("xlabel", ""),
            ylabel=data.get("ylabel", ""), xscale=data.get("xscale", "linear"),
            yscale=data.get("yscale", "linear"),
            series=tuple(Series(s["label"], tuple(s["x"]), tuple(s.get("y", ()))) for s in data["series"]),
            reference=tuple((r[0], float(r[1])) for r in data.get("reference", ())),
        )


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def line(title: str, curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *, xlabel: str = "",
         ylabel: str = "", xscale: str = "linear", yscale: str = "linear",
         reference: Mapping[str, float] | None = None) -> Plot:
    """A line plot with one curve per label."""
    series = tuple(Series(label, tuple(map(float, x)), tuple(map(float, y))) for label, (x, y) in curves.items())
    return Plot("line", title, series, xlabel, ylabel, xscale, yscale,
                tuple((k, float(v)) for k, v in (reference or {}).items()))


def histogram(title: str, samples: Mapping[str, Sequence[float]], *, xlabel: str = "",
              reference: Mapping[str, float] | None = None) -> Plot:
    """A histogram with one sample set per label."""
    series = tuple(Series(label, tuple(map(float, x))) for label, x in samples.items())
    return Plot("hist", title, series, xlabel, "count", reference=tuple((k, float(v))
                                                                         for k, v in (reference or {}).items()))


BOUND_SENSES = ("upper", "lower")


@dataclass(frozen=True)
class Tightness:
    """How tight a printed bound is on the instances a check measured it on.

    Each instance has a ratio: measured / bound for an upper bound (``measured ≤ bound``), bound / measured for a
    lower one (``measured ≥ bound``), so a ratio ≤ 1 means the bound holds there, 1 that it is attained and > 1
    that it is violated. ``tightest`` is the largest ratio (the instance closest to the bound, or past it),
    ``loosest`` the smallest. A bound weakened so that it still holds shows as a smaller ``tightest``.
    Made by :func:`tightness`; carried by a :class:`Decision` (or passed as ``tightness=`` to an evidence item).
    """

    bound: str  # the bound in words, plain text: "‖W_k‖_F ≤ B (Eq. 19)"
    tightest: float
    loosest: float
    instances: int
    sense: str = "upper"  # "upper": measured ≤ bound; "lower": measured ≥ bound

    def __post_init__(self) -> None:
        if self.sense not in BOUND_SENSES:
            raise ClaimDefinitionError(f"tightness of '{self.bound}': sense must be 'upper' or 'lower', "
                                       f"got {self.sense!r}")
        if not self.bound.strip() or "\n" in self.bound:
            raise ClaimDefinitionError(f"tightness bound must be one non-empty line, got {self.bound!r}")

    @property
    def holds(self) -> bool:
        """Every instance within the bound (ratio ≤ 1)."""
        return self.instances > 0 and self.tightest <= 1

    def to_json(self) -> dict[str, Any]:
        return {"bound": self.bound, "sense": self.sense, "instances": self.instances,
                "tightest": _clean_figure(self.tightest), "loosest": _clean_figure(self.loosest)}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Tightness:
        return Tightness(bound=data["bound"], tightest=float(data["tightest"]), loosest=float(data["loosest"]),
                         instances=int(data["instances"]), sense=data.get("sense", "upper"))


def _ratios(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """numerator / denominator of nonnegative quantities, entrywise; never raises (a check must not fail on its
    record): a denominator 0 gives 1 over a numerator 0 and ±∞ otherwise, a negative one ∞ under a positive
    numerator (violated) and NaN otherwise."""
    ratios = np.full(numerators.shape, math.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        positive, zero, negative = denominators > 0, denominators == 0, denominators < 0
        ratios[positive] = numerators[positive] / denominators[positive]
        ratios[zero] = np.where(numerators[zero] == 0, 1.0, np.sign(numerators[zero]) * math.inf)
        ratios[negative] = np.where(numerators[negative] > 0, math.inf, math.nan)
    return ratios


def tightness(bound: str, measured: Any, limit: Any, *, sense: str = "upper") -> Tightness:
    """The tightness of ``bound`` on instances: ``measured`` values and the bound's ``limit`` values (arrays or
    scalars, broadcast against each other; one instance per entry).

    ``sense="upper"`` for ``measured ≤ limit`` (ratio measured / limit), ``"lower"`` for ``measured ≥ limit``
    (ratio limit / measured). State the bound between nonnegative quantities: a denominator 0 gives ratio 1
    when the numerator is 0 too and ±∞ otherwise; a negative denominator gives ∞ under a positive numerator
    (violated) and NaN otherwise. NaN ratios are left out of ``tightest`` and ``loosest`` (both NaN when every
    ratio is NaN) but counted as instances. Never raises on values, so a record cannot change a verdict.
    """
    if sense not in BOUND_SENSES:
        raise ClaimDefinitionError(f"tightness of '{bound}': sense must be 'upper' or 'lower', got {sense!r}")
    measured_values, limit_values = np.broadcast_arrays(np.asarray(measured, dtype=float),
                                                        np.asarray(limit, dtype=float))
    numerators, denominators = ((measured_values, limit_values) if sense == "upper"
                                else (limit_values, measured_values))
    ratios = _ratios(numerators.ravel(), denominators.ravel())
    seen = ratios[~np.isnan(ratios)]
    return Tightness(bound, float(seen.max()) if seen.size else math.nan, float(seen.min()) if seen.size else math.nan,
                     int(ratios.size), sense)


def merge_tightness(records: Sequence[Tightness], bound: str | None = None) -> Tightness:
    """One record for the instances of several records of the same bound (sense), e.g. one per run."""
    if not records:
        raise ClaimDefinitionError("merge_tightness needs at least one record")
    senses = {r.sense for r in records}
    if len(senses) != 1:
        raise ClaimDefinitionError(f"cannot merge upper and lower bounds ({', '.join(r.bound for r in records)})")
    tightest = [r.tightest for r in records if not math.isnan(r.tightest)]
    loosest = [r.loosest for r in records if not math.isnan(r.loosest)]
    return Tightness(bound or records[0].bound, max(tightest, default=math.nan), min(loosest, default=math.nan),
                     sum(r.instances for r in records), senses.pop())


def _tightness_tuple(value: Tightness | Sequence[Tightness] | None) -> tuple[Tightness, ...]:
    if value is None:
        return ()
    records = (value,) if isinstance(value, Tightness) else tuple(value)
    if not all(isinstance(r, Tightness) for r in records):
        raise ClaimDefinitionError("tightness= takes Tightness records (made by verify.claim.tightness)")
    return records


@dataclass(frozen=True)
class Evidence:
    name: str
    kind: EvidenceKind
    role: Role
    passed: bool
    detail: str
    figures: dict[str, Figure] = field(default_factory=dict)
    plot: Plot | None = None
    conclusion: str = ""  # the conclusion it bears on ("" only for an error that stopped the whole check)
    criterion: str = ""  # the criterion that decided it, if any
    arguments: dict[str, str] = field(default_factory=dict)  # the criterion's arguments, as shown
    perturbs: int | None = None  # a control: index of the evidence item whose criterion call it perturbs
    change: str = ""  # a control: the perturbation in words ("bound: 2 → 1")
    undecided: bool = False  # the criterion raised or could not decide (never a pass, never a rejection)
    tightness: tuple[Tightness, ...] = ()  # how tight the printed bounds it checks are on its instances

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name, "kind": self.kind.value, "role": self.role.value, "passed": self.passed,
            "detail": self.detail, "figures": dict(self.figures), "conclusion": self.conclusion,
        }
        if self.criterion:
            data["criterion"] = self.criterion
            data["arguments"] = dict(self.arguments)
        if self.perturbs is not None:
            data["perturbs"] = self.perturbs
            data["change"] = self.change
        if self.undecided:
            data["undecided"] = True
        if self.tightness:
            data["tightness"] = [record.to_json() for record in self.tightness]
        if self.plot is not None:
            data["plot"] = self.plot.to_json()
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Evidence:
        return Evidence(
            name=data["name"], kind=EvidenceKind(data["kind"]), role=Role(data.get("role", "support")),
            passed=bool(data["passed"]), detail=data.get("detail", ""), figures=dict(data.get("figures", {})),
            plot=Plot.from_json(data["plot"]) if data.get("plot") else None,
            conclusion=data.get("conclusion", ""), criterion=data.get("criterion", ""),
            arguments=dict(data.get("arguments", {})), perturbs=data.get("perturbs"),
            change=data.get("change", ""), undecided=bool(data.get("undecided", False)),
            tightness=tuple(Tightness.from_json(t) for t in data.get("tightness", ())),
        )


class ClaimDefinitionError(ValueError):
    """A claim was declared or recorded inconsistently (a bug in the claim, not a verdict)."""


# -- criteria ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decision:
    """What a criterion answers: ``holds`` True / False, or None when it cannot decide; detail and figures; and,
    for a criterion that checks a printed bound, how tight the bound is on its instances (:func:`tightness`:
    one record or several)."""

    holds: bool | None
    detail: str = ""
    figures: Mapping[str, Any] = field(default_factory=dict)
    tightness: Tightness | Sequence[Tightness] | None = ()

    def __post_init__(self) -> None:
        if self.holds is not None and not isinstance(self.holds, bool):  # numpy's bool_ and the like
            object.__setattr__(self, "holds", bool(self.holds))
        object.__setattr__(self, "tightness", _tightness_tuple(self.tightness))


_ARRAY_SHOWN = 12  # arrays with at most this many entries are shown in full, larger ones by shape and digest
_SHOWN_CHARACTERS = 80


def _argument_text(value: Any) -> tuple[str, str]:
    """(what the report shows, a fingerprint that tells different values apart) of one criterion argument."""
    if isinstance(value, np.ndarray):
        flat = value.ravel()
        if value.dtype == object:
            full = repr([str(v) for v in flat]) + str(value.shape)
        else:
            full = hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest() + str(value.shape) + str(
                value.dtype)
        if flat.size <= _ARRAY_SHOWN:
            shown = np.array2string(value, precision=6, separator=", ") if value.dtype != object else str(
                [str(v) for v in flat])
        else:
            shown = f"array{value.shape} #{hashlib.sha256(full.encode()).hexdigest()[:8]}"
        return " ".join(shown.split()), full
    if callable(value) and not isinstance(value, Criterion):
        name = getattr(value, "__qualname__", type(value).__name__)
        code = getattr(value, "__code__", None)
        full = f"{name}@{code.co_filename}:{code.co_firstlineno}" if code is not None else name
        # a private or local helper reads as its name, without Python's underscore or enclosing function
        return name.rsplit("<locals>.", 1)[-1].lstrip("_"), full
    if isinstance(value, float):
        full = repr(value)
        return f"{value:.8g}", full
    full = repr(value) if not hasattr(value, "free_symbols") else str(value)  # sympy: str is stable and exact
    full = re.sub(r" at 0x[0-9a-f]+", "", full)  # default reprs carry addresses: not part of the value
    shown = " ".join(full.split())
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, str) for v in value):
        shown = " ".join(("(" + ", ".join(value) + ")").split())  # exact values as text: no Python quotes
    if len(shown) > _SHOWN_CHARACTERS and type(value).__module__ != "builtins" and not hasattr(value, "free_symbols"):
        # an object (a network, a model): its type and a digest of its repr, not a cut-off repr full of arrays
        shown = f"{type(value).__name__} #{hashlib.sha256(full.encode()).hexdigest()[:8]}"
    elif len(shown) > _SHOWN_CHARACTERS:  # cut off, with a digest of the whole: another value shows as another text
        head = shown[: _SHOWN_CHARACTERS - 11].rstrip("*^_([{'\" ")  # no half operator or bracket before the cut
        shown = head + f"… #{hashlib.sha256(full.encode()).hexdigest()[:8]}"
    return shown, full


class Criterion:
    """A named test of a statement's ingredients (a constant, a point, a hypothesis, the data).

    The same criterion decides an evidence item and its negative controls: calling it returns an
    :class:`Application` that records the arguments and the answer. The function returns a bool, a
    ``(holds, detail)`` or ``(holds, detail, figures)`` tuple, or a :class:`Decision`; ``holds=None`` means it
    could not decide, and an exception is recorded the same way (never as "does not hold").
    """

    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        if not name or "\n" in name:
            raise ClaimDefinitionError(f"criterion name must be one non-empty line, got {name!r}")
        self.name = name
        self.function = function
        self._signature = inspect.signature(function)
        # lambdas built in a loop share their code: one criterion, whatever the loop iteration
        self.key = (name, getattr(function, "__code__", None) or id(function))

    def __repr__(self) -> str:
        return f"Criterion({self.name!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> Application:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ClaimDefinitionError(f"criterion '{self.name}': {exc}") from None
        bound.apply_defaults()
        arguments = {}
        fingerprint = {}
        for key, value in bound.arguments.items():
            if self._signature.parameters[key].kind is inspect.Parameter.VAR_KEYWORD:
                items = dict(value).items()
            elif self._signature.parameters[key].kind is inspect.Parameter.VAR_POSITIONAL:
                items = ((f"{key}[{i}]", v) for i, v in enumerate(value))
            else:
                items = ((key, value),)
            for name, item in items:
                arguments[name], fingerprint[name] = _argument_text(item)
        try:
            decision = _as_decision(self.function(*bound.args, **bound.kwargs))
        except Exception as exc:  # noqa: BLE001 - a criterion that raises has not decided
            first = str(exc).splitlines()[0] if str(exc) else ""
            decision = Decision(None, f"could not decide: {type(exc).__name__}: {first}")
        return Application(self, arguments, fingerprint, decision)


def criterion(name: str) -> Callable[[Callable[..., Any]], Criterion]:
    """Decorator form of :class:`Criterion`: ``@criterion("ratio ≥ M")`` over a function of the ingredients."""

    def wrap(function: Callable[..., Any]) -> Criterion:
        return Criterion(name, function)

    return wrap


def _as_decision(value: Any) -> Decision:
    if isinstance(value, Decision):
        return value
    if isinstance(value, tuple) and 1 <= len(value) <= 3:
        holds = value[0]
        detail = str(value[1]) if len(value) > 1 else ""
        figures = dict(value[2]) if len(value) > 2 else {}
        return Decision(None if holds is None else bool(holds), detail, figures)
    if value is None:
        return Decision(None, "could not decide")
    return Decision(bool(value))


@dataclass(frozen=True)
class Application:
    """One call of a criterion: its arguments (as shown and as fingerprints) and its decision."""

    criterion: Criterion
    arguments: dict[str, str]
    fingerprint: dict[str, str]
    decision: Decision

    @property
    def holds(self) -> bool | None:
        return self.decision.holds

    def __bool__(self) -> bool:
        return self.decision.holds is True

    def differences(self, other: Application) -> list[str]:
        """The arguments that differ from ``other``'s, as "name: old → new"."""
        names = list(dict.fromkeys([*other.fingerprint, *self.fingerprint]))
        return [f"{n}: {other.arguments.get(n, '—')} → {self.arguments.get(n, '—')}" for n in names
                if self.fingerprint.get(n) != other.fingerprint.get(n)]


# -- recording --------------------------------------------------------------------------------------------------

DEFAULT_CONCLUSION = "statement"  # the conclusion of a claim that declares none (one conclusion: the statement)


class Context:
    """What a check sees: profile, seed, deterministic random streams, and the evidence recorder.

    Where the check's sweeps (:mod:`numerics.sweeps`) run: ``scheduler``, the address of a Dask distributed
    scheduler, or None for local processes; ``device``, ``"cpu"`` or ``"cuda"`` for the batched engines, or None for
    CUDA when available. ``conclusions`` are the claim's conclusions: an item may leave out ``conclusion=`` only
    when there is one.
    """

    def __init__(self, claim_id: str, profile: Profile, seed: int, scheduler: str | None = None,
                 device: str | None = None, conclusions: Sequence[str] = (DEFAULT_CONCLUSION,)) -> None:
        self.claim_id = claim_id
        self.profile = profile
        self.seed = seed
        self.scheduler = scheduler
        self.device = device
        self.conclusions = tuple(conclusions)
        self.evidence: list[Evidence] = []
        self._applications: list[tuple[int, Application]] = []  # (evidence index, criterion call)

    # -- sizes and randomness -------------------------------------------------------------------
    def pick(self, quick: Any, full: Any = None, paper: Any = None, gpu: Any = None) -> Any:
        """The value for the active profile; ``full`` defaults to ``quick``, ``paper`` to ``full`` and ``gpu`` to
        ``paper``."""
        full = quick if full is None else full
        paper = full if paper is None else paper
        gpu = paper if gpu is None else gpu
        return {Profile.QUICK: quick, Profile.FULL: full, Profile.PAPER: paper, Profile.GPU: gpu}[self.profile]

    def rng(self, stream: str = "") -> np.random.Generator:
        """A generator determined by (run seed, claim id, stream name): same seed, same numbers."""
        digest = hashlib.sha256(f"{self.seed}:{self.claim_id}:{stream}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))

    # -- evidence ------------------------------------------------------------------------------
    def _conclusion(self, conclusion: str | None, name: str) -> str:
        if conclusion is None:
            if len(self.conclusions) != 1:
                raise ClaimDefinitionError(f"claim {self.claim_id}: evidence '{name}' must name its conclusion "
                                           f"(one of {', '.join(self.conclusions)})")
            return self.conclusions[0]
        if conclusion not in self.conclusions:
            raise ClaimDefinitionError(f"claim {self.claim_id}: evidence '{name}' names an undeclared conclusion "
                                       f"'{conclusion}' (declared: {', '.join(self.conclusions)})")
        return conclusion

    def _record(self, name: str, kind: EvidenceKind | str, role: Role, outcome: bool | Application, detail: str,
                figures: Mapping[str, Any] | None, plot: Plot | None, conclusion: str | None,
                tightness: Tightness | Sequence[Tightness] | None = None) -> bool:
        kind = EvidenceKind(kind)
        if role is Role.PROOF and kind not in RIGOROUS_KINDS:
            raise ClaimDefinitionError(f"claim {self.claim_id}: proof '{name}' must be symbolic, exact or interval")
        if kind is EvidenceKind.NEGATIVE_CONTROL:
            raise ClaimDefinitionError(f"claim {self.claim_id}: controls and only controls have kind negative_control")
        conclusion = self._conclusion(conclusion, name)
        application = outcome if isinstance(outcome, Application) else None
        merged = dict(application.decision.figures) if application is not None else {}
        merged.update(figures or {})
        if application is not None:
            passed = application.holds is True
            detail = "; ".join(part for part in (detail, application.decision.detail) if part)
        else:
            passed = bool(outcome)
        records = (application.decision.tightness if application is not None else ()) + _tightness_tuple(tightness)
        item = self._item(name, kind, role, passed, detail, merged, plot, conclusion, application,
                          tightness=records)
        if application is not None:
            self._applications.append((len(self.evidence) - 1, application))
        return item.passed

    def _item(self, name: str, kind: EvidenceKind, role: Role, passed: bool, detail: str,
              figures: Mapping[str, Any], plot: Plot | None, conclusion: str, application: Application | None,
              perturbs: int | None = None, change: str = "", tightness: tuple[Tightness, ...] = ()) -> Evidence:
        if "\n" in detail:
            raise ClaimDefinitionError(f"claim {self.claim_id}: evidence '{name}' detail must be one line")
        clean = {str(k): _clean_figure(v) for k, v in figures.items()}
        item = Evidence(name, kind, role, bool(passed), detail, clean, plot, conclusion,
                        application.criterion.name if application is not None else "",
                        dict(application.arguments) if application is not None else {}, perturbs, change,
                        bool(application is not None and application.holds is None), tightness)
        self.evidence.append(item)
        return item

    def prove(self, name: str, kind: EvidenceKind | str, passed: bool | Application, detail: str = "",
              figures: Mapping[str, Any] | None = None, plot: Plot | None = None, *,
              conclusion: str | None = None, tightness: Tightness | Sequence[Tightness] | None = None) -> bool:
        """Rigorous evidence for a conclusion (symbolic, exact or interval); best decided by a criterion."""
        return self._record(name, kind, Role.PROOF, passed, detail, figures, plot, conclusion, tightness)

    def support(self, name: str, kind: EvidenceKind | str, passed: bool | Application, detail: str = "",
                figures: Mapping[str, Any] | None = None, plot: Plot | None = None, *,
                conclusion: str | None = None, tightness: Tightness | Sequence[Tightness] | None = None) -> bool:
        """Evidence for a conclusion that does not prove it (numbers meeting a stated tolerance)."""
        return self._record(name, kind, Role.SUPPORT, passed, detail, figures, plot, conclusion, tightness)

    def counterexample(self, name: str, kind: EvidenceKind | str, found: bool | Application, detail: str = "",
                       figures: Mapping[str, Any] | None = None, plot: Plot | None = None, *,
                       conclusion: str | None = None,
                       tightness: Tightness | Sequence[Tightness] | None = None) -> bool:
        """A counterexample to a conclusion as printed; ``found`` means certified (rigorous kinds) or reproduced.

        An attempt that does not reproduce is a failing item: it is shown and keeps its conclusion inconclusive.
        """
        return self._record(name, kind, Role.COUNTEREXAMPLE, found, detail, figures, plot, conclusion,
                            tightness)

    def control(self, name: str, perturbed: Application, change: str = "", detail: str = "",
                figures: Mapping[str, Any] | None = None, plot: Plot | None = None, *,
                conclusion: str | None = None, because: str | None = None) -> bool:
        """A negative control: ``perturbed`` is a call of a criterion that decided an evidence item of this claim,
        on perturbed arguments; it is rejected only when the criterion answers "does not hold", and, with
        ``because``, only when its answer gives that reason (a text its detail contains): a control rejected for
        another reason (a broken input, another condition failing) has shown nothing about the perturbation.

        The control bears on the conclusion of the evidence item whose call it perturbs (the one whose arguments
        differ least; ``conclusion=`` restricts the choice to that conclusion's items); ``change`` describes the
        perturbation in words, next to the recorded argument changes.
        """
        if not isinstance(perturbed, Application):
            raise ClaimDefinitionError(
                f"claim {self.claim_id}: control '{name}' is not a call of a criterion (a control must call the "
                "criterion of the evidence it perturbs, with perturbed arguments)")
        same = [(index, app) for index, app in self._applications if app.criterion.key == perturbed.criterion.key]
        if conclusion is not None:
            conclusion = self._conclusion(conclusion, name)
            same = [(index, app) for index, app in same if self.evidence[index].conclusion == conclusion]
        if not same:
            raise ClaimDefinitionError(
                f"claim {self.claim_id}: control '{name}' calls criterion '{perturbed.criterion.name}', which decided "
                "no evidence item of this claim" + (f" for conclusion '{conclusion}'" if conclusion else ""))
        index, original = min(reversed(same), key=lambda pair: len(perturbed.differences(pair[1])))
        differences = perturbed.differences(original)
        if not differences:
            raise ClaimDefinitionError(
                f"claim {self.claim_id}: control '{name}' calls criterion '{perturbed.criterion.name}' with the "
                "arguments of its evidence: nothing is perturbed")
        text = "; ".join(differences) + (f" ({change})" if change else "")
        decided = perturbed.holds is not None
        rejected = perturbed.holds is False
        parts = [detail, perturbed.decision.detail]
        if not decided:
            parts.append("the criterion could not decide, which is not a rejection")
        elif rejected and because is not None and because not in perturbed.decision.detail:
            rejected = False
            parts.append(f"rejected, but not for the intended reason “{because}”")
        elif rejected and because is not None:
            parts.append(f"rejected for the intended reason “{because}”")
        merged = dict(perturbed.decision.figures)
        merged.update(figures or {})
        item = self._item(name, EvidenceKind.NEGATIVE_CONTROL, Role.CONTROL, rejected,
                          "; ".join(p for p in parts if p), merged, plot, self.evidence[index].conclusion, perturbed,
                          perturbs=index, change=text, tightness=perturbed.decision.tightness)
        return item.passed

    def error(self, name: str, detail: str, conclusion: str | None = None) -> None:
        """A failure to produce evidence (solver failure, exception): the conclusion (all, if none is named) is
        inconclusive."""
        if conclusion is not None:
            conclusion = self._conclusion(conclusion, name)
        self.evidence.append(Evidence(name, EvidenceKind.NUMERIC, Role.ERROR, False, " ".join(detail.split()),
                                      conclusion=conclusion or ""))


# -- verdicts ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ConclusionResult:
    """The verdict of one conclusion, the indices of its evidence items (controls included), and why."""

    name: str
    verdict: Verdict
    expected: Verdict
    evidence: tuple[int, ...]
    reason: str

    @property
    def rigorous(self) -> bool:
        return self.verdict in RIGOROUS_VERDICTS

    @property
    def ok(self) -> bool:
        return self.verdict is self.expected

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict.value, "expected": self.expected.value,
                "rigorous": self.rigorous, "evidence": list(self.evidence), "reason": self.reason}

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ConclusionResult:
        return ConclusionResult(data["name"], Verdict(data["verdict"]), Verdict(data.get("expected",
                                                                                          data["verdict"])),
                                tuple(data.get("evidence", ())), data.get("reason", ""))


def weakest(verdicts: Sequence[Verdict]) -> Verdict:
    """The claim's verdict from its conclusions' (:data:`VERDICT_ORDER`)."""
    return min(verdicts, key=VERDICT_ORDER.index) if verdicts else Verdict.INCONCLUSIVE


def _names(items: Sequence[Evidence]) -> str:
    """Up to three names in typographic quotes ('…' in parentheses would read as a Python tuple)."""
    more = f" and {len(items) - 3} more" if len(items) > 3 else ""
    return ", ".join(f"“{item.name}”" for item in items[:3]) + more


def decide_conclusion(items: Sequence[Evidence], *, cited: bool) -> tuple[Verdict, str]:
    """The verdict of one conclusion from its evidence items (controls included), and the reason in words.

    * an error, or no item for or against it: inconclusive;
    * a passing proof together with a passing counterexample (or a counterexample beside a passing proof that
      it contradicts): error, a defect of the claim;
    * a control missing, not rejected, or undecided: toothless;
    * a passing counterexample: refuted when it is rigorous and every counterexample attempt reproduced;
      contradicted when it is only numerical; any attempt that did not reproduce leaves it inconclusive;
    * any proof or support item failed: inconclusive (a tolerance not reached is not a refutation);
    * a cited result: assumed; every item rigorous with a proof among them: certified; otherwise confirmed.
    """
    by_role: dict[Role, list[Evidence]] = {role: [] for role in Role}
    for item in items:
        by_role[item.role].append(item)
    if by_role[Role.ERROR]:
        return Verdict.INCONCLUSIVE, f"error: {by_role[Role.ERROR][0].detail}"
    statement = by_role[Role.PROOF] + by_role[Role.SUPPORT]
    counter = by_role[Role.COUNTEREXAMPLE]
    if not statement and not counter:
        return Verdict.INCONCLUSIVE, "no evidence for or against it"
    proofs_passing = [item for item in by_role[Role.PROOF] if item.passed]
    found = [item for item in counter if item.passed]
    if proofs_passing and found:
        return Verdict.ERROR, (f"defect: proof {_names(proofs_passing)} and counterexample {_names(found)} of the "
                               "same conclusion both pass")
    controls = by_role[Role.CONTROL]
    if not controls:
        return Verdict.TOOTHLESS, "no negative control through its criteria"
    kept = [item for item in controls if not item.passed]
    if kept:
        undecided = [item for item in kept if item.undecided]
        why = "could not decide" if undecided else "was not rejected"
        return Verdict.TOOTHLESS, f"negative control {_names(kept)} {why}"
    if found:
        missed = [item for item in counter if not item.passed]
        if missed:
            return Verdict.INCONCLUSIVE, f"counterexample attempt {_names(missed)} did not reproduce"
        rigorous = [item for item in found if item.kind in RIGOROUS_KINDS]
        if rigorous:
            return Verdict.REFUTED, f"rigorous counterexample {_names(rigorous)}"
        return Verdict.CONTRADICTED, f"numerical evidence against it ({_names(found)}), no rigorous counterexample"
    failing = [item for item in statement + counter if not item.passed]
    if failing:
        return Verdict.INCONCLUSIVE, f"failing item {_names(failing)}"
    if cited:
        return Verdict.ASSUMED, "a cited result, with supporting evidence"
    loose = [item for item in statement if item.kind not in RIGOROUS_KINDS]
    if by_role[Role.PROOF] and not loose:
        return Verdict.CERTIFIED, "every item rigorous, all pass"
    if loose:
        return Verdict.CONFIRMED, f"rests on {loose[0].kind.value} evidence ({_names(loose)})"
    return Verdict.CONFIRMED, "exact evidence offered as support, not as proof"


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    conclusions: tuple[ConclusionResult, ...]


def decide(evidence: Sequence[Evidence], *, cited: bool,
           conclusions: Mapping[str, Verdict] | None = None) -> Judgement:
    """Verdicts per conclusion and for the claim (the weakest of its conclusions').

    ``conclusions`` maps each declared conclusion to its expected verdict; an error item that names no
    conclusion (the check stopped) bears on all of them.
    """
    if conclusions is None:
        conclusions = {DEFAULT_CONCLUSION: Verdict.CONFIRMED}
        evidence = [item if item.conclusion or item.role is Role.ERROR else
                    Evidence(**{**item.__dict__, "conclusion": DEFAULT_CONCLUSION}) for item in evidence]
    results = []
    for name, expected in conclusions.items():
        indices = tuple(i for i, item in enumerate(evidence) if item.conclusion == name or
                        (item.role is Role.ERROR and not item.conclusion))
        verdict, reason = decide_conclusion([evidence[i] for i in indices], cited=cited)
        results.append(ConclusionResult(name, verdict, Verdict(expected), indices, reason))
    return Judgement(weakest([r.verdict for r in results]), tuple(results))


Check = Callable[[Context], None]


@dataclass(frozen=True)
class Claim:
    """A registered, runnable statement of one paper."""

    id: str
    paper: str
    ref: str
    kind: str
    title: str
    statement: str  # typst math markup, restated in our own words
    hypotheses: tuple[str, ...]
    expected: Verdict
    check: Check
    profiles: Mapping[str, str]  # what each profile runs, in words
    cited: bool = False  # a result the paper cites; best verdict is `assumed`
    corrected_by: str | None = None  # id of the variant that holds, for a claim refuted as printed
    corrects: str | None = None  # id of the printed claim this variant corrects
    notes: tuple[str, ...] = ()  # uncertain readings of the paper, disagreements with its printed figures
    conclusions: Mapping[str, Verdict] = field(default_factory=dict)  # each part of the statement, expected verdict
    erratum: str | None = None  # a claim refuted as printed: "substantive" or "literal" (ERRATA_NATURES)


    @property
    def module(self) -> str:
        """The module that defines the claim's check (what a worker process imports to run it)."""
        return self.check.__module__

    def to_summary(self) -> dict[str, Any]:
        return {"id": self.id, "paper": self.paper, "ref": self.ref, "kind": self.kind, "title": self.title,
                "expected": self.expected.value,
                "conclusions": [{"name": name, "expected": verdict.value}
                                for name, verdict in self.conclusions.items()]}

    def to_json(self) -> dict[str, Any]:
        return {
            **self.to_summary(), "statement": self.statement, "hypotheses": list(self.hypotheses),
            "profiles": dict(self.profiles), "cited": self.cited, "corrected_by": self.corrected_by,
            "corrects": self.corrects, "notes": list(self.notes), "erratum": self.erratum,
        }
