"""Small helpers shared by the criteria of paper 003's claims."""

from __future__ import annotations

from numerics.symbolic import ZeroTest
from verify import Decision


def zero_decision(test: ZeroTest, figures: dict | None = None) -> Decision:
    """An exact zero test as a decision: proved ≡ 0 holds, a nonzero exact spot value does not, else undecided."""
    if test.proved:
        return Decision(True, test.description, figures or {})
    if test.refuted:
        return Decision(False, test.description, figures or {})
    return Decision(None, test.description, figures or {})


def both_zero(first: ZeroTest, second: ZeroTest) -> Decision:
    """Two identities proved together; either one refuted rejects; otherwise undecided."""
    if first.proved and second.proved:
        return Decision(True, f"{first.description}; {second.description}")
    if first.refuted or second.refuted:
        return Decision(False, f"{first.description}; {second.description}")
    return Decision(None, f"{first.description}; {second.description}")


class Named:
    """A criterion argument shown by its name (flow runs, data sets): the report shows the name, not the arrays,
    and two arguments differ exactly when their names do."""

    def __init__(self, name: str, value) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return self.name


def runs_named(runs, what: str = "runs") -> Named:
    """A list of flow runs named by their labels."""
    runs = list(runs)
    return Named(f"{len(runs)} {what}: " + "; ".join(run.label for run in runs), runs)
