"""The claim model: what a claim is, what evidence it produces, and how a verdict follows from evidence.

A claim's check receives a :class:`Context` and records evidence through it:

* ``ctx.prove``        a symbolic / exact / interval argument that establishes the statement (decisive);
* ``ctx.support``      numeric, convex or trend evidence for the statement;
* ``ctx.counterexample`` a counterexample to the statement *as printed* (makes the verdict ``refuted``);
* ``ctx.control``      a negative control: a perturbed statement that the same check must reject.

The verdict is never set by the claim itself; :func:`decide` derives it from the evidence.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np


class Verdict(str, Enum):
    CERTIFIED = "certified"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"
    ASSUMED = "assumed"
    TOOTHLESS = "toothless"  # runner outcome: a negative control was not rejected (always a failure)


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


PAPERS: dict[str, str] = {
    "rank": "Timor, Vardi, Shamir: Implicit regularization towards rank minimization in ReLU networks",
    "margin": "Vardi, Shamir, Srebro: On margin maximization in linear and ReLU networks",
    "tensor": "Yun, Krishnan, Mobahi: A unifying view on implicit bias in training linear neural networks",
    "align": "Ji, Telgarsky: Gradient descent aligns the layers of deep linear networks",
}

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


@dataclass(frozen=True)
class Evidence:
    name: str
    kind: EvidenceKind
    role: Role
    passed: bool
    detail: str
    figures: dict[str, Figure] = field(default_factory=dict)
    plot: Plot | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name, "kind": self.kind.value, "role": self.role.value, "passed": self.passed,
            "detail": self.detail, "figures": dict(self.figures),
        }
        if self.plot is not None:
            data["plot"] = self.plot.to_json()
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Evidence:
        return Evidence(
            name=data["name"], kind=EvidenceKind(data["kind"]), role=Role(data.get("role", "support")),
            passed=bool(data["passed"]), detail=data.get("detail", ""), figures=dict(data.get("figures", {})),
            plot=Plot.from_json(data["plot"]) if data.get("plot") else None,
        )


class ClaimDefinitionError(ValueError):
    """A claim was declared or recorded inconsistently (a bug in the claim, not a verdict)."""


class Context:
    """What a check sees: profile, seed, deterministic random streams, and the evidence recorder.

    Where the check's sweeps (:mod:`numerics.sweeps`) run: ``scheduler``, the address of a Dask distributed
    scheduler, or None for local processes; ``device``, ``"cpu"`` or ``"cuda"`` for the batched engines, or None for
    CUDA when available.
    """

    def __init__(self, claim_id: str, profile: Profile, seed: int, scheduler: str | None = None,
                 device: str | None = None) -> None:
        self.claim_id = claim_id
        self.profile = profile
        self.seed = seed
        self.scheduler = scheduler
        self.device = device
        self.evidence: list[Evidence] = []

    # -- sizes and randomness -------------------------------------------------------------------
    def pick(self, quick: Any, full: Any = None, paper: Any = None) -> Any:
        """The value for the active profile; ``full`` defaults to ``quick`` and ``paper`` to ``full``."""
        full = quick if full is None else full
        paper = full if paper is None else paper
        return {Profile.QUICK: quick, Profile.FULL: full, Profile.PAPER: paper}[self.profile]

    def rng(self, stream: str = "") -> np.random.Generator:
        """A generator determined by (run seed, claim id, stream name): same seed, same numbers."""
        digest = hashlib.sha256(f"{self.seed}:{self.claim_id}:{stream}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest[:8], "little"))

    # -- evidence ------------------------------------------------------------------------------
    def _record(self, name: str, kind: EvidenceKind | str, role: Role, passed: bool, detail: str,
                figures: Mapping[str, Any] | None, plot: Plot | None) -> bool:
        kind = EvidenceKind(kind)
        if "\n" in detail:
            raise ClaimDefinitionError(f"{self.claim_id}: evidence '{name}' detail must be one line")
        if role is Role.PROOF and kind not in RIGOROUS_KINDS:
            raise ClaimDefinitionError(f"{self.claim_id}: proof '{name}' must be symbolic, exact or interval")
        if (role is Role.CONTROL) != (kind is EvidenceKind.NEGATIVE_CONTROL):
            raise ClaimDefinitionError(f"{self.claim_id}: controls and only controls have kind negative_control")
        clean = {str(k): _clean_figure(v) for k, v in (figures or {}).items()}
        self.evidence.append(Evidence(name, kind, role, bool(passed), detail, clean, plot))
        return bool(passed)

    def prove(self, name: str, kind: EvidenceKind | str, passed: bool, detail: str,
              figures: Mapping[str, Any] | None = None, plot: Plot | None = None) -> bool:
        """Decisive rigorous evidence: when it passes, it establishes the (finite) statement."""
        return self._record(name, kind, Role.PROOF, passed, detail, figures, plot)

    def support(self, name: str, kind: EvidenceKind | str, passed: bool, detail: str,
                figures: Mapping[str, Any] | None = None, plot: Plot | None = None) -> bool:
        """Evidence for the statement that does not prove it (numbers meeting a stated tolerance)."""
        return self._record(name, kind, Role.SUPPORT, passed, detail, figures, plot)

    def counterexample(self, name: str, kind: EvidenceKind | str, found: bool, detail: str,
                       figures: Mapping[str, Any] | None = None, plot: Plot | None = None) -> bool:
        """A counterexample to the statement as printed; ``found`` means certified or reproduced."""
        return self._record(name, kind, Role.COUNTEREXAMPLE, found, detail, figures, plot)

    def control(self, name: str, rejected: bool, detail: str, figures: Mapping[str, Any] | None = None,
                plot: Plot | None = None) -> bool:
        """A negative control: a perturbed statement; ``rejected`` must be true for the check to count."""
        return self._record(name, EvidenceKind.NEGATIVE_CONTROL, Role.CONTROL, rejected, detail, figures, plot)

    def error(self, name: str, detail: str) -> None:
        """A failure to produce evidence (solver failure, exception): forces ``inconclusive``."""
        self.evidence.append(Evidence(name, EvidenceKind.NUMERIC, Role.ERROR, False, detail))


def decide(evidence: Sequence[Evidence], *, cited: bool) -> Verdict:
    """The verdict that the evidence supports.

    * any error, or no evidence for or against the statement: inconclusive;
    * a negative control missing or not rejected: toothless;
    * a counterexample found: refuted;
    * any supporting or proving item failed: inconclusive (a tolerance not reached is not a refutation);
    * a cited result: assumed; a passing rigorous proof item: certified; otherwise confirmed.
    """
    by_role: dict[Role, list[Evidence]] = {role: [] for role in Role}
    for item in evidence:
        by_role[item.role].append(item)
    if by_role[Role.ERROR]:
        return Verdict.INCONCLUSIVE
    substantive = by_role[Role.PROOF] + by_role[Role.SUPPORT] + by_role[Role.COUNTEREXAMPLE]
    if not substantive:
        return Verdict.INCONCLUSIVE
    controls = by_role[Role.CONTROL]
    if not controls or not all(item.passed for item in controls):
        return Verdict.TOOTHLESS
    if any(item.passed for item in by_role[Role.COUNTEREXAMPLE]):
        return Verdict.REFUTED
    statement_items = by_role[Role.PROOF] + by_role[Role.SUPPORT]
    if not statement_items or not all(item.passed for item in statement_items):
        return Verdict.INCONCLUSIVE
    if cited:
        return Verdict.ASSUMED
    if by_role[Role.PROOF]:
        return Verdict.CERTIFIED
    return Verdict.CONFIRMED


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
    notes: tuple[str, ...] = ()  # disagreements with the spec, uncertain readings of the source

    def to_summary(self) -> dict[str, Any]:
        return {"id": self.id, "paper": self.paper, "ref": self.ref, "kind": self.kind, "title": self.title,
                "expected": self.expected.value}

    def to_json(self) -> dict[str, Any]:
        return {
            **self.to_summary(), "statement": self.statement, "hypotheses": list(self.hypotheses),
            "profiles": dict(self.profiles), "cited": self.cited, "corrected_by": self.corrected_by,
            "corrects": self.corrects, "notes": list(self.notes),
        }
